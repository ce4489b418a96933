//! `TeamPolicy`: a league of teams, each with threads, vector lanes and
//! scratch memory.

use super::Policy;
use crate::error::PolicyError;
use crate::space::ExecutionSpace;
use crate::team::{LeagueIndex, TeamMember};

/// Let the execution space choose (team size or vector length).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Auto;

/// Let the execution space choose: `TeamPolicy::new(&space, league, AUTO)`.
pub const AUTO: Auto = Auto;

/// A team size or vector length: a number, or [`AUTO`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeamSize {
    /// The space's recommendation.
    Auto,
    /// Exactly this many.
    Fixed(usize),
}

impl From<usize> for TeamSize {
    fn from(n: usize) -> Self {
        TeamSize::Fixed(n)
    }
}
impl From<Auto> for TeamSize {
    fn from(_: Auto) -> Self {
        TeamSize::Auto
    }
}

/// Per team: `PerTeam(bytes)` in a scratch request, `PerTeam(member)` in
/// [`single`](crate::team::single).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerTeam<T = usize>(pub T);

/// Per thread: `PerThread(bytes)` in a scratch request, `PerThread(member)`
/// in [`single`](crate::team::single).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerThread<T = usize>(pub T);

/// A scratch request: [`PerTeam`], [`PerThread`], or both as a tuple.
pub trait ScratchRequest: Copy {
    /// `(bytes per team, bytes per thread)`; `None` leaves a size unchanged.
    fn sizes(self) -> (Option<usize>, Option<usize>);
}
impl ScratchRequest for PerTeam {
    fn sizes(self) -> (Option<usize>, Option<usize>) {
        (Some(self.0), None)
    }
}
impl ScratchRequest for PerThread {
    fn sizes(self) -> (Option<usize>, Option<usize>) {
        (None, Some(self.0))
    }
}
impl ScratchRequest for (PerTeam, PerThread) {
    fn sizes(self) -> (Option<usize>, Option<usize>) {
        (Some(self.0 .0), Some(self.1 .0))
    }
}

/// A league of `league_size` teams of `team_size` threads with
/// `vector_length` lanes each, plus scratch memory per team and per thread
/// at levels 0 and 1.
///
/// Host spaces run a team on one thread (`team_size_max() == 1`, as in
/// Kokkos::Serial); their vector lanes are iterations of tight loops.
///
/// ```
/// use granule_core::{PerTeam, PerThread, PolicyError, Serial, TeamPolicy, AUTO};
/// let p = TeamPolicy::new(&Serial, 100, AUTO)
///     .with_scratch_size(0, (PerTeam(1024), PerThread(64)))?
///     .with_scratch_size(1, PerTeam(1 << 20))?;
/// assert_eq!((p.league_size(), p.team_size(), p.vector_length()), (100, 1, 1));
/// assert_eq!(p.scratch_size(0), 1024 + 64);
/// assert_eq!(p.team_size_max(), 1);
/// assert!(matches!(TeamPolicy::try_new(&Serial, 4, 2), Err(PolicyError::TeamSizeTooLarge { requested: 2, max: 1, .. })));
/// assert!(matches!(TeamPolicy::try_new(&Serial, 4, 0), Err(PolicyError::ZeroTeamSize { .. })));
/// # Ok::<(), PolicyError>(())
/// ```
#[derive(Debug)]
pub struct TeamPolicy<'s, S: ExecutionSpace> {
    space: &'s S,
    league: usize,
    team: usize,
    /// The team size was `AUTO`: a vector length set later divides it.
    auto_team: bool,
    vector: usize,
    team_scratch: [usize; 2],
    thread_scratch: [usize; 2],
}

impl<S: ExecutionSpace> Clone for TeamPolicy<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: ExecutionSpace> Copy for TeamPolicy<'_, S> {}

