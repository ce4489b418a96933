//! Packing a View into a message and unpacking a message into a View,
//! with granule kernels on the View's own execution space.
//!
//! A message is a View's elements in row-major index order. A View whose
//! memory already is that (contiguous, row-major) travels as it is; any
//! other View is gathered by a kernel on its space into a contiguous
//! buffer of that space, and a message is scattered into it by the same
//! kernel the other way. A device buffer then crosses to the host in one
//! copy, since no CUDA-aware MPI is assumed.

use crate::error::Result;
use granule_core::kernel::kernel;
use granule_core::pattern::{parallel_for, ParallelForImpl};
use granule_core::write::ViewParts;
use granule_core::{ExecutionSpace, MDRangePolicy, RangePolicy};
use granule_views::storage::{Storage, StorageMut};
use granule_views::{
    deep_copy, Element, HostSpace, Layout, LayoutRight, LayoutStride, MemorySpace, SpaceCopy, View,
    ViewBase, ViewRef,
};

/// Copies `from[i]` to the written element `i`: the packing kernel of
/// rank-1 Views (the others below differ only in their rank).
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn copy_rank1<T: Element>(i: usize, y: &mut T, from: &ViewRef<'_, T, 1, LayoutStride>) {
    *y = from[i];
}

/// The packing kernel of rank-2 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn copy_rank2<T: Element>(
    [i, j]: [usize; 2],
    y: &mut T,
    from: &ViewRef<'_, T, 2, LayoutStride>,
) {
    *y = from[[i, j]];
}

/// The packing kernel of rank-3 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn copy_rank3<T: Element>(
    [i, j, k]: [usize; 3],
    y: &mut T,
    from: &ViewRef<'_, T, 3, LayoutStride>,
) {
    *y = from[[i, j, k]];
}

/// The packing kernel of rank-4 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn copy_rank4<T: Element>(
    [i, j, k, l]: [usize; 4],
    y: &mut T,
    from: &ViewRef<'_, T, 4, LayoutStride>,
) {
    *y = from[[i, j, k, l]];
}

/// The packing kernel of rank-5 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn copy_rank5<T: Element>(
    [i, j, k, l, m]: [usize; 5],
    y: &mut T,
    from: &ViewRef<'_, T, 5, LayoutStride>,
) {
    *y = from[[i, j, k, l, m]];
}

/// The packing kernel of rank-6 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn copy_rank6<T: Element>(
    [i, j, k, l, m, n]: [usize; 6],
    y: &mut T,
    from: &ViewRef<'_, T, 6, LayoutStride>,
) {
    *y = from[[i, j, k, l, m, n]];
}

/// The packing kernels, for the NVRTC check of every generated kernel.
#[doc(hidden)]
pub const KERNELS: &[&granule_core::kernel::DeviceKernel] = {
    use granule_core::kernel::KernelSource;
    &[
        <copy_rank1<'static, f64> as KernelSource>::KERNEL,
        <copy_rank2<'static, f64> as KernelSource>::KERNEL,
        <copy_rank3<'static, f64> as KernelSource>::KERNEL,
        <copy_rank4<'static, f64> as KernelSource>::KERNEL,
        <copy_rank5<'static, f64> as KernelSource>::KERNEL,
        <copy_rank6<'static, f64> as KernelSource>::KERNEL,
    ]
};

/// Execution spaces that pack and unpack rank-`R` Views of `T` with a
/// kernel: every space, for ranks 1 to 6 (an MDRange stops at 6; send a
/// rank-7 or rank-8 View a subview at a time) and, on Cuda, for the
/// device scalar types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot pack a rank-{R} View of `{T}` for MPI",
    note = "packing kernels exist for ranks 1 to 6 (send a rank-7 or rank-8 View a subview at a time) and, on Cuda, for the primitive number types"
)]
pub trait Pack<T: Element, const R: usize>: ExecutionSpace {
    /// Copies every element of `from` to the same index of `into` (same
    /// extents), with a kernel on this space. Asynchronous on a device
    /// space, like any kernel.
    fn copy_elements<S, L>(
        &self,
        from: ViewRef<'_, T, R, LayoutStride, Self::MemorySpace>,
        into: &mut ViewBase<S, R, L>,
    ) where
        S: StorageMut<Elem = T, Space = Self::MemorySpace>,
        L: Layout;
}

