//! Float scans and reductions give the same bits on Serial and on Rayon
//! with any number of threads (the grouping depends on the size only).

#![cfg(feature = "rayon")]

use crate::common::{rayon_space, read, view_in, Rng};
use granule::algorithms::{exclusive_scan, inclusive_scan, reduce};
use granule::prelude::*;

#[test]
fn float_scans_are_bitwise_identical_for_every_thread_count() {
    let mut rng = Rng::new(41);
    for n in [1000, (1 << 14) + 3, 300_001] {
        // magnitudes over many orders, so any regrouping changes the bits
        let data = rng.vec(n, |r| {
            ((r % 1_000_003) as f64 * 1e-3) + 1.0 / (1.0 + (r % 97) as f64)
        });
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        let run_serial = || {
            let x = view_in(&Serial, "x", data.clone());
            let mut y = view_in(&Serial, "y", vec![0.0; n]);
            let t = inclusive_scan(&Serial, &x, &mut y, Sum, Some(0.25)).unwrap();
            let mut z = view_in(&Serial, "z", vec![0.0; n]);
            let u = exclusive_scan(&Serial, &x, &mut z, Sum, None).unwrap();
            (
                bits(read(&y)),
                bits(read(&z)),
                t.to_bits(),
                u.to_bits(),
                reduce(&Serial, &x, Sum, None).to_bits(),
            )
        };
        let expect = run_serial();
        for threads in [1, 2, 3] {
            let s = rayon_space(threads);
            for _ in 0..3 {
                let x = view_in(&s, "x", data.clone());
                let mut y = view_in(&s, "y", vec![0.0; n]);
                let t = inclusive_scan(&s, &x, &mut y, Sum, Some(0.25)).unwrap();
                let mut z = view_in(&s, "z", vec![0.0; n]);
                let u = exclusive_scan(&s, &x, &mut z, Sum, None).unwrap();
                let got = (
                    bits(read(&y)),
                    bits(read(&z)),
                    t.to_bits(),
                    u.to_bits(),
                    reduce(&s, &x, Sum, None).to_bits(),
                );
                assert!(
                    got == expect,
                    "n {n}, {threads} threads: the bits differ from Serial"
                );
            }
        }
    }
}
