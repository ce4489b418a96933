//! Views with an extent of 0: copies of them move no bytes, and dispatches
//! over them run no iteration, whatever memory space they live in. A device
//! space allocates nothing for such a View, so its pointer lies in no
//! allocation: every copy and launch must succeed without looking it up.

macro_rules! empty_view_tests {
    () => {
        /// Empty Views of every rank-2 shape with a zero extent, in both
        /// layouts (equal mappings copy contiguously, different ones through
        /// the mapped path).
        fn empty_pairs<S: MemorySpace + Clone>(
            at: &S,
        ) -> Vec<(View2<f64, LayoutRight, S>, View2<f64, LayoutLeft, S>)> {
            [[0, 0], [0, 5], [5, 0]]
                .into_iter()
                .map(|e| {
                    (
                        View2::<f64, LayoutRight, S>::zeros_in(at.clone(), "right", e).unwrap(),
                        View2::<f64, LayoutLeft, S>::zeros_in(at.clone(), "left", e).unwrap(),
                    )
                })
                .collect()
        }

        #[test]
        fn empty_deep_copy_host_to_device_and_back() {
            let s = space();
            let shapes = empty_pairs(&s.memory_space())
                .into_iter()
                .zip(empty_pairs(&HostSpace));
            for ((mut dr, mut dl), (mut hr, mut hl)) in shapes {
                deep_copy(&mut dr, &hr).unwrap();
                deep_copy(&mut dl, &hr).unwrap();
                deep_copy(&mut dr, &hl).unwrap();
                deep_copy(&mut hr, &dr).unwrap();
                deep_copy(&mut hl, &dr).unwrap();
                deep_copy(&mut hr, &dl).unwrap();
                assert!(hr.to_vec().is_empty() && hl.to_vec().is_empty());
            }
            let d = View1::<u8, LayoutRight, _>::zeros_in(s.memory_space(), "d", 0).unwrap();
            assert!(create_mirror_view_and_copy(&d).unwrap().to_vec().is_empty());
            let h = View1::<u8, LayoutRight, _>::from_fn_in(s.memory_space(), "h", 0, |_| 1);
            assert_eq!(h.unwrap().extents(), [0]);
        }

        // Elements of no bytes (`[T; 0]` is Element): a View of several of
        // them spans 0 bytes, as an empty View does, in every direction
        // and through the mapped (strided) path too.
        #[test]
        fn zero_sized_elements_deep_copy() {
            let s = space();
            type Nothing = [u32; 0];
            let h = View2::<Nothing>::zeros("h", [3, 4]).unwrap();
            let mut d =
                View2::<Nothing, LayoutRight, _>::zeros_in(s.memory_space(), "d", [3, 4]).unwrap();
            let mut dl =
                View2::<Nothing, LayoutLeft, _>::zeros_in(s.memory_space(), "dl", [3, 4]).unwrap();
            deep_copy(&mut d, &h).unwrap();
            deep_copy(&mut dl, &h).unwrap();
            deep_copy(&mut dl, &d).unwrap();
            deep_copy(
                &mut d.subview_mut((ALL, 1..3)).unwrap(),
                &dl.subview((ALL, 0..2)).unwrap(),
            )
            .unwrap();
            let mut back = View2::<Nothing, LayoutLeft>::zeros("back", [3, 4]).unwrap();
            deep_copy(&mut back, &d).unwrap();
            assert_eq!(
                create_mirror_view_and_copy(&dl)
                    .unwrap()
                    .as_view()
                    .extents(),
                [3, 4]
            );
        }

        #[test]
        fn empty_deep_copy_device_to_device() {
            let s = space();
            let pairs = empty_pairs(&s.memory_space());
            for (mut dr, mut dl) in empty_pairs(&s.memory_space()) {
                for (sr, sl) in &pairs {
                    if dr.extents() != sr.extents() {
                        continue;
                    }
                    deep_copy(&mut dr, sr).unwrap();
                    deep_copy(&mut dl, sr).unwrap();
                    deep_copy(&mut dr, sl).unwrap();
                    deep_copy(&mut dl, sl).unwrap();
                }
            }
        }

        #[test]
        fn empty_deep_copy_host_to_host() {
            for (mut dr, mut dl) in empty_pairs(&HostSpace) {
                for (sr, sl) in empty_pairs(&HostSpace) {
                    if dr.extents() != sr.extents() {
                        continue;
                    }
                    deep_copy(&mut dr, &sr).unwrap();
                    deep_copy(&mut dl, &sr).unwrap();
                    deep_copy(&mut dr, &sl).unwrap();
                }
            }
        }

        // A zero-extent subview of a non-empty View points into (or just
        // past) a live allocation; copying into and out of it changes
        // nothing around it.
        #[test]
        fn empty_subview_deep_copy_changes_nothing() {
            let s = space();
            let mut a =
                View2::<i32, LayoutLeft, _>::from_fn_in(s.memory_space(), "a", [4, 3], |[i, j]| {
                    (10 * i + j) as i32
                })
                .unwrap();
            let before = create_mirror_view_and_copy(&a).unwrap().to_vec();
            let host = View2::<i32>::zeros("h", [4, 0]).unwrap();
            let other =
                View2::<i32, LayoutLeft, _>::zeros_in(s.memory_space(), "o", [4, 0]).unwrap();
            for cols in [0..0, 1..1, 3..3] {
                let mut sub = a.subview_mut((ALL, cols.clone())).unwrap();
                assert_eq!(sub.extents(), [4, 0]);
                deep_copy(&mut sub, &host).unwrap();
                deep_copy(&mut sub, &other).unwrap();
                let mut back = View2::<i32>::zeros("back", [4, 0]).unwrap();
                deep_copy(&mut back, &sub).unwrap();
                let mut rows = a.subview_mut((2..2, cols)).unwrap();
                let mut empty_row = View2::<i32>::zeros("r", [0, rows.extents()[1]]).unwrap();
                deep_copy(&mut rows, &empty_row).unwrap();
                deep_copy(&mut empty_row, &rows).unwrap();
            }
            assert_eq!(create_mirror_view_and_copy(&a).unwrap().to_vec(), before);
        }

        #[test]
        fn empty_views_in_dispatches() {
            let s = space();
            let mut y = View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", 0).unwrap();
            parallel_for("none", RangePolicy::new(&s, 0..0), &mut y, set_one());
            let x = View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "x", 0).unwrap();
            let sum: f64 = parallel_reduce("none", RangePolicy::new(&s, 0..0), Sum, sum_x(&x));
            assert_eq!(sum, 0.0);
            let mut m =
                View2::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "m", [0, 5]).unwrap();
            parallel_for(
                "none",
                MDRangePolicy::new(&s, [0, 0], [0, 5]),
                &mut m,
                hit2(),
            );
            let count: usize = parallel_reduce(
                "none",
                MDRangePolicy::new(&s, [0, 0], [0, 5]),
                Sum,
                count2(),
            );
            assert_eq!(count, 0);
            s.fence();
        }

        // An empty subview of a non-empty View, read and written by
        // dispatches of an empty range: the parent is untouched.
        #[test]
        fn empty_subviews_in_dispatches() {
            let s = space();
            let mut a =
                View2::<f64, LayoutLeft, _>::zeros_in(s.memory_space(), "a", [4, 3]).unwrap();
            for cols in [0..0, 2..2, 3..3] {
                let mut col = a.subview_mut((1, cols.clone())).unwrap();
                parallel_for("none", RangePolicy::new(&s, 0..0), &mut col, set_one());
                let read = a.subview((ALL, cols)).unwrap();
                let row = read.subview((ALL, 0..0)).unwrap();
                assert_eq!(row.extents(), [4, 0]);
            }
            let x = View1::<f64, LayoutRight, _>::full_in(s.memory_space(), "x", 6, 2.0).unwrap();
            for at in [0, 3, 6] {
                let part = x.subview(at..at).unwrap();
                let sum: f64 =
                    parallel_reduce("none", RangePolicy::new(&s, 0..0), Sum, sum_part(&part));
                assert_eq!(sum, 0.0);
            }
            s.fence();
            assert!(create_mirror_view_and_copy(&a)
                .unwrap()
                .to_vec()
                .iter()
                .all(|&v| v == 0.0));
        }
    };
}
