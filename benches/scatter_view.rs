//! A histogram of 10^7 u32 values into 100 bins on the Rayon space with 2
//! threads: a ScatterView (per-thread copies, combined by
//! `contribute_into`) against an atomic View (one shared counter array)
//! and against the hand-written rayon idiom, a fold of per-thread
//! histograms, measured in the same run. Each variant starts from zeroed
//! counts and ends with the finished histogram, checked against a
//! sequential count. Two more ScatterView variants: the ScatterView as the
//! dispatch's written argument (each work item gets the handle, which the
//! dispatch finds once per chunk), and one `access()` per chunk of values
//! written by hand, and both again through the fixed-extent handle
//! (`ScatterAccess::fixed`). And one without a ScatterView: a local histogram per
//! chunk, added to the atomic View per bin.
//!
//! `cargo bench -p granule-bench --bench scatter_view` (add `-- --quick` for a sanity run).
//!
//! The Cuda emulator's atomics and global-memory words per element of
//! the histogram (ScatterView on Cuda: atomics) come from a test:
//! `cargo test --features cuda --test container_counts -- --nocapture words_per_element`
//! (tests/container_counts.rs; the figures are in benches/RESULTS.md); with
//! `--features cuda` this bench prints them first.

// criterion_group! generates undocumented items.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, Criterion, Throughput};
use granule::containers::scatter::{ScatterAccess, ScatterView};
use granule::prelude::*;
use rayon::prelude::*;

const THREADS: usize = 2;
const N: usize = 10_000_000;
const BINS: usize = 100;
/// Values per work item in `scatter_view_access_per_chunk` (divides N).
const CHUNK: usize = 10_000;

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

    let mut g = c.benchmark_group("histogram_1e7_u32_100_bins");
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

    // Each ScatterView variant starts from zeroed counts and contributions,
    // runs its dispatch, and combines into the counts, which are checked.
    let mut sv = ScatterView::<u32, 1>::for_view(&space, &counts).expect("scatter view");
    let mut scatter = |name: &str, dispatch: &dyn Fn(&ScatterView<u32, 1>)| {
        g.bench_function(name, |b| {
            b.iter(|| {
                counts.fill(0);
                sv.reset().expect("host memory");
                dispatch(&sv);
                sv.contribute_into(&mut counts).expect("same extents");
                black_box(&counts);
            });
            assert_eq!(counts.to_vec(), want);
        });
    };

    scatter("scatter_view", &|sv| {
        parallel_for(
            "scatter",
            RangePolicy::new(&space, 0..N),
            (),
            |i: usize, (): ()| {
                sv.access().add(data[i] as usize % BINS, 1);
            },
        );
    });

    // The ScatterView as the dispatch's written argument: still one
    // contribution per work item, but the handle comes from the dispatch,
    // found once per chunk a thread runs.
    scatter("scatter_view_written_argument", &|sv| {
        parallel_for(
            "scatter",
            RangePolicy::new(&space, 0..N),
            sv,
            |i: usize, a: ScatterAccess<'_, u32, 1>| {
                a.add(data[i] as usize % BINS, 1);
            },
        );
    });

    // The same ScatterView with one `access()` per chunk of 10^4 values
    // instead of one per value: how much of the gap to the rayon fold is
    // the per-item dispatch and handle lookup rather than the copies.
    scatter("scatter_view_access_per_chunk", &|sv| {
        parallel_for(
            "scatter",
            RangePolicy::new(&space, 0..N / CHUNK),
            (),
            |c: usize, (): ()| {
                let a = sv.access();
                for &v in &slice[c * CHUNK..(c + 1) * CHUNK] {
                    a.add(v as usize % BINS, 1);
                }
            },
        );
    });

    // The written argument with the fixed-extent handle: the extent is
    // checked once per work item, against a constant, and `v % BINS`
    // needs no check.
    scatter("scatter_view_written_argument_fixed", &|sv| {
        parallel_for(
            "scatter",
            RangePolicy::new(&space, 0..N),
            sv,
            |i: usize, a: ScatterAccess<'_, u32, 1>| {
                a.fixed::<BINS>().add(data[i] as usize % BINS, 1);
            },
        );
    });

    // One fixed-extent handle per chunk of 10^4 values.
    scatter("scatter_view_fixed_per_chunk", &|sv| {
        parallel_for(
            "scatter",
            RangePolicy::new(&space, 0..N / CHUNK),
            (),
            |c: usize, (): ()| {
                let a = sv.access().fixed::<BINS>();
                for &v in &slice[c * CHUNK..(c + 1) * CHUNK] {
                    a.add(v as usize % BINS, 1);
                }
            },
        );
    });

    // No ScatterView: per chunk, a local histogram of BINS counters (whose
    // length the compiler knows, so it drops the bounds check), added to
    // the atomic View once per bin. The same dispatch and inner loop as
    // `scatter_view_access_per_chunk` without the copy's bounds check,
    // which in that loop (unrolled twice) costs about half again.
    g.bench_function("local_histograms_per_chunk", |b| {
        b.iter(|| {
            counts.fill(0);
            let a = counts.atomic().expect("aligned");
            parallel_for(
                "local",
                RangePolicy::new(&space, 0..N / CHUNK),
                (),
                |c: usize, (): ()| {
                    let mut h = [0u32; BINS];
                    for &v in &slice[c * CHUNK..(c + 1) * CHUNK] {
                        h[v as usize % BINS] += 1;
                    }
                    for (bin, &n) in h.iter().enumerate() {
                        a.add(bin, n);
                    }
                },
            );
            black_box(&counts);
        });
        assert_eq!(counts.to_vec(), want);
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

#[cfg(feature = "cuda")]
#[allow(dead_code)]
#[path = "../tests/container_counts.rs"]
mod counts;

fn main() {
    // The emulator's counts of the same workload on Cuda, before the times.
    #[cfg(feature = "cuda")]
    counts::histogram_counts();
    #[cfg(not(feature = "cuda"))]
    println!("emulator counts: run this bench with --features cuda to print them");
    benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
}
