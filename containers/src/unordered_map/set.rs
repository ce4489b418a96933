//! `UnorderedSet`: the map without values (Kokkos's `UnorderedMap<K, void>`).

use super::{InsertResult, MapError, MapInserter, MapKey, MapMirror, UnorderedMap};
use granule_core::ExecutionSpace;
use granule_views::{HostAccessible, HostSpace, MemorySpace, SpaceCopy};

pub use granule_core::kernel::NoValue;

/// A fixed-capacity set of integer keys that kernels insert into
/// concurrently; the rules of [`UnorderedMap`] apply.
///
/// ```
/// use granule::containers::UnorderedSet;
/// use granule::prelude::*;
/// let mut seen = UnorderedSet::<u32>::new_on(&Serial, "seen", 64)?;
/// let ins = seen.inserter();
/// parallel_for("mark", RangePolicy::new(&Serial, 0..100), (), |i, ()| {
///     ins.insert((i % 7) as u32);
/// });
/// assert_eq!(seen.size(), 7);
/// assert!(seen.exists(6) && !seen.exists(7));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct UnorderedSet<K: MapKey, M: MemorySpace = HostSpace> {
    pub(super) map: UnorderedMap<K, NoValue, M>,
}

/// Inserts into an [`UnorderedSet`] from any number of work items at once.
#[derive(Clone, Copy, Debug)]
pub struct SetInserter<'a, K: MapKey, M: MemorySpace = HostSpace> {
    pub(super) inner: MapInserter<'a, K, NoValue, M>,
}

impl<K: MapKey, M: MemorySpace> UnorderedSet<K, M> {
    /// An empty set of `capacity` slots in memory space `space`.
    pub fn new_in(space: M, label: &str, capacity: usize) -> Result<Self, MapError> {
        Ok(UnorderedSet {
            map: UnorderedMap::new_in(space, label, capacity)?,
        })
    }

    /// An empty set of `capacity` slots in `exec`'s memory space.
    pub fn new_on<S>(exec: &S, label: &str, capacity: usize) -> Result<Self, MapError>
    where
        S: ExecutionSpace<MemorySpace = M>,
    {
        Self::new_in(exec.memory_space(), label, capacity)
    }

    /// The label.
    pub fn label(&self) -> &str {
        self.map.label()
    }

    /// The number of slots.
    pub fn capacity(&self) -> usize {
        self.map.capacity()
    }

    /// The handle that inserts, shared by every work item of a dispatch.
    pub fn inserter(&mut self) -> SetInserter<'_, K, M> {
        SetInserter {
            inner: self.map.inserter(),
        }
    }

    /// Empties the set, keeping its capacity.
    pub fn clear(&mut self) -> Result<(), MapError> {
        self.map.clear()
    }
}

impl<K: MapKey, M: HostAccessible> UnorderedSet<K, M> {
    /// The number of keys.
    pub fn size(&self) -> usize {
        self.map.size()
    }
    /// Whether an insert found the set full.
    pub fn failed_insert(&self) -> bool {
        self.map.failed_insert()
    }
    /// The slot holding `key`, or [`INVALID_INDEX`](super::INVALID_INDEX).
    pub fn find(&self, key: K) -> usize {
        self.map.find(key)
    }
    /// Whether `key` is in the set.
    pub fn exists(&self, key: K) -> bool {
        self.map.exists(key)
    }
    /// Whether slot `i` holds a key.
    pub fn valid_at(&self, i: usize) -> bool {
        self.map.valid_at(i)
    }
    /// The key in slot `i`; panics, naming the set, when it holds none.
    #[track_caller]
    pub fn key_at(&self, i: usize) -> K {
        self.map.key_at(i)
    }
    /// The keys, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.map.iter().map(|(k, _)| k)
    }
}

impl<K, M> UnorderedSet<K, M>
where
    K: MapKey,
    M: MemorySpace + SpaceCopy<HostSpace>,
    HostSpace: SpaceCopy<M>,
{
    /// Moves the keys into `capacity` new slots, or as many as there are
    /// keys when `capacity` is below that (Kokkos's rule).
    pub fn rehash(&mut self, capacity: usize) -> Result<(), MapError> {
        self.map.rehash(capacity)
    }

    /// The set readable on the host, as the map of its keys to
    /// [`NoValue`]: itself in `HostSpace`, else a copy.
    pub fn host_mirror(&self) -> Result<MapMirror<'_, K, NoValue>, MapError> {
        self.map.host_mirror()
    }
}

impl<'a, K: MapKey, M: HostAccessible> SetInserter<'a, K, M> {
    /// Inserts `key`.
    pub fn insert(&self, key: K) -> InsertResult {
        self.inner.insert(key, NoValue)
    }
    /// The slot holding `key`, or [`INVALID_INDEX`](super::INVALID_INDEX).
    pub fn find(&self, key: K) -> usize {
        self.inner.find(key)
    }
    /// Whether `key` is in the set.
    pub fn exists(&self, key: K) -> bool {
        self.inner.exists(key)
    }
}
