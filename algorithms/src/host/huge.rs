//! Large temporary buffers on transparent huge pages.
//!
//! A sort's scratch buffer is as large as its input and fresh on every
//! call, so the kernel faults it in while the first pass writes it: with
//! 4 KiB pages that is one fault (and one page cleared) per 4 KiB, about
//! a fifth of a 2^24-key sort on the development VM. Aligned to 2 MiB and
//! advised (`MADV_HUGEPAGE`, which Linux needs when THP is in its
//! default `madvise` mode), the buffer is faulted in 2 MiB at a time, and
//! a scatter to 256 buckets across it needs 256 huge-page TLB entries
//! instead of thousands of small ones.

use std::alloc::Layout;
use std::ptr::NonNull;

/// A huge page on x86-64 and aarch64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// Buffers from this size on are put on huge pages; smaller ones would
/// waste most of their last page.
const HUGE_MIN: usize = 4 << 20;

/// An uninitialized heap allocation, freed on drop.
pub(crate) struct Room {
    ptr: NonNull<u8>,
    layout: Option<Layout>,
}

// SAFETY: a Room is a unique owner of plain bytes, like a `Vec<u8>`; it
// hands out raw pointers only, whose users carry their own contracts.
unsafe impl Send for Room {}
// SAFETY: as above; `&Room` gives nothing but the pointer value.
unsafe impl Sync for Room {}

impl Room {
    /// `bytes` bytes aligned to `align` (a power of two), on huge pages
    /// when large; `None` when the allocation fails.
    pub(crate) fn new(bytes: usize, align: usize) -> Option<Room> {
        if bytes == 0 {
            let ptr = NonNull::new(std::ptr::without_provenance_mut(align))?;
            return Some(Room { ptr, layout: None });
        }
        let huge = bytes >= HUGE_MIN;
        let layout = if huge {
            Layout::from_size_align(bytes.checked_next_multiple_of(HUGE_PAGE)?, HUGE_PAGE)
        } else {
            Layout::from_size_align(bytes, align)
        }
        .ok()?;
        // SAFETY: the layout's size is not zero (checked above).
        let ptr = NonNull::new(unsafe { std::alloc::alloc(layout) })?;
        if huge {
            advise_huge(ptr, layout.size());
        }
        Some(Room {
            ptr,
            layout: Some(layout),
        })
    }

    /// The first byte.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for Room {
    fn drop(&mut self) {
        if let Some(layout) = self.layout {
            // SAFETY: allocated in `new` with this very layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

/// Asks Linux to back `len` bytes from `ptr` (2 MiB aligned) with huge
/// pages. A hint: where THP is off or unsupported the call fails and the
/// buffer keeps small pages, which is only slower, so the result is not
/// an error.
#[cfg(target_os = "linux")]
fn advise_huge(ptr: NonNull<u8>, len: usize) {
    // SAFETY: the range is one live allocation of ours; MADV_HUGEPAGE
    // changes how it is paged in, never its contents or its validity.
    let _ = unsafe { libc::madvise(ptr.as_ptr().cast(), len, libc::MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_: NonNull<u8>, _: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooms_are_aligned_writable_and_freed() {
        for (bytes, align) in [(0, 8), (1, 1), (1000, 8), (HUGE_MIN, 4), (HUGE_MIN + 3, 8)] {
            let room = Room::new(bytes, align).expect("room");
            assert_eq!(room.ptr() as usize % align, 0);
            if bytes >= HUGE_MIN {
                assert_eq!(room.ptr() as usize % HUGE_PAGE, 0);
            }
            // SAFETY: the room holds `bytes` bytes.
            unsafe { std::ptr::write_bytes(room.ptr(), 0x5A, bytes) };
            if bytes > 0 {
                // SAFETY: written just above.
                assert_eq!(unsafe { *room.ptr().add(bytes - 1) }, 0x5A);
            }
        }
    }

    #[test]
    fn an_impossible_size_is_refused() {
        assert!(Room::new(usize::MAX - 10, 8).is_none());
    }
}
