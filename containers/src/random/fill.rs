//! `fill_random`: a View of uniform values, on every space.

use super::bits::{fill_element_below, fill_element_f32, fill_element_f64};
use super::block::{fill_block_f32, fill_block_f64};
use super::range::{check_float, check_int};
use super::{RandomError, RandomPool};
use granule_core::kernel::kernel;
use granule_core::pattern::parallel_for;
use granule_core::{ExecutionSpace, RangePolicy, Serial};
use granule_views::storage::StorageMut;
use granule_views::{Element, HostSpace, Layout, MemorySpace, ViewBase};
use parking_lot::Mutex;

/// The pattern label of every `fill_random` dispatch.
const LABEL: &str = "granule::fill_random";

/// Elements per work item of the host spaces' block fill: 128 KiB of f64,
/// enough to amortize a dispatch, small enough to balance two threads.
const BLOCK: usize = 16 * 1024;

/// The element types [`fill_random`] fills, each with its range check and
/// its kernel. Sealed: the kernels are granule's.
pub trait RandomValue: Element + sealed::Sealed {
    /// The start of a range given by its end alone (`fill_random`'s
    /// `range` form, `0..end`).
    #[doc(hidden)]
    const ZERO: Self;
    /// The `#[kernel]` that fills a View of this type.
    type Kernel: Sync;
    /// The kernel drawing from `start..end` with the pool key `key`, or
    /// the range's error naming `label`.
    fn kernel(label: &str, key: u64, start: Self, end: Self) -> Result<Self::Kernel, RandomError>;
    /// Element `index` of the fill of `start..end` with key `key` (a
    /// range [`kernel`](Self::kernel) accepted), bit for bit the kernel's.
    #[doc(hidden)]
    fn element(key: u64, index: u64, start: Self, end: Self) -> Self;
    /// Elements `first..first + out.len()` of that fill: the host spaces'
    /// fill of a contiguous block.
    #[doc(hidden)]
    fn fill_block(out: &mut [Self], key: u64, first: u64, start: Self, end: Self) {
        for (j, y) in out.iter_mut().enumerate() {
            *y = Self::element(key, first + j as u64, start, end);
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// The `fill_random` kernel of f64 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn fill_f64(i: usize, y: &mut f64, key: u64, lo: f64, hi: f64) {
    *y = fill_element_f64(key, i as u64, lo, hi);
}

/// The `fill_random` kernel of f32 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn fill_f32(i: usize, y: &mut f32, key: u64, lo: f32, hi: f32) {
    *y = fill_element_f32(key, i as u64, lo, hi);
}

/// The `fill_random` kernel of u64 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn fill_u64(i: usize, y: &mut u64, key: u64, lo: u64, span: u64) {
    *y = lo.wrapping_add(fill_element_below(key, i as u64, span));
}

/// The `fill_random` kernel of i64 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn fill_i64(i: usize, y: &mut i64, key: u64, lo: i64, span: u64) {
    *y = lo.wrapping_add(fill_element_below(key, i as u64, span) as i64);
}

/// The `fill_random` kernel of u32 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn fill_u32(i: usize, y: &mut u32, key: u64, lo: u32, span: u64) {
    *y = lo.wrapping_add(fill_element_below(key, i as u64, span) as u32);
}

/// The `fill_random` kernel of i32 Views.
#[doc(hidden)]
#[kernel(crate = granule_core)]
pub fn fill_i32(i: usize, y: &mut i32, key: u64, lo: i32, span: u64) {
    *y = lo.wrapping_add(fill_element_below(key, i as u64, span) as i32);
}

macro_rules! float_value {
    ($t:ty, $k:ident, $element:ident, $block:ident) => {
        impl sealed::Sealed for $t {}
        impl RandomValue for $t {
            const ZERO: $t = 0.0;
            type Kernel = $k<'static>;
            fn kernel(
                label: &str,
                key: u64,
                start: $t,
                end: $t,
            ) -> Result<$k<'static>, RandomError> {
                check_float(label, start, end, (end - start).is_finite())?;
                Ok($k(key, start, end))
            }
            fn element(key: u64, index: u64, start: $t, end: $t) -> $t {
                $element(key, index, start, end)
            }
            fn fill_block(out: &mut [$t], key: u64, first: u64, start: $t, end: $t) {
                $block(out, key, first, start, end)
            }
        }
    };
}

macro_rules! int_value {
    ($t:ty, $k:ident) => {
        impl sealed::Sealed for $t {}
        impl RandomValue for $t {
            const ZERO: $t = 0;
            type Kernel = $k<'static>;
            fn kernel(
                label: &str,
                key: u64,
                start: $t,
                end: $t,
            ) -> Result<$k<'static>, RandomError> {
                check_int(label, start, end, start < end)?;
                // end - start, in u64: exact for every pair of this type
                // (at most 2^64 - 1 for i64).
                let span = (end as i128 - start as i128) as u64;
                Ok($k(key, start, span))
            }
            // A block is the plain loop over elements: a 64-bit modulo per
            // element, which no vector unit has.
            fn element(key: u64, index: u64, start: $t, end: $t) -> $t {
                let span = (end as i128 - start as i128) as u64;
                start.wrapping_add(fill_element_below(key, index, span) as $t)
            }
        }
    };
}

