//! The element-wise algorithms: [`transform`], [`transform_binary`],
//! the copies ([`copy`], [`copy_n`], [`copy_backward`], [`move`](fn.move.html),
//! [`move_backward`]), [`fill`], [`fill_n`], [`generate`],
//! [`generate_n`], [`for_each`], [`for_each_n`], the replacements
//! ([`replace`], [`replace_if`], [`replace_copy`], [`replace_copy_if`]),
//! [`adjacent_difference`], and the reorderings ([`reverse`],
//! [`reverse_copy`], [`rotate`], [`rotate_copy`], [`shift_left`],
//! [`shift_right`], [`swap_ranges`], [`iter_swap`]).
//!
//! Each is one pass of one of three operations a space implements: a map
//! from an input View into an output View ([`MapImpl`]: output `i` from
//! input `i`, `n - 1 - i` or `(i + shift) mod n`, see [`Source`]), an
//! update in place ([`UpdateImpl`]), or a swap of two disjoint Views
//! ([`SwapImpl`]); [`rotate`] and the shifts are three reversals. Each
//! work item writes only its own output element, so the results do not
//! depend on the thread count. Where Kokkos returns an iterator into the
//! output, these return its index; where Views must agree, a typed
//! error comes before anything is written.

pub mod adapt;
#[cfg(feature = "cuda")]
mod cuda;
mod host;

#[cfg(feature = "cuda")]
pub use cuda::{CudaMap, CudaUpdate};

use crate::io::{same_len, Input, Output};
use crate::reduce::adapt::{Elem, Unindexed};
use crate::AlgorithmError;
use adapt::{Constant, Difference, Generated, Minus, ReplaceEq, ReplaceIf, Zip};
use granule_core::functor::{BinaryFunctor, UnaryFunctor};
use granule_core::ExecutionSpace;
use granule_views::storage::{Storage, StorageMut};
use granule_views::{Element, Layout, MemorySpace, ViewBase};

/// Which input element a map writes to output element `i`, for `n`
/// elements.
///
/// ```
/// use granule::algorithms::transform::Source;
/// assert_eq!(Source::Same.index(1, 5), 1);
/// assert_eq!(Source::Reversed.index(1, 5), 3);
/// assert_eq!(Source::Rotated(3).index(4, 5), 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Element `i`.
    Same,
    /// Element `n - 1 - i`.
    Reversed,
    /// Element `(i + shift) mod n` (`shift` at most `n`).
    Rotated(usize),
}

impl Source {
    /// The input index for output `i < n`.
    #[inline(always)]
    pub fn index(self, i: usize, n: usize) -> usize {
        match self {
            Source::Same => i,
            Source::Reversed => n - 1 - i,
            Source::Rotated(shift) if i < n - shift => i + shift,
            Source::Rotated(shift) => i - (n - shift),
        }
    }
}

/// How an execution space writes `y[i] = f(i, x[from(i)])` for every `i`
/// (the Views have the same length). Implemented for Serial and Rayon,
/// and for Cuda (with the `cuda` feature) for the adapters of
/// [`adapt`] around `#[kernel]` element functions.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{reduce::adapt::Elem, transform::MapImpl};
/// fn copies<S: MapImpl<f32, f32, Elem>>(_: &S) {}
/// copies(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no element-wise map of these types",
    note = "on Cuda the elements are a number type or bool and user functions `#[kernel]` element functions"
)]
pub trait MapImpl<T, U, F>: ExecutionSpace {
    /// Writes `y[i] = f(i, x[from.index(i, n)])` for every `i < n`, the
    /// common length.
    fn map(
        &self,
        label: &str,
        x: Input<'_, T, Self::MemorySpace>,
        y: Output<'_, U, Self::MemorySpace>,
        from: Source,
        f: &F,
    );
}

