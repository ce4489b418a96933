//! Sorting: [`sort`] (radix sort of integer and float keys),
//! [`sort_by_key`] (keys carrying a values View), [`sort_by`] (stable
//! merge sort with a comparator), [`is_sorted`], [`is_sorted_by`].
//!
//! Every sort is stable. Float keys sort in [`total_cmp`](f64::total_cmp)
//! order (see [`RadixKey`]): `-NaN`, `-inf`, negatives, `-0.0`, `+0.0`,
//! positives, `+inf`, `+NaN`.

mod bin_sort;
mod key;
#[cfg(feature = "cuda")]
mod merge_cuda;
mod merge_host;
#[cfg(feature = "cuda")]
mod radix_cuda;
mod radix_host;
mod radix_sampled;

#[doc(hidden)]
pub use bin_sort::{
    bin_1d_f32, bin_1d_f64, bin_1d_i32, bin_1d_i64, bin_1d_u32, bin_1d_u64, bin_3d_f32, bin_3d_f64,
    bin_3d_i32, bin_3d_i64, bin_3d_u32, bin_3d_u64, bin_of, count_bins, gather, gather_rows,
    iota_u32, AxisParts, KERNELS as BIN_SORT_KERNELS,
};
pub use bin_sort::{BinKey, BinKeys, BinOp, BinOp1D, BinOp3D, BinSort, BinSortSpace, Permute};
pub use key::RadixKey;
#[cfg(feature = "cuda")]
pub use radix_cuda::CudaRadixKey;

use crate::io::{same_len, Input, Output};
use crate::reduce::ReducePairsImpl;
use crate::AlgorithmError;
use granule_core::functor::BinaryFunctor;
use granule_core::reducer::LAnd;
use granule_core::ExecutionSpace;
use granule_views::storage::{Storage, StorageMut};
use granule_views::{Element, Layout, ViewBase};

/// How an execution space radix-sorts keys `K`, optionally carrying
/// values `V`. Implemented for Serial and Rayon (`radix_host/`) and,
/// with the `cuda` feature, for Cuda (`radix_cuda.rs`: keys of
/// `CudaRadixKey` types, values of device scalar types).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sort::SortImpl;
/// fn sorts<S: SortImpl<f32, u32>>(_: &S) {}
/// sorts(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no radix sort of these types",
    note = "the radix sort runs on Serial and Rayon, and on Cuda for u32, i32, f32, u64, i64 and f64 keys with values of a number type or bool"
)]
pub trait SortImpl<K, V>: ExecutionSpace {
    /// Sorts `keys` (stable), applying the same permutation to `values`
    /// when given (same length).
    fn radix_sort(
        &self,
        label: &str,
        keys: Output<'_, K, Self::MemorySpace>,
        values: Option<Output<'_, V, Self::MemorySpace>>,
    ) -> Result<(), AlgorithmError>;
}

/// How an execution space sorts with a comparator `C` ("less").
/// Implemented for Serial and Rayon, and for Cuda with a `#[kernel(binary)]`
/// comparator over a device scalar type (`merge_cuda.rs`).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sort::MergeSortImpl;
/// fn sorts<S: MergeSortImpl<(u8, f32), fn((u8, f32), (u8, f32)) -> bool>>(_: &S) {}
/// sorts(&Serial);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no comparison sort of these types",
    note = "on Cuda the elements are a number type or bool and the comparator a `#[kernel(binary)]` element function"
)]
pub trait MergeSortImpl<T, C>: ExecutionSpace {
    /// Sorts `data` stably by `less`.
    fn merge_sort(
        &self,
        label: &str,
        data: Output<'_, T, Self::MemorySpace>,
        less: &C,
    ) -> Result<(), AlgorithmError>;
}

