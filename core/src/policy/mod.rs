//! Execution policies: the index space of a dispatch and how it is cut.
//!
//! - [`RangePolicy`]: `begin..end`, a chunk size, a static or dynamic schedule;
//! - [`MDRangePolicy`]: a box of rank 2 to 6 cut into tiles;
//! - [`TeamPolicy`]: a league of teams, each with threads, vector lanes
//!   and scratch memory.

mod mdrange;
mod range;
mod team;

pub use mdrange::{Iterate, MDRangePolicy};
pub use range::{RangePolicy, Schedule};
pub use team::{PerTeam, PerThread, ScratchRequest, TeamPolicy, TeamSize, AUTO};

use crate::space::ExecutionSpace;

/// What every policy tells a pattern.
///
/// `WorkIndex` is what the functor receives first (`usize`, `[usize; R]`,
/// or `&TeamMember`); `WriteIndex` addresses the elements a work item owns
/// in the Views the call writes.
pub trait Policy {
    /// The execution space the dispatch runs on.
    type Space: ExecutionSpace;
    /// The functor's first argument.
    type WorkIndex<'a>;
    /// The index of the elements a work item owns.
    type WriteIndex: Copy;
    /// The policy kind, for profiles: `"Range"`, `"MDRange"` or `"Team"`.
    const KIND: &'static str;
    /// The space instance.
    fn space(&self) -> &Self::Space;
    /// Exclusive upper bound of the write indices: written Views must be
    /// at least this large. Zero for a policy with no work items, which
    /// writes nothing (as in Kokkos, an empty range touches no View).
    fn write_bound(&self) -> Self::WriteIndex;
}
