//! Uninitialised host allocations for the algorithms' temporaries.
//!
//! A sort's scratch buffer is as large as its input. Large ones come from
//! [`HostSpace`], which puts them on transparent huge pages on Linux (see
//! [`HUGE_PAGE_THRESHOLD`]): a fresh one is faulted in 2 MiB at a time
//! instead of 4 KiB, and a scatter to 256 buckets across it needs 256
//! huge-page TLB entries instead of thousands of small ones. Freeing one
//! hands it to the host pool, which keeps it for the next allocation of
//! its size (granule-views' `space::release_kept`), so repeated sorts of
//! one size allocate nothing; small ones come from the global allocator.

use granule_views::space::{ALLOC_ALIGN, HUGE_PAGE_THRESHOLD};
use granule_views::{HostSpace, MemorySpace};
use std::alloc::Layout;
use std::ptr::NonNull;

/// An uninitialized heap allocation, freed on drop.
pub(crate) struct Room {
    ptr: NonNull<u8>,
    from: From,
}

/// Where a [`Room`]'s memory came from, and so how it is freed.
#[derive(Clone, Copy)]
enum From {
    /// Nothing: an empty room's dangling pointer.
    Nowhere,
    /// `HostSpace::allocate` of this many bytes.
    Space(usize),
    /// The global allocator, with this layout.
    Heap(Layout),
}

// SAFETY: a Room is a unique owner of plain bytes, like a `Vec<u8>`; it
// hands out raw pointers only, whose users carry their own contracts.
unsafe impl Send for Room {}
// SAFETY: as above; `&Room` gives nothing but the pointer value.
unsafe impl Sync for Room {}

impl Room {
    /// `bytes` bytes aligned to `align` (a power of two), from the host
    /// space (so on huge pages, and kept by its pool) when large; an
    /// error that says why when the allocation fails.
    pub(crate) fn new(bytes: usize, align: usize) -> Result<Room, String> {
        if bytes == 0 {
            let ptr = NonNull::new(std::ptr::without_provenance_mut(align))
                .ok_or_else(|| format!("alignment {align}: not a power of two"))?;
            return Ok(Room {
                ptr,
                from: From::Nowhere,
            });
        }
        if bytes >= HUGE_PAGE_THRESHOLD && align <= ALLOC_ALIGN {
            let ptr = HostSpace.allocate(bytes, false)?;
            return Ok(Room {
                ptr,
                from: From::Space(bytes),
            });
        }
        let layout = Layout::from_size_align(bytes, align).map_err(|e| e.to_string())?;
        // SAFETY: the layout's size is not zero (checked above).
        let ptr = NonNull::new(unsafe { std::alloc::alloc(layout) }).ok_or("out of memory")?;
        Ok(Room {
            ptr,
            from: From::Heap(layout),
        })
    }

    /// The first byte.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for Room {
    fn drop(&mut self) {
        match self.from {
            From::Nowhere => {}
            // SAFETY: allocated in `new` by the host space, of these bytes.
            From::Space(bytes) => unsafe { HostSpace.deallocate(self.ptr, bytes) },
            // SAFETY: allocated in `new` with this very layout.
            From::Heap(layout) => unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooms_are_aligned_writable_and_freed() {
        let big = HUGE_PAGE_THRESHOLD;
        for (bytes, align) in [
            (0, 8),
            (1, 1),
            (1000, 8),
            (big, 4),
            (big + 3, 8),
            (big, 128),
        ] {
            let room = Room::new(bytes, align).expect("room");
            assert_eq!(room.ptr() as usize % align, 0);
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
        assert!(Room::new(usize::MAX - 10, 8).is_err());
        assert!(Room::new(100, 3).is_err(), "alignment 3");
    }
}
