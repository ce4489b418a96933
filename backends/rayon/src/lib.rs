//! # granule-rayon
//!
//! The [`Rayon`] execution space: kernels run on a rayon thread pool that
//! the space owns. It implements every policy and pattern of
//! granule-core, one file per policy, as the Serial and Cuda spaces do:
//!
//! - `space.rs`: the space, its pool, and how a dispatch enters it;
//! - `range.rs`: `parallel_for` and `parallel_reduce` through the shared
//!   host algorithms of `granule_core::exec::host`, with rayon's `join`
//!   as the fork, and `parallel_scan`, a single pass of cache-sized blocks
//!   chained by decoupled look-back (see `README.md` in this folder);
//! - `mdrange.rs`: `parallel_for` and `parallel_reduce` over tiles;
//! - `team.rs`: teams (a team runs on one worker) and their limits.
//!
//! ```
//! use granule_core::prelude::*;
//! use granule_rayon::Rayon;
//! let space = Rayon::new(2).unwrap();
//! let n = 100_000;
//! let x = View1::<f64>::from_fn("x", n, |i| i as f64).unwrap();
//! let mut y = View1::<f64>::zeros("y", n).unwrap();
//! parallel_for("axpy", RangePolicy::new(&space, 0..n), &mut y, |i, yi: &mut f64| *yi = 2.0 * x[i] + *yi);
//! let s: f64 = parallel_reduce("sum", RangePolicy::new(&space, 0..n), Sum, |i, acc: &mut f64| *acc += y[i]);
//! assert_eq!(s, (n * (n - 1)) as f64);
//! ```

mod mdrange;
mod range;
mod space;
mod team;

pub use space::{Rayon, RayonError};

// Rayon runs the host form of every `#[kernel]` (see granule_core::portable).
granule_core::impl_portable_space!(Rayon, granule_views::HostSpace, host);
