//! The XorShift64* generator inside `#[kernel]`s, on every space Cuda
//! included: `#[device]` functions over the state, a `u64`.
//!
//! `#[device]` helpers take values and return one value, so the device
//! form is functional: the kernel keeps the state in a `let mut` and
//! advances it with [`xorshift64_next`]; each `xorshift64_*` draw reads the
//! state it is given. Step for step it is the host generator:
//! `s = xorshift64_next(s); xorshift64_drand(s)` is `g.drand()` of
//! `pool.state_at(i)` when `s` started as
//! `xorshift64_state(pool.key(), pool.num_states(), i)`, bit for bit on
//! every space (wrapping u64 arithmetic, shifts and exact int-to-float
//! conversions, which the translator keeps as Rust defines them).
//!
//! ```
//! use granule::prelude::*;
//! use granule::containers::random::{RandomGenerator, RandomPool, XorShift64Pool};
//! use granule::containers::random::device::{xorshift64_drand, xorshift64_next, xorshift64_state};
//!
//! #[kernel(reduce)]
//! fn inside(i: usize, hits: &mut u64, key: u64, states: usize, m: usize) {
//!     let mut s = xorshift64_state(key, states, i);
//!     for _draw in 0..m {
//!         s = xorshift64_next(s);
//!         let x = xorshift64_drand(s);
//!         s = xorshift64_next(s);
//!         let y = xorshift64_drand(s);
//!         if x * x + y * y < 1.0 {
//!             *hits += 1;
//!         }
//!     }
//! }
//!
//! let n = 64;
//! let pool = XorShift64Pool::with_states("darts", 3, n)?;
//! let policy = RangePolicy::new(&Serial, 0..n);
//! let hits: u64 = parallel_reduce("pi", policy, Sum, inside(pool.key(), pool.num_states(), 100));
//! let mut g = pool.state_at(0);
//! let (x, y) = (g.drand(), g.drand());
//! let mut s = xorshift64_state(pool.key(), n, 0);
//! s = xorshift64_next(s);
//! assert_eq!(xorshift64_drand(s), x);
//! assert!((4.0 * hits as f64 / (100 * n) as f64 - 3.14).abs() < 0.1);
//! # Ok::<(), granule::containers::random::RandomError>(())
//! ```
//!
//! Range draws and `normal` advance the state a varying number of times
//! (rejection), so each comes as a pair: `xorshift64_drand_in(s, a, b)`
//! is the value `g.drand_in(a, b)` gives for a generator in state `s`
//! (not advanced beforehand: the draw advances it), and
//! `xorshift64_after_drand_in(s, a, b)` is the state the generator is
//! in after that draw, from which the next draw continues. The uniform
//! ranges are bit-identical to the host methods on every space; `normal`
//! calls `ln` and `sqrt`, exact on the host spaces and the emulator, within
//! the kernel README's "Bounded functions" on a GPU.
//!
//! [`fill_element_f64`] (`fill_element_f32`, `fill_element_below`) is
//! element `i` of a [`fill_random`](super::fill_random), for kernels that
//! want the fill's numbers without the View.
//!
//! Bad input fails the kernel with an assertion naming the state index and
//! the pool's size, or the range and why it cannot be drawn from; the
//! pool's label is host data the device does not have, so the host checks
//! what it can before the launch (`try_state_at`, the `try_*_in`
//! methods, `fill_random`'s range check) and names the label there.
//!
//! Not translated: the pool and the method form (`pool.get_state()`,
//! `pool.state_at(i)`, `g.drand()`) inside a `#[kernel]`. The pool is host
//! data (a kernel parameter `&XorShift64Pool` is a compile error that says
//! to pass `pool.key()` and `pool.num_states()`), and a `#[device]`
//! function takes values and returns one, so the generator is a value
//! passed along. The XorShift1024*
//! generator has the same functions over a `#[device] struct` of its 16
//! words in [`device1024`](super::device1024).

pub use super::bits::xorshift64_next;
pub use super::bits::{fill_element_below, fill_element_f32, fill_element_f64};
use super::bits::{reject_below, state_word, unit_f32, unit_f64, XORSHIFT64_STAR};
use granule_core::kernel::device;

/// State `index` of the XorShift64* pool of key `key` and `num_states`
/// states: `pool.state_at(index)`'s state.
///
/// # Panics
/// If `index >= num_states` (a failed assertion on the device).
#[device(crate = granule_core)]
pub fn xorshift64_state(key: u64, num_states: usize, index: usize) -> u64 {
    assert!(
        index < num_states,
        "random pool: state {} asked for, but the pool has {} states",
        index,
        num_states
    );
    state_word(key, index as u64)
}

/// The 64 bits a generator in state `s` gives (`urand64`), once `s` was
/// advanced with [`xorshift64_next`].
#[device(crate = granule_core)]
pub fn xorshift64_urand64(s: u64) -> u64 {
    s.wrapping_mul(XORSHIFT64_STAR)
}

/// The 32 bits of state `s` (`urand`): the top half of its 64.
#[device(crate = granule_core)]
pub fn xorshift64_urand(s: u64) -> u32 {
    (s.wrapping_mul(XORSHIFT64_STAR) >> 32) as u32
}

/// The i32 in `0..2^31` of state `s` (`rand`): the top 31 of its bits.
#[device(crate = granule_core)]
pub fn xorshift64_rand(s: u64) -> i32 {
    (xorshift64_urand(s) >> 1) as i32
}

/// The i64 in `0..2^63` of state `s` (`rand64`): the top 63 of its bits.
#[device(crate = granule_core)]
pub fn xorshift64_rand64(s: u64) -> i64 {
    (xorshift64_urand64(s) >> 1) as i64
}

/// The double in [0, 1) of state `s` (`drand`).
#[device(crate = granule_core)]
pub fn xorshift64_drand(s: u64) -> f64 {
    unit_f64(s.wrapping_mul(XORSHIFT64_STAR))
}

/// The float in [0, 1) of state `s` (`frand`).
#[device(crate = granule_core)]
pub fn xorshift64_frand(s: u64) -> f32 {
    unit_f32(s.wrapping_mul(XORSHIFT64_STAR))
}

super::draws::device_draws! {
    state: u64,
    next: xorshift64_next,
    bits: xorshift64_urand64,
    drand: xorshift64_drand,
    frand: xorshift64_frand,
    after_urand64_in: xorshift64_after_urand64_in,
    urand64_in: xorshift64_urand64_in,
    after_urand_in: xorshift64_after_urand_in,
    urand_in: xorshift64_urand_in,
    after_drand_in: xorshift64_after_drand_in,
    drand_in: xorshift64_drand_in,
    after_frand_in: xorshift64_after_frand_in,
    frand_in: xorshift64_frand_in,
    polar_radius2: polar_radius2,
    polar_rejects: polar_rejects,
    after_normal: xorshift64_after_normal,
    normal: xorshift64_normal,
}
