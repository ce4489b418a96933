//! Subviews: slicing a View with one argument per rank.
//!
//! Each argument is an index (the rank is dropped), [`ALL`] or `..`, or a
//! half-open range (`a..b`, `a..`, `..b`, `a..=b`). The result borrows the
//! parent. Its rank and layout are computed at compile time from the
//! argument types: a subview keeps LayoutRight or LayoutLeft when that
//! layout still describes it (Kokkos's rules), and becomes LayoutStride
//! otherwise.
//!
//! The layout rule, read from the last rank to the first:
//! - LayoutRight stays when the arguments are `index* (range|ALL)? ALL*`,
//!   e.g. `(i, ALL)`, `(a..b, ALL)`, `(i, j, a..b)`;
//! - LayoutLeft stays when they are `ALL* (range|ALL)? index*`.

use super::rank::{Rank, Succ};
use super::{ViewBase, ViewMut, ViewRef};
use crate::element::Element;
use crate::error::{Result, ViewError};
use crate::layout::{Layout, LayoutLeft, LayoutRight, LayoutStride, Mapping};
use crate::space::MemorySpace;
use crate::storage::{Borrowed, BorrowedMut, Storage, StorageMut};
use std::borrow::Cow;
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};
use std::ptr::NonNull;

/// Selects a whole rank in a subview (Kokkos's `Kokkos::ALL`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct All;

/// Selects a whole rank in a subview.
///
/// ```
/// use granule_views::{View2, ALL};
/// let a = View2::<i32>::from_fn("a", [3, 4], |[i, j]| (10 * i + j) as i32).unwrap();
/// let row = a.subview((1, ALL)).unwrap();
/// assert_eq!(row.to_vec(), vec![10, 11, 12, 13]);
/// ```
pub const ALL: All = All;

/// Kinds of subview argument, as types.
pub mod kind {
    /// An index: the rank is dropped.
    #[derive(Debug)]
    pub struct Index;
    /// A range that may be partial.
    #[derive(Debug)]
    pub struct Part;
    /// The whole extent.
    #[derive(Debug)]
    pub struct Whole;
}

/// A resolved argument: an index, or the half-open range `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slice {
    /// Drops the rank at this index.
    Index(usize),
    /// Keeps `start..end` of the rank.
    Range(usize, usize),
}

/// As the argument would be written: `7` or `3..12`.
impl std::fmt::Display for Slice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Slice::Index(i) => write!(f, "{i}"),
            Slice::Range(a, b) => write!(f, "{a}..{b}"),
        }
    }
}

mod sealed {
    /// Only granule's argument types resolve slices: `carve` re-checks
    /// them, but an outside `slice` could still claim ranges it should not.
    pub trait Sealed {}
    impl Sealed for usize {}
    impl Sealed for super::All {}
    impl Sealed for std::ops::RangeFull {}
    impl Sealed for std::ops::Range<usize> {}
    impl Sealed for std::ops::RangeInclusive<usize> {}
    impl Sealed for std::ops::RangeFrom<usize> {}
    impl Sealed for std::ops::RangeTo<usize> {}
    impl Sealed for std::ops::RangeToInclusive<usize> {}

    /// Seals [`SubviewArgs`](super::SubviewArgs) the same way: its impls
    /// are the tuples of sealed arguments and the bare ranges.
    pub trait SealedArgs {}
}

/// One subview argument: `usize`, [`All`], or a `usize` range of any kind.
///
/// Sealed: the set of argument kinds is fixed, so the layout rules above
/// cover every subview.
pub trait SubviewArg: sealed::Sealed {
    /// `kind::Index`, `kind::Part` or `kind::Whole`.
    type Kind;
    /// Resolves against `extent`; `None` if it does not fit.
    fn slice(&self, extent: usize) -> Option<Slice>;
    /// The argument as the user wrote it, for error messages.
    fn describe(&self) -> String;
}

impl SubviewArg for usize {
    type Kind = kind::Index;
    fn slice(&self, extent: usize) -> Option<Slice> {
        (*self < extent).then_some(Slice::Index(*self))
    }
    fn describe(&self) -> String {
        self.to_string()
    }
}

impl SubviewArg for All {
    type Kind = kind::Whole;
    fn slice(&self, extent: usize) -> Option<Slice> {
        Some(Slice::Range(0, extent))
    }
    fn describe(&self) -> String {
        "ALL".into()
    }
}

impl SubviewArg for RangeFull {
    type Kind = kind::Whole;
    fn slice(&self, extent: usize) -> Option<Slice> {
        Some(Slice::Range(0, extent))
    }
    fn describe(&self) -> String {
        "..".into()
    }
}

