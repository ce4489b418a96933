//! The patterns for generic code: the prelude's signatures, dispatched
//! through [`PortableSpace`] by the policy's type.

use super::space::{Item, Outputs, PortableSpace};
use crate::functor::{ForFunctor, ReduceFunctor, ScanFunctor};
use crate::kernel::{DeviceFunctor, DeviceReduction, DeviceValue, DeviceWrites, PortableKernel};
use crate::policy::{MDRangePolicy, Policy, RangePolicy, TeamPolicy};
use crate::reducer::{ReduceTarget, Reducer, ReductionIdentity, Sum};
use crate::space::ExecutionSpace;
use crate::team::{LeagueIndex, TeamMember};
use crate::write::{WriteParts, Writes};
use std::ops::AddAssign;

type Mem<S> = <S as ExecutionSpace>::MemorySpace;

/// A policy of a [`PortableSpace`] under which `F` can run with writes
/// `W`: each policy type forwards to its space's dispatch method.
#[diagnostic::on_unimplemented(
    message = "`{F}` cannot be dispatched by `{Self}` in code generic over the space",
    label = "the policy of this portable dispatch",
    note = "portable patterns (granule::portable) take #[kernel] functors, not closures, and written Views in the policy's space (`View1::zeros_on(space, ..)`); the kernel's `&mut` parameters must match the writes"
)]
pub trait PortableFor<W, F>: Policy {
    /// Runs `f` once per work item (see [`parallel_for`]).
    fn run_for(self, label: &str, writes: W, f: F);
}

/// A policy of a [`PortableSpace`] under which `F` reduces to a `T`
/// under `R`.
#[diagnostic::on_unimplemented(
    message = "`{F}` cannot be reduced by `{Self}` under `{R}` in code generic over the space",
    label = "the policy of this portable reduction",
    note = "portable patterns (granule::portable) take #[kernel(reduce)] functors, not closures, whose accumulator type is the result's, with a reducer the device has (Sum, Max, a #[device] custom reducer ..)"
)]
pub trait PortableReduce<T, R, F>: Policy {
    /// The finalized reduction (see [`parallel_reduce`]).
    fn run_reduce(self, label: &str, reducer: R, f: F) -> T;
}

impl<S, W, F> PortableFor<W, F> for RangePolicy<'_, S>
where
    S: PortableSpace,
    W: Writes<usize>,
    W::Parts: WriteParts<usize, Mem<S>> + DeviceWrites<usize, Mem<S>>,
    F::Host: for<'a> ForFunctor<usize, Item<'a, W, usize, Mem<S>>>,
    F: PortableKernel<Mem<S>>
        + DeviceFunctor<Mem<S>, Index = usize, Outputs = Outputs<W, usize, Mem<S>>, Value = ()>,
{
    #[track_caller]
    fn run_for(self, label: &str, writes: W, f: F) {
        self.space().range_for(label, self, writes, f)
    }
}

impl<S, W, F, const N: usize> PortableFor<W, F> for MDRangePolicy<'_, S, N>
where
    S: PortableSpace,
    W: Writes<[usize; N]>,
    W::Parts: WriteParts<[usize; N], Mem<S>> + DeviceWrites<[usize; N], Mem<S>>,
    F::Host: for<'a> ForFunctor<[usize; N], Item<'a, W, [usize; N], Mem<S>>>,
    F: PortableKernel<Mem<S>>
        + DeviceFunctor<
            Mem<S>,
            Index = [usize; N],
            Outputs = Outputs<W, [usize; N], Mem<S>>,
            Value = (),
        >,
{
    #[track_caller]
    fn run_for(self, label: &str, writes: W, f: F) {
        self.space().mdrange_for(label, self, writes, f)
    }
}

impl<S, W, F> PortableFor<W, F> for TeamPolicy<'_, S>
where
    S: PortableSpace,
    W: Writes<LeagueIndex>,
    W::Parts: WriteParts<LeagueIndex, Mem<S>> + DeviceWrites<LeagueIndex, Mem<S>>,
    F::Host: for<'a> ForFunctor<&'a TeamMember, Item<'a, W, LeagueIndex, Mem<S>>>,
    F: PortableKernel<Mem<S>>
        + DeviceFunctor<
            Mem<S>,
            Index = TeamMember,
            Outputs = Outputs<W, LeagueIndex, Mem<S>>,
            Value = (),
        >,
{
    #[track_caller]
    fn run_for(self, label: &str, writes: W, f: F) {
        self.space().team_for(label, self, writes, f)
    }
}

impl<S, T, R, F> PortableReduce<T, R, F> for RangePolicy<'_, S>
where
    S: PortableSpace,
    T: DeviceValue,
    R: Reducer<T> + DeviceReduction,
    F::Host: ReduceFunctor<usize, T>,
    F: PortableKernel<Mem<S>> + DeviceFunctor<Mem<S>, Index = usize, Outputs = (), Value = T>,
{
    #[track_caller]
    fn run_reduce(self, label: &str, reducer: R, f: F) -> T {
        self.space().range_reduce(label, self, reducer, f)
    }
}

impl<S, T, R, F, const N: usize> PortableReduce<T, R, F> for MDRangePolicy<'_, S, N>
where
    S: PortableSpace,
    T: DeviceValue,
    R: Reducer<T> + DeviceReduction,
    F::Host: ReduceFunctor<[usize; N], T>,
    F: PortableKernel<Mem<S>> + DeviceFunctor<Mem<S>, Index = [usize; N], Outputs = (), Value = T>,
{
    #[track_caller]
    fn run_reduce(self, label: &str, reducer: R, f: F) -> T {
        self.space().mdrange_reduce(label, self, reducer, f)
    }
}