float_value!(f64, fill_f64, fill_element_f64, fill_block_f64);
float_value!(f32, fill_f32, fill_element_f32, fill_block_f32);
int_value!(u64, fill_u64);
int_value!(i64, fill_i64);
int_value!(u32, fill_u32);
int_value!(i32, fill_i32);

/// The ranges [`fill_random`] draws from, as Kokkos's two forms: an end
/// alone (`fill_random(view, pool, range)`, values in `0..range`) or a
/// `start..end` (`fill_random(view, pool, begin, end)`).
pub trait FillRange<T: RandomValue> {
    /// The range's start and (exclusive) end.
    fn bounds(self) -> (T, T);
}

impl<T: RandomValue> FillRange<T> for T {
    fn bounds(self) -> (T, T) {
        (T::ZERO, self)
    }
}

impl<T: RandomValue> FillRange<T> for std::ops::Range<T> {
    fn bounds(self) -> (T, T) {
        (self.start, self.end)
    }
}

/// Fills `view` with values drawn uniformly from `range` (Kokkos's
/// `fill_random(view, pool, range)` and `fill_random(view, pool, begin,
/// end)`: `range` is an end, for `0..end`, or a `start..end`), on the
/// default execution space of the View's memory (Rayon, or Serial without
/// the `rayon` feature, for host Views; Cuda for device Views).
///
/// Element `i` is a function of the pool's seed and `i` alone, whatever
/// the pool's kind and size: a counter-based draw, state word `i` of the
/// pool's key (one SplitMix64 output; the word an
/// [`XorShift64Pool`](super::XorShift64Pool)'s state `i` starts from),
/// followed only in the rare rejected case by that state's XorShift64*
/// draws. So the same seed fills the same values on Serial, Rayon and
/// Cuda, for any thread count, and a `#[kernel]` computes element `i`
/// itself with [`device::fill_element_f64`](super::device::fill_element_f64)
/// (`fill_element_f32`, and `fill_element_below` for the integers). Use
/// [`renewed`](super::XorShift64Pool::renewed) pools for successive fills
/// that must differ.
///
/// Integers are exactly uniform (rejection, no modulo bias); floats are
/// `start + (end - start) * u`, u a multiple of 2^-53 (2^-24 for f32) in
/// [0, 1), drawn again when rounding reaches `end`.
///
/// Any rank-1 View or subview is filled. The host spaces fill a
/// contiguous one in blocks of 16 Ki elements, one work item each, with
/// the floats' draws vectorized by AVX-512 or AVX2 where the CPU has them
/// (detected at run time; the values do not change), and a strided one
/// element by element; Cuda runs one kernel.
///
/// ```
/// use granule::prelude::*;
/// use granule::containers::random::{fill_random, XorShift64Pool};
/// let pool = XorShift64Pool::new(&Serial, 2024);
/// let mut x = View1::<f64>::zeros("x", 1000)?;
/// fill_random(&mut x, &pool, -1.0..1.0)?;
/// assert!(x.to_vec().iter().all(|v| (-1.0..1.0).contains(v)));
/// let mut die = View1::<u32>::zeros("die", 100)?;
/// fill_random(&mut die, &pool, 6)?; // 0..6
/// assert!(die.to_vec().iter().all(|v| *v < 6));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`RandomError::InvalidRange`] if the range is empty or reversed, or
/// for floats not finite or wider than the type's largest value.
pub fn fill_random<T, St, L, P>(
    view: &mut ViewBase<St, 1, L>,
    pool: &P,
    range: impl FillRange<T>,
) -> Result<(), RandomError>
where
    T: RandomValue,
    St: StorageMut<Elem = T>,
    St::Space: FillMemorySpace,
    <St::Space as FillMemorySpace>::Space: FillRandomSpace<T, MemorySpace = St::Space>,
    L: Layout,
    P: RandomPool,
{
    fill_random_on(&<St::Space as FillMemorySpace>::space(), view, pool, range)
}

/// [`fill_random`] on `space` (Kokkos's `fill_random(exec, view, pool,
/// ..)`), for a View of its memory.
///
/// ```
/// use granule::prelude::*;
/// use granule::containers::random::{fill_random_on, XorShift64Pool};
/// let space = Serial;
/// let pool = XorShift64Pool::new(&space, 2024);
/// let mut x = View1::<i64>::zeros("x", 1000)?;
/// fill_random_on(&space, &mut x, &pool, -5..5)?;
/// assert!(x.to_vec().iter().all(|v| (-5..5).contains(v)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`fill_random`].
pub fn fill_random_on<S, T, St, L, P>(
    space: &S,
    view: &mut ViewBase<St, 1, L>,
    pool: &P,
    range: impl FillRange<T>,
) -> Result<(), RandomError>
where
    S: FillRandomSpace<T>,
    T: RandomValue,
    St: StorageMut<Elem = T, Space = S::MemorySpace>,
    L: Layout,
    P: RandomPool,
{
    let (start, end) = range.bounds();
    let kernel = T::kernel(pool.label(), pool.key(), start, end)?;
    space.fill(
        view,
        Draw {
            key: pool.key(),
            start,
            end,
            kernel,
        },
    );
    Ok(())
}

