//! [`BinSort`]: keys binned by a [`BinOp1D`] or [`BinOp3D`], the
//! permutation that orders the items by bin (stable: by index within a
//! bin, or by key and then index), the bins' counts and offsets, and that
//! permutation applied to any number of Views (Kokkos's `BinSort`): how
//! an MD code orders its atoms by cell.
//!
//! Every step is a kernel or an algorithm of the execution space, so
//! `BinSort` runs on Serial, Rayon and Cuda alike and gives the same
//! permutation on each.

use super::{sort_by_key, SortImpl};
use crate::reduce::ReduceImpl;
use crate::scan::{exclusive_scan, Identity, ScanImpl};
use crate::{max_element, AlgorithmError};
use granule_core::kernel::{device, kernel, DeviceScalar, DeviceValue};
use granule_core::portable::parallel_for;
use granule_core::reducer::{MaxLoc, Sum, ValLocScalar};
use granule_core::write::{Offsets, Row, Segment};
use granule_core::{PortableSpace, RangePolicy, SegmentError};
use granule_views::storage::{Storage, StorageMut};
use granule_views::{
    create_mirror_view_and_copy, deep_copy, AtomicView, Element, HostSpace, Layout, LayoutRight,
    LayoutStride, MemorySpace, SpaceCopy, View, View1, ViewBase, ViewRef,
};

/// The bin of key `k` among `bins` equal bins over `[min, max]` (`scale`
/// is `bins / (max - min)`): `max` itself falls in the last bin; a key
/// outside the range (or NaN) gets `bins`, which no bin has.
#[device(crate = granule_core)]
pub fn bin_of(k: f64, min: f64, max: f64, scale: f64, bins: u32) -> u32 {
    if k >= min && k <= max {
        let b = ((k - min) * scale) as u32;
        if b >= bins {
            bins - 1
        } else {
            b
        }
    } else {
        bins
    }
}

/// A kernel that heap-sorts each bin's segment of the permutation by
/// `$before`: in place and in `m log m` steps for a bin of `m`, whatever
/// its size.
macro_rules! order_kernel {
    // The keys' type as tokens: a `ty` fragment would reach `#[kernel]`
    // as an opaque group it cannot read.
    ($name:ident, $before:ident, $doc:literal, $($keys:tt)*) => {
        #[doc = $doc]
        #[doc(hidden)]
        #[kernel(crate = granule_core)]
        pub fn $name(_b: usize, mut order: Segment<u32>, keys: &$($keys)*) {
            let m = order.len();
            let half = m / 2;
            // Steps 0..half build the heap (the item going last on top),
            // the next m take the top to the end, one at a time.
            for step in 0..half + m {
                let mut root = 0;
                let mut end = m;
                if step < half {
                    root = half - 1 - step;
                } else {
                    end = m - 1 - (step - half);
                    let top = order[0];
                    order[0] = order[end];
                    order[end] = top;
                }
                let mut sinking = true;
                while sinking {
                    let mut c = 2 * root + 1;
                    sinking = c < end;
                    if sinking {
                        if c + 1 < end && $before(keys, order[c], order[c + 1]) {
                            c += 1;
                        }
                        sinking = $before(keys, order[root], order[c]);
                    }
                    if sinking {
                        let up = order[c];
                        order[c] = order[root];
                        order[root] = up;
                        root = c;
                    }
                }
            }
        }
    };
}

