//! yᵀAx (the kokkos-tutorials exercises 01–04) on the Rayon space with 2
//! threads: a RangePolicy over the rows with the columns summed inside,
//! a TeamPolicy with the columns split among a team's threads, and the
//! same loop as a hand-written rayon reduction over the rows (the bound a
//! granule dispatch should reach), measured in the same run.
//!
//! `cargo bench -p granule-bench --bench yax` (add `-- --quick` for a sanity run).

// criterion_group! generates undocumented items.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use granule::prelude::*;
use rayon::prelude::*;

const THREADS: usize = 2;

fn yax(c: &mut Criterion) {
    let space = Rayon::new(THREADS).expect("space");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .expect("pool");
    for side in [1024usize, 8192] {
        let (n, m) = (side, side);
        let y = View1::<f64>::from_fn("y", n, |j| (j % 5 + 1) as f64).expect("y");
        let x = View1::<f64>::from_fn("x", m, |i| (i % 7 + 1) as f64).expect("x");
        let a =
            View2::<f64>::from_fn("A", [n, m], |[j, i]| ((i + 2 * j) % 3 + 1) as f64).expect("A");
        let (ys, xs, rows) = (
            y.as_slice().expect("contiguous"),
            x.as_slice().expect("contiguous"),
            a.as_slice().expect("contiguous"),
        );
        let want: f64 = (0..n)
            .map(|j| ys[j] * (0..m).map(|i| rows[j * m + i] * xs[i]).sum::<f64>())
            .sum();
        let mut g = c.benchmark_group(format!("yax_f64_{side}x{side}"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes((8 * (n * m + n + m)) as u64));
        g.bench_function("granule_range_policy", |b| {
            b.iter(|| {
                let r: f64 = parallel_reduce(
                    "yAx range",
                    RangePolicy::new(&space, 0..n),
                    Sum,
                    |j, acc: &mut f64| {
                        let row = &rows[j * m..(j + 1) * m];
                        *acc += y[j] * row.iter().zip(xs).map(|(a, x)| a * x).sum::<f64>();
                    },
                );
                assert_eq!(r, want);
                r
            })
        });
        g.bench_function("granule_team_policy", |b| {
            b.iter(|| {
                let r: f64 = parallel_reduce(
                    "yAx team",
                    TeamPolicy::new(&space, n, AUTO),
                    Sum,
                    |t: &TeamMember, acc: &mut f64| {
                        let j = t.league_rank();
                        let row = TeamThreadRange::new(t, 0..m)
                            .parallel_reduce(Sum, |i, s: &mut f64| *s += a[[j, i]] * x[i]);
                        single(PerTeam(t), || *acc += y[j] * row);
                    },
                );
                assert_eq!(r, want);
                r
            })
        });
        g.bench_function("rayon_par_iter_rows", |b| {
            b.iter(|| {
                pool.install(|| {
                    black_box(rows)
                        .par_chunks(m)
                        .zip(ys.par_iter())
                        .map(|(row, yj)| yj * row.iter().zip(xs).map(|(a, x)| a * x).sum::<f64>())
                        .sum::<f64>()
                })
            })
        });
        g.finish();
    }
}

criterion_group!(benches, yax);
criterion_main!(benches);