impl<S, T, R, F> PortableReduce<T, R, F> for TeamPolicy<'_, S>
where
    S: PortableSpace,
    T: DeviceValue,
    R: Reducer<T> + DeviceReduction,
    F::Host: for<'a> ReduceFunctor<&'a TeamMember, T>,
    F: PortableKernel<Mem<S>> + DeviceFunctor<Mem<S>, Index = TeamMember, Outputs = (), Value = T>,
{
    #[track_caller]
    fn run_reduce(self, label: &str, reducer: R, f: F) -> T {
        self.space().team_reduce(label, self, reducer, f)
    }
}

/// [`crate::parallel_for`] in code generic over a [`PortableSpace`]: the
/// same call, for `#[kernel]` functors.
///
/// ```
/// use granule_core::prelude::*;
///
/// #[granule_macros::kernel(crate = granule_core)]
/// fn row_sums([i, j]: [usize; 2], y: &mut f64) {
///     *y = (i + j) as f64;
/// }
///
/// fn grid<S: PortableSpace>(space: &S) -> f64 {
///     let mut y = View2::zeros_on(space, "y", [3, 4]).unwrap();
///     granule_core::portable::parallel_for("grid", MDRangePolicy::new(space, [0, 0], [3, 4]), &mut y, row_sums());
///     granule_views::create_mirror_view_and_copy(&y).unwrap().as_view()[[2, 3]]
/// }
/// assert_eq!(grid(&Serial), 5.0);
/// ```
///
/// # Panics
/// As [`crate::parallel_for`].
#[track_caller]
pub fn parallel_for<P, W, F>(label: &str, policy: P, writes: W, functor: F)
where
    P: PortableFor<W, F>,
{
    policy.run_for(label, writes, functor)
}

/// [`crate::parallel_reduce`] in code generic over a [`PortableSpace`].
///
/// ```
/// use granule_core::prelude::*;
///
/// #[granule_macros::kernel(reduce, crate = granule_core)]
/// fn count_odd(i: usize, acc: &mut u64) {
///     *acc += (i % 2) as u64;
/// }
///
/// fn odd<S: PortableSpace>(space: &S, n: usize) -> u64 {
///     granule_core::portable::parallel_reduce("odd", RangePolicy::new(space, 0..n), Sum, count_odd())
/// }
/// assert_eq!(odd(&Serial, 7), 3);
/// ```
#[track_caller]
pub fn parallel_reduce<P, T, R, F>(label: &str, policy: P, reducer: R, functor: F) -> T
where
    P: PortableReduce<T, R, F>,
{
    policy.run_reduce(label, reducer, functor)
}

/// [`crate::parallel_reduce_into`] in code generic over a [`PortableSpace`].
#[track_caller]
pub fn parallel_reduce_into<P, T, R, F, D>(
    label: &str,
    policy: P,
    reducer: R,
    functor: F,
    target: D,
) where
    P: PortableReduce<T, R, F>,
    D: ReduceTarget<T>,
{
    target.store(parallel_reduce(label, policy, reducer, functor));
}

/// [`crate::parallel_scan`] (a `Sum` scan) in code generic over a
/// [`PortableSpace`].
///
/// ```
/// use granule_core::prelude::*;
///
/// #[granule_macros::kernel(scan, crate = granule_core)]
/// fn offsets(i: usize, out: &mut u64, partial: &mut u64, last: bool) {
///     if last {
///         *out = *partial;
///     }
///     *partial += i as u64;
/// }
///
/// fn run<S: PortableSpace>(space: &S) -> (Vec<u64>, u64) {
///     let mut out = View1::zeros_on(space, "out", 4).unwrap();
///     let total = granule_core::portable::parallel_scan("off", RangePolicy::new(space, 0..4), &mut out, offsets());
///     (granule_views::create_mirror_view_and_copy(&out).unwrap().as_view().to_vec(), total)
/// }
/// assert_eq!(run(&Serial), (vec![0, 0, 1, 3], 6));
/// ```
#[track_caller]
pub fn parallel_scan<'s, S, W, T, F>(
    label: &str,
    policy: RangePolicy<'s, S>,
    writes: W,
    functor: F,
) -> T
where
    S: PortableSpace,
    W: Writes<usize>,
    W::Parts: WriteParts<usize, Mem<S>> + DeviceWrites<usize, Mem<S>>,
    T: DeviceValue + ReductionIdentity + AddAssign,
    Sum: Reducer<T> + DeviceReduction,
    F::Host: for<'a> ScanFunctor<usize, Item<'a, W, usize, Mem<S>>, T>,
    F: PortableKernel<Mem<S>>
        + DeviceFunctor<Mem<S>, Index = usize, Outputs = Outputs<W, usize, Mem<S>>, Value = T>,
{
    parallel_scan_with(label, policy, Sum, writes, functor)
}

/// [`crate::parallel_scan_with`] in code generic over a [`PortableSpace`].
#[track_caller]
pub fn parallel_scan_with<'s, S, W, T, R, F>(
    label: &str,
    policy: RangePolicy<'s, S>,
    reducer: R,
    writes: W,
    functor: F,
) -> T
where
    S: PortableSpace,
    W: Writes<usize>,
    W::Parts: WriteParts<usize, Mem<S>> + DeviceWrites<usize, Mem<S>>,
    T: DeviceValue,
    R: Reducer<T> + DeviceReduction,
    F::Host: for<'a> ScanFunctor<usize, Item<'a, W, usize, Mem<S>>, T>,
    F: PortableKernel<Mem<S>>
        + DeviceFunctor<Mem<S>, Index = usize, Outputs = Outputs<W, usize, Mem<S>>, Value = T>,
{
    policy
        .space()
        .range_scan(label, policy, reducer, writes, functor)
}
