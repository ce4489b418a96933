//! The per-element adapters the reductions hand to
//! [`ReduceImpl`](super::ReduceImpl): each turns `(index, element)` into
//! the value its operator combines. They are granule's own types, so a
//! device implementation can translate them like any `#[kernel]`.

use granule_core::functor::{BinaryFunctor, UnaryFunctor};
use granule_core::reducer::{MinMaxLocScalar, ValLocScalar};

/// `(i, x) -> x`: a plain reduction.
///
/// ```
/// use granule::algorithms::reduce::adapt::Elem;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(Elem.call(3, 2.5), 2.5);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Elem;

impl<T> BinaryFunctor<usize, T> for Elem {
    type Output = T;
    #[inline(always)]
    fn call(&self, _i: usize, x: T) -> T {
        x
    }
}

/// `(i, x) -> f(x)`: a transform reduction.
///
/// ```
/// use granule::algorithms::reduce::adapt::Unindexed;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(Unindexed(|x: i32| x * 2).call(9, 4), 8);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Unindexed<F>(pub F);

impl<T, F: UnaryFunctor<T>> BinaryFunctor<usize, T> for Unindexed<F> {
    type Output = F::Output;
    #[inline(always)]
    fn call(&self, _i: usize, x: T) -> F::Output {
        self.0.call(x)
    }
}

/// `(i, x) -> pred(x) as usize`: counting.
///
/// ```
/// use granule::algorithms::reduce::adapt::CountIf;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(CountIf(|x: i32| x > 0).call(0, 5), 1);
/// ```
#[derive(Clone, Copy, Debug, Default)]
#[repr(transparent)]
pub struct CountIf<P>(pub P);

impl<P> CountIf<P> {
    /// Borrows a predicate as the adapter.
    pub(crate) fn from_ref(p: &P) -> &CountIf<P> {
        // SAFETY: CountIf is repr(transparent) over P, so the layouts and
        // validity of P and CountIf<P> are the same.
        unsafe { &*(p as *const P as *const CountIf<P>) }
    }
}

impl<T, P: UnaryFunctor<T, Output = bool>> BinaryFunctor<usize, T> for CountIf<P> {
    type Output = usize;
    #[inline(always)]
    fn call(&self, _i: usize, x: T) -> usize {
        usize::from(self.0.call(x))
    }
}

/// `(i, x) -> pred(x)`, combined by logical and.
///
/// ```
/// use granule::algorithms::reduce::adapt::AllOf;
/// use granule::base::functor::BinaryFunctor;
/// assert!(AllOf(|x: u8| x < 9).call(0, 3));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct AllOf<P>(pub P);

impl<T, P: UnaryFunctor<T, Output = bool>> BinaryFunctor<usize, T> for AllOf<P> {
    type Output = bool;
    #[inline(always)]
    fn call(&self, _i: usize, x: T) -> bool {
        self.0.call(x)
    }
}

/// `(i, x) -> pred(x)`, combined by logical or.
///
/// ```
/// use granule::algorithms::reduce::adapt::AnyOf;
/// use granule::base::functor::BinaryFunctor;
/// assert!(!AnyOf(|x: u8| x > 9).call(0, 3));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct AnyOf<P>(pub P);

impl<T, P: UnaryFunctor<T, Output = bool>> BinaryFunctor<usize, T> for AnyOf<P> {
    type Output = bool;
    #[inline(always)]
    fn call(&self, _i: usize, x: T) -> bool {
        self.0.call(x)
    }
}

/// `(i, x) -> (x at i)`, for `MinLoc` and `MaxLoc`.
///
/// ```
/// use granule::algorithms::reduce::adapt::Loc;
/// use granule::base::functor::BinaryFunctor;
/// let v = Loc.call(4, 1.5);
/// assert_eq!((v.val, v.loc), (1.5, 4));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Loc;

impl<T> BinaryFunctor<usize, T> for Loc {
    type Output = ValLocScalar<T, usize>;
    #[inline(always)]
    fn call(&self, i: usize, x: T) -> ValLocScalar<T, usize> {
        ValLocScalar { val: x, loc: i }
    }
}

/// `(i, x) -> (x at i, x at i)`, for `MinMaxLoc` and `MinMaxFirstLastLoc`.
///
/// ```
/// use granule::algorithms::reduce::adapt::MinMaxOf;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(MinMaxOf.call(2, 7u8).max_loc, 2);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MinMaxOf;

impl<T: Copy> BinaryFunctor<usize, T> for MinMaxOf {
    type Output = MinMaxLocScalar<T, usize>;
    #[inline(always)]
    fn call(&self, i: usize, x: T) -> MinMaxLocScalar<T, usize> {
        MinMaxLocScalar {
            min_val: x,
            max_val: x,
            min_loc: i,
            max_loc: i,
        }
    }
}

/// `(i, (a, b)) -> a == b`, combined by logical and.
///
/// ```
/// use granule::algorithms::reduce::adapt::Equal;
/// use granule::base::functor::BinaryFunctor;
/// assert!(!Equal.call(0, (f64::NAN, f64::NAN)));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Equal;

impl<T: PartialEq> BinaryFunctor<usize, (T, T)> for Equal {
    type Output = bool;
    #[inline(always)]
    fn call(&self, _i: usize, (a, b): (T, T)) -> bool {
        a == b
    }
}
