//! Reductions: [`reduce`], [`transform_reduce`], [`count_if`],
//! [`min_element`], [`max_element`], [`minmax_element`], [`all_of`],
//! [`any_of`], [`none_of`], [`equal`].
//!
//! They are built on the `parallel_reduce` pattern, so they are bitwise
//! reproducible for a given length whatever the thread count. Each is one
//! call of [`ReduceImpl::transform_reduce_indexed`] (or
//! [`ReducePairsImpl`] for two Views) with an operator from the reducers
//! and a small per-element adapter from [`adapt`].

pub mod adapt;
#[cfg(feature = "cuda")]
pub(crate) mod cuda;
mod host;

use crate::io::Input;
use adapt::{AllOf, AnyOf, CountIf, Elem, Equal, Loc, MinMaxOf, Unindexed};
#[cfg(feature = "cuda")]
pub use cuda::{CudaPairMap, CudaReduceMap};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{
    LAnd, LOr, MaxLoc, MinLoc, MinMaxFirstLastLoc, MinMaxLocScalar, Reducer, ReductionIdentity,
    Sum, ValLocScalar,
};
use granule_core::ExecutionSpace;
use granule_views::storage::Storage;
use granule_views::{Element, Layout, ViewBase};

/// How an execution space reduces `f(i, input[i])` (values `U`, operator
/// `R`). Implemented for Serial and Rayon, and for Cuda through
/// `CudaReduceMap` (with the `cuda` feature).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::reduce::{adapt::Elem, ReduceImpl};
/// fn sums<S: ReduceImpl<f32, f32, Sum, Elem>>(_: &S) {}
/// sums(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no reduction of these types",
    note = "on Cuda the elements are a number type or bool and user functions `#[kernel]` element functions"
)]
pub trait ReduceImpl<T, U, R, F>: ExecutionSpace {
    /// The join by `op`, from `op.init()`, of `f(i, input[i])` for every
    /// `i` (not finalized).
    fn transform_reduce_indexed(
        &self,
        label: &str,
        input: Input<'_, T, Self::MemorySpace>,
        op: &R,
        f: &F,
    ) -> U;
}

/// How an execution space reduces `f(i, (a[i], b[i]))` over two Views of
/// the same length. Implemented for Serial and Rayon, and for Cuda through
/// `CudaPairMap` (with the `cuda` feature).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::reduce::{adapt::Equal, ReducePairsImpl};
/// fn compares<S: ReducePairsImpl<i8, i8, bool, LAnd, Equal>>(_: &S) {}
/// compares(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no two-View reduction of these types",
    note = "on Cuda the elements are a number type or bool and a comparator a `#[kernel(binary)]` element function"
)]
pub trait ReducePairsImpl<A, B, U, R, F>: ExecutionSpace {
    /// The join by `op`, from `op.init()`, of `f(i, (a[i], b[i]))` (not
    /// finalized); the lengths are equal.
    fn reduce_pairs(
        &self,
        label: &str,
        a: Input<'_, A, Self::MemorySpace>,
        b: Input<'_, B, Self::MemorySpace>,
        op: &R,
        f: &F,
    ) -> U;
}

fn finish<U, R: Reducer<U>>(op: &R, init: Option<U>, mut v: U) -> U {
    if let Some(mut i) = init {
        op.join(&mut i, &v);
        v = i;
    }
    op.finalize(&mut v);
    v
}

/// `init ⊕ x[0] ⊕ … ⊕ x[n-1]` (the operator's identity for an empty View
/// without `init`), finalized by the operator.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::reduce;
/// let space = Rayon::new(2)?;
/// let x = View1::<f64, LayoutRight, _>::from_fn_in(space.memory_space(), "x", 100, |i| i as f64)?;
/// assert_eq!(reduce(&space, &x, Sum, None), 4950.0);
/// assert_eq!(reduce(&space, &x, Max, Some(1000.0)), 1000.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reduce<S, T, R, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, op: R, init: Option<T>) -> T
where
    S: ReduceImpl<T, T, R, Elem>,
    T: Element,
    R: Reducer<T>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let v = space.transform_reduce_indexed("reduce", Input::of(x), &op, &Elem);
    finish(&op, init, v)
}

