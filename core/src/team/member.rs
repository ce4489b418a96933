//! `TeamMember`: what a team kernel receives.

use super::scratch::{Region, ScratchArena};
use crate::error::ScratchError;
use crate::policy::{PerTeam, PerThread, TeamPolicy};
use crate::reducer::{Reducer, ReductionIdentity};
use crate::space::ExecutionSpace;
use granule_views::chunk::{BlockToThread, GridToBlock, ScopedIds};
use granule_views::view::IntoIndex;
use granule_views::{Atomic, AtomicView, Element, ViewMut};
use std::ops::AddAssign;

/// A thread of a team: its ranks, team collectives, scratch memory.
///
/// On the host spaces a team is one thread, so collectives are immediate
/// (`team_reduce` of one value is that value joined with the identity).
///
/// ```
/// use granule_core::prelude::*;
/// let n: usize = parallel_reduce("ranks", TeamPolicy::new(&Serial, 10, AUTO), Sum, |m: &TeamMember, acc: &mut usize| {
///     assert_eq!((m.league_size(), m.team_size(), m.team_rank()), (10, 1, 0));
///     *acc += m.team_reduce(Sum, m.league_rank());
/// });
/// assert_eq!(n, 45);
/// ```
pub struct TeamMember {
    league_rank: usize,
    league_size: usize,
    team_rank: usize,
    team_size: usize,
    vector_length: usize,
    team: [Region<'static>; 2],
    thread: [Region<'static>; 2],
}

impl std::fmt::Debug for TeamMember {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamMember")
            .field("league_rank", &self.league_rank)
            .field("league_size", &self.league_size)
            .field("team_rank", &self.team_rank)
            .field("team_size", &self.team_size)
            .finish()
    }
}

/// Bytes of the arena a host team of `policy` uses: team then thread
/// scratch of level 0, then of level 1, each rounded to 64 bytes.
fn layout<S: ExecutionSpace>(policy: &TeamPolicy<'_, S>) -> [usize; 4] {
    exact(policy).map(|b| {
        b.checked_next_multiple_of(64)
            .unwrap_or_else(|| arena_overflow(policy))
    })
}

/// `with_scratch_size` keeps the arena below `isize::MAX` bytes, so this is
/// a broken invariant, reported with the sizes rather than wrapped.
#[cold]
#[inline(never)]
fn arena_overflow<S: ExecutionSpace>(policy: &TeamPolicy<'_, S>) -> ! {
    panic!(
        "team scratch arena: {:?} bytes per team and {:?} bytes per thread (levels 0 and 1), \
         each rounded up to 64, overflow usize",
        [policy.team_scratch_size(0), policy.team_scratch_size(1)],
        [policy.thread_scratch_size(0), policy.thread_scratch_size(1)],
    )
}

/// The bytes reserved for each region, in the order of [`layout`].
fn exact<S: ExecutionSpace>(policy: &TeamPolicy<'_, S>) -> [usize; 4] {
    [
        policy.team_scratch_size(0),
        policy.thread_scratch_size(0),
        policy.team_scratch_size(1),
        policy.thread_scratch_size(1),
    ]
}

impl TeamMember {
    /// Bytes of scratch arena one host team of `policy` needs.
    ///
    /// # Panics
    /// Never for a policy built with `with_scratch_size`, which refuses
    /// sizes whose arena would not fit; the sum is still checked.
    pub fn host_arena_bytes<S: ExecutionSpace>(policy: &TeamPolicy<'_, S>) -> usize {
        layout(policy)
            .iter()
            .try_fold(0usize, |a, &b| a.checked_add(b))
            .unwrap_or_else(|| arena_overflow(policy))
    }

    /// For host backends: runs `f` as team `league_rank` of `policy` on the
    /// calling thread (a team of one thread), with scratch carved from
    /// `arena`, which must hold [`TeamMember::host_arena_bytes`].
    ///
    /// # Panics
    /// If the policy's team size is not 1 or the arena is too small.
    pub fn run_host<S: ExecutionSpace, R>(
        policy: &TeamPolicy<'_, S>,
        league_rank: usize,
        arena: &mut ScratchArena,
        f: impl FnOnce(&TeamMember) -> R,
    ) -> R {
        assert_eq!(
            policy.team_size(),
            1,
            "host execution spaces run teams of one thread"
        );
        let (sizes, reserved) = (layout(policy), exact(policy));
        let total = Self::host_arena_bytes(policy);
        assert!(
            arena.capacity() >= total,
            "scratch arena of {} bytes, {total} needed",
            arena.capacity()
        );
        let base = arena.base();
        let region = |k: usize| {
            if sizes[k] == 0 {
                return Region::empty();
            }
            // A prefix of the sum `host_arena_bytes` checked.
            let off: usize = sizes[..k].iter().sum();
            // SAFETY: the four regions (each within its 64-byte rounded
            // slot) are disjoint ranges of the arena,
            // which `&mut arena` lends exclusively for this call; the
            // member (and every View carved from it) is only reachable by
            // reference inside `f`, so nothing outlives the borrow.
            unsafe { Region::new(base.add(off), reserved[k]) }
        };
        let member = TeamMember {
            league_rank,
            league_size: policy.league_size(),
            team_rank: 0,
            team_size: 1,
            vector_length: policy.vector_length(),
            team: [region(0), region(2)],
            thread: [region(1), region(3)],
        };
        f(&member)
    }

