//! Stream compaction: [`copy_if`], [`remove_if`], [`remove`],
//! [`remove_copy`], [`remove_copy_if`], [`compact_by_flags`],
//! [`partition_copy`], [`unique`], [`unique_copy`].
//!
//! Order is stable: kept elements keep their relative order. The host
//! spaces do it in one pass over memory (predicate, look-back scan of the
//! block counts, and scatter fused, see `host/mod.rs`): the input is read
//! from memory once, each output element written once, and the predicate
//! called once per element (the `_counted` forms below call it once
//! more).
//!
//! **Output sizes.** Nothing is ever written past an output's end. An
//! output must be at least as long as the input (all elements may be
//! kept); a shorter one is [`AlgorithmError::OutputTooSmall`] and nothing
//! is written. When the output is meant to be exactly as long as the
//! result, the `_counted` forms ([`copy_if_counted`],
//! [`partition_copy_counted`]) first count the kept elements (one more
//! read of the input and one more predicate call per element, so they are
//! slower) and require only that many.

#[cfg(feature = "cuda")]
mod cuda;
mod host;

use crate::io::{same_len, Input, Output};
use crate::reduce::adapt::CountIf;
use crate::reduce::{count_if_ref, ReduceImpl};
use crate::AlgorithmError;
use granule_core::functor::UnaryFunctor;
use granule_core::kernel::kernel;
use granule_core::reducer::{Logical, Sum};
use granule_core::ExecutionSpace;
use granule_views::storage::{Storage, StorageMut};
use granule_views::{Element, Layout, ViewBase};

/// How an execution space runs the predicate compactions. Implemented
/// for Serial and Rayon, and for Cuda with a `#[kernel]` predicate over
/// a device scalar type (`cuda.rs`). The entry points
/// have checked that every output can hold every element written to it.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::compact::CompactImpl;
/// fn compacts<S: CompactImpl<f64, fn(f64) -> bool>>(_: &S) {}
/// compacts(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no stream compaction of these types",
    note = "on Cuda the elements are a number type or bool and the predicate a `#[kernel]` element function"
)]
pub trait CompactImpl<T, P>: ExecutionSpace {
    /// Writes the elements for which `pred` is true to the front of
    /// `output`, in order; returns how many.
    fn copy_if(
        &self,
        label: &str,
        input: Input<'_, T, Self::MemorySpace>,
        output: Output<'_, T, Self::MemorySpace>,
        pred: &P,
    ) -> usize;
    /// Moves the elements for which `pred` is false to the front of
    /// `data`, in order; returns how many.
    fn remove_if(&self, label: &str, data: Output<'_, T, Self::MemorySpace>, pred: &P) -> usize;
    /// Writes the elements for which `pred` is false to the front of
    /// `output`, in order; returns how many.
    fn remove_copy_if(
        &self,
        label: &str,
        input: Input<'_, T, Self::MemorySpace>,
        output: Output<'_, T, Self::MemorySpace>,
        pred: &P,
    ) -> usize;
    /// Writes the elements for which `pred` is true to `out_true` and the
    /// others to `out_false`, each in order; returns both counts.
    fn partition_copy(
        &self,
        label: &str,
        input: Input<'_, T, Self::MemorySpace>,
        out_true: Output<'_, T, Self::MemorySpace>,
        out_false: Output<'_, T, Self::MemorySpace>,
        pred: &P,
    ) -> (usize, usize);
}

/// How an execution space compacts by a flags View (see
/// [`compact_by_flags`]). Implemented for Serial, Rayon and Cuda.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::compact::CompactByFlagsImpl;
/// fn compacts<S: CompactByFlagsImpl<f64, bool>>(_: &S) {}
/// compacts(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no compaction by flags of these types",
    note = "on Cuda the elements and the flags are a number type or bool"
)]
pub trait CompactByFlagsImpl<T, G>: ExecutionSpace {
    /// Writes `input[i]` for every nonzero `flags[i]` to the front of
    /// `output`, in order; returns how many.
    fn compact_by_flags(
        &self,
        label: &str,
        input: Input<'_, T, Self::MemorySpace>,
        flags: Input<'_, G, Self::MemorySpace>,
        output: Output<'_, T, Self::MemorySpace>,
    ) -> usize;
}

