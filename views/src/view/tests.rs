use crate::{
    LayoutLeft, LayoutRight, LayoutStride, View, View1, View2, View3, View4, ViewError, ViewMut,
    ViewRef, ALL,
};

/// Compile-time check of a subview's layout type.
fn layout_of<T: crate::Element, const R: usize, L: crate::Layout>(
    _: &ViewRef<'_, T, R, L>,
) -> &'static str {
    L::NAME
}

#[test]
fn constructors_fill_and_round_trip() {
    let z = View3::<f64>::zeros("z", [2, 3, 4]).unwrap();
    assert!(z.to_vec().iter().all(|&x| x == 0.0));
    assert_eq!((z.label(), z.extents(), z.size()), ("z", [2, 3, 4], 24));

    let data: Vec<i32> = (0..24).collect();
    let r = View3::<i32>::from_vec("r", [2, 3, 4], data.clone()).unwrap();
    let l = View3::<i32, LayoutLeft>::from_vec("l", [2, 3, 4], data.clone()).unwrap();
    assert_eq!(r.to_vec(), data);
    assert_eq!(l.to_vec(), data);
    for (i, j, k) in [(0, 0, 0), (1, 2, 3), (1, 0, 2)] {
        assert_eq!(r[[i, j, k]], (12 * i + 4 * j + k) as i32);
        assert_eq!(l[[i, j, k]], r[[i, j, k]]);
    }
    let f = View2::<(u8, u8)>::from_fn("f", [3, 2], |[i, j]| (i as u8, j as u8)).unwrap();
    assert_eq!(f[[2, 1]], (2, 1));
}

#[test]
fn writes_need_exclusive_access() {
    let mut v = View1::<u64>::zeros("v", 5).unwrap();
    v[3] = 7;
    *v.get_mut([4]).unwrap() = 9;
    assert_eq!(v.get([5]), None);
    assert_eq!(v.to_vec(), vec![0, 0, 0, 7, 9]);
    let mut w = v.view_mut();
    w[0] = 1;
    assert_eq!(v[0], 1);
}

#[test]
#[should_panic(expected = "View \"grid\": index [1, 4] is out of bounds for extents [3, 4]")]
fn out_of_bounds_read_names_label_index_extents() {
    let v = View2::<f32>::zeros("grid", [3, 4]).unwrap();
    let _ = v[[1, 4]];
}

#[test]
#[should_panic(expected = "View \"x\": index [9] is out of bounds for extents [9]")]
fn out_of_bounds_write_rank1() {
    let mut v = View1::<f32>::zeros("x", 9).unwrap();
    v[9] = 1.0;
}

#[test]
fn zero_extents_make_empty_views() {
    let v = View2::<f64>::zeros("empty", [0, 5]).unwrap();
    assert_eq!((v.size(), v.span()), (0, 0));
    assert_eq!(v.to_vec(), Vec::<f64>::new());
    assert_eq!(v.get([0, 0]), None);
}

#[test]
fn overflow_is_an_error_not_ub() {
    let e = View2::<f64>::zeros("huge", [1 << 40, 1 << 40]).unwrap_err();
    assert!(matches!(e, ViewError::SizeOverflow { .. }));
    // Fits in usize as elements, not as bytes.
    let e = View1::<f64>::zeros("bytes", usize::MAX / 4).unwrap_err();
    assert!(
        matches!(e, ViewError::SizeOverflow { ref label, .. } if label == "bytes"),
        "{e}"
    );
}

#[test]
fn subview_extents_strides_and_offsets() {
    let a = View4::<i32>::from_fn("a", [3, 4, 5, 6], |[i, j, k, l]| {
        (1000 * i + 100 * j + 10 * k + l) as i32
    })
    .unwrap();
    let s = a.subview((1, ALL, 2..4, 3)).unwrap();
    assert_eq!((s.extents(), s.strides()), ([4, 2], [30, 6]));
    assert_eq!(s[[0, 0]], 1023);
    assert_eq!(s[[3, 1]], 1333);
    assert_eq!(layout_of(&s), "LayoutStride");

    let t = a.subview((2, 1, ALL, ALL)).unwrap();
    assert_eq!(
        (t.extents(), t.strides(), layout_of(&t)),
        ([5, 6], [6, 1], "LayoutRight")
    );
    assert_eq!(t[[4, 5]], 2145);

    let u = a.subview((1..3, ALL, ALL, ALL)).unwrap();
    assert_eq!((u.extents(), layout_of(&u)), ([2, 4, 5, 6], "LayoutRight"));
    assert_eq!(u[[0, 0, 0, 0]], 1000);

    let w = a.subview((0, 0, 1, ..)).unwrap();
    assert_eq!(
        (w.extents(), w.strides(), layout_of(&w)),
        ([6], [1], "LayoutRight")
    );
    assert_eq!(w.to_vec(), vec![10, 11, 12, 13, 14, 15]);

    let col = a.subview((0, 0, ALL, 4)).unwrap();
    assert_eq!((col.strides(), layout_of(&col)), ([6], "LayoutStride"));
    assert_eq!(col.to_vec(), vec![4, 14, 24, 34, 44]);

    // Subview of a subview.
    let ss = s.subview((1..3, 1)).unwrap();
    assert_eq!((ss.extents(), ss[1]), ([2], 1233));

    let inclusive = a.subview((0, 0, 0, 1..=2)).unwrap();
    assert_eq!(inclusive.to_vec(), vec![1, 2]);
    let tail = a.subview((0, 0, 0, 4..)).unwrap();
    assert_eq!(tail.to_vec(), vec![4, 5]);
    let head = a.subview((0, 0, 0, ..2)).unwrap();
    assert_eq!(head.to_vec(), vec![0, 1]);
}