impl<X, T, M> Pack<T, 1> for X
where
    X: ExecutionSpace<MemorySpace = M>,
    T: Element,
    M: MemorySpace,
    for<'a, 'v, 'k> X:
        ParallelForImpl<RangePolicy<'a, X>, ViewParts<'v, T, 1, M>, copy_rank1<'k, T, M>>,
{
    fn copy_elements<S, L>(
        &self,
        from: ViewRef<'_, T, 1, LayoutStride, M>,
        into: &mut ViewBase<S, 1, L>,
    ) where
        S: StorageMut<Elem = T, Space = M>,
        L: Layout,
    {
        let policy = RangePolicy::new(self, 0..from.size());
        parallel_for("granule_mpi::pack", policy, into, copy_rank1(&from));
    }
}

macro_rules! pack_rank {
    ($($r:literal => $k:ident),*) => { $(
        impl<X, T, M> Pack<T, $r> for X
        where
            X: ExecutionSpace<MemorySpace = M>,
            T: Element,
            M: MemorySpace,
            for<'a, 'v, 'k> X: ParallelForImpl<
                MDRangePolicy<'a, X, $r>,
                ViewParts<'v, T, $r, M>,
                $k<'k, T, M>,
            >,
        {
            fn copy_elements<S, L>(
                &self,
                from: ViewRef<'_, T, $r, LayoutStride, M>,
                into: &mut ViewBase<S, $r, L>,
            ) where
                S: StorageMut<Elem = T, Space = M>,
                L: Layout,
            {
                let policy = MDRangePolicy::new(self, [0; $r], from.extents());
                parallel_for("granule_mpi::pack", policy, into, $k(&from));
            }
        }
    )* };
}

pack_rank!(2 => copy_rank2, 3 => copy_rank3, 4 => copy_rank4, 5 => copy_rank5, 6 => copy_rank6);

/// Whether the View's memory is its message order: no holes, row-major.
pub(crate) fn row_major<S: Storage, const R: usize, L: Layout>(view: &ViewBase<S, R, L>) -> bool {
    view.is_contiguous() && (view.size() <= 1 || LayoutRight::accepts(view.mapping()))
}

/// `view`'s elements in row-major order in a contiguous buffer: on the
/// View's space (`Buffer::OnSpace`) when the host can read it there,
/// else downloaded to the host (`Buffer::Host`). A row-major device View
/// is downloaded as it is, in one copy; any other View is gathered by a
/// kernel on `space` first.
pub(crate) fn pack<X, S, T, M, const R: usize, L>(
    space: &X,
    view: &ViewBase<S, R, L>,
) -> Result<Packed<T, R, M>>
where
    X: Pack<T, R, MemorySpace = M>,
    S: Storage<Elem = T, Space = M>,
    T: Element,
    M: MemorySpace,
    L: Layout,
    HostSpace: SpaceCopy<M>,
{
    let host_reads = M::IS_HOST_ACCESSIBLE;
    if row_major(view) && !host_reads {
        let mut host = View::<T, R>::zeros(view.label(), view.extents())?;
        deep_copy(&mut host, view)?;
        return Ok(Packed(Buffer::Host(host)));
    }
    let mut buffer = View::zeros_in(space.memory_space(), view.label(), view.extents())?;
    space.copy_elements(view.strided(), &mut buffer);
    space.fence();
    if host_reads {
        return Ok(Packed(Buffer::OnSpace(buffer)));
    }
    let mut host = View::<T, R>::zeros(view.label(), view.extents())?;
    deep_copy(&mut host, &buffer)?;
    Ok(Packed(Buffer::Host(host)))
}

