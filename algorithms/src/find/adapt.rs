//! The per-element adapters of the searches: each turns `(index,
//! element)`, or `(index, (a, b))` for a pair, into the value its
//! reduction combines, mostly a candidate index ([`NONE`] when the
//! element is not one), of which the smallest wins. They are granule's
//! own types, so a device implementation translates them like any
//! `#[kernel]`.

use crate::host::raw::Src;
use crate::io::Input;
use granule_core::functor::{BinaryFunctor, UnaryFunctor};
use granule_views::{Element, HostAccessible};

/// The candidate index of an element that is not one: the identity of
/// `Min` over `usize`, so that the smallest candidate is the first.
pub const NONE: usize = usize::MAX;

/// `(a, b) -> a == b`: the default predicate of the searches that compare
/// elements, as [`PartialLess`](crate::sort::PartialLess) is the default
/// order of the sorts.
///
/// ```
/// use granule::algorithms::find::adapt::PartialEqual;
/// use granule::base::functor::BinaryFunctor;
/// assert!(PartialEqual.call(2, 2) && !PartialEqual.call(f64::NAN, f64::NAN));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PartialEqual;

impl<T: PartialEq> BinaryFunctor<T, T> for PartialEqual {
    type Output = bool;
    #[inline(always)]
    fn call(&self, a: T, b: T) -> bool {
        a == b
    }
}

/// `(i, x) -> i` where `pred(x)`: the first element that satisfies it.
///
/// ```
/// use granule::algorithms::find::adapt::{FirstIf, NONE};
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(FirstIf(|x: i32| x > 0).call(4, 5), 4);
/// assert_eq!(FirstIf(|x: i32| x > 0).call(4, -5), NONE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstIf<P>(pub P);

impl<T, P: UnaryFunctor<T, Output = bool>> BinaryFunctor<usize, T> for FirstIf<P> {
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, x: T) -> usize {
        if self.0.call(x) {
            i
        } else {
            NONE
        }
    }
}

/// `(i, x) -> i` where `!pred(x)`: the first element that fails it.
///
/// ```
/// use granule::algorithms::find::adapt::{FirstIfNot, NONE};
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(FirstIfNot(|x: i32| x > 0).call(4, -5), 4);
/// assert_eq!(FirstIfNot(|x: i32| x > 0).call(4, 5), NONE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstIfNot<P>(pub P);

impl<T, P: UnaryFunctor<T, Output = bool>> BinaryFunctor<usize, T> for FirstIfNot<P> {
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, x: T) -> usize {
        if self.0.call(x) {
            NONE
        } else {
            i
        }
    }
}

/// `(i, x) -> i` where `x == value`.
///
/// ```
/// use granule::algorithms::find::adapt::{FirstEq, NONE};
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(FirstEq(7u8).call(2, 7), 2);
/// assert_eq!(FirstEq(f64::NAN).call(2, f64::NAN), NONE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstEq<T>(pub T);

impl<T: PartialEq + Sync> BinaryFunctor<usize, T> for FirstEq<T> {
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, x: T) -> usize {
        if x == self.0 {
            i
        } else {
            NONE
        }
    }
}

/// `(i, x) -> (x == value) as usize`: counting a value.
///
/// ```
/// use granule::algorithms::find::adapt::CountEq;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(CountEq(-1i64).call(9, -1), 1);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct CountEq<T>(pub T);

impl<T: PartialEq + Sync> BinaryFunctor<usize, T> for CountEq<T> {
    type Output = usize;
    #[inline(always)]
    fn call(&self, _i: usize, x: T) -> usize {
        usize::from(x == self.0)
    }
}

/// `(i, x) -> (i + 1, NONE)` where `pred(x)`, else `(0, i)`: joined by
/// `(Max, Min)`, the end of the last element that satisfies `pred` and the
/// first that fails it. The elements are partitioned when the first is
/// at most the second.
///
/// ```
/// use granule::algorithms::find::adapt::{PartitionEnds, NONE};
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(PartitionEnds(|x: i32| x < 0).call(3, -1), (4, NONE));
/// assert_eq!(PartitionEnds(|x: i32| x < 0).call(3, 1), (0, 3));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PartitionEnds<P>(pub P);

