//! parallel_reduce: built-in and custom reducers, identities, tuples,
//! results into scalars and Views.

/// The values of the MinLoc/MaxLoc test: 10003 distinct values.
pub fn distinct(i: usize) -> f64 {
    ((i * 7919 + 17) % 10_003) as f64 - 5000.5
}

macro_rules! reduce_tests {
    () => {
        #[test]
        fn reduce_struct_count_and_two_sums() {
            let s = space();
            let n = 1_000_000usize;
            let t = parallel_reduce(
                "triple",
                RangePolicy::new(&s, 0..n),
                TripleSum,
                count_up_down(n),
            );
            let expect = Triple {
                count: 1_000_000,
                up: 500_000_500_000,
                down: 500_000_500_000,
            };
            assert_eq!(t, expect);
        }

        #[test]
        fn reduce_minloc_and_maxloc_exact() {
            let s = space();
            let n = 10_003;
            let x = View1::<f64, LayoutRight, _>::from_fn_in(
                s.memory_space(),
                "x",
                n,
                crate::reduce::distinct,
            )
            .unwrap();
            let xh = create_mirror_view_and_copy(&x).unwrap();
            let (mut emin, mut emax) = ((f64::INFINITY, 0), (f64::NEG_INFINITY, 0));
            for i in 0..n {
                if xh[i] < emin.0 {
                    emin = (xh[i], i)
                }
                if xh[i] > emax.0 {
                    emax = (xh[i], i)
                }
            }
            for chunk in [0, 1, 100] {
                let p = RangePolicy::new(&s, 0..n).with_chunk_size(chunk);
                let mn = parallel_reduce("minloc", p, MinLoc, min_loc_of(&x));
                let mx = parallel_reduce("maxloc", p, MaxLoc, max_loc_of(&x));
                assert_eq!((mn.val, mn.loc), emin);
                assert_eq!((mx.val, mx.loc), emax);
                let mm = parallel_reduce("minmaxloc", p, MinMaxLoc, min_max_loc_of(&x));
                assert_eq!(
                    (mm.min_val, mm.min_loc, mm.max_val, mm.max_loc),
                    (emin.0, emin.1, emax.0, emax.1)
                );
                let m2 = parallel_reduce("minmax", p, MinMax, min_max_of(&x));
                assert_eq!((m2.min_val, m2.max_val), (emin.0, emax.0));
            }
        }

        #[test]
        fn reduce_builtins() {
            let s = space();
            let n = 40_000usize;
            let p = RangePolicy::new(&s, 0..n);
            let sum: u64 = parallel_reduce("sum", p, Sum, sum_index());
            assert_eq!(sum, (n as u64) * (n as u64 - 1) / 2);
            let prod: f64 = parallel_reduce("prod", RangePolicy::new(&s, 0..40), Prod, times_two());
            assert_eq!(prod, 2f64.powi(40));
            let mn: i32 = parallel_reduce("min", p, Min, min_shifted());
            let mx: i32 = parallel_reduce("max", p, Max, max_shifted());
            assert_eq!((mn, mx), (-7, n as i32 - 8));
            let all: bool = parallel_reduce("land", p, LAnd, all_below(n));
            let any: bool = parallel_reduce("lor", p, LOr, any_equal(12_345));
            let none: bool = parallel_reduce("lor2", p, LOr, any_equal(n));
            assert!(all && any && !none);
            let band: u32 = parallel_reduce("band", p, BAnd, band_bits());
            let bor: u32 = parallel_reduce("bor", p, BOr, bor_bits());
            assert_eq!((band, bor), (0b100, 0x1ff));
            let land_int: i32 = parallel_reduce("land-int", p, LAnd, land_as_int());
            assert_eq!(land_int, 0);
        }

        #[test]
        fn reduce_empty_range_gives_identities() {
            let s = space();
            let p = RangePolicy::new(&s, 7..7);
            let z: f64 = parallel_reduce("e-sum", p, Sum, add_one());
            let o: i64 = parallel_reduce("e-prod", p, Prod, times_three());
            let mn: f32 = parallel_reduce("e-min", p, Min, set_f32_zero());
            let mx: u16 = parallel_reduce("e-max", p, Max, set_u16_acc(9));
            let la: bool = parallel_reduce("e-land", p, LAnd, set_bool(false));
            let lo: bool = parallel_reduce("e-lor", p, LOr, set_bool(true));
            let ba: u8 = parallel_reduce("e-band", p, BAnd, set_u8_acc(0));
            let bo: u8 = parallel_reduce("e-bor", p, BOr, set_u8_acc(1));
            assert_eq!(
                (z, o, mn, mx, la, lo, ba, bo),
                (0.0, 1, f32::INFINITY, 0, true, false, 0xff, 0)
            );
            let ml = parallel_reduce("e-minloc", p, MinLoc, no_update());
            assert_eq!((ml.val, ml.loc), (i32::MAX, usize::MAX));
            let mut target = 5.0f64;
            let mut view =
                View1::<f64, LayoutRight, _>::full_in(s.memory_space(), "r", 1, 5.0).unwrap();
            parallel_reduce_into("e-into", p, Max, set_f64_one(), &mut target);
            parallel_reduce_into("e-into-view", p, Min, set_f64_one(), &mut view);
            let view = create_mirror_view_and_copy(&view).unwrap();
            assert_eq!((target, view[0]), (f64::NEG_INFINITY, f64::INFINITY));
        }

        #[test]
        fn reduce_several_results_in_one_call() {
            let s = space();
            let n = 30_000usize;
            let x = View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, |i| {
                (i as f64) - 100.0
            })
            .unwrap();
            let (sum, mx, cnt): (f64, f64, usize) = parallel_reduce(
                "three",
                RangePolicy::new(&s, 0..n),
                (Sum, Max, Sum),
                sum_max_count(&x),
            );
            assert_eq!(
                (sum, mx, cnt),
                ((0..n).map(|i| i as f64 - 100.0).sum(), n as f64 - 101.0, n)
            );
            let mut out =
                View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "out", 1).unwrap();
            let mut count = 0usize;
            parallel_reduce_into(
                "into",
                RangePolicy::new(&s, 0..n),
                (Min, Sum),
                min_and_count(&x),
                (&mut out, &mut count),
            );
            let out = create_mirror_view_and_copy(&out).unwrap();
            assert_eq!((out[0], count), (-100.0, n));
        }

        #[test]
        fn reduce_custom_with_final() {
            let s = space();
            let r = parallel_reduce("mean", RangePolicy::new(&s, 0..1001), MeanOf, index_mean());
            assert_eq!(
                r,
                Mean {
                    sum: 500.0,
                    count: 1001
                }
            );
            let mut into = Mean { sum: 7.0, count: 7 };
            parallel_reduce_into(
                "mean-into",
                RangePolicy::new(&s, 1..4),
                MeanOf,
                index_mean(),
                &mut into,
            );
            assert_eq!(into, Mean { sum: 2.0, count: 3 });
        }
    };
}

/// Host-space-only reduce tests (see `for_host_only_tests!`).
macro_rules! reduce_host_only_tests {
    () => {
        // Host-only: bitwise agreement with Serial is a promise of the host
        // spaces' blocked reduction order (a device reduces in another
        // tree), and the one View is read by Serial too, so it lives in
        // host memory.
        #[test]
        fn reduce_is_reproducible_and_matches_serial_bits() {
            let s = space();
            let n = 1_000_003;
            let x = View1::<f64>::from_fn("x", n, |i| 1.0 / (1.0 + i as f64)).unwrap();
            let mine: f64 = parallel_reduce("h", RangePolicy::new(&s, 0..n), Sum, sum_x(&x));
            let serial: f64 = parallel_reduce("h", RangePolicy::new(&Serial, 0..n), Sum, sum_x(&x));
            assert_eq!(mine.to_bits(), serial.to_bits());
        }
    };
}
