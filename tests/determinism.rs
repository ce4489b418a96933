//! Reductions and scans are bitwise reproducible for a given n, whatever
//! the number of threads (fixed blocking, fixed combine order), and
//! reductions agree bitwise between Serial and Rayon.
#![cfg(feature = "rayon")]

use granule::prelude::*;

fn values(n: usize) -> View1<f64> {
    // magnitudes spread over many orders, so any change of summation
    // order changes the rounding
    View1::<f64>::from_fn("x", n, |i| {
        ((i * 2654435761) % 1000003) as f64 * 1e-3 + 1.0 / (1.0 + i as f64)
    })
    .unwrap()
}

#[test]
fn sum_is_bitwise_identical_for_every_thread_count() {
    for n in [1, 1000, 16 * 1024 + 3, 1_000_000, 3_000_017] {
        let x = values(n);
        let serial: f64 = parallel_reduce(
            "sum",
            RangePolicy::new(&Serial, 0..n),
            Sum,
            |i, a: &mut f64| *a += x[i],
        );
        for threads in [1, 2, 3, 4] {
            let s = Rayon::new(threads).unwrap();
            for _ in 0..3 {
                let r: f64 =
                    parallel_reduce("sum", RangePolicy::new(&s, 0..n), Sum, |i, a: &mut f64| {
                        *a += x[i]
                    });
                assert_eq!(r.to_bits(), serial.to_bits(), "n {n}, {threads} threads");
            }
        }
        // the order is not the sequential one, yet the value is right
        let seq: f64 = x.to_vec().iter().sum();
        assert!(
            (serial - seq).abs() <= 1e-9 * seq.abs(),
            "n {n}: {serial} vs {seq}"
        );
    }
}

#[test]
fn float_scan_is_bitwise_identical_for_every_thread_count() {
    let n = 500_000;
    let x = values(n);
    let run = |s: &Rayon| {
        let mut out = View1::<f64>::zeros("out", n).unwrap();
        let total = parallel_scan(
            "scan",
            RangePolicy::new(s, 0..n),
            &mut out,
            |i, o: &mut f64, p: &mut f64, last: bool| {
                if last {
                    *o = *p;
                }
                *p += x[i];
            },
        );
        (
            out.to_vec().iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            total.to_bits(),
        )
    };
    let one = run(&Rayon::new(1).unwrap());
    for threads in [2, 3, 4] {
        let s = Rayon::new(threads).unwrap();
        for _ in 0..3 {
            assert!(run(&s) == one, "{threads} threads differ from 1 thread");
        }
    }
}

/// A driver running on the pool (`Rayon::install`) forks its dispatches
/// from a pool thread: same bits as a driver outside the pool, and a
/// dispatch nested in one of its kernels still runs.
#[test]
fn a_driver_on_the_pool_gives_the_same_bits() {
    let n = 300_001;
    let x = values(n);
    let s = Rayon::new(2).unwrap();
    let run = || {
        let sum: f64 = parallel_reduce("sum", RangePolicy::new(&s, 0..n), Sum, |i, a: &mut f64| {
            *a += x[i]
        });
        let mut out = View1::<f64>::zeros("out", n).unwrap();
        let total = parallel_scan(
            "scan",
            RangePolicy::new(&s, 0..n),
            &mut out,
            |i, o: &mut f64, p: &mut f64, last: bool| {
                if last {
                    *o = *p;
                }
                *p += x[i];
            },
        );
        let mut nested = View1::<u64>::zeros("nested", 64).unwrap();
        parallel_for(
            "outer",
            RangePolicy::new(&s, 0..64),
            &mut nested,
            |i, o: &mut u64| {
                let inner = RangePolicy::new(&s, 0..1000 + i);
                *o = parallel_reduce("inner", inner, Sum, |j, a: &mut u64| *a += j as u64);
            },
        );
        let bits = out.to_vec().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        (sum.to_bits(), total.to_bits(), bits, nested.to_vec())
    };
    let outside = run();
    let inside = s.install(run);
    assert!(inside == outside, "a driver on the pool gave other bits");
    let want: Vec<u64> = (0..64).map(|i| (999 + i) * (1000 + i) / 2).collect();
    assert_eq!(inside.3, want);
}
