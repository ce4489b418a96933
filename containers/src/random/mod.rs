//! Random number pools (Kokkos's `Kokkos_Random.hpp`): XorShift64* and
//! XorShift1024* generators seeded by the user, and [`fill_random`] on
//! every space. Closures on the host spaces draw through the generators'
//! methods (below); `#[kernel]`s, which also run on Cuda, draw through
//! the XorShift64* functions of [`device`] and the XorShift1024* ones of
//! [`device1024`], which give the same bits.
//!
//! ```
//! use granule::prelude::*;
//! use granule::containers::random::{RandomGenerator, RandomPool, XorShift64Pool};
//! let space = Serial;
//! let n = 1000;
//! let pool = XorShift64Pool::new("darts", 7, n)?;
//! let hits: u64 = parallel_reduce("pi", RangePolicy::new(&space, 0..n), Sum, |i, acc: &mut u64| {
//!     let mut g = pool.get_state(i);
//!     let (x, y) = (g.drand(), g.drand());
//!     *acc += u64::from(x * x + y * y < 1.0);
//!     pool.free_state(g);
//! });
//! let pi = 4.0 * hits as f64 / n as f64;
//! assert!((pi - std::f64::consts::PI).abs() < 0.3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Differences from Kokkos
//! Kokkos keeps the pool's states in memory: `get_state()` locks whichever
//! state is free for the calling thread, and `free_state` writes the
//! advanced state back. Which work item gets which state depends on the
//! threads' timing, so Kokkos's numbers are not reproducible run to run,
//! and the states are shared mutable data.
//!
//! granule's write model forbids shared mutable state between work items,
//! and its spaces promise the same bits on every space. So here a state is
//! a *function* of the seed and an index: `get_state(i)` computes state `i`
//! (SplitMix64 of a counter, see `bits.rs`), the work item owns the
//! generator it gets, and `free_state` only ends its use. The work item
//! chooses the index, normally its own (or a team's league rank, or a
//! `UniqueToken` id), so the same seed gives the same numbers for the same
//! work item on Serial, Rayon and Cuda, whatever the thread count.
//!
//! The price: a pool does not advance. Asking for state `i` again, in the
//! same or a later dispatch, gives state `i`'s numbers again. A work item
//! that needs many numbers draws them all from its one generator; a
//! program that draws in several dispatches uses
//! [`renewed`](XorShift64Pool::renewed) pools, whose streams are
//! independent of the earlier ones. `num_states` bounds the indices, as
//! Kokkos's pool size bounds the concurrent users.
//!
//! Independence: state words are SplitMix64 outputs of distinct counters
//! (a bijective mix of `key + GOLDEN * counter`), the standard way to seed
//! the xorshift family (Vigna); the tests check uniformity (chi-square) and
//! the correlation of neighbouring states' streams.

mod bits;
mod block;
pub mod device;
pub mod device1024;
mod draws;
mod error;
mod fill;
mod pool;
mod range;
#[cfg(test)]
mod tests;

pub use error::RandomError;
pub use fill::{fill_random, FillRandomSpace, RandomValue};

/// The `#[kernel]`s behind [`fill_random`], one per element type, named
/// here for compile checks of their device code (NVRTC).
pub mod kernels {
    pub use super::fill::{fill_f32, fill_f64, fill_i32, fill_i64, fill_u32, fill_u64};
    use granule_core::kernel::{DeviceKernel, KernelSource};

    /// Their device descriptions.
    pub const KERNELS: &[&DeviceKernel] = &[
        <fill_f64 as KernelSource>::KERNEL,
        <fill_f32 as KernelSource>::KERNEL,
        <fill_u64 as KernelSource>::KERNEL,
        <fill_i64 as KernelSource>::KERNEL,
        <fill_u32 as KernelSource>::KERNEL,
        <fill_i32 as KernelSource>::KERNEL,
    ];
}
pub use pool::{
    RandomGenerator, RandomPool, XorShift1024, XorShift1024Pool, XorShift64, XorShift64Pool,
};
