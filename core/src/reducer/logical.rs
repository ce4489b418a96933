//! `LAnd`, `LOr`, `BAnd`, `BOr`.

use super::{Logical, Reducer};

/// Logical and; identity true.
///
/// ```
/// use granule_core::prelude::*;
/// let x = [2, 4, 6];
/// let all_even: bool = parallel_reduce("even", RangePolicy::new(&Serial, 0..3), LAnd, |i, acc: &mut bool| *acc = *acc && x[i] % 2 == 0);
/// assert!(all_even);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LAnd;

/// Logical or; identity false.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LOr;

/// Bitwise and; identity all ones.
///
/// ```
/// use granule_core::prelude::*;
/// let x = [0b1110u8, 0b0111];
/// let b: u8 = parallel_reduce("band", RangePolicy::new(&Serial, 0..2), BAnd, |i, acc: &mut u8| *acc &= x[i]);
/// assert_eq!(b, 0b0110);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BAnd;

/// Bitwise or; identity 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BOr;

impl<T: Logical> Reducer<T> for LAnd {
    #[inline(always)]
    fn init(&self) -> T {
        T::from_bool(true)
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        *dst = T::from_bool(dst.truthy() && src.truthy())
    }
    #[inline(always)]
    fn is_exact(&self) -> bool {
        super::identity::exact_type::<T>()
    }
}

impl<T: Logical> Reducer<T> for LOr {
    #[inline(always)]
    fn init(&self) -> T {
        T::from_bool(false)
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        *dst = T::from_bool(dst.truthy() || src.truthy())
    }
    #[inline(always)]
    fn is_exact(&self) -> bool {
        super::identity::exact_type::<T>()
    }
}

impl<T: Logical> Reducer<T> for BAnd {
    #[inline(always)]
    fn init(&self) -> T {
        T::all_ones()
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        *dst = dst.bitand(*src)
    }
    #[inline(always)]
    fn is_exact(&self) -> bool {
        super::identity::exact_type::<T>()
    }
}

impl<T: Logical> Reducer<T> for BOr {
    #[inline(always)]
    fn init(&self) -> T {
        T::no_ones()
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        *dst = dst.bitor(*src)
    }
    #[inline(always)]
    fn is_exact(&self) -> bool {
        super::identity::exact_type::<T>()
    }
}
