//! Programs generic over the execution space: `fn run<S: PortableSpace>(space: &S)`.
//!
//! The patterns of [`crate::pattern`] dispatch through one trait per
//! pattern and policy, implemented by each space for the functors it can
//! run: a host space runs any closure, a device space only `#[kernel]`s.
//! A concrete space satisfies those bounds at each call, but a function
//! generic over `S` would need one bound per kernel, because Rust has no
//! bound "for every functor type". [`PortableSpace`] is that bound for the
//! functors every space runs, the `#[kernel]`s: its dispatch methods take
//! any functor that is both a host functor and a device description of
//! the space's memory, which every `#[kernel]` is for every memory space.
//!
//! In generic code, call the patterns of this module (same names and
//! arguments as the prelude's) and allocate in `space.memory_space()`:
//!
//! ```
//! use granule_core::prelude::*;
//! use granule_core::portable::{parallel_for, parallel_reduce};
//!
//! #[granule_macros::kernel(crate = granule_core)]
//! fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
//!     *y = a * x[i] + *y;
//! }
//!
//! #[granule_macros::kernel(reduce, crate = granule_core)]
//! fn dot(i: usize, acc: &mut f64, x: &View1<f64>, y: &View1<f64>) {
//!     *acc += x[i] * y[i];
//! }
//!
//! fn run<S: PortableSpace>(space: &S, n: usize) -> f64 {
//!     let x = View1::from_fn_on(space, "x", n, |i| i as f64).unwrap();
//!     let mut y = View1::full_on(space, "y", n, 1.0).unwrap();
//!     parallel_for("axpy", RangePolicy::new(space, 0..n), &mut y, axpy(2.0, &x));
//!     parallel_reduce("dot", RangePolicy::new(space, 0..n), Sum, dot(&x, &y))
//! }
//! assert_eq!(run(&Serial, 4), 0.0 * 1.0 + 1.0 * 3.0 + 2.0 * 5.0 + 3.0 * 7.0);
//! ```
//!
//! The memory space of a portable space is [`PortableMemory`]: Views in
//! it copy to and from the host (`deep_copy`, `create_mirror_view_and_copy`)
//! and take `fill`, with no further bound.

mod dispatch;
mod space;

pub use dispatch::{
    parallel_for, parallel_reduce, parallel_reduce_into, parallel_scan, parallel_scan_with,
    PortableFor, PortableReduce,
};
pub use granule_views::PortableMemory;
pub use space::{PortableDispatch, PortableSpace};