macro_rules! bin_kernels {
    ($($t:ident => $one:ident, $three:ident, $before_one:ident, $before_three:ident,
        $order_one:ident, $order_three:ident);* $(;)?) => { $(
        /// The bin of key `i` of a [`BinOp1D`].
        #[doc(hidden)]
        #[kernel(crate = granule_core)]
        pub fn $one(
            i: usize,
            b: &mut u32,
            keys: &ViewRef<'_, $t, 1, LayoutStride>,
            min: f64,
            max: f64,
            scale: f64,
            bins: u32,
        ) {
            *b = bin_of(keys[i] as f64, min, max, scale, bins);
        }

        /// The bin of row `i` of a [`BinOp3D`]'s `[n, 3]` keys: `(bx * ny
        /// + by) * nz + bz`, or the bin count when a coordinate is outside.
        #[doc(hidden)]
        #[kernel(crate = granule_core)]
        #[allow(clippy::too_many_arguments)]
        pub fn $three(
            i: usize,
            b: &mut u32,
            keys: &ViewRef<'_, $t, 2, LayoutStride>,
            lo0: f64, lo1: f64, lo2: f64,
            hi0: f64, hi1: f64, hi2: f64,
            s0: f64, s1: f64, s2: f64,
            n0: u32, n1: u32, n2: u32,
        ) {
            let bx = bin_of(keys[[i, 0]] as f64, lo0, hi0, s0, n0);
            let by = bin_of(keys[[i, 1]] as f64, lo1, hi1, s1, n1);
            let bz = bin_of(keys[[i, 2]] as f64, lo2, hi2, s2, n2);
            if bx < n0 && by < n1 && bz < n2 {
                *b = (bx * n1 + by) * n2 + bz;
            } else {
                *b = n0 * n1 * n2;
            }
        }

        /// Whether item `p` goes before item `q` of a bin of a
        /// [`BinOp1D`] sorted within its bins: the smaller key first (as
        /// Kokkos's `BinOp1D` orders them), then the smaller index.
        #[doc(hidden)]
        #[device(crate = granule_core)]
        pub fn $before_one(keys: &ViewRef<'_, $t, 1, LayoutStride>, p: u32, q: u32) -> bool {
            let a = keys[p as usize];
            let b = keys[q as usize];
            a < b || (a == b && p < q)
        }

        /// Whether row `p` goes before row `q` of a bin of a [`BinOp3D`]
        /// sorted within its bins: Kokkos's `BinOp3D` order (the larger x
        /// first, then the larger y, then the larger z), then the smaller
        /// index.
        #[doc(hidden)]
        #[device(crate = granule_core)]
        pub fn $before_three(keys: &ViewRef<'_, $t, 2, LayoutStride>, p: u32, q: u32) -> bool {
            let (i, j) = (p as usize, q as usize);
            let mut before = p < q;
            let mut d = 3;
            while d > 0 {
                d -= 1;
                let a = keys[[i, d]];
                let b = keys[[j, d]];
                if a != b {
                    before = a > b;
                }
            }
            before
        }

        order_kernel!(
            $order_one,
            $before_one,
            "Bin `_b`'s items (its segment of the permutation) in the order of the rank-1 keys.",
            ViewRef<'_, $t, 1, LayoutStride>
        );
        order_kernel!(
            $order_three,
            $before_three,
            "Bin `_b`'s items in the order of the `[n, 3]` keys of a [`BinOp3D`].",
            ViewRef<'_, $t, 2, LayoutStride>
        );
    )* };
}

bin_kernels!(
    f64 => bin_1d_f64, bin_3d_f64, before_1d_f64, before_3d_f64, order_1d_f64, order_3d_f64;
    f32 => bin_1d_f32, bin_3d_f32, before_1d_f32, before_3d_f32, order_1d_f32, order_3d_f32;
    i32 => bin_1d_i32, bin_3d_i32, before_1d_i32, before_3d_i32, order_1d_i32, order_3d_i32;
    i64 => bin_1d_i64, bin_3d_i64, before_1d_i64, before_3d_i64, order_1d_i64, order_3d_i64;
    u32 => bin_1d_u32, bin_3d_u32, before_1d_u32, before_3d_u32, order_1d_u32, order_3d_u32;
    u64 => bin_1d_u64, bin_3d_u64, before_1d_u64, before_3d_u64, order_1d_u64, order_3d_u64;
);

/// Entry `b` of the bins' ends as offsets: where bin `b` starts, and for
/// `b` = the bin count, the end of the last bin.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn bin_bounds(b: usize, o: &mut usize, offsets: &View1<u32>, counts: &View1<u32>) {
    let bins = offsets.extent(0);
    if b < bins {
        *o = offsets[b] as usize;
    } else {
        *o = (offsets[bins - 1] + counts[bins - 1]) as usize;
    }
}

