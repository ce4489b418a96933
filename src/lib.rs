//! # granule
//!
//! Kokkos-style performance portability for Rust. This umbrella crate
//! re-exports the framework's crates; `use granule::prelude::*` brings in
//! what kernels need.
//!
//! ```
//! use granule::prelude::*;
//! let x = View1::<f64>::from_fn("x", 8, |i| i as f64)?;
//! let mut y = View1::<f64>::zeros("y", 8)?;
//! deep_copy(&mut y, &x)?;
//! assert_eq!(y[7], 7.0);
//! # Ok::<(), ViewError>(())
//! ```
//!
//! ## The guide
//!
//! The [`guide`] is written for Kokkos users and tested like the code:
//! [Kokkos names](guide::kokkos) (every Kokkos concept and its granule
//! name, or "not yet"), [the write model](guide::write_model) (why a
//! kernel receives its element, chunk maps, atomic Views, what is
//! `unsafe`), [determinism](guide::determinism) of reductions and scans,
//! and [the Cuda path](guide::cuda) (translation, NVRTC, the emulator and
//! its race detector, synchronization points, environment variables).

pub mod guide;

pub use granule_views as views;

/// Scans, stream compaction, reductions and sorts on every space
/// (granule-algorithms).
pub use granule_algorithms as algorithms;

/// Kokkos's containers on every space: ScatterView, DualView,
/// UnorderedMap, random number pools, UniqueToken (granule-containers).
pub use granule_containers as containers;

/// Execution spaces, policies, patterns, reducers, teams, profiling
/// (granule-core): what Kokkos calls Kokkos Core, the base the views,
/// algorithms and containers build on.
///
/// It is `base` rather than `core` because a `core` here would shadow
/// Rust's built-in `core` crate wherever it is in scope: after
/// `use granule::*;`, a `core::mem::swap` path would look in granule-core.
///
/// ```
/// use granule::base::{RangePolicy, Schedule, Serial};
/// let p = RangePolicy::new(&Serial, 0..8).with_schedule(Schedule::Dynamic);
/// assert_eq!(p.schedule(), Schedule::Dynamic);
/// ```
pub use granule_core as base;
pub use granule_core::{profiling, reducer, Timer};

/// Programs generic over the execution space, `fn run<S: PortableSpace>(space: &S)`:
/// the patterns for `#[kernel]`s on any space (see
/// [`granule_core::portable`]).
///
/// ```
/// use granule::prelude::*;
/// use granule::portable::parallel_reduce;
///
/// #[kernel(reduce)]
/// fn sum_of(i: usize, acc: &mut f64, x: &View1<f64>) {
///     *acc += x[i];
/// }
///
/// fn total<S: PortableSpace>(space: &S) -> f64 {
///     let x = View1::from_fn_on(space, "x", 10, |i| i as f64).unwrap();
///     parallel_reduce("total", RangePolicy::new(space, 0..10), Sum, sum_of(&x))
/// }
/// assert_eq!(total(&Serial), 45.0);
/// assert_eq!(total(&DefaultHostExecutionSpace::default()), 45.0);
/// ```
pub use granule_core::portable;