impl<'s, S: ExecutionSpace> TeamPolicy<'s, S> {
    /// `league_size` teams of `team_size` threads (a number or [`AUTO`]).
    ///
    /// # Panics
    /// On a zero or too large team size, with the values; use
    /// [`TeamPolicy::try_new`] for a typed error.
    #[track_caller]
    pub fn new(space: &'s S, league_size: usize, team_size: impl Into<TeamSize>) -> Self {
        Self::try_new(space, league_size, team_size).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Like [`TeamPolicy::new`], with a typed error:
    /// [`PolicyError::ZeroTeamSize`] or [`PolicyError::TeamSizeTooLarge`].
    pub fn try_new(
        space: &'s S,
        league_size: usize,
        team_size: impl Into<TeamSize>,
    ) -> Result<Self, PolicyError> {
        let requested = team_size.into();
        let team = match requested {
            TeamSize::Auto => space.team_size_recommended(),
            TeamSize::Fixed(0) => return Err(PolicyError::ZeroTeamSize { what: "team size" }),
            TeamSize::Fixed(n) if n > space.team_size_max() => {
                return Err(PolicyError::TeamSizeTooLarge {
                    requested: n,
                    max: space.team_size_max(),
                    space: S::NAME,
                })
            }
            TeamSize::Fixed(n) => n,
        };
        Ok(TeamPolicy {
            space,
            league: league_size,
            team,
            auto_team: requested == TeamSize::Auto,
            vector: 1,
            team_scratch: [0; 2],
            thread_scratch: [0; 2],
        })
    }

    /// Sets the vector length (a power of two up to the space's maximum,
    /// or [`AUTO`]).
    ///
    /// A team size of [`AUTO`] is then the recommended size divided by the
    /// vector length (at least 1), so that a team's threads times its
    /// lanes stay within what the space recommends for a team, as
    /// Kokkos's `TeamPolicy(league, AUTO, vector_length)` picks; on Cuda
    /// `AUTO` with 32 lanes is 8 threads, not 256 threads of 32 lanes
    /// (over a block's limit). A number given as the team size is kept.
    ///
    /// ```
    /// use granule_core::{ExecutionSpace, Serial, TeamPolicy, AUTO};
    /// let p = TeamPolicy::new(&Serial, 10, AUTO).with_vector_length(8)?;
    /// assert_eq!((p.team_size(), p.vector_length()), (1, 8));
    /// assert_eq!(p.team_size(), (Serial.team_size_recommended() / 8).max(1));
    /// # Ok::<(), granule_core::PolicyError>(())
    /// ```
    pub fn with_vector_length(
        mut self,
        vector_length: impl Into<TeamSize>,
    ) -> Result<Self, PolicyError> {
        let max = self.space.vector_length_max();
        self.vector = match vector_length.into() {
            TeamSize::Auto => 1,
            TeamSize::Fixed(0) => {
                return Err(PolicyError::ZeroTeamSize {
                    what: "vector length",
                })
            }
            TeamSize::Fixed(v) if v > max || !v.is_power_of_two() => {
                return Err(PolicyError::VectorLength { requested: v, max })
            }
            TeamSize::Fixed(v) => v,
        };
        if self.auto_team {
            self.team = (self.space.team_size_recommended() / self.vector).max(1);
        }
        Ok(self)
    }

    /// Reserves scratch at `level` (0 or 1): [`PerTeam`] bytes for each
    /// team, [`PerThread`] bytes for each thread, or both.
    ///
    /// Fails with [`PolicyError::ScratchLevel`] or
    /// [`PolicyError::ScratchTooLarge`] when the team's total exceeds
    /// [`TeamPolicy::scratch_size_max`].
    pub fn with_scratch_size(
        mut self,
        level: usize,
        request: impl ScratchRequest,
    ) -> Result<Self, PolicyError> {
        if level > 1 {
            return Err(PolicyError::ScratchLevel { level });
        }
        let (team, thread) = request.sizes();
        if let Some(t) = team {
            self.team_scratch[level] = t;
        }
        if let Some(t) = thread {
            self.thread_scratch[level] = t;
        }
        let overflow = PolicyError::ScratchOverflow {
            level,
            per_team: self.team_scratch[level],
            per_thread: self.thread_scratch[level],
            team_size: self.team,
        };
        let requested = self.level_bytes(level).ok_or(overflow.clone())?;
        let max = self.scratch_size_max(level);
        if requested > max {
            return Err(PolicyError::ScratchTooLarge {
                level,
                requested,
                max,
            });
        }
        // A space may allow any size per level (usize::MAX); the arena that
        // holds both levels must still be addressable, or its size would wrap.
        self.arena_bytes()
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or(overflow)?;
        Ok(self)
    }

    /// Kokkos's name for [`with_scratch_size`](Self::with_scratch_size),
    /// which it calls: `policy.set_scratch_size(0, PerTeam(bytes))`.
    ///
    /// ```
    /// use granule_core::{PerTeam, PolicyError, Serial, TeamPolicy};
    /// let p = TeamPolicy::new(&Serial, 4, 1).set_scratch_size(0, PerTeam(256))?;
    /// assert_eq!(p.scratch_size(0), 256);
    /// # Ok::<(), PolicyError>(())
    /// ```
    pub fn set_scratch_size(
        self,
        level: usize,
        request: impl ScratchRequest,
    ) -> Result<Self, PolicyError> {
        self.with_scratch_size(level, request)
    }

    /// Bytes a team reserves at `level`: `team + thread * team_size`, or
    /// `None` when that does not fit.
    fn level_bytes(&self, level: usize) -> Option<usize> {
        self.thread_scratch[level]
            .checked_mul(self.team)?
            .checked_add(self.team_scratch[level])
    }

    /// Bytes of one team's scratch arena: for each level, the team region
    /// and one region per thread, each rounded up to 64 bytes so every
    /// region starts on a cache line. `None` when that does not fit.
    ///
    /// [`with_scratch_size`](Self::with_scratch_size) keeps this at most
    /// `isize::MAX`, so backends may compute the layout with plain
    /// arithmetic.
    pub fn arena_bytes(&self) -> Option<usize> {
        let mut total = 0usize;
        for level in 0..2 {
            let team = self.team_scratch[level].checked_next_multiple_of(64)?;
            let thread = self.thread_scratch[level]
                .checked_next_multiple_of(64)?
                .checked_mul(self.team)?;
            total = total.checked_add(team)?.checked_add(thread)?;
        }
        Some(total)
    }

    /// Number of teams.
    pub fn league_size(&self) -> usize {
        self.league
    }
    /// Threads per team.
    pub fn team_size(&self) -> usize {
        self.team
    }
    /// Vector lanes per thread.
    pub fn vector_length(&self) -> usize {
        self.vector
    }
    /// Scratch bytes each team reserves at `level`: the team's share plus
    /// every thread's (levels other than 0 and 1 have none).
    pub fn scratch_size(&self, level: usize) -> usize {
        if level > 1 {
            return 0;
        }
        // The only way to set sizes is `with_scratch_size`, which refuses
        // sums that overflow; the team size never changes after it.
        self.level_bytes(level)
            .expect("TeamPolicy: scratch sizes were checked to fit in with_scratch_size")
    }
    /// Team scratch bytes at `level`.
    pub fn team_scratch_size(&self, level: usize) -> usize {
        self.team_scratch.get(level).copied().unwrap_or(0)
    }
    /// Per-thread scratch bytes at `level`.
    pub fn thread_scratch_size(&self, level: usize) -> usize {
        self.thread_scratch.get(level).copied().unwrap_or(0)
    }
    /// The largest team size the space supports.
    pub fn team_size_max(&self) -> usize {
        self.space.team_size_max()
    }
    /// The team size [`AUTO`] picks.
    pub fn team_size_recommended(&self) -> usize {
        self.space.team_size_recommended()
    }
    /// The most scratch a team may reserve at `level`.
    pub fn scratch_size_max(&self, level: usize) -> usize {
        self.space.scratch_size_max(level)
    }
    /// The execution space.
    pub fn space(&self) -> &'s S {
        self.space
    }
}

