//! `fill_random`: a View of uniform values, on every space.

use super::bits::{
    __GRANULE_DEVICE_fill_element_below, __GRANULE_DEVICE_fill_element_f32,
    __GRANULE_DEVICE_fill_element_f64,
};
use super::bits::{fill_element_below, fill_element_f32, fill_element_f64};
use super::range::{check_float, check_int};
use super::{RandomError, RandomPool};
use granule_core::kernel::kernel;
use granule_core::pattern::{parallel_for, ParallelForImpl};
use granule_core::write::ViewParts;
use granule_core::{ExecutionSpace, RangePolicy};
use granule_views::{Layout, MemorySpace, Pod, View1};

/// The element types [`fill_random`] fills, each with its range check and
/// its kernel. Sealed: the kernels are granule's.
pub trait RandomValue: Pod + sealed::Sealed {
    /// The `#[kernel]` that fills a View of this type.
    type Kernel: Sync;
    /// The kernel drawing from `start..end` with the pool key `key`, or
    /// the range's error naming `label`.
    fn kernel(label: &str, key: u64, start: Self, end: Self) -> Result<Self::Kernel, RandomError>;
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
    ($t:ty, $k:ident) => {
        impl sealed::Sealed for $t {}
        impl RandomValue for $t {
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
        }
    };
}

macro_rules! int_value {
    ($t:ty, $k:ident) => {
        impl sealed::Sealed for $t {}
        impl RandomValue for $t {
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
        }
    };
}

float_value!(f64, fill_f64);
float_value!(f32, fill_f32);
int_value!(u64, fill_u64);
int_value!(i64, fill_i64);
int_value!(u32, fill_u32);
int_value!(i32, fill_i32);

/// Fills `view` with values drawn uniformly from `start..end` (Kokkos's
/// `fill_random(exec, view, pool, begin, end)`), on `space`.
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
/// ```
/// use granule::prelude::*;
/// use granule::containers::random::{fill_random, XorShift64Pool};
/// let space = Serial;
/// let pool = XorShift64Pool::new("rng", 2024, space.concurrency())?;
/// let mut x = View1::<f64>::zeros("x", 1000)?;
/// fill_random(&space, &mut x, &pool, -1.0, 1.0)?;
/// assert!(x.to_vec().iter().all(|v| (-1.0..1.0).contains(v)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`RandomError::InvalidRange`] if `start..end` is empty or reversed, or
/// for floats not finite or wider than the type's largest value.
pub fn fill_random<S, T, L, M, P>(
    space: &S,
    view: &mut View1<T, L, M>,
    pool: &P,
    start: T,
    end: T,
) -> Result<(), RandomError>
where
    S: ExecutionSpace<MemorySpace = M>,
    T: RandomValue,
    M: MemorySpace,
    L: Layout,
    P: RandomPool,
    for<'a, 'v> S: ParallelForImpl<RangePolicy<'a, S>, ViewParts<'v, T, 1, M>, T::Kernel>,
{
    let kernel = T::kernel(pool.label(), pool.key(), start, end)?;
    let n = view.size();
    parallel_for(
        "granule::fill_random",
        RangePolicy::new(space, 0..n),
        view,
        kernel,
    );
    Ok(())
}
