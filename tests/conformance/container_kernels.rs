//! The `#[kernel]`s of the containers' tests (DualView, UnorderedMap).

use granule::containers::{MapInserter, SetInserter, UnorderedMap, UnorderedSet};
use granule::prelude::*;

/// Doubles its element in place.
#[kernel]
pub fn double_in_place(_i: usize, y: &mut f64) {
    *y *= 2.0;
}

/// Inserts key `7919·(i mod n)` with value `i mod n`; writes what the
/// insert did (0 success, 1 existing, 2 failed) and checks `find` agrees.
#[kernel]
pub fn map_insert_repeated(i: usize, what: &mut u32, ins: &MapInserter<'_, u64, u32>, n: usize) {
    let k = (i % n) as u64;
    let r = ins.insert(k * 7919, k as u32);
    if r.success() {
        *what = 0;
    } else if r.existing() {
        *what = 1;
    } else {
        *what = 2;
    }
    if !r.failed() {
        assert_eq!(ins.find(k * 7919), r.index());
        assert!(ins.exists(k * 7919));
    }
}

/// Adds `i` to the value of key `-(i mod 37)`.
#[kernel]
pub fn map_add_index(i: usize, ins: &MapInserter<'_, i64, u64>) {
    let r = ins.insert_add(-((i % 37) as i64), i as u64);
    assert!(!r.failed());
}

/// Inserts `keys[i mod len]` with value `key + 1`; writes whether it
/// failed (1) or not (0).
#[kernel]
pub fn map_insert_keys(
    i: usize,
    failed: &mut u32,
    ins: &MapInserter<'_, u64, u64>,
    keys: &View1<u64>,
) {
    let k = keys[i % keys.extent(0)];
    let r = ins.insert(k, k + 1);
    *failed = if r.failed() { 1 } else { 0 };
}

/// Looks `keys[i]` up in a read map: its value, or `u64::MAX` when absent.
#[kernel]
pub fn map_lookup(i: usize, found: &mut u64, map: &UnorderedMap<u64, u64>, keys: &View1<u64>) {
    let k = keys[i];
    if map.exists(k) {
        let slot = map.find(k);
        assert!(map.valid_at(slot));
        assert_eq!(map.key_at(slot), k);
        *found = map.value_at(slot);
    } else {
        *found = u64::MAX;
    }
}

/// Reads slot `slot` of a map, which panics when the slot is empty.
#[kernel]
pub fn map_read_slot(_i: usize, out: &mut u64, map: &UnorderedMap<u64, u64>, slot: usize) {
    *out = map.value_at(slot);
}

/// Inserts `i mod m` into a set.
#[kernel]
pub fn set_insert_mod(i: usize, ins: &SetInserter<'_, u32>, m: u32) {
    let r = ins.insert(i as u32 % m);
    assert!(!r.failed());
    assert!(ins.exists(i as u32 % m));
}

/// Counts the members of `0..n` in a set, and checks their slots.
#[kernel(reduce)]
pub fn set_count_members(i: usize, set: &UnorderedSet<u32>, acc: &mut u64) {
    if set.exists(i as u32) {
        let slot = set.find(i as u32);
        assert_eq!(set.key_at(slot), i as u32);
        *acc += 1;
    }
}

/// Every `#[kernel]` of this file; `nvrtc.rs` compiles them as a unit.
pub const KERNELS: &[&granule::kernel::DeviceKernel] = kernel_list![
    double_in_place,
    map_insert_repeated,
    map_add_index,
    map_insert_keys,
    map_lookup,
    map_read_slot,
    set_insert_mod,
    set_count_members,
];