impl<T, P: UnaryFunctor<T, Output = bool>> BinaryFunctor<usize, T> for PartitionEnds<P> {
    type Output = (usize, usize);
    #[inline(always)]
    fn call(&self, i: usize, x: T) -> (usize, usize) {
        if self.0.call(x) {
            (i + 1, NONE)
        } else {
            (0, i)
        }
    }
}

/// `(i, (a, b)) -> i` where `!same(a, b)`: the first pair that differs.
///
/// ```
/// use granule::algorithms::find::adapt::{FirstMismatch, PartialEqual, NONE};
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(FirstMismatch(PartialEqual).call(3, (1, 2)), 3);
/// assert_eq!(FirstMismatch(PartialEqual).call(3, (2, 2)), NONE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstMismatch<C>(pub C);

impl<T, C: BinaryFunctor<T, T, Output = bool>> BinaryFunctor<usize, (T, T)> for FirstMismatch<C> {
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, (a, b): (T, T)) -> usize {
        if self.0.call(a, b) {
            NONE
        } else {
            i
        }
    }
}

/// `(i, (x[i], x[i+1])) -> i` where `pred(x[i], x[i+1])`: the first
/// adjacent pair that satisfies it.
///
/// ```
/// use granule::algorithms::find::adapt::{FirstAdjacent, PartialEqual, NONE};
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(FirstAdjacent(PartialEqual).call(5, (4, 4)), 5);
/// assert_eq!(FirstAdjacent(PartialEqual).call(5, (4, 3)), NONE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstAdjacent<C>(pub C);

impl<T, C: BinaryFunctor<T, T, Output = bool>> BinaryFunctor<usize, (T, T)> for FirstAdjacent<C> {
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, (a, b): (T, T)) -> usize {
        if self.0.call(a, b) {
            i
        } else {
            NONE
        }
    }
}

/// `(i, (x[i], x[i+1])) -> i + 1` where `less(x[i+1], x[i])`: the first
/// element that is out of order.
///
/// ```
/// use granule::algorithms::find::adapt::{FirstDescent, NONE};
/// use granule::algorithms::sort::PartialLess;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(FirstDescent(PartialLess).call(5, (4, 3)), 6);
/// assert_eq!(FirstDescent(PartialLess).call(5, (3, 3)), NONE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstDescent<C>(pub C);

impl<T: Copy, C: BinaryFunctor<T, T, Output = bool>> BinaryFunctor<usize, (T, T)>
    for FirstDescent<C>
{
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, (a, b): (T, T)) -> usize {
        if self.0.call(b, a) {
            i + 1
        } else {
            NONE
        }
    }
}

/// `(i, (a, b)) -> 2i` where `less(a, b)`, `2i + 1` where `less(b, a)`,
/// else [`NONE`]: the smallest is the first pair that orders the two
/// sequences, and its low bit says which way.
///
/// ```
/// use granule::algorithms::find::adapt::{LexOrder, NONE};
/// use granule::algorithms::sort::PartialLess;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(LexOrder(PartialLess).call(3, (1, 2)), 6);
/// assert_eq!(LexOrder(PartialLess).call(3, (2, 1)), 7);
/// assert_eq!(LexOrder(PartialLess).call(3, (2, 2)), NONE);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct LexOrder<C>(pub C);

impl<T: Copy, C: BinaryFunctor<T, T, Output = bool>> BinaryFunctor<usize, (T, T)> for LexOrder<C> {
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, (a, b): (T, T)) -> usize {
        if self.0.call(a, b) {
            2 * i
        } else if self.0.call(b, a) {
            2 * i + 1
        } else {
            NONE
        }
    }
}

