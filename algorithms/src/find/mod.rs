//! Searches: [`find`], [`find_if`], [`find_if_not`], [`count`],
//! [`adjacent_find`], [`is_sorted_until`], [`mismatch`],
//! [`lexicographical_compare`], [`is_partitioned`], [`partition_point`],
//! and the searches for a pattern, [`search`], [`find_end`],
//! [`search_n`], [`find_first_of`] (and the `_by` forms that take a
//! predicate or an order).
//!
//! Each returns an index where Kokkos returns an iterator: the View's
//! length where Kokkos returns `end`. Each is one reduction over the
//! elements (or adjacent pairs, or pairs of two Views) through
//! [`ReduceImpl`] or [`ReducePairsImpl`]: an element's candidate index,
//! or [`adapt::NONE`], joined by `Min`, so the first match wins whatever
//! the thread count or the device's grid. On Cuda (with the `cuda`
//! feature) the adapters run through the reductions' `CudaReduceMap` and
//! `CudaPairMap`: elements of a number type or `bool`, predicates `#[kernel]` element
//! functions (`#[kernel(binary)]` for the `_by` forms).

pub mod adapt;
#[cfg(feature = "cuda")]
mod cuda;
mod search;

use crate::io::Input;
use crate::reduce::{ReduceImpl, ReducePairsImpl};
use crate::sort::PartialLess;
use adapt::{
    CountEq, FirstAdjacent, FirstDescent, FirstEq, FirstIf, FirstIfNot, FirstMismatch, LexOrder,
    PartialEqual, PartitionEnds, NONE,
};
use granule_core::functor::{BinaryFunctor, UnaryFunctor};
use granule_core::reducer::{Max, Min, Sum};
use granule_views::storage::Storage;
use granule_views::{Element, Layout, ViewBase};
pub use search::{
    find_end, find_end_by, find_first_of, find_first_of_by, search, search_by, search_n,
    search_n_by,
};

/// A candidate from a `Min` of [`NONE`]-or-index values, as an index:
/// `len` when there is none.
fn or_len(candidate: usize, len: usize) -> usize {
    if candidate == NONE {
        len
    } else {
        candidate
    }
}

/// The `Min` of `f`'s candidates over the pairs `(a[i], b[i])` up to the
/// shorter length ([`NONE`] when that is 0).
fn first_pair<S, T, F>(
    space: &S,
    label: &str,
    a: Input<'_, T, S::MemorySpace>,
    b: Input<'_, T, S::MemorySpace>,
    f: &F,
) -> usize
where
    S: ReducePairsImpl<T, T, usize, Min, F>,
    T: Element,
{
    let n = a.len().min(b.len());
    if n == 0 {
        return NONE;
    }
    space.reduce_pairs(label, a.prefix(n), b.prefix(n), &Min, f)
}

/// The first candidate of `f` over the adjacent pairs `(x[i], x[i + 1])`,
/// or `x`'s length.
fn first_adjacent<S, T, F>(space: &S, label: &str, x: Input<'_, T, S::MemorySpace>, f: &F) -> usize
where
    S: ReducePairsImpl<T, T, usize, Min, F>,
    T: Element,
{
    if x.len() < 2 {
        return x.len();
    }
    let (a, b) = x.neighbours();
    or_len(space.reduce_pairs(label, a, b, &Min, f), x.len())
}

/// The index of the first element equal (`==`) to `value`, or the
/// View's length if there is none.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::find;
/// let x = View1::<i32>::from_vec("x", 5, vec![4, 8, 15, 8, 23])?;
/// assert_eq!(find(&Serial, &x, 8), 1);
/// assert_eq!(find(&Serial, &x, 42), 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find<S, T, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, value: T) -> usize
where
    S: ReduceImpl<T, usize, Min, FirstEq<T>>,
    T: Element + PartialEq,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let first = space.transform_reduce_indexed("find", Input::of(x), &Min, &FirstEq(value));
    or_len(first, x.extent(0))
}

/// The index of the first element that satisfies `pred`, or the View's
/// length if there is none.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::find_if;
/// let x = View1::<f64>::from_vec("x", 4, vec![0.5, -1.0, 2.0, -3.0])?;
/// assert_eq!(find_if(&Serial, &x, |v: f64| v < 0.0), 1);
/// assert_eq!(find_if(&Serial, &x, |v: f64| v > 9.0), 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_if<S, T, P, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: P) -> usize
where
    S: ReduceImpl<T, usize, Min, FirstIf<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let first = space.transform_reduce_indexed("find_if", Input::of(x), &Min, &FirstIf(pred));
    or_len(first, x.extent(0))
}

