//! Large temporary buffers, kept for the next call.
//!
//! A sort's scratch buffer is as large as its input. Large ones come from
//! [`HostSpace`], which puts them on transparent huge pages on Linux (see
//! [`HUGE_PAGE_THRESHOLD`]; not with `GRANULE_HUGE_PAGES=0`): a fresh one
//! is then faulted in 2 MiB at a time instead of 4 KiB (a fifth of a
//! 2^24-key sort on the development VM with small pages), and a scatter
//! to 256 buckets across it needs 256 huge-page TLB entries instead of
//! thousands of small ones. The kernel still clears every page, so the
//! last [`KEEP`] large buffers (at most [`KEEP_BYTES`] in all) are kept
//! for later calls, as Kokkos keeps its spaces' scratch: repeated sorts
//! of one size then allocate nothing (9% of a 2^24-key sort measured).
//! [`release`] hands them back.

use granule_views::space::{ALLOC_ALIGN, HUGE_PAGE_THRESHOLD};
use granule_views::{HostSpace, MemorySpace};
use parking_lot::Mutex;
use std::alloc::Layout;
use std::ptr::NonNull;

/// Buffers from this size on come from the space's huge pages and are
/// kept; smaller ones would waste most of their last huge page.
const HUGE_MIN: usize = HUGE_PAGE_THRESHOLD;

/// How many large buffers are kept between calls: a `sort_by_key` uses
/// two (keys and values).
const KEEP: usize = 2;

/// The most bytes the kept buffers may hold in all; a larger buffer is
/// freed when its call ends.
pub(crate) const KEEP_BYTES: usize = 256 << 20;

/// The kept buffers, oldest first.
static KEPT: Mutex<Vec<Room>> = Mutex::new(Vec::new());

/// Frees the buffers kept for later calls; returns their bytes.
pub(crate) fn release() -> usize {
    let rooms = std::mem::take(&mut *KEPT.lock());
    rooms.iter().map(Room::size).sum()
}

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
    /// space (so on huge pages) when large; an error that says why when
    /// the allocation fails.
    pub(crate) fn new(bytes: usize, align: usize) -> Result<Room, String> {
        if bytes == 0 {
            let ptr = NonNull::new(std::ptr::without_provenance_mut(align))
                .ok_or_else(|| format!("alignment {align}: not a power of two"))?;
            return Ok(Room {
                ptr,
                from: From::Nowhere,
            });
        }
        if bytes >= HUGE_MIN && align <= ALLOC_ALIGN {
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

    /// A room of at least `bytes` bytes aligned to `align`: the smallest
    /// kept one that fits (its contents are whatever its last user left),
    /// or a new one. Give it back with [`Room::keep`].
    pub(crate) fn reuse(bytes: usize, align: usize) -> Result<Room, String> {
        if bytes >= HUGE_MIN && align <= ALLOC_ALIGN {
            let mut kept = KEPT.lock();
            let best = (kept.iter().enumerate())
                .filter(|(_, r)| r.size() >= bytes)
                .min_by_key(|(_, r)| r.size())
                .map(|(k, _)| k);
            if let Some(k) = best {
                return Ok(kept.remove(k));
            }
        }
        Room::new(bytes, align)
    }

    /// Keeps a large room for a later [`Room::reuse`], dropping the oldest
    /// kept ones beyond [`KEEP`] rooms or [`KEEP_BYTES`]; frees a small
    /// one, or one larger than `KEEP_BYTES`, now.
    pub(crate) fn keep(self) {
        if self.size() < HUGE_MIN || self.size() > KEEP_BYTES {
            return;
        }
        let mut kept = KEPT.lock();
        kept.push(self);
        while kept.len() > KEEP || kept.iter().map(Room::size).sum::<usize>() > KEEP_BYTES {
            kept.remove(0);
        }
    }

    /// The first byte.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The bytes allocated.
    fn size(&self) -> usize {
        match self.from {
            From::Nowhere => 0,
            From::Space(bytes) => bytes,
            From::Heap(layout) => layout.size(),
        }
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
        for (bytes, align) in [(0, 8), (1, 1), (1000, 8), (HUGE_MIN, 4), (HUGE_MIN + 3, 8)] {
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

    /// The kept rooms are process-wide: the tests that look at them run
    /// one at a time (no other unit test asks for a room this large).
    static POOL_TESTS: Mutex<()> = Mutex::new(());

    #[test]
    fn large_rooms_are_kept_reused_and_released() {
        let _one = POOL_TESTS.lock();
        release();
        let bytes = HUGE_MIN + 12345;
        let room = Room::reuse(bytes, 8).expect("room");
        let first = room.ptr();
        room.keep();
        let again = Room::reuse(bytes - 100, 8).expect("room");
        assert_eq!(again.ptr(), first, "the kept room is handed out again");
        again.keep();
        assert_eq!(release(), bytes);
        assert_eq!(release(), 0);
        Room::reuse(1000, 8).expect("small").keep();
        assert_eq!(release(), 0, "small rooms are freed, not kept");
    }

    #[test]
    fn keeping_stays_within_its_bounds() {
        let _one = POOL_TESTS.lock();
        release();
        for _ in 0..4 {
            Room::new(HUGE_MIN, 8).expect("room").keep();
        }
        assert_eq!(KEPT.lock().len(), KEEP);
        Room::new(KEEP_BYTES + 1, 8).expect("room").keep();
        assert_eq!(
            release(),
            KEEP * HUGE_MIN,
            "a room above KEEP_BYTES is not kept"
        );
        Room::new(KEEP_BYTES / 2 + 1, 8).expect("room").keep();
        Room::new(KEEP_BYTES / 2 + 1, 8).expect("room").keep();
        let kept: Vec<usize> = KEPT.lock().iter().map(Room::size).collect();
        assert_eq!(
            kept.len(),
            1,
            "two halves and more exceed KEEP_BYTES: {kept:?}"
        );
        release();
    }

    #[test]
    fn an_impossible_size_is_refused() {
        assert!(Room::new(usize::MAX - 10, 8).is_err());
    }
}