/// A buffer for a message to a rank-`R` View of `space` with `extents`:
/// of the space when the host can receive into it there, else of the
/// host.
pub(crate) fn landing<X, T, M, const R: usize>(
    space: &X,
    label: &str,
    extents: [usize; R],
) -> Result<Packed<T, R, M>>
where
    X: ExecutionSpace<MemorySpace = M>,
    T: Element,
    M: MemorySpace,
{
    Ok(Packed(match M::IS_HOST_ACCESSIBLE {
        true => Buffer::OnSpace(View::zeros_in(space.memory_space(), label, extents)?),
        false => Buffer::Host(View::zeros(label, extents)?),
    }))
}

/// A View's elements in row-major order, ready to send: made only by this
/// crate, which reads them on the host ([`Packed::as_slice`]) only where
/// the host can ([`MemorySpace::IS_HOST_ACCESSIBLE`]); nothing outside it
/// can wrap a device buffer in one.
pub struct Packed<T: Element, const R: usize, M: MemorySpace>(Buffer<T, R, M>);

/// Where a [`Packed`] message is.
enum Buffer<T: Element, const R: usize, M: MemorySpace> {
    /// Gathered into a buffer of the View's own space, which the host
    /// reads.
    OnSpace(View<T, R, LayoutRight, M>),
    /// Downloaded to the host.
    Host(View<T, R>),
}

impl<T: Element, const R: usize, M: MemorySpace> Packed<T, R, M> {
    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Buffer::OnSpace(v) => {
                assert!(M::IS_HOST_ACCESSIBLE);
                // SAFETY: `OnSpace` is only made for a space the host can
                // read (`pack` and `landing` check `IS_HOST_ACCESSIBLE`,
                // whose contract says the host may dereference its
                // pointers, and the assertion above says so again); a
                // fresh LayoutRight View is contiguous, `size()` elements
                // from its base, and `&self` keeps writers away.
                unsafe { std::slice::from_raw_parts(v.as_ptr(), v.size()) }
            }
            Buffer::Host(v) => v
                .as_slice()
                .expect("a freshly allocated LayoutRight View is contiguous"),
        }
    }

    /// Writes these elements into `view`, a View of `space` with the same
    /// extents: one copy for a row-major View, else a scatter by a kernel
    /// on `space` (after one upload, for a buffer on the host and a View
    /// on a device).
    pub(crate) fn unpack_into<X, S, L>(&self, space: &X, view: &mut ViewBase<S, R, L>) -> Result<()>
    where
        X: Pack<T, R, MemorySpace = M>,
        S: StorageMut<Elem = T, Space = M>,
        L: Layout,
        M: SpaceCopy<HostSpace> + SpaceCopy<M>,
    {
        match &self.0 {
            Buffer::OnSpace(buffer) if row_major(view) => deep_copy(view, buffer)?,
            Buffer::Host(message) if row_major(view) => deep_copy(view, message)?,
            Buffer::OnSpace(buffer) => {
                space.copy_elements(buffer.strided(), view);
                space.fence();
            }
            Buffer::Host(message) => {
                let mut buffer = View::<T, R, LayoutRight, M>::zeros_in(
                    space.memory_space(),
                    view.label(),
                    view.extents(),
                )?;
                deep_copy(&mut buffer, message)?;
                space.copy_elements(buffer.strided(), view);
                // Before the uploaded buffer is dropped.
                space.fence();
            }
        }
        Ok(())
    }

    /// The elements, to receive into.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.0 {
            Buffer::OnSpace(v) => {
                assert!(M::IS_HOST_ACCESSIBLE);
                let size = v.size();
                // SAFETY: as in `as_slice`, and `&mut self` borrows the
                // buffer uniquely for the slice's life.
                unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr(), size) }
            }
            Buffer::Host(v) => v
                .as_mut_slice()
                .expect("a freshly allocated LayoutRight View is contiguous"),
        }
    }
}
