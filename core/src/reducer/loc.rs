//! `MinLoc`, `MaxLoc` and `MinMaxLoc`: extreme values and where they are.
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
    /// Folds value `v` at `loc` in.
    #[inline(always)]
    pub fn update(&mut self, v: T, loc: I) {
        take_min(&mut self.min_val, &mut self.min_loc, v, loc);
        take_max(&mut self.max_val, &mut self.max_loc, v, loc);
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
        let id: MinMaxLocScalar<i32, usize> = MinMaxLoc.init();
        assert_eq!(
            (id.min_val, id.max_val, id.min_loc),
            (i32::MAX, i32::MIN, usize::MAX)
        );
    }
}
