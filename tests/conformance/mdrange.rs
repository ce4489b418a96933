//! MDRangePolicy: tiles, iteration orders, ranks 2 to 6, writes of (i, j, ..).

macro_rules! mdrange_tests {
    () => {
        #[test]
        fn mdrange_rank2_tiles_3x3_visit_each_once() {
            let s = space();
            let (n0, n1) = (31, 17);
            for (outer, inner) in [
                (Iterate::Right, Iterate::Right),
                (Iterate::Left, Iterate::Left),
                (Iterate::Right, Iterate::Left),
            ] {
                let mut hits =
                    View2::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "hits", [n0, n1])
                        .unwrap();
                let p = MDRangePolicy::new(&s, [0, 0], [n0, n1])
                    .with_tiles([3, 3])
                    .with_iterate(outer, inner);
                parallel_for("visit", p, &mut hits, hit2());
                let hits = create_mirror_view_and_copy(&hits).unwrap();
                assert!(hits.to_vec().iter().all(|&h| h == 1));
                let count: usize = parallel_reduce("count", p, Sum, count2());
                assert_eq!(count, n0 * n1);
            }
        }

        #[test]
        fn mdrange_writes_element_ij_with_lower_bounds() {
            let s = space();
            let mut a =
                View2::<i64, LayoutLeft, _>::zeros_in(s.memory_space(), "a", [6, 5]).unwrap();
            parallel_for(
                "ij",
                MDRangePolicy::new(&s, [1, 2], [6, 5]).with_tiles([2, 2]),
                &mut a,
                ten_i_plus_j(),
            );
            let a = create_mirror_view_and_copy(&a).unwrap();
            for i in 0..6 {
                for j in 0..5 {
                    let e = if i >= 1 && j >= 2 {
                        (10 * i + j) as i64
                    } else {
                        0
                    };
                    assert_eq!(a[[i, j]], e, "({i},{j})");
                }
            }
        }

        #[test]
        fn mdrange_ranks_3_to_6() {
            let s = space();
            let r3: usize = parallel_reduce(
                "r3",
                MDRangePolicy::new(&s, [0; 3], [4, 5, 6]).with_tiles([2, 2, 2]),
                Sum,
                sum_ijk(),
            );
            assert_eq!(
                r3,
                (0..4)
                    .flat_map(|i| (0..5).flat_map(move |j| (0..6).map(move |k| i + j + k)))
                    .sum::<usize>()
            );
            let mut v4 =
                View4::<u8, LayoutRight, _>::zeros_in(s.memory_space(), "v4", [2, 3, 2, 3])
                    .unwrap();
            parallel_for(
                "r4",
                MDRangePolicy::new(&s, [0; 4], [2, 3, 2, 3])
                    .with_iterate(Iterate::Left, Iterate::Left),
                &mut v4,
                bump_u8(),
            );
            let v4 = create_mirror_view_and_copy(&v4).unwrap();
            assert!(v4.to_vec().iter().all(|&x| x == 1));
            let r5: usize = parallel_reduce(
                "r5",
                MDRangePolicy::new(&s, [0; 5], [2, 2, 3, 2, 2]).with_tiles([1, 2, 2, 1, 2]),
                Sum,
                count5(),
            );
            assert_eq!(r5, 48);
            let mut v6 =
                View6::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "v6", [2, 2, 2, 2, 2, 3])
                    .unwrap();
            parallel_for(
                "r6",
                MDRangePolicy::new(&s, [0; 6], [2, 2, 2, 2, 2, 3]),
                &mut v6,
                linear6(),
            );
            assert_eq!(
                create_mirror_view_and_copy(&v6).unwrap().to_vec(),
                (0..96).collect::<Vec<u32>>()
            );
        }

        #[test]
        fn mdrange_reduce_maxloc_and_empty() {
            let s = space();
            let a = View2::<f64, LayoutRight, _>::from_fn_in(
                s.memory_space(),
                "a",
                [40, 30],
                |[i, j]| -(((i as f64) - 17.0).powi(2) + ((j as f64) - 3.0).powi(2)),
            )
            .unwrap();
            let r = parallel_reduce(
                "peak",
                MDRangePolicy::new(&s, [0, 0], [40, 30]).with_tiles([7, 4]),
                MaxLoc,
                peak_of(&a),
            );
            assert_eq!((r.val, r.loc), (0.0, [17, 3]));
            let e: i32 = parallel_reduce(
                "empty",
                MDRangePolicy::new(&s, [3, 0], [3, 9]),
                Max,
                set_five(),
            );
            assert_eq!(e, i32::MIN);
        }

        #[test]
        fn an_empty_box_needs_no_elements_of_its_written_view() {
            let s = space();
            let mut none =
                View2::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "none", [0, 4]).unwrap();
            parallel_for(
                "empty box",
                MDRangePolicy::new(&s, [3, 0], [3, 9]),
                &mut none,
                ten_i_plus_j(),
            );
            let mut small =
                View2::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "small", [2, 2]).unwrap();
            parallel_for(
                "empty box",
                MDRangePolicy::new(&s, [0, 5], [8, 5]),
                &mut small,
                ten_i_plus_j(),
            );
            assert_eq!(
                create_mirror_view_and_copy(&small).unwrap().to_vec(),
                vec![0; 4]
            );
        }
    };
}
