//! Scans against a sequential fold: every size, every operator, in place,
//! strided, transforms, floats; tuples, custom and closure code on the
//! host spaces.

macro_rules! scan_tests {
    () => {
        #[test]
        fn scans_match_the_sequential_fold_at_every_size() {
            let s = space();
            let mut rng = Rng::new(1);
            for n in all_sizes() {
                let data = rng.vec(n, |r| (r % 2001) as i64 - 1000);
                let x = view_in(&s, "x", data.clone());
                let mut y = view_in(&s, "y", vec![0i64; n]);
                for init in [None, Some(7)] {
                    let t = inclusive_scan(&s, &x, &mut y, Sum, init).unwrap();
                    assert_eq!(
                        (read(&y), t),
                        seq_scan(&data, &Sum, init, true),
                        "inclusive n {n}"
                    );
                    let t = exclusive_scan(&s, &x, &mut y, Sum, init).unwrap();
                    assert_eq!(
                        (read(&y), t),
                        seq_scan(&data, &Sum, init, false),
                        "exclusive n {n}"
                    );
                }
            }
        }

        #[test]
        fn scans_past_the_streaming_size_match_the_fold() {
            // Above 16 MiB of output the host scans stream their output
            // from a staging buffer: another path, with the vector sums
            // of 4- and 8-byte integers in release builds.
            let s = space();
            let n = past_the_caches((1usize << 21) + 37);
            let data = Rng::new(9).vec(n, |r| (r % 2_000_001) as i64 - 1_000_000);
            let x = view_in(&s, "x", data.clone());
            let mut y = view_in(&s, "y", vec![0i64; n]);
            for init in [None, Some(-3)] {
                let t = exclusive_scan(&s, &x, &mut y, Sum, init).unwrap();
                let want = seq_scan(&data, &Sum, init, false);
                assert!((read(&y), t) == want, "exclusive, init {init:?}");
                let t = inclusive_scan(&s, &x, &mut y, Sum, init).unwrap();
                let want = seq_scan(&data, &Sum, init, true);
                assert!((read(&y), t) == want, "inclusive, init {init:?}");
            }
            // An operator without a vector path: the staged scalar scan.
            let t = inclusive_scan(&s, &x, &mut y, Max, None).unwrap();
            assert!((read(&y), t) == seq_scan(&data, &Max, None, true), "max");
        }

        #[test]
        fn scans_take_every_operator() {
            let s = space();
            let mut rng = Rng::new(2);
            for n in [1usize, 33, 1000, (1 << 14) + 5, 40_000] {
                let i = rng.vec(n, |r| (r % 200) as i32 - 100);
                let u = rng.vec(n, |r| r);
                let b = rng.vec(n, |r| r % 7 != 0);
                let sign = rng.vec(n, |r| if r % 5 == 0 { -1i64 } else { 1 });
                macro_rules! check {
                    ($data:expr, $op:expr, $init:expr) => {{
                        let data = $data.clone();
                        let x = view_in(&s, "x", data.clone());
                        let mut y = view_in(&s, "y", data.clone());
                        let t = inclusive_scan(&s, &x, &mut y, $op, $init).unwrap();
                        assert_eq!(
                            (read(&y), t),
                            seq_scan(&data, &$op, $init, true),
                            "{} n {n}",
                            stringify!($op)
                        );
                        let t = exclusive_scan(&s, &x, &mut y, $op, $init).unwrap();
                        assert_eq!(
                            (read(&y), t),
                            seq_scan(&data, &$op, $init, false),
                            "{} n {n}",
                            stringify!($op)
                        );
                    }};
                }
                check!(sign, Prod, None);
                check!(i, Min, None);
                check!(i, Max, Some(-3));
                check!(u, BAnd, None);
                check!(u, BOr, Some(1));
                check!(b, LAnd, None);
                check!(b, LOr, None);
                let f: Vec<f64> = i.iter().map(|&v| v as f64).collect();
                check!(f, Max, None);
            }
        }

        #[test]
        fn scans_of_views_that_start_mid_line_match_the_fold() {
            // A subview from index 1 is unit-stride but not 16-byte
            // aligned: the device drivers read such runs one element at a
            // time, aligned ones in 16-byte pieces.
            let s = space();
            let mut rng = Rng::new(4);
            for n in [1, 31, 32, 33, 8192 * 2 + 5] {
                let data = rng.vec(n + 2, |r| (r % 1000) as i32 - 500);
                let x = view_in(&s, "x", data.clone());
                let inner = x.subview(1..n + 1).unwrap();
                let mut y = view_in(&s, "y", vec![0i32; n + 3]);
                let mut out = y.subview_mut(3..n + 3).unwrap();
                let t = inclusive_scan(&s, &inner, &mut out, Sum, None).unwrap();
                let (expect, total) = seq_scan(&data[1..n + 1], &Sum, None, true);
                assert_eq!(t, total, "n {n}");
                assert_eq!(read(&y)[3..], expect[..], "n {n}");
                let u = view_in(&s, "u", data.iter().map(|&v| v as u8).collect());
                let inner = u.subview(2..n + 2).unwrap();
                let mut z = view_in(&s, "z", vec![0u8; n]);
                let t = exclusive_scan(&s, &inner, &mut z, BOr, Some(7)).unwrap();
                let bytes: Vec<u8> = data[2..n + 2].iter().map(|&v| v as u8).collect();
                assert_eq!(
                    (read(&z), t),
                    seq_scan(&bytes, &BOr, Some(7), false),
                    "n {n}"
                );
            }
        }

        #[test]
        fn scans_in_place_strided_and_into_longer_outputs() {
            let s = space();
            let mut rng = Rng::new(3);
            for n in sizes() {
                let data = rng.vec(n, |r| (r % 100) as i64);
                let mut x = view_in(&s, "x", data.clone());
                let t = inclusive_scan_in_place(&s, &mut x, Sum, None);
                assert_eq!((read(&x), t), seq_scan(&data, &Sum, None, true), "n {n}");
                let mut x = view_in(&s, "x", data.clone());
                let t = exclusive_scan_in_place(&s, &mut x, Sum, Some(5));
                assert_eq!(
                    (read(&x), t),
                    seq_scan(&data, &Sum, Some(5), false),
                    "n {n}"
                );
                // every second element of a 2n View, into a column of a 2-D View
                let mut wide = Vec::with_capacity(2 * n);
                for &v in &data {
                    wide.extend([v, -1]);
                }
                let w =
                    View2::<i64, LayoutRight, _>::from_vec_in(s.memory_space(), "w", [n, 2], wide)
                        .unwrap();
                let col = w.subview((ALL, 0)).unwrap();
                let mut out =
                    View2::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "out", [n, 3])
                        .unwrap();
                let mut oc = out.subview_mut((ALL, 1)).unwrap();
                let t = exclusive_scan(&s, &col, &mut oc, Sum, None).unwrap();
                let (expect, total) = seq_scan(&data, &Sum, None, false);
                assert_eq!(t, total);
                let got = create_mirror_view_and_copy(&out).unwrap();
                assert!(
                    (0..n)
                        .all(|i| got[[i, 1]] == expect[i] && got[[i, 0]] == 0 && got[[i, 2]] == 0),
                    "n {n}"
                );
                // a longer output keeps its tail
                let x = view_in(&s, "x", data.clone());
                let mut long = view_in(&s, "long", vec![-9i64; n + 3]);
                inclusive_scan(&s, &x, &mut long, Sum, None).unwrap();
                assert_eq!(read(&long)[n..], [-9, -9, -9]);
            }
        }

        #[test]
        fn transform_scans_apply_the_transform_once_per_element() {
            let s = space();
            let mut rng = Rng::new(4);
            for n in sizes() {
                let data = rng.vec(n, |r| (r % 3) as u8);
                let x = view_in(&s, "x", data.clone());
                let mut y = view_in(&s, "y", vec![0u64; n]);
                let flags: Vec<u64> = data.iter().map(|&v| (v != 0) as u64).collect();
                let t = transform_exclusive_scan(&s, &x, &mut y, Sum, None, flag()).unwrap();
                assert_eq!((read(&y), t), seq_scan(&flags, &Sum, None, false), "n {n}");
                let sq: Vec<u64> = data.iter().map(|&v| (v as u64) * (v as u64)).collect();
                let t =
                    transform_inclusive_scan(&s, &x, &mut y, Sum, Some(1), square_u8()).unwrap();
                assert_eq!((read(&y), t), seq_scan(&sq, &Sum, Some(1), true), "n {n}");
            }
        }

        #[test]
        fn float_scans_are_close_to_the_sequential_fold() {
            let s = space();
            let mut rng = Rng::new(5);
            for n in sizes() {
                let data = rng.vec(n, |r| (r % 1000) as f64 * 1e-3);
                let x = view_in(&s, "x", data.clone());
                let mut y = view_in(&s, "y", vec![0f64; n]);
                let t = inclusive_scan(&s, &x, &mut y, Sum, None).unwrap();
                let (expect, total) = seq_scan(&data, &Sum, None, true);
                let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
                assert!(close(t, total), "n {n}: {t} vs {total}");
                assert!(
                    read(&y).iter().zip(&expect).all(|(&a, &b)| close(a, b)),
                    "n {n}"
                );
                // In place the host folds through its staging buffer.
                let mut z = view_in(&s, "z", data.clone());
                let t = inclusive_scan_in_place(&s, &mut z, Sum, None);
                assert!(close(t, total), "n {n}, in place: {t} vs {total}");
                assert!(
                    read(&z).iter().zip(&expect).all(|(&a, &b)| close(a, b)),
                    "n {n}, in place"
                );
                let d32: Vec<f32> = data.iter().map(|&v| v as f32).collect();
                let x = view_in(&s, "x32", d32.clone());
                let mut y = view_in(&s, "y32", vec![0f32; n]);
                let t = exclusive_scan(&s, &x, &mut y, Sum, None).unwrap();
                // Against the exact prefix sums (in f64) of these nonnegative
                // values, relative to the prefix: the f32 scans regroup the
                // additions, so their rounding differs from the fold's.
                let mut exact = 0f64;
                let near = |a: f32, b: f64| (f64::from(a) - b).abs() <= 1e-3 * b.max(1.0);
                for (i, (&got, &v)) in read(&y).iter().zip(&d32).enumerate() {
                    assert!(near(got, exact), "n {n}, element {i}: {got} vs {exact}");
                    exact += f64::from(v);
                }
                assert!(near(t, exact), "n {n}: total {t} vs {exact}");
            }
        }

        /// A float scan's total is its own last value, bit for bit: the
        /// last output of an inclusive scan, the last output joined with
        /// the last input of an exclusive one (Kokkos's contract), in
        /// place or not, whatever the blocks' prefixes round to.
        #[test]
        fn float_scan_totals_are_their_last_values() {
            let s = space();
            // Two inputs, each of which made a space's total differ from its
            // last output in the last bit.
            let inputs: [fn(usize) -> f32; 2] = [
                |i| 1.0 / (1.0 + (i % 977) as f32),
                |i| ((i * 2_654_435_761) % 1000) as f32 * 1e-3 + 0.1,
            ];
            for (n, input) in [1usize, 4097, 16_385, 123_457]
                .into_iter()
                .flat_map(|n| inputs.map(|f| (n, f)))
            {
                let data: Vec<f32> = (0..n).map(input).collect();
                let x = view_in(&s, "x", data.clone());
                let mut y = view_in(&s, "y", vec![0f32; n]);
                for init in [None, Some(0.25f32)] {
                    let t = inclusive_scan(&s, &x, &mut y, Sum, init).unwrap();
                    let last = read(&y)[n - 1];
                    assert_eq!(
                        t.to_bits(),
                        last.to_bits(),
                        "inclusive n {n}: {t} vs {last}"
                    );
                    let t = exclusive_scan(&s, &x, &mut y, Sum, init).unwrap();
                    let end = read(&y)[n - 1] + data[n - 1];
                    assert_eq!(t.to_bits(), end.to_bits(), "exclusive n {n}: {t} vs {end}");
                }
                let mut z = view_in(&s, "z", data.clone());
                let t = exclusive_scan_in_place(&s, &mut z, Sum, None);
                let end = read(&z)[n - 1] + data[n - 1];
                assert_eq!(t.to_bits(), end.to_bits(), "exclusive in place n {n}");
                let mut z = view_in(&s, "z", data.clone());
                let t = inclusive_scan_in_place(&s, &mut z, Sum, None);
                assert_eq!(
                    t.to_bits(),
                    read(&z)[n - 1].to_bits(),
                    "inclusive in place n {n}"
                );
            }
        }

        #[test]
        fn f32_scans_of_small_integers_match_the_fold_exactly() {
            // Every partial sum stays below 2^24, so it is exact in f32 in
            // any grouping: the scans must give the fold's very bits, which
            // shows an element, lane or block out of place. The last size
            // is past the streaming size (16 MiB of output).
            let s = space();
            let mut rng = Rng::new(11);
            for n in all_sizes()
                .into_iter()
                .chain([past_the_caches((1 << 22) + 37)])
            {
                let data = rng.vec(n, |r| (r % 4) as f32);
                let x = view_in(&s, "x", data.clone());
                let mut y = view_in(&s, "y", vec![0f32; n]);
                for init in [None, Some(2.0)] {
                    let t = exclusive_scan(&s, &x, &mut y, Sum, init).unwrap();
                    let want = seq_scan(&data, &Sum, init, false);
                    assert!((read(&y), t) == want, "exclusive n {n}, init {init:?}");
                    let t = inclusive_scan(&s, &x, &mut y, Sum, init).unwrap();
                    let want = seq_scan(&data, &Sum, init, true);
                    assert!((read(&y), t) == want, "inclusive n {n}, init {init:?}");
                }
            }
        }
    };
}

