//! Reducers: how `parallel_reduce` (and nested and team reductions)
//! combine contributions.
//!
//! A [`Reducer<T>`] gives the identity (`init`), an associative `join`
//! and an optional `finalize`. Built-ins: [`Sum`], [`Prod`], [`Min`],
//! [`Max`], [`MinMax`], [`MinLoc`], [`MaxLoc`], [`MinMaxLoc`],
//! [`MinMaxFirstLastLoc`], [`LAnd`],
//! [`LOr`], [`BAnd`], [`BOr`]; [`custom`] builds one from closures, and a
//! tuple of reducers reduces a tuple of values in one pass.

mod arith;
mod custom;
mod identity;
mod loc;
mod logical;
mod minmax;
mod target;
mod tuple;

pub use arith::{Prod, Sum};
pub use custom::{custom, Custom, Finalizer, NoFinal};
pub use identity::{Logical, ReductionIdentity};
pub use loc::{
    LocIndex, MaxLoc, MinLoc, MinMaxFirstLastLoc, MinMaxLoc, MinMaxLocScalar, ValLocScalar,
};
pub use logical::{BAnd, BOr, LAnd, LOr};
pub use minmax::{Max, Min, MinMax, MinMaxScalar};
pub use target::ReduceTarget;

/// How values of type `T` are combined.
///
/// `join` must be associative and `init()` its identity: the host spaces
/// combine per-block partial results in a fixed tree, so the result for a
/// given range does not depend on the number of threads (bitwise, even for
/// floating point).
///
/// ```
/// use granule_core::reducer::{Reducer, Max, Sum};
/// let mut a = Sum.init();
/// Sum.join(&mut a, &2.5);
/// assert_eq!(a, 2.5f64);
/// assert_eq!(<Max as Reducer<i32>>::init(&Max), i32::MIN);
/// ```
pub trait Reducer<T>: Sync + Send {
    /// The identity of `join`.
    fn init(&self) -> T;
    /// `*dst = *dst ⊕ *src`.
    fn join(&self, dst: &mut T, src: &T);
    /// Applied once to the final result (Kokkos's `final`); nothing by default.
    #[inline(always)]
    fn finalize(&self, _value: &mut T) {}
    /// Which built-in operator this is, if it is one: an implementation
    /// may then run its own code for it (a SIMD scan of sums, say)
    /// instead of calling `join` element by element. `None` by default;
    /// a reducer that answers [`KnownOp::Sum`] must join with `+`.
    ///
    /// ```
    /// use granule_core::reducer::{KnownOp, Max, Reducer, Sum};
    /// assert_eq!(Reducer::<i64>::known_op(&Sum), Some(KnownOp::Sum));
    /// assert_eq!(Reducer::<i64>::known_op(&Max), None);
    /// ```
    #[inline(always)]
    fn known_op(&self) -> Option<KnownOp> {
        None
    }
    /// Whether `join` is exactly associative on the values: every
    /// grouping of the joins gives the same bits (integer sums, products,
    /// minima and maxima, and the logical reducers on `bool` and the
    /// integers). An implementation may then regroup as it likes: the
    /// host scans of `granule-algorithms` let a block whose prefix is
    /// already known scan from it in one pass. `false` by default,
    /// which is always safe; floats are never exact (their sums round).
    ///
    /// ```
    /// use granule_core::reducer::{custom, Max, Reducer, Sum};
    /// assert!(Reducer::<i64>::is_exact(&Sum));
    /// assert!(Reducer::<u8>::is_exact(&Max));
    /// assert!(!Reducer::<f64>::is_exact(&Sum));
    /// assert!(!custom(|| 0i64, |a: &mut i64, b: &i64| *a += *b).is_exact());
    /// ```
    #[inline(always)]
    fn is_exact(&self) -> bool {
        false
    }
}

/// A built-in operator, as [`Reducer::known_op`] names it.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnownOp {
    /// `+`, as [`Sum`] joins.
    Sum,
}

impl<T, R: Reducer<T>> Reducer<T> for &R {
    #[inline(always)]
    fn init(&self) -> T {
        (**self).init()
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        (**self).join(dst, src)
    }
    #[inline(always)]
    fn finalize(&self, value: &mut T) {
        (**self).finalize(value)
    }
    #[inline(always)]
    fn known_op(&self) -> Option<KnownOp> {
        (**self).known_op()
    }
    #[inline(always)]
    fn is_exact(&self) -> bool {
        (**self).is_exact()
    }
}