    /// This team's index in the league.
    #[inline(always)]
    pub fn league_rank(&self) -> usize {
        self.league_rank
    }
    /// Number of teams.
    #[inline(always)]
    pub fn league_size(&self) -> usize {
        self.league_size
    }
    /// This thread's index in its team.
    #[inline(always)]
    pub fn team_rank(&self) -> usize {
        self.team_rank
    }
    /// Threads per team.
    #[inline(always)]
    pub fn team_size(&self) -> usize {
        self.team_size
    }
    /// Vector lanes per thread.
    #[inline(always)]
    pub fn vector_length(&self) -> usize {
        self.vector_length
    }

    /// This team's ids in the Grid->Block scope (for dividing team chunks).
    pub fn team_ids(&self) -> ScopedIds<GridToBlock> {
        ScopedIds::linear(self.league_size, self.league_rank)
            .expect("league rank below league size")
    }

    /// This thread's ids in the Block->Thread scope: pass them to
    /// `ChunkMut::chunk_mut` to get the elements this thread may write.
    pub fn thread_ids(&self) -> ScopedIds<BlockToThread> {
        ScopedIds::linear(self.team_size, self.team_rank).expect("team rank below team size")
    }

    /// Waits until every thread of the team arrives.
    #[inline(always)]
    pub fn team_barrier(&self) {}

    /// `value` as thread `source` has it, on every thread of the team.
    ///
    /// # Panics
    /// If `source >= team_size()`.
    #[track_caller]
    pub fn team_broadcast<T: Copy>(&self, value: T, source: usize) -> T {
        assert!(
            source < self.team_size,
            "team_broadcast from team rank {source}, but the team has {} threads",
            self.team_size
        );
        value
    }

    /// The join of every thread's `value`, on every thread.
    pub fn team_reduce<T, R: Reducer<T>>(&self, reducer: R, value: T) -> T {
        let mut acc = reducer.init();
        reducer.join(&mut acc, &value);
        acc
    }

    /// Exclusive prefix sum of `value` over the team's threads in rank
    /// order (0 on rank 0).
    pub fn team_scan<T: ReductionIdentity + AddAssign>(&self, _value: T) -> T {
        T::sum()
    }

    /// Exclusive prefix sum over the team, offset by a global accumulator:
    /// the team's total is added atomically to `global[index]`, and each
    /// thread gets the accumulator's previous value plus its exclusive
    /// prefix (Kokkos's `team_scan(value, &global)`).
    ///
    /// ```
    /// use granule_core::prelude::*;
    /// let mut acc = View1::<u64>::zeros("acc", 1).unwrap();
    /// let mut offsets = View1::<u64>::zeros("offsets", 4).unwrap();
    /// let g = acc.atomic().unwrap();
    /// parallel_for("offsets", TeamPolicy::new(&Serial, 4, AUTO), offsets.chunked(MapContinuousLinear::new(1)), |m: &TeamMember, mut part: TeamChunk<u64>| {
    ///     let mut mine = part.chunk_mut(MapIdentity, m.thread_ids()).unwrap();
    ///     mine[0] = m.team_scan_global(10, &g, 0);
    /// });
    /// assert_eq!(acc[0], 40);
    /// let mut o = offsets.to_vec();
    /// o.sort();
    /// assert_eq!(o, vec![0, 10, 20, 30]);
    /// ```
    #[track_caller]
    pub fn team_scan_global<T: Atomic + ReductionIdentity + AddAssign>(
        &self,
        value: T,
        global: &AtomicView<'_, T, 1>,
        index: usize,
    ) -> T {
        let mut before = global.fetch_add(index, value);
        before += self.team_scan(value);
        before
    }

