//! `UnorderedMap`: a fixed-capacity hash map that kernels insert into
//! concurrently (Kokkos's `UnorderedMap`), and [`UnorderedSet`], its form
//! without values.
//!
//! Open addressing with linear probing: a key's probe chain starts at its
//! [home slot](MapKey::home_slot) and walks forward, wrapping, over every
//! slot. An insert claims the first empty slot of its chain with a
//! compare-and-swap on that slot's state, writes key and value, then
//! publishes the slot; nothing is ever removed, so a chain has no holes and
//! two inserts of one key always meet. A map whose every slot is taken
//! answers [`InsertResult::failed`] and counts the failure
//! ([`UnorderedMap::failed_insert`]); it never overwrites an entry.
//!
//! The write model holds in two phases, as the borrow checker sees them:
//! - inserting: [`UnorderedMap::inserter`] borrows the map uniquely and
//!   hands out a [`MapInserter`], a `Copy` handle every work item may
//!   share. It inserts, adds atomically to values
//!   ([`MapInserter::insert_add`], Kokkos's `AtomicAdd` insert op) and
//!   finds keys, but cannot read values, which other items may be adding to;
//! - reading: `&UnorderedMap` finds keys and reads slots
//!   ([`valid_at`](UnorderedMap::valid_at), [`key_at`](UnorderedMap::key_at),
//!   [`value_at`](UnorderedMap::value_at)); nothing can write meanwhile.
//!
//! Both are `#[kernel]` parameters, so the same kernels run on Serial,
//! Rayon and Cuda (where the device runs the same probe loop):
//!
//! ```
//! use granule::containers::{MapInserter, UnorderedMap};
//! use granule::prelude::*;
//!
//! #[kernel]
//! fn count(i: usize, counts: &MapInserter<'_, u32, u64>) {
//!     counts.insert_add((i % 3) as u32, 1);
//! }
//!
//! #[kernel(reduce)]
//! fn total(i: usize, counts: &UnorderedMap<u32, u64>, acc: &mut u64) {
//!     if counts.valid_at(i) {
//!         *acc += counts.value_at(i);
//!     }
//! }
//!
//! let space = DefaultExecutionSpace::default();
//! let mut counts = UnorderedMap::<u32, u64, _>::new_on(&space, "counts", 8)?;
//! parallel_for("count", RangePolicy::new(&space, 0..30), (), count(&counts.inserter()));
//! let n: u64 = parallel_reduce("total", RangePolicy::new(&space, 0..8), Sum, total(&counts));
//! assert_eq!((n, counts.host_mirror()?.get(2)), (30, Some(10)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod device;
mod host;
mod key;
mod set;

pub use host::MapInserter;
pub use key::MapKey;
pub use set::{NoValue, SetInserter, UnorderedSet};

use granule_core::ExecutionSpace;
use granule_views::{
    deep_copy, Element, HostAccessible, HostSpace, LayoutRight, MemorySpace, SpaceCopy, View,
    View1, ViewError,
};
use std::any::Any;
use std::fmt;
use std::ops::Deref;

/// The state of an empty slot.
pub(crate) const EMPTY: u32 = 0;
/// A slot claimed by an insert that is still writing key and value.
pub(crate) const BUSY: u32 = 1;
/// A slot holding an entry.
pub(crate) const VALID: u32 = 2;

/// What [`find`](UnorderedMap::find) answers for an absent key (Kokkos's
/// `invalid_index`).
pub const INVALID_INDEX: usize = usize::MAX;

/// The outcome of an insert (Kokkos's `UnorderedMapInsertResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InsertResult {
    index: usize,
    status: InsertStatus,
}

/// What an insert did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertStatus {
    /// The key was new and now has a slot.
    Success,
    /// The key was already there; its value was left alone (insert) or
    /// added to (`insert_add`).
    Existing,
    /// Every slot is taken by other keys: nothing was inserted.
    Failed,
}

impl InsertResult {
    pub(crate) fn new(index: usize, status: InsertStatus) -> Self {
        InsertResult { index, status }
    }

    /// Whether the key was new and was inserted.
    pub fn success(&self) -> bool {
        self.status == InsertStatus::Success
    }
    /// Whether the key was already in the map.
    pub fn existing(&self) -> bool {
        self.status == InsertStatus::Existing
    }
    /// Whether the map was full and nothing was inserted.
    pub fn failed(&self) -> bool {
        self.status == InsertStatus::Failed
    }
    /// The key's slot, or [`INVALID_INDEX`] when the insert failed.
    pub fn index(&self) -> usize {
        self.index
    }
    /// What the insert did.
    pub fn status(&self) -> InsertStatus {
        self.status
    }
}

