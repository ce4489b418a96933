//! What a ScatterView does with its copies in each memory space: host
//! memory is combined in place; device memory through host mirrors.

use super::op::{ScatterOp, ScatterValue};
use granule_views::storage::StorageMut;
use granule_views::{
    deep_copy, HostSpace, Layout, LayoutRight, MemorySpace, SpaceCopy, View, ViewBase, ViewError,
};

/// Memory spaces a [`ScatterView`](super::ScatterView) lives in:
/// [`HostSpace`], and `CudaSpace` with the `cuda` feature.
pub trait ScatterSpace: MemorySpace + sealed::Sealed {
    /// `dst[k] = op(dst[k], copy_0[k], .., copy_n[k])` in row-major order
    /// `k`, the copies `stride` elements apart in `buf`.
    #[doc(hidden)]
    fn combine_into<T, Op, S, const R: usize, L>(
        buf: &View<T, 1, LayoutRight, Self>,
        stride: usize,
        dst: &mut ViewBase<S, R, L>,
    ) -> Result<(), ViewError>
    where
        T: ScatterValue,
        Op: ScatterOp<T>,
        S: StorageMut<Elem = T, Space = Self>,
        L: Layout;

    /// Every element of `buf` set to `Op`'s identity.
    #[doc(hidden)]
    fn fill_identity<T: ScatterValue, Op: ScatterOp<T>>(
        buf: &mut View<T, 1, LayoutRight, Self>,
    ) -> Result<(), ViewError>;
}

mod sealed {
    pub trait Sealed {}
}

impl sealed::Sealed for HostSpace {}

impl ScatterSpace for HostSpace {
    fn combine_into<T, Op, S, const R: usize, L>(
        buf: &View<T, 1, LayoutRight, Self>,
        stride: usize,
        dst: &mut ViewBase<S, R, L>,
    ) -> Result<(), ViewError>
    where
        T: ScatterValue,
        Op: ScatterOp<T>,
        S: StorageMut<Elem = T, Space = Self>,
        L: Layout,
    {
        let all = buf.as_slice().expect("the copies are one contiguous View");
        combine::<T, Op, S, R, L>(all, stride, dst);
        Ok(())
    }

    fn fill_identity<T: ScatterValue, Op: ScatterOp<T>>(
        buf: &mut View<T, 1, LayoutRight, Self>,
    ) -> Result<(), ViewError> {
        buf.fill(Op::identity());
        Ok(())
    }
}

/// Every element of `buf`, in any memory space, set to `Op`'s identity
/// through one host View and one copy: what a new ScatterView's copies
/// start from, and a reset of them in memory host threads cannot write.
pub(super) fn fill_through_host<T, Op, M>(
    buf: &mut View<T, 1, LayoutRight, M>,
) -> Result<(), ViewError>
where
    T: ScatterValue,
    Op: ScatterOp<T>,
    M: SpaceCopy<HostSpace>,
{
    let mut host = View::<T, 1>::zeros(buf.label(), buf.size())?;
    host.fill(Op::identity());
    deep_copy(buf, &host)
}

/// The host combine: the last index fastest on both sides (`for_each_mut`
/// order is the copies' LayoutRight order).
fn combine<T, Op, S, const R: usize, L>(all: &[T], stride: usize, dst: &mut ViewBase<S, R, L>)
where
    T: ScatterValue,
    Op: ScatterOp<T>,
    S: StorageMut<Elem = T>,
    S::Space: granule_views::HostAccessible,
    L: Layout,
{
    let copies = all.len() / stride.max(1);
    let mut k = 0;
    dst.for_each_mut(|_, x| {
        let mut acc = *x;
        for c in 0..copies {
            acc = Op::combine(acc, all[c * stride + k]);
        }
        *x = acc;
        k += 1;
    });
}

#[cfg(feature = "cuda")]
mod cuda {
    use super::*;
    use granule_cuda::CudaSpace;

    impl sealed::Sealed for CudaSpace {}

    impl ScatterSpace for CudaSpace {
        fn combine_into<T, Op, S, const R: usize, L>(
            buf: &View<T, 1, LayoutRight, Self>,
            stride: usize,
            dst: &mut ViewBase<S, R, L>,
        ) -> Result<(), ViewError>
        where
            T: ScatterValue,
            Op: ScatterOp<T>,
            S: StorageMut<Elem = T, Space = Self>,
            L: Layout,
        {
            let mut copies = View::<T, 1>::zeros(buf.label(), buf.size())?;
            deep_copy(&mut copies, buf)?;
            let all = copies.as_slice().expect("a new View is contiguous");
            let mut host = View::<T, R>::zeros(dst.label(), dst.extents())?;
            deep_copy(&mut host, &*dst)?;
            combine::<T, Op, _, R, LayoutRight>(all, stride, &mut host);
            deep_copy(dst, &host)
        }

        fn fill_identity<T: ScatterValue, Op: ScatterOp<T>>(
            buf: &mut View<T, 1, LayoutRight, Self>,
        ) -> Result<(), ViewError> {
            fill_through_host::<T, Op, Self>(buf)
        }
    }
}