/// How an execution space writes `y[i] = f(i, y[i])` for every `i`.
/// Implemented for Serial and Rayon, and for Cuda (with the `cuda`
/// feature) for the adapters around `#[kernel]` element functions.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::transform::{adapt::Constant, UpdateImpl};
/// fn fills<S: UpdateImpl<u8, Constant<u8>>>(_: &S) {}
/// fills(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no element-wise update of these types",
    note = "on Cuda the elements are a number type or bool and user functions `#[kernel]` element functions"
)]
pub trait UpdateImpl<T, F>: ExecutionSpace {
    /// Writes `y[i] = f(i, y[i])` for every `i`.
    fn update(&self, label: &str, y: Output<'_, T, Self::MemorySpace>, f: &F);
}

/// How an execution space swaps `a[i]` with `b[i]` (with `b[n - 1 - i]`
/// when `reversed`) for every `i` of two disjoint Views of the same
/// length. Implemented for Serial and Rayon, and for Cuda (number and
/// `bool` elements).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::transform::SwapImpl;
/// fn swaps<S: SwapImpl<i64>>(_: &S) {}
/// swaps(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no swap of `{T}`s",
    note = "on Cuda the elements are a number type or bool"
)]
pub trait SwapImpl<T>: ExecutionSpace {
    /// Swaps `a[i]` with `b[i]`, or with `b[n - 1 - i]` when `reversed`.
    fn swap(
        &self,
        label: &str,
        a: Output<'_, T, Self::MemorySpace>,
        b: Output<'_, T, Self::MemorySpace>,
        reversed: bool,
    );
}

/// An error naming the input when `y` is shorter than its `n` elements.
fn holds<U: Element, M: MemorySpace>(
    algorithm: &'static str,
    (input, n): (&str, usize),
    y: &Output<'_, U, M>,
) -> Result<(), AlgorithmError> {
    if y.len() >= n {
        return Ok(());
    }
    let reason = format!("the input \"{input}\" has {n} elements");
    let output = (y.label(), y.len());
    Err(AlgorithmError::too_small(algorithm, output, n, reason))
}

/// The first `n` elements of `y`, or an error naming the input when `y`
/// is shorter.
fn first_n<'a, U: Element, M: MemorySpace>(
    algorithm: &'static str,
    input: (&str, usize),
    y: Output<'a, U, M>,
) -> Result<Output<'a, U, M>, AlgorithmError> {
    holds(algorithm, input, &y)?;
    Ok(y.split_at(input.1).0)
}

/// `count`, or an error when it passes the end of a View of `len`.
fn within(
    algorithm: &'static str,
    what: &'static str,
    count: usize,
    (view, len): (&str, usize),
) -> Result<usize, AlgorithmError> {
    if count > len {
        return Err(AlgorithmError::out_of_range(
            algorithm,
            what,
            count,
            (view, len),
        ));
    }
    Ok(count)
}

/// A map of `x` into the first `x.len()` elements of `y`; returns
/// `x.len()`.
fn map_into<S, T, U, F>(
    space: &S,
    algorithm: &'static str,
    x: Input<'_, T, S::MemorySpace>,
    y: Output<'_, U, S::MemorySpace>,
    from: Source,
    f: &F,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, U, F>,
    T: Element,
    U: Element,
{
    let n = x.len();
    let y = first_n(algorithm, (x.label(), n), y)?;
    if n > 0 {
        space.map(algorithm, x, y, from, f);
    }
    Ok(n)
}

/// Writes `y[i] = f(x[i])` for every element of `x`, into the first
/// `x.len()` elements of `y`, and returns `x.len()` (the end of what was
/// written).
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::transform;
/// let x = View1::<i32>::from_vec("x", 3, vec![1, 2, 3])?;
/// let mut y = View1::<f64>::zeros("y", 3)?;
/// assert_eq!(transform(&Serial, &x, &mut y, |v: i32| v as f64 / 2.0)?, 3);
/// assert_eq!(y.to_vec(), [0.5, 1.0, 1.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn transform<S, T, U, F, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
    f: F,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, U, Unindexed<F>>,
    T: Element,
    U: Element,
    F: UnaryFunctor<T, Output = U>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = U, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    let f = Unindexed(f);
    map_into(
        space,
        "transform",
        Input::of(x),
        Output::of(y),
        Source::Same,
        &f,
    )
}

