//! The inserting handle and its probe loop on host memory: every access to
//! a slot's state is atomic, and keys and values are written only by the
//! insert that claimed the slot, before it publishes the slot.

use super::{
    InsertResult, InsertStatus, MapKey, MapParts, UnorderedMap, BUSY, EMPTY, INVALID_INDEX, VALID,
};
use granule_views::{Atomic, Element, HostAccessible, HostSpace, MemorySpace};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Inserts into an [`UnorderedMap`] from any number of work items at once
/// (made by [`UnorderedMap::inserter`]). It is `Copy`: capture it in a
/// kernel, or pass it to one.
///
/// ```
/// use granule::containers::UnorderedMap;
/// use granule::prelude::*;
/// let space = DefaultExecutionSpace::default();
/// let mut counts = UnorderedMap::<u32, u64>::new_in(HostSpace, "counts", 16)?;
/// let ins = counts.inserter();
/// // 1000 items, 10 keys: the first insert of a key succeeds, the others add.
/// parallel_for("count", RangePolicy::new(&Serial, 0..1000), (), |i, ()| {
///     let r = ins.insert_add(i as u32 % 10, 1);
///     assert!(!r.failed());
/// });
/// assert_eq!(counts.size(), 10);
/// assert!(counts.iter().all(|(_, n)| n == 100));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MapInserter<'a, K: MapKey, V: Element, M: MemorySpace = HostSpace> {
    label: &'a str,
    states: *mut u32,
    keys: *mut K,
    values: *mut V,
    counters: *mut u64,
    capacity: usize,
    _map: PhantomData<(&'a mut UnorderedMap<K, V, M>, M)>,
}

impl<K: MapKey, V: Element, M: MemorySpace> Clone for MapInserter<'_, K, V, M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K: MapKey, V: Element, M: MemorySpace> Copy for MapInserter<'_, K, V, M> {}

// SAFETY: the handle holds the map's unique borrow for 'a, and every
// access it makes from several threads is race-free: slot states and
// counters only through atomics; a key or value only by the insert that
// claimed its slot (EMPTY -> BUSY by compare-and-swap, so one thread),
// before it publishes the slot with a release store of VALID, and other
// threads read a key only after an acquire load saw VALID; values after
// publication only through atomic read-modify-writes (`insert_add`).
unsafe impl<K: MapKey, V: Element, M: MemorySpace> Send for MapInserter<'_, K, V, M> {}
// SAFETY: as for Send: every method takes &self and is race-free.
unsafe impl<K: MapKey, V: Element, M: MemorySpace> Sync for MapInserter<'_, K, V, M> {}

impl<K: MapKey, V: Element, M: MemorySpace> std::fmt::Debug for MapInserter<'_, K, V, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapInserter")
            .field("label", &self.label)
            .field("capacity", &self.capacity)
            .finish()
    }
}

impl<'a, K: MapKey, V: Element, M: MemorySpace> MapInserter<'a, K, V, M> {
    pub(super) fn new(map: &'a mut UnorderedMap<K, V, M>) -> Self {
        let MapParts {
            label,
            states,
            keys,
            values,
            counters,
        } = map.parts_mut();
        MapInserter {
            label,
            capacity: states.extent(0),
            states: states.as_mut_ptr(),
            keys: keys.as_mut_ptr(),
            values: values.as_mut_ptr(),
            counters: counters.as_mut_ptr(),
            _map: PhantomData,
        }
    }

    /// The map's label.
    pub fn label(&self) -> &str {
        self.label
    }

    /// The map's number of slots.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The addresses of states, keys, values and counters (for a device).
    pub(super) fn addresses(&self) -> (usize, usize, usize, usize) {
        (
            self.states as usize,
            self.keys as usize,
            self.values as usize,
            self.counters as usize,
        )
    }
}

