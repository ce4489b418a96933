//! UnorderedMap on the Rayon space (2 threads): 10^6 random u64 keys
//! inserted into, then found in, a map of 2·10^6 slots, against baselines
//! measured in the same run: `dashmap::DashMap` (as it ships: default
//! shards and hasher, pre-sized to the same capacity) driven by a rayon
//! `par_iter` on a pool of the same 2 threads, a sequential
//! `std::collections::HashMap`, and a map of 64 `Mutex<HashMap>` shards.
//! Every map is filled with the same keys; an insert keeps the value of a
//! key already there, as granule's `insert` does. dashmap runs twice: with
//! its default hasher (std's SipHash) and with the 64-bit MurmurHash3
//! finalizer granule's map hashes with, so that the hash is not the
//! difference.
//!
//! `cargo bench -p granule-bench --bench unordered_map` (add `-- --quick` for a sanity run;
//! `GRANULE_BENCH_KEYS` changes the key count).
//!
//! The Cuda emulator's atomics and global-memory words per element of
//! the inserts come from a test:
//! `cargo test --features cuda --test container_counts -- --nocapture words_per_element`
//! (tests/container_counts.rs; the figures are in benches/RESULTS.md); with
//! `--features cuda` this bench prints them first.

// criterion_group! generates undocumented items.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, BatchSize, Criterion, Throughput};
use dashmap::DashMap;
use granule::containers::UnorderedMap;
use granule::prelude::*;
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

const THREADS: usize = 2;
const SHARDS: usize = 64;

fn keys() -> Vec<u64> {
    let n = std::env::var("GRANULE_BENCH_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000usize);
    // xorshift64*: distinct with overwhelming probability, and any repeat
    // is handled the same way by every map.
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            s.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
        .collect()
}

/// The hash of granule's map keys (the 64-bit MurmurHash3 finalizer), as
/// a `Hasher` for dashmap: u64 keys only.
#[derive(Default)]
struct Fmix64(u64);

impl Hasher for Fmix64 {
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
    fn write(&mut self, _bytes: &[u8]) {
        unreachable!("the bench hashes u64 keys only")
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

type DashFmix = DashMap<u64, u32, BuildHasherDefault<Fmix64>>;

/// A locked, sharded map: the key's hash picks the shard.
struct Sharded(Vec<Mutex<HashMap<u64, u32>>>);

impl Sharded {
    fn new(capacity: usize) -> Self {
        Sharded(
            (0..SHARDS)
                .map(|_| Mutex::new(HashMap::with_capacity(capacity / SHARDS)))
                .collect(),
        )
    }
    fn shard(&self, k: u64) -> &Mutex<HashMap<u64, u32>> {
        &self.0[(k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize]
    }
}

fn insert_and_find(c: &mut Criterion) {
    let keys = keys();
    let n = keys.len();
    let cap = 2 * n;
    let space = Rayon::new(THREADS).expect("space");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .expect("pool");
    let ks = &keys;

    let mut g = c.benchmark_group(format!("unordered_map_insert_{n}"));
    g.sample_size(10);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("granule_rayon", |b| {
        b.iter_batched_ref(
            || UnorderedMap::<u64, u32>::new_in(HostSpace, "m", cap).expect("map"),
            |map| {
                let ins = map.inserter();
                parallel_for("insert", RangePolicy::new(&space, 0..n), (), |i, ()| {
                    ins.insert(ks[i], i as u32);
                });
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("dashmap_rayon", |b| {
        b.iter_batched_ref(
            || DashMap::<u64, u32>::with_capacity(cap),
            |m| {
                pool.install(|| {
                    ks.par_iter().enumerate().for_each(|(i, &k)| {
                        m.entry(k).or_insert(i as u32);
                    })
                })
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("dashmap_fmix64_rayon", |b| {
        b.iter_batched_ref(
            || DashFmix::with_capacity_and_hasher(cap, Default::default()),
            |m| {
                pool.install(|| {
                    ks.par_iter().enumerate().for_each(|(i, &k)| {
                        m.entry(k).or_insert(i as u32);
                    })
                })
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("sharded_mutex_hashmap_rayon", |b| {
        b.iter_batched_ref(
            || Sharded::new(cap),
            |m| {
                pool.install(|| {
                    ks.par_iter().enumerate().for_each(|(i, &k)| {
                        m.shard(k)
                            .lock()
                            .expect("shard")
                            .entry(k)
                            .or_insert(i as u32);
                    })
                })
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("std_hashmap_sequential", |b| {
        b.iter_batched_ref(
            || HashMap::<u64, u32>::with_capacity(cap),
            |m| {
                for (i, &k) in ks.iter().enumerate() {
                    m.entry(k).or_insert(i as u32);
                }
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();

    let mut map = UnorderedMap::<u64, u32>::new_in(HostSpace, "m", cap).expect("map");
    let ins = map.inserter();
    parallel_for("fill", RangePolicy::new(&space, 0..n), (), |i, ()| {
        ins.insert(ks[i], i as u32);
    });
    let sharded = Sharded::new(cap);
    let dash = DashMap::with_capacity(cap);
    let dash_fmix = DashFmix::with_capacity_and_hasher(cap, Default::default());
    let mut std_map = HashMap::with_capacity(cap);
    for (i, &k) in ks.iter().enumerate() {
        sharded.shard(k).lock().expect("shard").insert(k, i as u32);
        dash.entry(k).or_insert(i as u32);
        dash_fmix.entry(k).or_insert(i as u32);
        std_map.insert(k, i as u32);
    }
    let mut g = c.benchmark_group(format!("unordered_map_find_{n}"));
    g.sample_size(10);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("granule_rayon", |b| {
        b.iter(|| -> usize {
            parallel_reduce(
                "find",
                RangePolicy::new(&space, 0..n),
                Sum,
                |i, acc: &mut usize| {
                    *acc += map.find(ks[i]);
                },
            )
        })
    });
    g.bench_function("dashmap_rayon", |b| {
        b.iter(|| {
            pool.install(|| {
                ks.par_iter()
                    .map(|k| *dash.get(k).expect("found") as usize)
                    .sum::<usize>()
            })
        })
    });
    g.bench_function("dashmap_fmix64_rayon", |b| {
        b.iter(|| {
            pool.install(|| {
                ks.par_iter()
                    .map(|k| *dash_fmix.get(k).expect("found") as usize)
                    .sum::<usize>()
            })
        })
    });
    g.bench_function("sharded_mutex_hashmap_rayon", |b| {
        b.iter(|| {
            pool.install(|| {
                ks.par_iter()
                    .map(|&k| {
                        *sharded
                            .shard(k)
                            .lock()
                            .expect("shard")
                            .get(&k)
                            .expect("found") as usize
                    })
                    .sum::<usize>()
            })
        })
    });
    g.bench_function("std_hashmap_sequential", |b| {
        b.iter(|| {
            black_box(ks)
                .iter()
                .map(|k| std_map[k] as usize)
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, insert_and_find);

#[cfg(feature = "cuda")]
#[allow(dead_code)]
#[path = "../tests/container_counts.rs"]
mod counts;

fn main() {
    // The emulator's counts of the same workload on Cuda, before the times.
    #[cfg(feature = "cuda")]
    counts::insert_counts();
    #[cfg(not(feature = "cuda"))]
    println!("emulator counts: run this bench with --features cuda to print them");
    benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
}
