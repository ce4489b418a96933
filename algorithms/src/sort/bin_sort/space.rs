//! What BinSort asks of an execution space ([`BinSortSpace`]) and the
//! kernels it runs there per key and element type ([`BinKeys`],
//! [`Permute`]), for every portable space with the algorithms.

use super::kernels::*;
use super::op::*;
use crate::reduce::ReduceImpl;
use crate::scan::{exclusive_scan, Identity, ScanImpl};
use crate::sort::{sort_by_key, SortImpl};
use crate::{max_element, AlgorithmError};
use granule_core::kernel::{DeviceScalar, DeviceValue};
use granule_core::portable::parallel_for;
use granule_core::reducer::{MaxLoc, Sum, ValLocScalar};
use granule_core::write::Offsets;
use granule_core::{PortableSpace, RangePolicy, SegmentError};
use granule_views::{Element, LayoutRight, LayoutStride, MemorySpace, View, View1, ViewRef};

/// Device Views of `u32` on a space: the permutation, bins and counts.
pub(super) type Indices<M> = View1<u32, LayoutRight, M>;

/// What [`BinSort`](super::BinSort) runs on an execution space besides the binning: the
/// identity permutation, the stable sort of (bin, index) pairs, the
/// bins' counts (atomics) and offsets (a scan), the largest bin. Every
/// portable space with those algorithms has it (Serial, Rayon, Cuda);
/// its kernels run through the portable patterns, so [`BinKeys`] and
/// [`Permute`] hold for every key and element type on such a space, in
/// generic code too.
pub trait BinSortSpace: PortableSpace {
    /// `p[i] = i`.
    #[doc(hidden)]
    fn iota(&self, p: &mut Indices<Self::MemorySpace>);
    /// `counts[b]` = the number of `b` in `bins`.
    #[doc(hidden)]
    fn count(&self, counts: &mut Indices<Self::MemorySpace>, bins: &Indices<Self::MemorySpace>);
    /// Sorts `bins`, carrying `perm`, stably.
    #[doc(hidden)]
    fn sort_pairs(
        &self,
        bins: &mut Indices<Self::MemorySpace>,
        perm: &mut Indices<Self::MemorySpace>,
    ) -> Result<(), AlgorithmError>;
    /// The exclusive scan of `counts` into `offsets`.
    #[doc(hidden)]
    fn offsets(
        &self,
        counts: &Indices<Self::MemorySpace>,
        offsets: &mut Indices<Self::MemorySpace>,
    ) -> Result<(), AlgorithmError>;
    /// The largest bin and its (last) index.
    #[doc(hidden)]
    fn largest(&self, bins: &Indices<Self::MemorySpace>) -> Option<(usize, u32)>;
}

impl<X, M> BinSortSpace for X
where
    X: PortableSpace<MemorySpace = M>
        + SortImpl<u32, u32>
        + ScanImpl<u32, u32, Sum, Identity>
        + ReduceImpl<u32, ValLocScalar<u32, usize>, MaxLoc, crate::reduce::adapt::Loc>,
    M: MemorySpace,
{
    fn iota(&self, p: &mut Indices<M>) {
        parallel_for(
            "BinSort::iota",
            RangePolicy::new(self, 0..p.size()),
            p,
            iota_u32(),
        );
    }
    fn count(&self, counts: &mut Indices<M>, bins: &Indices<M>) {
        let atomic = counts
            .atomic()
            .expect("u32 Views are aligned for their atomics");
        let policy = RangePolicy::new(self, 0..bins.size());
        parallel_for("BinSort::count", policy, (), count_bins(&atomic, bins));
    }
    fn sort_pairs(
        &self,
        bins: &mut Indices<M>,
        perm: &mut Indices<M>,
    ) -> Result<(), AlgorithmError> {
        sort_by_key(self, bins, perm)
    }
    fn offsets(&self, counts: &Indices<M>, offsets: &mut Indices<M>) -> Result<(), AlgorithmError> {
        exclusive_scan(self, counts, offsets, Sum, None).map(|_| ())
    }
    fn largest(&self, bins: &Indices<M>) -> Option<(usize, u32)> {
        max_element(self, bins)
    }
}

/// The binning kernels of keys `K` of rank `R` on an execution space.
pub trait BinKeys<K: BinKey, const R: usize>: BinSortSpace {
    /// `bins[i]` = the bin of key `i` under `axes` (one per dimension).
    #[doc(hidden)]
    fn bin(
        &self,
        keys: ViewRef<'_, K, R, LayoutStride, Self::MemorySpace>,
        axes: &[AxisParts],
        bins: &mut Indices<Self::MemorySpace>,
    );
    /// Orders each bin's segment of `order` by the keys.
    #[doc(hidden)]
    fn order_within(
        &self,
        keys: ViewRef<'_, K, R, LayoutStride, Self::MemorySpace>,
        bounds: &Offsets<'_, Self::MemorySpace>,
        order: &mut Indices<Self::MemorySpace>,
    ) -> Result<(), AlgorithmError>;
}