/// Index `i` as a `u32`: the permutation before it is sorted.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn iota_u32(i: usize, p: &mut u32) {
    *p = i as u32;
}

/// One count per item in its bin's counter.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn count_bins(i: usize, counts: &AtomicView<'_, u32, 1>, bins: &View1<u32>) {
    counts.add(bins[i] as usize, 1);
}

/// Element `perm[i]` of `from`, at `i`.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn gather<T: Element>(
    i: usize,
    y: &mut T,
    from: &ViewRef<'_, T, 1, LayoutStride>,
    perm: &View1<u32>,
) {
    *y = from[perm[i] as usize];
}

/// Row `perm[i]` of `from`, as row `i`.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn gather_rows<T: Element>(
    i: usize,
    mut y: Row<T, 2>,
    from: &ViewRef<'_, T, 2, LayoutStride>,
    perm: &View1<u32>,
) {
    let p = perm[i] as usize;
    for k in 0..y.len() {
        y[k] = from[[p, k]];
    }
}

/// BinSort's kernels, for the NVRTC check of every generated kernel:
/// the binning kernels, orderings within bins (of a float and an integer
/// key, rank 1 and 3), `bin_bounds`, `iota_u32`, `count_bins` as they are, then
/// `gather` and `gather_rows`, generic over the element.
#[doc(hidden)]
pub const KERNELS: &[&granule_core::kernel::DeviceKernel] = {
    use granule_core::kernel::KernelSource;
    &[
        <bin_1d_f64<'static> as KernelSource>::KERNEL,
        <bin_1d_f32<'static> as KernelSource>::KERNEL,
        <bin_1d_i32<'static> as KernelSource>::KERNEL,
        <bin_1d_i64<'static> as KernelSource>::KERNEL,
        <bin_1d_u32<'static> as KernelSource>::KERNEL,
        <bin_1d_u64<'static> as KernelSource>::KERNEL,
        <bin_3d_f64<'static> as KernelSource>::KERNEL,
        <bin_3d_f32<'static> as KernelSource>::KERNEL,
        <bin_3d_i32<'static> as KernelSource>::KERNEL,
        <bin_3d_i64<'static> as KernelSource>::KERNEL,
        <bin_3d_u32<'static> as KernelSource>::KERNEL,
        <bin_3d_u64<'static> as KernelSource>::KERNEL,
        <order_1d_f64<'static> as KernelSource>::KERNEL,
        <order_1d_i32<'static> as KernelSource>::KERNEL,
        <order_3d_f64<'static> as KernelSource>::KERNEL,
        <order_3d_u64<'static> as KernelSource>::KERNEL,
        <bin_bounds<'static> as KernelSource>::KERNEL,
        <iota_u32<'static> as KernelSource>::KERNEL,
        <count_bins<'static> as KernelSource>::KERNEL,
        <gather<'static, f64> as KernelSource>::KERNEL,
        <gather_rows<'static, f64> as KernelSource>::KERNEL,
    ]
};

/// One dimension of a binning: `bins` equal bins over `[min, max]`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Axis {
    min: f64,
    max: f64,
    scale: f64,
    bins: u32,
}

impl Axis {
    fn new(
        algorithm: &'static str,
        bins: usize,
        min: f64,
        max: f64,
    ) -> Result<Self, AlgorithmError> {
        let invalid = |reason: String| AlgorithmError::InvalidBins { algorithm, reason };
        if bins == 0 || bins >= u32::MAX as usize {
            return Err(invalid(format!(
                "{bins} bins: give 1 to {} bins",
                u32::MAX - 1
            )));
        }
        if !(min.is_finite() && max.is_finite() && min < max) {
            return Err(invalid(format!(
                "the range [{min}, {max}] must be finite, with min below max"
            )));
        }
        let scale = bins as f64 / (max - min);
        Ok(Axis {
            min,
            max,
            scale,
            bins: bins as u32,
        })
    }