/// Scans only host spaces run: tuples of reducers, a closure reducer and
/// closure transforms.
macro_rules! host_scan_tests {
    () => {
        #[test]
        fn host_scans_take_tuples_custom_reducers_and_closures() {
            let s = space();
            let mut rng = Rng::new(6);
            for n in [1usize, 33, 1000, (1 << 14) + 5, 40_000] {
                let i = rng.vec(n, |r| (r % 200) as i32 - 100);
                let pairs: Vec<(i64, i32)> = i.iter().map(|&v| (v as i64, v)).collect();
                let x = view_in(&s, "x", pairs.clone());
                let mut y = view_in(&s, "y", pairs.clone());
                let t = inclusive_scan(&s, &x, &mut y, (Sum, Max), None).unwrap();
                assert_eq!((read(&y), t), seq_scan(&pairs, &(Sum, Max), None, true));
                // a custom reducer: products modulo a prime
                let modp = reducer::custom(
                    || 1i64,
                    |a: &mut i64, b: &i64| *a = (*a * *b).rem_euclid(1_000_003),
                );
                let m: Vec<i64> = i.iter().map(|&v| v as i64 + 101).collect();
                let x = view_in(&s, "x", m.clone());
                let mut y = view_in(&s, "y", m.clone());
                let t = exclusive_scan(&s, &x, &mut y, modp, None).unwrap();
                assert_eq!((read(&y), t), seq_scan(&m, &modp, None, false), "n {n}");
                let small: Vec<u8> = i.iter().map(|&v| (v & 3) as u8).collect();
                let x = view_in(&s, "x", small.clone());
                let mut y = view_in(&s, "y", vec![0u64; n]);
                let t = transform_inclusive_scan(&s, &x, &mut y, Sum, None, |v: u8| v as u64 + 1)
                    .unwrap();
                let plus: Vec<u64> = small.iter().map(|&v| v as u64 + 1).collect();
                assert_eq!((read(&y), t), seq_scan(&plus, &Sum, None, true), "n {n}");
            }
        }
    };
}