/// Writes `y[i] = op(a[i], b[i])` for every element of `a` and `b`
/// (Kokkos's `transform` of two Views), and returns their length.
///
/// # Errors
/// [`AlgorithmError::LengthMismatch`] when `a` and `b` differ in length,
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::transform_binary;
/// let a = View1::<f64>::from_vec("a", 3, vec![1.0, 2.0, 3.0])?;
/// let b = View1::<f64>::from_vec("b", 3, vec![10.0, 20.0, 30.0])?;
/// let mut y = View1::<f64>::zeros("y", 3)?;
/// transform_binary(&Serial, &a, &b, &mut y, |p: f64, q: f64| p * q)?;
/// assert_eq!(y.to_vec(), [10.0, 40.0, 90.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn transform_binary<'a, S, M, A, B, U, F, Sa, La, Sb, Lb, Sy, Ly>(
    space: &S,
    a: &ViewBase<Sa, 1, La>,
    b: &'a ViewBase<Sb, 1, Lb>,
    y: &mut ViewBase<Sy, 1, Ly>,
    op: F,
) -> Result<usize, AlgorithmError>
where
    S: ExecutionSpace<MemorySpace = M> + MapImpl<A, U, Zip<'a, B, M, F>>,
    M: MemorySpace,
    A: Element,
    B: Element,
    U: Element,
    F: BinaryFunctor<A, B, Output = U>,
    Sa: Storage<Elem = A, Space = M>,
    Sb: Storage<Elem = B, Space = M>,
    Sy: StorageMut<Elem = U, Space = M>,
    La: Layout,
    Lb: Layout,
    Ly: Layout,
{
    let (a, b) = (Input::of(a), Input::of(b));
    same_len(
        "transform_binary",
        (a.label(), a.len()),
        (b.label(), b.len()),
    )?;
    let f = Zip { b, op };
    map_into(
        space,
        "transform_binary",
        a,
        Output::of(y),
        Source::Same,
        &f,
    )
}

/// Copies `x` into the first `x.len()` elements of `y` and returns
/// `x.len()`. Any layouts and subviews; on one space, as a kernel (for
/// copies between spaces, see `deep_copy`).
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::copy;
/// let x = View1::<u16>::from_vec("x", 3, vec![7, 8, 9])?;
/// let mut y = View1::<u16>::zeros("y", 4)?;
/// assert_eq!(copy(&Serial, &x, &mut y)?, 3);
/// assert_eq!(y.to_vec(), [7, 8, 9, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn copy<S, T, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, T, Elem>,
    T: Element,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    map_into(
        space,
        "copy",
        Input::of(x),
        Output::of(y),
        Source::Same,
        &Elem,
    )
}

/// Copies the first `count` elements of `x` into `y` and returns `count`.
///
/// # Errors
/// [`AlgorithmError::OutOfRange`] when `count` passes the end of `x`,
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `count`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::copy_n;
/// let x = View1::<u16>::from_vec("x", 3, vec![7, 8, 9])?;
/// let mut y = View1::<u16>::zeros("y", 2)?;
/// assert_eq!(copy_n(&Serial, &x, 2, &mut y)?, 2);
/// assert_eq!(y.to_vec(), [7, 8]);
/// assert!(copy_n(&Serial, &x, 4, &mut y).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn copy_n<S, T, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    count: usize,
    y: &mut ViewBase<Sy, 1, Ly>,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, T, Elem>,
    T: Element,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    let x = Input::of(x);
    let count = within("copy_n", "count", count, (x.label(), x.len()))?;
    map_into(
        space,
        "copy_n",
        x.prefix(count),
        Output::of(y),
        Source::Same,
        &Elem,
    )
}

/// Copies `x` into the last `x.len()` elements of `y` and returns the
/// index of the first one written (`y.len() - x.len()`).
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::copy_backward;
/// let x = View1::<i8>::from_vec("x", 2, vec![1, 2])?;
/// let mut y = View1::<i8>::zeros("y", 4)?;
/// assert_eq!(copy_backward(&Serial, &x, &mut y)?, 2);
/// assert_eq!(y.to_vec(), [0, 0, 1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn copy_backward<S, T, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, T, Elem>,
    T: Element,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    let (x, y) = (Input::of(x), Output::of(y));
    let (n, len) = (x.len(), y.len());
    holds("copy_backward", (x.label(), n), &y)?;
    let tail = y.split_at(len - n).1;
    map_into(space, "copy_backward", x, tail, Source::Same, &Elem)?;
    Ok(len - n)
}