/// The index of the first element that does not satisfy `pred`, or the
/// View's length if there is none.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::find_if_not;
/// let x = View1::<u32>::from_vec("x", 4, vec![2, 4, 5, 6])?;
/// assert_eq!(find_if_not(&Serial, &x, |v: u32| v % 2 == 0), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_if_not<S, T, P, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: P) -> usize
where
    S: ReduceImpl<T, usize, Min, FirstIfNot<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let f = FirstIfNot(pred);
    let first = space.transform_reduce_indexed("find_if_not", Input::of(x), &Min, &f);
    or_len(first, x.extent(0))
}

/// How many elements are equal (`==`) to `value`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::count;
/// let x = View1::<i64>::from_fn("x", 100, |i| (i % 7) as i64)?;
/// assert_eq!(count(&Serial, &x, 3), 14);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn count<S, T, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, value: T) -> usize
where
    S: ReduceImpl<T, usize, Sum, CountEq<T>>,
    T: Element + PartialEq,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    space.transform_reduce_indexed("count", Input::of(x), &Sum, &CountEq(value))
}

/// The index of the first element equal (`==`) to the one after it, or
/// the View's length if there is none.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::adjacent_find;
/// let x = View1::<i32>::from_vec("x", 6, vec![1, 2, 3, 3, 4, 4])?;
/// assert_eq!(adjacent_find(&Serial, &x), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn adjacent_find<S, T, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>) -> usize
where
    S: ReducePairsImpl<T, T, usize, Min, FirstAdjacent<PartialEqual>>,
    T: Element + PartialEq,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    adjacent_find_by(space, x, PartialEqual)
}

/// The index of the first element `x[i]` with `pred(x[i], x[i + 1])`, or
/// the View's length if there is none.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::adjacent_find_by;
/// let x = View1::<i32>::from_vec("x", 5, vec![1, 2, 3, 1, 2])?;
/// assert_eq!(adjacent_find_by(&Serial, &x, |a: i32, b: i32| a > b), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn adjacent_find_by<S, T, C, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: C) -> usize
where
    S: ReducePairsImpl<T, T, usize, Min, FirstAdjacent<C>>,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    first_adjacent(space, "adjacent_find", Input::of(x), &FirstAdjacent(pred))
}

/// The end of the sorted prefix: the index of the first element less
/// (`<`) than the one before it, or the View's length if there is none
/// (so [`is_sorted`](crate::is_sorted) holds exactly when this is the
/// length).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::is_sorted_until;
/// let x = View1::<f32>::from_vec("x", 5, vec![1.0, 2.0, 2.0, 0.5, 3.0])?;
/// assert_eq!(is_sorted_until(&Serial, &x), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn is_sorted_until<S, T, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>) -> usize
where
    S: ReducePairsImpl<T, T, usize, Min, FirstDescent<PartialLess>>,
    T: Element + PartialOrd,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    is_sorted_until_by(space, x, PartialLess)
}

/// The end of the prefix sorted by `less`: the index of the first element
/// `less` than the one before it, or the View's length.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::is_sorted_until_by;
/// let x = View1::<i32>::from_vec("x", 4, vec![9, 7, 8, 1])?;
/// assert_eq!(is_sorted_until_by(&Serial, &x, |a: i32, b: i32| a > b), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn is_sorted_until_by<S, T, C, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, less: C) -> usize
where
    S: ReducePairsImpl<T, T, usize, Min, FirstDescent<C>>,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    first_adjacent(space, "is_sorted_until", Input::of(x), &FirstDescent(less))
}

/// The first index at which `a` and `b` differ (`!=`), comparing up to
/// the shorter length, which is returned when they agree that far. (Kokkos
/// returns a pair of iterators; both stand at this index.)
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::mismatch;
/// let a = View1::<i32>::from_vec("a", 5, vec![1, 2, 3, 4, 5])?;
/// let b = View1::<i32>::from_vec("b", 4, vec![1, 2, 0, 4])?;
/// assert_eq!(mismatch(&Serial, &a, &b), 2);
/// let prefix = View1::<i32>::from_vec("prefix", 2, vec![1, 2])?;
/// assert_eq!(mismatch(&Serial, &a, &prefix), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mismatch<S, T, Sa, La, Sb, Lb>(
    space: &S,
    a: &ViewBase<Sa, 1, La>,
    b: &ViewBase<Sb, 1, Lb>,
) -> usize
where
    S: ReducePairsImpl<T, T, usize, Min, FirstMismatch<PartialEqual>>,
    T: Element + PartialEq,
    Sa: Storage<Elem = T, Space = S::MemorySpace>,
    Sb: Storage<Elem = T, Space = S::MemorySpace>,
    La: Layout,
    Lb: Layout,
{
    mismatch_by(space, a, b, PartialEqual)
}