/// Why a map operation was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapError {
    /// An insert found every slot taken by other keys.
    Full {
        /// The map's label.
        label: String,
        /// Its capacity.
        capacity: usize,
    },
    /// Allocating or copying the map's Views failed.
    View(ViewError),
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapError::Full { label, capacity } => write!(
                f,
                "UnorderedMap \"{label}\" is full: all {capacity} slots hold other keys; \
                 rehash to a larger capacity"
            ),
            MapError::View(e) => write!(f, "UnorderedMap: {e}"),
        }
    }
}

impl std::error::Error for MapError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MapError::View(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ViewError> for MapError {
    fn from(e: ViewError) -> Self {
        MapError::View(e)
    }
}

/// A fixed-capacity map from integer keys to `V`, in memory space `M`.
///
/// ```
/// use granule::containers::UnorderedMap;
/// use granule::prelude::*;
///
/// let mut map = UnorderedMap::<u64, u32>::new_on(&Serial, "ids", 100)?;
/// let ins = map.inserter();
/// parallel_for("insert", RangePolicy::new(&Serial, 0..50), (), |i, ()| {
///     let r = ins.insert(1000 + i as u64, i as u32);
///     assert!(r.success());
/// });
/// assert_eq!(map.size(), 50);
/// let slot = map.find(1007);
/// assert!(map.valid_at(slot));
/// assert_eq!((map.key_at(slot), map.value_at(slot)), (1007, 7));
/// assert!(!map.exists(7));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct UnorderedMap<K: MapKey, V: Element, M: MemorySpace = HostSpace> {
    label: String,
    states: View1<u32, LayoutRight, M>,
    keys: View1<K, LayoutRight, M>,
    values: View1<V, LayoutRight, M>,
    /// `[entries, failed inserts]`.
    counters: View1<u64, LayoutRight, M>,
}

impl<K: MapKey, V: Element, M: MemorySpace> fmt::Debug for UnorderedMap<K, V, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnorderedMap")
            .field("label", &self.label)
            .field("capacity", &self.capacity())
            .field("space", &M::NAME)
            .finish()
    }
}

impl<K: MapKey, V: Element, M: MemorySpace> UnorderedMap<K, V, M> {
    /// An empty map of `capacity` slots in memory space `space`.
    pub fn new_in(space: M, label: &str, capacity: usize) -> Result<Self, MapError> {
        Ok(UnorderedMap {
            label: label.to_owned(),
            states: View::zeros_in(space.clone(), &format!("{label}.states"), capacity)?,
            keys: View::zeros_in(space.clone(), &format!("{label}.keys"), capacity)?,
            values: View::zeros_in(space.clone(), &format!("{label}.values"), capacity)?,
            counters: View::zeros_in(space, &format!("{label}.counters"), 2)?,
        })
    }

    /// An empty map of `capacity` slots in `exec`'s memory space.
    pub fn new_on<S>(exec: &S, label: &str, capacity: usize) -> Result<Self, MapError>
    where
        S: ExecutionSpace<MemorySpace = M>,
    {
        Self::new_in(exec.memory_space(), label, capacity)
    }

    /// The label.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The number of slots: the most entries the map can hold.
    pub fn capacity(&self) -> usize {
        self.states.extent(0)
    }

    /// The handle that inserts, shared by every work item of a dispatch.
    /// It borrows the map uniquely, so nothing reads values while it lives.
    pub fn inserter(&mut self) -> MapInserter<'_, K, V, M> {
        MapInserter::new(self)
    }

    /// Empties the map, keeping its capacity (and the failed-insert count
    /// goes back to zero).
    pub fn clear(&mut self) -> Result<(), MapError> {
        let space = self.states.space().clone();
        self.states = View::zeros_in(space.clone(), self.states.label(), self.capacity())?;
        self.counters = View::zeros_in(space, self.counters.label(), 2)?;
        Ok(())
    }

    pub(crate) fn parts_mut(&mut self) -> MapParts<'_, K, V, M> {
        MapParts {
            label: &self.label,
            states: &mut self.states,
            keys: &mut self.keys,
            values: &mut self.values,
            counters: &mut self.counters,
        }
    }
}

/// The Views of a map, borrowed uniquely (for the inserter).
pub(crate) struct MapParts<'a, K: Element, V: Element, M: MemorySpace> {
    pub label: &'a str,
    pub states: &'a mut View1<u32, LayoutRight, M>,
    pub keys: &'a mut View1<K, LayoutRight, M>,
    pub values: &'a mut View1<V, LayoutRight, M>,
    pub counters: &'a mut View1<u64, LayoutRight, M>,
}

