//! `Min`, `Max` and `MinMax`.

use super::{Reducer, ReductionIdentity};

/// Smallest contribution; identity: the largest value (+∞ for floats).
///
/// ```
/// use granule_core::prelude::*;
/// let x = [3.0, -1.5, 7.0];
/// let m: f64 = parallel_reduce("min", RangePolicy::new(&Serial, 0..3), Min, |i, acc: &mut f64| *acc = acc.min(x[i]));
/// assert_eq!(m, -1.5);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Min;

impl<T: ReductionIdentity> Reducer<T> for Min {
    #[inline(always)]
    fn init(&self) -> T {
        T::min()
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        if *src < *dst {
            *dst = *src
        }
    }
    #[inline(always)]
    fn is_exact(&self) -> bool {
        super::identity::exact_type::<T>()
    }
}

/// Largest contribution; identity: the smallest value (−∞ for floats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Max;

impl<T: ReductionIdentity> Reducer<T> for Max {
    #[inline(always)]
    fn init(&self) -> T {
        T::max()
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        if *src > *dst {
            *dst = *src
        }
    }
    #[inline(always)]
    fn is_exact(&self) -> bool {
        super::identity::exact_type::<T>()
    }
}

/// The value of a [`MinMax`] reduction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinMaxScalar<T> {
    /// The smallest value seen.
    pub min_val: T,
    /// The largest value seen.
    pub max_val: T,
}

impl<T: ReductionIdentity> MinMaxScalar<T> {
    /// Folds `v` in.
    #[inline(always)]
    pub fn update(&mut self, v: T) {
        if v < self.min_val {
            self.min_val = v
        }
        if v > self.max_val {
            self.max_val = v
        }
    }
}

/// Smallest and largest contribution at once.
///
/// ```
/// use granule_core::prelude::*;
/// let x = [3, -1, 7, 2];
/// let r = parallel_reduce("mm", RangePolicy::new(&Serial, 0..4), MinMax, |i, acc: &mut MinMaxScalar<i32>| acc.update(x[i]));
/// assert_eq!((r.min_val, r.max_val), (-1, 7));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinMax;

impl<T: ReductionIdentity> Reducer<MinMaxScalar<T>> for MinMax {
    #[inline(always)]
    fn init(&self) -> MinMaxScalar<T> {
        MinMaxScalar {
            min_val: T::min(),
            max_val: T::max(),
        }
    }
    #[inline(always)]
    fn join(&self, dst: &mut MinMaxScalar<T>, src: &MinMaxScalar<T>) {
        Min.join(&mut dst.min_val, &src.min_val);
        Max.join(&mut dst.max_val, &src.max_val);
    }
}