    /// What the kernels take: min, max, scale, bins.
    fn parts(&self) -> AxisParts {
        (self.min, self.max, self.scale, self.bins)
    }
}

/// One dimension of a binning as the binning kernels take it: min, max,
/// `bins / (max - min)` and the bin count.
#[doc(hidden)]
pub type AxisParts = (f64, f64, f64, u32);

/// The keys of a [`BinSort`]: element types whose value, as an `f64`,
/// places it in a bin. Sealed: each has its binning kernels.
pub trait BinKey: Element + Copy + std::fmt::Display + sealed::Sealed {
    /// The key as the bins measure it.
    #[doc(hidden)]
    fn as_f64(self) -> f64;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! bin_key {
    ($($t:ty),*) => { $(
        impl sealed::Sealed for $t {}
        impl BinKey for $t {
            fn as_f64(self) -> f64 {
                self as f64
            }
        }
    )* };
}
bin_key!(f64, f32, i32, i64, u32, u64);

/// Equal bins over a range of rank-1 keys (Kokkos's `BinOp1D`): key `k`
/// goes to bin `floor((k - min) * bins / (max - min))`, and `max` to the
/// last bin. A key outside `[min, max]` has no bin, and [`BinSort::new`]
/// refuses it.
///
/// ```
/// use granule::algorithms::sort::BinOp1D;
/// assert!(BinOp1D::new(4, 0.0, 1.0).is_ok());
/// assert!(BinOp1D::new(0, 0.0, 1.0).is_err());
/// assert!(BinOp1D::new(4, 1.0, 1.0).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinOp1D {
    axis: Axis,
}

impl BinOp1D {
    /// `bins` equal bins over `[min, max]`.
    ///
    /// # Errors
    /// [`AlgorithmError::InvalidBins`] for no bins, `u32::MAX` or more, or
    /// a range that is empty, reversed or not finite.
    pub fn new(bins: usize, min: f64, max: f64) -> Result<Self, AlgorithmError> {
        Ok(BinOp1D {
            axis: Axis::new("BinOp1D", bins, min, max)?,
        })
    }

    /// The number of bins.
    pub fn bins(&self) -> usize {
        self.axis.bins as usize
    }
}

/// Equal bins over a box, for `[n, 3]` keys such as positions (Kokkos's
/// `BinOp3D`): each coordinate is binned as by [`BinOp1D`], and the bin
/// of row `i` is `(bx * ny + by) * nz + bz`, so bins run with z fastest.
///
/// ```
/// use granule::algorithms::sort::BinOp3D;
/// let cells = BinOp3D::new([4, 4, 2], [0.0; 3], [8.0, 8.0, 4.0])?;
/// assert_eq!(cells.bins(), 32);
/// # Ok::<(), granule::algorithms::AlgorithmError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinOp3D {
    axes: [Axis; 3],
}

impl BinOp3D {
    /// `bins[d]` equal bins over `[min[d], max[d]]` in each dimension.
    ///
    /// # Errors
    /// [`AlgorithmError::InvalidBins`] as [`BinOp1D::new`] for each
    /// dimension, or when the bins number `u32::MAX` or more in all.
    pub fn new(bins: [usize; 3], min: [f64; 3], max: [f64; 3]) -> Result<Self, AlgorithmError> {
        let axis = |d: usize| Axis::new("BinOp3D", bins[d], min[d], max[d]);
        let axes = [axis(0)?, axis(1)?, axis(2)?];
        let total = bins.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
        if total.is_none_or(|t| t >= u32::MAX as usize) {
            return Err(AlgorithmError::InvalidBins {
                algorithm: "BinOp3D",
                reason: format!("{bins:?} bins make more than {} in all", u32::MAX - 1),
            });
        }
        Ok(BinOp3D { axes })
    }

    /// The number of bins, over all three dimensions.
    pub fn bins(&self) -> usize {
        self.axes.iter().map(|a| a.bins as usize).product()
    }
}

