//! The searches for a pattern: [`search`], [`find_end`], [`search_n`],
//! [`find_first_of`] (and their `_by` forms). Each is one reduction over
//! the candidate starts, each testing its window against the pattern, so
//! a call costs up to the View's length times the pattern's.

use super::adapt::{FirstOf, FirstRun, FirstWindow, LastWindow, PartialEqual};
use super::or_len;
use crate::io::Input;
use crate::reduce::ReduceImpl;
use granule_core::functor::BinaryFunctor;
use granule_core::reducer::{Max, Min};
use granule_core::ExecutionSpace;
use granule_views::storage::Storage;
use granule_views::{Element, Layout, MemorySpace, ViewBase};

/// The index of the first window of `x` equal (`==`) to `pattern`
/// element by element, or the length of `x` if there is none (0 for an
/// empty pattern).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::search;
/// let x = View1::<u8>::from_vec("x", 9, b"abcabdabd".to_vec())?;
/// let abd = View1::<u8>::from_vec("abd", 3, b"abd".to_vec())?;
/// let abe = View1::<u8>::from_vec("abe", 3, b"abe".to_vec())?;
/// assert_eq!(search(&Serial, &x, &abd), 3);
/// assert_eq!(search(&Serial, &x, &abe), 9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn search<'a, S, M, T, Sx, Lx, Sp, Lp>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    pattern: &'a ViewBase<Sp, 1, Lp>,
) -> usize
where
    S: ExecutionSpace<MemorySpace = M>
        + ReduceImpl<T, usize, Min, FirstWindow<'a, T, M, PartialEqual>>,
    M: MemorySpace,
    T: Element + PartialEq,
    Sx: Storage<Elem = T, Space = M>,
    Sp: Storage<Elem = T, Space = M>,
    Lx: Layout,
    Lp: Layout,
{
    search_by(space, x, pattern, PartialEqual)
}

/// The index of the first window of `x` whose elements match
/// `pattern`'s by `pred(x[i + j], pattern[j])`, or the length of `x`
/// (0 for an empty pattern).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::search_by;
/// let x = View1::<i32>::from_vec("x", 6, vec![1, -2, 3, -4, 5, 6])?;
/// let p = View1::<i32>::from_vec("p", 2, vec![4, 5])?;
/// let same_magnitude = |a: i32, b: i32| a.abs() == b.abs();
/// assert_eq!(search_by(&Serial, &x, &p, same_magnitude), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn search_by<'a, S, M, T, C, Sx, Lx, Sp, Lp>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    pattern: &'a ViewBase<Sp, 1, Lp>,
    pred: C,
) -> usize
where
    S: ExecutionSpace<MemorySpace = M> + ReduceImpl<T, usize, Min, FirstWindow<'a, T, M, C>>,
    M: MemorySpace,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sx: Storage<Elem = T, Space = M>,
    Sp: Storage<Elem = T, Space = M>,
    Lx: Layout,
    Lp: Layout,
{
    let (x, pattern) = (Input::of(x), Input::of(pattern));
    if pattern.is_empty() {
        return 0;
    }
    let f = FirstWindow { x, pattern, pred };
    or_len(
        space.transform_reduce_indexed("search", x, &Min, &f),
        x.len(),
    )
}

/// The index of the last window of `x` equal (`==`) to `pattern`, or
/// the length of `x` if there is none (also for an empty pattern).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::find_end;
/// let x = View1::<i32>::from_vec("x", 7, vec![1, 2, 9, 1, 2, 9, 1])?;
/// let p = View1::<i32>::from_vec("p", 2, vec![1, 2])?;
/// assert_eq!(find_end(&Serial, &x, &p), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_end<'a, S, M, T, Sx, Lx, Sp, Lp>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    pattern: &'a ViewBase<Sp, 1, Lp>,
) -> usize
where
    S: ExecutionSpace<MemorySpace = M>
        + ReduceImpl<T, usize, Max, LastWindow<'a, T, M, PartialEqual>>,
    M: MemorySpace,
    T: Element + PartialEq,
    Sx: Storage<Elem = T, Space = M>,
    Sp: Storage<Elem = T, Space = M>,
    Lx: Layout,
    Lp: Layout,
{
    find_end_by(space, x, pattern, PartialEqual)
}