#[test]
fn layout_left_subviews_follow_kokkos_rules() {
    let a = View3::<i32, LayoutLeft>::from_fn("a", [4, 3, 2], |[i, j, k]| {
        (100 * i + 10 * j + k) as i32
    })
    .unwrap();
    let col = a.subview((ALL, 1, 1)).unwrap();
    assert_eq!((col.strides(), layout_of(&col)), ([1], "LayoutLeft"));
    assert_eq!(col.to_vec(), vec![11, 111, 211, 311]);
    let part = a.subview((ALL, 0..2, 1)).unwrap();
    assert_eq!(
        (part.extents(), part.strides(), layout_of(&part)),
        ([4, 2], [1, 4], "LayoutLeft")
    );
    let row = a.subview((2, ALL, ALL)).unwrap();
    assert_eq!((row.strides(), layout_of(&row)), ([4, 12], "LayoutStride"));
    assert_eq!(row[[2, 1]], 221);
    let s = View2::<i32, LayoutStride>::with_strides("s", [3, 3], [1, 3]).unwrap();
    let ss = s.subview((ALL, 1)).unwrap();
    assert_eq!(layout_of(&ss), "LayoutStride");
}

#[test]
fn degenerate_range_gives_extent_zero() {
    let a = View2::<f64>::zeros("a", [3, 4]).unwrap();
    let e = a.subview((3..3, ALL)).unwrap();
    assert_eq!((e.extents(), e.size()), ([0, 4], 0));
    assert_eq!(e.to_vec(), Vec::<f64>::new());
    let e = a.subview((1, 4..)).unwrap();
    assert_eq!(e.extents(), [0]);
}

#[test]
fn subview_past_extent_is_an_error_naming_it() {
    let a = View2::<f64>::zeros("mesh", [3, 4]).unwrap();
    let e = a.subview((ALL, 2..5)).unwrap_err();
    assert_eq!(
        e,
        ViewError::SubviewOutOfBounds {
            label: "mesh".into(),
            rank: 1,
            arg: "2..5".into(),
            extent: 4
        }
    );
    assert!(e.to_string().contains("2..5") && e.to_string().contains("extent 4"));
    assert!(a.subview((3, ALL)).is_err());
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = a.subview((2..1, ALL));
    assert!(reversed.is_err());
    assert!(a.subview((ALL, 0..=4)).is_err());
}

#[test]
fn mutable_subviews_write_through() {
    let mut a = View2::<i64, LayoutLeft>::zeros("a", [3, 4]).unwrap();
    {
        let mut row = a.subview_mut((1, ALL)).unwrap();
        for j in 0..4 {
            row[j] = j as i64 + 1;
        }
    }
    a.subview_mut((ALL, 3)).unwrap().fill(-1);
    assert_eq!(a.to_vec(), vec![0, 0, 0, -1, 1, 2, 3, -1, 0, 0, 0, -1]);
}

