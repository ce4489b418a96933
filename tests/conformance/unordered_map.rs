//! UnorderedMap and UnorderedSet under concurrent inserts: every key lands
//! once, the insert results are Kokkos's (success once per key, existing
//! after, failed when full), atomic-add inserts sum exactly, a probe chain
//! holding every key still finds each, and a full map never overwrites or
//! loses an entry.

use granule::containers::MapKey;

/// `count` keys whose home slot in a map of `capacity` slots is `slot`:
/// inserted together, they make one probe chain.
pub fn keys_homed_at(slot: usize, capacity: usize, count: usize) -> Vec<u64> {
    (0u64..)
        .filter(|k| k.home_slot(capacity) == slot)
        .take(count)
        .collect()
}

macro_rules! unordered_map_tests {
    () => {
        mod unordered_map {
            use super::*;
            use crate::container_kernels::*;
            use granule::containers::{MapKey, UnorderedMap};

            fn host<T: granule::views::Element, M>(v: &View1<T, LayoutRight, M>) -> Vec<T>
            where
                M: granule::views::MemorySpace + granule::views::SpaceCopy<HostSpace>,
                HostSpace: granule::views::SpaceCopy<M>,
            {
                create_mirror_view_and_copy(v).unwrap().to_vec()
            }

            #[test]
            fn repeated_keys_succeed_once_each_in_kernels() {
                let s = space();
                let (n, repeats) = (300usize, 4usize);
                let mut map = UnorderedMap::<u64, u32, _>::new_on(&s, "umk_repeat", 2 * n).unwrap();
                let mut what =
                    View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "what", n * repeats)
                        .unwrap();
                parallel_for(
                    "umk_repeat",
                    RangePolicy::new(&s, 0..n * repeats),
                    &mut what,
                    map_insert_repeated(&map.inserter(), n),
                );
                let what = host(&what);
                assert_eq!(what.iter().filter(|&&w| w == 0).count(), n);
                assert_eq!(what.iter().filter(|&&w| w == 1).count(), n * (repeats - 1));
                let m = map.host_mirror().unwrap();
                assert_eq!((m.size(), m.failed_insert()), (n, false));
                for k in 0..n as u64 {
                    assert_eq!(m.get(k * 7919), Some(k as u32));
                }
            }

            #[test]
            fn atomic_add_inserts_sum_exactly_in_kernels() {
                let s = space();
                let mut map = UnorderedMap::<i64, u64, _>::new_on(&s, "umk_add", 64).unwrap();
                parallel_for(
                    "umk_add",
                    RangePolicy::new(&s, 0..5000),
                    (),
                    map_add_index(&map.inserter()),
                );
                let m = map.host_mirror().unwrap();
                assert_eq!(m.size(), 37);
                for k in 0..37usize {
                    let want: u64 = (k..5000).step_by(37).map(|i| i as u64).sum();
                    assert_eq!(m.get(-(k as i64)), Some(want), "key -{k}");
                }
            }

            #[test]
            fn one_probe_chain_of_every_key_is_found_in_kernels() {
                let s = space();
                let cap = 64;
                let keys = crate::unordered_map::keys_homed_at(9, cap, 56);
                let kv = View1::<u64, LayoutRight, _>::from_vec_in(
                    s.memory_space(),
                    "keys",
                    keys.len(),
                    keys.clone(),
                )
                .unwrap();
                let mut map = UnorderedMap::<u64, u64, _>::new_on(&s, "umk_chain", cap).unwrap();
                let mut failed = View1::<u32, LayoutRight, _>::zeros_in(
                    s.memory_space(),
                    "failed",
                    3 * keys.len(),
                )
                .unwrap();
                parallel_for(
                    "umk_chain",
                    RangePolicy::new(&s, 0..3 * keys.len()),
                    &mut failed,
                    map_insert_keys(&map.inserter(), &kv),
                );
                assert!(host(&failed).iter().all(|&f| f == 0));
                {
                    let m = map.host_mirror().unwrap();
                    assert_eq!(m.size(), keys.len());
                    // The chain runs from slot 9 and wraps past the last slot.
                    let used: Vec<usize> = (0..cap).filter(|&i| m.valid_at(i)).collect();
                    let mut chain: Vec<usize> = (9..9 + keys.len()).map(|i| i % cap).collect();
                    chain.sort();
                    assert_eq!(used, chain);
                }
                // Lookups in a kernel, of the chain's keys and of one more
                // homed there (absent: its search walks the whole chain).
                let mut probe = keys.clone();
                probe.push(crate::unordered_map::keys_homed_at(9, cap, 57)[56]);
                assert_eq!(probe[56].home_slot(cap), 9);
                let pv = View1::<u64, LayoutRight, _>::from_vec_in(
                    s.memory_space(),
                    "probe",
                    probe.len(),
                    probe.clone(),
                )
                .unwrap();
                let mut found =
                    View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "found", probe.len())
                        .unwrap();
                parallel_for(
                    "umk_lookup",
                    RangePolicy::new(&s, 0..probe.len()),
                    &mut found,
                    map_lookup(&map, &pv),
                );
                let found = host(&found);
                for (k, f) in keys.iter().zip(&found) {
                    assert_eq!(*f, k + 1);
                }
                assert_eq!(found[56], u64::MAX);
            }

            #[test]
            fn a_full_map_fails_and_keeps_every_entry_in_kernels() {
                let s = space();
                let cap = 50;
                let keys: Vec<u64> = (0..3 * cap as u64).map(|k| k * 31 + 1).collect();
                let kv = View1::<u64, LayoutRight, _>::from_vec_in(
                    s.memory_space(),
                    "keys",
                    keys.len(),
                    keys.clone(),
                )
                .unwrap();
                let mut map = UnorderedMap::<u64, u64, _>::new_on(&s, "umk_full", cap).unwrap();
                let mut failed =
                    View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "failed", keys.len())
                        .unwrap();
                parallel_for(
                    "umk_full",
                    RangePolicy::new(&s, 0..keys.len()),
                    &mut failed,
                    map_insert_keys(&map.inserter(), &kv),
                );
                let failed = host(&failed);
                assert_eq!(failed.iter().filter(|&&f| f == 1).count(), 2 * cap);
                let m = map.host_mirror().unwrap();
                assert_eq!(
                    (m.size(), m.failed_insert(), m.failed_inserts()),
                    (cap, true, 2 * cap as u64)
                );
                for (k, f) in keys.iter().zip(&failed) {
                    // A key whose insert succeeded is there with its value;
                    // one that failed is not.
                    assert_eq!(m.get(*k), (*f == 0).then_some(k + 1), "key {k}");
                }
            }

            #[test]
            fn a_set_holds_each_key_once_in_kernels() {
                let s = space();
                let mut set =
                    granule::containers::UnorderedSet::<u32, _>::new_on(&s, "usk", 40).unwrap();
                parallel_for(
                    "usk_insert",
                    RangePolicy::new(&s, 0..1000),
                    (),
                    set_insert_mod(&set.inserter(), 25),
                );
                let members: u64 = parallel_reduce(
                    "usk_count",
                    RangePolicy::new(&s, 0..100),
                    Sum,
                    set_count_members(&set),
                );
                assert_eq!(members, 25);
                let m = set.host_mirror().unwrap();
                assert_eq!((m.size(), m.failed_insert()), (25, false));
            }

            #[test]
            fn reading_an_empty_slot_in_a_kernel_panics_naming_the_map() {
                let s = own_space();
                let map = UnorderedMap::<u64, u64, _>::new_on(&s, "umk_empty_slot", 8).unwrap();
                let payload = crate::soundness::panic_of("map_read_slot", move || {
                    let mut out =
                        View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "out", 1).unwrap();
                    parallel_for(
                        "umk_read",
                        RangePolicy::new(&s, 0..1),
                        &mut out,
                        map_read_slot(&map, 3),
                    );
                    s.fence();
                });
                let text = crate::soundness::message(&*payload);
                assert!(
                    text.contains("umk_empty_slot") && text.contains("slot 3"),
                    "{text}"
                );
            }
        }
    };
}