/// The first index `i` at which `same(a[i], b[i])` fails, comparing up
/// to the shorter length, which is returned when it holds that far.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::mismatch_by;
/// let a = View1::<f64>::from_vec("a", 3, vec![1.0, 2.0, 3.0])?;
/// let b = View1::<f64>::from_vec("b", 3, vec![1.001, 2.0, 3.5])?;
/// assert_eq!(mismatch_by(&Serial, &a, &b, |x: f64, y: f64| (x - y).abs() < 0.01), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mismatch_by<S, T, C, Sa, La, Sb, Lb>(
    space: &S,
    a: &ViewBase<Sa, 1, La>,
    b: &ViewBase<Sb, 1, Lb>,
    same: C,
) -> usize
where
    S: ReducePairsImpl<T, T, usize, Min, FirstMismatch<C>>,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sa: Storage<Elem = T, Space = S::MemorySpace>,
    Sb: Storage<Elem = T, Space = S::MemorySpace>,
    La: Layout,
    Lb: Layout,
{
    let (a, b) = (Input::of(a), Input::of(b));
    let first = first_pair(space, "mismatch", a, b, &FirstMismatch(same));
    or_len(first, a.len().min(b.len()))
}

/// Whether `a` comes before `b` in lexicographic order by `<`: at the
/// first index where one element is less than the other, the smaller
/// decides; when none does up to the shorter length, the shorter View
/// comes first (and equal Views do not).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::lexicographical_compare;
/// let a = View1::<u8>::from_vec("a", 3, b"abc".to_vec())?;
/// let b = View1::<u8>::from_vec("b", 3, b"abd".to_vec())?;
/// let ab = View1::<u8>::from_vec("ab", 2, b"ab".to_vec())?;
/// assert!(lexicographical_compare(&Serial, &a, &b));
/// assert!(!lexicographical_compare(&Serial, &b, &a));
/// assert!(lexicographical_compare(&Serial, &ab, &a));
/// assert!(!lexicographical_compare(&Serial, &a, &a));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lexicographical_compare<S, T, Sa, La, Sb, Lb>(
    space: &S,
    a: &ViewBase<Sa, 1, La>,
    b: &ViewBase<Sb, 1, Lb>,
) -> bool
where
    S: ReducePairsImpl<T, T, usize, Min, LexOrder<PartialLess>>,
    T: Element + PartialOrd,
    Sa: Storage<Elem = T, Space = S::MemorySpace>,
    Sb: Storage<Elem = T, Space = S::MemorySpace>,
    La: Layout,
    Lb: Layout,
{
    lexicographical_compare_by(space, a, b, PartialLess)
}

/// [`lexicographical_compare`] by the order `less`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::lexicographical_compare_by;
/// let a = View1::<i32>::from_vec("a", 2, vec![3, -9])?;
/// let b = View1::<i32>::from_vec("b", 2, vec![3, 4])?;
/// let by_magnitude = |x: i32, y: i32| x.abs() < y.abs();
/// assert!(!lexicographical_compare_by(&Serial, &a, &b, by_magnitude));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lexicographical_compare_by<S, T, C, Sa, La, Sb, Lb>(
    space: &S,
    a: &ViewBase<Sa, 1, La>,
    b: &ViewBase<Sb, 1, Lb>,
    less: C,
) -> bool
where
    S: ReducePairsImpl<T, T, usize, Min, LexOrder<C>>,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sa: Storage<Elem = T, Space = S::MemorySpace>,
    Sb: Storage<Elem = T, Space = S::MemorySpace>,
    La: Layout,
    Lb: Layout,
{
    let (a, b) = (Input::of(a), Input::of(b));
    match first_pair(space, "lexicographical_compare", a, b, &LexOrder(less)) {
        NONE => a.len() < b.len(),
        first => first % 2 == 0,
    }
}

/// Whether every element that satisfies `pred` comes before every one
/// that does not (true for an empty View).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::is_partitioned;
/// let x = View1::<i32>::from_vec("x", 5, vec![-3, -1, 2, 0, 5])?;
/// assert!(is_partitioned(&Serial, &x, |v: i32| v < 0));
/// assert!(!is_partitioned(&Serial, &x, |v: i32| v % 2 == 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn is_partitioned<S, T, P, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: P) -> bool
where
    S: ReduceImpl<T, (usize, usize), (Max, Min), PartitionEnds<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let f = PartitionEnds(pred);
    let (true_end, first_false) =
        space.transform_reduce_indexed("is_partitioned", Input::of(x), &(Max, Min), &f);
    true_end <= first_false
}

/// The end of the elements that satisfy `pred` in a View partitioned by
/// it (see [`is_partitioned`]): the index of the first that does not, or
/// the View's length. For a View that is not partitioned, that is still
/// the first element that fails `pred`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::partition_point;
/// let x = View1::<i32>::from_vec("x", 5, vec![1, 3, 5, 2, 4])?;
/// assert_eq!(partition_point(&Serial, &x, |v: i32| v % 2 == 1), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn partition_point<S, T, P, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, pred: P) -> usize
where
    S: ReduceImpl<T, usize, Min, FirstIfNot<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let f = FirstIfNot(pred);
    let first = space.transform_reduce_indexed("partition_point", Input::of(x), &Min, &f);
    or_len(first, x.extent(0))
}
