//! The binnings: [`BinOp1D`] and [`BinOp3D`] over keys of a
//! [`BinKey`] type, each axis `bins` equal bins over `[min, max]`.

use super::space::BinKeys;
use crate::AlgorithmError;
use granule_views::{Element, LayoutRight, LayoutStride, View1, ViewRef};

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

/// The keys of a [`BinSort`](super::BinSort): element types whose value, as an `f64`,
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
/// last bin. A key outside `[min, max]` has no bin, and [`BinSort::new`](super::BinSort::new)
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
/// rank 2 for [`BinOp3D`]): how [`BinSort::new`](super::BinSort::new) computes each key's bin
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
