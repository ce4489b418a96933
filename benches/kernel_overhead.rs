//! A `#[kernel]` costs what the same closure costs: the generated functor
//! calls the Rust body through `#[inline(always)]` static dispatch. Each
//! group runs one computation as a kernel, as a closure, and as a plain
//! loop over slices (the baseline), on the Serial space, so the ratios are
//! not blurred by thread scheduling.
//!
//! `cargo bench -p granule-bench --bench kernel_overhead` (add `-- --quick` for a sanity run).

// criterion_group! generates undocumented items; axpy is written as
// Kokkos users write it, `y = a*x + y`.
#![allow(missing_docs, clippy::assign_op_pattern)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use granule::prelude::*;

/// In L2-to-L3 territory, where a scalar loop would show against a
/// vectorized one.
const N: usize = 1 << 18;

#[kernel]
fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y = a * x[i] + *y;
}

#[kernel(reduce)]
fn dot(i: usize, acc: &mut i64, x: &View1<i64>, y: &View1<i64>) {
    *acc += x[i] * y[i];
}

#[inline(never)]
fn axpy_loop(y: &mut [f64], a: f64, x: &[f64]) {
    for (y, x) in y.iter_mut().zip(x) {
        *y = a * x + *y;
    }
}

#[inline(never)]
fn dot_loop(x: &[i64], y: &[i64]) -> i64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

fn axpy_group(c: &mut Criterion) {
    let x = View1::<f64>::from_fn("x", N, |i| i as f64).expect("x");
    let mut y = View1::<f64>::from_fn("y", N, |i| (i % 3) as f64).expect("y");
    let mut g = c.benchmark_group("axpy_f64_2^18_serial");
    g.throughput(Throughput::Bytes((N * 24) as u64));
    g.bench_function("kernel", |b| {
        b.iter(|| {
            parallel_for(
                "axpy",
                RangePolicy::new(&Serial, 0..N),
                &mut y,
                axpy(black_box(0.5), &x),
            )
        })
    });
    g.bench_function("closure", |b| {
        b.iter(|| {
            let a = black_box(0.5);
            parallel_for(
                "axpy",
                RangePolicy::new(&Serial, 0..N),
                &mut y,
                |i, y: &mut f64| *y = a * x[i] + *y,
            )
        })
    });
    let (xs, mut ys) = (x.to_vec(), y.to_vec());
    g.bench_function("slice_loop", |b| {
        b.iter(|| axpy_loop(&mut ys, black_box(0.5), &xs))
    });
    g.finish();
}

fn dot_group(c: &mut Criterion) {
    let x = View1::<i64>::from_fn("x", N, |i| (i % 7) as i64).expect("x");
    let y = View1::<i64>::from_fn("y", N, |i| (i % 5) as i64).expect("y");
    let mut g = c.benchmark_group("dot_i64_2^18_serial");
    g.throughput(Throughput::Bytes((N * 16) as u64));
    g.bench_function("kernel", |b| {
        b.iter(|| -> i64 {
            parallel_reduce("dot", RangePolicy::new(&Serial, 0..N), Sum, dot(&x, &y))
        })
    });
    g.bench_function("closure", |b| {
        b.iter(|| -> i64 {
            parallel_reduce(
                "dot",
                RangePolicy::new(&Serial, 0..N),
                Sum,
                |i, acc: &mut i64| *acc += x[i] * y[i],
            )
        })
    });
    let (xs, ys) = (x.to_vec(), y.to_vec());
    g.bench_function("slice_loop", |b| b.iter(|| dot_loop(black_box(&xs), &ys)));
    g.finish();
}

criterion_group!(benches, axpy_group, dot_group);
criterion_main!(benches);
