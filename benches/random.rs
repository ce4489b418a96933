//! `fill_random` of 2^27 f64 on Rayon with 2 threads, against filling the
//! same View with a constant through the same dispatch (the bandwidth
//! bound of a fill: a random fill at the same speed costs its draws
//! nothing). Throughput counts the bytes written.
// criterion's macros generate undocumented items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use granule::containers::random::{fill_random_on, XorShift64Pool};
use granule::prelude::*;
use std::time::Duration;

const N: usize = 1 << 27;

fn fill(c: &mut Criterion) {
    let space = granule::Rayon::new(2).expect("a rayon pool of 2 threads");
    let mut g = c.benchmark_group("fill_f64_2^27");
    g.throughput(Throughput::Bytes((N * std::mem::size_of::<f64>()) as u64));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(8));
    let mut x = View1::<f64>::zeros("x", N).unwrap();
    g.bench_function("constant_rayon2", |b| {
        b.iter(|| {
            parallel_for(
                "const",
                RangePolicy::new(&space, 0..N),
                &mut x,
                |_, v: &mut f64| *v = 0.5,
            )
        })
    });
    let pool = XorShift64Pool::new(&space, 1);
    g.bench_function("fill_random_rayon2", |b| {
        b.iter(|| fill_random_on(&space, &mut x, &pool, 0.0..1.0).unwrap())
    });
    g.finish();
    assert!((0.0..1.0).contains(&x[N - 1]));
}

criterion_group!(benches, fill);
criterion_main!(benches);
