//! The `Serial` execution space: everything runs on the calling thread.
//!
//! It runs the same blocked algorithms as the parallel host spaces with a
//! sequential [`Fork`](crate::exec::Fork), so a reduction gives the same
//! bits on Serial and on Rayon. One file per policy, as the Rayon and Cuda
//! spaces have: `range.rs`, `mdrange.rs`, `team.rs`, and the space itself
//! in `space.rs`.

mod mdrange;
mod range;
mod space;
mod team;

pub use space::Serial;
crate::impl_portable_space!(Serial, granule_views::HostSpace, host);
