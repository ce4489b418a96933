//! granule-core patterns on the Rayon space (2 threads) against their
//! baselines, measured in the same run: sequential loops and rayon idioms.
//! Throughput is reported in bytes, so criterion prints GB/s.
//!
//! `cargo bench -p granule-bench --bench core_patterns` (add `-- --quick` for a sanity run).

// criterion_group! generates undocumented items.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use granule::base::exec::SCAN_BLOCK_ELEMS;
use granule::prelude::*;
use rayon::prelude::*;

const THREADS: usize = 2;

fn n_from_env(default_log2: u32) -> usize {
    let log2 = std::env::var("GRANULE_BENCH_LOG2")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_log2);
    1 << log2
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .expect("pool")
}

fn reduce_sum(c: &mut Criterion) {
    let n = n_from_env(27);
    let space = Rayon::new(THREADS).expect("space");
    let pool = pool();
    let x = View1::<f64>::from_fn("x", n, |i| (i % 1000) as f64 * 0.5).expect("x");
    let xs = x.as_slice().expect("contiguous");
    let mut g = c.benchmark_group(format!("reduce_sum_f64_2^{}", n.trailing_zeros()));
    g.sample_size(10);
    g.throughput(Throughput::Bytes((n * 8) as u64));
    g.bench_function("granule_parallel_reduce", |b| {
        b.iter(|| -> f64 {
            parallel_reduce(
                "sum",
                RangePolicy::new(&space, 0..n),
                Sum,
                |i, acc: &mut f64| *acc += x[i],
            )
        })
    });
    g.bench_function("sequential_iter_sum", |b| {
        b.iter(|| black_box(xs).iter().sum::<f64>())
    });
    g.bench_function("rayon_par_iter_sum", |b| {
        b.iter(|| pool.install(|| black_box(xs).par_iter().sum::<f64>()))
    });
    g.finish();
}

fn scan_exclusive(c: &mut Criterion) {
    let space = Rayon::new(THREADS).expect("space");
    let pool = pool();
    for log2 in [20, n_from_env(27).trailing_zeros()] {
        let n = 1usize << log2;
        let a = View1::<i64>::from_fn("a", n, |i| (i % 7) as i64).expect("a");
        let mut out = View1::<i64>::zeros("out", n).expect("out");
        let mut g = c.benchmark_group(format!("scan_exclusive_i64_2^{log2}"));
        if log2 > 20 {
            g.sample_size(10);
        }
        g.throughput(Throughput::Bytes((n * 16) as u64));
        g.bench_function("granule_parallel_scan", |b| {
            b.iter(|| -> i64 {
                parallel_scan(
                    "scan",
                    RangePolicy::new(&space, 0..n),
                    &mut out,
                    |i, o: &mut i64, p: &mut i64, last: bool| {
                        let v = a[i];
                        if last {
                            *o = *p;
                        }
                        *p += v;
                    },
                )
            })
        });
        let (src, dst) = (a.as_slice().expect("a"), &mut vec![0i64; n]);
        g.bench_function("sequential_scan_loop", |b| {
            b.iter(|| {
                let mut acc = 0i64;
                for (o, &v) in dst.iter_mut().zip(black_box(src)) {
                    *o = acc;
                    acc += v;
                }
                acc
            })
        });
        // The ceiling of any 2-thread scan: each thread scans its own half
        // independently (the halves are not chained, so this is not a
        // scan of the whole array, only its minimum work and traffic). If
        // this is not 1.5x (1.8x) the sequential loop, neither can a scan be.
        let half = n.div_ceil(THREADS);
        g.bench_function("bound_independent_halves_2_threads", |b| {
            b.iter(|| {
                pool.install(|| {
                    dst.par_chunks_mut(half)
                        .zip(black_box(src).par_chunks(half))
                        .map(|(d, s)| {
                            let mut acc = 0i64;
                            for (o, &v) in d.iter_mut().zip(s) {
                                *o = acc;
                                acc += v;
                            }
                            acc
                        })
                        .sum::<i64>()
                })
            })
        });
        // The ceiling of a deterministic scan under the Kokkos contract on
        // 2 threads: every block takes an aggregate pass (non-final calls,
        // from the identity, so the bits do not depend on the thread count)
        // and a final pass, here with perfect load balance and no chaining
        // between blocks. Whatever granule's scan achieves, it cannot beat
        // this, so its figures are read against it.
        g.bench_function("bound_two_pass_blocks_2_threads", |b| {
            b.iter(|| {
                pool.install(|| {
                    dst.par_chunks_mut(SCAN_BLOCK_ELEMS)
                        .zip(black_box(src).par_chunks(SCAN_BLOCK_ELEMS))
                        .map(|(d, s)| {
                            let mut acc = black_box(s.iter().sum::<i64>());
                            for (o, &v) in d.iter_mut().zip(s) {
                                *o = acc;
                                acc += v;
                            }
                            acc
                        })
                        .sum::<i64>()
                })
            })
        });
        g.finish();
    }
}

