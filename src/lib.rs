//! # granule
//!
//! Kokkos-style performance portability for Rust. This umbrella crate
//! re-exports the framework's crates; `use granule::prelude::*` brings in
//! what kernels need.
//!
//! ```
//! use granule::prelude::*;
//! let x = View1::<f64>::from_fn("x", 8, |i| i as f64)?;
//! let mut y = View1::<f64>::zeros("y", 8)?;
//! deep_copy(&mut y, &x)?;
//! assert_eq!(y[7], 7.0);
//! # Ok::<(), ViewError>(())
//! ```

pub use granule_views as views;

/// The names most programs need.
pub mod prelude {
    pub use granule_views::{
        create_mirror, create_mirror_view, create_mirror_view_and_copy, deep_copy, Atomic,
        AtomicView, HostSpace, Layout, LayoutLeft, LayoutRight, LayoutStride, MemorySpace, Pod,
        View, View1, View2, View3, View4, View5, View6, View7, View8, ViewError, ViewMut, ViewRef,
        ALL,
    };
}

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
