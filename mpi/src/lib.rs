//! # granule-mpi
//!
//! granule on MPI: the ranks of a job each run granule kernels on their
//! own execution space, and exchange Views through the system's MPI
//! (through [rsmpi](https://docs.rs/mpi), re-exported as [`mpi`]; nothing
//! of MPI is re-implemented here).
//!
//! - [`run`]: MPI_Init / MPI_Finalize around a rank's body, and
//!   MPI_Abort of the whole job when one rank panics or fails.
//! - [`send`] / [`receive_into`] (blocking), [`Outgoing`] / [`Incoming`]
//!   for rsmpi's non-blocking calls: a View or a subview travels in
//!   row-major index order; contiguous host Views go from their own
//!   memory, strided ones are packed by a kernel on the View's execution
//!   space (the first argument, as in the patterns) into a contiguous
//!   buffer of its memory ([`pack`]).
//! - [`all_reduce`], [`all_reduce_view`]: MPI_Allreduce with granule's
//!   reducers (Sum, Prod, Min, Max, MinMax, MinLoc, MaxLoc, MinMaxLoc,
//!   LAnd, LOr, BAnd, BOr, custom, tuples of them), joined in rank
//!   order.
//! - [`Halo`]: a block decomposition of a 3-D grid over a Cartesian
//!   communicator, and the exchange of the six faces of a rank-3 View
//!   with non-blocking messages while the interior is computed.
//!
//! **Device Views** (CudaSpace) are staged through host memory: a strided
//! one is gathered by a kernel on the device into a contiguous device
//! buffer, which is downloaded in one copy before a send; a received
//! message is uploaded in one copy and scattered by a kernel. CUDA-aware
//! MPI is not assumed.
//!
//! Tests run under `mpirun`: `cargo test -p granule-mpi` starts each test
//! program with `mpirun -n 1` and `mpirun -n 2` itself.
#![doc = include_str!("cost_model.md")]

pub mod cost_model;
mod error;
mod halo;
mod p2p;
pub mod pack;
mod reduce;
mod run;
mod wire;

pub use error::{CommError, Result};
pub use halo::{Decomposition, Halo, HaloTimes, POLL_INTERVAL};
pub use p2p::{receive_into, send, Incoming, Outgoing};
pub use pack::{Pack, Packed};
pub use reduce::{all_reduce, all_reduce_slice, all_reduce_view};
pub use run::{run, ERROR_EXIT_CODE, PANIC_EXIT_CODE};
pub use wire::{Pair, Wire};

/// rsmpi, the MPI binding this crate is built on.
pub use mpi;