impl<K: MapKey, V: Element, M: HostAccessible> UnorderedMap<K, V, M> {
    /// The number of entries.
    pub fn size(&self) -> usize {
        self.counters[0] as usize
    }

    /// Whether an insert has failed (the map was full) since it was made,
    /// cleared or rehashed.
    pub fn failed_insert(&self) -> bool {
        self.counters[1] != 0
    }

    /// How many inserts failed since the map was made, cleared or rehashed.
    pub fn failed_inserts(&self) -> u64 {
        self.counters[1]
    }

    /// The slot holding `key`, or [`INVALID_INDEX`].
    pub fn find(&self, key: K) -> usize {
        let cap = self.capacity();
        let home = key.home_slot(cap);
        for probe in 0..cap {
            let i = (home + probe) % cap;
            match self.states[i] {
                EMPTY => return INVALID_INDEX,
                VALID if self.keys[i] == key => return i,
                _ => {}
            }
        }
        INVALID_INDEX
    }

    /// Whether `key` is in the map.
    pub fn exists(&self, key: K) -> bool {
        self.find(key) != INVALID_INDEX
    }

    /// The value of `key`, if it is in the map.
    pub fn get(&self, key: K) -> Option<V> {
        let i = self.find(key);
        (i != INVALID_INDEX).then(|| self.values[i])
    }

    /// Whether slot `i` holds an entry; `false` for `i` past the capacity
    /// (as Kokkos's `valid_at`).
    pub fn valid_at(&self, i: usize) -> bool {
        i < self.capacity() && self.states[i] == VALID
    }

    /// The key in slot `i`. Panics, naming the map, when the slot holds no
    /// entry.
    #[track_caller]
    pub fn key_at(&self, i: usize) -> K {
        self.check_slot(i);
        self.keys[i]
    }

    /// The value in slot `i`. Panics, naming the map, when the slot holds
    /// no entry.
    #[track_caller]
    pub fn value_at(&self, i: usize) -> V {
        self.check_slot(i);
        self.values[i]
    }

    #[track_caller]
    fn check_slot(&self, i: usize) {
        if !self.valid_at(i) {
            panic!(
                "UnorderedMap \"{}\": slot {i} holds no entry (capacity {})",
                self.label,
                self.capacity()
            );
        }
    }

    /// The entries, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (K, V)> + '_ {
        (0..self.capacity())
            .filter(|&i| self.valid_at(i))
            .map(|i| (self.keys[i], self.values[i]))
    }

    /// Inserts from the host, reporting a full map as an error (in kernels,
    /// use [`inserter`](Self::inserter), whose results say `failed`).
    ///
    /// ```
    /// use granule::containers::{MapError, UnorderedMap};
    /// let mut map = UnorderedMap::<u32, f64>::new_in(granule::views::HostSpace, "tiny", 1)?;
    /// assert!(map.try_insert(5, 1.0)?.success());
    /// assert!(map.try_insert(5, 2.0)?.existing());
    /// let e = map.try_insert(6, 3.0).unwrap_err();
    /// assert_eq!(e, MapError::Full { label: "tiny".into(), capacity: 1 });
    /// assert_eq!(map.get(5), Some(1.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_insert(&mut self, key: K, value: V) -> Result<InsertResult, MapError> {
        let r = self.inserter().insert(key, value);
        if r.failed() {
            return Err(MapError::Full {
                label: self.label.clone(),
                capacity: self.capacity(),
            });
        }
        Ok(r)
    }
}