/// Portable kernels: the device description a `#[kernel]` carries and the
/// traits tying its functor type to it (see [`granule_core::kernel`]).
pub use granule_core::kernel;
/// `#[device]`: a helper function or constant that `#[kernel]`s may call.
///
/// ```
/// use granule::prelude::*;
///
/// #[device]
/// fn square(v: f64) -> f64 {
///     v * v
/// }
///
/// #[kernel]
/// fn squares(i: usize, y: &mut f64) {
///     *y = square(i as f64);
/// }
///
/// let mut y = View1::<f64>::zeros("y", 4)?;
/// parallel_for("sq", RangePolicy::new(&Serial, 0..4), &mut y, squares());
/// assert_eq!(y.to_vec(), [0.0, 1.0, 4.0, 9.0]);
/// # Ok::<(), ViewError>(())
/// ```
pub use granule_macros::device;
/// `#[kernel]`: a portable kernel, run directly on host spaces and
/// translated to CUDA C++ for the device (see [`granule_core::kernel`]).
///
/// ```
/// use granule::prelude::*;
///
/// #[kernel]
/// fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
///     *y = a * x[i] + *y;
/// }
///
/// #[kernel(reduce)]
/// fn dot(i: usize, acc: &mut f64, x: &View1<f64>, y: &View1<f64>) {
///     *acc += x[i] * y[i];
/// }
///
/// let space = Serial;
/// let n = 1000;
/// let x = View1::<f64>::from_fn("x", n, |i| i as f64)?;
/// let mut y = View1::<f64>::zeros("y", n)?;
/// parallel_for("axpy", RangePolicy::new(&space, 0..n), &mut y, axpy(2.0, &x));
/// let d: f64 = parallel_reduce("dot", RangePolicy::new(&space, 0..n), Sum, dot(&x, &y));
/// assert_eq!(d, 2.0 * (0..n).map(|i| (i * i) as f64).sum::<f64>());
/// # Ok::<(), ViewError>(())
/// ```
pub use granule_macros::kernel;

/// The Rayon execution space (with the `rayon` feature, on by default).
#[cfg(feature = "rayon")]
pub use granule_rayon::{Rayon, RayonError};

/// The Cuda execution space and its device memory (with the `cuda`
/// feature): Views allocated in `CudaSpace`, copies and mirrors, limits,
/// `fence`, and `#[kernel]` dispatch.
///
/// ```
/// use granule::{Cuda, CudaSpace};
/// use granule::prelude::*;
/// let cuda = Cuda::emulated()?;
/// let mut d = View1::<i32, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "d", 3)?;
/// deep_copy(&mut d, &View1::<i32>::from_vec("h", 3, vec![1, 2, 3])?)?;
/// assert_eq!(create_mirror_view_and_copy(&d)?.as_view().to_vec(), [1, 2, 3]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "cuda")]
pub use granule_cuda::{Cuda, CudaSelection, CudaSpace};

/// Scale-out on MPI (with the `mpi` feature): View-aware communication,
/// `all_reduce` with granule's reducers, halo exchange (granule-mpi).
#[cfg(feature = "mpi")]
pub use granule_mpi as mpi;

/// The execution space a program gets unless it picks one: `Cuda` with
/// the `cuda` feature (a GPU, or the CPU emulator when
/// `GRANULE_CUDA=emulator`), else Rayon with the `rayon` feature (the
/// default), else Serial.
///
/// A program written against it runs unchanged on all three: kernels are
/// `#[kernel]`s, Views live in the space's memory
/// ([`DefaultMemorySpace`]), and the host reads results through mirrors.
///
/// ```
/// use granule::prelude::*;
///
/// #[kernel(reduce)]
/// fn sum_of(i: usize, x: &View1<f64>, acc: &mut f64) {
///     *acc += x[i];
/// }
///
/// let space = DefaultExecutionSpace::default();
/// let x = View1::<f64, LayoutRight, _>::from_fn_in(space.memory_space(), "x", 10, |i| i as f64)?;
/// let s: f64 = parallel_reduce("sum", RangePolicy::new(&space, 0..10), Sum, sum_of(&x));
/// assert_eq!(s, 45.0);
/// # Ok::<(), ViewError>(())
/// ```
#[cfg(feature = "cuda")]
pub type DefaultExecutionSpace = granule_cuda::Cuda;
/// The execution space a program gets unless it picks one: Rayon with the
/// `rayon` feature (the default), otherwise Serial.
#[cfg(all(feature = "rayon", not(feature = "cuda")))]
pub type DefaultExecutionSpace = granule_rayon::Rayon;
/// The execution space a program gets unless it picks one: Rayon with the
/// `rayon` feature (the default), otherwise Serial.
#[cfg(not(any(feature = "rayon", feature = "cuda")))]
pub type DefaultExecutionSpace = granule_core::Serial;

