//! Memory spaces: where a View's data lives.
//!
//! Allocation goes through the space, so a device space (CUDA) plugs in
//! beside [`HostSpace`] without touching View code. Whether host code may
//! dereference the memory is a type-level fact, [`HostAccessible`], so
//! indexing a device View on the host does not compile.

#[cfg(test)]
pub(crate) mod foreign;
mod host;
#[cfg(target_os = "linux")]
mod huge;
#[cfg(target_os = "linux")]
mod pool;
mod portable;

pub use host::HostSpace;
#[cfg(target_os = "linux")]
pub use pool::{release_kept, POOL_BUFFERS, POOL_BYTES};
pub use portable::PortableMemory;

/// Where no huge pages are mapped the host pool keeps nothing: there is
/// nothing to release.
///
/// ```
/// assert_eq!(granule_views::space::release_kept(), 0);
/// ```
#[cfg(not(target_os = "linux"))]
pub fn release_kept() -> usize {
    0
}

use crate::element::Element;
use crate::error::Result;
use std::fmt::Debug;
use std::ptr::NonNull;

/// The alignment of every allocation, in bytes: a cache line, and enough for
/// any SIMD load.
pub const ALLOC_ALIGN: usize = 64;

/// Host allocations of at least this many bytes live on transparent huge
/// pages on Linux (see [`HostSpace`]): a 4 MiB View wastes at most half a
/// huge page, and smaller ones stream little enough that their TLB misses
/// do not matter.
///
/// ```
/// use granule_views::{space::HUGE_PAGE_THRESHOLD, View1};
/// let big = View1::<u8>::zeros("big", HUGE_PAGE_THRESHOLD).unwrap();
/// let p = big.as_slice().unwrap().as_ptr() as usize;
/// let off = std::env::var_os("GRANULE_HUGE_PAGES").is_some_and(|v| v == "0");
/// if cfg!(target_os = "linux") && !off {
///     assert_eq!(p % (2 << 20), 0, "mapped on a huge-page boundary");
/// }
/// ```
pub const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// The environment variable that turns the huge pages of [`HostSpace`]
/// off, and with them the host pool that keeps freed large allocations
/// ([`release_kept`]): `GRANULE_HUGE_PAGES=0` (or `off`, `false`, `no`)
/// sends every host allocation to the global allocator, so that a custom
/// allocator or a heap profiler sees the large ones too; `1`, `on`, `true`, `yes` or
/// leaving it unset keeps them on. It is read once, at the first large
/// allocation; any other value makes large allocations fail with an error
/// that names it. Only Linux maps huge pages, so elsewhere it is not read.
///
/// ```
/// use granule_views::space::HUGE_PAGES_VAR;
/// assert_eq!(HUGE_PAGES_VAR, "GRANULE_HUGE_PAGES");
/// ```
pub const HUGE_PAGES_VAR: &str = "GRANULE_HUGE_PAGES";

/// A place Views can allocate memory in.
///
/// # Safety
/// `allocate` must return memory that is valid for `bytes` bytes, aligned to
/// [`ALLOC_ALIGN`], zeroed when asked, and not aliased by any other live
/// allocation; `deallocate` must accept exactly what `allocate` returned.
/// `IS_HOST_ACCESSIBLE` must be true only if host code can read and write the
/// memory through ordinary pointers.
pub unsafe trait MemorySpace: Clone + Debug + Send + Sync + 'static {
    /// The name reported in errors and profiles (`"Host"`, `"Cuda"`).
    const NAME: &'static str;
    /// Whether host pointers into this space may be dereferenced.
    const IS_HOST_ACCESSIBLE: bool;

    /// Allocates `bytes` bytes aligned to [`ALLOC_ALIGN`]. `bytes` may be 0;
    /// the space then returns a dangling, aligned pointer.
    fn allocate(&self, bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String>;

    /// Releases an allocation.
    ///
    /// # Safety
    /// `ptr` and `bytes` must come from one earlier `allocate` on this space
    /// that was not yet released.
    unsafe fn deallocate(&self, ptr: NonNull<u8>, bytes: usize);
}

/// Marks memory spaces whose data host code may index directly.
///
/// # Safety
/// Implement only for spaces with `IS_HOST_ACCESSIBLE == true`: `View`
/// indexing dereferences pointers into the space on the calling thread.
pub unsafe trait HostAccessible: MemorySpace {}

/// Copies between two memory spaces (`Self` is the destination).
///
/// # Safety
/// Implementations must copy exactly the described elements and nothing
/// else, and must not keep the pointers past the call.
pub unsafe trait SpaceCopy<Src: MemorySpace>: MemorySpace {
    /// Copies `count` contiguous elements from `src` (in `src_space`) to `dst`.
    ///
    /// # Safety
    /// `src` must be valid for reading and `dst` for writing `count`
    /// elements in their spaces, and the ranges must not overlap.
    unsafe fn copy_contiguous<T: Element>(
        &self,
        dst: *mut T,
        src_space: &Src,
        src: *const T,
        count: usize,
    ) -> Result<(), String>;

