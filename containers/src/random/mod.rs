//! Random number pools (Kokkos's `Kokkos_Random.hpp`): XorShift64* and
//! XorShift1024* generators seeded by the user, and [`fill_random`] on
//! every space. Closures on the host spaces draw through the generators'
//! methods ([`RandomGenerator`]); `#[kernel]`s, which also run on Cuda,
//! draw through the XorShift64* functions of [`device`] and the
//! XorShift1024* ones of [`device1024`], which give the same bits.
//!
//! As in Kokkos, a pool made from a space and a seed has one state per
//! work item the space runs at once; `get_state()` takes a free one and
//! `free_state` gives it back, advanced:
//!
//! ```
//! use granule::prelude::*;
//! use granule::containers::random::{RandomGenerator, RandomPool, XorShift64Pool};
//! let space = Serial;
//! let n = 1000;
//! let pool = XorShift64Pool::new(&space, 7);
//! let hits: u64 = parallel_reduce("pi", RangePolicy::new(&space, 0..n), Sum, |_i, acc: &mut u64| {
//!     let mut g = pool.get_state();
//!     let (x, y) = (g.drand(), g.drand());
//!     *acc += u64::from(x * x + y * y < 1.0);
//!     pool.free_state(g);
//! });
//! let pi = 4.0 * hits as f64 / n as f64;
//! assert!((pi - std::f64::consts::PI).abs() < 0.3);
//! ```
//!
//! # Reproducible draws: `state_at`
//! Which work item gets which state from `get_state()` depends on the
//! threads' timing, so on Rayon, as in Kokkos, the numbers change from
//! run to run, and a device has no pool object to take states from.
//! [`state_at(i)`](RandomPool::state_at) is the other way: it computes
//! state `i` from the seed (SplitMix64 of a counter, see `bits.rs`), the
//! work item owns the generator it gets, and nothing is kept. The work
//! item chooses the index, normally its own (or a team's league rank, or
//! a `UniqueToken` id), so the same seed gives the same numbers for the
//! same work item on Serial, Rayon and Cuda, whatever the thread count;
//! the [`device`] functions compute the same states inside kernels
//! (`xorshift64_state(pool.key(), pool.num_states(), i)`). Such a pool is
//! sized by work item with [`with_states`](XorShift64Pool::with_states).
//!
//! The price: `state_at` does not advance. Asking for state `i` again, in
//! the same or a later dispatch, gives state `i`'s numbers again. A work
//! item that needs many numbers draws them all from its one generator; a
//! program that draws in several dispatches uses
//! [`renewed`](XorShift64Pool::renewed) pools, whose streams are
//! independent of the earlier ones. `num_states` bounds the indices.
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
mod generator;
mod pool;
mod range;
mod stored;
#[cfg(test)]
mod tests;

pub use error::RandomError;
pub use fill::{
    fill_random, fill_random_on, FillMemorySpace, FillRandomSpace, FillRange, RandomValue,
};
pub use generator::RandomGenerator;

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
pub use pool::{RandomPool, XorShift1024, XorShift1024Pool, XorShift64, XorShift64Pool};