/// How an execution space removes consecutive duplicates (see [`unique`]).
/// Implemented for Serial, Rayon and Cuda.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::compact::UniqueImpl;
/// fn dedups<S: UniqueImpl<u32>>(_: &S) {}
/// dedups(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `unique` of these types",
    note = "on Cuda the elements are a number type or bool"
)]
pub trait UniqueImpl<T>: ExecutionSpace {
    /// Keeps the first of every run of equal elements, moved to the front
    /// in order; returns how many.
    fn unique(&self, label: &str, data: Output<'_, T, Self::MemorySpace>) -> usize;
    /// Writes the first of every run of equal elements of `input` to the
    /// front of `output`, in order; returns how many.
    fn unique_copy(
        &self,
        label: &str,
        input: Input<'_, T, Self::MemorySpace>,
        output: Output<'_, T, Self::MemorySpace>,
    ) -> usize;
}

fn fits(
    algorithm: &'static str,
    out: (&str, usize),
    needed: usize,
    why: String,
) -> Result<(), AlgorithmError> {
    if out.1 >= needed {
        Ok(())
    } else {
        Err(AlgorithmError::too_small(algorithm, out, needed, why))
    }
}

fn input_len_reason(label: &str, n: usize) -> String {
    format!("the input \"{label}\" has {n}, and all may be kept")
}

/// Copies the elements of `input` for which `pred` is true to the front
/// of `output`, in order, and returns how many. `output` must be at least
/// as long as `input` (else an error, and nothing is written); see
/// [`copy_if_counted`] for an output sized to the result.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::copy_if;
/// let space = Rayon::new(2)?;
/// let x = View1::<i64, LayoutRight, _>::from_fn_in(space.memory_space(), "x", 8, |i| (i % 3) as i64)?;
/// let mut y = View1::<i64, LayoutRight, _>::zeros_in(space.memory_space(), "y", 8)?;
/// let n = copy_if(&space, &x, &mut y, |v: i64| v != 0)?;
/// assert_eq!(create_mirror_view_and_copy(&y)?.to_vec()[..n], [1, 2, 1, 2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn copy_if<S, T, P, Si, Li, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    pred: P,
) -> Result<usize, AlgorithmError>
where
    S: CompactImpl<T, P>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    let n = input.extent(0);
    let why = input_len_reason(input.label(), n);
    fits("copy_if", (output.label(), output.extent(0)), n, why)?;
    Ok(space.copy_if("copy_if", Input::of(input), Output::of(output), &pred))
}

/// [`copy_if`] into an output that need only hold the result: the kept
/// elements are counted first (an extra pass over the input), so this is
/// slower. A predicate that answers differently the second time panics
/// rather than write past the output.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::copy_if_counted;
/// let x = View1::<u32>::from_fn("x", 100, |i| i as u32)?;
/// let mut squares = View1::<u32>::zeros("squares", 10)?;
/// let n = copy_if_counted(&Serial, &x, &mut squares, |v: u32| (v as f64).sqrt().fract() == 0.0)?;
/// assert_eq!((n, squares[9]), (10, 81));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn copy_if_counted<S, T, P, Si, Li, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    pred: P,
) -> Result<usize, AlgorithmError>
where
    S: CompactImpl<T, P> + ReduceImpl<T, usize, Sum, CountIf<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    let kept = count_if_ref(space, input, &pred);
    let why = format!("{kept} elements of \"{}\" are kept", input.label());
    fits(
        "copy_if_counted",
        (output.label(), output.extent(0)),
        kept,
        why,
    )?;
    Ok(space.copy_if(
        "copy_if_counted",
        Input::of(input),
        Output::of(output),
        &pred,
    ))
}

/// Removes the elements for which `pred` is true: the others move to the
/// front of `data`, in order, and their count is returned. Elements past
/// the count keep unspecified (valid) values, as in Kokkos.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::remove_if;
/// let mut x = View1::<i32>::from_vec("x", 6, vec![1, -2, 3, -4, -5, 6])?;
/// let n = remove_if(&Serial, &mut x, |v: i32| v < 0);
/// assert_eq!(x.to_vec()[..n], [1, 3, 6]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn remove_if<S, T, P, Sx, Lx>(space: &S, data: &mut ViewBase<Sx, 1, Lx>, pred: P) -> usize
where
    S: CompactImpl<T, P>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    space.remove_if("remove_if", Output::of(data), &pred)
}