/// [`copy`]: granule's elements are `Copy`, so moving them is copying
/// (Kokkos's `move`; `move` is a keyword in Rust).
///
/// # Errors
/// As [`copy`].
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::r#move;
/// let x = View1::<f32>::from_vec("x", 2, vec![1.5, 2.5])?;
/// let mut y = View1::<f32>::zeros("y", 2)?;
/// assert_eq!(r#move(&Serial, &x, &mut y)?, 2);
/// assert_eq!(y.to_vec(), [1.5, 2.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn r#move<S, T, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, T, Elem>,
    T: Element,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    copy(space, x, y)
}

/// [`copy_backward`], for the same reason as [`move`](fn.move.html).
///
/// # Errors
/// As [`copy_backward`].
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::move_backward;
/// let x = View1::<f32>::from_vec("x", 1, vec![1.5])?;
/// let mut y = View1::<f32>::zeros("y", 2)?;
/// assert_eq!(move_backward(&Serial, &x, &mut y)?, 1);
/// assert_eq!(y.to_vec(), [0.0, 1.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn move_backward<S, T, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, T, Elem>,
    T: Element,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    copy_backward(space, x, y)
}

/// Writes `value` to every element of `x`, as a kernel on `space`
/// (`granule::views::fill` does the same without a space, as Kokkos's
/// `deep_copy(view, value)` does).
///
/// ```
/// use granule::prelude::*;
/// let mut x = View1::<i32>::zeros("x", 3)?;
/// granule::algorithms::fill(&Serial, &mut x, 7);
/// assert_eq!(x.to_vec(), [7, 7, 7]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fill<S, T, Sx, Lx>(space: &S, x: &mut ViewBase<Sx, 1, Lx>, value: T)
where
    S: UpdateImpl<T, Constant<T>>,
    T: Element,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    update_all(space, "fill", Output::of(x), &Constant(value));
}

/// Writes `value` to the first `count` elements of `x` and returns
/// `count`.
///
/// # Errors
/// [`AlgorithmError::OutOfRange`] when `count` passes the end of `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::fill_n;
/// let mut x = View1::<i32>::zeros("x", 3)?;
/// assert_eq!(fill_n(&Serial, &mut x, 2, 7)?, 2);
/// assert_eq!(x.to_vec(), [7, 7, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fill_n<S, T, Sx, Lx>(
    space: &S,
    x: &mut ViewBase<Sx, 1, Lx>,
    count: usize,
    value: T,
) -> Result<usize, AlgorithmError>
where
    S: UpdateImpl<T, Constant<T>>,
    T: Element,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    update_first(space, "fill_n", Output::of(x), count, &Constant(value))
}

/// Writes `g(i)` to every element `i` of `x`. (Kokkos's generator takes
/// no argument; a generator that runs in parallel cannot carry state
/// from call to call, so here it is a function of the index.)
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::generate;
/// let mut x = View1::<u64>::zeros("x", 4)?;
/// generate(&Serial, &mut x, |i: usize| (i * i) as u64);
/// assert_eq!(x.to_vec(), [0, 1, 4, 9]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate<S, T, G, Sx, Lx>(space: &S, x: &mut ViewBase<Sx, 1, Lx>, g: G)
where
    S: UpdateImpl<T, Generated<G>>,
    T: Element,
    G: UnaryFunctor<usize, Output = T>,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    update_all(space, "generate", Output::of(x), &Generated(g));
}

/// [`generate`] of the first `count` elements; returns `count`.
///
/// # Errors
/// [`AlgorithmError::OutOfRange`] when `count` passes the end of `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::generate_n;
/// let mut x = View1::<u64>::zeros("x", 4)?;
/// assert_eq!(generate_n(&Serial, &mut x, 2, |i: usize| i as u64 + 5)?, 2);
/// assert_eq!(x.to_vec(), [5, 6, 0, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate_n<S, T, G, Sx, Lx>(
    space: &S,
    x: &mut ViewBase<Sx, 1, Lx>,
    count: usize,
    g: G,
) -> Result<usize, AlgorithmError>
where
    S: UpdateImpl<T, Generated<G>>,
    T: Element,
    G: UnaryFunctor<usize, Output = T>,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    update_first(space, "generate_n", Output::of(x), count, &Generated(g))
}