impl<S: ExecutionSpace> Policy for TeamPolicy<'_, S> {
    type Space = S;
    type WorkIndex<'a> = &'a TeamMember;
    type WriteIndex = LeagueIndex;
    const KIND: &'static str = "Team";
    fn space(&self) -> &S {
        self.space
    }
    fn write_bound(&self) -> LeagueIndex {
        LeagueIndex {
            rank: self.league,
            size: self.league,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Serial;

    #[test]
    fn limits_are_typed_errors() {
        let e = TeamPolicy::try_new(&Serial, 8, 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "TeamPolicy: team size 3 is above the maximum 1 of the Serial execution space"
        );
        let e = TeamPolicy::new(&Serial, 8, 1)
            .with_scratch_size(0, PerTeam((1 << 20) + 1))
            .unwrap_err();
        assert_eq!(
            e,
            PolicyError::ScratchTooLarge {
                level: 0,
                requested: (1 << 20) + 1,
                max: 1 << 20
            }
        );
        assert_eq!(
            TeamPolicy::new(&Serial, 8, 1)
                .with_scratch_size(2, PerTeam(1))
                .unwrap_err(),
            PolicyError::ScratchLevel { level: 2 }
        );
        assert_eq!(
            TeamPolicy::new(&Serial, 8, 1)
                .with_vector_length(3)
                .unwrap_err(),
            PolicyError::VectorLength {
                requested: 3,
                max: 1024
            }
        );
        assert!(TeamPolicy::new(&Serial, 8, 1)
            .with_vector_length(0)
            .is_err());
        assert_eq!(
            TeamPolicy::new(&Serial, 8, 1)
                .with_vector_length(AUTO)
                .unwrap()
                .vector_length(),
            1
        );
    }

    /// A space that allows any scratch size and teams of 8 threads.
    #[derive(Clone, Debug)]
    struct Unlimited;

    impl ExecutionSpace for Unlimited {
        type MemorySpace = granule_views::HostSpace;
        const NAME: &'static str = "Unlimited";
        fn memory_space(&self) -> granule_views::HostSpace {
            granule_views::HostSpace
        }
        fn concurrency(&self) -> usize {
            1
        }
        fn fence(&self) {}
        fn team_size_max(&self) -> usize {
            8
        }
        fn team_size_recommended(&self) -> usize {
            8
        }
        fn vector_length_max(&self) -> usize {
            1
        }
        fn scratch_size_max(&self, _level: usize) -> usize {
            usize::MAX
        }
    }

    /// With scratch_size_max = usize::MAX, sums that wrapped (or saturated
    /// past the limit check) would make a 0-byte arena and hand out regions
    /// of 2^63 bytes. Every overflowing sum is a typed error naming the
    /// level and the sizes.
    #[test]
    fn scratch_sums_that_overflow_are_typed_errors() {
        let p = TeamPolicy::new(&Unlimited, 4, 8);
        let per_thread = 1usize << 62;
        let e = p.with_scratch_size(0, PerThread(per_thread)).unwrap_err();
        assert_eq!(
            e,
            PolicyError::ScratchOverflow {
                level: 0,
                per_team: 0,
                per_thread,
                team_size: 8
            }
        );
        let msg = e.to_string();
        assert!(
            msg.contains("level-0") && msg.contains(&per_thread.to_string()) && msg.contains("x 8"),
            "{msg}"
        );
        // One level alone fits usize but not its 64-byte rounding.
        let e = p.with_scratch_size(1, PerTeam(usize::MAX)).unwrap_err();
        assert!(
            matches!(e, PolicyError::ScratchOverflow { level: 1, .. }),
            "{e}"
        );
        // Each level fits; both together do not fit in the address space.
        let half = 1usize << 62;
        let p1 = p.with_scratch_size(0, PerTeam(half)).unwrap();
        assert_eq!(p1.arena_bytes(), Some(half));
        let e = p1.with_scratch_size(1, PerTeam(half)).unwrap_err();
        assert!(
            matches!(e, PolicyError::ScratchOverflow { level: 1, .. }),
            "{e}"
        );
        // Team plus per-thread at one level.
        let e = p
            .with_scratch_size(0, (PerTeam(usize::MAX - 8), PerThread(2)))
            .unwrap_err();
        assert!(
            matches!(e, PolicyError::ScratchOverflow { level: 0, .. }),
            "{e}"
        );
    }

    #[test]
    fn arena_bytes_round_each_region_to_a_line() {
        let p = TeamPolicy::new(&Unlimited, 4, 8)
            .with_scratch_size(0, (PerTeam(1), PerThread(65)))
            .unwrap()
            .with_scratch_size(1, PerThread(1))
            .unwrap();
        assert_eq!(p.arena_bytes(), Some(64 + 8 * 128 + 8 * 64));
        assert_eq!(p.scratch_size(0), 1 + 8 * 65);
    }

    #[test]
    #[should_panic(expected = "team size of 0")]
    fn zero_team_size_panics_in_new() {
        let _ = TeamPolicy::new(&Serial, 8, 0);
    }
}
