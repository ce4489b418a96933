//! Element-wise copy through View indexing against the same loop over
//! plain `Vec`s (the baseline) and over unchecked slices (what bounds
//! checks cost), 2^24 f64. Throughput counts bytes read plus written.
// criterion's macros generate undocumented items.
#![allow(missing_docs)]
// The element-wise loops are what is measured; memcpy would defeat the point.
#![allow(clippy::manual_memcpy, clippy::needless_range_loop)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use granule::prelude::*;

const N: usize = 1 << 24;

fn copy(c: &mut Criterion) {
    let mut g = c.benchmark_group("copy_f64_2^24");
    g.throughput(Throughput::Bytes(
        (2 * N * std::mem::size_of::<f64>()) as u64,
    ));
    g.sample_size(20);

    let src_vec: Vec<f64> = (0..N).map(|i| i as f64).collect();
    let mut dst_vec = vec![0.0f64; N];
    g.bench_function("vec_index_loop", |b| {
        b.iter(|| {
            let (s, d) = (black_box(&src_vec), &mut dst_vec);
            for i in 0..s.len() {
                d[i] = s[i];
            }
        })
    });

    g.bench_function("vec_unchecked_loop", |b| {
        b.iter(|| {
            let (s, d) = (black_box(&src_vec), &mut dst_vec);
            for i in 0..s.len() {
                // SAFETY: both vectors have N elements and i < N.
                unsafe { *d.get_unchecked_mut(i) = *s.get_unchecked(i) };
            }
        })
    });

    let src = View1::<f64>::from_fn("src", N, |i| i as f64).unwrap();
    let mut dst = View1::<f64>::zeros("dst", N).unwrap();
    g.bench_function("view1_index_loop", |b| {
        b.iter(|| {
            let s = black_box(&src);
            for i in 0..s.extent(0) {
                dst[i] = s[i];
            }
        })
    });

    let src2 = View2::<f64>::from_fn("src2", [1 << 12, 1 << 12], |[i, j]| (i + j) as f64).unwrap();
    let mut dst2 = View2::<f64>::zeros("dst2", [1 << 12, 1 << 12]).unwrap();
    g.bench_function("view2_index_loop", |b| {
        b.iter(|| {
            let s = black_box(&src2);
            for i in 0..s.extent(0) {
                for j in 0..s.extent(1) {
                    dst2[[i, j]] = s[[i, j]];
                }
            }
        })
    });
    g.finish();
    assert_eq!(dst_vec[N - 1], (N - 1) as f64);
    assert_eq!(dst[N - 1], (N - 1) as f64);
    assert_eq!(dst2[[4095, 4095]], 8190.0);
}

criterion_group!(benches, copy);
criterion_main!(benches);
