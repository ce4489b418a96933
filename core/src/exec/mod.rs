//! Building blocks for backend implementors: the fixed blocking and
//! combine trees shared by every host space.
//!
//! A host backend supplies a [`Fork`] (run two closures, possibly in
//! parallel); everything else — block sizes, the combine tree, the leaf
//! loops with several accumulators — is here, so Serial and Rayon give
//! bitwise-identical reductions for the same range.

use crate::reducer::Reducer;

pub mod lookback;

/// Default block of a range `parallel_for` or `parallel_reduce`, in indices.
/// It fixes the reduction tree, so it must not depend on the thread count.
pub const RANGE_BLOCK: usize = 16 * 1024;

/// Blocks a range is cut into, at least, once it is long enough: a range
/// of few heavy items (yᵀAx's rows) then still gives every thread work.
/// A constant, not the thread count, so reductions keep their bits.
pub const MIN_RANGE_BLOCKS: usize = 64;

/// The smallest automatic block, in indices: below it, a block's cost is
/// mostly the fork and the join.
pub const MIN_RANGE_BLOCK: usize = 16;

/// The automatic block of a range `parallel_for` or `parallel_reduce` of
/// `len` indices: [`RANGE_BLOCK`] for long ranges, and shorter ones cut
/// into [`MIN_RANGE_BLOCKS`] blocks of at least [`MIN_RANGE_BLOCK`]. A
/// function of the length only, so the reduction tree (and its bits) is
/// the same on every space and thread count.
///
/// ```
/// use granule_core::exec::{block_count, range_block, RANGE_BLOCK};
/// assert_eq!(range_block(1 << 30), RANGE_BLOCK);
/// assert_eq!(block_count(8192, range_block(8192)), 64);
/// assert_eq!(range_block(100), 16);
/// ```
pub fn range_block(len: usize) -> usize {
    len.div_ceil(MIN_RANGE_BLOCKS)
        .clamp(MIN_RANGE_BLOCK, RANGE_BLOCK)
}

/// Default block of a range `parallel_scan`, in indices: small enough that
/// a block's input stays in the L2 cache between the two passes.
pub const SCAN_BLOCK_ELEMS: usize = 16 * 1024;

/// Runs two closures, possibly in parallel, and returns both results.
pub trait Fork: Copy + Send + Sync {
    /// Runs `a` and `b` (in parallel if the backend can) and waits for both.
    fn fork<A: Send, B: Send>(
        self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B);

    /// The threads its forks may reach. A statically scheduled range
    /// takes one share per thread. A reduction forks only subtrees of more
    /// than a [`PIECES_PER_THREAD`]-th share of its blocks per thread and
    /// runs smaller ones as one loop of the same tree: enough pieces to
    /// balance the threads, without a fork per block.
    fn threads(&self) -> usize {
        1
    }
}

/// How many pieces per thread a reduction's tree of blocks is forked
/// into (see [`Fork::threads`]).
pub const PIECES_PER_THREAD: usize = 4;

/// A [`Fork`] that runs `a`, then `b`, on the calling thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl Fork for Sequential {
    #[inline(always)]
    fn fork<A: Send, B: Send>(
        self,
        a: impl FnOnce() -> A + Send,
        b: impl FnOnce() -> B + Send,
    ) -> (A, B) {
        (a(), b())
    }
}

/// The number of blocks of `block` indices covering `len` indices.
#[inline]
pub fn block_count(len: usize, block: usize) -> usize {
    len.div_ceil(block.max(1))
}

/// The indices `lo..hi` of block `k` when `begin..end` is cut into blocks
/// of `block` indices (`k` below [`block_count`]).
///
/// Written so that nothing wraps even when `block` is near `usize::MAX`:
/// `k * block` is below the range's length for a valid `k`, and the block's
/// end is taken as `lo + min(block, end - lo)`, never `lo + block`.
///
/// ```
/// use granule_core::exec::block_bounds;
/// assert_eq!(block_bounds(10, 25, 4, 3), (22, 25));
/// assert_eq!(block_bounds(1, 5, usize::MAX, 0), (1, 5));
/// ```
///
/// # Panics
/// If block `k` starts at or past `end` (an invalid `k`) with a non-empty
/// range.
#[inline]
#[track_caller]
pub fn block_bounds(begin: usize, end: usize, block: usize, k: usize) -> (usize, usize) {
    let block = block.max(1);
    let lo = k
        .checked_mul(block)
        .and_then(|o| begin.checked_add(o))
        .filter(|&lo| lo < end)
        .unwrap_or_else(|| {
            panic!("block {k} of {block} indices lies outside the range {begin}..{end}")
        });
    (lo, lo + block.min(end - lo))
}