/// Replaces every element `v` of `x` by `f(v)` (Kokkos's `for_each`,
/// whose functor takes the element by reference: here it returns the
/// new value).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::for_each;
/// let mut x = View1::<f64>::from_vec("x", 3, vec![1.0, 4.0, 9.0])?;
/// for_each(&Serial, &mut x, |v: f64| v.sqrt());
/// assert_eq!(x.to_vec(), [1.0, 2.0, 3.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn for_each<S, T, F, Sx, Lx>(space: &S, x: &mut ViewBase<Sx, 1, Lx>, f: F)
where
    S: UpdateImpl<T, Unindexed<F>>,
    T: Element,
    F: UnaryFunctor<T, Output = T>,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    update_all(space, "for_each", Output::of(x), &Unindexed(f));
}

/// [`for_each`] of the first `count` elements; returns `count`.
///
/// # Errors
/// [`AlgorithmError::OutOfRange`] when `count` passes the end of `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::for_each_n;
/// let mut x = View1::<i32>::from_vec("x", 3, vec![1, 2, 3])?;
/// assert_eq!(for_each_n(&Serial, &mut x, 2, |v: i32| -v)?, 2);
/// assert_eq!(x.to_vec(), [-1, -2, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn for_each_n<S, T, F, Sx, Lx>(
    space: &S,
    x: &mut ViewBase<Sx, 1, Lx>,
    count: usize,
    f: F,
) -> Result<usize, AlgorithmError>
where
    S: UpdateImpl<T, Unindexed<F>>,
    T: Element,
    F: UnaryFunctor<T, Output = T>,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    update_first(space, "for_each_n", Output::of(x), count, &Unindexed(f))
}

/// Replaces every element equal (`==`) to `old` by `new`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::replace;
/// let mut x = View1::<i32>::from_vec("x", 4, vec![1, 0, 2, 0])?;
/// replace(&Serial, &mut x, 0, -1);
/// assert_eq!(x.to_vec(), [1, -1, 2, -1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn replace<S, T, Sx, Lx>(space: &S, x: &mut ViewBase<Sx, 1, Lx>, old: T, new: T)
where
    S: UpdateImpl<T, ReplaceEq<T>>,
    T: Element + PartialEq,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    update_all(space, "replace", Output::of(x), &ReplaceEq { old, new });
}

/// Replaces every element that satisfies `pred` by `new`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::replace_if;
/// let mut x = View1::<f64>::from_vec("x", 3, vec![-1.0, 2.0, -3.0])?;
/// replace_if(&Serial, &mut x, |v: f64| v < 0.0, 0.0);
/// assert_eq!(x.to_vec(), [0.0, 2.0, 0.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn replace_if<S, T, P, Sx, Lx>(space: &S, x: &mut ViewBase<Sx, 1, Lx>, pred: P, new: T)
where
    S: UpdateImpl<T, ReplaceIf<P, T>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    update_all(space, "replace_if", Output::of(x), &ReplaceIf { pred, new });
}

/// Copies `x` into `y` with every element equal (`==`) to `old` replaced
/// by `new`; returns `x.len()`.
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::replace_copy;
/// let x = View1::<u8>::from_vec("x", 3, vec![1, 0, 1])?;
/// let mut y = View1::<u8>::zeros("y", 3)?;
/// replace_copy(&Serial, &x, &mut y, 1, 5)?;
/// assert_eq!(y.to_vec(), [5, 0, 5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn replace_copy<S, T, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
    old: T,
    new: T,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, T, ReplaceEq<T>>,
    T: Element + PartialEq,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    let f = ReplaceEq { old, new };
    map_into(
        space,
        "replace_copy",
        Input::of(x),
        Output::of(y),
        Source::Same,
        &f,
    )
}

