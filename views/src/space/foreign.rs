//! A memory space that host code must treat as foreign (like device
//! memory), for unit tests of the device-space paths without a GPU. It is
//! backed by host memory, so a test may still look behind the curtain
//! through `SpaceCopy`, never through indexing.

use super::{CopyToHost, HostSpace, MemorySpace, SpaceCopy, SpaceFill};
use crate::element::Element;
use crate::layout::Mapping;
use std::ptr::NonNull;

/// Claims not to be host-accessible; allocates and copies through HostSpace.
#[derive(Clone, Debug, Default)]
pub(crate) struct Foreign;

// SAFETY: delegates to HostSpace, which satisfies the allocation contract;
// it only claims to be less accessible than it is.
unsafe impl MemorySpace for Foreign {
    const NAME: &'static str = "Foreign";
    const IS_HOST_ACCESSIBLE: bool = false;
    fn allocate(&self, bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String> {
        HostSpace.allocate(bytes, zeroed)
    }
    unsafe fn deallocate(&self, ptr: NonNull<u8>, bytes: usize) {
        // SAFETY: forwarded contract: `ptr` came from HostSpace.allocate.
        unsafe { HostSpace.deallocate(ptr, bytes) }
    }
}

/// The copy directions into Foreign (the download is `CopyToHost`), each forwarded to HostSpace's copy: both
/// sides are really host memory.
macro_rules! forward_copy {
    ($($dst:ty => $src:ty),*) => { $(
        // SAFETY: both sides are host memory; HostSpace's copy touches
        // exactly the described elements.
        unsafe impl SpaceCopy<$src> for $dst {
            unsafe fn copy_contiguous<T: Element>(
                &self,
                dst: *mut T,
                _: &$src,
                src: *const T,
                count: usize,
            ) -> Result<(), String> {
                // SAFETY: forwarded contract.
                unsafe { HostSpace.copy_contiguous(dst, &HostSpace, src, count) }
            }
            unsafe fn copy_mapped<T: Element, const R: usize>(
                &self,
                dst: *mut T,
                dst_map: &Mapping<R>,
                _: &$src,
                src: *const T,
                src_map: &Mapping<R>,
            ) -> Result<(), String> {
                // SAFETY: forwarded contract.
                unsafe { HostSpace.copy_mapped(dst, dst_map, &HostSpace, src, src_map) }
            }
        }
    )* };
}
forward_copy!(Foreign => HostSpace, Foreign => Foreign);

// SAFETY: the memory is host memory; HostSpace's download touches exactly
// the described elements.
unsafe impl CopyToHost for Foreign {
    unsafe fn copy_contiguous_to_host<T: Element>(
        &self,
        dst: *mut T,
        src: *const T,
        count: usize,
    ) -> Result<(), String> {
        // SAFETY: forwarded contract.
        unsafe { HostSpace.copy_contiguous_to_host(dst, src, count) }
    }
    unsafe fn copy_mapped_to_host<T: Element, const R: usize>(
        &self,
        dst: *mut T,
        dst_map: &Mapping<R>,
        src: *const T,
        src_map: &Mapping<R>,
    ) -> Result<(), String> {
        // SAFETY: forwarded contract.
        unsafe { HostSpace.copy_mapped_to_host(dst, dst_map, src, src_map) }
    }
}

// SAFETY: the memory is host memory; HostSpace's fill writes exactly the
// mapping's elements.
unsafe impl<T: Element> SpaceFill<T> for Foreign {
    unsafe fn fill_mapped<const R: usize>(
        &self,
        label: &str,
        dst: *mut T,
        map: &Mapping<R>,
        value: T,
    ) -> Result<(), String> {
        // SAFETY: forwarded contract.
        unsafe { HostSpace.fill_mapped(label, dst, map, value) }
    }
}
