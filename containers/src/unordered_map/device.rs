//! What a `#[kernel]` on a device space receives for a captured map or
//! inserter (`granule::UnorderedMap<K, V>` in the device header's
//! `unordered_map.cuh`).

use super::{MapInserter, MapKey, NoValue, SetInserter, UnorderedMap, UnorderedSet};
use granule_core::kernel::{DeviceMap, Insert, MapArg, Read, ViewArg};
use granule_views::{Element, MemorySpace};

/// The four Views of a map at these addresses, all named by its label.
fn map_arg<K, V>(label: &str, capacity: usize, addresses: [usize; 4]) -> MapArg<'_> {
    let [states, keys, values, counters] = addresses;
    MapArg {
        label,
        states: ViewArg::of::<u32>(label, states, &[capacity], &[1]),
        keys: ViewArg::of::<K>(label, keys, &[capacity], &[1]),
        values: ViewArg::of::<V>(label, values, &[capacity], &[1]),
        counters: ViewArg::of::<u64>(label, counters, &[2], &[1]),
    }
}

// SAFETY: the addresses are the map's own Views (capacity slots each, two
// counters), which the inserter borrows uniquely for its lifetime, and the
// host probe loop (`host.rs`) follows the states protocol the device's does.
unsafe impl<K: MapKey, V: Element, M: MemorySpace> DeviceMap for MapInserter<'_, K, V, M> {
    type Access = Insert;
    type Key = K;
    type Value = V;
    fn map_arg(&self) -> MapArg<'_> {
        let (states, keys, values, counters) = self.addresses();
        map_arg::<K, V>(
            self.label(),
            self.capacity(),
            [states, keys, values, counters],
        )
    }
}

// SAFETY: the addresses are the map's own Views; `&self` keeps every
// writer (the inserter, clear, rehash) away while the kernel reads.
unsafe impl<K: MapKey, V: Element, M: MemorySpace> DeviceMap for UnorderedMap<K, V, M> {
    type Access = Read;
    type Key = K;
    type Value = V;
    fn map_arg(&self) -> MapArg<'_> {
        map_arg::<K, V>(
            self.label(),
            self.capacity(),
            [
                self.states.as_ptr() as usize,
                self.keys.as_ptr() as usize,
                self.values.as_ptr() as usize,
                self.counters.as_ptr() as usize,
            ],
        )
    }
}

// SAFETY: the set's own map, under the map's contract above.
unsafe impl<K: MapKey, M: MemorySpace> DeviceMap for SetInserter<'_, K, M> {
    type Access = Insert;
    type Key = K;
    type Value = NoValue;
    fn map_arg(&self) -> MapArg<'_> {
        self.inner.map_arg()
    }
}

// SAFETY: the set's own map, under the map's contract above.
unsafe impl<K: MapKey, M: MemorySpace> DeviceMap for UnorderedSet<K, M> {
    type Access = Read;
    type Key = K;
    type Value = NoValue;
    fn map_arg(&self) -> MapArg<'_> {
        self.map.map_arg()
    }
}
