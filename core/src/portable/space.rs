//! [`PortableSpace`]: one dispatch method per pattern and policy, for the
//! functors every space runs.

use crate::functor::{ForFunctor, ReduceFunctor, ScanFunctor};
use crate::kernel::{DeviceFunctor, DeviceReduction, DeviceValue, DeviceWrites, PortableKernel};
use crate::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
use crate::reducer::Reducer;
use crate::space::ExecutionSpace;
use crate::team::{LeagueIndex, TeamMember};
use crate::write::{WriteParts, Writes};
use granule_views::{MemorySpace, PortableMemory};

/// What work item `I` of writes `W` receives on the host, in memory `M`.
pub(super) type Item<'a, W, I, M> = <<W as Writes<I>>::Parts as WriteParts<I, M>>::Item<'a>;
/// What work item `I` of writes `W` receives on the device, in memory `M`.
pub(super) type Outputs<W, I, M> = <<W as Writes<I>>::Parts as DeviceWrites<I, M>>::Outputs;

/// An execution space a program can be generic over: every space of
/// granule is one (Serial, Rayon, Cuda).
///
/// Its methods are the dispatch of [`crate::portable`]'s patterns, which
/// call them; each takes a functor that is both a host functor of the
/// policy's index and the device description of a kernel on the space's
/// memory (`DeviceFunctor<Self::MemorySpace>`), as every `#[kernel]` is,
/// and written Views in the space's memory. Closures are host functors
/// only: a generic program writes its kernels as `#[kernel]`s, as a
/// program meant for a device space does anyway.
///
/// The memory space is a [`PortableMemory`], so Views of the space copy
/// to and from host memory and take `fill` with no further bound.
///
/// ```
/// use granule_core::prelude::*;
///
/// #[granule_macros::kernel(crate = granule_core)]
/// fn square(i: usize, y: &mut u64) {
///     *y = (i * i) as u64;
/// }
///
/// fn squares<S: PortableSpace>(space: &S, n: usize) -> Vec<u64> {
///     let mut y = View1::zeros_on(space, "y", n).unwrap();
///     granule_core::portable::parallel_for("sq", RangePolicy::new(space, 0..n), &mut y, square());
///     granule_views::create_mirror_view_and_copy(&y).unwrap().as_view().to_vec()
/// }
/// assert_eq!(squares(&Serial, 4), [0, 1, 4, 9]);
/// ```
pub trait PortableSpace:
    ExecutionSpace<MemorySpace: PortableMemory>
    + PortableDispatch<<Self as ExecutionSpace>::MemorySpace>
{
}

impl<S> PortableSpace for S where
    S: ExecutionSpace<MemorySpace: PortableMemory>
        + PortableDispatch<<S as ExecutionSpace>::MemorySpace>
{
}