/// A degenerate range (`start == end`) is allowed and gives extent 0.
fn range(start: usize, end: Option<usize>, extent: usize) -> Option<Slice> {
    let end = end?;
    (start <= end && end <= extent).then_some(Slice::Range(start, end))
}

macro_rules! range_arg {
    ($t:ty, |$r:ident, $e:ident| $start:expr, $end:expr) => {
        impl SubviewArg for $t {
            type Kind = kind::Part;
            fn slice(&self, $e: usize) -> Option<Slice> {
                let $r = self;
                range($start, $end, $e)
            }
            fn describe(&self) -> String {
                format!("{:?}", self)
            }
        }
    };
}
range_arg!(Range<usize>, |r, _e| r.start, Some(r.end));
range_arg!(
    RangeInclusive<usize>,
    |r, _e| *r.start(),
    r.end().checked_add(1)
);
range_arg!(RangeFrom<usize>, |r, e| r.start, Some(e));
range_arg!(RangeTo<usize>, |r, _e| 0, Some(r.end));
range_arg!(RangeToInclusive<usize>, |r, _e| 0, r.end.checked_add(1));

/// Type-level state machines deciding whether LayoutRight and LayoutLeft
/// survive (read from the last argument to the first).
pub mod state {
    /// LayoutRight: only whole ranks so far.
    #[derive(Debug)]
    pub struct RWhole;
    /// LayoutRight: a partial rank or an index was seen; only indices may follow.
    #[derive(Debug)]
    pub struct RIndices;
    /// LayoutLeft: only indices so far.
    #[derive(Debug)]
    pub struct LIndices;
    /// LayoutLeft: a kept rank was seen; only whole ranks may follow.
    #[derive(Debug)]
    pub struct LWhole;
    /// The layout is lost: the subview is strided.
    #[derive(Debug)]
    pub struct Lost;
}
use state::{LIndices, LWhole, Lost, RIndices, RWhole};

/// A state transition on reading one more argument kind.
pub trait Step<K> {
    /// The next state.
    type Out;
}

macro_rules! steps {
    ($($s:ty, $k:ty => $o:ty;)*) => { $( impl Step<$k> for $s { type Out = $o; } )* };
}
steps! {
    RWhole, kind::Whole => RWhole;   RWhole, kind::Part => RIndices;   RWhole, kind::Index => RIndices;
    RIndices, kind::Index => RIndices; RIndices, kind::Part => Lost;   RIndices, kind::Whole => Lost;
    LIndices, kind::Index => LIndices; LIndices, kind::Part => LWhole; LIndices, kind::Whole => LWhole;
    LWhole, kind::Whole => LWhole;   LWhole, kind::Part => Lost;       LWhole, kind::Index => Lost;
    Lost, kind::Index => Lost;       Lost, kind::Part => Lost;         Lost, kind::Whole => Lost;
}

/// Counting kept ranks.
pub trait Count<K> {
    /// The rank after this argument.
    type Out;
}
impl<const N: usize> Count<kind::Index> for Rank<N> {
    type Out = Rank<N>;
}
impl<X: Succ> Count<kind::Part> for X {
    type Out = X::Next;
}
impl<X: Succ> Count<kind::Whole> for X {
    type Out = X::Next;
}

/// The layout a subview of `Self` has, given the final states.
pub trait SubLayout<RS, LS>: Layout {
    /// The subview's layout.
    type Out: Layout;
}
/// What a right-state means for LayoutRight.
pub trait RightState {
    /// LayoutRight if it survives, LayoutStride if not.
    type Layout: Layout;
}
impl RightState for RWhole {
    type Layout = LayoutRight;
}
impl RightState for RIndices {
    type Layout = LayoutRight;
}
impl RightState for Lost {
    type Layout = LayoutStride;
}
/// What a left-state means for LayoutLeft.
pub trait LeftState {
    /// LayoutLeft if it survives, LayoutStride if not.
    type Layout: Layout;
}
impl LeftState for LIndices {
    type Layout = LayoutLeft;
}
impl LeftState for LWhole {
    type Layout = LayoutLeft;
}
impl LeftState for Lost {
    type Layout = LayoutStride;
}
impl<RS: RightState, LS> SubLayout<RS, LS> for LayoutRight {
    type Out = RS::Layout;
}
impl<RS, LS: LeftState> SubLayout<RS, LS> for LayoutLeft {
    type Out = LS::Layout;
}
impl<RS, LS> SubLayout<RS, LS> for LayoutStride {
    type Out = LayoutStride;
}