    /// A zero-filled View of the team's scratch at `level` (shared by the
    /// team's threads). Fails when the policy did not reserve enough with
    /// `with_scratch_size(level, PerTeam(bytes))`.
    pub fn team_scratch<T: Element, const R: usize>(
        &self,
        level: usize,
        extents: impl IntoIndex<R>,
    ) -> Result<ViewMut<'_, T, R>, ScratchError> {
        match self.team.get(level) {
            Some(r) => r.view(level, "team", extents.into_index()),
            None => Err(ScratchError::Level {
                level,
                scope: "team",
            }),
        }
    }

    /// A zero-filled View of this thread's scratch at `level`. Fails when
    /// the policy did not reserve enough with `PerThread(bytes)`.
    ///
    /// ```
    /// use granule_core::prelude::*;
    /// let p = TeamPolicy::new(&Serial, 2, AUTO).with_scratch_size(1, PerThread(8 * 16)).unwrap();
    /// parallel_for("tmp", p, (), |m: &TeamMember, ()| {
    ///     let mut tmp = m.thread_scratch::<f64, 1>(1, 16).unwrap();
    ///     tmp[15] = m.league_rank() as f64;
    ///     assert!(m.thread_scratch::<f64, 1>(1, 1).is_err()); // all 128 bytes used
    /// });
    /// ```
    pub fn thread_scratch<T: Element, const R: usize>(
        &self,
        level: usize,
        extents: impl IntoIndex<R>,
    ) -> Result<ViewMut<'_, T, R>, ScratchError> {
        match self.thread.get(level) {
            Some(r) => r.view(level, "thread", extents.into_index()),
            None => Err(ScratchError::Level {
                level,
                scope: "thread",
            }),
        }
    }
}

/// Who runs a [`single`] block: `PerTeam(member)` (one thread of the
/// team) or `PerThread(member)` (one vector lane of each thread).
pub trait SingleScope {
    /// The member.
    fn member(&self) -> &TeamMember;
}

impl SingleScope for PerTeam<&TeamMember> {
    fn member(&self) -> &TeamMember {
        self.0
    }
}

impl SingleScope for PerThread<&TeamMember> {
    fn member(&self) -> &TeamMember {
        self.0
    }
}

/// Runs `f` once per team (`PerTeam(member)`) or once per thread
/// (`PerThread(member)`) and broadcasts its result to every caller.
///
/// ```
/// use granule_core::prelude::*;
/// parallel_for("single", TeamPolicy::new(&Serial, 3, AUTO), (), |m: &TeamMember, ()| {
///     let v = single(PerTeam(m), || 10 * m.league_rank());
///     let w = single(PerThread(m), || v + 1);
///     assert_eq!(w, 10 * m.league_rank() + 1);
/// });
/// ```
pub fn single<T, S: SingleScope>(scope: S, f: impl FnOnce() -> T) -> T {
    let _ = scope.member();
    f()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Serial;

    #[derive(Clone, Copy, granule_views::Zeroable)]
    #[bytemuck(crate = "granule_views::bytemuck")]
    #[repr(C, align(128))]
    struct Wide([u64; 16]);

    /// The public path of over-aligned scratch: team and thread scratch of
    /// a 128-aligned type, several Views in a row, from a policy's arena.
    #[test]
    fn scratch_views_of_overaligned_types_are_aligned() {
        let per_view = 128 + 64;
        let policy = TeamPolicy::new(&Serial, 3, 1)
            .with_scratch_size(0, (PerTeam(4 * per_view), PerThread(per_view + 8)))
            .unwrap();
        let mut arena = ScratchArena::default();
        arena.reserve(TeamMember::host_arena_bytes(&policy));
        for rank in 0..3 {
            TeamMember::run_host(&policy, rank, &mut arena, |m| {
                let mut views = vec![];
                for _ in 0..4 {
                    let v = m.team_scratch::<Wide, 1>(0, 1).unwrap();
                    assert_eq!(v.as_ptr() as usize % 128, 0);
                    views.push(v);
                }
                assert!(m.team_scratch::<u8, 1>(0, 1).is_err());
                let small = m.thread_scratch::<u8, 1>(0, 8).unwrap();
                let wide = m.thread_scratch::<Wide, 1>(0, 1);
                assert!(wide.is_err(), "64 (8 rounded) + 64 padding + 128 > 200");
                drop((small, views));
                assert_eq!(
                    m.team_scratch::<u8, 1>(2, 1).unwrap_err(),
                    ScratchError::Level {
                        level: 2,
                        scope: "team"
                    }
                );
            });
        }
    }
}