/// The memory spaces whose Views [`fill_random`] fills without being
/// given a space: each on its default execution space (Kokkos's
/// `View::execution_space`).
pub trait FillMemorySpace: MemorySpace {
    /// The execution space that fills this memory.
    type Space: ExecutionSpace<MemorySpace = Self>;
    /// That space's default instance.
    fn space() -> Self::Space;
}

impl FillMemorySpace for HostSpace {
    #[cfg(feature = "rayon")]
    type Space = granule_rayon::Rayon;
    #[cfg(not(feature = "rayon"))]
    type Space = Serial;
    fn space() -> Self::Space {
        Self::Space::default()
    }
}

#[cfg(feature = "cuda")]
impl FillMemorySpace for granule_cuda::CudaSpace {
    type Space = granule_cuda::Cuda;
    /// The default Cuda space.
    ///
    /// # Panics
    /// As `Cuda::default()`, when no device (or emulator) can be opened.
    fn space() -> granule_cuda::Cuda {
        granule_cuda::Cuda::default()
    }
}

/// What a fill draws: the pool's key and the range, checked, and the
/// element kernel that draws them.
#[doc(hidden)]
pub struct Draw<T: RandomValue> {
    key: u64,
    start: T,
    end: T,
    // Only a device space runs the element kernel; the host spaces fill
    // blocks of the same values.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    kernel: T::Kernel,
}

/// The execution spaces [`fill_random`] runs on, each in its own way:
/// the host spaces fill a contiguous View block by block with the widest
/// vector instructions the CPU has (a strided one element by element),
/// Cuda runs the element kernel. The values are the same everywhere.
pub trait FillRandomSpace<T: RandomValue>: ExecutionSpace {
    /// Fills `view` with `draw`'s elements.
    #[doc(hidden)]
    fn fill<St, L>(&self, view: &mut ViewBase<St, 1, L>, draw: Draw<T>)
    where
        St: StorageMut<Elem = T, Space = Self::MemorySpace>,
        L: Layout;
}

/// The host spaces' fill (Serial and Rayon, the same code): a contiguous
/// View in blocks of [`BLOCK`] elements, one work item each, handed out
/// one at a time (work stealing on Rayon; Serial runs them in order). A
/// block's slice sits behind its own, never contended, lock, so the work
/// items own disjoint slices in safe code. A strided View is filled
/// element by element.
macro_rules! host_fill {
    ($space:ty) => {
        impl<T: RandomValue> FillRandomSpace<T> for $space {
            fn fill<St, L>(&self, view: &mut ViewBase<St, 1, L>, draw: Draw<T>)
            where
                St: StorageMut<Elem = T, Space = HostSpace>,
                L: Layout,
            {
                let Draw {
                    key, start, end, ..
                } = draw;
                match view.as_mut_slice() {
                    Some(all) => {
                        let blocks: Vec<Mutex<&mut [T]>> =
                            all.chunks_mut(BLOCK).map(Mutex::new).collect();
                        let policy = RangePolicy::new(self, 0..blocks.len()).with_chunk_size(1);
                        parallel_for(LABEL, policy, (), |b: usize, ()| {
                            let mut block = blocks[b].lock();
                            T::fill_block(&mut block, key, (b * BLOCK) as u64, start, end);
                        });
                    }
                    None => {
                        let policy = RangePolicy::new(self, 0..view.size());
                        parallel_for(LABEL, policy, view, |i: usize, y: &mut T| {
                            *y = T::element(key, i as u64, start, end)
                        });
                    }
                }
            }
        }
    };
}

host_fill!(Serial);
#[cfg(feature = "rayon")]
host_fill!(granule_rayon::Rayon);

#[cfg(feature = "cuda")]
impl<T: RandomValue> FillRandomSpace<T> for granule_cuda::Cuda
where
    for<'a, 'v> granule_cuda::Cuda: granule_core::pattern::ParallelForImpl<
        RangePolicy<'a, granule_cuda::Cuda>,
        granule_core::write::ViewParts<'v, T, 1, granule_cuda::CudaSpace>,
        T::Kernel,
    >,
{
    fn fill<St, L>(&self, view: &mut ViewBase<St, 1, L>, draw: Draw<T>)
    where
        St: StorageMut<Elem = T, Space = granule_cuda::CudaSpace>,
        L: Layout,
    {
        let n = view.size();
        parallel_for(LABEL, RangePolicy::new(self, 0..n), view, draw.kernel);
    }
}