/// A cons list of argument types, folded from the last argument to the first.
pub trait ArgList {
    /// Kept ranks, as [`Rank`].
    type Rank;
    /// LayoutRight's state.
    type Right;
    /// LayoutLeft's state.
    type Left;
}
impl ArgList for () {
    type Rank = Rank<0>;
    type Right = RWhole;
    type Left = LIndices;
}
impl<H: SubviewArg, T: ArgList> ArgList for (H, T)
where
    T::Rank: Count<H::Kind>,
    T::Right: Step<H::Kind>,
    T::Left: Step<H::Kind>,
{
    type Rank = <T::Rank as Count<H::Kind>>::Out;
    type Right = <T::Right as Step<H::Kind>>::Out;
    type Left = <T::Left as Step<H::Kind>>::Out;
}

/// The full argument list of a subview of a rank-`R` View: a tuple of `R`
/// [`SubviewArg`]s, or a single range for rank 1.
///
/// Sealed, like [`SubviewArg`].
pub trait SubviewArgs<const R: usize>: sealed::SealedArgs {
    /// Kept ranks, as [`Rank`].
    type Rank: SubRank;
    /// LayoutRight's final state.
    type Right;
    /// LayoutLeft's final state.
    type Left;
    /// Resolves every argument, or names the first that does not fit.
    fn slices(&self, extents: &[usize; R]) -> std::result::Result<[Slice; R], (usize, String)>;
}

fn resolve<A: SubviewArg>(
    a: &A,
    r: usize,
    extent: usize,
) -> std::result::Result<Slice, (usize, String)> {
    a.slice(extent).ok_or_else(|| (r, a.describe()))
}

macro_rules! tuple_args {
    ($n:literal; $($a:ident $i:tt),+) => {
        impl<$($a: SubviewArg),+> sealed::SealedArgs for ($($a,)+) {}
        impl<$($a: SubviewArg),+> SubviewArgs<$n> for ($($a,)+)
        where
            tuple_args!(@cons $($a),+): ArgList,
            <tuple_args!(@cons $($a),+) as ArgList>::Rank: SubRank,
        {
            type Rank = <tuple_args!(@cons $($a),+) as ArgList>::Rank;
            type Right = <tuple_args!(@cons $($a),+) as ArgList>::Right;
            type Left = <tuple_args!(@cons $($a),+) as ArgList>::Left;
            fn slices(&self, e: &[usize; $n]) -> std::result::Result<[Slice; $n], (usize, String)> {
                Ok([$(resolve(&self.$i, $i, e[$i])?),+])
            }
        }
    };
    (@cons $h:ident $(, $t:ident)*) => { ($h, tuple_args!(@cons $($t),*)) };
    (@cons) => { () };
}
tuple_args!(1; A0 0);
tuple_args!(2; A0 0, A1 1);
tuple_args!(3; A0 0, A1 1, A2 2);
tuple_args!(4; A0 0, A1 1, A2 2, A3 3);
tuple_args!(5; A0 0, A1 1, A2 2, A3 3, A4 4);
tuple_args!(6; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5);
tuple_args!(7; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6);
tuple_args!(8; A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7);

macro_rules! bare_range_args {
    ($($t:ty),*) => { $(
        impl sealed::SealedArgs for $t {}
        impl SubviewArgs<1> for $t {
            type Rank = Rank<1>;
            type Right = RIndices;
            type Left = LWhole;
            fn slices(&self, e: &[usize; 1]) -> std::result::Result<[Slice; 1], (usize, String)> {
                Ok([resolve(self, 0, e[0])?])
            }
        }
    )* };
}
bare_range_args!(
    Range<usize>,
    RangeInclusive<usize>,
    RangeFrom<usize>,
    RangeTo<usize>,
    RangeToInclusive<usize>
);

/// A subview rank (1..=8) and the View types of that rank.
pub trait SubRank {
    /// A shared subview of this rank.
    type Ref<'a, T: Element, M: MemorySpace, L: Layout>;
    /// A unique subview of this rank.
    type Mut<'a, T: Element, M: MemorySpace, L: Layout>;
    /// Builds the shared subview from kept (extent, stride) pairs.
    fn make_ref<'a, T: Element, M: MemorySpace, L: Layout>(
        s: Borrowed<'a, T, M>,
        kept: &[(usize, usize)],
    ) -> Self::Ref<'a, T, M, L>;
    /// Builds the unique subview from kept (extent, stride) pairs.
    fn make_mut<'a, T: Element, M: MemorySpace, L: Layout>(
        s: BorrowedMut<'a, T, M>,
        kept: &[(usize, usize)],
    ) -> Self::Mut<'a, T, M, L>;
}

