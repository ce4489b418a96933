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

macro_rules! unordered_map_host_only_tests {
    () => {
        // Host-only: the inserts run in closures, since a map handle is not
        // yet a `#[kernel]` parameter type (so not yet on Cuda).
        mod unordered_map {
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
                assert!(set.rehash(24).is_err());
            }
        }
    };
}