/// The dispatch methods of a [`PortableSpace`] whose memory space is `M`.
///
/// `M` is a parameter rather than `M` so that each
/// space's impl states its bounds on its own memory space by name: rustc
/// does not normalize `<Serial as ExecutionSpace>::MemorySpace` inside
/// bounds that are needed to normalize it (the functor's item type is a
/// projection through the written parts), and would then find the
/// method's bounds unproven.
pub trait PortableDispatch<M: MemorySpace>: ExecutionSpace {
    /// `parallel_for` over a [`RangePolicy`].
    #[allow(clippy::type_complexity)]
    fn range_for<W, F>(&self, label: &str, policy: RangePolicy<'_, Self>, writes: W, f: F)
    where
        W: Writes<usize>,
        W::Parts: WriteParts<usize, M> + DeviceWrites<usize, M>,
        F::Host: for<'a> ForFunctor<usize, Item<'a, W, usize, M>>,
        F: PortableKernel<M>
            + DeviceFunctor<M, Index = usize, Outputs = Outputs<W, usize, M>, Value = ()>;

    /// `parallel_reduce` over a [`RangePolicy`], finalized.
    fn range_reduce<T, R, F>(
        &self,
        label: &str,
        policy: RangePolicy<'_, Self>,
        reducer: R,
        f: F,
    ) -> T
    where
        T: DeviceValue,
        R: Reducer<T> + DeviceReduction,
        F::Host: ReduceFunctor<usize, T>,
        F: PortableKernel<M> + DeviceFunctor<M, Index = usize, Outputs = (), Value = T>;

    /// `parallel_scan` over a [`RangePolicy`] under `reducer`: the total.
    fn range_scan<W, T, R, F>(
        &self,
        label: &str,
        policy: RangePolicy<'_, Self>,
        reducer: R,
        writes: W,
        f: F,
    ) -> T
    where
        W: Writes<usize>,
        W::Parts: WriteParts<usize, M> + DeviceWrites<usize, M>,
        T: DeviceValue,
        R: Reducer<T> + DeviceReduction,
        F::Host: for<'a> ScanFunctor<usize, Item<'a, W, usize, M>, T>,
        F: PortableKernel<M>
            + DeviceFunctor<M, Index = usize, Outputs = Outputs<W, usize, M>, Value = T>;

    /// `parallel_for` over an [`MDRangePolicy`] of rank `N`.
    fn mdrange_for<W, F, const N: usize>(
        &self,
        label: &str,
        policy: MDRangePolicy<'_, Self, N>,
        writes: W,
        f: F,
    ) where
        W: Writes<[usize; N]>,
        W::Parts: WriteParts<[usize; N], M> + DeviceWrites<[usize; N], M>,
        F::Host: for<'a> ForFunctor<[usize; N], Item<'a, W, [usize; N], M>>,
        F: PortableKernel<M>
            + DeviceFunctor<M, Index = [usize; N], Outputs = Outputs<W, [usize; N], M>, Value = ()>;

    /// `parallel_reduce` over an [`MDRangePolicy`] of rank `N`, finalized.
    fn mdrange_reduce<T, R, F, const N: usize>(
        &self,
        label: &str,
        policy: MDRangePolicy<'_, Self, N>,
        reducer: R,
        f: F,
    ) -> T
    where
        T: DeviceValue,
        R: Reducer<T> + DeviceReduction,
        F::Host: ReduceFunctor<[usize; N], T>,
        F: PortableKernel<M> + DeviceFunctor<M, Index = [usize; N], Outputs = (), Value = T>;

    /// `parallel_for` over a [`TeamPolicy`].
    fn team_for<W, F>(&self, label: &str, policy: TeamPolicy<'_, Self>, writes: W, f: F)
    where
        W: Writes<LeagueIndex>,
        W::Parts: WriteParts<LeagueIndex, M> + DeviceWrites<LeagueIndex, M>,
        F::Host: for<'a> ForFunctor<&'a TeamMember, Item<'a, W, LeagueIndex, M>>,
        F: PortableKernel<M>
            + DeviceFunctor<M, Index = TeamMember, Outputs = Outputs<W, LeagueIndex, M>, Value = ()>;

    /// `parallel_reduce` over a [`TeamPolicy`], finalized.
    fn team_reduce<T, R, F>(
        &self,
        label: &str,
        policy: TeamPolicy<'_, Self>,
        reducer: R,
        f: F,
    ) -> T
    where
        T: DeviceValue,
        R: Reducer<T> + DeviceReduction,
        F::Host: for<'a> ReduceFunctor<&'a TeamMember, T>,
        F: PortableKernel<M> + DeviceFunctor<M, Index = TeamMember, Outputs = (), Value = T>;
}

/// `impl PortableDispatch<$mem> for $space`: each method calls the pattern of
/// [`crate::pattern`], whose bounds the method's imply on that space
/// (the host spaces need the host functor, a device space the device
/// description). The same text for every space, hence a macro: the
/// backends invoke it for their spaces.
#[doc(hidden)]
#[macro_export]
macro_rules! impl_portable_space {
    ($space:ty, $mem:ty, host) => {
        $crate::impl_portable_space!(@impl $space, $mem, |f| $crate::kernel::PortableKernel::<$mem>::into_host(f));
    };
    ($space:ty, $mem:ty, device) => {
        $crate::impl_portable_space!(@impl $space, $mem, |f| f);
    };
    (@impl $space:ty, $mem:ty, |$f:ident| $functor:expr) => {
        const _: () = {
            use $crate::functor::{ForFunctor, ReduceFunctor, ScanFunctor};
            use $crate::kernel::{DeviceFunctor, DeviceReduction, DeviceValue, DeviceWrites, PortableKernel};
            use $crate::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
            use $crate::reducer::Reducer;
            use $crate::team::{LeagueIndex, TeamMember};
            use $crate::write::{WriteParts, Writes};
            type Item<'a, W, I, M> = <<W as Writes<I>>::Parts as WriteParts<I, M>>::Item<'a>;
            type Outputs<W, I, M> = <<W as Writes<I>>::Parts as DeviceWrites<I, M>>::Outputs;

            impl $crate::portable::PortableDispatch<$mem> for $space {
                #[track_caller]
                fn range_for<W, F>(&self, label: &str, policy: RangePolicy<'_, Self>, writes: W, f: F)
                where
                    W: Writes<usize>,
                    W::Parts: WriteParts<usize, $mem> + DeviceWrites<usize, $mem>,
                    F::Host: for<'a> ForFunctor<usize, Item<'a, W, usize, $mem>>,
                    F: PortableKernel<$mem>
                        + DeviceFunctor<$mem, Index = usize, Outputs = Outputs<W, usize, $mem>, Value = ()>,
                {
                    $crate::parallel_for(label, policy, writes, { let $f = f; $functor })
                }

                #[track_caller]
                fn range_reduce<T, R, F>(
                    &self,
                    label: &str,
                    policy: RangePolicy<'_, Self>,
                    reducer: R,
                    f: F,
                ) -> T
                where
                    T: DeviceValue,
                    R: Reducer<T> + DeviceReduction,
                    F::Host: ReduceFunctor<usize, T>,
                    F: PortableKernel<$mem>
                        + DeviceFunctor<$mem, Index = usize, Outputs = (), Value = T>,
                {
                    $crate::parallel_reduce(label, policy, reducer, { let $f = f; $functor })
                }

                #[track_caller]
                fn range_scan<W, T, R, F>(
                    &self,
                    label: &str,
                    policy: RangePolicy<'_, Self>,
                    reducer: R,
                    writes: W,
                    f: F,
                ) -> T
                where
                    W: Writes<usize>,
                    W::Parts: WriteParts<usize, $mem> + DeviceWrites<usize, $mem>,
                    T: DeviceValue,
                    R: Reducer<T> + DeviceReduction,
                    F::Host: for<'a> ScanFunctor<usize, Item<'a, W, usize, $mem>, T>,
                    F: PortableKernel<$mem>
                        + DeviceFunctor<$mem, Index = usize, Outputs = Outputs<W, usize, $mem>, Value = T>,
                {
                    $crate::parallel_scan_with(label, policy, reducer, writes, { let $f = f; $functor })
                }

                #[track_caller]
                fn mdrange_for<W, F, const N: usize>(
                    &self,
                    label: &str,
                    policy: MDRangePolicy<'_, Self, N>,
                    writes: W,
                    f: F,
                ) where
                    W: Writes<[usize; N]>,
                    W::Parts: WriteParts<[usize; N], $mem> + DeviceWrites<[usize; N], $mem>,
                    F::Host: for<'a> ForFunctor<[usize; N], Item<'a, W, [usize; N], $mem>>,
                    F: PortableKernel<$mem>
                        + DeviceFunctor<
                            $mem,
                            Index = [usize; N],
                            Outputs = Outputs<W, [usize; N], $mem>,
                            Value = (),
                        >,
                {
                    $crate::parallel_for(label, policy, writes, { let $f = f; $functor })
                }

                #[track_caller]
                fn mdrange_reduce<T, R, F, const N: usize>(
                    &self,
                    label: &str,
                    policy: MDRangePolicy<'_, Self, N>,
                    reducer: R,
                    f: F,
                ) -> T
                where
                    T: DeviceValue,
                    R: Reducer<T> + DeviceReduction,
                    F::Host: ReduceFunctor<[usize; N], T>,
                    F: PortableKernel<$mem>
                        + DeviceFunctor<$mem, Index = [usize; N], Outputs = (), Value = T>,
                {
                    $crate::parallel_reduce(label, policy, reducer, { let $f = f; $functor })
                }

                #[track_caller]
                fn team_for<W, F>(&self, label: &str, policy: TeamPolicy<'_, Self>, writes: W, f: F)
                where
                    W: Writes<LeagueIndex>,
                    W::Parts: WriteParts<LeagueIndex, $mem> + DeviceWrites<LeagueIndex, $mem>,
                    F::Host: for<'a> ForFunctor<&'a TeamMember, Item<'a, W, LeagueIndex, $mem>>,
                    F: PortableKernel<$mem>
                        + DeviceFunctor<
                            $mem,
                            Index = TeamMember,
                            Outputs = Outputs<W, LeagueIndex, $mem>,
                            Value = (),
                        >,
                {
                    $crate::parallel_for(label, policy, writes, { let $f = f; $functor })
                }

                #[track_caller]
                fn team_reduce<T, R, F>(
                    &self,
                    label: &str,
                    policy: TeamPolicy<'_, Self>,
                    reducer: R,
                    f: F,
                ) -> T
                where
                    T: DeviceValue,
                    R: Reducer<T> + DeviceReduction,
                    F::Host: for<'a> ReduceFunctor<&'a TeamMember, T>,
                    F: PortableKernel<$mem>
                        + DeviceFunctor<$mem, Index = TeamMember, Outputs = (), Value = T>,
                {
                    $crate::parallel_reduce(label, policy, reducer, { let $f = f; $functor })
                }
            }
        };
    };
}
