//! Element-wise copy through View indexing against the same loop over
//! plain `Vec`s (the baseline) and over unchecked slices (what bounds
//! checks cost), 2^24 f64. Throughput counts bytes read plus written.
// criterion's macros generate undocumented items.
#![allow(missing_docs)]
// The element-wise loops are what is measured; memcpy would defeat the point.
#![allow(clippy::manual_memcpy, clippy::needless_range_loop, clippy::ptr_arg)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use granule::prelude::*;

const N: usize = 1 << 24;

// Each variant is a function taking its arrays as reference arguments, as
// kernels usually do. Inside a criterion closure the arrays would be
// reached through captured pointers that the compiler knows nothing about,
// so it would reload a Vec's or View's data pointer after every store;
// argument references carry the no-alias facts for both sides equally.

#[inline(never)]
fn copy_vec_index(dst: &mut Vec<f64>, src: &Vec<f64>) {
    for i in 0..src.len() {
        dst[i] = src[i];
    }
}

#[inline(never)]
fn copy_vec_unchecked(dst: &mut Vec<f64>, src: &Vec<f64>) {
    assert_eq!(dst.len(), src.len());
    for i in 0..src.len() {
        // SAFETY: both vectors have src.len() elements and i < src.len().
        unsafe { *dst.get_unchecked_mut(i) = *src.get_unchecked(i) };
    }
}

#[inline(never)]
fn copy_view1(dst: &mut View1<f64>, src: &View1<f64>) {
    for i in 0..src.extent(0) {
        dst[i] = src[i];
    }
}

#[inline(never)]
fn copy_view2(dst: &mut View2<f64>, src: &View2<f64>) {
    for i in 0..src.extent(0) {
        for j in 0..src.extent(1) {
            dst[[i, j]] = src[[i, j]];
        }
    }
}

fn copy(c: &mut Criterion) {
    let mut g = c.benchmark_group("copy_f64_2^24");
    g.throughput(Throughput::Bytes(
        (2 * N * std::mem::size_of::<f64>()) as u64,
    ));
    g.sample_size(20);

    let src_vec: Vec<f64> = (0..N).map(|i| i as f64).collect();
    let mut dst_vec = vec![0.0f64; N];
    g.bench_function("vec_index_loop", |b| {
        b.iter(|| copy_vec_index(&mut dst_vec, black_box(&src_vec)))
    });
    g.bench_function("vec_unchecked_loop", |b| {
        b.iter(|| copy_vec_unchecked(&mut dst_vec, black_box(&src_vec)))
    });

    let src = View1::<f64>::from_fn("src", N, |i| i as f64).unwrap();
    let mut dst = View1::<f64>::zeros("dst", N).unwrap();
    g.bench_function("view1_index_loop", |b| {
        b.iter(|| copy_view1(&mut dst, black_box(&src)))
    });

    let src2 = View2::<f64>::from_fn("src2", [1 << 12, 1 << 12], |[i, j]| (i + j) as f64).unwrap();
    let mut dst2 = View2::<f64>::zeros("dst2", [1 << 12, 1 << 12]).unwrap();
    g.bench_function("view2_index_loop", |b| {
        b.iter(|| copy_view2(&mut dst2, black_box(&src2)))
    });
    g.finish();
    assert_eq!(dst_vec[N - 1], (N - 1) as f64);
    assert_eq!(dst[N - 1], (N - 1) as f64);
    assert_eq!(dst2[[4095, 4095]], 8190.0);
}

criterion_group!(benches, copy);
criterion_main!(benches);
