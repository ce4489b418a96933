//! A block's slot: what it has published (its status and values) and who
//! runs it (its turn), and the per-thread memory the slots of a chain live
//! in.

use super::{PATIENCE, SPIN};
use crossbeam_utils::CachePadded;
use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::time::Instant;

// What a block has published: its slot's status.
pub(super) const EMPTY: u32 = 0;
pub(super) const AGGREGATE: u32 = 1;
pub(super) const INCLUSIVE: u32 = 2;
pub(super) const ABANDONED: u32 = 3;

// Who runs a block: its slot's turn.
/// Unclaimed, or being run by the worker that holds it.
pub(super) const HELD: u8 = 0;
/// Left by its worker; the finisher of the block before runs it.
pub(super) const LEFT: u8 = 1;
/// Finished: its inclusive prefix is published.
pub(super) const DONE: u8 = 2;

/// One block's status and published values. Each value is written once
/// per chain, before its status is stored (Release); readers load the
/// status (Acquire) before reading a value.
pub(super) struct Slot<T> {
    pub(super) status: AtomicU32,
    pub(super) turn: AtomicU8,
    pub(super) aggregate: UnsafeCell<MaybeUninit<T>>,
    pub(super) inclusive: UnsafeCell<MaybeUninit<T>>,
}

impl<T: Copy> Slot<T> {
    pub(super) fn new() -> Self {
        Slot {
            status: AtomicU32::new(EMPTY),
            turn: AtomicU8::new(HELD),
            aggregate: UnsafeCell::new(MaybeUninit::uninit()),
            inclusive: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Writes a value cell, then publishes `status`.
    ///
    /// # Safety
    /// Only the block's current runner calls it, once per cell per chain
    /// (a [`Block`] checks that its body asks once, and a block's second
    /// run publishes no aggregate).
    pub(super) unsafe fn publish(&self, cell: &UnsafeCell<MaybeUninit<T>>, value: T, status: u32) {
        // SAFETY: the caller's contract: one writer, once, before the
        // Release store; readers read only after seeing that store.
        unsafe { (*cell.get()).write(value) };
        self.status.store(status, Ordering::Release);
    }

    /// The status once it is not empty, or `None` after [`PATIENCE`].
    pub(super) fn wait(&self) -> Option<u32> {
        let mut spins = 0u32;
        let mut since: Option<Instant> = None;
        loop {
            let s = self.status.load(Ordering::Acquire);
            if s != EMPTY {
                return Some(s);
            }
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(256) {
                std::hint::spin_loop();
                continue;
            }
            let waited = since.get_or_insert_with(Instant::now).elapsed();
            if waited >= PATIENCE {
                return None;
            }
            if waited < SPIN {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// # Safety
    /// The status was seen (Acquire) at a level that publishes `cell`.
    pub(super) unsafe fn read(cell: &UnsafeCell<MaybeUninit<T>>) -> T {
        // SAFETY: written before the status store we synchronized with,
        // never written again in this chain.
        unsafe { (*cell.get()).assume_init() }
    }
}

/// 128 bytes, 128-byte aligned: the unit of memory [`Slots`] keeps. Its
/// bytes are `MaybeUninit`: the slots written there hold uninitialised
/// value cells.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
pub(super) struct Room([MaybeUninit<u8>; 128]);

thread_local! {
    /// The slots' memory of the last chain this thread ran, for its next
    /// one: fresh memory for thousands of slots costs page faults on every
    /// call.
    pub(super) static ROOM: Cell<Vec<Room>> = const { Cell::new(Vec::new()) };
}

/// The most memory [`ROOM`] keeps: the slots of a scan of 2^30 elements
/// in blocks of 16 Ki.
pub(super) const ROOM_BYTES: usize = 4 << 20;

/// The slots of one chain, each on its own cache lines (`CachePadded`:
/// a block's owner spins on nothing but its own line while neighbours
/// publish), in the memory the calling thread keeps ([`ROOM`]) unless a
/// slot is aligned above it.
pub(super) enum Slots<T> {
    Kept {
        room: Vec<Room>,
        n: usize,
        _values: PhantomData<T>,
    },
    Own(Vec<CachePadded<Slot<T>>>),
}

impl<T: Copy> Slots<T> {
    /// # Panics
    /// If the slots' size overflows `usize`, naming `label`.
    pub(super) fn new(label: &str, n: usize) -> Self {
        let (size, align) = (
            std::mem::size_of::<CachePadded<Slot<T>>>(),
            std::mem::align_of::<CachePadded<Slot<T>>>(),
        );
        if align > std::mem::align_of::<Room>() {
            return Slots::Own((0..n).map(|_| CachePadded::new(Slot::new())).collect());
        }
        let Some(bytes) = n.checked_mul(size) else {
            panic!(
                "\"{label}\": the look-back status of {n} blocks ({size} bytes each) overflows \
                 usize; use larger blocks"
            )
        };
        let units = bytes.div_ceil(std::mem::size_of::<Room>());
        let mut room = ROOM.try_with(Cell::take).unwrap_or_default();
        if room.len() < units {
            room = vec![Room([MaybeUninit::uninit(); 128]); units];
        }
        let at = room.as_mut_ptr().cast::<CachePadded<Slot<T>>>();
        for b in 0..n {
            // SAFETY: the room's `units` 128-byte units hold `n` slots; a
            // slot's alignment is a power of two of at most 128, so it
            // divides the room's start and the slot's size, and every slot
            // is aligned. Writing overwrites bytes only (no drop).
            unsafe { at.add(b).write(CachePadded::new(Slot::new())) };
        }
        Slots::Kept {
            room,
            n,
            _values: PhantomData,
        }
    }
}

impl<T> std::ops::Deref for Slots<T> {
    type Target = [CachePadded<Slot<T>>];

    fn deref(&self) -> &Self::Target {
        match self {
            // SAFETY: `new` wrote `n` slots from the room's start, and the
            // room lives (unmoved) as long as `self`.
            Slots::Kept { room, n, .. } => unsafe {
                std::slice::from_raw_parts(room.as_ptr().cast(), *n)
            },
            Slots::Own(slots) => slots,
        }
    }
}

impl<T> Drop for Slots<T> {
    fn drop(&mut self) {
        // Slots need no drop (atomics and `MaybeUninit` cells); the room
        // goes back to the thread, unless a nested chain left a larger one.
        if let Slots::Kept { room, .. } = self {
            let room = std::mem::take(room);
            if room.len() * std::mem::size_of::<Room>() > ROOM_BYTES {
                return;
            }
            // A thread that is ending has no room to keep it in.
            let _ = ROOM.try_with(|kept| {
                let old = kept.take();
                kept.set(if old.len() > room.len() { old } else { room });
            });
        }
    }
}
