//! Teams: the member handle a team kernel receives, nested ranges, scratch
//! memory, and the chunk-map plumbing for team writes.
//!
//! On the host spaces a team runs on one worker thread (`team_size() ==
//! 1`, as in Kokkos::Serial); nested ranges are plain loops, vector ranges
//! tight loops the compiler can vectorize.

mod chunk;
mod member;
mod nested;
mod scratch;

pub use chunk::{DeviceMap, MapIdentity, TeamChunk};
pub use member::{single, SingleScope, TeamMember};
pub use nested::{TeamThreadRange, TeamVectorRange, ThreadVectorRange};
pub use scratch::{with_worker_arena, ScratchArena};

/// The write index of a team dispatch: the team's league rank, and the
/// league size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeagueIndex {
    /// The team (or, as a bound, the league size).
    pub rank: usize,
    /// Number of teams.
    pub size: usize,
}
