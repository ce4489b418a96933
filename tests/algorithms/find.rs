//! The searches against `std`'s slice and iterator methods on the same
//! data: first matches, counts, adjacent pairs, sorted prefixes,
//! mismatches, lexicographic order and partitions, on contiguous and
//! strided Views and subviews.

/// The first index in `0..n` where `p` holds, or `n`.
pub fn first(n: usize, p: impl Fn(usize) -> bool) -> usize {
    (0..n).find(|&i| p(i)).unwrap_or(n)
}

macro_rules! find_tests {
    () => {
        #[test]
        fn searches_match_std() {
            use crate::find::first;
            let s = space();
            let mut rng = Rng::new(55);
            for n in sizes() {
                // Few distinct values: matches, runs and ties occur.
                let data = rng.vec(n, |r| (r % 13) as i64 - 6);
                let x = view_in(&s, "x", data.clone());
                let d = &data;
                assert_eq!(find(&s, &x, 5), first(n, |i| d[i] == 5), "n {n}");
                assert_eq!(find(&s, &x, 100), n);
                assert_eq!(find_if(&s, &x, above(4)), first(n, |i| d[i] > 4));
                assert_eq!(find_if_not(&s, &x, under(5)), first(n, |i| d[i] >= 5));
                assert_eq!(count(&s, &x, -6), d.iter().filter(|&&v| v == -6).count());
                let adjacent = d.windows(2).position(|w| w[0] == w[1]).unwrap_or(n);
                assert_eq!(adjacent_find(&s, &x), adjacent, "n {n}");
                let rising = d.windows(2).position(|w| w[0] < w[1]).unwrap_or(n);
                assert_eq!(adjacent_find_by(&s, &x, less()), rising, "n {n}");
                // A sorted prefix of three quarters, then the data again.
                let mut prefix = data.clone();
                prefix[..3 * n / 4].sort();
                let p = view_in(&s, "p", prefix.clone());
                let until = first(n, |i| i > 0 && prefix[i] < prefix[i - 1]);
                assert_eq!(is_sorted_until(&s, &p), until, "n {n}");
                assert_eq!(is_sorted(&s, &p), until == n);
                let descending = first(n, |i| i > 0 && prefix[i] > prefix[i - 1]);
                assert_eq!(is_sorted_until_by(&s, &p, greater_i64()), descending);
                // Partitions: the data as it is, and partitioned by `pred`.
                let neg = |v: i64| v < 0;
                let split = first(n, |i| !neg(d[i]));
                let partitioned = d[split..].iter().all(|&v| !neg(v));
                assert_eq!(is_partitioned(&s, &x, under(0)), partitioned, "n {n}");
                let (mut yes, no): (Vec<i64>, Vec<i64>) = d.iter().partition(|&&v| neg(v));
                let at = yes.len();
                yes.extend(no);
                let y = view_in(&s, "y", yes.clone());
                assert!(is_partitioned(&s, &y, under(0)), "n {n}");
                assert_eq!(partition_point(&s, &y, under(0)), at);
                assert_eq!(
                    partition_point(&s, &y, under(0)),
                    yes.partition_point(|&v| v < 0)
                );
            }
        }

        #[test]
        fn mismatches_and_lexicographic_order_match_std() {
            use crate::find::first;
            let s = space();
            let mut rng = Rng::new(56);
            for n in sizes() {
                let a = rng.vec(n, |r| (r % 5) as i64);
                let x = view_in(&s, "a", a.clone());
                // Equal, changed at the end, in the middle, and shorter.
                let mut cases = vec![a.clone(), a[..n / 2].to_vec()];
                for at in [n.saturating_sub(1), n / 3] {
                    if at < n {
                        let mut b = a.clone();
                        b[at] += 1;
                        cases.push(b.clone());
                        b[at] -= 2;
                        cases.push(b);
                    }
                }
                for b in cases {
                    let y = view_in(&s, "b", b.clone());
                    let m = n.min(b.len());
                    assert_eq!(mismatch(&s, &x, &y), first(m, |i| a[i] != b[i]), "n {n}");
                    assert_eq!(
                        mismatch_by(&s, &x, &y, same_parity()),
                        first(m, |i| (a[i] - b[i]) % 2 != 0)
                    );
                    assert_eq!(lexicographical_compare(&s, &x, &y), a < b, "n {n}");
                    assert_eq!(lexicographical_compare(&s, &y, &x), b < a, "n {n}");
                    let by_greater = a
                        .iter()
                        .map(std::cmp::Reverse)
                        .lt(b.iter().map(std::cmp::Reverse));
                    assert_eq!(
                        lexicographical_compare_by(&s, &x, &y, greater_i64()),
                        by_greater
                    );
                }
            }
        }

        #[test]
        fn searches_of_strided_views_and_subviews() {
            use crate::find::first;
            let s = space();
            let mut rng = Rng::new(57);
            for n in sizes() {
                let data = rng.vec(n, |r| (r % 7) as i64);
                let mut wide = Vec::with_capacity(2 * n);
                for &v in &data {
                    wide.extend([v, 3]);
                }
                let w =
                    View2::<i64, LayoutRight, _>::from_vec_in(s.memory_space(), "w", [n, 2], wide)
                        .unwrap();
                let col = w.subview((ALL, 0)).unwrap();
                let d = &data;
                assert_eq!(find(&s, &col, 3), first(n, |i| d[i] == 3), "n {n}");
                assert_eq!(count(&s, &col, 3), d.iter().filter(|&&v| v == 3).count());
                let adjacent = d.windows(2).position(|w| w[0] == w[1]).unwrap_or(n);
                assert_eq!(adjacent_find(&s, &col), adjacent, "n {n}");
                let threes = view_in(&s, "threes", vec![3i64; n]);
                let other = w.subview((ALL, 1)).unwrap();
                assert_eq!(mismatch(&s, &other, &threes), n);
                assert_eq!(mismatch(&s, &col, &threes), first(n, |i| d[i] != 3));
                if n > 2 {
                    let x = view_in(&s, "x", data.clone());
                    let tail = x.subview(1..n).unwrap();
                    assert_eq!(find(&s, &tail, 3), first(n - 1, |i| d[i + 1] == 3));
                    assert_eq!(
                        is_sorted_until(&s, &tail),
                        first(n - 1, |i| i > 0 && d[i + 1] < d[i])
                    );
                }
            }
        }

        #[test]
        fn searches_of_floats_follow_ieee_equality_and_order() {
            let s = space();
            let not_a_number = f64::NAN;
            let x = view_in(
                &s,
                "x",
                vec![1.0, not_a_number, not_a_number, -0.0, 0.0, 2.0],
            );
            assert_eq!(find(&s, &x, not_a_number), 6, "NaN equals nothing");
            assert_eq!(find(&s, &x, 0.0), 3, "-0.0 == 0.0");
            assert_eq!(count(&s, &x, 0.0), 2);
            assert_eq!(adjacent_find(&s, &x), 3, "NaN != NaN; -0.0 == 0.0");
            assert_eq!(is_sorted_until(&s, &x), 6, "NaN compares false both ways");
            assert_eq!(find_if(&s, &x, nan()), 1);
            assert_eq!(mismatch(&s, &x, &x), 1, "a NaN differs from itself");
            let y = view_in(&s, "y", vec![1.0, not_a_number, 5.0]);
            let z = view_in(&s, "z", vec![1.0, not_a_number, 4.0]);
            assert!(
                lexicographical_compare(&s, &z, &y),
                "the NaNs order neither way"
            );
            assert!(!lexicographical_compare(&s, &y, &z));
        }
    };
}
