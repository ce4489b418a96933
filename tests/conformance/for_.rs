//! parallel_for over ranges: the write model.

macro_rules! for_tests {
    () => {
        #[test]
        fn for_axpy_is_a_one_liner() {
            let s = space();
            let n = 100_003;
            let a = 3.0;
            let x =
                View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, |i| i as f64)
                    .unwrap();
            let mut y = View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "y", n, |i| {
                (i % 7) as f64
            })
            .unwrap();
            parallel_for("axpy", RangePolicy::new(&s, 0..n), &mut y, axpy(a, &x));
            let y = create_mirror_view_and_copy(&y).unwrap();
            for i in [0, 1, 4095, 65_536, n - 1] {
                assert_eq!(y[i], 3.0 * i as f64 + (i % 7) as f64, "y[{i}]");
            }
        }

        #[test]
        fn for_an_untyped_accumulator_before_a_loop_of_device_calls() {
            let s = space();
            let n = 1000;
            let x = View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, |j| {
                j as f64 + 0.5
            })
            .unwrap();
            let mut y = View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
            parallel_for(
                "weighted",
                RangePolicy::new(&s, 0..n),
                &mut y,
                weighted_prefix(&x),
            );
            let y = create_mirror_view_and_copy(&y).unwrap();
            for i in [0, 1, 4, 7, n - 1] {
                let want = (0..i % 5).fold(0.0, |acc, j| acc + (j as f64 + 0.5) * (j + 1) as f64);
                assert_eq!(y[i], want, "y[{i}]");
            }
        }

        #[test]
        fn for_rows_of_a_force_view_in_both_layouts() {
            let s = space();
            let n = 301;
            let at = |[i, k]: [usize; 2]| ((i * 7 + k * 3) % 11) as f64 * 0.25;
            let x = View2::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", [n, 3], at)
                .unwrap();
            let mut f =
                View2::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "f", [n, 3]).unwrap();
            let mut g =
                View2::<f64, LayoutLeft, _>::zeros_in(s.memory_space(), "g", [n, 4]).unwrap();
            parallel_for(
                "forces",
                RangePolicy::new(&s, 0..n),
                &mut f,
                pair_forces(&x),
            );
            parallel_for(
                "forces",
                RangePolicy::new(&s, 0..n),
                &mut g,
                pair_forces(&x),
            );
            let (f, g) = (
                create_mirror_view_and_copy(&f).unwrap(),
                create_mirror_view_and_copy(&g).unwrap(),
            );
            for i in [0, 1, 150, n - 1] {
                let mut want = [0.0; 3];
                for j in (0..n).filter(|&j| j != i) {
                    let d = [0, 1, 2].map(|k| at([i, k]) - at([j, k]));
                    let s = 1.0 / (1.0 + d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                    for k in 0..3 {
                        want[k] += d[k] * s;
                    }
                }
                for k in 0..3 {
                    assert_eq!(f[[i, k]], want[k], "f[{i}, {k}]");
                    assert_eq!(g[[i, k]], want[k], "g[{i}, {k}]");
                }
                assert_eq!(g[[i, 3]], 0.0);
            }
        }

        #[test]
        fn for_segments_fill_a_banded_crs_matrix() {
            let s = space();
            let (n, w) = (1000, 2);
            let width = |i: usize| (i + w + 1).min(n) - i.saturating_sub(w);
            let mut starts = vec![0];
            for i in 0..n {
                starts.push(starts[i] + width(i));
            }
            let nnz = starts[n];
            let starts = View1::<usize, LayoutRight, _>::from_fn_in(
                s.memory_space(),
                "row_starts",
                n + 1,
                |i| starts[i],
            )
            .unwrap();
            let offsets = Offsets::new(&starts).unwrap();
            assert_eq!((offsets.count(), offsets.end()), (n, nnz));
            let mut cols =
                View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "cols", nnz).unwrap();
            let mut vals =
                View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "vals", nnz).unwrap();
            // Rows below 10 are left alone: their segments stay zero.
            parallel_for(
                "assemble",
                RangePolicy::new(&s, 10..n),
                (
                    offsets.segments(&mut cols).unwrap(),
                    offsets.segments(&mut vals).unwrap(),
                ),
                banded_row(w),
            );
            let host = create_mirror_view_and_copy(&starts).unwrap();
            let (cols, vals) = (
                create_mirror_view_and_copy(&cols).unwrap(),
                create_mirror_view_and_copy(&vals).unwrap(),
            );
            for i in 0..n {
                for e in host[i]..host[i + 1] {
                    let c = i.saturating_sub(w) + e - host[i];
                    let (want_c, want_v) = match (i < 10, c == i) {
                        (true, _) => (0, 0.0),
                        (false, true) => (c as u32, 2.0 * w as f64),
                        (false, false) => (c as u32, -1.0),
                    };
                    assert_eq!((cols[e], vals[e]), (want_c, want_v), "row {i}, entry {e}");
                }
            }
        }

        #[test]
        fn for_segments_may_be_empty_and_strided() {
            let s = space();
            // Every third work item gets no elements.
            let n = 600;
            let starts = View1::<usize, LayoutRight, _>::from_fn_in(
                s.memory_space(),
                "starts",
                n + 1,
                |i| i - i / 3,
            )
            .unwrap();
            let offsets = Offsets::new(&starts).unwrap();
            let len = offsets.end();
            // Column 1 of a [len, 2] View: stride 2.
            let mut pairs =
                View2::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "pairs", [len, 2])
                    .unwrap();
            let mut v = pairs.subview_mut((ALL, 1)).unwrap();
            parallel_for(
                "mark",
                RangePolicy::new(&s, 0..n),
                offsets.segments(&mut v).unwrap(),
                mark_segment(),
            );
            let pairs = create_mirror_view_and_copy(&pairs).unwrap();
            for e in 0..len {
                // Entry e belongs to the work item i with i - i / 3 <= e.
                let i = (0..n)
                    .rfind(|&i| i - i / 3 <= e && (i + 1) - (i + 1) / 3 > e)
                    .unwrap();
                let want = 1000 * i as i64 + (e - (i - i / 3)) as i64;
                assert_eq!((pairs[[e, 0]], pairs[[e, 1]]), (0, want), "entry {e}");
            }
        }

        #[test]
        fn for_rows_of_a_rank_3_view_beside_a_rank_1_view() {
            let s = space();
            let n = 1000;
            let mut b =
                View3::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "b", [n, 2, 3]).unwrap();
            let mut t = View1::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "t", n).unwrap();
            parallel_for(
                "block",
                RangePolicy::new(&s, 10..n),
                (&mut b, &mut t),
                row_block(),
            );
            let (b, t) = (
                create_mirror_view_and_copy(&b).unwrap(),
                create_mirror_view_and_copy(&t).unwrap(),
            );
            b.as_view().for_each(|[i, j, k], &v| {
                let want = if i < 10 {
                    0
                } else {
                    (100 * i + 10 * j + k) as i64
                };
                assert_eq!(v, want, "b[{i}, {j}, {k}]");
            });
            let sum = |i: i64| 600 * i + 36;
            assert_eq!((t[9], t[10], t[n - 1]), (0, sum(10), sum(n as i64 - 1)));
        }

        #[test]
        fn for_device_helpers_take_read_and_atomic_views() {
            let s = space();
            let n = 500;
            let x = View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, |i| {
                (i % 97) as f64
            })
            .unwrap();
            let mut y = View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
            let mut bins =
                View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "bins", 10).unwrap();
            {
                let atomic = bins.atomic().unwrap();
                parallel_for(
                    "smooth",
                    RangePolicy::new(&s, 0..n),
                    &mut y,
                    smooth_and_tally(&x, &atomic),
                );
            }
            let (y, bins) = (
                create_mirror_view_and_copy(&y).unwrap(),
                create_mirror_view_and_copy(&bins).unwrap(),
            );
            let host: Vec<f64> = (0..n).map(|i| (i % 97) as f64).collect();
            let mut want_bins = vec![0u32; 10];
            for i in 0..n {
                let (lo, hi) = (i.saturating_sub(1), (i + 1).min(n - 1));
                let m = host[lo..=hi].iter().fold(0.0, |a, v| a + v) / (hi + 1 - lo) as f64;
                assert_eq!(y[i], m, "y[{i}]");
                want_bins[(m / 10.0) as usize] += 1;
            }
            assert_eq!(bins.to_vec(), want_bins);
        }

        #[test]
        fn for_writes_several_views_and_offsets() {
            let s = space();
            let n = 50_000;
            let x =
                View1::<i64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, |i| i as i64)
                    .unwrap();
            let mut y =
                View1::<i64, LayoutRight, _>::full_in(s.memory_space(), "y", n, -1).unwrap();
            let mut z =
                View1::<i64, LayoutRight, _>::full_in(s.memory_space(), "z", n, -1).unwrap();
            for schedule in [Schedule::Static, Schedule::Dynamic] {
                for chunk in [0, 1, 333] {
                    let p = RangePolicy::new(&s, 10..n)
                        .with_schedule(schedule)
                        .with_chunk_size(chunk);
                    parallel_for("two", p, (&mut y, &mut z), double_and_next(&x));
                    let yh = create_mirror_view_and_copy(&y).unwrap();
                    let zh = create_mirror_view_and_copy(&z).unwrap();
                    assert_eq!((yh[9], zh[9]), (-1, -1));
                    assert!((10..n).all(|i| yh[i] == 2 * i as i64 && zh[i] == i as i64 + 1));
                }
            }
        }

        #[test]
        fn for_each_index_runs_exactly_once() {
            let s = space();
            let n = 70_001;
            let mut hits =
                View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "hits", n).unwrap();
            let h = hits.atomic().unwrap();
            for schedule in [Schedule::Static, Schedule::Dynamic] {
                parallel_for(
                    "once",
                    RangePolicy::new(&s, 0..n).with_schedule(schedule),
                    (),
                    count_hits(&h),
                );
            }
            let hits = create_mirror_view_and_copy(&hits).unwrap();
            assert!(hits.to_vec().iter().all(|&c| c == 2));
        }

        #[test]
        fn for_scatter_through_atomic_views() {
            let s = space();
            let mut hist =
                View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "hist", 10).unwrap();
            let h = hist.atomic().unwrap();
            parallel_for(
                "hist",
                RangePolicy::new(&s, 0..100_000),
                (),
                histogram10(&h),
            );
            let hist = create_mirror_view_and_copy(&hist).unwrap();
            assert_eq!(hist.to_vec(), vec![10_000; 10]);
        }

        // `!` of a #[device] fn's bool is a logical not on every space
        // (a bitwise one on a device would make both `!`s always true).
        #[test]
        fn for_not_of_device_fn_results() {
            let s = space();
            let n = 1000;
            let mut next =
                View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "next", n).unwrap();
            let mut skipped =
                View1::<u8, LayoutRight, _>::zeros_in(s.memory_space(), "skipped", n).unwrap();
            let mut flipped =
                View1::<u8, LayoutRight, _>::zeros_in(s.memory_space(), "flipped", n).unwrap();
            parallel_for(
                "not",
                RangePolicy::new(&s, 0..n),
                (&mut next, &mut skipped, &mut flipped),
                not_of_device_results(),
            );
            let next = create_mirror_view_and_copy(&next).unwrap().to_vec();
            let skipped = create_mirror_view_and_copy(&skipped).unwrap().to_vec();
            let flipped = create_mirror_view_and_copy(&flipped).unwrap().to_vec();
            for i in 0..n {
                let want = (i..).find(|x| x % 10 == 3).unwrap();
                assert_eq!(next[i], want as u64, "next[{i}]");
                assert_eq!(skipped[i] as usize, want - i, "skipped[{i}]");
                let flip = if i % 10 == 3 { 7 } else { !(i as u8) };
                assert_eq!(flipped[i], flip, "flipped[{i}]");
            }
        }

        // A #[device] fn and const imported from another module by a
        // plain `use` run on every space (their device definitions come
        // with the names).
        #[test]
        fn for_calls_device_items_imported_by_name() {
            let s = space();
            let n = 100;
            let x =
                View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, |i| i as f64)
                    .unwrap();
            let mut y = View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
            parallel_for(
                "imported",
                RangePolicy::new(&s, 0..n),
                &mut y,
                scaled_plus_offset(3.0, &x),
            );
            let y = create_mirror_view_and_copy(&y).unwrap().to_vec();
            for (i, y) in y.iter().enumerate() {
                assert_eq!(*y, 3.0 * i as f64 + 0.5, "y[{i}]");
            }
        }

        #[test]
        fn a_device_const_may_be_computed() {
            let s = space();
            let mut y = View1::<usize, LayoutRight, _>::zeros_in(s.memory_space(), "y", 5).unwrap();
            parallel_for(
                "row_width",
                RangePolicy::new(&s, 0..5),
                &mut y,
                times_row_width(),
            );
            let y = create_mirror_view_and_copy(&y).unwrap().to_vec();
            assert_eq!(y, [0, 48, 96, 144, 192]);
        }

        #[test]
        fn a_kernel_keeps_its_own_inline_attribute() {
            let s = space();
            let n = 40;
            let v = |i: usize| ((i * 7919) % 23) as f64;
            let x = View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, v).unwrap();
            let mut y =
                View2::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "y", [n, 2]).unwrap();
            parallel_for(
                "smaller",
                RangePolicy::new(&s, 0..n),
                &mut y,
                count_smaller_before(&x),
            );
            let y = create_mirror_view_and_copy(&y).unwrap();
            for i in 0..n {
                let want = (0..i).filter(|&j| v(j) < v(i)).count() as u32;
                assert_eq!([y[[i, 0]], y[[i, 1]]], [want, i as u32], "row {i}");
            }
        }

        #[test]
        fn for_writes_strided_views() {
            let s = space();
            let mut a =
                View2::<f64, LayoutLeft, _>::zeros_in(s.memory_space(), "a", [4, 3]).unwrap();
            {
                let mut col = a.subview_mut((ALL, 1)).unwrap();
                parallel_for(
                    "col",
                    RangePolicy::new(&s, 0..4),
                    &mut col,
                    index_plus_one(),
                );
            }
            assert_eq!(
                create_mirror_view_and_copy(&a).unwrap().to_vec(),
                vec![0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0, 4.0, 0.0]
            );
        }

        #[test]
        fn for_empty_and_single_ranges() {
            let s = space();
            let mut y = View1::<u8, LayoutRight, _>::zeros_in(s.memory_space(), "y", 3).unwrap();
            parallel_for("empty", RangePolicy::new(&s, 2..2), &mut y, set_u8(9));
            parallel_for("one", RangePolicy::new(&s, 1..2), &mut y, set_u8(7));
            assert_eq!(
                create_mirror_view_and_copy(&y).unwrap().to_vec(),
                vec![0, 7, 0]
            );
        }

        // As in Kokkos, an empty range touches no View: a written View
        // shorter than the range's end (even empty) is fine.
        #[test]
        fn an_empty_range_needs_no_elements_of_its_written_view() {
            let s = space();
            let mut none =
                View1::<u8, LayoutRight, _>::zeros_in(s.memory_space(), "none", 0).unwrap();
            parallel_for(
                "empty at 5",
                RangePolicy::new(&s, 5..5),
                &mut none,
                set_u8(9),
            );
            let mut two =
                View1::<u8, LayoutRight, _>::zeros_in(s.memory_space(), "two", 2).unwrap();
            parallel_for(
                "empty at 7",
                RangePolicy::new(&s, 7..7),
                &mut two,
                set_u8(9),
            );
            assert_eq!(
                create_mirror_view_and_copy(&two).unwrap().to_vec(),
                vec![0, 0]
            );
        }
    };
}

/// Host-space-only tests: behaviour a device space cannot have. The suite
/// instantiates them only for host spaces (`conformance_suite!(.., host_only)`).
macro_rules! for_host_only_tests {
    () => {
        // A closure, and host-only: the outer kernel launches a dispatch,
        // and a CUDA kernel cannot launch a granule dispatch (a device
        // kernel has no execution space to dispatch on).
        #[test]
        fn for_nested_dispatch_from_a_kernel() {
            let s = space();
            let mut out = View1::<usize>::zeros("out", 64).unwrap();
            parallel_for(
                "outer",
                RangePolicy::new(&s, 0..64)
                    .with_chunk_size(1)
                    .with_schedule(Schedule::Dynamic),
                &mut out,
                |i, o: &mut usize| {
                    *o = parallel_reduce(
                        "inner",
                        RangePolicy::new(&s, 0..100_000),
                        Sum,
                        |j, acc: &mut usize| *acc += j % (i + 1),
                    );
                },
            );
            for i in [0, 5, 63] {
                assert_eq!(out[i], (0..100_000).map(|j| j % (i + 1)).sum::<usize>());
            }
        }
    };
}
