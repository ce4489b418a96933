//! Reductions against sequential folds.

macro_rules! reduce_tests {
    () => {
        #[test]
        fn reductions_match_sequential_folds() {
            let s = space();
            let mut rng = Rng::new(21);
            for n in sizes() {
                let data = rng.vec(n, |r| (r % 101) as i64 - 50);
                let x = view_in(&s, "x", data.clone());
                assert_eq!(reduce(&s, &x, Sum, None), data.iter().sum::<i64>(), "n {n}");
                assert_eq!(
                    reduce(&s, &x, Max, Some(-1000)),
                    data.iter().copied().max().unwrap_or(-1000)
                );
                assert_eq!(
                    transform_reduce(&s, &x, Sum, Some(1), square()),
                    1 + data.iter().map(|v| v * v).sum::<i64>()
                );
                assert_eq!(
                    count_if(&s, &x, above(10)),
                    data.iter().filter(|&&v| v > 10).count()
                );
                assert_eq!(all_of(&s, &x, at_least(-50)), true);
                assert_eq!(any_of(&s, &x, equals(50)), data.contains(&50));
                assert_eq!(none_of(&s, &x, equals(50)), !data.contains(&50));
                let first_min = data
                    .iter()
                    .copied()
                    .enumerate()
                    .min_by_key(|&(i, v)| (v, i));
                let first_max = data
                    .iter()
                    .copied()
                    .enumerate()
                    .max_by_key(|&(i, v)| (v, std::cmp::Reverse(i)));
                assert_eq!(min_element(&s, &x), first_min, "n {n}");
                assert_eq!(max_element(&s, &x), first_max, "n {n}");
                // minmax_element: the first smallest and the last largest,
                // as Rust's own `min_by` and `max_by` (and Kokkos) give.
                let std_min = data
                    .iter()
                    .copied()
                    .enumerate()
                    .min_by(|a, b| a.1.cmp(&b.1));
                let std_max = data
                    .iter()
                    .copied()
                    .enumerate()
                    .max_by(|a, b| a.1.cmp(&b.1));
                let mm = minmax_element(&s, &x);
                assert_eq!(mm.map(|m| (m.min, m.max)), std_min.zip(std_max), "n {n}");
                let y = view_in(&s, "y", data.clone());
                assert!(equal(&s, &x, &y));
                if n > 0 {
                    let mut changed = data.clone();
                    changed[n - 1] += 1;
                    assert!(!equal(&s, &x, &view_in(&s, "z", changed)));
                }
            }
        }

        #[test]
        fn float_reductions_skip_nan_for_extremes_and_are_exact_for_small_sums() {
            let s = space();
            let x = view_in(&s, "x", vec![f64::NAN, 2.0, -1.0, -1.0, f64::NAN]);
            assert_eq!(min_element(&s, &x), Some((2, -1.0)));
            assert_eq!(max_element(&s, &x), Some((1, 2.0)));
            let nans = view_in(&s, "nans", vec![f64::NAN; 3]);
            assert_eq!(min_element(&s, &nans), None);
            let mm = minmax_element(
                &s,
                &view_in(&s, "ties", vec![3.0, -1.0, 3.0, f64::NAN, -1.0, 3.0]),
            );
            assert_eq!(mm.map(|m| (m.min, m.max)), Some(((1, -1.0), (5, 3.0))));
            // The largest value of the type, at every index: the last one.
            let top = view_in(&s, "top", vec![i32::MAX; 5]);
            assert_eq!(
                minmax_element(&s, &top).map(|m| (m.min.0, m.max.0)),
                Some((0, 4))
            );
            let bottom = view_in(&s, "bottom", vec![i32::MIN; 5]);
            assert_eq!(
                minmax_element(&s, &bottom).map(|m| (m.min.0, m.max.0)),
                Some((0, 4))
            );
            let empty = view_in(&s, "empty", Vec::<f64>::new());
            assert_eq!(
                (reduce(&s, &empty, Sum, None), minmax_element(&s, &empty)),
                (0.0, None)
            );
            assert!(all_of(&s, &empty, never()) && !any_of(&s, &empty, nan()));
            assert!(!equal(&s, &nans, &nans), "NaN differs from itself");
            assert!(any_of(&s, &x, nan()) && !all_of(&s, &x, nan()));
        }
    };
}