impl<K: MapKey, V: Element, M: HostAccessible> MapInserter<'_, K, V, M> {
    /// Inserts `key` with `value`; a key already there keeps its value.
    pub fn insert(&self, key: K, value: V) -> InsertResult {
        self.insert_op(key, value, |_| {})
    }

    /// Inserts `key` with `value`, or adds `value` atomically to the value
    /// of a key already there (Kokkos's `UnorderedMapInsertOpTypes::AtomicAdd`).
    pub fn insert_add(&self, key: K, value: V) -> InsertResult
    where
        V: Atomic,
    {
        self.insert_op(key, value, |i| {
            // SAFETY: slot i is published, so its value was written before
            // (happens-before through the acquire of VALID); from now on it
            // is only accessed atomically, by inserts of the same key.
            let atom = unsafe { V::as_atom(self.values.add(i)) };
            V::fetch_add(atom, value);
        })
    }

    /// The slot holding `key`, or [`INVALID_INDEX`]; a concurrent insert of
    /// `key` is either seen whole or not at all.
    pub fn find(&self, key: K) -> usize {
        let home = key.home_slot(self.capacity);
        for probe in 0..self.capacity {
            let i = (home + probe) % self.capacity;
            match self.published(i) {
                EMPTY => return INVALID_INDEX,
                _ if self.key(i) == key => return i,
                _ => {}
            }
        }
        INVALID_INDEX
    }

    /// Whether `key` is in the map.
    pub fn exists(&self, key: K) -> bool {
        self.find(key) != INVALID_INDEX
    }

    /// The probe loop: `on_existing` gets the slot of a key already there.
    fn insert_op(&self, key: K, value: V, on_existing: impl Fn(usize)) -> InsertResult {
        let home = key.home_slot(self.capacity);
        for probe in 0..self.capacity {
            let i = (home + probe) % self.capacity;
            let mut state = self.published(i);
            if state == EMPTY {
                match self.state(i).compare_exchange(
                    EMPTY,
                    BUSY,
                    Ordering::Acquire,
                    Ordering::Acquire,
                ) {
                    Ok(_) => {
                        // SAFETY: the compare-and-swap made this thread the
                        // only writer of slot i, which no thread reads until
                        // the release store below; i < capacity.
                        unsafe {
                            self.keys.add(i).write(key);
                            self.values.add(i).write(value);
                        }
                        self.state(i).store(VALID, Ordering::Release);
                        self.counter(0).fetch_add(1, Ordering::Relaxed);
                        return InsertResult::new(i, InsertStatus::Success);
                    }
                    Err(_) => state = self.published(i),
                }
            }
            debug_assert_eq!(state, VALID);
            if self.key(i) == key {
                on_existing(i);
                return InsertResult::new(i, InsertStatus::Existing);
            }
        }
        self.counter(1).fetch_add(1, Ordering::Relaxed);
        InsertResult::new(INVALID_INDEX, InsertStatus::Failed)
    }

    /// The state of slot `i` once it is EMPTY or VALID: a BUSY slot is being
    /// written by an insert that finishes without waiting on anything, so
    /// the wait is short.
    fn published(&self, i: usize) -> u32 {
        loop {
            let s = self.state(i).load(Ordering::Acquire);
            if s != BUSY {
                return s;
            }
            std::hint::spin_loop();
        }
    }

    fn state(&self, i: usize) -> &AtomicU32 {
        debug_assert!(i < self.capacity);
        // SAFETY: i < capacity, the states are u32s aligned by the View's
        // allocation, host-accessible (M: HostAccessible), borrowed uniquely
        // by this handle for its lifetime and only accessed atomically.
        unsafe { AtomicU32::from_ptr(self.states.add(i)) }
    }

    fn counter(&self, c: usize) -> &AtomicU64 {
        // SAFETY: the counters View has 2 aligned u64s, accessed only
        // atomically while the handle lives.
        unsafe { AtomicU64::from_ptr(self.counters.add(c)) }
    }

    /// The key of a published slot.
    fn key(&self, i: usize) -> K {
        // SAFETY: slot i was published (an acquire load saw VALID), so its
        // key was written before and is never written again while the
        // handle lives.
        unsafe { self.keys.add(i).read() }
    }
}
