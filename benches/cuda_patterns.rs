//! Scan and reduce of i32 on the Cuda space, and granule-algorithms'
//! `exclusive_scan`, `copy_if` (two thirds kept), radix `sort` (u32) and,
//! on a GPU at 2^24, the merge sort `sort_by`,
//! beside a device-to-device copy of the same bytes measured in the same
//! run (the bandwidth a memory-bound pattern can reach on that device).
//!
//! `GRANULE_CUDA=gpu cargo bench -p granule-bench --features cuda --bench cuda_patterns`
//! on a GPU (2^24 and 2^28 elements); on the emulator
//! (`GRANULE_CUDA=emulator`, the default here) it runs 2^20 and first
//! prints the emulator's counts per dispatch: launches and global-memory
//! words per element, the figures the tests assert (scan at most 2.1,
//! reduce at most 1.05, one launch each; copy_if one launch of at most
//! 1.05 + 2/3 + 0.1, sort at most 5 launches of 9.5 words). Emulator
//! times are not GPU times; only the counts mean anything there.

// criterion_group! generates undocumented items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use granule::prelude::*;
use granule::{Cuda, CudaSpace};
use granule_cuda::emu::EmuDevice;
use std::sync::Arc;

#[kernel(scan)]
fn prefix_i32(i: usize, x: &View1<i32>, out: &mut i32, p: &mut i32, last: bool) {
    *p += x[i];
    if last {
        *out = *p;
    }
}

/// The compaction's predicate: keeps 0 and 1 of the inputs' -3..=3 when
/// shifted, two thirds of `i % 3`.
#[kernel]
fn below_two(v: i32) -> bool {
    v < 2
}

/// The comparison sort's comparator (u32 keys, ascending).
#[kernel(binary)]
fn ascending(a: u32, b: u32) -> bool {
    a < b
}

#[kernel(reduce)]
fn sum_i32(i: usize, x: &View1<i32>, acc: &mut i32) {
    *acc += x[i];
}

type DView = View1<i32, LayoutRight, CudaSpace>;

/// The space, and the emulator behind it when it is one (for counts).
fn space() -> (Cuda, Option<Arc<EmuDevice>>) {
    match std::env::var("GRANULE_CUDA").as_deref() {
        Ok("emulator") | Err(_) => {
            let emu = Arc::new(EmuDevice::new().expect("the emulator needs g++"));
            (Cuda::with_device(emu.clone()), Some(emu))
        }
        Ok(s) => (Cuda::from_setting(Some(s)).expect("a Cuda space"), None),
    }
}

fn input(s: &Cuda, n: usize) -> (DView, DView) {
    let x = DView::from_fn_in(s.memory_space(), "x", n, |i| (i % 7) as i32 - 3).expect("x");
    let out = DView::zeros_in(s.memory_space(), "out", n).expect("out");
    (x, out)
}

/// Pseudo-random u32 keys (a multiplicative hash of the index).
fn keys(s: &Cuda, n: usize) -> View1<u32, LayoutRight, CudaSpace> {
    let hash = |i: usize| (i as u32).wrapping_mul(2_654_435_761).rotate_left(7);
    View1::from_fn_in(s.memory_space(), "keys", n, hash).expect("keys")
}

fn print_counts(s: &Cuda, emu: &EmuDevice, n: usize) {
    let (x, mut out) = input(s, n);
    emu.take_stats();
    let _: i32 = parallel_scan("scan", RangePolicy::new(s, 0..n), &mut out, prefix_i32(&x));
    let scan = emu.take_stats();
    let _: i32 = parallel_reduce("reduce", RangePolicy::new(s, 0..n), Sum, sum_i32(&x));
    let reduce = emu.take_stats();
    let thirds = DView::from_fn_in(s.memory_space(), "thirds", n, |i| (i % 3) as i32).expect("x");
    let _ = exclusive_scan(s, &x, &mut out, Sum, None).expect("scan");
    let algo_scan = emu.take_stats();
    let _ = copy_if(s, &thirds, &mut out, below_two()).expect("copy_if");
    let algo_copy_if = emu.take_stats();
    let mut keys = keys(s, n);
    emu.take_stats();
    sort(s, &mut keys).expect("sort");
    let algo_sort = emu.take_stats();
    for (what, st) in [
        ("scan of i32", scan),
        ("reduce of i32", reduce),
        ("exclusive_scan of i32", algo_scan),
        ("copy_if of i32 (2/3 kept)", algo_copy_if),
        ("sort of u32 keys", algo_sort),
    ] {
        println!(
            "emulator counts, {what}, 2^{} elements: {} launch(es), {:.4} global words per element",
            n.trailing_zeros(),
            st.launches,
            st.words_per_element(4, n as u64)
        );
    }
}

fn patterns(c: &mut Criterion) {
    let (s, emu) = space();
    let sizes: &[usize] = match emu {
        Some(_) => &[1 << 20],
        None => &[1 << 24, 1 << 28],
    };
    for &n in sizes {
        if let Some(emu) = &emu {
            print_counts(&s, emu, n);
        }
        let (x, mut out) = input(&s, n);
        let mut g = c.benchmark_group(format!("cuda_i32_2^{}", n.trailing_zeros()));
        g.sample_size(10);
        g.throughput(Throughput::Bytes((n * 4) as u64));
        g.bench_function("copy_d2d", |b| {
            b.iter(|| {
                deep_copy(&mut out, &x).expect("copy");
                s.fence();
            })
        });
        g.bench_function("scan", |b| {
            b.iter(|| parallel_scan("scan", RangePolicy::new(&s, 0..n), &mut out, prefix_i32(&x)))
        });
        g.bench_function("reduce", |b| {
            b.iter(|| {
                let r: i32 =
                    parallel_reduce("reduce", RangePolicy::new(&s, 0..n), Sum, sum_i32(&x));
                r
            })
        });
        let thirds =
            DView::from_fn_in(s.memory_space(), "thirds", n, |i| (i % 3) as i32).expect("x");
        g.bench_function("algorithms::exclusive_scan", |b| {
            b.iter(|| exclusive_scan(&s, &x, &mut out, Sum, None).expect("scan"))
        });
        g.bench_function("algorithms::copy_if", |b| {
            b.iter(|| copy_if(&s, &thirds, &mut out, below_two()).expect("copy_if"))
        });
        let unsorted = keys(&s, n);
        let mut k = keys(&s, n);
        g.bench_function("algorithms::sort (with a copy of the keys)", |b| {
            b.iter(|| {
                deep_copy(&mut k, &unsorted).expect("copy");
                sort(&s, &mut k).expect("sort");
                // The last digit pass may still be running: time it too.
                s.fence();
            })
        });
        // The merge sort on a GPU at 2^24 only: its 14 merge rounds at
        // 2^24 are slow on the emulator, and 2^28 would add four more.
        if emu.is_none() && n == 1 << 24 {
            g.bench_function("algorithms::sort_by (with a copy of the keys)", |b| {
                b.iter(|| {
                    deep_copy(&mut k, &unsorted).expect("copy");
                    sort_by(&s, &mut k, ascending()).expect("sort_by");
                    s.fence();
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, patterns);
criterion_main!(benches);
