//! The element-wise algorithms against `std`'s slice methods on the same
//! data: maps, copies, fills, generators, replacements, differences and
//! reorderings, on contiguous and strided Views and subviews, with the
//! errors that leave the output untouched.

macro_rules! transform_tests {
    () => {
        #[test]
        fn maps_and_copies_match_std() {
            let s = space();
            let mut rng = Rng::new(61);
            for n in sizes() {
                let d = rng.vec(n, |r| (r % 11) as i64 - 5);
                let e = rng.vec(n, |r| (r % 7) as i64);
                let x = view_in(&s, "x", d.clone());
                let b = view_in(&s, "b", e.clone());
                // One more element than needed: the tail stays.
                let mut y = view_in(&s, "y", vec![99i64; n + 1]);
                let with_tail = |mut v: Vec<i64>| {
                    v.push(99);
                    v
                };
                assert_eq!(transform(&s, &x, &mut y, square()).unwrap(), n);
                assert_eq!(
                    read(&y),
                    with_tail(d.iter().map(|v| v * v).collect()),
                    "n {n}"
                );
                transform_binary(&s, &x, &b, &mut y, weighted()).unwrap();
                let w: Vec<i64> = d.iter().zip(&e).map(|(p, q)| 3 * p - q).collect();
                assert_eq!(read(&y), with_tail(w), "n {n}");
                assert_eq!(copy(&s, &x, &mut y).unwrap(), n);
                assert_eq!(read(&y), with_tail(d.clone()));
                replace_copy(&s, &b, &mut y, 3, -1).unwrap();
                let r: Vec<i64> = e.iter().map(|&v| if v == 3 { -1 } else { v }).collect();
                assert_eq!(read(&y), with_tail(r));
                replace_copy_if(&s, &x, &mut y, above(2), 0).unwrap();
                let r: Vec<i64> = d.iter().map(|&v| if v > 2 { 0 } else { v }).collect();
                assert_eq!(read(&y), with_tail(r));
                adjacent_difference(&s, &x, &mut y).unwrap();
                let diff = |f: &dyn Fn(i64, i64) -> i64| -> Vec<i64> {
                    (0..n)
                        .map(|i| if i == 0 { d[0] } else { f(d[i], d[i - 1]) })
                        .collect()
                };
                assert_eq!(read(&y), with_tail(diff(&|p, q| p - q)), "n {n}");
                adjacent_difference_by(&s, &x, &mut y, larger()).unwrap();
                assert_eq!(read(&y), with_tail(diff(&|p, q| p.max(q))), "n {n}");
                reverse_copy(&s, &x, &mut y).unwrap();
                let mut rev = d.clone();
                rev.reverse();
                assert_eq!(read(&y), with_tail(rev), "n {n}");
                for middle in [0, n / 3, n] {
                    rotate_copy(&s, &x, middle, &mut y).unwrap();
                    let mut rot = d.clone();
                    rot.rotate_left(middle);
                    assert_eq!(read(&y), with_tail(rot), "n {n} middle {middle}");
                }
                // Copies into the back, of a prefix, and moves.
                let mut z = view_in(&s, "z", vec![7i64; n + 2]);
                assert_eq!(copy_backward(&s, &x, &mut z).unwrap(), 2);
                assert_eq!(read(&z), [vec![7, 7], d.clone()].concat());
                assert_eq!(move_backward(&s, &b, &mut z).unwrap(), 2);
                assert_eq!(read(&z), [vec![7, 7], e.clone()].concat());
                assert_eq!(r#move(&s, &x, &mut z).unwrap(), n);
                let before = [vec![7, 7], e.clone()].concat();
                assert_eq!(read(&z), [d.clone(), before[n..].to_vec()].concat());
                let k = n / 2;
                assert_eq!(copy_n(&s, &b, k, &mut z).unwrap(), k);
                assert_eq!(read(&z)[..k], e[..k]);
                assert_eq!(read(&z)[k..n], d[k..]);
            }
        }

        #[test]
        fn updates_in_place_match_std() {
            let s = space();
            let mut rng = Rng::new(62);
            for n in sizes() {
                let d = rng.vec(n, |r| (r % 9) as i64 - 4);
                let mut x = view_in(&s, "x", d.clone());
                for_each(&s, &mut x, twice_plus(1));
                let mut want: Vec<i64> = d.iter().map(|v| 2 * v + 1).collect();
                assert_eq!(read(&x), want, "n {n}");
                replace(&s, &mut x, 1, 100);
                want.iter_mut().filter(|v| **v == 1).for_each(|v| *v = 100);
                assert_eq!(read(&x), want);
                replace_if(&s, &mut x, under(0), 0);
                want.iter_mut().filter(|v| **v < 0).for_each(|v| *v = 0);
                assert_eq!(read(&x), want);
                let k = n / 3;
                assert_eq!(for_each_n(&s, &mut x, k, twice_plus(0)).unwrap(), k);
                want[..k].iter_mut().for_each(|v| *v *= 2);
                assert_eq!(read(&x), want);
                generate(&s, &mut x, index_pattern(5));
                want = (0..n).map(|i| (i as i64 * 5) % 17).collect();
                assert_eq!(read(&x), want, "n {n}");
                assert_eq!(generate_n(&s, &mut x, k, index_pattern(3)).unwrap(), k);
                (0..k).for_each(|i| want[i] = (i as i64 * 3) % 17);
                assert_eq!(read(&x), want);
                granule::algorithms::fill(&s, &mut x, -8);
                assert_eq!(read(&x), vec![-8; n]);
                assert_eq!(fill_n(&s, &mut x, k, 4).unwrap(), k);
                assert_eq!(read(&x), [vec![4; k], vec![-8; n - k]].concat());
            }
        }

        #[test]
        fn reorderings_in_place_match_std() {
            let s = space();
            let mut rng = Rng::new(63);
            for n in sizes() {
                let d = rng.vec(n, |r| r as i64);
                let mut x = view_in(&s, "x", d.clone());
                reverse(&s, &mut x);
                let mut want = d.clone();
                want.reverse();
                assert_eq!(read(&x), want, "n {n}");
                for middle in [0, 1.min(n), n / 2, n.saturating_sub(3), n] {
                    let mut x = view_in(&s, "x", d.clone());
                    assert_eq!(rotate(&s, &mut x, middle).unwrap(), n - middle);
                    let mut want = d.clone();
                    want.rotate_left(middle);
                    assert_eq!(read(&x), want, "n {n} middle {middle}");
                }
                for k in [0, 1, n / 4, n, n + 1] {
                    let mut x = view_in(&s, "x", d.clone());
                    let end = shift_left(&s, &mut x, k);
                    let moved = if k < n { n - k } else { 0 };
                    assert_eq!(end, if k == 0 { n } else { moved }, "n {n} k {k}");
                    let got = read(&x);
                    if k >= n {
                        assert_eq!(got, d);
                    } else {
                        assert_eq!(got[..n - k], d[k..], "n {n} k {k}");
                    }
                    let mut x = view_in(&s, "x", d.clone());
                    let start = shift_right(&s, &mut x, k);
                    assert_eq!(start, k.min(n), "n {n} k {k}");
                    let got = read(&x);
                    if k >= n {
                        assert_eq!(got, d);
                    } else {
                        assert_eq!(got[k..], d[..n - k], "n {n} k {k}");
                    }
                }
                let e = rng.vec(n + 1, |r| -(r as i64));
                let mut a = view_in(&s, "a", d.clone());
                let mut b = view_in(&s, "b", e.clone());
                assert_eq!(swap_ranges(&s, &mut a, &mut b).unwrap(), n);
                assert_eq!(read(&a), e[..n]);
                assert_eq!(read(&b), [d.clone(), vec![e[n]]].concat());
                if n >= 2 {
                    let mut x = view_in(&s, "x", d.clone());
                    iter_swap(&s, &mut x, n - 1, 0).unwrap();
                    iter_swap(&s, &mut x, 1, 1).unwrap();
                    let mut want = d.clone();
                    want.swap(0, n - 1);
                    assert_eq!(read(&x), want);
                }
            }
        }

        #[test]
        fn elementwise_algorithms_on_strided_views() {
            let s = space();
            let mut rng = Rng::new(64);
            for n in sizes() {
                let d = rng.vec(n, |r| (r % 100) as i64);
                let mut wide = Vec::with_capacity(2 * n);
                for &v in &d {
                    wide.extend([v, -1]);
                }
                let mut w =
                    View2::<i64, LayoutRight, _>::from_vec_in(s.memory_space(), "w", [n, 2], wide)
                        .unwrap();
                let mut y = view_in(&s, "y", vec![0i64; n]);
                transform(&s, &w.subview((ALL, 0)).unwrap(), &mut y, square()).unwrap();
                assert_eq!(
                    read(&y),
                    d.iter().map(|v| v * v).collect::<Vec<_>>(),
                    "n {n}"
                );
                {
                    let mut col = w.subview_mut((ALL, 1)).unwrap();
                    copy(&s, &y, &mut col).unwrap();
                    reverse(&s, &mut col);
                }
                let got = create_mirror_view_and_copy(&w).unwrap();
                assert!((0..n).all(|i| got[[i, 0]] == d[i]), "n {n}: column 0 kept");
                assert!(
                    (0..n).all(|i| got[[i, 1]] == d[n - 1 - i] * d[n - 1 - i]),
                    "n {n}"
                );
                let mut col = w.subview_mut((ALL, 0)).unwrap();
                let middle = n / 3;
                rotate(&s, &mut col, middle).unwrap();
                replace_if(&s, &mut col, above(50), 50);
                let mut want = d.clone();
                want.rotate_left(middle);
                want.iter_mut().for_each(|v| *v = (*v).min(50));
                let got = create_mirror_view_and_copy(&w).unwrap();
                assert!((0..n).all(|i| got[[i, 0]] == want[i]), "n {n}");
            }
        }

        #[test]
        fn elementwise_errors_write_nothing() {
            let s = space();
            let x = view_in(&s, "x", vec![1i64, 2, 3, 4]);
            let mut short = view_in(&s, "short", vec![0i64; 3]);
            let e = transform(&s, &x, &mut short, square()).unwrap_err();
            assert!(
                matches!(e, AlgorithmError::OutputTooSmall { needed: 4, .. }),
                "{e}"
            );
            assert!(e.to_string().contains("\"short\" [3]"), "{e}");
            assert!(copy(&s, &x, &mut short).is_err());
            assert!(copy_backward(&s, &x, &mut short).is_err());
            let b = view_in(&s, "b", vec![1i64; 3]);
            let mut y = view_in(&s, "y", vec![0i64; 4]);
            let e = transform_binary(&s, &x, &b, &mut y, weighted()).unwrap_err();
            assert!(matches!(e, AlgorithmError::LengthMismatch { .. }), "{e}");
            let e = copy_n(&s, &x, 5, &mut y).unwrap_err();
            assert!(
                matches!(
                    e,
                    AlgorithmError::OutOfRange {
                        value: 5,
                        len: 4,
                        ..
                    }
                ),
                "{e}"
            );
            assert!(e.to_string().contains("count 5"), "{e}");
            assert!(rotate_copy(&s, &x, 5, &mut y).is_err());
            let mut z = view_in(&s, "z", vec![1i64, 2, 3, 4]);
            assert!(rotate(&s, &mut z, 5).is_err());
            assert!(fill_n(&s, &mut z, 5, 0).is_err());
            assert!(iter_swap(&s, &mut z, 0, 4).is_err());
            let mut b = view_in(&s, "b", vec![1i64; 3]);
            assert!(swap_ranges(&s, &mut z, &mut b).is_err());
            assert_eq!(read(&short), [0; 3]);
            assert_eq!(read(&y), [0; 4]);
            assert_eq!(read(&z), [1, 2, 3, 4]);
            assert_eq!(read(&b), [1; 3]);
        }
    };
}
