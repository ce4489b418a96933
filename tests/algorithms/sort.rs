//! Sorts against the standard library: every key type and size,
//! stability, float placement, comparison sort, is_sorted.

macro_rules! sort_tests {
    () => {
        #[test]
        fn radix_sort_orders_every_key_type_at_every_size() {
            let s = space();
            let mut rng = Rng::new(31);
            for n in all_sizes() {
                macro_rules! check {
                    ($t:ty, $gen:expr) => {{
                        let mut data: Vec<$t> = rng.vec(n, $gen);
                        let mut x = view_in(&s, "k", data.clone());
                        sort(&s, &mut x).unwrap();
                        data.sort_by(|a, b| a.partial_cmp(b).unwrap());
                        assert_eq!(read(&x), data, "{} n {n}", stringify!($t));
                    }};
                }
                check!(u32, |r| r as u32);
                check!(i64, |r| r as i64);
                if n <= 1 << 16 {
                    check!(i32, |r| (r >> 7) as i32);
                    check!(u64, |r| r >> (r % 64));
                    check!(f32, |r| (r as i32) as f32 * 1e-3);
                    check!(f64, |r| (r as i64) as f64 / 7.0);
                    check!(u32, |r| (r % 5) as u32 + 1000); // most bytes shared: passes skipped
                }
            }
        }

        #[test]
        fn random_keys_past_the_caches_sort() {
            // 32 MiB of keys alone: the host sorts place their buckets by a
            // sample of the keys, not by a count of them.
            let s = space();
            let n = past_the_caches((1usize << 23) + 37);
            let mut data: Vec<u32> = Rng::new(35).vec(n, |r| (r >> 16) as u32);
            let mut x = view_in(&s, "k", data.clone());
            sort(&s, &mut x).unwrap();
            data.sort_unstable();
            assert!(read(&x) == data, "{n} random u32 keys");
        }

        #[test]
        fn sort_by_key_is_stable() {
            let s = space();
            let mut rng = Rng::new(32);
            // Values record the original index, so equal keys show their order.
            let stable = |keys: Vec<u32>, what: &str| {
                let mut k = view_in(&s, "k", keys.clone());
                let mut v = view_in(&s, "v", (0..keys.len() as u32).collect());
                sort_by_key(&s, &mut k, &mut v).unwrap();
                let mut expect: Vec<(u32, u32)> = keys.iter().copied().zip(0..).collect();
                expect.sort_by_key(|p| p.0); // stable
                let got: Vec<(u32, u32)> = read(&k).into_iter().zip(read(&v)).collect();
                assert_eq!(got, expect, "{what}");
            };
            for n in all_sizes() {
                stable(rng.vec(n, |r| (r % 100) as u32), &format!("n {n}"));
            }
            // Nearly every key the same: on Cuda whole warps of 512 keys
            // share one digit (the largest places a warp's counters hold),
            // over several tiles of 8192 and a partial one.
            stable(
                rng.vec(3 * 8192 + 5, |r| u32::from(r % 97 == 0)),
                "nearly equal keys",
            );
            // float keys with values, and strided Views
            let keys = vec![2.0f32, -0.0, 1.0, 0.0, -0.0, 2.0];
            let mut wide =
                View2::<f32, LayoutRight, _>::zeros_in(s.memory_space(), "w", [6, 2]).unwrap();
            deep_copy(
                &mut wide.subview_mut((ALL, 1)).unwrap(),
                &view_in(&s, "src", keys),
            )
            .unwrap();
            let mut v = view_in(&s, "v", vec![0u8, 1, 2, 3, 4, 5]);
            sort_by_key(&s, &mut wide.subview_mut((ALL, 1)).unwrap(), &mut v).unwrap();
            assert_eq!(read(&v), [1, 4, 3, 2, 0, 5]);
        }

        #[test]
        fn float_sorts_place_nan_infinities_and_signed_zeros() {
            let s = space();
            let neg_nan = -f64::NAN;
            let data = vec![
                1.0,
                f64::NAN,
                -0.0,
                f64::INFINITY,
                0.0,
                neg_nan,
                f64::NEG_INFINITY,
                -2.0,
                -0.0,
            ];
            let mut x = view_in(&s, "x", data.clone());
            sort(&s, &mut x).unwrap();
            let got: Vec<u64> = read(&x).iter().map(|v| v.to_bits()).collect();
            let mut expect = data.clone();
            expect.sort_by(f64::total_cmp);
            assert_eq!(got, expect.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
            assert!(expect[0].is_nan() && expect[0].is_sign_negative());
            assert_eq!(expect[1], f64::NEG_INFINITY);
            assert!(
                expect[3] == 0.0 && expect[3].is_sign_negative() && expect[4].is_sign_negative()
            );
            assert!(expect[5] == 0.0 && expect[5].is_sign_positive());
            assert!(expect[8].is_nan() && expect[8].is_sign_positive());
            let mut x32 = view_in(&s, "x32", vec![f32::NAN, 0.0, -0.0, f32::NEG_INFINITY]);
            sort(&s, &mut x32).unwrap();
            let got = read(&x32);
            assert!(
                got[0] == f32::NEG_INFINITY
                    && got[1].is_sign_negative()
                    && got[2].is_sign_positive()
                    && got[3].is_nan()
            );
        }

        #[test]
        fn crowded_float_keys_sort_stably_past_the_cache() {
            // Floats in 0..1 (with a zero) and sums of uniforms (both signs,
            // bunched around 0) crowd a few exponents: past the in-cache size
            // the host sorts plan their buckets by 12 bits.
            let s = space();
            let mut rng = Rng::new(34);
            let unit = |r: u64| (r >> 40) as f32 / (1u64 << 24) as f32;
            let bell = |r: u64| {
                let part = |i: u32| ((r >> (16 * i)) & 0xffff) as f32;
                (part(0) + part(1) + part(2) - 98_304.0) / 16_384.0
            };
            for n in [(1 << 18) - 3, past_the_caches(1 << 20)] {
                let mut crowds = [rng.vec(n, unit), rng.vec(n, bell)];
                crowds[0][n / 2] = 0.0;
                for keys in crowds {
                    let mut k = view_in(&s, "k", keys.clone());
                    let mut v = view_in(&s, "v", (0..n as u32).collect());
                    sort_by_key(&s, &mut k, &mut v).unwrap();
                    let mut expect: Vec<(u32, u32)> =
                        keys.iter().map(|x| x.to_bits()).zip(0..).collect();
                    expect.sort_by(|a, b| f32::from_bits(a.0).total_cmp(&f32::from_bits(b.0))); // stable
                    let bits = read(&k).into_iter().map(|x| x.to_bits());
                    let got: Vec<(u32, u32)> = bits.zip(read(&v)).collect();
                    assert!(got == expect, "{n} crowded float keys");
                }
            }
        }

        #[test]
        fn comparison_sort_is_stable_and_is_sorted_agrees() {
            let s = space();
            let mut rng = Rng::new(33);
            for n in sizes().into_iter().chain([100_003]) {
                // the key (descending) in the high half, the index below
                let data: Vec<u64> = rng
                    .vec(n, |r| r % 50)
                    .into_iter()
                    .zip(0..)
                    .map(|(k, i)| k << 32 | i)
                    .collect();
                let mut x = view_in(&s, "x", data.clone());
                sort_by(&s, &mut x, high_half_descending()).unwrap();
                let mut expect = data.clone();
                expect.sort_by(|a, b| (b >> 32).cmp(&(a >> 32)));
                assert_eq!(read(&x), expect, "n {n}");
                assert!(is_sorted_by(&s, &x, high_half_descending()));
                let keys = view_in(
                    &s,
                    "keys",
                    expect.iter().map(|p| (p >> 32) as u32).collect(),
                );
                assert_eq!(
                    is_sorted(&s, &keys),
                    n < 2 || expect.first().unwrap() >> 32 == expect.last().unwrap() >> 32,
                    "n {n}"
                );
            }
            let x = view_in(&s, "x", vec![1, 2, 2, 3]);
            assert!(is_sorted(&s, &x));
            assert!(!is_sorted_by(&s, &x, greater()));
            let x = view_in(&s, "x", vec![1, 3, 2]);
            assert!(!is_sorted(&s, &x));
        }

        #[test]
        fn is_sorted_compares_neighbours_of_strided_views() {
            // A column of a 3x4 View: stride 4, length 3.
            let s = space();
            let grid = |col: [i32; 3]| {
                let data: Vec<i32> = (0..12)
                    .map(|k| {
                        if k % 4 == 1 {
                            col[k / 4]
                        } else {
                            100 - k as i32
                        }
                    })
                    .collect();
                View2::<i32, LayoutRight, _>::from_vec_in(s.memory_space(), "g", [3, 4], data)
                    .unwrap()
            };
            let up = grid([1, 2, 3]);
            let down = grid([30, 20, 10]);
            let bumpy = grid([1, 3, 2]);
            let (up, down, bumpy) = (
                up.subview((ALL, 1)).unwrap(),
                down.subview((ALL, 1)).unwrap(),
                bumpy.subview((ALL, 1)).unwrap(),
            );
            assert_eq!(up.stride(0), 4);
            assert!(is_sorted(&s, &up));
            assert!(is_sorted_by(&s, &down, greater()));
            assert!(!is_sorted(&s, &down) && !is_sorted(&s, &bumpy));
            assert!(!is_sorted_by(&s, &bumpy, greater()));
            // One element, and a column of one row.
            let one = View2::<i32, LayoutRight, _>::from_vec_in(
                s.memory_space(),
                "o",
                [1, 4],
                vec![9, 1, 5, 0],
            )
            .unwrap();
            assert!(is_sorted(&s, &one.subview((ALL, 2)).unwrap()));
        }

        #[test]
        fn comparison_sort_by_an_inconsistent_comparator_races_nowhere() {
            // Every output place has one writer whatever the comparator
            // answers, so the sort returns with elements of its input (in
            // an unspecified order) or, on the host, panics saying that
            // the comparator is not a strict weak order; it never races
            // or reads past its runs, and it never hangs.
            // On Cuda, a sort in which each element computed its own
            // place would put two elements in one place: the emulator
            // reports that as a race.
            for n in [2usize, 33, 1000, 5003, 100_003] {
                let sorted = crate::soundness::outcome("sort_by", move || {
                    let s = space();
                    let mut x = view_in(&s, "x", (0..n as i64).collect());
                    sort_by(&s, &mut x, scrambled())
                        .map(|()| read(&x))
                        .map_err(|e| e.to_string())
                });
                match sorted {
                    Ok(got) => {
                        let got = got.unwrap_or_else(|e| panic!("n {n}: {e}"));
                        assert_eq!(got.len(), n);
                        assert!(got.iter().all(|v| (0..n as i64).contains(v)), "n {n}");
                    }
                    // The standard library's run sorts and the merge
                    // rounds say what is wrong; a Cuda sort returns.
                    Err(text) => assert!(
                        text.contains("not a strict weak order")
                            || text.contains("does not correctly implement a total order"),
                        "n {n}: {text}"
                    ),
                }
            }
        }
    };
}

/// Sorts only host spaces run: a closure comparator over tuples.
macro_rules! host_sort_tests {
    () => {
        #[test]
        fn host_comparison_sorts_take_closures_over_tuples() {
            let s = space();
            let mut rng = Rng::new(34);
            for n in sizes().into_iter().chain([100_003]) {
                let data: Vec<(u16, u32)> = rng
                    .vec(n, |r| (r % 50) as u16)
                    .into_iter()
                    .zip(0..)
                    .collect();
                let mut x = view_in(&s, "x", data.clone());
                sort_by(&s, &mut x, |a: (u16, u32), b: (u16, u32)| a.0 > b.0).unwrap();
                let mut expect = data.clone();
                expect.sort_by(|a, b| b.0.cmp(&a.0));
                assert_eq!(read(&x), expect, "n {n}");
                assert!(is_sorted_by(&s, &x, |a: (u16, u32), b: (u16, u32)| a.0 > b.0));
            }
        }
    };
}