/// Copies `x` into `y` with every element that satisfies `pred` replaced
/// by `new`; returns `x.len()`.
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::replace_copy_if;
/// let x = View1::<i32>::from_vec("x", 3, vec![5, 50, 500])?;
/// let mut y = View1::<i32>::zeros("y", 3)?;
/// replace_copy_if(&Serial, &x, &mut y, |v: i32| v > 10, 10)?;
/// assert_eq!(y.to_vec(), [5, 10, 10]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn replace_copy_if<S, T, P, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
    pred: P,
    new: T,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, T, ReplaceIf<P, T>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    let f = ReplaceIf { pred, new };
    map_into(
        space,
        "replace_copy_if",
        Input::of(x),
        Output::of(y),
        Source::Same,
        &f,
    )
}

/// Writes `y[0] = x[0]` and `y[i] = x[i] - x[i - 1]`; returns `x.len()`.
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::adjacent_difference;
/// let x = View1::<i64>::from_vec("x", 4, vec![1, 4, 9, 16])?;
/// let mut y = View1::<i64>::zeros("y", 4)?;
/// adjacent_difference(&Serial, &x, &mut y)?;
/// assert_eq!(y.to_vec(), [1, 3, 5, 7]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn adjacent_difference<'a, S, M, T, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
) -> Result<usize, AlgorithmError>
where
    S: ExecutionSpace<MemorySpace = M> + MapImpl<T, T, Difference<'a, T, M, Minus>>,
    M: MemorySpace,
    T: Element + std::ops::Sub<Output = T>,
    Sx: Storage<Elem = T, Space = M>,
    Sy: StorageMut<Elem = T, Space = M>,
    Lx: Layout,
    Ly: Layout,
{
    adjacent_difference_by(space, x, y, Minus)
}

/// Writes `y[0] = x[0]` and `y[i] = op(x[i], x[i - 1])`; returns
/// `x.len()`.
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::adjacent_difference_by;
/// let x = View1::<u32>::from_vec("x", 3, vec![2, 6, 24])?;
/// let mut y = View1::<u32>::zeros("y", 3)?;
/// adjacent_difference_by(&Serial, &x, &mut y, |a: u32, b: u32| a / b)?;
/// assert_eq!(y.to_vec(), [2, 3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn adjacent_difference_by<'a, S, M, T, F, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &'a ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
    op: F,
) -> Result<usize, AlgorithmError>
where
    S: ExecutionSpace<MemorySpace = M> + MapImpl<T, T, Difference<'a, T, M, F>>,
    M: MemorySpace,
    T: Element,
    F: BinaryFunctor<T, T, Output = T>,
    Sx: Storage<Elem = T, Space = M>,
    Sy: StorageMut<Elem = T, Space = M>,
    Lx: Layout,
    Ly: Layout,
{
    let x = Input::of(x);
    let f = Difference { x, op };
    map_into(
        space,
        "adjacent_difference",
        x,
        Output::of(y),
        Source::Same,
        &f,
    )
}

/// Copies `x` reversed into `y` (`y[i] = x[n - 1 - i]`); returns
/// `x.len()`.
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::reverse_copy;
/// let x = View1::<i32>::from_vec("x", 3, vec![1, 2, 3])?;
/// let mut y = View1::<i32>::zeros("y", 3)?;
/// reverse_copy(&Serial, &x, &mut y)?;
/// assert_eq!(y.to_vec(), [3, 2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reverse_copy<S, T, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    y: &mut ViewBase<Sy, 1, Ly>,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, T, Elem>,
    T: Element,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    map_into(
        space,
        "reverse_copy",
        Input::of(x),
        Output::of(y),
        Source::Reversed,
        &Elem,
    )
}

/// Copies `x` rotated left by `middle` into `y` (`x[middle..]`, then
/// `x[..middle]`); returns `x.len()`.
///
/// # Errors
/// [`AlgorithmError::OutOfRange`] when `middle` passes the end of `x`,
/// [`AlgorithmError::OutputTooSmall`] when `y` is shorter than `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::rotate_copy;
/// let x = View1::<i32>::from_vec("x", 5, vec![1, 2, 3, 4, 5])?;
/// let mut y = View1::<i32>::zeros("y", 5)?;
/// rotate_copy(&Serial, &x, 2, &mut y)?;
/// assert_eq!(y.to_vec(), [3, 4, 5, 1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rotate_copy<S, T, Sx, Lx, Sy, Ly>(
    space: &S,
    x: &ViewBase<Sx, 1, Lx>,
    middle: usize,
    y: &mut ViewBase<Sy, 1, Ly>,
) -> Result<usize, AlgorithmError>
where
    S: MapImpl<T, T, Elem>,
    T: Element,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Sy: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
    Ly: Layout,
{
    let x = Input::of(x);
    let middle = within("rotate_copy", "middle", middle, (x.label(), x.len()))?;
    let from = Source::Rotated(middle);
    map_into(space, "rotate_copy", x, Output::of(y), from, &Elem)
}

