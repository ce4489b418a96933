//! Per-token partial histograms (kokkos-tutorials' UniqueToken idiom) of
//! 10^7 u32 values into 100 bins on the Rayon space with 2 threads, in
//! one run: each work item acquires an id and counts into row `id`, then
//! the rows are added up. Measured against an atomic View (one shared
//! counter array) and the hand-written rayon fold of per-thread
//! histograms. The token variants pay an acquire and a release per
//! element, as the Kokkos idiom does: `token_rows` writes its row through
//! the guard (plain stores), `token_atomic_rows` is the portable kernel's
//! form (an uncontended atomic add into row `id`). Each variant ends with
//! the finished histogram, checked against a sequential count.
//!
//! `cargo bench -p granule-bench --bench unique_token` (add `-- --quick` for a sanity run).

// criterion_group! generates undocumented items.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use granule::containers::UniqueToken;
use granule::prelude::*;
use rayon::prelude::*;

const THREADS: usize = 2;
const N: usize = 10_000_000;
const BINS: usize = 100;

/// Row sums of a `[tokens, BINS]` partial histogram.
fn combine(partial: &View2<u32>) -> Vec<u32> {
    let mut out = vec![0u32; BINS];
    for (k, v) in partial.to_vec().into_iter().enumerate() {
        out[k % BINS] += v;
    }
    out
}

fn histogram(c: &mut Criterion) {
    let space = Rayon::new(THREADS).expect("space");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .expect("pool");
    let data = View1::<u32>::from_fn("data", N, |i| {
        ((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
    })
    .expect("data");
    let slice = data.as_slice().expect("contiguous");
    let mut want = vec![0u32; BINS];
    slice.iter().for_each(|&v| want[v as usize % BINS] += 1);

    let mut g = c.benchmark_group("token_histogram_1e7_u32_100_bins");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N as u64));

    let mut counts = View1::<u32>::zeros("counts", BINS).expect("counts");
    g.bench_function("atomic_view", |b| {
        b.iter(|| {
            counts.fill(0);
            let a = counts.atomic().expect("aligned");
            parallel_for(
                "atomic",
                RangePolicy::new(&space, 0..N),
                (),
                |i: usize, (): ()| {
                    a.add(data[i] as usize % BINS, 1);
                },
            );
            black_box(&counts);
        });
        assert_eq!(counts.to_vec(), want);
    });

    let mut token = UniqueToken::new_on(&space).expect("token");
    let mut partial = View2::<u32>::zeros("partial", [token.size(), BINS]).expect("partial");
    g.bench_function("token_rows", |b| {
        let mut got = Vec::new();
        b.iter(|| {
            partial.fill(0);
            let rows = token.rows(&mut partial).expect("a row per id");
            parallel_for(
                "rows",
                RangePolicy::new(&space, 0..N),
                (),
                |i: usize, (): ()| {
                    rows.acquire().row_mut()[data[i] as usize % BINS] += 1;
                },
            );
            got = combine(&partial);
            black_box(&got);
        });
        assert_eq!(got, want);
    });

    g.bench_function("token_atomic_rows", |b| {
        let mut got = Vec::new();
        b.iter(|| {
            partial.fill(0);
            let a = partial.atomic().expect("aligned");
            let t = &token;
            parallel_for(
                "raw",
                RangePolicy::new(&space, 0..N),
                (),
                |i: usize, (): ()| {
                    let id = t.acquire();
                    a.add([id, data[i] as usize % BINS], 1);
                    t.release(id);
                },
            );
            got = combine(&partial);
            black_box(&got);
        });
        assert_eq!(got, want);
    });

    g.bench_function("rayon_fold_per_thread_histograms", |b| {
        let mut got = vec![0u32; BINS];
        b.iter(|| {
            got = pool.install(|| {
                slice
                    .par_iter()
                    .fold(
                        || vec![0u32; BINS],
                        |mut h, &v| {
                            h[v as usize % BINS] += 1;
                            h
                        },
                    )
                    .reduce(
                        || vec![0u32; BINS],
                        |mut a, b| {
                            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                            a
                        },
                    )
            });
            black_box(&got);
        });
        assert_eq!(got, want);
    });
    g.finish();
}

criterion_group!(benches, histogram);
criterion_main!(benches);
