//! # granule-views
//!
//! Views are granule's arrays: rank 1 to 8, runtime extents, a label, a
//! layout and a memory space, in the manner of Kokkos::View, but with Rust
//! ownership instead of reference counting. A [`View`] owns its memory;
//! subviews and wrapped slices ([`ViewRef`], [`ViewMut`]) borrow it, so the
//! compiler proves that nothing writes an element while another thread
//! reads it.
//!
//! ```
//! use granule_views::{deep_copy, LayoutLeft, View2, ALL};
//!
//! let a = View2::<f64>::from_fn("a", [3, 4], |[i, j]| (i * 4 + j) as f64)?;
//! let mut b = View2::<f64, LayoutLeft>::zeros("b", [3, 4])?;
//! deep_copy(&mut b, &a)?;               // a transposition in memory
//! assert_eq!(b[[2, 1]], 9.0);
//! assert_eq!(b.subview((ALL, 1))?.to_vec(), vec![1.0, 5.0, 9.0]);
//! # Ok::<(), granule_views::ViewError>(())
//! ```

pub mod atomic;
pub mod chunk;
mod copy;
pub mod error;
pub mod layout;
mod mirror;
mod pod;
pub mod space;
pub mod storage;
pub mod view;

pub use atomic::{Atomic, AtomicView};
pub use copy::deep_copy;
pub use error::{Result, ViewError};
pub use layout::{Layout, LayoutLeft, LayoutRight, LayoutStride, Mapping};
pub use mirror::{create_mirror, create_mirror_view, create_mirror_view_and_copy, MirrorView};
pub use pod::Pod;
pub use space::{HostAccessible, HostSpace, MemorySpace, SpaceCopy};
pub use view::{
    All, View, View1, View2, View3, View4, View5, View6, View7, View8, ViewBase, ViewMut, ViewRef,
    ALL,
};
