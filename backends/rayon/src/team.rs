//! Teams on Rayon: a team runs on one worker (as in Kokkos::Serial, the
//! team size is 1); teams are spread over the workers by work stealing,
//! and each worker lends its reusable scratch arena to the teams it runs.
//! The team patterns themselves are in `parallel_for.rs` and
//! `parallel_reduce.rs`.

/// The largest (and recommended) team size on Rayon.
pub(crate) const TEAM_SIZE_MAX: usize = 1;
