//! Scans: [`inclusive_scan`], [`exclusive_scan`] (and their
//! `_in_place` forms), [`transform_inclusive_scan`],
//! [`transform_exclusive_scan`].
//!
//! Every scan takes the execution space, the input View, the output View
//! (of the space's memory, any layout), an operator (a reducer: [`Sum`],
//! [`Prod`], [`Min`], [`Max`], [`BAnd`], [`BOr`], [`LAnd`], [`LOr`], a
//! tuple of them, or your own [`Reducer`]) and an optional start value
//! `init` (`None` starts from the operator's identity), and returns the
//! total: `init ⊕ x[0] ⊕ … ⊕ x[n-1]`.
//!
//! The result is bitwise the same for a given length whatever the thread
//! count: blocks of a fixed size are scanned locally, and element `i` of
//! block `b` is `prefix(b) ⊕ local(i)`, with the block prefixes folded left
//! to right (`host/mod.rs` says how the blocks are chained in one pass).
//! Floating-point results therefore differ in rounding from a sequential
//! loop, by the same bits on Serial and Rayon. Cuda groups float joins by
//! its own fixed tree (see `cuda.rs`): the same bits on every run of a
//! given length, not the host's bits.
//!
//! [`Sum`]: granule_core::reducer::Sum
//! [`Prod`]: granule_core::reducer::Prod
//! [`Min`]: granule_core::reducer::Min
//! [`Max`]: granule_core::reducer::Max
//! [`BAnd`]: granule_core::reducer::BAnd
//! [`BOr`]: granule_core::reducer::BOr
//! [`LAnd`]: granule_core::reducer::LAnd
//! [`LOr`]: granule_core::reducer::LOr

#[cfg(feature = "cuda")]
mod cuda;
mod f64_sums;
mod host;
mod parts;
mod simd;

#[cfg(feature = "cuda")]
pub use cuda::CudaTransform;

use crate::io::{Input, Output};
use crate::AlgorithmError;
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::Reducer;
use granule_core::ExecutionSpace;
use granule_views::storage::{Storage, StorageMut};
use granule_views::{Element, Layout, ViewBase};

/// `v`'s bits as `B`: the vector kernels (`parts`, `f64_sums`) see a
/// generic `T` that is their float type (the two are the same type;
/// asserted).
#[inline(always)]
fn bits<A: Element, B: Element>(v: A) -> B {
    assert!(
        std::any::TypeId::of::<A>() == std::any::TypeId::of::<B>(),
        "bits: not one type"
    );
    // SAFETY: A and B are the same type (asserted).
    unsafe { std::mem::transmute_copy::<A, B>(&v) }
}

/// Whether element `i` of a scan's output includes `x[i]`.
///
/// ```
/// use granule::algorithms::scan::ScanKind;
/// assert_ne!(ScanKind::Inclusive, ScanKind::Exclusive);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanKind {
    /// `out[i] = init ⊕ x[0] ⊕ … ⊕ x[i]`.
    Inclusive,
    /// `out[i] = init ⊕ x[0] ⊕ … ⊕ x[i-1]` (`out[0] = init`).
    Exclusive,
}

/// The transform of a plain scan: each element as it is.
///
/// ```
/// use granule::algorithms::Identity;
/// use granule::base::functor::UnaryFunctor;
/// assert_eq!(Identity.call(7u8), 7);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Identity;

impl<T> UnaryFunctor<T> for Identity {
    type Output = T;
    #[inline(always)]
    fn call(&self, x: T) -> T {
        x
    }
}

/// What a scan computes, as an implementation receives it.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{scan::{ScanKind, ScanSpec}, Identity};
/// let spec = ScanSpec { kind: ScanKind::Exclusive, op: &Sum, transform: &Identity, init: Some(1i64) };
/// assert_eq!(spec.init, Some(1));
/// ```
#[derive(Debug)]
pub struct ScanSpec<'s, T, R, F> {
    /// Inclusive or exclusive.
    pub kind: ScanKind,
    /// The operator.
    pub op: &'s R,
    /// Applied to each input element first ([`Identity`] for a plain scan).
    pub transform: &'s F,
    /// The start value (`None`: the operator's identity).
    pub init: Option<T>,
}