/// A binning of keys of rank `R` (rank 1 for [`BinOp1D`], `[n, 3]`
/// rank 2 for [`BinOp3D`]): how [`BinSort::new`] computes each key's bin
/// on an execution space.
pub trait BinOp<K: BinKey, const R: usize> {
    /// The number of bins.
    fn total_bins(&self) -> usize;
    /// Writes the bin of every key (the bin count for a key outside).
    #[doc(hidden)]
    fn bin_keys<X: BinKeys<K, R>>(
        &self,
        space: &X,
        keys: ViewRef<'_, K, R, LayoutStride, X::MemorySpace>,
        bins: &mut View1<u32, LayoutRight, X::MemorySpace>,
    );
    /// The range of the bins, for an error message.
    #[doc(hidden)]
    fn range(&self) -> String;
}

impl<K: BinKey> BinOp<K, 1> for BinOp1D {
    fn total_bins(&self) -> usize {
        self.bins()
    }
    fn bin_keys<X: BinKeys<K, 1>>(
        &self,
        space: &X,
        keys: ViewRef<'_, K, 1, LayoutStride, X::MemorySpace>,
        bins: &mut View1<u32, LayoutRight, X::MemorySpace>,
    ) {
        space.bin(keys, &[self.axis.parts()], bins)
    }
    fn range(&self) -> String {
        format!("[{}, {}]", self.axis.min, self.axis.max)
    }
}

impl<K: BinKey> BinOp<K, 2> for BinOp3D {
    fn total_bins(&self) -> usize {
        self.bins()
    }
    fn bin_keys<X: BinKeys<K, 2>>(
        &self,
        space: &X,
        keys: ViewRef<'_, K, 2, LayoutStride, X::MemorySpace>,
        bins: &mut View1<u32, LayoutRight, X::MemorySpace>,
    ) {
        space.bin(keys, &self.axes.map(|a| a.parts()), bins)
    }
    fn range(&self) -> String {
        let r: Vec<String> = self
            .axes
            .iter()
            .map(|a| format!("[{}, {}]", a.min, a.max))
            .collect();
        r.join(" x ")
    }
}

/// Device Views of `u32` on a space: the permutation, bins and counts.
type Indices<M> = View1<u32, LayoutRight, M>;

/// What [`BinSort`] runs on an execution space besides the binning: the
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

/// Applying a [`BinSort`]'s permutation to a View of `T` of rank `R`
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

/// Items ordered by bin (Kokkos's `BinSort`): from keys and a binning,
/// the permutation that lists the items bin by bin (by index within a
/// bin, so every space gives the same one), each bin's count and offset,
/// and [`sort`](Self::sort), which applies the permutation to a View.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sort::{BinOp1D, BinSort};
/// let x = View1::<f64>::from_vec("x", 6, vec![0.9, 0.1, 0.5, 0.2, 1.0, 0.6])?;
/// let bins = BinSort::new(&Serial, &x, &BinOp1D::new(3, 0.0, 1.0)?)?;
/// assert_eq!(bins.permute_vector().to_vec(), [1, 3, 2, 5, 0, 4]);
/// assert_eq!((bins.bin_count().to_vec(), bins.bin_offsets().to_vec()), (vec![2, 2, 2], vec![0, 2, 4]));
/// let mut id = View1::<u64>::from_fn("id", 6, |i| 100 + i as u64)?;
/// bins.sort(&mut id)?;
/// assert_eq!(id.to_vec(), [101, 103, 102, 105, 100, 104]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct BinSort<X: BinSortSpace> {
    space: X,
    permute: Indices<X::MemorySpace>,
    counts: Indices<X::MemorySpace>,
    offsets: Indices<X::MemorySpace>,
}

