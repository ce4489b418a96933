//! `MinLoc`, `MaxLoc`, `MinMaxLoc` and `MinMaxFirstLastLoc`: extreme
//! values and where they are.
//!
//! Ties go to the smaller location, so results are deterministic.

use super::{Reducer, ReductionIdentity};

/// A location type: an integer index or a multi-index `[usize; R]`.
pub trait LocIndex: Copy + PartialOrd + Send + Sync + 'static {
    /// The location of the identity ("nowhere"): the largest value.
    fn none() -> Self;
}

macro_rules! loc_int {
    ($($t:ty),*) => { $( impl LocIndex for $t { #[inline(always)] fn none() -> $t { <$t>::MAX } } )* };
}
loc_int!(i32, i64, isize, u32, u64, usize);

impl<const R: usize> LocIndex for [usize; R] {
    #[inline(always)]
    fn none() -> Self {
        [usize::MAX; R]
    }
}

/// A value and its location (Kokkos's `ValLocScalar`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValLocScalar<T, I> {
    /// The value.
    pub val: T,
    /// Where it is.
    pub loc: I,
}

/// The value of a [`MinMaxLoc`] reduction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinMaxLocScalar<T, I> {
    /// The smallest value.
    pub min_val: T,
    /// The largest value.
    pub max_val: T,
    /// Where the smallest value is.
    pub min_loc: I,
    /// Where the largest value is.
    pub max_loc: I,
}

impl<T: ReductionIdentity, I: LocIndex> MinMaxLocScalar<T, I> {
    /// Folds value `v` at `loc` in, ties going to the smaller location
    /// ([`MinMaxLoc`]).
    #[inline(always)]
    pub fn update(&mut self, v: T, loc: I) {
        take_min(&mut self.min_val, &mut self.min_loc, v, loc);
        take_max(&mut self.max_val, &mut self.max_loc, v, loc);
    }

    /// Folds value `v` at `loc` in, a tie of the largest going to the
    /// larger location ([`MinMaxFirstLastLoc`]).
    #[inline(always)]
    pub fn update_first_last(&mut self, v: T, loc: I) {
        take_min(&mut self.min_val, &mut self.min_loc, v, loc);
        take_max_last(&mut self.max_val, &mut self.max_loc, v, loc);
    }
}

impl<T: ReductionIdentity, I: LocIndex> ValLocScalar<T, I> {
    /// Folds value `v` at `loc` in, keeping the minimum.
    #[inline(always)]
    pub fn update_min(&mut self, v: T, loc: I) {
        take_min(&mut self.val, &mut self.loc, v, loc)
    }
    /// Folds value `v` at `loc` in, keeping the maximum.
    #[inline(always)]
    pub fn update_max(&mut self, v: T, loc: I) {
        take_max(&mut self.val, &mut self.loc, v, loc)
    }
}

#[inline(always)]
fn take_min<T: PartialOrd, I: PartialOrd>(val: &mut T, loc: &mut I, v: T, l: I) {
    if v < *val || (v == *val && l < *loc) {
        *val = v;
        *loc = l;
    }
}

#[inline(always)]
fn take_max<T: PartialOrd, I: PartialOrd>(val: &mut T, loc: &mut I, v: T, l: I) {
    if v > *val || (v == *val && l < *loc) {
        *val = v;
        *loc = l;
    }
}

/// [`take_max`] with ties to the larger location; "nowhere" (the
/// identity's location, the largest index) loses every tie.
#[inline(always)]
fn take_max_last<T: PartialOrd, I: LocIndex>(val: &mut T, loc: &mut I, v: T, l: I) {
    if v > *val || (v == *val && l != I::none() && (*loc == I::none() || l > *loc)) {
        *val = v;
        *loc = l;
    }
}

/// The smallest value and its location.
///
/// ```
/// use granule_core::prelude::*;
/// let x = [4.0, 1.0, 9.0, 1.0];
/// let r = parallel_reduce("minloc", RangePolicy::new(&Serial, 0..4), MinLoc,
///     |i, acc: &mut ValLocScalar<f64, usize>| acc.update_min(x[i], i));
/// assert_eq!((r.val, r.loc), (1.0, 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinLoc;

impl<T: ReductionIdentity, I: LocIndex> Reducer<ValLocScalar<T, I>> for MinLoc {
    #[inline(always)]
    fn init(&self) -> ValLocScalar<T, I> {
        ValLocScalar {
            val: T::min(),
            loc: I::none(),
        }
    }
    #[inline(always)]
    fn join(&self, dst: &mut ValLocScalar<T, I>, src: &ValLocScalar<T, I>) {
        take_min(&mut dst.val, &mut dst.loc, src.val, src.loc)
    }
}

/// The largest value and its location.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaxLoc;

impl<T: ReductionIdentity, I: LocIndex> Reducer<ValLocScalar<T, I>> for MaxLoc {
    #[inline(always)]
    fn init(&self) -> ValLocScalar<T, I> {
        ValLocScalar {
            val: T::max(),
            loc: I::none(),
        }
    }
    #[inline(always)]
    fn join(&self, dst: &mut ValLocScalar<T, I>, src: &ValLocScalar<T, I>) {
        take_max(&mut dst.val, &mut dst.loc, src.val, src.loc)
    }
}

/// Both extremes and their locations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinMaxLoc;

impl<T: ReductionIdentity, I: LocIndex> Reducer<MinMaxLocScalar<T, I>> for MinMaxLoc {
    #[inline(always)]
    fn init(&self) -> MinMaxLocScalar<T, I> {
        MinMaxLocScalar {
            min_val: T::min(),
            max_val: T::max(),
            min_loc: I::none(),
            max_loc: I::none(),
        }
    }
    #[inline(always)]
    fn join(&self, dst: &mut MinMaxLocScalar<T, I>, src: &MinMaxLocScalar<T, I>) {
        take_min(&mut dst.min_val, &mut dst.min_loc, src.min_val, src.min_loc);
        take_max(&mut dst.max_val, &mut dst.max_loc, src.max_val, src.max_loc);
    }
}

/// Both extremes with their locations, ties going to the first smallest
/// and the last largest element (Kokkos's `MinMaxFirstLastLoc`, C++'s
/// `std::minmax_element`, Rust's `Iterator::min_by` and `max_by`).
///
/// ```
/// use granule_core::prelude::*;
/// use granule_core::reducer::MinMaxFirstLastLoc;
/// let x = [3, 1, 9, 1, 9];
/// let r = parallel_reduce("minmax", RangePolicy::new(&Serial, 0..5), MinMaxFirstLastLoc,
///     |i, acc: &mut MinMaxLocScalar<i32, usize>| acc.update_first_last(x[i], i));
/// assert_eq!((r.min_loc, r.max_loc), (1, 4));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinMaxFirstLastLoc;

impl<T: ReductionIdentity, I: LocIndex> Reducer<MinMaxLocScalar<T, I>> for MinMaxFirstLastLoc {
    #[inline(always)]
    fn init(&self) -> MinMaxLocScalar<T, I> {
        MinMaxLoc.init()
    }
    #[inline(always)]
    fn join(&self, dst: &mut MinMaxLocScalar<T, I>, src: &MinMaxLocScalar<T, I>) {
        take_min(&mut dst.min_val, &mut dst.min_loc, src.min_val, src.min_loc);
        take_max_last(&mut dst.max_val, &mut dst.max_loc, src.max_val, src.max_loc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_go_to_the_smaller_location() {
        let mut a = ValLocScalar {
            val: 1.0,
            loc: 5usize,
        };
        MinLoc.join(&mut a, &ValLocScalar { val: 1.0, loc: 2 });
        assert_eq!(a.loc, 2);
        MaxLoc.join(&mut a, &ValLocScalar { val: 1.0, loc: 9 });
        assert_eq!(a.loc, 2);
        let mut b = MinMaxLoc.init();
        for (l, v) in [(4usize, 2), (1, 2), (7, 2)] {
            MinMaxFirstLastLoc.join(
                &mut b,
                &MinMaxLocScalar {
                    min_val: v,
                    max_val: v,
                    min_loc: l,
                    max_loc: l,
                },
            );
        }
        assert_eq!((b.min_loc, b.max_loc), (1, 7));
        // The identity's "nowhere" loses ties, even at the type's extremes.
        let mut c = MinMaxFirstLastLoc.init();
        c.update_first_last(i32::MIN, 3usize);
        assert_eq!((c.min_loc, c.max_loc, c.max_val), (3, 3, i32::MIN));
        MinMaxFirstLastLoc.join(&mut c, &MinMaxFirstLastLoc.init());
        assert_eq!(c.max_loc, 3);
        let id: MinMaxLocScalar<i32, usize> = MinMaxLoc.init();
        assert_eq!(
            (id.min_val, id.max_val, id.min_loc),
            (i32::MAX, i32::MIN, usize::MAX)
        );
    }
}