fn axpy(c: &mut Criterion) {
    let n = n_from_env(27);
    let space = Rayon::new(THREADS).expect("space");
    let pool = pool();
    let a = 1.5;
    let x = View1::<f64>::from_fn("x", n, |i| i as f64).expect("x");
    let mut y = View1::<f64>::from_fn("y", n, |i| (i % 3) as f64).expect("y");
    let mut g = c.benchmark_group(format!("axpy_f64_2^{}", n.trailing_zeros()));
    g.sample_size(10);
    g.throughput(Throughput::Bytes((n * 24) as u64));
    g.bench_function("granule_parallel_for", |b| {
        b.iter(|| {
            parallel_for(
                "axpy",
                RangePolicy::new(&space, 0..n),
                &mut y,
                |i, yi: &mut f64| *yi += a * x[i],
            )
        })
    });
    let xs = x.as_slice().expect("x").to_vec();
    let ys = y.as_mut_slice().expect("y");
    let chunk = n.div_ceil(THREADS);
    g.bench_function("rayon_par_chunks_mut", |b| {
        b.iter(|| {
            pool.install(|| {
                ys.par_chunks_mut(chunk)
                    .zip(xs.par_chunks(chunk))
                    .for_each(|(yc, xc)| {
                        for (yi, xi) in yc.iter_mut().zip(xc) {
                            *yi += a * xi;
                        }
                    })
            })
        })
    });
    g.finish();
}

fn dispatch_overhead(c: &mut Criterion) {
    let space = Rayon::new(THREADS).expect("space");
    let mut y = View1::<f64>::zeros("y", 1).expect("y");
    let mut g = c.benchmark_group("dispatch_overhead");
    g.bench_function("empty_parallel_for_1_element", |b| {
        b.iter(|| {
            parallel_for(
                "empty",
                RangePolicy::new(&space, 0..1),
                &mut y,
                |_, yi: &mut f64| *black_box(yi) += 0.0,
            )
        })
    });
    g.bench_function("baseline_direct_call", |b| {
        b.iter(|| *black_box(&mut y[0]) += 0.0)
    });
    g.finish();
}

/// A read-only streaming sum with eight independent accumulators: as fast
/// as the memory system lets one thread read.
fn sum8(x: &[f64]) -> f64 {
    let mut a = [0.0f64; 8];
    let chunks = x.chunks_exact(8);
    let tail: f64 = chunks.remainder().iter().sum();
    for c in chunks {
        for k in 0..8 {
            a[k] += c[k];
        }
    }
    a.iter().sum::<f64>() + tail
}

/// What the memory system gives: reading 2^27 f64 (the traffic of the
/// reduction) with one and two threads ([`sum8`]), and copying 2^27 i64 (the traffic of the
/// scan: read 8 bytes, write 8 bytes per element) with one thread
/// (`copy_from_slice`, i.e. memcpy) and with two (`par_chunks_mut` halves
/// in the same 2-thread pool). The ratio bounds what any 2-thread
/// streaming kernel can gain over a 1-thread one on this machine.
fn bandwidth(c: &mut Criterion) {
    let n = n_from_env(27);
    let pool = pool();
    let src: Vec<i64> = (0..n as i64).collect();
    let mut dst = vec![0i64; n];
    let xs: Vec<f64> = (0..n).map(|i| (i % 1000) as f64).collect();
    let mut g = c.benchmark_group(format!("bandwidth_read_f64_2^{}", n.trailing_zeros()));
    g.throughput(Throughput::Bytes((n * 8) as u64));
    g.sample_size(10);
    g.bench_function("sum8_1_thread", |b| b.iter(|| sum8(black_box(&xs))));
    let half = n.div_ceil(THREADS);
    g.bench_function("sum8_2_threads", |b| {
        b.iter(|| {
            pool.install(|| {
                black_box(&xs)
                    .par_chunks(half)
                    .map(sum8)
                    .collect::<Vec<_>>()
            })
        })
    });
    g.finish();
    let mut g = c.benchmark_group(format!("bandwidth_copy_i64_2^{}", n.trailing_zeros()));
    g.sample_size(10);
    g.throughput(Throughput::Bytes((n * 16) as u64));
    g.bench_function("memcpy_1_thread", |b| {
        b.iter(|| dst.copy_from_slice(black_box(&src)))
    });
    let chunk = half;
    g.bench_function("par_chunks_mut_copy_2_threads", |b| {
        b.iter(|| {
            pool.install(|| {
                dst.par_chunks_mut(chunk)
                    .zip(black_box(&src).par_chunks(chunk))
                    .for_each(|(d, s)| d.copy_from_slice(s))
            })
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    reduce_sum,
    scan_exclusive,
    axpy,
    dispatch_overhead,
    bandwidth
);
criterion_main!(benches);
