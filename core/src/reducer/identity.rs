//! Identities of the built-in reductions, per element type.

/// The identities of the arithmetic reductions (Kokkos's
/// `reduction_identity`). Floating-point `min()` and `max()` are the
/// infinities, so any finite value replaces them.
///
/// ```
/// use granule_core::reducer::ReductionIdentity;
/// assert_eq!(<f64 as ReductionIdentity>::min(), f64::INFINITY);
/// assert_eq!(<u8 as ReductionIdentity>::max(), 0);
/// assert_eq!(<i32 as ReductionIdentity>::prod(), 1);
/// ```
pub trait ReductionIdentity: Copy + PartialOrd + Send + Sync + 'static {
    /// Identity of `+` (zero).
    fn sum() -> Self;
    /// Identity of `*` (one).
    fn prod() -> Self;
    /// Identity of `min` (the largest value).
    fn min() -> Self;
    /// Identity of `max` (the smallest value).
    fn max() -> Self;
}

macro_rules! ident_int {
    ($($t:ty),*) => { $(
        impl ReductionIdentity for $t {
            #[inline(always)] fn sum() -> $t { 0 }
            #[inline(always)] fn prod() -> $t { 1 }
            #[inline(always)] fn min() -> $t { <$t>::MAX }
            #[inline(always)] fn max() -> $t { <$t>::MIN }
        }
    )* };
}
ident_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

macro_rules! ident_float {
    ($($t:ty),*) => { $(
        impl ReductionIdentity for $t {
            #[inline(always)] fn sum() -> $t { 0.0 }
            #[inline(always)] fn prod() -> $t { 1.0 }
            #[inline(always)] fn min() -> $t { <$t>::INFINITY }
            #[inline(always)] fn max() -> $t { <$t>::NEG_INFINITY }
        }
    )* };
}
ident_float!(f32, f64);

/// Types with the logical and bitwise reductions: `bool` and the integers
/// (an integer is true when non-zero, as in C++).
pub trait Logical: Copy + Send + Sync + 'static {
    /// Whether the value counts as true.
    fn truthy(self) -> bool;
    /// `true` as 1 (or `true`), `false` as 0.
    fn from_bool(b: bool) -> Self;
    /// All bits set: the identity of bitwise and.
    fn all_ones() -> Self;
    /// No bit set: the identity of bitwise or.
    fn no_ones() -> Self;
    /// Bitwise and.
    fn bitand(self, o: Self) -> Self;
    /// Bitwise or.
    fn bitor(self, o: Self) -> Self;
}

macro_rules! logical_int {
    ($($t:ty),*) => { $(
        impl Logical for $t {
            #[inline(always)] fn truthy(self) -> bool { self != 0 }
            #[inline(always)] fn from_bool(b: bool) -> $t { b as $t }
            #[inline(always)] fn all_ones() -> $t { !0 }
            #[inline(always)] fn no_ones() -> $t { 0 }
            #[inline(always)] fn bitand(self, o: $t) -> $t { self & o }
            #[inline(always)] fn bitor(self, o: $t) -> $t { self | o }
        }
    )* };
}
logical_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl Logical for bool {
    #[inline(always)]
    fn truthy(self) -> bool {
        self
    }
    #[inline(always)]
    fn from_bool(b: bool) -> bool {
        b
    }
    #[inline(always)]
    fn all_ones() -> bool {
        true
    }
    #[inline(always)]
    fn no_ones() -> bool {
        false
    }
    #[inline(always)]
    fn bitand(self, o: bool) -> bool {
        self & o
    }
    #[inline(always)]
    fn bitor(self, o: bool) -> bool {
        self | o
    }
}

/// Whether `T` is `bool` or a primitive integer: the types whose built-in
/// joins (`+`, `*`, min, max, the logical ones) are exactly associative,
/// as [`super::Reducer::is_exact`] reports.
pub(crate) fn exact_type<T: 'static>() -> bool {
    use std::any::TypeId;
    [
        TypeId::of::<bool>(),
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<i128>(),
        TypeId::of::<isize>(),
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<u128>(),
        TypeId::of::<usize>(),
    ]
    .contains(&TypeId::of::<T>())
}

#[cfg(test)]
mod tests {
    use crate::reducer::{BAnd, LOr, Max, Min, Prod, Reducer, Sum};

    #[test]
    fn only_integer_and_logical_joins_are_exact() {
        assert!(Reducer::<u128>::is_exact(&Prod));
        assert!(Reducer::<i8>::is_exact(&Min));
        assert!(Reducer::<bool>::is_exact(&LOr));
        assert!(Reducer::<u16>::is_exact(&BAnd));
        assert!(Reducer::<(i64, u32)>::is_exact(&(Sum, Max)));
        assert!(!Reducer::<f32>::is_exact(&Prod));
        assert!(!Reducer::<f64>::is_exact(&Min));
        assert!(!Reducer::<(i64, f64)>::is_exact(&(Sum, Sum)));
        assert!(Reducer::<i64>::is_exact(&&Sum));
    }
}