/// The host execution space a program gets unless it picks one (Kokkos's
/// `DefaultHostExecutionSpace`, the host backend enabled): Rayon with the
/// `rayon` feature (the default), Serial without it.
///
/// Only the `rayon` feature moves it; the `cuda` feature does not, so it
/// names a host space in every build: the space for work that stays on
/// the host (preparing input, checking results) beside a
/// [`DefaultExecutionSpace`] that may be a GPU. Its Views live in
/// `HostSpace`.
///
/// ```
/// use granule::prelude::*;
///
/// #[kernel]
/// fn twice(i: usize, y: &mut u64) {
///     *y = 2 * i as u64;
/// }
///
/// let host = DefaultHostExecutionSpace::default();
/// let mut y = View1::<u64>::zeros("y", 100)?;
/// parallel_for("twice", RangePolicy::new(&host, 0..100), &mut y, twice());
/// assert_eq!(y[99], 198);
/// # Ok::<(), ViewError>(())
/// ```
#[cfg(feature = "rayon")]
pub type DefaultHostExecutionSpace = granule_rayon::Rayon;
/// The host execution space a program gets unless it picks one (Kokkos's
/// `DefaultHostExecutionSpace`): Serial, since the `rayon` feature is
/// off; only that feature moves it.
#[cfg(not(feature = "rayon"))]
pub type DefaultHostExecutionSpace = granule_core::Serial;

/// Why [`default_space`] could not make the default execution space: with
/// the `cuda` feature, the device's error (no GPU or driver, and
/// `GRANULE_CUDA` not set to `emulator`); the host spaces cannot fail.
#[cfg(feature = "cuda")]
pub type DefaultSpaceError = granule_cuda::device_api::DeviceError;
/// Why [`default_space`] could not make the default execution space: the
/// host spaces cannot fail.
#[cfg(not(feature = "cuda"))]
pub type DefaultSpaceError = std::convert::Infallible;

/// The default execution space, or the error that says what to do: what
/// a program should call where `DefaultExecutionSpace::default()` would
/// panic (on Cuda, a machine with no GPU and no `GRANULE_CUDA=emulator`).
///
/// ```
/// match granule::default_space() {
///     Ok(space) => println!("running on {}", granule::prelude::ExecutionSpace::name(&space)),
///     Err(e) => eprintln!("{e}"), // one line, naming GRANULE_CUDA
/// }
/// ```
pub fn default_space() -> Result<DefaultExecutionSpace, DefaultSpaceError> {
    #[cfg(feature = "cuda")]
    return granule_cuda::Cuda::from_env();
    #[cfg(not(feature = "cuda"))]
    Ok(DefaultExecutionSpace::default())
}

/// Waits for the work queued on every execution space of the process
/// (Kokkos's `fence()`). Serial and Rayon finish each dispatch before it
/// returns, so only the Cuda spaces (every device, every `Cuda` value)
/// have anything to wait for.
///
/// # Panics
/// When a Cuda space reports a failed dispatch (a kernel's panic, an index
/// out of bounds) or a lost device; [`try_fence`] returns the error.
///
/// ```
/// use granule::prelude::*;
///
/// #[kernel]
/// fn square(i: usize, y: &mut u64) {
///     *y = (i * i) as u64;
/// }
///
/// let space = DefaultExecutionSpace::default();
/// let mut y = View1::<u64, LayoutRight, DefaultMemorySpace>::zeros_in(space.memory_space(), "y", 10)?;
/// parallel_for("square", RangePolicy::new(&space, 0..10), &mut y, square());
/// granule::fence(); // the kernel is done, whichever space ran it
/// assert_eq!(create_mirror_view_and_copy(&y)?.to_vec()[9], 81);
/// # Ok::<(), ViewError>(())
/// ```
pub fn fence() {
    if let Err(e) = try_fence() {
        panic!("granule::fence: {e}");
    }
}

/// [`fence`], returning a Cuda space's failure instead of panicking (with
/// the `cuda` feature, `granule_cuda::fence_all`'s error: every space is
/// waited for, and the first failure returned).
///
/// ```
/// granule::try_fence().unwrap(); // nothing was queued
/// ```
pub fn try_fence() -> Result<(), FenceError> {
    #[cfg(feature = "cuda")]
    return granule_cuda::fence_all();
    #[cfg(not(feature = "cuda"))]
    Ok(())
}