/// Calls `leaf(b)` for every block `b` in `0..n`, split in halves through
/// `fork` (work stealing when the fork is parallel).
pub fn for_blocks<Fk: Fork, L: Fn(usize) + Sync>(fork: Fk, n: usize, leaf: &L) {
    fn rec<Fk: Fork, L: Fn(usize) + Sync>(fork: Fk, lo: usize, hi: usize, leaf: &L) {
        if hi - lo == 1 {
            return leaf(lo);
        }
        let mid = lo + (hi - lo) / 2;
        fork.fork(|| rec(fork, lo, mid, leaf), || rec(fork, mid, hi, leaf));
    }
    if n > 0 {
        rec(fork, 0, n, leaf)
    }
}

/// Reduces blocks `0..n` with `leaf(b)` giving each block's value, joined
/// in a fixed binary tree (left half ⊕ right half), so the result depends
/// only on `n`, never on which thread ran what. Returns `init()` when `n == 0`.
pub fn reduce_blocks<Fk, T, R, L>(fork: Fk, n: usize, reducer: &R, leaf: &L) -> T
where
    Fk: Fork,
    T: Send,
    R: Reducer<T>,
    L: Fn(usize) -> T + Sync,
{
    /// The subtree of blocks `lo..hi`, on the calling thread.
    fn seq<T, R: Reducer<T>, L: Fn(usize) -> T>(lo: usize, hi: usize, reducer: &R, leaf: &L) -> T {
        if hi - lo == 1 {
            return leaf(lo);
        }
        let mid = lo + (hi - lo) / 2;
        let mut a = seq(lo, mid, reducer, leaf);
        reducer.join(&mut a, &seq(mid, hi, reducer, leaf));
        a
    }
    /// The same subtree, forked while it is more than a piece of `n`.
    fn rec<Fk: Fork, T: Send, R: Reducer<T>, L: Fn(usize) -> T + Sync>(
        fork: Fk,
        (lo, hi, n): (usize, usize, usize),
        reducer: &R,
        leaf: &L,
    ) -> T {
        if (hi - lo) * PIECES_PER_THREAD * fork.threads() <= n || hi - lo == 1 {
            return seq(lo, hi, reducer, leaf);
        }
        let mid = lo + (hi - lo) / 2;
        let (mut a, b) = fork.fork(
            || rec(fork, (lo, mid, n), reducer, leaf),
            || rec(fork, (mid, hi, n), reducer, leaf),
        );
        reducer.join(&mut a, &b);
        a
    }
    if n == 0 {
        return reducer.init();
    }
    rec(fork, (0, n, n), reducer, leaf)
}

/// Reduces indices `lo..hi` with four independent accumulators (so the
/// loop is bound by memory, not by the latency of `join`), combined as
/// `(a0 ⊕ a1) ⊕ (a2 ⊕ a3)`.
#[inline(always)]
pub fn reduce_leaf<T, R: Reducer<T>>(
    lo: usize,
    hi: usize,
    reducer: &R,
    mut f: impl FnMut(usize, &mut T),
) -> T {
    let (mut a0, mut a1, mut a2, mut a3) = (
        reducer.init(),
        reducer.init(),
        reducer.init(),
        reducer.init(),
    );
    let mut i = lo;
    while i + 4 <= hi {
        f(i, &mut a0);
        f(i + 1, &mut a1);
        f(i + 2, &mut a2);
        f(i + 3, &mut a3);
        i += 4;
    }
    while i < hi {
        f(i, &mut a0);
        i += 1;
    }
    reducer.join(&mut a0, &a1);
    reducer.join(&mut a2, &a3);
    reducer.join(&mut a0, &a2);
    a0
}

