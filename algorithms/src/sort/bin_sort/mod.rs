//! [`BinSort`]: keys binned by a [`BinOp1D`] or [`BinOp3D`], the
//! permutation that orders the items by bin (stable: by index within a
//! bin, or by key and then index), the bins' counts and offsets, and that
//! permutation applied to any number of Views (Kokkos's `BinSort`): how
//! an MD code orders its atoms by cell.
//!
//! Every step is a kernel or an algorithm of the execution space, so
//! `BinSort` runs on Serial, Rayon and Cuda alike and gives the same
//! permutation on each.

mod kernels;
mod op;
mod space;

pub use kernels::*;
pub use op::*;
pub use space::*;
use space::{bounds_error, Indices};

use crate::AlgorithmError;
use granule_core::portable::parallel_for;
use granule_core::write::Offsets;
use granule_core::RangePolicy;
use granule_views::storage::{Storage, StorageMut};
use granule_views::{
    create_mirror_view_and_copy, deep_copy, Element, HostSpace, Layout, LayoutRight, SpaceCopy,
    View, View1, ViewBase,
};

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