/// Why [`try_fence`] failed: with the `cuda` feature, a device's error (a
/// failed dispatch, a lost device); the host spaces cannot fail.
#[cfg(feature = "cuda")]
pub type FenceError = granule_cuda::device_api::DeviceError;
/// Why [`try_fence`] failed: the host spaces cannot fail.
#[cfg(not(feature = "cuda"))]
pub type FenceError = std::convert::Infallible;

/// The memory space of [`DefaultExecutionSpace`]: where its Views live
/// (device memory with the `cuda` feature, the host's otherwise).
///
/// ```
/// use granule::prelude::*;
/// let space = DefaultExecutionSpace::default();
/// let x: View1<f32, LayoutRight, DefaultMemorySpace> = View1::zeros_in(space.memory_space(), "x", 8)?;
/// assert_eq!(create_mirror_view_and_copy(&x)?.to_vec(), [0.0; 8]);
/// # Ok::<(), ViewError>(())
/// ```
pub type DefaultMemorySpace = <DefaultExecutionSpace as granule_core::ExecutionSpace>::MemorySpace;

/// Chunk maps: which thread of a scope owns which elements (see
/// [`granule_views::chunk`]), with [`owner_table`](chunk::owner_table).
pub use granule_views::chunk;
pub use granule_views::reshape_map;

/// The names most programs need: granule-core's prelude (Views, spaces,
/// policies, patterns, reducers, teams) plus copies, mirrors, chunk maps,
/// the default space, the kernel macros, and the common algorithms.
///
/// ```
/// use granule::prelude::*;
///
/// #[kernel]
/// fn odd(v: i64) -> bool {
///     v % 2 != 0
/// }
///
/// let space = Serial;
/// let x = View1::<i64>::from_fn("x", 10, |i| (i as i64 * 7) % 10)?;
/// assert_eq!(min_element(&space, &x), Some((0, 0)));
/// assert_eq!(max_element(&space, &x), Some((7, 9)));
/// let MinMaxElement { min, max } = minmax_element(&space, &x).unwrap();
/// assert_eq!((min, max), ((0, 0), (7, 9)));
/// assert_eq!(count_if(&space, &x, odd()), 5);
/// assert!(any_of(&space, &x, odd()) && !all_of(&space, &x, odd()));
/// assert!(none_of(&space, &x, |v: i64| v > 9));
/// let y = View1::<i64>::from_fn("y", 10, |i| (i as i64 * 7) % 10)?;
/// assert!(equal(&space, &x, &y));
/// assert!(!is_sorted_by(&space, &x, |a: i64, b: i64| a < b));
/// # Ok::<(), ViewError>(())
/// ```
pub mod prelude {
    pub use granule_core::prelude::*;
    pub use granule_views::chunk::{
        BlockToThread, BlockToWarp, ChunkMap, ChunkMut, ChunkRef, GridToBlock, GridToThread,
        GridToWarp, Map2D, ReshapeMap, ScopedIds, ThreadIds, WarpToThread,
    };
    pub use granule_views::reshape_map;
    pub use granule_views::{
        create_mirror, create_mirror_view, create_mirror_view_and_copy, deep_copy, fill, Element,
        Layout, MemorySpace, ALL,
    };

    #[cfg(feature = "rayon")]
    pub use crate::Rayon;
    #[cfg(feature = "cuda")]
    pub use crate::{Cuda, CudaSpace};
    pub use crate::{DefaultExecutionSpace, DefaultHostExecutionSpace, DefaultMemorySpace};
    pub use granule_macros::{device, kernel};

    pub use granule_algorithms::{
        all_of, any_of, compact_by_flags, copy_if, count_if, equal, exclusive_scan,
        exclusive_scan_in_place, inclusive_scan, inclusive_scan_in_place, is_sorted, is_sorted_by,
        max_element, min_element, minmax_element, none_of, partition_copy, reduce, remove_if, sort,
        sort_by, sort_by_key, transform_exclusive_scan, transform_inclusive_scan, transform_reduce,
        unique, AlgorithmError, MinMaxElement, PortableAlgorithms,
    };
}

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
