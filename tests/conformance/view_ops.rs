//! `fill` and `resize`/`realloc` of Views in the space's own memory: the
//! same elements on every space, every layout and subview, and on a device
//! the fill is ordered with the dispatches around it.

macro_rules! view_ops_tests {
    () => {
        mod view_ops {
            use super::*;

            #[test]
            fn fill_sets_every_element_in_every_layout_and_width() {
                let s = space();
                let m = s.memory_space();
                let mut a =
                    View2::<f64, LayoutRight, _>::zeros_in(m.clone(), "a", [37, 3]).unwrap();
                fill(&mut a, -2.5).unwrap();
                assert_eq!(
                    create_mirror_view_and_copy(&a).unwrap().to_vec(),
                    vec![-2.5; 111]
                );
                let mut b =
                    View3::<u8, LayoutLeft, _>::zeros_in(m.clone(), "b", [5, 4, 3]).unwrap();
                fill(&mut b, 0xa5).unwrap();
                assert_eq!(
                    create_mirror_view_and_copy(&b).unwrap().to_vec(),
                    vec![0xa5; 60]
                );
                let mut c = View1::<i16, LayoutRight, _>::zeros_in(m.clone(), "c", 1001).unwrap();
                fill(&mut c, -3).unwrap();
                assert_eq!(
                    create_mirror_view_and_copy(&c).unwrap().to_vec(),
                    vec![-3; 1001]
                );
                let mut d = View1::<u32, LayoutRight, _>::zeros_in(m, "d", 0).unwrap();
                fill(&mut d, 1).unwrap();
            }

            #[test]
            fn fill_of_a_subview_leaves_the_rest_alone() {
                let s = space();
                let f = |[i, k]: [usize; 2]| (10 * i + k) as i64;
                let mut a =
                    View2::<i64, LayoutRight, _>::from_fn_in(s.memory_space(), "a", [6, 3], f)
                        .unwrap();
                fill(&mut a.subview_mut((ALL, 1)).unwrap(), -1).unwrap();
                fill(&mut a.subview_mut((4..6, ALL)).unwrap(), 7).unwrap();
                let mut l =
                    View2::<i64, LayoutLeft, _>::from_fn_in(s.memory_space(), "l", [6, 3], f)
                        .unwrap();
                fill(&mut l.subview_mut((2, ALL)).unwrap(), 9).unwrap();
                let (a, l) = (
                    create_mirror_view_and_copy(&a).unwrap(),
                    create_mirror_view_and_copy(&l).unwrap(),
                );
                a.as_view().for_each(|[i, k], &v| {
                    let want = if i >= 4 {
                        7
                    } else if k == 1 {
                        -1
                    } else {
                        f([i, k])
                    };
                    assert_eq!(v, want, "a at {:?}", [i, k]);
                });
                l.as_view().for_each(|[i, k], &v| {
                    assert_eq!(v, if i == 2 { 9 } else { f([i, k]) }, "l at {:?}", [i, k]);
                });
            }

            #[test]
            fn fill_is_ordered_with_the_dispatches_around_it() {
                let s = space();
                let n = 10_007;
                let x = View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, |i| {
                    i as f64
                })
                .unwrap();
                let mut y =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
                for step in 0..3 {
                    fill(&mut y, step as f64).unwrap();
                    parallel_for("axpy", RangePolicy::new(&s, 0..n), &mut y, axpy(2.0, &x));
                }
                let y = create_mirror_view_and_copy(&y).unwrap();
                for i in [0, 1, 5000, n - 1] {
                    assert_eq!(y[i], 2.0 * i as f64 + 2.0, "y[{i}]");
                }
            }

            #[test]
            fn resize_keeps_the_overlap_and_zeroes_the_rest() {
                let s = space();
                let f = |[i, k]: [usize; 2]| (10 * i + k) as i32 + 1;
                let mut r =
                    View2::<i32, LayoutRight, _>::from_fn_in(s.memory_space(), "r", [4, 3], f)
                        .unwrap();
                let mut l =
                    View2::<i32, LayoutLeft, _>::from_fn_in(s.memory_space(), "l", [4, 3], f)
                        .unwrap();
                r.resize([6, 3]).unwrap();
                l.resize([3, 5]).unwrap();
                assert_eq!((r.label(), r.extents(), l.extents()), ("r", [6, 3], [3, 5]));
                let (r, l) = (
                    create_mirror_view_and_copy(&r).unwrap(),
                    create_mirror_view_and_copy(&l).unwrap(),
                );
                r.as_view().for_each(|[i, k], &v| {
                    assert_eq!(v, if i < 4 { f([i, k]) } else { 0 }, "r at {:?}", [i, k]);
                });
                l.as_view().for_each(|[i, k], &v| {
                    assert_eq!(v, if k < 3 { f([i, k]) } else { 0 }, "l at {:?}", [i, k]);
                });
            }

            #[test]
            fn a_growing_list_keeps_its_prefix_through_resizes() {
                let s = space();
                let mut list =
                    View1::<u32, LayoutRight, _>::from_fn_in(s.memory_space(), "list", 3, |i| {
                        i as u32 + 1
                    })
                    .unwrap();
                for n in [5, 11, 2, 9] {
                    list.resize(n).unwrap();
                }
                let got = create_mirror_view_and_copy(&list).unwrap().to_vec();
                assert_eq!(got, [1, 2, 0, 0, 0, 0, 0, 0, 0]);
                list.realloc(4).unwrap();
                assert_eq!(create_mirror_view_and_copy(&list).unwrap().to_vec(), [0; 4]);
            }
        }
    };
}