/// Sorts `keys` in place, ascending and stable, by a radix sort; bits that
/// all keys share are skipped. On the host, global passes by the top
/// varying bits cut the keys into buckets that fit in cache, and each
/// bucket is sorted by its lower bits there (LSD); on Cuda, one LSD pass
/// per varying byte (Onesweep). Integers
/// sort by value; floats by [`total_cmp`](f64::total_cmp) (see
/// [`RadixKey`] for where NaN, ±inf and -0.0 land). The error is a failed
/// allocation of the temporary buffer (as long as the View).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sort;
/// let space = Rayon::new(2)?;
/// let mut x = View1::<f64, LayoutRight, _>::from_vec_in(space.memory_space(), "x", 6,
///     vec![2.5, f64::NAN, -0.0, f64::NEG_INFINITY, 0.0, -1.0])?;
/// sort(&space, &mut x)?;
/// let x = create_mirror_view_and_copy(&x)?.to_vec();
/// assert_eq!(x[..5], [f64::NEG_INFINITY, -1.0, -0.0, 0.0, 2.5]);
/// assert!(x[1..3].iter().zip([-1.0f64, -0.0]).all(|(a, b)| a.to_bits() == b.to_bits()));
/// assert!(x[5].is_nan());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sort<S, K, Sk, Lk>(space: &S, keys: &mut ViewBase<Sk, 1, Lk>) -> Result<(), AlgorithmError>
where
    S: SortImpl<K, K>,
    K: RadixKey,
    Sk: StorageMut<Elem = K, Space = S::MemorySpace>,
    Lk: Layout,
{
    space.radix_sort("sort", Output::of(keys), None)
}

/// Sorts `keys` as [`sort`] does and applies the same permutation to
/// `values` (stable: equal keys keep their values' order). The Views must
/// have the same length; otherwise an error, and nothing is written.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sort_by_key;
/// let mut k = View1::<u32>::from_vec("k", 5, vec![3, 1, 3, 0, 1])?;
/// let mut v = View1::<char>::from_vec("v", 5, vec!['a', 'b', 'c', 'd', 'e'])?;
/// sort_by_key(&Serial, &mut k, &mut v)?;
/// assert_eq!((k.to_vec(), v.to_vec()), (vec![0, 1, 1, 3, 3], vec!['d', 'b', 'e', 'a', 'c']));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sort_by_key<S, K, V, Sk, Lk, Sv, Lv>(
    space: &S,
    keys: &mut ViewBase<Sk, 1, Lk>,
    values: &mut ViewBase<Sv, 1, Lv>,
) -> Result<(), AlgorithmError>
where
    S: SortImpl<K, V>,
    K: RadixKey,
    V: Element,
    Sk: StorageMut<Elem = K, Space = S::MemorySpace>,
    Sv: StorageMut<Elem = V, Space = S::MemorySpace>,
    Lk: Layout,
    Lv: Layout,
{
    same_len(
        "sort_by_key",
        (keys.label(), keys.extent(0)),
        (values.label(), values.extent(0)),
    )?;
    space.radix_sort("sort_by_key", Output::of(keys), Some(Output::of(values)))
}

/// Sorts `data` stably by the comparator `less(a, b)` ("a before b"),
/// which must be a strict weak order. A parallel merge sort; the error is
/// a failed allocation of its temporary buffer. A comparator that panics
/// unwinds to the caller, leaving `data` a permutation of its elements.
/// Under a comparator that is not a strict weak order, `data` ends up
/// holding elements of its input in an unspecified order, not
/// necessarily each once, or the host spaces panic saying that the
/// comparator is not a strict weak order; every space stays free of data
/// races, since each output place has one writer.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::sort_by;
/// // by the last decimal digit, stable
/// let mut x = View1::<u32>::from_vec("x", 6, vec![21, 13, 11, 33, 2, 41])?;
/// sort_by(&Serial, &mut x, |a: u32, b: u32| a % 10 < b % 10)?;
/// assert_eq!(x.to_vec(), [21, 11, 41, 2, 13, 33]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sort_by<S, T, C, Sx, Lx>(
    space: &S,
    data: &mut ViewBase<Sx, 1, Lx>,
    less: C,
) -> Result<(), AlgorithmError>
where
    S: MergeSortImpl<T, C>,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sx: StorageMut<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    space.merge_sort("sort_by", Output::of(data), &less)
}