/// [`reduce`] of `transform(x[i])`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::transform_reduce;
/// let x = View1::<f32>::from_vec("x", 3, vec![3.0, -4.0, 12.0])?;
/// let norm2 = transform_reduce(&Serial, &x, Sum, None, |v: f32| (v as f64) * (v as f64));
/// assert_eq!(norm2.sqrt(), 13.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn transform_reduce<S, T, U, R, F, Sx, Lx>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    op: R,
    init: Option<U>,
    transform: F,
) -> U
where
    S: ReduceImpl<T, U, R, Unindexed<F>>,
    T: Element,
    R: Reducer<U>,
    F: UnaryFunctor<T, Output = U>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let f = Unindexed(transform);
    let v = space.transform_reduce_indexed("transform_reduce", Input::of(x), &op, &f);
    finish(&op, init, v)
}

/// How many elements satisfy `pred`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::count_if;
/// let x = View1::<i64>::from_fn("x", 1000, |i| i as i64)?;
/// assert_eq!(count_if(&Serial, &x, |v: i64| v % 3 == 0), 334);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn count_if<S, T, P, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: P) -> usize
where
    S: ReduceImpl<T, usize, Sum, CountIf<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    count_if_ref(space, x, &pred)
}

/// [`count_if`] with a borrowed predicate (the `_counted` compactions use
/// theirs twice).
pub(crate) fn count_if_ref<S, T, P, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: &P) -> usize
where
    S: ReduceImpl<T, usize, Sum, CountIf<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    space.transform_reduce_indexed("count_if", Input::of(x), &Sum, CountIf::from_ref(pred))
}

/// The smallest element and its index, or `None` for an empty View (or
/// one of NaNs only: NaN is never the minimum). Ties go to the lowest
/// index, as with Kokkos's `MinLoc`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::min_element;
/// let x = View1::<f64>::from_vec("x", 5, vec![3.0, 1.0, 4.0, 1.0, 5.0])?;
/// assert_eq!(min_element(&Serial, &x), Some((1, 1.0)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn min_element<S, T, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>) -> Option<(usize, T)>
where
    S: ReduceImpl<T, ValLocScalar<T, usize>, MinLoc, Loc>,
    T: Element + ReductionIdentity,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let r = space.transform_reduce_indexed("min_element", Input::of(x), &MinLoc, &Loc);
    (r.loc != usize::MAX).then_some((r.loc, r.val))
}

/// The largest element and its index, or `None` for an empty View (or
/// one of NaNs only). Ties go to the lowest index.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::max_element;
/// let x = View1::<u8>::from_vec("x", 5, vec![3, 9, 4, 9, 5])?;
/// assert_eq!(max_element(&Serial, &x), Some((1, 9)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn max_element<S, T, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>) -> Option<(usize, T)>
where
    S: ReduceImpl<T, ValLocScalar<T, usize>, MaxLoc, Loc>,
    T: Element + ReductionIdentity,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let r = space.transform_reduce_indexed("max_element", Input::of(x), &MaxLoc, &Loc);
    (r.loc != usize::MAX).then_some((r.loc, r.val))
}

/// The result of [`minmax_element`]: each extreme with its index.
///
/// ```
/// use granule::algorithms::MinMaxElement;
/// let m = MinMaxElement { min: (3, -1.0), max: (0, 2.0) };
/// assert_eq!(m.max.1, 2.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinMaxElement<T> {
    /// Index and value of the smallest element (lowest index on ties).
    pub min: (usize, T),
    /// Index and value of the largest element (highest index on ties).
    pub max: (usize, T),
}

