//! The containers' Cuda paths counted on the emulator: atomics and
//! global-memory words per element of a ScatterView histogram (atomics, the
//! ScatterView strategy in device memory) and of UnorderedMap inserts, the
//! workloads of `benches/scatter_view.rs` and `benches/unordered_map.rs`
//! scaled to what the emulator runs in seconds (the same bins, the same
//! load factor).
//!
//! `cargo test --features cuda --test container_counts -- --nocapture words_per_element`,
//! and `cargo bench -p granule-bench --features cuda --bench scatter_view` (or
//! `unordered_map`), which include this file and print the same lines
//! before their timings.
//!
//! An emulator of its own counts, whatever `GRANULE_CUDA` says. Words are
//! the emulator's footprint: distinct 4-byte words read plus written, the
//! DRAM traffic of a device whose caches hold the launch's working set
//! (see `granule_cuda::emu::EmuStats`). Emulator times are not GPU times;
//! only the counts mean anything.

#![cfg(feature = "cuda")]

use granule::containers::{MapInserter, ScatterView, UnorderedMap};
use granule::prelude::*;
use granule_cuda::emu::{EmuDevice, EmuStats};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

/// Values in the histogram, keys in the map.
const N: usize = 1 << 20;
/// The histogram's bins, as in the bench.
const BINS: usize = 100;

/// Counts `data[i] mod bins` into the ScatterView.
#[kernel]
fn histogram_k(i: usize, data: &View1<u32>, bins: usize, sv: &ScatterView<u32, 1>) {
    sv.access().add(data[i] as usize % bins, 1);
}

/// Inserts `keys[i]` with value `i`.
#[kernel]
fn insert_k(i: usize, keys: &View1<u64>, ins: &MapInserter<'_, u64, u32>) {
    ins.insert(keys[i], i as u32);
}

/// A Cuda space over a counting emulator, and the counts of what `f`
/// launched on it (the tests of this file take turns).
fn counted<R>(f: impl FnOnce(&granule::Cuda) -> R) -> (R, EmuStats) {
    static SPACE: OnceLock<(Arc<EmuDevice>, granule::Cuda)> = OnceLock::new();
    static TURN: Mutex<()> = Mutex::new(());
    let (emu, cuda) = SPACE.get_or_init(|| {
        let emu = Arc::new(EmuDevice::new().expect("an emulator"));
        (emu.clone(), granule::Cuda::with_device(emu))
    });
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    emu.take_stats();
    let r = f(cuda);
    (r, emu.take_stats())
}

/// Prints the counts per element and returns (atomics, words) per element.
fn report(what: &str, s: &EmuStats, elements: usize) -> (f64, f64) {
    let atomics = s.global_atomics as f64 / elements as f64;
    let words = s.words_per_element(4, elements as u64);
    println!(
        "emulator counts, {what}, {elements} elements: {} launch(es), \
         {atomics:.4} atomics per element, {words:.4} words per element \
         ({} loads, {} stores, {} atomics; footprint {} words read, {} written)",
        s.launches,
        s.global_loads,
        s.global_stores,
        s.global_atomics,
        s.footprint_read_bytes / 4,
        s.footprint_written_bytes / 4,
    );
    (atomics, words)
}

/// The bench's values: a multiplicative scramble of the index.
fn values() -> Vec<u32> {
    (0..N)
        .map(|i| ((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32)
        .collect()
}

/// The bench's keys: xorshift64*.
fn keys() -> Vec<u64> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    (0..N)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            s.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
        .collect()
}

/// Runs the histogram on a counting emulator, checks it, prints its
/// counts and returns (atomics, words) per element.
pub fn histogram_counts() -> (EmuStats, f64, f64) {
    let data = values();
    let (counts, s) = counted(|c| {
        let x =
            View1::<u32, LayoutRight, _>::from_vec_in(c.memory_space(), "data", N, data.clone())
                .expect("data");
        let sv = ScatterView::<u32, 1, Sum, _>::new_on(c, "counts", BINS).expect("scatter view");
        parallel_for(
            "histogram",
            RangePolicy::new(c, 0..N),
            (),
            histogram_k(&x, BINS, &sv),
        );
        let mut counts = View1::<u32, LayoutRight, _>::zeros_in(c.memory_space(), "counts", BINS)
            .expect("counts");
        let mut sv = sv;
        sv.contribute_into(&mut counts).expect("same extents");
        create_mirror_view_and_copy(&counts)
            .expect("mirror")
            .to_vec()
    });
    let mut want = vec![0u32; BINS];
    data.iter().for_each(|&v| want[v as usize % BINS] += 1);
    assert_eq!(counts, want);
    let (atomics, words) = report("ScatterView histogram of u32 into 100 bins", &s, N);
    (s, atomics, words)
}

#[test]
fn scatter_view_histogram_words_per_element() {
    let (s, atomics, words) = histogram_counts();
    // One load of the value and one atomic add per element; the bins are
    // 100 words among 2^20.
    assert_eq!(s.launches, 1);
    assert_eq!(atomics, 1.0);
    assert!((1.0..=1.001).contains(&words), "{words}");
}

/// Runs the inserts on a counting emulator, checks them, prints their
/// counts and returns (atomics, words) per element.
pub fn insert_counts() -> (EmuStats, f64, f64) {
    let keys = keys();
    let distinct = keys.iter().collect::<HashSet<_>>().len();
    let ((size, failed), s) = counted(|c| {
        let k =
            View1::<u64, LayoutRight, _>::from_vec_in(c.memory_space(), "keys", N, keys.clone())
                .expect("keys");
        let mut map = UnorderedMap::<u64, u32, _>::new_on(c, "map", 2 * N).expect("map");
        parallel_for(
            "insert",
            RangePolicy::new(c, 0..N),
            (),
            insert_k(&k, &map.inserter()),
        );
        let host = map.host_mirror().expect("mirror");
        (host.size(), host.failed_inserts())
    });
    assert_eq!((size, failed), (distinct, 0));
    let (atomics, words) = report(
        "UnorderedMap<u64, u32> inserts of random keys at capacity 2N",
        &s,
        N,
    );
    (s, atomics, words)
}

#[test]
fn unordered_map_insert_words_per_element() {
    let (s, atomics, words) = insert_counts();
    // Per new key, four atomics (`unordered_map.cuh`): the compare-and-swap
    // that claims the slot, the value's atomic store (an exchange: later
    // `insert_add`s may add to it), the exchange that publishes the slot,
    // and the entry count, one word every insert hits. Words (atomics count
    // as read and written): the key read (2); the state, read, claimed and
    // published (2); the map's key written (2); the value (2); and the
    // states and keys of the occupied slots a probe walks past at load
    // factor 1/2.
    assert_eq!(s.launches, 1);
    assert!((4.0..=4.01).contains(&atomics), "{atomics}");
    assert!((8.0..=9.5).contains(&words), "{words}");
}
