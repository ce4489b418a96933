use super::*;
use proptest::prelude::*;

/// Reference offsets straight from the textbook formulas.
fn reference_right(ext: &[usize], idx: &[usize]) -> usize {
    (0..ext.len())
        .map(|r| idx[r] * ext[r + 1..].iter().product::<usize>())
        .sum()
}
fn reference_left(ext: &[usize], idx: &[usize]) -> usize {
    (0..ext.len())
        .map(|r| idx[r] * ext[..r].iter().product::<usize>())
        .sum()
}

fn all_indices<const R: usize>(m: &Mapping<R>) -> Vec<[usize; R]> {
    let mut out = Vec::new();
    m.for_each_index(|i| out.push(*i));
    out
}

fn check_formulas<const R: usize>(ext: [usize; R]) {
    let right = Mapping::compact::<LayoutRight>("r", ext).unwrap();
    let left = Mapping::compact::<LayoutLeft>("l", ext).unwrap();
    let strides = [3usize, 7, 1, 50, 2, 11, 400, 9];
    let mut s = [0; R];
    s.copy_from_slice(&strides[..R]);
    let strided = Mapping::from_parts(ext, s);
    for idx in all_indices(&right) {
        assert_eq!(
            LayoutRight::offset(&right, &idx),
            reference_right(&ext, &idx),
            "{ext:?} {idx:?}"
        );
        assert_eq!(
            LayoutLeft::offset(&left, &idx),
            reference_left(&ext, &idx),
            "{ext:?} {idx:?}"
        );
        let plain: usize = (0..R).map(|r| idx[r] * s[r]).sum();
        assert_eq!(LayoutStride::offset(&strided, &idx), plain);
        assert_eq!(right.offset(&idx), LayoutRight::offset(&right, &idx));
        assert_eq!(left.offset(&idx), LayoutLeft::offset(&left, &idx));
    }
}

#[test]
fn offsets_equal_reference_formulas() {
    check_formulas([5]);
    check_formulas([3, 4]);
    check_formulas([2, 3, 4]);
    check_formulas([2, 1, 3, 2]);
    check_formulas([2, 2, 1, 2, 3]);
    check_formulas([1, 2, 2, 2, 1, 2]);
    check_formulas([2, 1, 2, 1, 2, 1, 2]);
    check_formulas([2, 2, 1, 2, 1, 2, 1, 2]);
}

#[test]
fn queries_for_right_left_and_stride() {
    let r = Mapping::compact::<LayoutRight>("r", [2, 3, 4]).unwrap();
    assert_eq!(
        (r.strides(), r.size(), r.span(), r.is_contiguous()),
        (&[12, 4, 1], 24, 24, true)
    );
    let l = Mapping::compact::<LayoutLeft>("l", [2, 3, 4]).unwrap();
    assert_eq!(l.strides(), &[1, 2, 6]);
    let s = Mapping::with_strides("s", [2, 3], [10, 2]).unwrap();
    assert_eq!((s.size(), s.span(), s.is_contiguous()), (6, 15, false));
    assert!(LayoutRight::accepts(&r) && !LayoutLeft::accepts(&r));
    assert!(LayoutLeft::accepts(&l) && !LayoutRight::accepts(&l));
    let empty = Mapping::compact::<LayoutRight>("e", [3, 0, 2]).unwrap();
    assert_eq!((empty.size(), empty.span()), (0, 0));
    assert_eq!(all_indices(&empty).len(), 0);
}

#[test]
fn overflowing_extents_are_errors() {
    let e = Mapping::compact::<LayoutRight>("big", [usize::MAX / 2, 3]).unwrap_err();
    assert!(matches!(e, crate::ViewError::SizeOverflow { .. }), "{e}");
    assert!(e.to_string().contains("big"));
    let e = Mapping::with_strides("wide", [3, 2], [usize::MAX / 2, 1]).unwrap_err();
    assert!(matches!(e, crate::ViewError::SizeOverflow { .. }), "{e}");
}

#[test]
fn overlapping_strides_are_rejected() {
    for (ext, st) in [([2, 3], [1, 1]), ([4, 2], [1, 3]), ([3, 3], [0, 1])] {
        let e = Mapping::with_strides("o", ext, st).unwrap_err();
        assert!(
            matches!(e, crate::ViewError::InvalidStrides { .. }),
            "{ext:?} {st:?}: {e}"
        );
    }
    // Padded and permuted strides are fine; so is anything over extent 1.
    assert!(Mapping::with_strides("p", [2, 3], [4, 1]).is_ok());
    assert!(Mapping::with_strides("q", [2, 3], [1, 2]).is_ok());
    assert!(Mapping::with_strides("z", [1, 3], [0, 1]).is_ok());
}

/// The mapping is a bijection from indices onto [0, span).
fn assert_bijective<const R: usize, L: Layout>(ext: [usize; R]) {
    let m = Mapping::compact::<L>("p", ext).unwrap();
    let mut seen = vec![false; m.span()];
    let mut count = 0;
    m.for_each_index(|idx| {
        let off = L::offset(&m, idx);
        assert!(
            off < m.span() && !seen[off],
            "{} {ext:?}: offset {off} hit twice",
            L::NAME
        );
        seen[off] = true;
        count += 1;
    });
    assert_eq!(count, m.size());
    assert!(
        seen.iter().all(|&s| s),
        "{} {ext:?}: not onto [0, span)",
        L::NAME
    );
}

fn extents_up_to<const R: usize>() -> impl Strategy<Value = [usize; R]> {
    // At most 4 per rank keeps rank 8 at <= 65536 elements.
    proptest::array::uniform(1usize..=4).prop_map(|a: [usize; R]| a)
}

macro_rules! bijective_props {
    ($($name:ident: $r:literal),*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(24))]
            $(
                #[test]
                fn $name(ext in extents_up_to::<$r>()) {
                    assert_bijective::<$r, LayoutRight>(ext);
                    assert_bijective::<$r, LayoutLeft>(ext);
                    assert_bijective::<$r, LayoutStride>(ext);
                }
            )*
        }
    };
}
bijective_props!(bijective_rank1: 1, bijective_rank2: 2, bijective_rank3: 3, bijective_rank4: 4,
    bijective_rank5: 5, bijective_rank6: 6, bijective_rank7: 7, bijective_rank8: 8);