/// Swaps `a[i]` with `b[i]` for every element of `a`; returns `a.len()`.
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `b` is shorter than `a`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::swap_ranges;
/// let mut a = View1::<i32>::from_vec("a", 2, vec![1, 2])?;
/// let mut b = View1::<i32>::from_vec("b", 3, vec![7, 8, 9])?;
/// assert_eq!(swap_ranges(&Serial, &mut a, &mut b)?, 2);
/// assert_eq!((a.to_vec(), b.to_vec()), (vec![7, 8], vec![1, 2, 9]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn swap_ranges<S, T, Sa, La, Sb, Lb>(
    space: &S,
    a: &mut ViewBase<Sa, 1, La>,
    b: &mut ViewBase<Sb, 1, Lb>,
) -> Result<usize, AlgorithmError>
where
    S: SwapImpl<T>,
    T: Element,
    Sa: StorageMut<Elem = T, Space = S::MemorySpace>,
    Sb: StorageMut<Elem = T, Space = S::MemorySpace>,
    La: Layout,
    Lb: Layout,
{
    let (a, b) = (Output::of(a), Output::of(b));
    let n = a.len();
    let b = first_n("swap_ranges", (a.label(), n), b)?;
    if n > 0 {
        space.swap("swap_ranges", a, b, false);
    }
    Ok(n)
}

/// Swaps elements `i` and `j` of `x` (Kokkos's `iter_swap` of two
/// iterators into one View).
///
/// # Errors
/// [`AlgorithmError::OutOfRange`] when `i` or `j` is not an index of `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::iter_swap;
/// let mut x = View1::<i32>::from_vec("x", 3, vec![1, 2, 3])?;
/// iter_swap(&Serial, &mut x, 0, 2)?;
/// assert_eq!(x.to_vec(), [3, 2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn iter_swap<S, T, Sx, Lx>(
    space: &S,
    x: &mut ViewBase<Sx, 1, Lx>,
    i: usize,
    j: usize,
) -> Result<(), AlgorithmError>
where
    S: SwapImpl<T>,
    T: Element,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let x = Output::of(x);
    for k in [i, j] {
        if k >= x.len() {
            return Err(AlgorithmError::out_of_range(
                "iter_swap",
                "index",
                k,
                (x.label(), x.len()),
            ));
        }
    }
    if i != j {
        let (lo, hi) = (i.min(j), i.max(j));
        let (head, tail) = x.split_at(hi);
        let a = head.split_at(lo).1.split_at(1).0;
        space.swap("iter_swap", a, tail.split_at(1).0, false);
    }
    Ok(())
}

/// Reverses `y` in place: its first half swapped with its last, reversed.
fn reverse_output<S: SwapImpl<T>, T: Element>(
    space: &S,
    label: &str,
    y: Output<'_, T, S::MemorySpace>,
) {
    let half = y.len() / 2;
    if half == 0 {
        return;
    }
    let (front, rest) = y.split_at(half);
    let skip = rest.len() - half;
    let back = rest.split_at(skip).1;
    space.swap(label, front, back, true);
}

/// Reverses the order of the elements of `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::reverse;
/// let mut x = View1::<i32>::from_vec("x", 5, vec![1, 2, 3, 4, 5])?;
/// reverse(&Serial, &mut x);
/// assert_eq!(x.to_vec(), [5, 4, 3, 2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn reverse<S, T, Sx, Lx>(space: &S, x: &mut ViewBase<Sx, 1, Lx>)
where
    S: SwapImpl<T>,
    T: Element,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    reverse_output(space, "reverse", Output::of(x));
}

