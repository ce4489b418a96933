//! Float scans and reductions give the same bits on Serial and on Rayon
//! with any number of threads (the grouping depends on the size only).

#![cfg(feature = "rayon")]

use crate::common::{rayon_space, read, view_in, Rng};
use granule::algorithms::{
    exclusive_scan, exclusive_scan_in_place, inclusive_scan, inclusive_scan_in_place, reduce,
};
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

/// The host scans of `f64` sums take different pass-2 code by where the
/// output lies: out of place on a 64-byte boundary, AVX-512 folds the
/// parts as lanes of one vector; in place, or off that boundary, the
/// parts fold one element at a time through a staging buffer; past 16
/// MiB either one streams. The grouping, and so the bits, must not
/// depend on which.
#[test]
fn float_scans_give_the_same_bits_wherever_the_output_lies() {
    let mut rng = Rng::new(43);
    let bits = |v: &[f64]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
    for n in [5000, (1 << 16) + 11, (1 << 21) + 37] {
        let data = rng.vec(n, |r| {
            ((r % 1_000_003) as f64 * 1e-3) + 1.0 / (1.0 + (r % 89) as f64)
        });
        for threads in [1, 2] {
            let s = rayon_space(threads);
            let x = view_in(&s, "x", data.clone());
            let mut y = view_in(&s, "y", vec![0.0; n]);
            let t = inclusive_scan(&s, &x, &mut y, Sum, Some(-0.5)).unwrap();
            let aligned = bits(&read(&y));
            let mut z = view_in(&s, "z", data.clone());
            let u = inclusive_scan_in_place(&s, &mut z, Sum, Some(-0.5));
            assert!(
                bits(&read(&z)) == aligned,
                "n {n}, {threads} threads: in place"
            );
            assert_eq!(t.to_bits(), u.to_bits(), "n {n}: totals");
            let mut w = view_in(&s, "w", vec![0.0; n + 1]);
            let mut off = w.subview_mut(1..n + 1).unwrap();
            inclusive_scan(&s, &x, &mut off, Sum, Some(-0.5)).unwrap();
            assert!(
                bits(&read(&w)[1..]) == aligned,
                "n {n}, {threads} threads: output off the line boundary"
            );
            let e = exclusive_scan(&s, &x, &mut y, Sum, None).unwrap();
            let mut z = view_in(&s, "z", data.clone());
            let f = exclusive_scan_in_place(&s, &mut z, Sum, None);
            assert!(
                bits(&read(&z)) == bits(&read(&y)),
                "n {n}, {threads} threads: exclusive in place"
            );
            assert_eq!(e.to_bits(), f.to_bits(), "n {n}: exclusive totals");
        }
    }
}
