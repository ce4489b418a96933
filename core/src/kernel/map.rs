//! Hash maps captured by `#[kernel]`s (granule-containers' `UnorderedMap`
//! for reading, its `MapInserter` for inserting): what the device gets,
//! and the contract their types sign.

use super::check::SameType;
use super::device::{DeviceArg, ViewArg};

/// A captured map as the device receives it: four rank-1 Views, each
/// checked by the device space to lie in its memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapArg<'a> {
    /// The map's label (device errors name it).
    pub label: &'a str,
    /// `u32` slot states: 0 empty, 1 being written, 2 holding an entry.
    pub states: ViewArg<'a>,
    /// The keys, one per slot.
    pub keys: ViewArg<'a>,
    /// The values, one per slot.
    pub values: ViewArg<'a>,
    /// Two `u64` counters: entries, failed inserts.
    pub counters: ViewArg<'a>,
}

/// The value type of a set (granule-containers' `UnorderedSet`): nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, granule_views::Zeroable)]
#[bytemuck(crate = "granule_views::bytemuck")]
pub struct NoValue;

/// The device may insert into the map (`MapInserter`).
#[derive(Debug)]
pub struct Insert;
/// The device only reads the map (`UnorderedMap`).
#[derive(Debug)]
pub struct Read;

/// A map type a `#[kernel]` may capture.
///
/// # Safety
/// [`map_arg`](DeviceMap::map_arg) describes memory laid out as the device
/// header's `granule::UnorderedMap` reads it (the states protocol of
/// [`MapArg`]; as many slots in states, keys and values; two counters), of
/// `Key`s and `Value`s, valid while `self` is borrowed. With `Access =
/// Insert`, the value holds the map's unique borrow, so the device may
/// write it (inserts claim slots by compare-and-swap); with `Read`, nothing
/// writes the map while `self` is borrowed, and the device only reads.
pub unsafe trait DeviceMap {
    /// [`Insert`] or [`Read`].
    type Access;
    /// The key type.
    type Key;
    /// The value type.
    type Value;
    /// The device's view of the map.
    fn map_arg(&self) -> MapArg<'_>;
}

/// A captured map's argument (what `#[kernel]`'s glue passes).
pub fn map_arg_of<T: DeviceMap + ?Sized>(m: &T) -> DeviceArg<'_> {
    DeviceArg::Map(Box::new(m.map_arg()))
}

/// Compiles only when `T` is a map the device may capture, of keys `K`
/// and values `V`, with access `A` ([`Insert`] or [`Read`]): the
/// translator read the map's type by its name.
pub fn map_shape<T, K, V, A>()
where
    T: DeviceMap + ?Sized,
    T::Key: SameType<K>,
    T::Value: SameType<V>,
    T::Access: SameType<A>,
{
}