/// Rotates `y` left by `middle <= len` in place: three reversals.
fn rotate_output<S: SwapImpl<T>, T: Element>(
    space: &S,
    label: &str,
    mut y: Output<'_, T, S::MemorySpace>,
    middle: usize,
) {
    let (front, back) = y.reborrow().split_at(middle);
    reverse_output(space, label, front);
    reverse_output(space, label, back);
    reverse_output(space, label, y);
}

/// Rotates `x` left by `middle`: `x[middle..]` comes first, then
/// `x[..middle]`. Returns the new index of the first element
/// (`x.len() - middle`).
///
/// # Errors
/// [`AlgorithmError::OutOfRange`] when `middle` passes the end of `x`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::rotate;
/// let mut x = View1::<i32>::from_vec("x", 5, vec![1, 2, 3, 4, 5])?;
/// assert_eq!(rotate(&Serial, &mut x, 2)?, 3);
/// assert_eq!(x.to_vec(), [3, 4, 5, 1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rotate<S, T, Sx, Lx>(
    space: &S,
    x: &mut ViewBase<Sx, 1, Lx>,
    middle: usize,
) -> Result<usize, AlgorithmError>
where
    S: SwapImpl<T>,
    T: Element,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let y = Output::of(x);
    let (n, middle) = (
        y.len(),
        within("rotate", "middle", middle, (y.label(), y.len()))?,
    );
    rotate_output(space, "rotate", y, middle);
    Ok(n - middle)
}

/// Moves the elements of `x` `k` places towards the front (element `k`
/// to 0, ...), and returns the end of the moved ones (`x.len() - k`);
/// the elements after it are left in an unspecified order, as in Kokkos.
/// With `k >= x.len()` nothing moves and 0 is returned.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::shift_left;
/// let mut x = View1::<i32>::from_vec("x", 5, vec![1, 2, 3, 4, 5])?;
/// assert_eq!(shift_left(&Serial, &mut x, 2), 3);
/// assert_eq!(x.to_vec()[..3], [3, 4, 5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn shift_left<S, T, Sx, Lx>(space: &S, x: &mut ViewBase<Sx, 1, Lx>, k: usize) -> usize
where
    S: SwapImpl<T>,
    T: Element,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let y = Output::of(x);
    let n = y.len();
    match k {
        0 => n,
        _ if k >= n => 0,
        _ => {
            rotate_output(space, "shift_left", y, k);
            n - k
        }
    }
}

/// Moves the elements of `x` `k` places towards the back (element 0 to
/// `k`, ...), and returns the index of the first moved one (`k`); the
/// elements before it are left in an unspecified order, as in Kokkos.
/// With `k >= x.len()` nothing moves and `x.len()` is returned.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::shift_right;
/// let mut x = View1::<i32>::from_vec("x", 5, vec![1, 2, 3, 4, 5])?;
/// assert_eq!(shift_right(&Serial, &mut x, 2), 2);
/// assert_eq!(x.to_vec()[2..], [1, 2, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn shift_right<S, T, Sx, Lx>(space: &S, x: &mut ViewBase<Sx, 1, Lx>, k: usize) -> usize
where
    S: SwapImpl<T>,
    T: Element,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let y = Output::of(x);
    let n = y.len();
    match k {
        0 => 0,
        _ if k >= n => n,
        _ => {
            rotate_output(space, "shift_right", y, n - k);
            k
        }
    }
}

/// An update of every element of `y`.
fn update_all<S: UpdateImpl<T, F>, T: Element, F>(
    space: &S,
    label: &str,
    y: Output<'_, T, S::MemorySpace>,
    f: &F,
) {
    if !y.is_empty() {
        space.update(label, y, f);
    }
}

/// An update of the first `count` elements of `y`; returns `count`.
fn update_first<S: UpdateImpl<T, F>, T: Element, F>(
    space: &S,
    label: &'static str,
    y: Output<'_, T, S::MemorySpace>,
    count: usize,
    f: &F,
) -> Result<usize, AlgorithmError> {
    let count = within(label, "count", count, (y.label(), y.len()))?;
    update_all(space, label, y.split_at(count).0, f);
    Ok(count)
}
