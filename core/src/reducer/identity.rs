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