impl<X: BinSortSpace> BinSort<X> {
    /// Bins `keys` (rank 1 for [`BinOp1D`], `[n, 3]` for [`BinOp3D`]) on
    /// `space` and orders the items by bin (Kokkos's constructor and
    /// `create_permute_vector` in one). On a device every step is queued
    /// there; the check that every key has a bin reads one value back.
    ///
    /// # Errors
    /// [`AlgorithmError::KeyOutsideBins`] naming the first key outside the
    /// binning's range (a key with no bin is an error, never a bin quietly
    /// chosen for it); [`AlgorithmError::View`] if a View cannot be made.
    pub fn new<K, const R: usize, S, L, Op>(
        space: &X,
        keys: &ViewBase<S, R, L>,
        op: &Op,
    ) -> Result<Self, AlgorithmError>
    where
        K: BinKey,
        X: BinKeys<K, R>,
        S: Storage<Elem = K, Space = X::MemorySpace>,
        L: Layout,
        Op: BinOp<K, R>,
        HostSpace: SpaceCopy<X::MemorySpace>,
    {
        Self::build(space, keys, op, false)
    }

    /// As [`new`](Self::new), and each bin's items ordered by their keys
    /// (Kokkos's `sort_within_bins = true`), in the order of Kokkos's bin
    /// operations: rank-1 keys ascending ([`BinOp1D`]), `[n, 3]` keys by
    /// x, then y, then z, each descending ([`BinOp3D`]); equal keys by
    /// index, so every space gives the same permutation. On a device the
    /// bins' bounds are checked on the host, one more read back.
    ///
    /// ```
    /// use granule::prelude::*;
    /// use granule::algorithms::sort::{BinOp1D, BinSort};
    /// let x = View1::<f64>::from_vec("x", 6, vec![0.9, 0.1, 0.5, 0.2, 0.05, 0.3])?;
    /// let op = BinOp1D::new(2, 0.0, 1.0)?;
    /// let bins = BinSort::new_sorted_within_bins(&Serial, &x, &op)?;
    /// assert_eq!(bins.permute_vector().to_vec(), [4, 1, 3, 5, 2, 0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn new_sorted_within_bins<K, const R: usize, S, L, Op>(
        space: &X,
        keys: &ViewBase<S, R, L>,
        op: &Op,
    ) -> Result<Self, AlgorithmError>
    where
        K: BinKey,
        X: BinKeys<K, R>,
        S: Storage<Elem = K, Space = X::MemorySpace>,
        L: Layout,
        Op: BinOp<K, R>,
        HostSpace: SpaceCopy<X::MemorySpace>,
    {
        Self::build(space, keys, op, true)
    }

    fn build<K, const R: usize, S, L, Op>(
        space: &X,
        keys: &ViewBase<S, R, L>,
        op: &Op,
        within: bool,
    ) -> Result<Self, AlgorithmError>
    where
        K: BinKey,
        X: BinKeys<K, R>,
        S: Storage<Elem = K, Space = X::MemorySpace>,
        L: Layout,
        Op: BinOp<K, R>,
        HostSpace: SpaceCopy<X::MemorySpace>,
    {
        let (n, mem) = (keys.extent(0), space.memory_space());
        let mut bins = Indices::zeros_in(mem.clone(), "BinSort::bins", n)?;
        op.bin_keys(space, keys.strided(), &mut bins);
        if let Some((index, b)) = space.largest(&bins) {
            if b as usize >= op.total_bins() {
                return Err(outside(keys, index, op.range()));
            }
        }
        let mut counts = Indices::zeros_in(mem.clone(), "BinSort::bin_count", op.total_bins())?;
        space.count(&mut counts, &bins);
        let mut offsets = Indices::zeros_in(mem.clone(), "BinSort::bin_offsets", op.total_bins())?;
        space.offsets(&counts, &mut offsets)?;
        let mut permute = Indices::zeros_in(mem, "BinSort::permute_vector", n)?;
        space.iota(&mut permute);
        space.sort_pairs(&mut bins, &mut permute)?;
        if within {
            let total = op.total_bins();
            let mut ends = View1::<usize, LayoutRight, _>::zeros_in(
                space.memory_space(),
                "BinSort::bin_bounds",
                total + 1,
            )?;
            let policy = RangePolicy::new(space, 0..total + 1);
            parallel_for(
                "BinSort::bin_bounds",
                policy,
                &mut ends,
                bin_bounds(&offsets, &counts),
            );
            let bounds = Offsets::new(&ends).map_err(bounds_error)?;
            space.order_within(keys.strided(), &bounds, &mut permute)?;
        }
        Ok(BinSort {
            space: space.clone(),
            permute,
            counts,
            offsets,
        })
    }

    /// Item `permute_vector[j]` goes to place `j` (Kokkos's
    /// `get_permute_vector`).
    pub fn permute_vector(&self) -> &Indices<X::MemorySpace> {
        &self.permute
    }

    /// The number of items of each bin (Kokkos's `get_bin_count`).
    pub fn bin_count(&self) -> &Indices<X::MemorySpace> {
        &self.counts
    }

    /// Where each bin starts in the sorted order (Kokkos's
    /// `get_bin_offsets`): the exclusive scan of the counts.
    pub fn bin_offsets(&self) -> &Indices<X::MemorySpace> {
        &self.offsets
    }

    /// Puts `view`'s items in bin order: element (rank 1) or row (rank 2)
    /// `permute_vector[j]` moves to `j` (Kokkos's `sort(view)`).
    ///
    /// # Errors
    /// [`AlgorithmError::LengthMismatch`] when the View's first extent is
    /// not the number of keys; [`AlgorithmError::View`] if the temporary
    /// copy cannot be made or copied back.
    pub fn sort<T, const R: usize, S, L>(
        &self,
        view: &mut ViewBase<S, R, L>,
    ) -> Result<(), AlgorithmError>
    where
        T: Element,
        X: Permute<T, R>,
        S: StorageMut<Elem = T, Space = X::MemorySpace>,
        L: Layout,
        X::MemorySpace: SpaceCopy<X::MemorySpace>,
    {
        if view.extent(0) != self.permute.size() {
            return Err(AlgorithmError::length_mismatch(
                "BinSort::sort",
                (view.label(), view.extent(0)),
                (self.permute.label(), self.permute.size()),
            ));
        }
        let mem = self.space.memory_space();
        let mut sorted =
            View::<T, R, LayoutRight, X::MemorySpace>::zeros_in(mem, view.label(), view.extents())?;
        self.space
            .gather(view.strided(), &self.permute, &mut sorted);
        deep_copy(view, &sorted)?;
        Ok(())
    }
}

