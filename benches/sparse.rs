//! `spmv` on the Rayon space (2 threads) over a 27-point stencil on an
//! `m³` grid (miniFE's matrix shape: 27 entries per interior row), against
//! baselines measured in the same run: the rayon idiom a user would write
//! for the same product (checked indexing, one running sum per row, the
//! same bits), and a streaming read of the matrix's values and columns
//! alone, which no product of this matrix can beat by much (it moves
//! those bytes, the row map and the vectors, and gathers `x`).
//!
//! `cargo bench -p granule-bench --bench sparse` (`GRANULE_BENCH_GRID=m`
//! for another grid; 100 by default).

// criterion_group! generates undocumented items.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use granule::algorithms::sparse::{spmv, CrsMatrix};
use granule::prelude::*;
use rayon::prelude::*;

const THREADS: usize = 2;

/// The 27-point stencil's structure on an `m³` grid of nodes, with
/// values that depend on the entry.
fn stencil(m: usize) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
    let (mut rows, mut cols, mut vals) = (vec![0], Vec::new(), Vec::new());
    let at = |x: usize, y: usize, z: usize| (z * m + y) * m + x;
    for z in 0..m {
        for y in 0..m {
            for x in 0..m {
                for (dz, dy, dx) in (0..27).map(|d| (d / 9, d / 3 % 3, d % 3)) {
                    let (nx, ny, nz) = (
                        (x + dx).wrapping_sub(1),
                        (y + dy).wrapping_sub(1),
                        (z + dz).wrapping_sub(1),
                    );
                    if nx < m && ny < m && nz < m {
                        cols.push(at(nx, ny, nz) as u32);
                        vals.push(if dx == 1 && dy == 1 && dz == 1 {
                            26.0
                        } else {
                            -1.0
                        });
                    }
                }
                rows.push(cols.len());
            }
        }
    }
    (rows, cols, vals)
}

fn sparse(c: &mut Criterion) {
    let m = std::env::var("GRANULE_BENCH_GRID")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let n = m * m * m;
    let space = Rayon::new(THREADS).expect("space");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .expect("pool");
    let (rows, cols, vals) = stencil(m);
    let nnz = cols.len();
    let a = CrsMatrix::new(
        &space,
        n,
        View1::from_vec("row_map", n + 1, rows.clone()).expect("row map"),
        View1::from_vec("entries", nnz, cols.clone()).expect("entries"),
        View1::from_vec("values", nnz, vals.clone()).expect("values"),
    )
    .expect("a valid matrix");
    let x = View1::<f64>::from_fn("x", n, |i| 1.0 + (i % 7) as f64).expect("x");
    let xs = x.as_slice().expect("contiguous").to_vec();
    let mut y = View1::<f64>::zeros("y", n).expect("y");
    let mut ys = vec![0.0; n];

    let mut g = c.benchmark_group(format!("spmv_27_point_{m}^3"));
    g.sample_size(20);
    g.throughput(Throughput::Elements(nnz as u64));
    g.bench_function("granule_spmv", |b| {
        space.install(|| b.iter(|| spmv(&space, 1.0, &a, &x, 0.0, &mut y).expect("spmv")))
    });
    g.bench_function("rayon_rows_par_iter_mut", |b| {
        pool.install(|| {
            b.iter(|| {
                ys.par_iter_mut().enumerate().for_each(|(i, yi)| {
                    let mut sum = 0.0;
                    for k in rows[i]..rows[i + 1] {
                        sum += vals[k] * xs[cols[k] as usize];
                    }
                    *yi = sum;
                })
            })
        })
    });
    g.bench_function("stream_values_and_columns_2_threads", |b| {
        let chunk = nnz.div_ceil(THREADS);
        pool.install(|| {
            b.iter(|| {
                let parts: Vec<f64> = vals
                    .par_chunks(chunk)
                    .zip(cols.par_chunks(chunk))
                    .map(|(v, c)| {
                        // Eight lanes each, so that the adds keep up with
                        // the loads.
                        let mut sums = [0.0f64; 8];
                        let mut counts = [0u64; 8];
                        for (v, c) in v.chunks_exact(8).zip(c.chunks_exact(8)) {
                            for l in 0..8 {
                                sums[l] += v[l];
                                counts[l] += c[l] as u64;
                            }
                        }
                        sums.iter().sum::<f64>() + counts.iter().sum::<u64>() as f64
                    })
                    .collect();
                black_box(parts)
            })
        })
    });
    g.finish();
    assert_eq!(
        y.as_slice().expect("contiguous"),
        &ys[..],
        "spmv and the rayon idiom agree"
    );
}

criterion_group!(benches, sparse);
criterion_main!(benches);
