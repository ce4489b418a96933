//! The operations a ScatterView combines contributions with, and the
//! element types it combines.

use granule_core::reducer::{Max, Min, Prod, ReductionIdentity, Sum};
use granule_views::Atomic;

mod sealed {
    pub trait Sealed {}
}

/// Element types of a [`ScatterView`](super::ScatterView): the 32- and
/// 64-bit integers and floats, which every space (a GPU included) updates
/// atomically. Integer arithmetic wraps, as the atomic instructions do, so
/// a duplicated and an atomic ScatterView give the same bits.
pub trait ScatterValue: Atomic + ReductionIdentity + sealed::Sealed {
    /// `a + b`, wrapping for integers.
    fn add(a: Self, b: Self) -> Self;
    /// `a * b`, wrapping for integers.
    fn mul(a: Self, b: Self) -> Self;
}

macro_rules! scatter_int {
    ($($t:ty),*) => { $(
        impl sealed::Sealed for $t {}
        impl ScatterValue for $t {
            #[inline(always)] fn add(a: $t, b: $t) -> $t { a.wrapping_add(b) }
            #[inline(always)] fn mul(a: $t, b: $t) -> $t { a.wrapping_mul(b) }
        }
    )* };
}
scatter_int!(i32, i64, u32, u64, isize, usize);

macro_rules! scatter_float {
    ($($t:ty),*) => { $(
        impl sealed::Sealed for $t {}
        impl ScatterValue for $t {
            #[inline(always)] fn add(a: $t, b: $t) -> $t { a + b }
            #[inline(always)] fn mul(a: $t, b: $t) -> $t { a * b }
        }
    )* };
}
scatter_float!(f32, f64);

/// How a ScatterView combines a contribution with what an element holds:
/// granule's reducers [`Sum`] (the default), [`Prod`], [`Min`] and
/// [`Max`], as Kokkos's `ScatterSum`, `ScatterProd`, `ScatterMin` and
/// `ScatterMax`.
///
/// ```
/// use granule_containers::scatter::ScatterOp;
/// use granule_core::reducer::{Max, Prod};
/// assert_eq!(<Prod as ScatterOp<u32>>::identity(), 1);
/// assert_eq!(<Max as ScatterOp<i64>>::combine(-3, 5), 5);
/// ```
pub trait ScatterOp<T: ScatterValue>: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The value a fresh (or reset) contribution starts from.
    fn identity() -> T;
    /// The element after contribution `v`.
    fn combine(cur: T, v: T) -> T;
    /// Applies `v` to the element atomically.
    fn atomic(a: &T::Atom, v: T);
    /// The name in messages and on the device (`sum`, `prod`, `min`, `max`).
    const NAME: &'static str;
}

impl sealed::Sealed for Sum {}
impl sealed::Sealed for Prod {}
impl sealed::Sealed for Min {}
impl sealed::Sealed for Max {}

impl<T: ScatterValue> ScatterOp<T> for Sum {
    const NAME: &'static str = "sum";
    #[inline(always)]
    fn identity() -> T {
        T::sum()
    }
    #[inline(always)]
    fn combine(cur: T, v: T) -> T {
        T::add(cur, v)
    }
    #[inline(always)]
    fn atomic(a: &T::Atom, v: T) {
        T::fetch_add(a, v);
    }
}

impl<T: ScatterValue> ScatterOp<T> for Prod {
    const NAME: &'static str = "prod";
    #[inline(always)]
    fn identity() -> T {
        T::prod()
    }
    #[inline(always)]
    fn combine(cur: T, v: T) -> T {
        T::mul(cur, v)
    }
    #[inline(always)]
    fn atomic(a: &T::Atom, v: T) {
        // No instruction multiplies atomically: retry until no other
        // thread changed the element between the read and the swap.
        let mut cur = T::load(a);
        while let Err(actual) = T::compare_exchange(a, cur, T::mul(cur, v)) {
            cur = actual;
        }
    }
}

impl<T: ScatterValue> ScatterOp<T> for Min {
    const NAME: &'static str = "min";
    #[inline(always)]
    fn identity() -> T {
        T::min()
    }
    #[inline(always)]
    fn combine(cur: T, v: T) -> T {
        if v < cur {
            v
        } else {
            cur
        }
    }
    #[inline(always)]
    fn atomic(a: &T::Atom, v: T) {
        T::fetch_min(a, v);
    }
}

impl<T: ScatterValue> ScatterOp<T> for Max {
    const NAME: &'static str = "max";
    #[inline(always)]
    fn identity() -> T {
        T::max()
    }
    #[inline(always)]
    fn combine(cur: T, v: T) -> T {
        if v > cur {
            v
        } else {
            cur
        }
    }
    #[inline(always)]
    fn atomic(a: &T::Atom, v: T) {
        T::fetch_max(a, v);
    }
}
