#[cfg(target_os = "linux")]
use super::huge;
#[cfg(target_os = "linux")]
use super::HUGE_PAGE_THRESHOLD;
use super::{HostAccessible, MemorySpace, SpaceCopy, ALLOC_ALIGN};
use crate::error::Result;
use crate::layout::Mapping;
use crate::pod::Pod;
use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// A type whose dangling pointer has the allocation alignment.
#[repr(align(64))]
struct CacheLine;
const _: () = assert!(std::mem::align_of::<CacheLine>() == ALLOC_ALIGN);

/// Ordinary host memory, 64-byte aligned: from the global allocator, or,
/// on Linux, from [`HUGE_PAGE_THRESHOLD`] bytes on, mapped straight from
/// the kernel on transparent huge pages (2 MiB aligned), which streams
/// through memory faster; a large `zeros` View is then faulted in as it is
/// first touched, not cleared when it is made.
///
/// ```
/// use granule_views::{HostSpace, MemorySpace};
/// assert_eq!(HostSpace::NAME, "Host");
/// assert!(HostSpace::IS_HOST_ACCESSIBLE);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostSpace;

// SAFETY: memory comes from the global allocator with the 64-byte alignment
// asked for, zeroed through `alloc_zeroed`, or from an anonymous mapping
// of `huge::map`'s, 2 MiB aligned, zeroed when asked, and no longer in use
// when kept; host code may dereference either.
unsafe impl MemorySpace for HostSpace {
    const NAME: &'static str = "Host";
    const IS_HOST_ACCESSIBLE: bool = true;

    fn allocate(&self, bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String> {
        if bytes == 0 {
            // An aligned, non-null address that is never dereferenced.
            return Ok(NonNull::<CacheLine>::dangling().cast());
        }
        #[cfg(target_os = "linux")]
        if on_huge_pages(bytes) {
            return huge::map(bytes, zeroed);
        }
        let layout = Layout::from_size_align(bytes, ALLOC_ALIGN).map_err(|e| e.to_string())?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe {
            if zeroed {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        NonNull::new(ptr).ok_or_else(|| "the global allocator returned null (out of memory)".into())
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, bytes: usize) {
        if bytes == 0 {
            return;
        }
        #[cfg(target_os = "linux")]
        if on_huge_pages(bytes) {
            // SAFETY: `allocate` mapped these very bytes (same size, same
            // rule), and the caller releases them once.
            unsafe { huge::unmap(ptr, bytes) };
            return;
        }
        // SAFETY: the caller passes what `allocate` returned for `bytes`,
        // which used exactly this layout (it was valid then, so it is now).
        unsafe {
            alloc::dealloc(
                ptr.as_ptr(),
                Layout::from_size_align_unchecked(bytes, ALLOC_ALIGN),
            );
        }
    }
}

/// Whether an allocation of `bytes` bytes is mapped on huge pages; the
/// same answer for `allocate` and `deallocate`, which is what pairs them.
#[cfg(target_os = "linux")]
fn on_huge_pages(bytes: usize) -> bool {
    bytes >= HUGE_PAGE_THRESHOLD
}

// SAFETY: `IS_HOST_ACCESSIBLE` is true for HostSpace.
unsafe impl HostAccessible for HostSpace {}

// SAFETY: both sides are host memory; the copies touch exactly the given elements.
unsafe impl SpaceCopy<HostSpace> for HostSpace {
    unsafe fn copy_contiguous<T: Pod>(
        &self,
        dst: *mut T,
        _src_space: &HostSpace,
        src: *const T,
        count: usize,
    ) -> Result<(), String> {
        // SAFETY: the caller guarantees both ranges are valid and disjoint.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, count) };
        Ok(())
    }

    unsafe fn copy_mapped<T: Pod, const R: usize>(
        &self,
        dst: *mut T,
        dst_map: &Mapping<R>,
        _src_space: &HostSpace,
        src: *const T,
        src_map: &Mapping<R>,
    ) -> Result<(), String> {
        dst_map.for_each_index(|idx| {
            // SAFETY: `idx` is within the shared extents, so both offsets are
            // inside their mappings, which the caller guarantees are valid.
            unsafe { *dst.add(dst_map.offset(idx)) = *src.add(src_map.offset(idx)) };
        });
        Ok(())
    }
}
