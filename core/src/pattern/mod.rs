//! The patterns: [`parallel_for`], [`parallel_reduce`] (and
//! [`parallel_reduce_into`]), [`parallel_scan`] (and
//! [`parallel_scan_with`]).
//!
//! Each is a free function that checks the written Views, reports the
//! dispatch to the profiling hooks, and hands the work to the policy's
//! execution space through a per-pattern trait ([`ParallelForImpl`],
//! [`ParallelReduceImpl`], [`ParallelScanImpl`]) that every backend
//! implements for the policies it supports.

mod parallel_for;
mod parallel_reduce;
mod parallel_scan;

pub use parallel_for::{parallel_for, ParallelForImpl};
pub use parallel_reduce::{parallel_reduce, parallel_reduce_into, ParallelReduceImpl};
pub use parallel_scan::{parallel_scan, parallel_scan_with, ParallelScanImpl};
