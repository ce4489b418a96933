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
//!
//! # Trust boundary
//!
//! No safe call into this crate can write out of bounds, alias a `&mut` or
//! race, whatever its arguments. The safe functions check; a few `unsafe`
//! items trust, and their `# Safety` sections are the contracts.
//!
//! Safe, and checking:
//! - [`Mapping::compact`] and [`Mapping::with_strides`] (under every View
//!   constructor): the element count, every stride and the span fit in
//!   `usize`, and strides do not overlap. Every later offset computation
//!   (indexing, subviews, copies, atomics, chunk addresses) is bounded by
//!   that span, which is why those hot paths use plain arithmetic.
//! - Allocation sizes: element count times element size must fit in
//!   `isize::MAX` bytes ([`ViewError::SizeOverflow`]), and the element's
//!   alignment the space's ([`ViewError::Overaligned`]).
//! - Indexing (`v[[i, j]]`, [`AtomicView`]) checks every index against the
//!   extents; subviews check every argument against its extent, twice (the
//!   argument types are sealed, and `carve` re-checks what they resolve to).
//! - Chunks: `chunk`, `chunk_mut`, `chunked`, `Chunked::share`/`part` run
//!   the map's `check` against the scope's dims before any part exists, and
//!   every access re-checks the map's global index against the View.
//! - [`ThreadIds`](chunk::ThreadIds) and [`ScopedIds`](chunk::ScopedIds)
//!   constructors check ids against dims and thread counts for overflow.
//!   The ids themselves are trusted on the host only (see `ScopedIds`).
//!
//! `unsafe`, and trusting:
//! - [`ChunkMap`](chunk::ChunkMap) (unsafe trait): its implementor promises
//!   an injective map, with checked arithmetic; every part's `&mut` rests on it.
//! - [`SharedChunks::part`](chunk::SharedChunks::part) (unsafe fn): the
//!   driver promises that concurrent parts have distinct ids.
//! - [`Layout`] (unsafe trait): `offset` equals the plain stride sum.
//! - [`Storage`](storage::Storage), [`StorageMut`](storage::StorageMut),
//!   [`MemorySpace`], [`HostAccessible`], [`SpaceCopy`] (unsafe traits):
//!   memory validity, uniqueness, host reachability, exact copies.
//! - [`Atomic`] (unsafe trait): the atom type matches the element's layout.

pub mod atomic;
pub mod chunk;
mod copy;
pub mod element;
pub mod error;
mod fill;
pub mod layout;
mod mirror;
#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod space;
pub mod storage;
pub mod view;

pub use atomic::{Atomic, AtomicView};
pub use bytemuck;
pub use copy::deep_copy;
pub use element::{AnyBitPattern, Element, NoUninit, Zeroable};
pub use error::{Result, ViewError};
pub use fill::fill;
pub use layout::{Layout, LayoutLeft, LayoutRight, LayoutStride, Mapping};
pub use mirror::{create_mirror, create_mirror_view, create_mirror_view_and_copy, MirrorView};
pub use space::{
    CopyToHost, HostAccessible, HostSpace, MemorySpace, PortableMemory, SpaceCopy, SpaceFill,
};
pub use view::{
    All, View, View1, View2, View3, View4, View5, View6, View7, View8, ViewBase, ViewMut, ViewRef,
    ALL,
};