/// How an execution space runs an out-of-place scan of `U` elements,
/// transformed to `T` by `F` and combined by `R`. Implemented for the
/// spaces that have the scans: Serial and Rayon, and Cuda for elements
/// of device scalar types, operators with a device counterpart and
/// [`Identity`] or `#[kernel]` transforms (`CudaTransform`, with the
/// `cuda` feature).
///
/// Implementations write `output[0..input.len()]` and nothing else, and
/// return the total; the entry points have checked the lengths.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::scan::ScanImpl;
/// fn has_scans<S: ScanImpl<i64, i64, Sum, granule::algorithms::Identity>>(_: &S) {}
/// has_scans(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no scan of these types",
    note = "on Cuda the elements are a number type or bool, the operator a built-in, tuple or `#[device]` reducer, and the transform a `#[kernel]` element function"
)]
pub trait ScanImpl<U, T, R, F>: ExecutionSpace {
    /// Scans `input` into `output[0..input.len()]`; returns the total.
    fn scan(
        &self,
        label: &str,
        input: Input<'_, U, Self::MemorySpace>,
        output: Output<'_, T, Self::MemorySpace>,
        spec: ScanSpec<'_, T, R, F>,
    ) -> T;

    /// Scans `data` in place (`U` and `T` are the same type); returns the
    /// total.
    fn scan_in_place(
        &self,
        label: &str,
        data: Output<'_, T, Self::MemorySpace>,
        spec: ScanSpec<'_, T, R, F>,
    ) -> T
    where
        F: UnaryFunctor<T, Output = T>;
}

#[allow(clippy::too_many_arguments)]
fn scan_views<S, U, T, R, F, Si, Li, So, Lo>(
    algorithm: &'static str,
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    kind: ScanKind,
    op: &R,
    transform: &F,
    init: Option<T>,
) -> Result<T, AlgorithmError>
where
    S: ScanImpl<U, T, R, F>,
    U: Element,
    T: Element,
    Si: Storage<Elem = U, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    let (n, m) = (input.extent(0), output.extent(0));
    if m < n {
        let reason = format!("the input \"{}\" has {n}", input.label());
        return Err(AlgorithmError::too_small(
            algorithm,
            (output.label(), m),
            n,
            reason,
        ));
    }
    let spec = ScanSpec {
        kind,
        op,
        transform,
        init,
    };
    Ok(space.scan(algorithm, Input::of(input), Output::of(output), spec))
}

/// `output[i] = init ⊕ input[0] ⊕ … ⊕ input[i]`; returns the total.
///
/// `output` may be longer than `input` (its tail is left alone); a
/// shorter one is an error and nothing is written.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::inclusive_scan;
/// let space = Rayon::new(2)?;
/// let x = View1::<i64, LayoutRight, _>::from_fn_in(space.memory_space(), "x", 5, |i| i as i64 + 1)?;
/// let mut y = View1::<i64, LayoutRight, _>::zeros_in(space.memory_space(), "y", 5)?;
/// let total = inclusive_scan(&space, &x, &mut y, Sum, None)?;
/// assert_eq!(create_mirror_view_and_copy(&y)?.to_vec(), [1, 3, 6, 10, 15]);
/// assert_eq!(total, 15);
/// // a running maximum from a start value
/// let m = inclusive_scan(&space, &x, &mut y, Max, Some(3))?;
/// assert_eq!((create_mirror_view_and_copy(&y)?.to_vec(), m), (vec![3, 3, 3, 4, 5], 5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inclusive_scan<S, T, R, Si, Li, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    op: R,
    init: Option<T>,
) -> Result<T, AlgorithmError>
where
    S: ScanImpl<T, T, R, Identity>,
    T: Element,
    R: Reducer<T>,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    let kind = ScanKind::Inclusive;
    scan_views(
        "inclusive_scan",
        space,
        input,
        output,
        kind,
        &op,
        &Identity,
        init,
    )
}

/// `output[i] = init ⊕ input[0] ⊕ … ⊕ input[i-1]` (`output[0] = init`, the
/// operator's identity when `init` is `None`); returns the total.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::exclusive_scan;
/// let space = Rayon::new(2)?;
/// let x = View1::<f64, LayoutRight, _>::from_fn_in(space.memory_space(), "x", 4, |i| i as f64)?;
/// let mut y = View1::<f64, LayoutRight, _>::zeros_in(space.memory_space(), "y", 4)?;
/// let total = exclusive_scan(&space, &x, &mut y, Sum, Some(10.0))?;
/// assert_eq!(create_mirror_view_and_copy(&y)?.to_vec(), [10.0, 10.0, 11.0, 13.0]);
/// assert_eq!(total, 16.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn exclusive_scan<S, T, R, Si, Li, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    op: R,
    init: Option<T>,
) -> Result<T, AlgorithmError>
where
    S: ScanImpl<T, T, R, Identity>,
    T: Element,
    R: Reducer<T>,
    Si: Storage<Elem = T, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    let kind = ScanKind::Exclusive;
    scan_views(
        "exclusive_scan",
        space,
        input,
        output,
        kind,
        &op,
        &Identity,
        init,
    )
}

