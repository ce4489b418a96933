//! Stream compaction against sequential filters: order kept, counts,
//! in place, strided, counted variants.

macro_rules! compact_tests {
    () => {
        #[test]
        fn copy_if_keeps_order_at_every_size() {
            let s = space();
            let mut rng = Rng::new(11);
            for n in all_sizes() {
                let data = rng.vec(n, |r| (r % 3) as i64);
                let x = view_in(&s, "x", data.clone());
                let mut y = view_in(&s, "y", vec![-1i64; n]);
                let k = copy_if(&s, &x, &mut y, nonzero()).unwrap();
                let expect: Vec<i64> = data.iter().copied().filter(|&v| v != 0).collect();
                let got = read(&y);
                assert_eq!(&got[..k], &expect[..], "n {n}");
                assert!(
                    got[k..].iter().all(|&v| v == -1),
                    "n {n}: written past the count"
                );
            }
        }

        #[test]
        fn compactions_of_views_that_start_mid_line_keep_order() {
            // A subview from index 1 is unit-stride but not 16-byte
            // aligned: the device drivers read such runs one element at a
            // time, aligned ones in 16-byte pieces.
            let s = space();
            let mut rng = Rng::new(12);
            for n in [1, 31, 32, 33, 8192 * 2 + 7] {
                let data = rng.vec(n + 1, |r| (r % 5) as i32);
                let x = view_in(&s, "x", data.clone());
                let inner = x.subview(1..n + 1).unwrap();
                let mut y = view_in(&s, "y", vec![-1i32; n]);
                let k = copy_if(&s, &inner, &mut y, below(3)).unwrap();
                let expect: Vec<i32> = data[1..].iter().copied().filter(|&v| v < 3).collect();
                assert_eq!(read(&y)[..k], expect[..], "n {n}");
                let mut v = view_in(&s, "v", data.clone());
                let mut tail = v.subview_mut(1..n + 1).unwrap();
                let k = unique(&s, &mut tail);
                let mut dedup = data[1..].to_vec();
                dedup.dedup();
                assert_eq!(read(&v)[1..k + 1], dedup[..], "n {n}");
                assert_eq!(read(&v)[0], data[0], "n {n}: written before the subview");
            }
        }

        #[test]
        fn compactions_past_the_streaming_size_keep_order() {
            // Above 16 MiB the host compactions stream their output, in
            // flushes cut at cache lines wherever a block's run starts.
            let s = space();
            let n = past_the_caches((1usize << 21) + 37);
            // Values record their index, so order and place are checked.
            let data = Rng::new(13).vec(n, |r| (r << 24) | (r % 5));
            let data: Vec<u64> = data.iter().zip(0..).map(|(&v, i)| v ^ i).collect();
            let x = view_in(&s, "x", data.clone());
            let keep = |v: &u64| v & 3 == 0;
            let want: Vec<u64> = data.iter().copied().filter(keep).collect();
            let rest: Vec<u64> = data.iter().copied().filter(|v| !keep(v)).collect();
            let mut y = view_in(&s, "y", vec![u64::MAX; n]);
            let k = copy_if(&s, &x, &mut y, multiple_of_4()).unwrap();
            let got = read(&y);
            assert!(
                got[..k] == want[..],
                "copy_if: {k} kept, {} expected",
                want.len()
            );
            assert!(
                got[k..].iter().all(|&v| v == u64::MAX),
                "copy_if: past the count"
            );
            let mut t = view_in(&s, "t", vec![u64::MAX; n]);
            let mut f = view_in(&s, "f", vec![u64::MAX; n]);
            let (a, b) = partition_copy(&s, &x, &mut t, &mut f, multiple_of_4()).unwrap();
            assert_eq!((a, b), (want.len(), rest.len()));
            assert!(read(&t)[..a] == want[..], "partition_copy: kept");
            assert!(read(&f)[..b] == rest[..], "partition_copy: rejected");
            // Flags index the input by position: blocks packed a piece at
            // a time must still ask for the right ones.
            let flags: Vec<u8> = data.iter().map(|v| u8::from(keep(v))).collect();
            let fl = view_in(&s, "flags", flags);
            let mut z = view_in(&s, "z", vec![u64::MAX; n]);
            let k = compact_by_flags(&s, &x, &fl, &mut z).unwrap();
            assert!(read(&z)[..k] == want[..], "compact_by_flags");
            // 4-byte elements take blocks of their own length, and a run
            // that starts mid-line in an output that does too.
            let n = past_the_caches((1usize << 22) + 37);
            let data = Rng::new(17).vec(n, |r| (r % 1000) as i32);
            let x = view_in(&s, "x32", data.clone());
            let want: Vec<i32> = data.iter().copied().filter(|&v| v < 300).collect();
            let mut y = view_in(&s, "y32", vec![-1i32; n + 1]);
            let mut tail = y.subview_mut(1..n + 1).unwrap();
            let k = copy_if(&s, &x, &mut tail, below(300)).unwrap();
            let got = read(&y);
            assert!(got[1..k + 1] == want[..], "copy_if i32: {k} kept");
            assert!(
                got[0] == -1 && got[k + 1..].iter().all(|&v| v == -1),
                "copy_if i32: written outside the run"
            );
        }

        #[test]
        fn remove_if_and_unique_work_in_place() {
            let s = space();
            let mut rng = Rng::new(12);
            for n in all_sizes() {
                // values recording their index, so order is checked too
                let data = rng.vec(n, |r| r);
                let expect: Vec<u64> = data.iter().copied().filter(|&v| v % 4 != 0).collect();
                let mut x = view_in(&s, "x", data.clone());
                let k = remove_if(&s, &mut x, multiple_of_4());
                assert_eq!(&read(&x)[..k], &expect[..], "remove_if n {n}");
                let runs = rng.vec(n, |r| (r % 3 == 0) as u32);
                let mut run_vals = Vec::with_capacity(n);
                let mut v = 0u32;
                for &step in &runs {
                    v += step;
                    run_vals.push(v);
                }
                let mut expect = run_vals.clone();
                expect.dedup();
                let mut x = view_in(&s, "x", run_vals);
                let k = unique(&s, &mut x);
                assert_eq!(&read(&x)[..k], &expect[..], "unique n {n}");
            }
        }

        #[test]
        fn partition_flags_and_counted_compactions() {
            let s = space();
            let mut rng = Rng::new(13);
            for n in sizes() {
                let data = rng.vec(n, |r| (r % 1000) as i32);
                let x = view_in(&s, "x", data.clone());
                let (yes, no): (Vec<i32>, Vec<i32>) = data.iter().partition(|&&v| v < 300);
                let mut t = view_in(&s, "t", vec![0; n]);
                let mut f = view_in(&s, "f", vec![0; n]);
                let (a, b) = partition_copy(&s, &x, &mut t, &mut f, below(300)).unwrap();
                assert_eq!(
                    (&read(&t)[..a], &read(&f)[..b]),
                    (&yes[..], &no[..]),
                    "n {n}"
                );
                let mut t = view_in(&s, "t", vec![0; yes.len()]);
                let mut f = view_in(&s, "f", vec![0; no.len()]);
                let (a, b) = partition_copy_counted(&s, &x, &mut t, &mut f, below(300)).unwrap();
                assert_eq!(
                    (read(&t), read(&f), a, b),
                    (yes.clone(), no.clone(), yes.len(), no.len())
                );
                let mut exact = view_in(&s, "exact", vec![0; yes.len()]);
                assert_eq!(
                    copy_if_counted(&s, &x, &mut exact, below(300)).unwrap(),
                    yes.len()
                );
                assert_eq!(read(&exact), yes);
                let flags: Vec<u8> = data.iter().map(|&v| (v % 2) as u8).collect();
                let fl = view_in(&s, "flags", flags);
                let mut y = view_in(&s, "y", vec![0; n]);
                let k = compact_by_flags(&s, &x, &fl, &mut y).unwrap();
                let odd: Vec<i32> = data.iter().copied().filter(|v| v % 2 == 1).collect();
                assert_eq!(&read(&y)[..k], &odd[..], "flags n {n}");
                // strided input and output
                let mut wide = Vec::with_capacity(2 * n);
                for &v in &data {
                    wide.extend([v, -1]);
                }
                let w =
                    View2::<i32, LayoutRight, _>::from_vec_in(s.memory_space(), "w", [n, 2], wide)
                        .unwrap();
                let mut out =
                    View2::<i32, LayoutRight, _>::full_in(s.memory_space(), "out", [n, 2], 7)
                        .unwrap();
                let k = copy_if(
                    &s,
                    &w.subview((ALL, 0)).unwrap(),
                    &mut out.subview_mut((ALL, 1)).unwrap(),
                    below(300),
                )
                .unwrap();
                let got = create_mirror_view_and_copy(&out).unwrap();
                assert_eq!(k, yes.len());
                assert!(
                    (0..k).all(|i| got[[i, 1]] == yes[i] && got[[i, 0]] == 7),
                    "strided n {n}"
                );
            }
        }

        #[test]
        fn removals_and_unique_copy_match_std() {
            let s = space();
            let mut rng = Rng::new(65);
            for n in sizes() {
                let d = rng.vec(n, |r| (r % 4) as i64);
                let x = view_in(&s, "x", d.clone());
                let mut y = view_in(&s, "y", vec![-9i64; n]);
                let kept: Vec<i64> = d.iter().copied().filter(|&v| v != 2).collect();
                assert_eq!(remove_copy(&s, &x, &mut y, 2).unwrap(), kept.len(), "n {n}");
                assert_eq!(read(&y)[..kept.len()], kept[..]);
                let small: Vec<i64> = d.iter().copied().filter(|&v| v <= 1).collect();
                assert_eq!(
                    remove_copy_if(&s, &x, &mut y, above(1)).unwrap(),
                    small.len()
                );
                assert_eq!(read(&y)[..small.len()], small[..], "n {n}");
                let mut runs = d.clone();
                runs.dedup();
                assert_eq!(unique_copy(&s, &x, &mut y).unwrap(), runs.len(), "n {n}");
                assert_eq!(read(&y)[..runs.len()], runs[..]);
                assert_eq!(read(&x), d, "the input is not written");
                let mut z = view_in(&s, "z", d.clone());
                assert_eq!(remove(&s, &mut z, 2), kept.len());
                assert_eq!(read(&z)[..kept.len()], kept[..], "n {n}");
                if n > 0 {
                    let mut short = view_in(&s, "short", vec![5i64; n - 1]);
                    assert!(remove_copy(&s, &x, &mut short, 2).is_err());
                    assert!(unique_copy(&s, &x, &mut short).is_err());
                    assert_eq!(read(&short), vec![5; n - 1], "nothing written");
                }
            }
        }
    };
}