fn mapping<const K: usize>(kept: &[(usize, usize)]) -> Mapping<K> {
    let mut ext = [0; K];
    let mut str = [0; K];
    for (k, &(e, s)) in kept.iter().enumerate() {
        ext[k] = e;
        str[k] = s;
    }
    Mapping::from_parts(ext, str)
}

macro_rules! sub_rank {
    ($($k:literal),*) => { $(
        impl SubRank for Rank<$k> {
            type Ref<'a, T: Element, M: MemorySpace, L: Layout> = ViewRef<'a, T, $k, L, M>;
            type Mut<'a, T: Element, M: MemorySpace, L: Layout> = ViewMut<'a, T, $k, L, M>;
            fn make_ref<'a, T: Element, M: MemorySpace, L: Layout>(s: Borrowed<'a, T, M>, kept: &[(usize, usize)]) -> Self::Ref<'a, T, M, L> {
                ViewBase::from_raw(s, mapping::<$k>(kept))
            }
            fn make_mut<'a, T: Element, M: MemorySpace, L: Layout>(s: BorrowedMut<'a, T, M>, kept: &[(usize, usize)]) -> Self::Mut<'a, T, M, L> {
                ViewBase::from_raw(s, mapping::<$k>(kept))
            }
        }
    )* };
}
sub_rank!(1, 2, 3, 4, 5, 6, 7, 8);

/// The layout of a subview of a `L` View with arguments `A`.
pub type SubLayoutOf<L, A, const R: usize> =
    <L as SubLayout<<A as SubviewArgs<R>>::Right, <A as SubviewArgs<R>>::Left>>::Out;
/// The type of `view.subview(args)`.
pub type SubviewRef<'a, T, M, L, A, const R: usize> =
    <<A as SubviewArgs<R>>::Rank as SubRank>::Ref<'a, T, M, SubLayoutOf<L, A, R>>;
/// The type of `view.subview_mut(args)`.
pub type SubviewMut<'a, T, M, L, A, const R: usize> =
    <<A as SubviewArgs<R>>::Rank as SubRank>::Mut<'a, T, M, SubLayoutOf<L, A, R>>;

impl<S: Storage, const R: usize, L: Layout> ViewBase<S, R, L> {
    /// Offset of the subview's first element and its kept (extent, stride) pairs.
    fn carve<A: SubviewArgs<R>>(&self, args: &A) -> Result<(usize, Vec<(usize, usize)>)> {
        let slices = args.slices(self.map.extents()).map_err(|(rank, arg)| {
            ViewError::SubviewOutOfBounds {
                label: self.label().into(),
                rank,
                arg,
                extent: self.map.extents()[rank],
            }
        })?;
        let (extents, strides) = (self.map.extents(), self.map.strides());
        let out_of_bounds = |rank: usize| ViewError::SubviewOutOfBounds {
            label: self.label().into(),
            rank,
            arg: slices[rank].to_string(),
            extent: extents[rank],
        };
        let mut offset = 0;
        let mut kept = Vec::with_capacity(R);
        for (r, s) in slices.iter().enumerate() {
            // The unsafe pointer offset below relies on every slice lying
            // inside the parent; re-checked here so that it does not rest
            // on the argument types' `slice` alone. In bounds, each term is
            // at most (extent - 1) * stride, whose sum the parent's span
            // bounds, so the additions cannot overflow.
            match *s {
                Slice::Index(i) if i < extents[r] => offset += i * strides[r],
                Slice::Range(a, b) if a <= b && b <= extents[r] => {
                    // An empty range contributes no offset: nothing is addressed.
                    if a < b {
                        offset += a * strides[r];
                    }
                    kept.push((b - a, strides[r]));
                }
                _ => return Err(out_of_bounds(r)),
            }
        }
        if kept.iter().any(|&(e, _)| e == 0) {
            offset = 0;
        }
        Ok((offset, kept))
    }