macro_rules! bin_keys {
    ($($t:ty => $one:ident, $three:ident, $order_one:ident, $order_three:ident);* $(;)?) => { $(
        impl<X, M> BinKeys<$t, 1> for X
        where
            X: BinSortSpace<MemorySpace = M>,
            M: MemorySpace,
        {
            fn bin(&self, keys: ViewRef<'_, $t, 1, LayoutStride, M>, axes: &[AxisParts], bins: &mut Indices<M>) {
                let (min, max, scale, n) = axes[0];
                let policy = RangePolicy::new(self, 0..keys.size());
                parallel_for("BinSort::bin", policy, bins, $one(&keys, min, max, scale, n));
            }
            fn order_within(
                &self,
                keys: ViewRef<'_, $t, 1, LayoutStride, M>,
                bounds: &Offsets<'_, M>,
                order: &mut Indices<M>,
            ) -> Result<(), AlgorithmError> {
                let policy = RangePolicy::new(self, 0..bounds.count());
                let segments = bounds.segments(order).map_err(bounds_error)?;
                parallel_for("BinSort::sort_within_bins", policy, segments, $order_one(&keys));
                Ok(())
            }
        }

        impl<X, M> BinKeys<$t, 2> for X
        where
            X: BinSortSpace<MemorySpace = M>,
            M: MemorySpace,
        {
            fn bin(&self, keys: ViewRef<'_, $t, 2, LayoutStride, M>, axes: &[AxisParts], bins: &mut Indices<M>) {
                let [a, b, c] = [axes[0], axes[1], axes[2]];
                let policy = RangePolicy::new(self, 0..keys.extent(0));
                let k = $three(&keys, a.0, b.0, c.0, a.1, b.1, c.1, a.2, b.2, c.2, a.3, b.3, c.3);
                parallel_for("BinSort::bin", policy, bins, k);
            }
            fn order_within(
                &self,
                keys: ViewRef<'_, $t, 2, LayoutStride, M>,
                bounds: &Offsets<'_, M>,
                order: &mut Indices<M>,
            ) -> Result<(), AlgorithmError> {
                let policy = RangePolicy::new(self, 0..bounds.count());
                let segments = bounds.segments(order).map_err(bounds_error)?;
                parallel_for("BinSort::sort_within_bins", policy, segments, $order_three(&keys));
                Ok(())
            }
        }
    )* };
}

bin_keys!(
    f64 => bin_1d_f64, bin_3d_f64, order_1d_f64, order_3d_f64;
    f32 => bin_1d_f32, bin_3d_f32, order_1d_f32, order_3d_f32;
    i32 => bin_1d_i32, bin_3d_i32, order_1d_i32, order_3d_i32;
    i64 => bin_1d_i64, bin_3d_i64, order_1d_i64, order_3d_i64;
    u32 => bin_1d_u32, bin_3d_u32, order_1d_u32, order_3d_u32;
    u64 => bin_1d_u64, bin_3d_u64, order_1d_u64, order_3d_u64;
);

/// Applying a [`BinSort`](super::BinSort)'s permutation to a View of `T` of rank `R`
/// (1, or 2 with rows moved whole) on an execution space.
pub trait Permute<T: Element, const R: usize>: BinSortSpace {
    /// `into[i] = from[perm[i]]` (rows for rank 2).
    #[doc(hidden)]
    fn gather(
        &self,
        from: ViewRef<'_, T, R, LayoutStride, Self::MemorySpace>,
        perm: &Indices<Self::MemorySpace>,
        into: &mut View<T, R, LayoutRight, Self::MemorySpace>,
    );
}

impl<X, M, T> Permute<T, 1> for X
where
    X: BinSortSpace<MemorySpace = M>,
    M: MemorySpace,
    T: Element + DeviceScalar + DeviceValue,
{
    fn gather(
        &self,
        from: ViewRef<'_, T, 1, LayoutStride, M>,
        perm: &Indices<M>,
        into: &mut View<T, 1, LayoutRight, M>,
    ) {
        let policy = RangePolicy::new(self, 0..perm.size());
        parallel_for("BinSort::sort", policy, into, gather(&from, perm));
    }
}

impl<X, M, T> Permute<T, 2> for X
where
    X: BinSortSpace<MemorySpace = M>,
    M: MemorySpace,
    T: Element + DeviceScalar + DeviceValue,
{
    fn gather(
        &self,
        from: ViewRef<'_, T, 2, LayoutStride, M>,
        perm: &Indices<M>,
        into: &mut View<T, 2, LayoutRight, M>,
    ) {
        let policy = RangePolicy::new(self, 0..perm.size());
        parallel_for("BinSort::sort", policy, into, gather_rows(&from, perm));
    }
}

/// The bins' bounds come from their counts' scan, so they rise and end
/// at the permutation's length: only their copy to the host can fail.
pub(super) fn bounds_error(e: SegmentError) -> AlgorithmError {
    match e {
        SegmentError::Copy(e) => AlgorithmError::View(e),
        other => panic!("BinSort's bin bounds are made valid, yet: {other}"),
    }
}