    /// Copies element-wise between two mappings with equal extents.
    ///
    /// # Safety
    /// `dst` must be valid for writing at every offset of `dst_map` and
    /// `src` for reading at every offset of `src_map`; the two must not overlap.
    unsafe fn copy_mapped<T: Element, const R: usize>(
        &self,
        dst: *mut T,
        dst_map: &crate::layout::Mapping<R>,
        src_space: &Src,
        src: *const T,
        src_map: &crate::layout::Mapping<R>,
    ) -> Result<(), String>;
}

/// A memory space whose elements can be copied into host memory: the
/// download direction of [`SpaceCopy`], stated on the source space.
///
/// `HostSpace: SpaceCopy<M>` holds for every `M: CopyToHost` (one
/// blanket impl), so code generic over a memory space `M` names the
/// download direction by a bound on `M` itself. Rust elaborates a
/// trait's supertraits, never its where-clauses on other types, so
/// `M: CopyToHost` can be part of a bundle such as granule's
/// `PortableSpace`, where `HostSpace: SpaceCopy<M>` could not.
///
/// ```
/// use granule_views::{create_mirror_view_and_copy, CopyToHost, MemorySpace, View1, LayoutRight};
/// fn host_sum<M: CopyToHost>(v: &View1<f64, LayoutRight, M>) -> f64 {
///     create_mirror_view_and_copy(v).unwrap().as_view().iter().sum()
/// }
/// assert_eq!(host_sum(&View1::<f64>::from_fn("v", 4, |i| i as f64).unwrap()), 6.0);
/// ```
///
/// # Safety
/// As for [`SpaceCopy`], with host memory as the destination: copy exactly
/// the described elements and nothing else, and keep no pointer past the
/// call.
pub unsafe trait CopyToHost: MemorySpace {
    /// Copies `count` contiguous elements from `src` (in this space) to
    /// host memory at `dst`.
    ///
    /// # Safety
    /// As for [`SpaceCopy::copy_contiguous`].
    unsafe fn copy_contiguous_to_host<T: Element>(
        &self,
        dst: *mut T,
        src: *const T,
        count: usize,
    ) -> Result<(), String>;

    /// Copies element-wise from this space into host memory, between two
    /// mappings with equal extents.
    ///
    /// # Safety
    /// As for [`SpaceCopy::copy_mapped`].
    unsafe fn copy_mapped_to_host<T: Element, const R: usize>(
        &self,
        dst: *mut T,
        dst_map: &crate::layout::Mapping<R>,
        src: *const T,
        src_map: &crate::layout::Mapping<R>,
    ) -> Result<(), String>;
}

// SAFETY: forwards to the source space's `CopyToHost`, whose contract is
// this one's with host memory as the destination.
unsafe impl<Src: CopyToHost> SpaceCopy<Src> for HostSpace {
    unsafe fn copy_contiguous<T: Element>(
        &self,
        dst: *mut T,
        src_space: &Src,
        src: *const T,
        count: usize,
    ) -> Result<(), String> {
        // SAFETY: forwarded contract.
        unsafe { src_space.copy_contiguous_to_host(dst, src, count) }
    }

    unsafe fn copy_mapped<T: Element, const R: usize>(
        &self,
        dst: *mut T,
        dst_map: &crate::layout::Mapping<R>,
        src_space: &Src,
        src: *const T,
        src_map: &crate::layout::Mapping<R>,
    ) -> Result<(), String> {
        // SAFETY: forwarded contract.
        unsafe { src_space.copy_mapped_to_host(dst, dst_map, src, src_map) }
    }
}

/// Sets elements of a memory space to one value: what
/// [`fill`](crate::fill) (Kokkos's `deep_copy(view, value)`) runs.
///
/// A space implements it for the element types it can write: every
/// [`Element`] on the host, the types device code can hold on a device.
///
/// # Safety
/// `fill_mapped` must write `value` to exactly the elements at the
/// offsets of `map` from `dst` and touch nothing else, and must not keep
/// the pointer past the call except as work queued in the space's own
/// order (a device's stream), which every later access of the memory
/// through the space waits for.
pub unsafe trait SpaceFill<T: Element>: MemorySpace {
    /// Writes `value` at every offset of `map` from `dst`, the elements of
    /// the View labelled `label` (which reports of a failure name).
    ///
    /// # Safety
    /// `dst` must be valid for writing at every offset of `map` in this
    /// space, and nothing else may access those elements during the call.
    unsafe fn fill_mapped<const R: usize>(
        &self,
        label: &str,
        dst: *mut T,
        map: &crate::layout::Mapping<R>,
        value: T,
    ) -> Result<(), String>;
}