impl<K, V, M> UnorderedMap<K, V, M>
where
    K: MapKey,
    V: Element,
    M: MemorySpace + SpaceCopy<HostSpace>,
    HostSpace: SpaceCopy<M>,
{
    /// The map readable on the host: the map itself when it lives in
    /// `HostSpace`, otherwise a copy (Kokkos's `create_mirror` and
    /// `deep_copy` of a map).
    ///
    /// ```
    /// use granule::containers::UnorderedMap;
    /// use granule::prelude::*;
    /// let space = DefaultExecutionSpace::default();
    /// let map = UnorderedMap::<u32, u32, _>::new_on(&space, "m", 8)?;
    /// assert_eq!(map.host_mirror()?.size(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn host_mirror(&self) -> Result<MapMirror<'_, K, V>, MapError> {
        if let Some(same) = (self as &dyn Any).downcast_ref::<UnorderedMap<K, V, HostSpace>>() {
            return Ok(MapMirror::Same(same));
        }
        let mut host = UnorderedMap::new_in(HostSpace, &self.label, self.capacity())?;
        deep_copy(&mut host.states, &self.states)?;
        deep_copy(&mut host.keys, &self.keys)?;
        if std::mem::size_of::<V>() != 0 {
            // A set's values hold no bytes (and a device space has no
            // allocation to copy them from).
            deep_copy(&mut host.values, &self.values)?;
        }
        deep_copy(&mut host.counters, &self.counters)?;
        Ok(MapMirror::Copy(Box::new(host)))
    }

    /// Moves the entries into `capacity` new slots (Kokkos's `rehash`); the
    /// failed-insert count goes back to zero. As in Kokkos, a capacity
    /// below the number of entries is raised to it, so `rehash(0)`
    /// compacts the map to exactly its entries.
    ///
    /// ```
    /// use granule::containers::UnorderedMap;
    /// use granule::prelude::*;
    /// let mut map = UnorderedMap::<i64, u8>::new_in(HostSpace, "grow", 2)?;
    /// map.try_insert(-1, 1)?;
    /// map.try_insert(-2, 2)?;
    /// assert!(map.try_insert(-3, 3).is_err());
    /// map.rehash(4)?;
    /// assert!(map.try_insert(-3, 3)?.success());
    /// assert_eq!((map.size(), map.failed_insert(), map.get(-2)), (3, false, Some(2)));
    /// map.rehash(0)?;
    /// assert_eq!((map.capacity(), map.size(), map.get(-3)), (3, 3, Some(3)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rehash(&mut self, capacity: usize) -> Result<(), MapError> {
        let old = self.host_mirror()?;
        let capacity = capacity.max(old.size());
        let mut new = UnorderedMap::<K, V, HostSpace>::new_in(HostSpace, &self.label, capacity)?;
        for (k, v) in old.iter() {
            new.try_insert(k, v)?;
        }
        drop(old);
        let space = self.states.space().clone();
        *self = Self::from_host(space, new)?;
        Ok(())
    }

    /// `host` moved into memory space `space`.
    fn from_host(space: M, host: UnorderedMap<K, V, HostSpace>) -> Result<Self, MapError> {
        let boxed: Box<dyn Any> = Box::new(host);
        let host = match boxed.downcast::<Self>() {
            Ok(same) => return Ok(*same),
            Err(other) => *other
                .downcast::<UnorderedMap<K, V, HostSpace>>()
                .expect("the map was boxed as a host map just above"),
        };
        let mut map = Self::new_in(space, &host.label, host.capacity())?;
        deep_copy(&mut map.states, &host.states)?;
        deep_copy(&mut map.keys, &host.keys)?;
        if std::mem::size_of::<V>() != 0 {
            deep_copy(&mut map.values, &host.values)?;
        }
        deep_copy(&mut map.counters, &host.counters)?;
        Ok(map)
    }
}

/// A map readable on the host (see [`UnorderedMap::host_mirror`]).
#[derive(Debug)]
pub enum MapMirror<'a, K: MapKey, V: Element> {
    /// The map itself, which lives in host memory.
    Same(&'a UnorderedMap<K, V, HostSpace>),
    /// A host copy of a map in device memory.
    Copy(Box<UnorderedMap<K, V, HostSpace>>),
}

impl<K: MapKey, V: Element> Deref for MapMirror<'_, K, V> {
    type Target = UnorderedMap<K, V, HostSpace>;
    fn deref(&self) -> &Self::Target {
        match self {
            MapMirror::Same(m) => m,
            MapMirror::Copy(m) => m,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_map_and_what_to_do() {
        let full = MapError::Full {
            label: "ids".into(),
            capacity: 8,
        };
        assert!(full.to_string().contains("\"ids\"") && full.to_string().contains("rehash"));
    }

    #[test]
    fn a_map_of_no_slots_fails_every_insert() {
        let mut map = UnorderedMap::<u32, u32>::new_in(HostSpace, "none", 0).unwrap();
        let r = map.inserter().insert(1, 1);
        assert!(r.failed() && r.index() == INVALID_INDEX);
        assert_eq!(
            (map.size(), map.failed_inserts(), map.find(1)),
            (0, 1, INVALID_INDEX)
        );
        assert!(map.try_insert(2, 2).is_err());
    }

    #[test]
    fn the_host_mirror_of_a_host_map_is_the_map() {
        let mut map = UnorderedMap::<u64, f64>::new_in(HostSpace, "m", 4).unwrap();
        map.try_insert(3, 0.5).unwrap();
        let mirror = map.host_mirror().unwrap();
        assert!(matches!(mirror, MapMirror::Same(_)));
        assert_eq!(mirror.get(3), Some(0.5));
    }
}