/// Whether `pred(x[i + j], p(j))` holds for every `j < m`, reading `x`
/// and the pattern of a search's adapter; false when the window passes
/// the end of `x`.
#[inline(always)]
fn window_at<T: Element, C: BinaryFunctor<T, T, Output = bool>>(
    x: &Src<T>,
    i: usize,
    m: usize,
    p: impl Fn(usize) -> T,
    pred: &C,
) -> bool {
    // SAFETY: the adapters hold the searches' shared borrows of `x` and
    // of the pattern (`Input`s), so no thread writes them during the
    // call; indices past `x` are not read (`m <= len - i`).
    m <= x.len - i && (0..m).all(|j| pred.call(unsafe { x.get(i + j) }, p(j)))
}

/// `(i, _) -> i` where the window of `x` at `i` matches the pattern by
/// `pred` ([`search`](crate::search)): the first such window.
///
/// It is made by the search from its Views; a device implementation
/// binds the pattern as a further argument of its driver.
#[derive(Debug)]
pub struct FirstWindow<'a, T, M, C> {
    pub(crate) x: Input<'a, T, M>,
    pub(crate) pattern: Input<'a, T, M>,
    pub(crate) pred: C,
}

/// `(i, _) -> i + 1` where the window of `x` at `i` matches the pattern
/// by `pred`, else 0 ([`find_end`](crate::find_end)): joined by `Max`,
/// the end of the last such window's start.
#[derive(Debug)]
pub struct LastWindow<'a, T, M, C>(pub(crate) FirstWindow<'a, T, M, C>);

/// `(i, _) -> i` where `count` elements from `i` match `value` by `pred`
/// ([`search_n`](crate::search_n)).
#[derive(Debug)]
pub struct FirstRun<'a, T, M, C> {
    pub(crate) x: Input<'a, T, M>,
    pub(crate) count: usize,
    pub(crate) value: T,
    pub(crate) pred: C,
}

/// `(i, x) -> i` where `pred(x, s)` holds for some element `s` of the
/// set ([`find_first_of`](crate::find_first_of)).
#[derive(Debug)]
pub struct FirstOf<'a, T, M, C> {
    pub(crate) set: Input<'a, T, M>,
    pub(crate) pred: C,
}

impl<T, M, C> FirstWindow<'_, T, M, C>
where
    T: Element,
    M: HostAccessible,
    C: BinaryFunctor<T, T, Output = bool>,
{
    #[inline(always)]
    fn matches(&self, i: usize) -> bool {
        let p = Src::of(&self.pattern);
        // SAFETY: as in `window_at`; `j < m`, the pattern's length.
        window_at(
            &Src::of(&self.x),
            i,
            p.len,
            |j| unsafe { p.get(j) },
            &self.pred,
        )
    }
}

impl<T, M, C> BinaryFunctor<usize, T> for FirstWindow<'_, T, M, C>
where
    T: Element,
    M: HostAccessible,
    C: BinaryFunctor<T, T, Output = bool>,
{
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, _: T) -> usize {
        if self.matches(i) {
            i
        } else {
            NONE
        }
    }
}

impl<T, M, C> BinaryFunctor<usize, T> for LastWindow<'_, T, M, C>
where
    T: Element,
    M: HostAccessible,
    C: BinaryFunctor<T, T, Output = bool>,
{
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, _: T) -> usize {
        if self.0.matches(i) {
            i + 1
        } else {
            0
        }
    }
}

impl<T, M, C> BinaryFunctor<usize, T> for FirstRun<'_, T, M, C>
where
    T: Element,
    M: HostAccessible,
    C: BinaryFunctor<T, T, Output = bool>,
{
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, _: T) -> usize {
        let x = Src::of(&self.x);
        if window_at(&x, i, self.count, |_| self.value, &self.pred) {
            i
        } else {
            NONE
        }
    }
}

impl<T, M, C> BinaryFunctor<usize, T> for FirstOf<'_, T, M, C>
where
    T: Element,
    M: HostAccessible,
    C: BinaryFunctor<T, T, Output = bool>,
{
    type Output = usize;
    #[inline(always)]
    fn call(&self, i: usize, v: T) -> usize {
        let set = Src::of(&self.set);
        // SAFETY: the adapter holds the search's shared borrow of the set:
        // no thread writes it during the call; `j < len`.
        if (0..set.len).any(|j| self.pred.call(v, unsafe { set.get(j) })) {
            i
        } else {
            NONE
        }
    }
}
