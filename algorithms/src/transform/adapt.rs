//! The per-element adapters of the element-wise algorithms: each turns
//! `(index, element)` into the value written at that index. They are
//! granule's own types, so a device implementation translates them like
//! any `#[kernel]`. The copies and `transform` use the reductions'
//! [`Elem`](crate::reduce::adapt::Elem) and
//! [`Unindexed`](crate::reduce::adapt::Unindexed).

use crate::host::raw::Src;
use crate::io::Input;
use granule_core::functor::{BinaryFunctor, UnaryFunctor};
use granule_views::{Element, HostAccessible};

/// `(i, v) -> new` where `v == old`, else `v`.
///
/// ```
/// use granule::algorithms::transform::adapt::ReplaceEq;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(ReplaceEq { old: 1, new: 9 }.call(0, 1), 9);
/// assert_eq!(ReplaceEq { old: 1, new: 9 }.call(0, 2), 2);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplaceEq<T> {
    /// The value replaced.
    pub old: T,
    /// What replaces it.
    pub new: T,
}

impl<T: PartialEq + Copy + Sync> BinaryFunctor<usize, T> for ReplaceEq<T> {
    type Output = T;
    #[inline(always)]
    fn call(&self, _i: usize, v: T) -> T {
        if v == self.old {
            self.new
        } else {
            v
        }
    }
}

/// `(i, v) -> new` where `pred(v)`, else `v`.
///
/// ```
/// use granule::algorithms::transform::adapt::ReplaceIf;
/// use granule::base::functor::BinaryFunctor;
/// let clamp = ReplaceIf { pred: |v: f64| v < 0.0, new: 0.0 };
/// assert_eq!((clamp.call(0, -2.0), clamp.call(0, 3.0)), (0.0, 3.0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplaceIf<P, T> {
    /// Which values are replaced.
    pub pred: P,
    /// What replaces them.
    pub new: T,
}

impl<T: Copy + Sync, P: UnaryFunctor<T, Output = bool>> BinaryFunctor<usize, T>
    for ReplaceIf<P, T>
{
    type Output = T;
    #[inline(always)]
    fn call(&self, _i: usize, v: T) -> T {
        if self.pred.call(v) {
            self.new
        } else {
            v
        }
    }
}

/// `(i, _) -> value`: a fill.
///
/// ```
/// use granule::algorithms::transform::adapt::Constant;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(Constant(4u8).call(7, 0u8), 4);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Constant<T>(pub T);

impl<T: Copy + Sync> BinaryFunctor<usize, T> for Constant<T> {
    type Output = T;
    #[inline(always)]
    fn call(&self, _i: usize, _v: T) -> T {
        self.0
    }
}

/// `(i, _) -> g(i)`: a generator of the index.
///
/// ```
/// use granule::algorithms::transform::adapt::Generated;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(Generated(|i: usize| i as f32 * 0.5).call(3, 0.0), 1.5);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Generated<G>(pub G);

impl<T, G: UnaryFunctor<usize, Output = T>> BinaryFunctor<usize, T> for Generated<G> {
    type Output = T;
    #[inline(always)]
    fn call(&self, i: usize, _v: T) -> T {
        self.0.call(i)
    }
}

/// `(a, b) -> a - b`: the default operation of
/// [`adjacent_difference`](crate::adjacent_difference).
///
/// ```
/// use granule::algorithms::transform::adapt::Minus;
/// use granule::base::functor::BinaryFunctor;
/// assert_eq!(Minus.call(7, 9), -2);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Minus;

impl<T: std::ops::Sub<Output = T>> BinaryFunctor<T, T> for Minus {
    type Output = T;
    #[inline(always)]
    fn call(&self, a: T, b: T) -> T {
        a - b
    }
}

/// `(i, a) -> op(a, b[i])`: the binary [`transform_binary`](crate::transform_binary).
/// It is made by the algorithm from its Views; a device implementation
/// binds `b` as a further argument of its driver.
#[derive(Debug)]
pub struct Zip<'a, T, M, F> {
    pub(crate) b: Input<'a, T, M>,
    pub(crate) op: F,
}

impl<A, T, M, F> BinaryFunctor<usize, A> for Zip<'_, T, M, F>
where
    T: Element,
    M: HostAccessible,
    F: BinaryFunctor<A, T>,
{
    type Output = F::Output;
    #[inline(always)]
    fn call(&self, i: usize, a: A) -> F::Output {
        // SAFETY: the adapter holds the algorithm's shared borrow of `b`:
        // no thread writes it during the call; `get` checks `i`.
        self.op.call(a, unsafe { Src::of(&self.b).get(i) })
    }
}

/// `(i, v) -> v` at 0, else `op(v, x[i - 1])`:
/// [`adjacent_difference`](crate::adjacent_difference). It holds the
/// input it reads the neighbour from.
#[derive(Debug)]
pub struct Difference<'a, T, M, F> {
    pub(crate) x: Input<'a, T, M>,
    pub(crate) op: F,
}

impl<T, M, F> BinaryFunctor<usize, T> for Difference<'_, T, M, F>
where
    T: Element,
    M: HostAccessible,
    F: BinaryFunctor<T, T, Output = T>,
{
    type Output = T;
    #[inline(always)]
    fn call(&self, i: usize, v: T) -> T {
        if i == 0 {
            return v;
        }
        // SAFETY: the adapter holds the algorithm's shared borrow of `x`:
        // no thread writes it during the call; `get` checks `i - 1`.
        self.op.call(v, unsafe { Src::of(&self.x).get(i - 1) })
    }
}