/// [`inclusive_scan`] of `transform(input[i])`, in the same single pass
/// over memory. The transform may be called more than once per element
/// (as Kokkos's is), so it must be a pure function.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::transform_inclusive_scan;
/// let x = View1::<i32>::from_vec("x", 4, vec![3, -1, 4, -1])?;
/// let mut sq = View1::<i64>::zeros("sq", 4)?;
/// let t = transform_inclusive_scan(&Serial, &x, &mut sq, Sum, None, |v: i32| (v * v) as i64)?;
/// assert_eq!((sq.to_vec(), t), (vec![9, 10, 26, 27], 27));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn transform_inclusive_scan<S, U, T, R, F, Si, Li, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    op: R,
    init: Option<T>,
    transform: F,
) -> Result<T, AlgorithmError>
where
    S: ScanImpl<U, T, R, F>,
    U: Element,
    T: Element,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
    Si: Storage<Elem = U, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    let kind = ScanKind::Inclusive;
    scan_views(
        "transform_inclusive_scan",
        space,
        input,
        output,
        kind,
        &op,
        &transform,
        init,
    )
}

/// [`exclusive_scan`] of `transform(input[i])`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::transform_exclusive_scan;
/// // offsets of the nonzero flags: the map and scan of stream compaction
/// let x = View1::<i32>::from_vec("x", 5, vec![0, 7, 0, 2, 5])?;
/// let mut at = View1::<usize>::zeros("at", 5)?;
/// let kept = transform_exclusive_scan(&Serial, &x, &mut at, Sum, None, |v: i32| (v != 0) as usize)?;
/// assert_eq!((at.to_vec(), kept), (vec![0, 0, 1, 1, 2], 3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn transform_exclusive_scan<S, U, T, R, F, Si, Li, So, Lo>(
    space: &S,
    input: &ViewBase<Si, 1, Li>,
    output: &mut ViewBase<So, 1, Lo>,
    op: R,
    init: Option<T>,
    transform: F,
) -> Result<T, AlgorithmError>
where
    S: ScanImpl<U, T, R, F>,
    U: Element,
    T: Element,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
    Si: Storage<Elem = U, Space = S::MemorySpace>,
    So: StorageMut<Elem = T, Space = S::MemorySpace>,
    Li: Layout,
    Lo: Layout,
{
    let kind = ScanKind::Exclusive;
    scan_views(
        "transform_exclusive_scan",
        space,
        input,
        output,
        kind,
        &op,
        &transform,
        init,
    )
}

/// [`inclusive_scan`] with the output as the input; returns the total.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::inclusive_scan_in_place;
/// let mut x = View1::<u32>::from_vec("x", 4, vec![1, 2, 4, 8])?;
/// assert_eq!(inclusive_scan_in_place(&Serial, &mut x, BOr, None), 15);
/// assert_eq!(x.to_vec(), [1, 3, 7, 15]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inclusive_scan_in_place<S, T, R, Sx, Lx>(
    space: &S,
    data: &mut ViewBase<Sx, 1, Lx>,
    op: R,
    init: Option<T>,
) -> T
where
    S: ScanImpl<T, T, R, Identity>,
    T: Element,
    R: Reducer<T>,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let spec = ScanSpec {
        kind: ScanKind::Inclusive,
        op: &op,
        transform: &Identity,
        init,
    };
    space.scan_in_place("inclusive_scan_in_place", Output::of(data), spec)
}

/// [`exclusive_scan`] with the output as the input; returns the total.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::exclusive_scan_in_place;
/// let mut x = View1::<i64>::from_vec("x", 5, vec![2, 3, 4, 5, 6])?;
/// assert_eq!(exclusive_scan_in_place(&Serial, &mut x, Prod, None), 720);
/// assert_eq!(x.to_vec(), [1, 2, 6, 24, 120]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn exclusive_scan_in_place<S, T, R, Sx, Lx>(
    space: &S,
    data: &mut ViewBase<Sx, 1, Lx>,
    op: R,
    init: Option<T>,
) -> T
where
    S: ScanImpl<T, T, R, Identity>,
    T: Element,
    R: Reducer<T>,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let spec = ScanSpec {
        kind: ScanKind::Exclusive,
        op: &op,
        transform: &Identity,
        init,
    };
    space.scan_in_place("exclusive_scan_in_place", Output::of(data), spec)
}