/// Stream compaction by flags, as one call (the map, scan and scatter
/// fused): copies `input[i]` for every nonzero `flags[i]` (any integer
/// type or `bool`) to the front of `output`, in order; returns how many.
/// `flags` must be as long as `input`, and `output` at least as long.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::compact_by_flags;
/// let x = View1::<f32>::from_vec("x", 5, vec![0.5, 1.5, 2.5, 3.5, 4.5])?;
/// let flags = View1::<u8>::from_vec("flags", 5, vec![1, 0, 0, 1, 1])?;
/// let mut y = View1::<f32>::zeros("y", 5)?;
/// let n = compact_by_flags(&Serial, &x, &flags, &mut y)?;
/// assert_eq!(y.to_vec()[..n], [0.5, 3.5, 4.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compact_by_flags<S, T, G, Si, Li, Sf, Lf, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    flags: &ViewBase<Sf, 1, Lf>,
    output: &mut ViewBase<So, 1, Lo>,
) -> Result<usize, AlgorithmError>
where
    S: CompactByFlagsImpl<T, G>,
    T: Element,
    G: Element + Logical,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    Sf: Storage<Elem = G, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lf: Layout,
    Lo: Layout,
{
    let n = input.extent(0);
    same_len(
        "compact_by_flags",
        (input.label(), n),
        (flags.label(), flags.extent(0)),
    )?;
    let why = input_len_reason(input.label(), n);
    fits(
        "compact_by_flags",
        (output.label(), output.extent(0)),
        n,
        why,
    )?;
    let (i, f, o) = (Input::of(input), Input::of(flags), Output::of(output));
    Ok(space.compact_by_flags("compact_by_flags", i, f, o))
}

/// Splits `input` by `pred`: the elements for which it is true go to the
/// front of `out_true`, the others to the front of `out_false`, each in
/// order; returns both counts. Each output must be at least as long as
/// the input (see [`partition_copy_counted`]).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::partition_copy;
/// let x = View1::<i32>::from_fn("x", 7, |i| i as i32)?;
/// let (mut even, mut odd) = (View1::<i32>::zeros("even", 7)?, View1::<i32>::zeros("odd", 7)?);
/// let (e, o) = partition_copy(&Serial, &x, &mut even, &mut odd, |v: i32| v % 2 == 0)?;
/// assert_eq!((even.to_vec()[..e].to_vec(), odd.to_vec()[..o].to_vec()), (vec![0, 2, 4, 6], vec![1, 3, 5]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn partition_copy<S, T, P, Si, Li, St, Lt, Sf, Lf>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    out_true: &mut ViewBase<St, 1, Lt>,
    out_false: &mut ViewBase<Sf, 1, Lf>,
    pred: P,
) -> Result<(usize, usize), AlgorithmError>
where
    S: CompactImpl<T, P>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    St: StorageMut<Elem = T, Space = S::MemorySpace>,
    Sf: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lt: Layout,
    Lf: Layout,
{
    let n = input.extent(0);
    for out in [
        (out_true.label(), out_true.extent(0)),
        (out_false.label(), out_false.extent(0)),
    ] {
        fits("partition_copy", out, n, input_len_reason(input.label(), n))?;
    }
    let (i, t, f) = (
        Input::of(input),
        Output::of(out_true),
        Output::of(out_false),
    );
    Ok(space.partition_copy("partition_copy", i, t, f, &pred))
}

/// [`partition_copy`] into outputs that need only hold their part: the
/// elements are counted first (slower, as for [`copy_if_counted`]).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::partition_copy_counted;
/// let x = View1::<i32>::from_fn("x", 10, |i| i as i32)?;
/// let (mut small, mut big) = (View1::<i32>::zeros("small", 3)?, View1::<i32>::zeros("big", 7)?);
/// assert_eq!(partition_copy_counted(&Serial, &x, &mut small, &mut big, |v: i32| v < 3)?, (3, 7));
/// assert_eq!(big[0], 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn partition_copy_counted<S, T, P, Si, Li, St, Lt, Sf, Lf>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    out_true: &mut ViewBase<St, 1, Lt>,
    out_false: &mut ViewBase<Sf, 1, Lf>,
    pred: P,
) -> Result<(usize, usize), AlgorithmError>
where
    S: CompactImpl<T, P> + ReduceImpl<T, usize, Sum, CountIf<P>>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    St: StorageMut<Elem = T, Space = S::MemorySpace>,
    Sf: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lt: Layout,
    Lf: Layout,
{
    let n = input.extent(0);
    let t = count_if_ref(space, input, &pred);
    let label = input.label();
    let algorithm = "partition_copy_counted";
    fits(
        algorithm,
        (out_true.label(), out_true.extent(0)),
        t,
        format!("{t} elements of \"{label}\" satisfy the predicate"),
    )?;
    fits(
        algorithm,
        (out_false.label(), out_false.extent(0)),
        n - t,
        format!("{} elements of \"{label}\" do not", n - t),
    )?;
    let (i, o_t, o_f) = (
        Input::of(input),
        Output::of(out_true),
        Output::of(out_false),
    );
    Ok(space.partition_copy(algorithm, i, o_t, o_f, &pred))
}