macro_rules! unordered_map_host_only_tests {
    () => {
        // Host-only: closures capture the inserter and the map directly
        // (closures run on host spaces only); `unordered_map_tests!` runs
        // the same rules through `#[kernel]`s on every space.
        mod unordered_map_closures {
            use super::*;
            use granule::containers::{
                InsertStatus, MapError, MapKey, UnorderedMap, UnorderedSet, INVALID_INDEX,
            };
            use std::sync::atomic::{AtomicUsize, Ordering};

            #[test]
            fn concurrent_inserts_of_repeated_keys_succeed_once_per_key() {
                let s = space();
                let (n, repeats) = (500usize, 4usize);
                let mut map = UnorderedMap::<u64, u32, _>::new_on(&s, "um_repeat", 2 * n).unwrap();
                let successes = AtomicUsize::new(0);
                let existing = AtomicUsize::new(0);
                let ins = map.inserter();
                parallel_for(
                    "um_insert",
                    RangePolicy::new(&s, 0..n * repeats),
                    (),
                    |i, ()| {
                        let k = (i % n) as u64;
                        let r = ins.insert(k * 7919, k as u32);
                        match r.status() {
                            InsertStatus::Success => successes.fetch_add(1, Ordering::Relaxed),
                            InsertStatus::Existing => existing.fetch_add(1, Ordering::Relaxed),
                            InsertStatus::Failed => panic!("um_repeat: insert of {k} failed"),
                        };
                        assert_eq!(ins.find(k * 7919), r.index());
                    },
                );
                assert_eq!(successes.into_inner(), n);
                assert_eq!(existing.into_inner(), n * (repeats - 1));
                assert_eq!((map.size(), map.failed_insert()), (n, false));
                for k in 0..n as u64 {
                    assert_eq!(map.get(k * 7919), Some(k as u32), "key {}", k * 7919);
                }
                assert!(!map.exists(1));
                assert_eq!(map.find(1), INVALID_INDEX);
            }

            #[test]
            fn atomic_add_inserts_sum_exactly() {
                let s = space();
                let mut map = UnorderedMap::<i32, u64, _>::new_on(&s, "um_add", 64).unwrap();
                let ins = map.inserter();
                parallel_for("um_add", RangePolicy::new(&s, 0..10_000), (), |i, ()| {
                    assert!(!ins.insert_add(-((i % 37) as i32), i as u64).failed());
                });
                assert_eq!(map.size(), 37);
                for k in 0..37usize {
                    let want: u64 = (k..10_000).step_by(37).map(|i| i as u64).sum();
                    assert_eq!(map.get(-(k as i32)), Some(want));
                }
            }

            #[test]
            fn all_keys_in_one_probe_chain_are_each_found() {
                let s = space();
                let cap = 64;
                let keys = crate::unordered_map::keys_homed_at(5, cap, 48);
                let mut map = UnorderedMap::<u64, u64, _>::new_on(&s, "um_chain", cap).unwrap();
                let ins = map.inserter();
                let keys_ref = &keys;
                parallel_for(
                    "um_chain",
                    RangePolicy::new(&s, 0..keys.len() * 3),
                    (),
                    |i, ()| {
                        let k = keys_ref[i % keys_ref.len()];
                        assert!(!ins.insert(k, k + 1).failed());
                    },
                );
                assert_eq!(map.size(), keys.len());
                // One chain: the slots from the home slot on, contiguous.
                let used: Vec<usize> = (0..cap).filter(|&i| map.valid_at(i)).collect();
                assert_eq!(used, (5..5 + keys.len()).collect::<Vec<_>>());
                for &k in &keys {
                    assert_eq!(k.home_slot(cap), 5);
                    let i = map.find(k);
                    assert_eq!((map.key_at(i), map.value_at(i)), (k, k + 1));
                }
                assert!(!map.exists(keys_homed_at_missing(cap)));
            }

            /// A key homed at slot 5 that was not inserted: its search walks
            /// the whole chain.
            fn keys_homed_at_missing(cap: usize) -> u64 {
                crate::unordered_map::keys_homed_at(5, cap, 49)[48]
            }

            #[test]
            fn a_full_map_fails_inserts_and_keeps_every_entry() {
                let s = space();
                let cap = 100;
                let mut map = UnorderedMap::<u64, u64, _>::new_on(&s, "um_full", cap).unwrap();
                let mut won = View1::<u64>::zeros("won", 3 * cap).unwrap();
                let failed = AtomicUsize::new(0);
                {
                    let ins = map.inserter();
                    parallel_for(
                        "um_full",
                        RangePolicy::new(&s, 0..3 * cap),
                        &mut won,
                        |i, w: &mut u64| {
                            let r = ins.insert(i as u64, 10 * i as u64);
                            if r.failed() {
                                assert_eq!(r.index(), INVALID_INDEX);
                                failed.fetch_add(1, Ordering::Relaxed);
                            } else {
                                assert!(r.success());
                                *w = 1;
                            }
                        },
                    );
                    let winners: Vec<u64> = (0..3 * cap as u64)
                        .filter(|&i| won[i as usize] == 1)
                        .collect();
                    assert_eq!(winners.len(), cap);
                    assert_eq!(failed.load(Ordering::Relaxed), 2 * cap);
                    assert_eq!(map.size(), cap);
                    assert!(map.failed_insert());
                    assert_eq!(map.failed_inserts(), 2 * cap as u64);
                    // Nothing overwritten, nothing lost.
                    for &k in &winners {
                        assert_eq!(map.get(k), Some(10 * k));
                    }
                    // Further inserts of new keys fail; existing keys still answer.
                    assert_eq!(
                        map.try_insert(10_000, 0),
                        Err(MapError::Full {
                            label: "um_full".into(),
                            capacity: cap
                        })
                    );
                    assert!(map.try_insert(winners[0], 0).unwrap().existing());
                    assert_eq!(map.get(winners[0]), Some(10 * winners[0]));
                    // Rehashed larger, every key fits and the old ones keep their values.
                    map.rehash(3 * cap).unwrap();
                    assert!(!map.failed_insert());
                    let ins = map.inserter();
                    parallel_for(
                        "um_refill",
                        RangePolicy::new(&s, 0..3 * cap),
                        (),
                        |i, ()| {
                            assert!(!ins.insert(i as u64, 10 * i as u64).failed());
                        },
                    );
                    assert_eq!(map.size(), 3 * cap);
                    for &k in &winners {
                        assert_eq!(map.get(k), Some(10 * k));
                    }
                }
            }

            #[test]
            fn iteration_visits_exactly_the_entries() {
                let s = space();
                let mut map = UnorderedMap::<u32, f32, _>::new_on(&s, "um_iter", 40).unwrap();
                let ins = map.inserter();
                parallel_for("um_iter", RangePolicy::new(&s, 0..30), (), |i, ()| {
                    ins.insert(3 * i as u32, i as f32);
                });
                let mut seen: Vec<(u32, f32)> = (0..map.capacity())
                    .filter(|&i| map.valid_at(i))
                    .map(|i| (map.key_at(i), map.value_at(i)))
                    .collect();
                seen.sort_by_key(|e| e.0);
                let want: Vec<(u32, f32)> = (0..30).map(|i| (3 * i as u32, i as f32)).collect();
                assert_eq!(seen, want);
                assert_eq!(map.iter().count(), 30);
                assert!(!map.valid_at(40) && !map.valid_at(usize::MAX));
                let empty = (0..40).find(|&i| !map.valid_at(i)).unwrap();
                let e = std::panic::catch_unwind(|| map.key_at(empty)).unwrap_err();
                let text = crate::soundness::message(&*e);
                assert!(
                    text.contains("\"um_iter\"") && text.contains(&format!("slot {empty}")),
                    "{text}"
                );
                map.clear().unwrap();
                assert_eq!((map.size(), map.iter().count(), map.capacity()), (0, 0, 40));
            }

            #[test]
            fn a_set_holds_each_key_once() {
                let s = space();
                let mut set = UnorderedSet::<usize, _>::new_on(&s, "us", 32).unwrap();
                let ins = set.inserter();
                parallel_for("us_insert", RangePolicy::new(&s, 0..1000), (), |i, ()| {
                    ins.insert(i % 25);
                });
                assert_eq!((set.size(), set.failed_insert()), (25, false));
                let mut keys: Vec<usize> = set.iter().collect();
                keys.sort();
                assert_eq!(keys, (0..25).collect::<Vec<_>>());
                set.rehash(25).unwrap();
                assert!(set.exists(24) && !set.exists(25));
                // Below the size, the size is the capacity (Kokkos's rule):
                // rehash(0) compacts instead of failing.
                set.rehash(24).unwrap();
                assert_eq!((set.capacity(), set.size()), (25, 25));
                set.rehash(0).unwrap();
                assert_eq!((set.capacity(), set.size()), (25, 25));
                let mut keys: Vec<usize> = set.iter().collect();
                keys.sort();
                assert_eq!(keys, (0..25).collect::<Vec<_>>());
            }
        }
    };
}