/// Splits `begin..end` into `parts` contiguous, nearly equal ranges and
/// returns range `k`.
#[inline]
pub fn static_part(begin: usize, end: usize, parts: usize, k: usize) -> (usize, usize) {
    let len = end - begin;
    let (q, r) = (len / parts, len % parts);
    let lo = begin + k * q + k.min(r);
    (lo, lo + q + usize::from(k < r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reducer::Sum;

    /// A sequential fork that claims `threads` threads and counts its forks.
    #[derive(Clone, Copy)]
    struct Counting<'a>(usize, &'a std::sync::atomic::AtomicUsize);

    impl Fork for Counting<'_> {
        fn fork<A: Send, B: Send>(
            self,
            a: impl FnOnce() -> A + Send,
            b: impl FnOnce() -> B + Send,
        ) -> (A, B) {
            self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            (a(), b())
        }
        fn threads(&self) -> usize {
            self.0
        }
    }

    #[test]
    fn a_reduction_forks_pieces_and_keeps_its_tree() {
        // Float terms whose sum depends on the grouping.
        let leaf = |b: usize| 1.0 / (1.0 + b as f64) * if b.is_multiple_of(3) { 1e8 } else { 1.0 };
        for n in [1, 2, 7, 64, 1000] {
            let want: f64 = reduce_blocks(Sequential, n, &Sum, &leaf);
            for threads in [1, 2, 3, 16] {
                let forks = std::sync::atomic::AtomicUsize::new(0);
                let got: f64 = reduce_blocks(Counting(threads, &forks), n, &Sum, &leaf);
                assert_eq!(got.to_bits(), want.to_bits(), "n {n}, {threads} threads");
                let forks = forks.into_inner();
                // Pieces of more than half a share each: under two shares'
                // worth of forks, and never more than a tree of leaves.
                let most = (2 * PIECES_PER_THREAD * threads).min(n) - 1;
                assert!(forks <= most, "n {n}, {threads} threads: {forks} forks");
            }
        }
    }

    #[test]
    fn the_tree_visits_every_block_once() {
        let hits: Vec<_> = (0..37)
            .map(|_| std::sync::atomic::AtomicUsize::new(0))
            .collect();
        for_blocks(Sequential, 37, &|b| {
            hits[b].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert!(hits
            .iter()
            .all(|h| h.load(std::sync::atomic::Ordering::Relaxed) == 1));
        assert_eq!(reduce_blocks(Sequential, 37, &Sum, &|b| b as u64), 666);
        assert_eq!(
            reduce_blocks::<_, u64, _, _>(Sequential, 0, &Sum, &|b| b as u64),
            0
        );
    }

    #[test]
    fn leaves_handle_tails() {
        for n in 0..11 {
            assert_eq!(
                reduce_leaf(3, 3 + n, &Sum, |i, a: &mut usize| *a += i),
                (3..3 + n).sum::<usize>()
            );
        }
    }

    #[test]
    fn block_bounds_never_wrap() {
        let all: Vec<_> = (0..block_count(7, 3))
            .map(|k| block_bounds(2, 9, 3, k))
            .collect();
        assert_eq!(all, vec![(2, 5), (5, 8), (8, 9)]);
        assert_eq!(block_count(4, usize::MAX), 1);
        assert_eq!(block_bounds(1, 5, usize::MAX, 0), (1, 5));
        assert_eq!(
            block_bounds(usize::MAX - 3, usize::MAX, usize::MAX - 1, 0).1,
            usize::MAX
        );
        let r = std::panic::catch_unwind(|| block_bounds(0, 10, 5, 2));
        assert!(r.is_err());
    }

    #[test]
    fn static_parts_tile_the_range() {
        let parts: Vec<_> = (0..3).map(|k| static_part(5, 15, 3, k)).collect();
        assert_eq!(parts, vec![(5, 9), (9, 12), (12, 15)]);
    }
}

/// Host execution of each policy, generic over the [`Fork`]. Serial runs
/// these with [`Sequential`]; Rayon with its pool's `join`.
///
/// The drivers that hand out write parts are `unsafe fn`s: they are the
/// trust boundary of the write path (see [`crate::write`]). Their common
/// contract is
///
/// > no other code uses `writes` (or anything reached through it) for the
/// > duration of the call.
///
/// Each checks, once, that `writes` [covers](crate::write::WriteParts::covers) the
/// policy's indices (panicking with the label otherwise), then hands
/// every index of the policy to exactly one work item. A panic in the
/// functor unwinds to the caller once every worker has stopped.
pub mod host {
    use super::{
        block_bounds, block_count, for_blocks, range_block, reduce_blocks, reduce_leaf,
        static_part, Fork, RANGE_BLOCK,
    };
    use crate::functor::{ForFunctor, ReduceFunctor};
    use crate::policy::{MDRangePolicy, Policy, RangePolicy, Schedule, TeamPolicy};
    use crate::reducer::Reducer;
    use crate::space::ExecutionSpace;
    use crate::team::{with_worker_arena, LeagueIndex, TeamMember};
    use crate::write::{assert_covers, WriteParts};

    /// Runs `f(i, item(i))` for `i` in `lo..hi`.
    ///
    /// # Safety
    /// `writes` covers `hi`, and no other code touches the items of
    /// `lo..hi` during the call.
    #[inline(always)]
    unsafe fn range_for_leaf<W, F>(lo: usize, hi: usize, writes: &W, f: &F)
    where
        W: WriteParts<usize>,
        F: for<'a> ForFunctor<usize, W::Item<'a>>,
    {
        // SAFETY: forwarded contract; each index of `lo..hi` is visited once.
        unsafe { writes.for_each_item(lo, hi, |i, item| f.exec(i, item)) }
    }

    /// `parallel_for` over a range: one contiguous share per thread of
    /// `fork` for a static schedule, chunks handed out by work stealing for a dynamic one.
    ///
    /// # Safety
    /// Nothing else uses `writes` during the call (see the [module](self)).
    ///
    /// # Panics
    /// If `writes` does not cover the policy's range, or if `f` panics.
    #[track_caller]
    pub unsafe fn range_for<Fk, S, W, F>(
        fork: Fk,
        label: &str,
        policy: &RangePolicy<'_, S>,
        writes: &W,
        f: &F,
    ) where
        Fk: Fork,
        S: ExecutionSpace,
        W: WriteParts<usize>,
        F: for<'a> ForFunctor<usize, W::Item<'a>>,
    {
        assert_covers(label, writes, &policy.write_bound());
        let (b, e) = (policy.begin(), policy.end());
        let parts = match policy.schedule() {
            Schedule::Static if policy.chunk() == 0 => fork.threads().clamp(1, (e - b).max(1)),
            _ => 0,
        };
        if parts == 1 {
            // One share (Serial, or a dispatch run inline): the whole range
            // as one leaf loop, with no tree around it.
            // SAFETY: `writes` covers `e` (checked above), and nothing else
            // uses `writes`.
            unsafe { range_for_leaf(b, e, writes, f) }
        } else if parts > 0 {
            for_blocks(fork, parts, &|k| {
                let (lo, hi) = static_part(b, e, parts, k);
                // SAFETY: `writes` covers `e` (checked above); the static
                // parts are disjoint, and nothing else uses `writes`.
                unsafe { range_for_leaf(lo, hi, writes, f) }
            })
        } else {
            let chunk = policy.chunk_or(range_block(e - b));
            for_blocks(fork, block_count(e - b, chunk), &|k| {
                let (lo, hi) = block_bounds(b, e, chunk, k);
                // SAFETY: as above; the blocks are disjoint.
                unsafe { range_for_leaf(lo, hi, writes, f) }
            })
        }
    }

    /// `parallel_reduce` over a range: fixed blocks of the policy's chunk
    /// size (default [`RANGE_BLOCK`]), four accumulators per block, blocks
    /// joined in a fixed tree. It hands out no write parts, so it is safe.
    pub fn range_reduce<Fk, S, T, R, F>(
        fork: Fk,
        policy: &RangePolicy<'_, S>,
        reducer: &R,
        f: &F,
    ) -> T
    where
        Fk: Fork,
        S: ExecutionSpace,
        T: Send,
        R: Reducer<T>,
        F: ReduceFunctor<usize, T>,
    {
        let (b, e) = (policy.begin(), policy.end());
        let chunk = policy.chunk_or(range_block(e - b));
        reduce_blocks(fork, block_count(e - b, chunk), reducer, &|k| {
            let (lo, hi) = block_bounds(b, e, chunk, k);
            reduce_leaf(lo, hi, reducer, |i, acc| f.exec(i, acc))
        })
    }

    /// Tiles per work unit of an MDRange dispatch: enough that a unit
    /// holds about [`RANGE_BLOCK`] indices.
    fn tiles_per_unit<S: ExecutionSpace, const R: usize>(
        policy: &MDRangePolicy<'_, S, R>,
    ) -> usize {
        let tile = policy
            .tile_extents()
            .iter()
            .try_fold(1usize, |a, &t| a.checked_mul(t));
        tile.map_or(1, |t| (RANGE_BLOCK / t.max(1)).max(1))
    }

    /// `parallel_for` over an MDRange: tiles in the outer order, grouped
    /// into work units, each tile walked in the inner order.
    ///
    /// # Safety
    /// Nothing else uses `writes` during the call (see the [module](self)).
    ///
    /// # Panics
    /// If `writes` does not cover the policy's box, or if `f` panics.
    #[track_caller]
    pub unsafe fn mdrange_for<Fk, S, W, F, const R: usize>(
        fork: Fk,
        label: &str,
        policy: &MDRangePolicy<'_, S, R>,
        writes: &W,
        f: &F,
    ) where
        Fk: Fork,
        S: ExecutionSpace,
        W: WriteParts<[usize; R]>,
        F: for<'a> ForFunctor<[usize; R], W::Item<'a>>,
    {
        assert_covers(label, writes, &policy.write_bound());
        if policy.size() == 0 {
            return;
        }
        let (nt, per) = (policy.num_tiles(), tiles_per_unit(policy));
        for_blocks(fork, block_count(nt, per), &|u| {
            let (lo, hi) = block_bounds(0, nt, per, u);
            for t in lo..hi {
                // SAFETY: tiles lie inside the policy's box, which `writes`
                // covers (checked above); tiles are disjoint, so each index
                // is visited once, and nothing else uses `writes`.
                policy.for_each_in_tile(t, |idx| f.exec(idx, unsafe { writes.item(idx) }));
            }
        })
    }

    /// `parallel_reduce` over an MDRange, units joined in a fixed tree.
    pub fn mdrange_reduce<Fk, S, T, R, F, const N: usize>(
        fork: Fk,
        policy: &MDRangePolicy<'_, S, N>,
        reducer: &R,
        f: &F,
    ) -> T
    where
        Fk: Fork,
        S: ExecutionSpace,
        T: Send,
        R: Reducer<T>,
        F: ReduceFunctor<[usize; N], T>,
    {
        if policy.size() == 0 {
            return reducer.init();
        }
        let (nt, per) = (policy.num_tiles(), tiles_per_unit(policy));
        reduce_blocks(fork, block_count(nt, per), reducer, &|u| {
            let mut acc = reducer.init();
            let (lo, hi) = block_bounds(0, nt, per, u);
            for t in lo..hi {
                policy.for_each_in_tile(t, |idx| f.exec(idx, &mut acc));
            }
            acc
        })
    }

    /// Teams per work unit of a team dispatch (fixed, for reproducible
    /// reductions).
    pub const TEAMS_PER_UNIT: usize = 4;

    /// `parallel_for` over a league: each team runs on one thread with
    /// scratch from that thread's reusable arena.
    ///
    /// # Safety
    /// Nothing else uses `writes` during the call (see the [module](self)).
    ///
    /// # Panics
    /// If `writes` does not cover the league, or if `f` panics.
    #[track_caller]
    pub unsafe fn team_for<Fk, S, W, F>(
        fork: Fk,
        label: &str,
        policy: &TeamPolicy<'_, S>,
        writes: &W,
        f: &F,
    ) where
        Fk: Fork,
        S: ExecutionSpace,
        W: WriteParts<LeagueIndex>,
        F: for<'a> ForFunctor<&'a TeamMember, W::Item<'a>>,
    {
        assert_covers(label, writes, &policy.write_bound());
        let (league, bytes) = (policy.league_size(), TeamMember::host_arena_bytes(policy));
        for_blocks(fork, block_count(league, TEAMS_PER_UNIT), &|u| {
            with_worker_arena(bytes, |arena| {
                let (lo, hi) = block_bounds(0, league, TEAMS_PER_UNIT, u);
                for l in lo..hi {
                    TeamMember::run_host(policy, l, arena, |m| {
                        // SAFETY: league rank `l` is below the league size,
                        // which `writes` covers (checked above), and runs
                        // once; nothing else uses `writes`.
                        f.exec(m, unsafe {
                            writes.item(LeagueIndex {
                                rank: l,
                                size: league,
                            })
                        })
                    });
                }
            })
        })
    }

    /// `parallel_reduce` over a league, units joined in a fixed tree.
    pub fn team_reduce<Fk, S, T, R, F>(
        fork: Fk,
        policy: &TeamPolicy<'_, S>,
        reducer: &R,
        f: &F,
    ) -> T
    where
        Fk: Fork,
        S: ExecutionSpace,
        T: Send,
        R: Reducer<T>,
        F: for<'a> ReduceFunctor<&'a TeamMember, T>,
    {
        let (league, bytes) = (policy.league_size(), TeamMember::host_arena_bytes(policy));
        reduce_blocks(fork, block_count(league, TEAMS_PER_UNIT), reducer, &|u| {
            with_worker_arena(bytes, |arena| {
                let mut acc = reducer.init();
                let (lo, hi) = block_bounds(0, league, TEAMS_PER_UNIT, u);
                for l in lo..hi {
                    TeamMember::run_host(policy, l, arena, |m| f.exec(m, &mut acc));
                }
                acc
            })
        })
    }
}