/// The bins' bounds come from their counts' scan, so they rise and end
/// at the permutation's length: only their copy to the host can fail.
fn bounds_error(e: SegmentError) -> AlgorithmError {
    match e {
        SegmentError::Copy(e) => AlgorithmError::View(e),
        other => panic!("BinSort's bin bounds are made valid, yet: {other}"),
    }
}

/// The error for key `index` of `keys`, read back for the message.
fn outside<K, const R: usize, S, L>(
    keys: &ViewBase<S, R, L>,
    index: usize,
    range: String,
) -> AlgorithmError
where
    K: BinKey,
    S: Storage<Elem = K>,
    L: Layout,
    HostSpace: SpaceCopy<S::Space>,
{
    let key = match create_mirror_view_and_copy(keys) {
        Ok(host) => {
            let host = host.as_view();
            let parts: Vec<String> = (0..keys.size() / keys.extent(0).max(1))
                .filter_map(|k| {
                    let mut idx = [0; R];
                    idx[0] = index;
                    if R > 1 {
                        idx[1] = k;
                    }
                    host.get(idx).map(|v| v.to_string())
                })
                .collect();
            if parts.len() == 1 {
                parts[0].clone()
            } else {
                format!("({})", parts.join(", "))
            }
        }
        Err(e) => format!("(unreadable: {e})"),
    };
    AlgorithmError::KeyOutsideBins {
        algorithm: "BinSort::new",
        keys: keys.label().to_string(),
        index,
        key,
        range,
    }
}