    /// A shared subview: one argument per rank, each an index, [`ALL`] or a range.
    ///
    /// ```
    /// use granule_views::{View3, LayoutRight, LayoutStride, ALL};
    /// let a = View3::<i32>::from_fn("a", [2, 3, 4], |[i, j, k]| (100 * i + 10 * j + k) as i32).unwrap();
    /// let plane = a.subview((1, ALL, ALL)).unwrap(); // rank 2, still LayoutRight
    /// assert_eq!(plane.extents(), [3, 4]);
    /// assert_eq!(plane[[2, 3]], 123);
    /// let cols = a.subview((ALL, 1, 1..3)).unwrap(); // rank 2, strided
    /// assert_eq!(cols.extents(), [2, 2]);
    /// assert_eq!(cols.strides(), [12, 1]);
    /// assert_eq!(cols[[1, 1]], 112);
    /// assert!(a.subview((0, 0..5, ALL)).is_err()); // 5 > extent 3
    /// ```
    pub fn subview<A: SubviewArgs<R>>(
        &self,
        args: A,
    ) -> Result<SubviewRef<'_, S::Elem, S::Space, L, A, R>>
    where
        L: SubLayout<A::Right, A::Left>,
    {
        let (offset, kept) = self.carve(&args)?;
        // SAFETY: every index of the subview maps to an in-bounds index of
        // `self` (ranges were checked against the extents), so offsets stay
        // inside the parent's valid span; `&self` keeps writers away.
        let storage = unsafe {
            Borrowed::new(
                advance(self.storage.ptr(), offset),
                self.space().clone(),
                Cow::Borrowed(self.label()),
            )
        };
        Ok(A::Rank::make_ref(storage, &kept))
    }
}

/// `ptr` advanced by `offset` elements, within its View's span. A device
/// space's pointer is an address of no host allocation, where `add`'s
/// in-bounds rule cannot hold, so this uses wrapping arithmetic, which
/// needs none; for host memory the result is the same in-bounds pointer.
fn advance<T>(ptr: NonNull<T>, offset: usize) -> NonNull<T> {
    NonNull::new(ptr.as_ptr().wrapping_add(offset))
        .expect("an offset inside a View's span, which never wraps past address 0")
}

impl<S: StorageMut, const R: usize, L: Layout> ViewBase<S, R, L> {
    /// A unique subview, for writing part of a View.
    ///
    /// ```
    /// use granule_views::{View2, ALL};
    /// let mut a = View2::<i32>::zeros("a", [3, 3]).unwrap();
    /// a.subview_mut((ALL, 1)).unwrap().fill(7);
    /// assert_eq!(a.to_vec(), vec![0, 7, 0, 0, 7, 0, 0, 7, 0]);
    /// ```
    pub fn subview_mut<A: SubviewArgs<R>>(
        &mut self,
        args: A,
    ) -> Result<SubviewMut<'_, S::Elem, S::Space, L, A, R>>
    where
        L: SubLayout<A::Right, A::Left>,
    {
        let (offset, kept) = self.carve(&args)?;
        let space = self.storage.space().clone();
        // SAFETY: offsets stay inside the parent's span (see `subview`), and
        // `&mut self` makes the borrow unique for its lifetime.
        let storage = unsafe {
            BorrowedMut::new(
                advance(self.storage.ptr(), offset),
                space,
                Cow::Borrowed(self.storage.label()),
            )
        };
        Ok(A::Rank::make_mut(storage, &kept))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::View2;

    /// Arguments that resolve to whatever they were told, ignoring the
    /// extent: what an outside `SubviewArgs` impl could do without the seal.
    struct Lying([Slice; 2]);
    impl sealed::SealedArgs for Lying {}
    impl SubviewArgs<2> for Lying {
        type Rank = Rank<2>;
        type Right = Lost;
        type Left = Lost;
        fn slices(&self, _: &[usize; 2]) -> std::result::Result<[Slice; 2], (usize, String)> {
            Ok(self.0)
        }
    }

    #[test]
    fn carve_rechecks_every_slice_against_the_extent() {
        let a = View2::<u8>::zeros("a", [3, 4]).unwrap();
        let bad = [
            [Slice::Range(0, 3), Slice::Range(0, 5)],
            [Slice::Range(2, 1), Slice::Range(0, 4)],
            [Slice::Index(3), Slice::Range(0, 4)],
            [Slice::Range(0, 3), Slice::Range(usize::MAX, usize::MAX)],
        ];
        for (case, slices) in bad.into_iter().enumerate() {
            let err = a.carve(&Lying(slices)).unwrap_err();
            let rank = usize::from(case % 3 == 0);
            assert!(
                matches!(&err, ViewError::SubviewOutOfBounds { rank: r, .. } if *r == rank),
                "case {case}: {err}"
            );
        }
        let ok = a
            .carve(&Lying([Slice::Index(2), Slice::Range(1, 4)]))
            .unwrap();
        assert_eq!(ok, (9, vec![(3, 1)]));
        let msg = a
            .carve(&Lying([Slice::Range(0, 3), Slice::Range(0, 5)]))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("\"a\"") && msg.contains("0..5") && msg.contains("extent 4"),
            "{msg}"
        );
    }
}
