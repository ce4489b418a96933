//! The searches against `std`'s slice and iterator methods on the same
//! data: first matches, counts, adjacent pairs, sorted prefixes,
//! mismatches, lexicographic order and partitions, on contiguous and
//! strided Views and subviews.

/// The first start of a window of `d` that matches `p` by `eq`, or
/// `d.len()` (0 for an empty `p`), and the last one (`d.len()` for an
/// empty `p`).
pub fn windows<T: Copy>(d: &[T], p: &[T], eq: impl Fn(T, T) -> bool) -> (usize, usize) {
    let (n, m) = (d.len(), p.len());
    if m == 0 {
        return (0, n);
    }
    if m > n {
        return (n, n);
    }
    let hit = |i: usize| (0..m).all(|j| eq(d[i + j], p[j]));
    let first = (0..=n - m).find(|&i| hit(i)).unwrap_or(n);
    let last = (0..=n - m).rev().find(|&i| hit(i)).unwrap_or(n);
    (first, last)
}

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

        #[test]
        fn pattern_searches_match_std() {
            use crate::find::{first, windows};
            let s = space();
            let mut rng = Rng::new(58);
            let eq = |a: i64, b: i64| a == b;
            let parity = |a: i64, b: i64| (a - b) % 2 == 0;
            for n in sizes() {
                let d = rng.vec(n, |r| (r % 3) as i64);
                let x = view_in(&s, "x", d.clone());
                for m in [0, 1, 2, 3, 7] {
                    // A window of the data (found) and a random one.
                    let at = n.saturating_sub(m) / 2;
                    let from_data = d[at.min(n)..(at + m).min(n)].to_vec();
                    for p in [from_data, rng.vec(m, |r| (r % 3) as i64)] {
                        let pv = view_in(&s, "p", p.clone());
                        let (first_at, last_at) = windows(&d, &p, eq);
                        assert_eq!(search(&s, &x, &pv), first_at, "n {n} m {m}");
                        assert_eq!(find_end(&s, &x, &pv), last_at, "n {n} m {m}");
                        let (first_by, last_by) = windows(&d, &p, parity);
                        assert_eq!(search_by(&s, &x, &pv, same_parity()), first_by);
                        assert_eq!(find_end_by(&s, &x, &pv, same_parity()), last_by);
                        let of = if p.is_empty() {
                            n
                        } else {
                            first(n, |i| p.contains(&d[i]))
                        };
                        assert_eq!(find_first_of(&s, &x, &pv), of, "n {n} m {m}");
                        let of_by = first(n, |i| p.iter().any(|&v| parity(d[i], v)));
                        assert_eq!(find_first_of_by(&s, &x, &pv, same_parity()), of_by);
                    }
                    let run = vec![2i64; m];
                    assert_eq!(
                        search_n(&s, &x, m, 2),
                        windows(&d, &run, eq).0,
                        "n {n} m {m}"
                    );
                    let odd = vec![1i64; m];
                    let by = search_n_by(&s, &x, m, 1, same_parity());
                    assert_eq!(by, windows(&d, &odd, parity).0, "n {n} m {m}");
                }
            }
        }

        #[test]
        fn pattern_searches_of_strided_views() {
            use crate::find::windows;
            let s = space();
            let mut rng = Rng::new(59);
            for n in sizes() {
                let d = rng.vec(n, |r| (r % 2) as i64);
                let mut wide = Vec::with_capacity(2 * n);
                for &v in &d {
                    wide.extend([v, 1 - v]);
                }
                let w =
                    View2::<i64, LayoutRight, _>::from_vec_in(s.memory_space(), "w", [n, 2], wide)
                        .unwrap();
                let (col, flip) = (w.subview((ALL, 0)).unwrap(), w.subview((ALL, 1)).unwrap());
                let p = vec![1, 0, 1];
                let pv = view_in(&s, "p", p.clone());
                let eq = |a: i64, b: i64| a == b;
                let (first_at, last_at) = windows(&d, &p, eq);
                assert_eq!(search(&s, &col, &pv), first_at, "n {n}");
                assert_eq!(find_end(&s, &col, &pv), last_at, "n {n}");
                // The flipped column searched for the column's own window.
                if n >= 3 {
                    let own = col.subview(n - 3..n).unwrap();
                    let flipped: Vec<i64> = d.iter().map(|v| 1 - v).collect();
                    let tail = d[n - 3..].to_vec();
                    assert_eq!(
                        search(&s, &flip, &own),
                        windows(&flipped, &tail, eq).0,
                        "n {n}"
                    );
                    assert_eq!(search(&s, &col, &own), windows(&d, &tail, eq).0);
                }
                assert_eq!(search_n(&s, &flip, 4, 0), windows(&d, &[1, 1, 1, 1], eq).0);
                // A run longer than any View: no window fits, nothing overflows.
                assert_eq!(search_n(&s, &col, usize::MAX, 0), n, "n {n}");
            }
        }
    };
}