/// Removes consecutive duplicates (`==`): the first element of every run
/// of equal elements moves to the front of `data`, in order, and their
/// count is returned (Kokkos's `unique`). Elements past the count keep
/// unspecified (valid) values. NaN differs from itself, so NaNs are all
/// kept.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::unique;
/// let mut x = View1::<i32>::from_vec("x", 8, vec![1, 1, 2, 2, 2, 1, 3, 3])?;
/// let n = unique(&Serial, &mut x);
/// assert_eq!(x.to_vec()[..n], [1, 2, 1, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn unique<S, T, Sx, Lx>(space: &S, data: &mut ViewBase<Sx, 1, Lx>) -> usize
where
    S: UniqueImpl<T>,
    T: Element + PartialEq,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    space.unique("unique", Output::of(data))
}

/// `v == value`: the predicate of [`remove`] and [`remove_copy`], a
/// `#[kernel]` element function so that they run on every space. Hidden,
/// so that a compile error about a user's own function does not point to
/// it.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn equal_to<T: PartialEq + Copy>(v: T, value: T) -> bool {
    v == value
}

/// Moves the elements not equal (`==`) to `value` to the front of
/// `data`, in order, and returns how many; the elements after them are
/// left as they were or unspecified, as in Kokkos.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::remove;
/// let mut x = View1::<i32>::from_vec("x", 6, vec![1, 0, 2, 0, 0, 3])?;
/// let n = remove(&Serial, &mut x, 0);
/// assert_eq!(x.to_vec()[..n], [1, 2, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn remove<S, T, Sx, Lx>(space: &S, data: &mut ViewBase<Sx, 1, Lx>, value: T) -> usize
where
    S: CompactImpl<T, equal_to<'static, T>>,
    T: Element + PartialEq,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    space.remove_if("remove", Output::of(data), &equal_to(value))
}

/// Copies the elements of `input` not equal (`==`) to `value` to the
/// front of `output`, in order, and returns how many. `output` must be at
/// least as long as `input`.
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `output` is shorter than
/// `input`; nothing is written.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::remove_copy;
/// let x = View1::<u8>::from_vec("x", 5, vec![7, 1, 7, 2, 7])?;
/// let mut y = View1::<u8>::zeros("y", 5)?;
/// let n = remove_copy(&Serial, &x, &mut y, 7)?;
/// assert_eq!(y.to_vec()[..n], [1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn remove_copy<S, T, Si, Li, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    value: T,
) -> Result<usize, AlgorithmError>
where
    S: CompactImpl<T, equal_to<'static, T>>,
    T: Element + PartialEq,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    remove_copy_if_named("remove_copy", space, input, output, &equal_to(value))
}

/// Copies the elements of `input` for which `pred` is false to the front
/// of `output`, in order, and returns how many. `output` must be at least
/// as long as `input`.
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `output` is shorter than
/// `input`; nothing is written.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::remove_copy_if;
/// let x = View1::<i32>::from_vec("x", 5, vec![1, -2, 3, -4, 5])?;
/// let mut y = View1::<i32>::zeros("y", 5)?;
/// let n = remove_copy_if(&Serial, &x, &mut y, |v: i32| v < 0)?;
/// assert_eq!(y.to_vec()[..n], [1, 3, 5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn remove_copy_if<S, T, P, Si, Li, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    pred: P,
) -> Result<usize, AlgorithmError>
where
    S: CompactImpl<T, P>,
    T: Element,
    P: UnaryFunctor<T, Output = bool>,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    remove_copy_if_named("remove_copy_if", space, input, output, &pred)
}

fn remove_copy_if_named<S, T, P, Si, Li, So, Lo>(
    algorithm: &'static str,
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    pred: &P,
) -> Result<usize, AlgorithmError>
where
    S: CompactImpl<T, P>,
    T: Element,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    let n = input.extent(0);
    let why = input_len_reason(input.label(), n);
    fits(algorithm, (output.label(), output.extent(0)), n, why)?;
    Ok(space.remove_copy_if(algorithm, Input::of(input), Output::of(output), pred))
}

/// Copies the first of every run of equal (`==`) elements of `input` to
/// the front of `output`, in order, and returns how many. `output` must
/// be at least as long as `input`.
///
/// # Errors
/// [`AlgorithmError::OutputTooSmall`] when `output` is shorter than
/// `input`; nothing is written.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::unique_copy;
/// let x = View1::<i32>::from_vec("x", 7, vec![1, 1, 2, 2, 2, 1, 3])?;
/// let mut y = View1::<i32>::zeros("y", 7)?;
/// let n = unique_copy(&Serial, &x, &mut y)?;
/// assert_eq!(y.to_vec()[..n], [1, 2, 1, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn unique_copy<S, T, Si, Li, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
) -> Result<usize, AlgorithmError>
where
    S: UniqueImpl<T>,
    T: Element + PartialEq,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    let n = input.extent(0);
    let why = input_len_reason(input.label(), n);
    fits("unique_copy", (output.label(), output.extent(0)), n, why)?;
    Ok(space.unique_copy("unique_copy", Input::of(input), Output::of(output)))
}
