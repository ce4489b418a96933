//! `Sum` and `Prod`.

use super::{Reducer, ReductionIdentity};
use std::ops::{AddAssign, MulAssign};

/// Sum of the contributions; identity 0.
///
/// ```
/// use granule_core::prelude::*;
/// let s: i64 = parallel_reduce("sum", RangePolicy::new(&Serial, 0..101), Sum, |i, acc: &mut i64| *acc += i as i64);
/// assert_eq!(s, 5050);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sum;

impl<T: ReductionIdentity + AddAssign> Reducer<T> for Sum {
    #[inline(always)]
    fn init(&self) -> T {
        T::sum()
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        *dst += *src
    }
    #[inline(always)]
    fn is_exact(&self) -> bool {
        super::identity::exact_type::<T>()
    }
    #[inline(always)]
    fn known_op(&self) -> Option<super::KnownOp> {
        Some(super::KnownOp::Sum)
    }
}

/// Product of the contributions; identity 1.
///
/// ```
/// use granule_core::prelude::*;
/// let p: u64 = parallel_reduce("fact", RangePolicy::new(&Serial, 1..11), Prod, |i, acc: &mut u64| *acc *= i as u64);
/// assert_eq!(p, 3628800);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prod;

impl<T: ReductionIdentity + MulAssign> Reducer<T> for Prod {
    #[inline(always)]
    fn init(&self) -> T {
        T::prod()
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        *dst *= *src
    }
    #[inline(always)]
    fn is_exact(&self) -> bool {
        super::identity::exact_type::<T>()
    }
}