#[test]
fn unmanaged_views_wrap_user_slices() {
    let data: Vec<f32> = (0..12).map(|x| x as f32).collect();
    let v = ViewRef::<f32, 2, LayoutLeft>::from_slice("u", &data, [3, 4]).unwrap();
    assert_eq!(v[[1, 2]], 7.0);
    let e = ViewRef::<f32, 2>::from_slice("short", &data[..5], [2, 3]).unwrap_err();
    assert!(
        matches!(
            e,
            ViewError::LengthMismatch {
                needed: 6,
                got: 5,
                ..
            }
        ),
        "{e}"
    );

    let mut buf = vec![0u16; 6];
    {
        let mut m = ViewMut::<u16, 2>::from_slice_mut(String::from("m"), &mut buf, [2, 3]).unwrap();
        m[[1, 0]] = 5;
        assert_eq!(m.label(), "m");
    }
    assert_eq!(buf, [0, 0, 0, 5, 0, 0]);

    let padded =
        ViewRef::<f32, 2, LayoutStride>::from_slice_strided("p", &data, [2, 3], [6, 2]).unwrap();
    assert_eq!(padded.to_vec(), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
}

#[test]
fn from_vec_length_is_checked() {
    let e = View::<u8, 3>::from_vec("v", [2, 2, 2], vec![0; 7]).unwrap_err();
    assert_eq!(
        e,
        ViewError::LengthMismatch {
            label: "v".into(),
            extents: vec![2, 2, 2],
            needed: 8,
            got: 7
        }
    );
}

#[test]
fn strided_views_report_their_shape() {
    let v = View2::<f64, LayoutStride>::with_strides("s", [3, 2], [5, 2]).unwrap();
    assert_eq!((v.span(), v.size(), v.is_contiguous()), (13, 6, false));
    assert!(v.as_slice().is_none());
    let e = View2::<f64, LayoutRight>::with_strides("r", [3, 2], [5, 2]).unwrap_err();
    assert!(matches!(e, ViewError::InvalidStrides { .. }));
}

/// A stride past `isize::MAX` is refused even where no element uses it
/// (an empty View, an axis of one): pointer offsets, ndarray and the
/// device take strides as signed.
#[test]
fn strides_past_isize_max_are_errors_even_when_unused() {
    for (extents, strides) in [([0, 2], [1, 1 << 63]), ([3, 1], [1, usize::MAX])] {
        let e = View2::<u8, LayoutStride>::with_strides("e", extents, strides).unwrap_err();
        assert!(
            matches!(&e, ViewError::InvalidStrides { reason, .. } if reason.contains("isize::MAX")),
            "{e}"
        );
    }
    let ok = View2::<u8, LayoutStride>::with_strides("e", [0, 2], [1, isize::MAX as usize]);
    assert!(ok.is_ok());
}

#[test]
#[should_panic(expected = "View \"r\" has rank 2; rank 2 does not exist")]
fn extent_of_missing_rank_panics() {
    let v = View2::<f64>::zeros("r", [1, 1]).unwrap();
    v.extent(2);
}

#[test]
fn allocations_are_64_byte_aligned() {
    for n in [1, 3, 17, 1000] {
        let a = View1::<u8>::zeros("a", n).unwrap();
        let b = View2::<f64, LayoutLeft>::from_fn("b", [n, 2], |[i, j]| (i + j) as f64).unwrap();
        // SAFETY: every element is written by the fill before any read.
        let mut c = unsafe { View3::<f32>::without_initializing("c", [n, 1, 2]) }.unwrap();
        c.fill(2.0);
        for p in [
            a.as_ptr() as usize,
            b.as_ptr() as usize,
            c.as_ptr() as usize,
        ] {
            assert_eq!(p % crate::space::ALLOC_ALIGN, 0, "n = {n}");
        }
        assert!(c.to_vec().iter().all(|&x| x == 2.0));
    }
}

/// A compact layout's strides treat zero extents as 1: with huge other
/// extents they do not fit, so the View is refused rather than given
/// wrapped strides (which `stride()` and chunk offsets would report).
#[test]
fn empty_views_whose_strides_overflow_are_refused() {
    for e in [
        View3::<u8>::zeros("r", [0, 1 << 40, 1 << 40]).unwrap_err(),
        View3::<u8, LayoutLeft>::zeros("l", [1 << 40, 1 << 40, 0]).unwrap_err(),
        View3::<u8, LayoutStride>::zeros("s", [0, 1 << 40, 1 << 40]).unwrap_err(),
    ] {
        assert!(matches!(e, ViewError::SizeOverflow { .. }), "{e}");
    }
    // The slowest rank's extent is never part of a stride.
    let ok = View3::<u8>::zeros("ok", [1 << 40, 1 << 20, 0]).unwrap();
    assert_eq!((ok.size(), ok.stride(0), ok.stride(1)), (0, 1 << 20, 1));
    let left = View2::<u8, LayoutLeft>::zeros("ok", [0, usize::MAX]).unwrap();
    assert_eq!((left.size(), left.stride(1)), (0, 1));
}

/// Element allows any alignment; owned Views allocate at 64 bytes, so a type
/// aligned to 128 is a typed error naming the type and both alignments.
#[test]
fn overaligned_elements_are_a_typed_error() {
    #[derive(Clone, Copy, bytemuck::Zeroable)]
    #[repr(C, align(128))]
    struct Wide([u8; 128]);
    let e = View1::<Wide>::zeros("wide", 4).unwrap_err();
    assert!(
        matches!(
            e,
            ViewError::Overaligned {
                align: 128,
                max: 64,
                ..
            }
        ),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("\"wide\"") && msg.contains("Wide") && msg.contains("128"),
        "{msg}"
    );
    let mut raw = vec![Wide([0; 128]); 2];
    let v = ViewMut::<Wide, 1>::from_slice_mut("slice", &mut raw, 2).unwrap();
    assert_eq!(v.as_ptr() as usize % 128, 0);
}

/// The portable constructors give the same elements in a host space and in
/// a foreign one (the staged path), for both memory orders.
#[test]
fn portable_constructors_agree_across_spaces() {
    use crate::space::foreign::Foreign;
    use crate::{create_mirror_view_and_copy, HostSpace};

    fn check<M: crate::SpaceCopy<HostSpace>>(mem: M)
    where
        HostSpace: crate::SpaceCopy<M>,
    {
        let mut seen = Vec::new();
        let a = View2::<i64, LayoutLeft, _>::from_fn_in(mem.clone(), "a", [2, 3], |[i, j]| {
            seen.push([i, j]);
            (10 * i + j) as i64
        })
        .unwrap();
        // once per index, in index order, whatever the space
        assert_eq!(seen, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
        let am = create_mirror_view_and_copy(&a).unwrap();
        assert_eq!(am.to_vec(), [0, 1, 2, 10, 11, 12]);
        assert_eq!((am[[1, 0]], a.label(), a.strides()), (10, "a", [1, 2]));

        let x =
            View1::<f32, LayoutRight, _>::from_fn_in(mem.clone(), "x", 5, |i| i as f32).unwrap();
        assert_eq!(
            create_mirror_view_and_copy(&x).unwrap().to_vec(),
            [0.0, 1.0, 2.0, 3.0, 4.0]
        );

        let f = View3::<u16, LayoutRight, _>::full_in(mem.clone(), "f", [2, 2, 3], 9).unwrap();
        assert_eq!(create_mirror_view_and_copy(&f).unwrap().to_vec(), [9; 12]);

        let data: Vec<u8> = (1..=6).collect();
        let v = View2::<u8, LayoutLeft, _>::from_vec_in(mem.clone(), "v", [3, 2], data.clone())
            .unwrap();
        let vm = create_mirror_view_and_copy(&v).unwrap();
        assert_eq!((vm.to_vec(), vm[[2, 0]]), (data.clone(), 5));
        assert_eq!(vm.as_view().as_slice().unwrap(), [1, 3, 5, 2, 4, 6]);

        let e = View1::<f64, LayoutRight, _>::from_fn_in(mem.clone(), "e", 0, |_| -> f64 {
            unreachable!("no element to make")
        })
        .unwrap();
        assert_eq!(create_mirror_view_and_copy(&e).unwrap().to_vec(), []);

        // The errors of the host constructors, typed, before any allocation.
        assert_eq!(
            View2::<u8, LayoutRight, _>::from_vec_in(mem.clone(), "s", [2, 2], vec![1, 2, 3])
                .unwrap_err(),
            ViewError::LengthMismatch {
                label: "s".into(),
                extents: vec![2, 2],
                needed: 4,
                got: 3
            }
        );
        let huge = View2::<f64, LayoutRight, _>::full_in(mem.clone(), "h", [usize::MAX, 2], 0.0);
        assert!(matches!(huge, Err(ViewError::SizeOverflow { .. })));
        let huge = View1::<f64, LayoutRight, _>::from_fn_in(mem, "h", usize::MAX / 4, |_| 0.0);
        assert!(matches!(huge, Err(ViewError::SizeOverflow { .. })));
    }
    check(HostSpace);
    check(Foreign);
}

#[test]
fn host_space_portable_constructors_write_in_place() {
    use crate::HostSpace;
    let v = View1::<u32, LayoutRight, _>::from_fn_in(HostSpace, "v", 4, |i| 3 * i as u32).unwrap();
    let w = View2::<u32, LayoutLeft, _>::full_in(HostSpace, "w", [2, 2], 1).unwrap();
    let u =
        View2::<u32, LayoutLeft, _>::from_vec_in(HostSpace, "u", [2, 2], vec![1, 2, 3, 4]).unwrap();
    // Host Views straight away: indexable, no mirror needed.
    assert_eq!((v[3], w[[1, 1]], u[[0, 1]]), (9, 1, 2));
    assert_eq!(u.as_slice().unwrap(), [1, 3, 2, 4]);
}