/// The index of the last window of `x` whose elements match `pattern`'s
/// by `pred(x[i + j], pattern[j])`, or the length of `x` (also for an
/// empty pattern).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::find_end_by;
/// let x = View1::<f64>::from_vec("x", 5, vec![1.0, 2.0, 1.1, 2.1, 5.0])?;
/// let p = View1::<f64>::from_vec("p", 2, vec![1.0, 2.0])?;
/// let close = |a: f64, b: f64| (a - b).abs() < 0.25;
/// assert_eq!(find_end_by(&Serial, &x, &p, close), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_end_by<'a, S, M, T, C, Sx, Lx, Sp, Lp>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    pattern: &'a ViewBase<Sp, 1, Lp>,
    pred: C,
) -> usize
where
    S: ExecutionSpace<MemorySpace = M> + ReduceImpl<T, usize, Max, LastWindow<'a, T, M, C>>,
    M: MemorySpace,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sx: Storage<Elem = T, Space = M>,
    Sp: Storage<Elem = T, Space = M>,
    Lx: Layout,
    Lp: Layout,
{
    let (x, pattern) = (Input::of(x), Input::of(pattern));
    if pattern.is_empty() {
        return x.len();
    }
    let f = LastWindow(FirstWindow { x, pattern, pred });
    match space.transform_reduce_indexed("find_end", x, &Max, &f) {
        0 => x.len(),
        end => end - 1,
    }
}

/// The index of the first run of `count` elements equal (`==`) to
/// `value`, or the length of `x` if there is none (0 for a count of 0).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::search_n;
/// let x = View1::<i32>::from_vec("x", 8, vec![0, 7, 0, 0, 1, 0, 0, 0])?;
/// assert_eq!(search_n(&Serial, &x, 3, 0), 5);
/// assert_eq!(search_n(&Serial, &x, 2, 7), 8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn search_n<'a, S, M, T, Sx, Lx>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    count: usize,
    value: T,
) -> usize
where
    S: ExecutionSpace<MemorySpace = M>
        + ReduceImpl<T, usize, Min, FirstRun<'a, T, M, PartialEqual>>,
    M: MemorySpace,
    T: Element + PartialEq,
    Sx: Storage<Elem = T, Space = M>,
    Lx: Layout,
{
    search_n_by(space, x, count, value, PartialEqual)
}

/// The index of the first run of `count` elements `e` with
/// `pred(e, value)`, or the length of `x` (0 for a count of 0).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::search_n_by;
/// let x = View1::<i32>::from_vec("x", 6, vec![5, 1, 6, 7, 8, 2])?;
/// assert_eq!(search_n_by(&Serial, &x, 3, 4, |e: i32, v: i32| e > v), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn search_n_by<'a, S, M, T, C, Sx, Lx>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    count: usize,
    value: T,
    pred: C,
) -> usize
where
    S: ExecutionSpace<MemorySpace = M> + ReduceImpl<T, usize, Min, FirstRun<'a, T, M, C>>,
    M: MemorySpace,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sx: Storage<Elem = T, Space = M>,
    Lx: Layout,
{
    let x = Input::of(x);
    if count == 0 {
        return 0;
    }
    let f = FirstRun {
        x,
        count,
        value,
        pred,
    };
    or_len(
        space.transform_reduce_indexed("search_n", x, &Min, &f),
        x.len(),
    )
}

/// The index of the first element of `x` equal (`==`) to some element of
/// `set`, or the length of `x` if there is none.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::find_first_of;
/// let x = View1::<u8>::from_vec("x", 11, b"hello world".to_vec())?;
/// let vowels = View1::<u8>::from_vec("vowels", 5, b"aeiou".to_vec())?;
/// assert_eq!(find_first_of(&Serial, &x, &vowels), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_first_of<'a, S, M, T, Sx, Lx, Sp, Lp>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    set: &'a ViewBase<Sp, 1, Lp>,
) -> usize
where
    S: ExecutionSpace<MemorySpace = M> + ReduceImpl<T, usize, Min, FirstOf<'a, T, M, PartialEqual>>,
    M: MemorySpace,
    T: Element + PartialEq,
    Sx: Storage<Elem = T, Space = M>,
    Sp: Storage<Elem = T, Space = M>,
    Lx: Layout,
    Lp: Layout,
{
    find_first_of_by(space, x, set, PartialEqual)
}

/// The index of the first element `e` of `x` with `pred(e, s)` for some
/// element `s` of `set`, or the length of `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::find_first_of_by;
/// let x = View1::<i32>::from_vec("x", 4, vec![10, 21, 30, 41])?;
/// let odd_divisors = View1::<i32>::from_vec("d", 2, vec![3, 7])?;
/// let divisible = |e: i32, d: i32| e % 2 == 1 && e % d == 0;
/// assert_eq!(find_first_of_by(&Serial, &x, &odd_divisors, divisible), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_first_of_by<'a, S, M, T, C, Sx, Lx, Sp, Lp>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    set: &'a ViewBase<Sp, 1, Lp>,
    pred: C,
) -> usize
where
    S: ExecutionSpace<MemorySpace = M> + ReduceImpl<T, usize, Min, FirstOf<'a, T, M, C>>,
    M: MemorySpace,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sx: Storage<Elem = T, Space = M>,
    Sp: Storage<Elem = T, Space = M>,
    Lx: Layout,
    Lp: Layout,
{
    let (x, set) = (Input::of(x), Input::of(set));
    if set.is_empty() {
        return x.len();
    }
    let f = FirstOf { set, pred };
    let first = space.transform_reduce_indexed("find_first_of", x, &Min, &f);
    or_len(first, x.len())
}
