//! The host's lock protocol, the device's too (`unique_token.cuh`): lock
//! `id` is a `u32`, 0 free and 1 held; acquiring is a compare-and-swap
//! 0 -> 1 (Acquire), releasing a swap to 0 (Release), so what one holder
//! of an id wrote happens before what the next holder reads.

use super::TokenError;
use crossbeam_utils::CachePadded;
use granule_views::MemorySpace;
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// u32s per padded lock: as far apart as crossbeam's `CachePadded` puts
/// two values on this target (128 bytes on x86-64, whose prefetcher pulls
/// lines in pairs).
const PAD: usize = size_of::<CachePadded<u32>>() / size_of::<u32>();
/// Up to this many ids, host locks are padded (at most 128 KiB).
const PADDED_MAX: usize = 1024;

/// Elements between two ids' locks in memory space `M`: padded on the
/// host for the sizes threads use, so that two threads' locks never share
/// a line; packed on a device, whose threads each start at their own
/// word and whose sizes are in the hundreds of thousands.
pub(super) fn stride<M: MemorySpace>(size: usize) -> usize {
    if M::IS_HOST_ACCESSIBLE && size <= PADDED_MAX {
        PAD
    } else {
        1
    }
}

thread_local! {
    /// Where this thread starts looking: the id it held last (of any
    /// token), first its ordinal among the threads that acquired, so that
    /// threads spread out at once and each soon finds its own id free.
    static HINT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Threads that acquired so far (their first hints).
static THREADS: AtomicUsize = AtomicUsize::new(0);

fn hint() -> usize {
    HINT.with(|h| {
        h.get().unwrap_or_else(|| {
            let t = THREADS.fetch_add(1, Ordering::Relaxed);
            h.set(Some(t));
            t
        })
    })
}

/// A token's locks, borrowed.
pub(super) struct Locks<'a> {
    base: *const AtomicU32,
    size: usize,
    stride: usize,
    _borrow: PhantomData<&'a AtomicU32>,
}

impl<'a> Locks<'a> {
    /// # Safety
    /// `base` points at `size * stride` initialized `u32`s in host memory,
    /// valid for `'a`, which nothing accesses but atomically meanwhile.
    pub(super) unsafe fn new(base: *const u32, size: usize, stride: usize) -> Self {
        Locks {
            base: base.cast(),
            size,
            stride,
            _borrow: PhantomData,
        }
    }

    fn lock(&self, id: usize) -> &AtomicU32 {
        debug_assert!(id < self.size);
        // SAFETY: id < size, so the element is inside the allocation
        // (`new`'s contract); AtomicU32 has u32's size and alignment, and
        // every access to these u32s is atomic.
        unsafe { &*self.base.add(id * self.stride) }
    }

    fn try_take(&self, id: usize) -> bool {
        let l = self.lock(id);
        l.load(Ordering::Relaxed) == 0
            && l.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
    }

    /// One sweep from `start` (< size), wrapping without a division.
    fn sweep(&self, start: usize) -> Option<usize> {
        let mut id = start;
        for _ in 0..self.size {
            if self.try_take(id) {
                return Some(id);
            }
            id += 1;
            if id == self.size {
                id = 0;
            }
        }
        None
    }

    /// Where this thread starts: its hint, reduced to an id (the hint is
    /// usually an id of this size already, which spares the division).
    fn start(&self) -> usize {
        let h = hint();
        if h < self.size {
            h
        } else {
            h % self.size
        }
    }
}

fn remember(id: usize) -> usize {
    HINT.with(|h| h.set(Some(id)));
    id
}

/// A free id, taken; `None` if a sweep found every id held.
pub(super) fn try_acquire(locks: Locks<'_>) -> Option<usize> {
    locks.sweep(locks.start()).map(remember)
}

/// A free id, taken, waiting while every id is held.
pub(super) fn acquire(locks: Locks<'_>) -> usize {
    let start = locks.start();
    let mut sweeps = 0u32;
    loop {
        if let Some(id) = locks.sweep(start) {
            return remember(id);
        }
        // Holders are running threads: spin briefly, then let them run.
        sweeps = sweeps.saturating_add(1);
        if sweeps < 16 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// Frees `id`.
pub(super) fn release(locks: Locks<'_>, id: usize) -> Result<(), TokenError> {
    let size = locks.size;
    if id >= size {
        return Err(TokenError::OutOfRange { id, size });
    }
    match locks.lock(id).swap(0, Ordering::Release) {
        1 => Ok(()),
        _ => Err(TokenError::NotHeld { id, size }),
    }
}