/// Both extremes and their indices in one pass, or `None` for an empty
/// View (or one of NaNs only). As in Kokkos (its `MinMaxFirstLastLoc`),
/// C++'s `std::minmax_element` and Rust's `Iterator::min_by`/`max_by`,
/// the smallest is the first of equal smallest elements and the largest
/// the last of equal largest ones, on every space and thread count
/// ([`max_element`] keeps the first, as all three do).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{minmax_element, MinMaxElement};
/// let x = View1::<i32>::from_vec("x", 6, vec![2, -7, 8, -7, 8, 0])?;
/// assert_eq!(minmax_element(&Serial, &x), Some(MinMaxElement { min: (1, -7), max: (4, 8) }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn minmax_element<S, T, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>) -> Option<MinMaxElement<T>>
where
    S: ReduceImpl<T, MinMaxLocScalar<T, usize>, MinMaxFirstLastLoc, MinMaxOf>,
    T: Element + ReductionIdentity,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let r = space.transform_reduce_indexed(
        "minmax_element",
        Input::of(x),
        &MinMaxFirstLastLoc,
        &MinMaxOf,
    );
    (r.min_loc != usize::MAX).then_some(MinMaxElement {
        min: (r.min_loc, r.min_val),
        max: (r.max_loc, r.max_val),
    })
}

/// Whether `pred` holds for every element (true for an empty View).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{all_of, any_of, none_of};
/// let x = View1::<i32>::from_vec("x", 4, vec![2, 4, 6, 7])?;
/// assert!(!all_of(&Serial, &x, |v: i32| v % 2 == 0));
/// assert!(any_of(&Serial, &x, |v: i32| v > 6));
/// assert!(none_of(&Serial, &x, |v: i32| v < 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn all_of<S, T, P, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: P) -> bool
where
    S: ReduceImpl<T, bool, LAnd, AllOf<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    space.transform_reduce_indexed("all_of", Input::of(x), &LAnd, &AllOf(pred))
}

/// Whether `pred` holds for some element (false for an empty View).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::any_of;
/// let x = View1::<f64>::from_vec("x", 3, vec![1.0, f64::NAN, 2.0])?;
/// assert!(any_of(&Serial, &x, |v: f64| v.is_nan()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn any_of<S, T, P, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: P) -> bool
where
    S: ReduceImpl<T, bool, LOr, AnyOf<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    space.transform_reduce_indexed("any_of", Input::of(x), &LOr, &AnyOf(pred))
}

/// Whether `pred` holds for no element (true for an empty View).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::none_of;
/// let x = View1::<u32>::from_fn("x", 10, |i| i as u32)?;
/// assert!(none_of(&Serial, &x, |v: u32| v >= 10));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn none_of<S, T, P, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: P) -> bool
where
    S: ReduceImpl<T, bool, LOr, AnyOf<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    !any_of(space, x, pred)
}

/// Whether `a` and `b` have the same length and equal elements (`==`, so
/// a NaN makes them differ). Views of different lengths are not equal, as
/// in Kokkos.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::equal;
/// let a = View1::<i32>::from_fn("a", 5, |i| i as i32)?;
/// let b = View1::<i32, LayoutStride>::with_strides("b", [5], [2])?;
/// assert!(!equal(&Serial, &a, &b));
/// let short = View1::<i32>::from_fn("short", 4, |i| i as i32)?;
/// assert!(!equal(&Serial, &a, &short));
/// assert!(equal(&Serial, &a, &a));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn equal<S, T, Sa, La, Sb, Lb>(
    space: &S,
    a: &ViewBase<Sa, 1, La>,
    b: &ViewBase<Sb, 1, Lb>,
) -> bool
where
    S: ReducePairsImpl<T, T, bool, LAnd, Equal>,
    T: Element + PartialEq,
    Sa: Storage<Elem = T, Space = S::MemorySpace>,
    Sb: Storage<Elem = T, Space = S::MemorySpace>,
    La: Layout,
    Lb: Layout,
{
    a.extent(0) == b.extent(0)
        && space.reduce_pairs("equal", Input::of(a), Input::of(b), &LAnd, &Equal)
}