/// `less` by `<` (`PartialOrd`), the comparator of [`is_sorted`].
///
/// ```
/// use granule::algorithms::sort::PartialLess;
/// use granule::base::functor::BinaryFunctor;
/// assert!(PartialLess.call(1, 2) && !PartialLess.call(f64::NAN, 0.0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PartialLess;

impl<T: PartialOrd> BinaryFunctor<T, T> for PartialLess {
    type Output = bool;
    #[inline(always)]
    fn call(&self, a: T, b: T) -> bool {
        a < b
    }
}

/// `(i, (x[i], x[i+1])) -> !less(x[i+1], x[i])`: a pair in order.
///
/// ```
/// use granule::algorithms::sort::InOrder;
/// use granule::base::functor::BinaryFunctor;
/// let in_order = InOrder(|a: i32, b: i32| a < b);
/// assert!(in_order.call(0, (1, 1)) && !in_order.call(0, (2, 1)));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct InOrder<C>(pub C);

impl<T, C: BinaryFunctor<T, T, Output = bool>> BinaryFunctor<usize, (T, T)> for InOrder<C> {
    type Output = bool;
    #[inline(always)]
    fn call(&self, _i: usize, (a, b): (T, T)) -> bool {
        !self.0.call(b, a)
    }
}

/// Whether no element is less (`<`) than the one before it. With floats,
/// a NaN compares false both ways and so never breaks the order; the
/// output of [`sort`] is sorted in this sense.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::is_sorted;
/// let x = View1::<i32>::from_vec("x", 4, vec![1, 2, 2, 5])?;
/// assert!(is_sorted(&Serial, &x));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn is_sorted<S, T, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>) -> bool
where
    S: ReducePairsImpl<T, T, bool, LAnd, InOrder<PartialLess>>,
    T: Element + PartialOrd,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    is_sorted_by(space, x, PartialLess)
}

/// Whether no element is `less` than the one before it.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::is_sorted_by;
/// let x = View1::<i32>::from_vec("x", 4, vec![9, 7, 7, 1])?;
/// assert!(is_sorted_by(&Serial, &x, |a: i32, b: i32| a > b));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn is_sorted_by<S, T, C, Sx, Lx>(space: &S, x: &ViewBase<Sx, 1, Lx>, less: C) -> bool
where
    S: ReducePairsImpl<T, T, bool, LAnd, InOrder<C>>,
    T: Element,
    C: BinaryFunctor<T, T, Output = bool>,
    Sx: Storage<Elem = T, Space = S::MemorySpace>,
    Lx: Layout,
{
    let x = Input::of(x);
    if x.len() < 2 {
        return true;
    }
    let (a, b) = x.neighbours();
    space.reduce_pairs("is_sorted", a, b, &LAnd, &InOrder(less))
}

/// Frees the scratch buffers that the host sorts keep between calls, and
/// returns their bytes: the host pool's
/// [`release_kept`](granule_views::space::release_kept), under the name a
/// sort's caller looks for.
///
/// A radix sort of more than about a million keys on Serial or Rayon
/// works in a scratch buffer as large as its keys (and one as large as
/// its values). Freed, they go to the host pool that Views share, which
/// keeps up to [`POOL_BUFFERS`](granule_views::space::POOL_BUFFERS)
/// allocations and [`POOL_BYTES`](granule_views::space::POOL_BYTES) in
/// all, so that repeated sorts do not wait for the kernel to fault in and
/// clear fresh memory. Call this once no more large sorts follow and the
/// memory is wanted back; the next large sort allocates again.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{release_scratch, sort};
/// let space = Rayon::new(2)?;
/// let mut keys = View1::<u32>::from_fn("keys", 1 << 21, |i| (i as u32).wrapping_mul(2_654_435_761))?;
/// sort(&space, &mut keys)?;
/// let off = std::env::var_os("GRANULE_HUGE_PAGES").is_some_and(|v| v == "0");
/// if cfg!(target_os = "linux") && !off {
///     assert!(release_scratch() >= 4 * (1 << 21), "the sort's 8 MiB scratch was kept");
/// }
/// assert_eq!(release_scratch(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn release_scratch() -> usize {
    granule_views::space::release_kept()
}
