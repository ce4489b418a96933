//! BinSort's kernels, as `#[kernel]`s that every space runs through the
//! portable patterns: binning keys, heap-sorting within bins, the bins'
//! bounds and counts, the identity permutation and the gathers.

use granule_core::kernel::{device, kernel};
use granule_core::write::{Row, Segment};
use granule_views::{AtomicView, Element, LayoutStride, View1, ViewRef};

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
