//! The XorShift64* generator inside `#[kernel]`s, on every space Cuda
//! included: `#[device]` functions over the state, a `u64`.
//!
//! `#[device]` helpers take scalars and return one value, so the device
//! form is functional: the kernel keeps the state in a `let mut` and
//! advances it with [`xorshift64_next`]; each `xorshift64_*` draw reads the
//! state it is given. Step for step it is the host generator:
//! `s = xorshift64_next(s); xorshift64_drand(s)` is `g.drand()` of
//! `pool.get_state(i)` when `s` started as
//! `xorshift64_state(pool.key(), pool.num_states(), i)`, bit for bit on
//! every space (wrapping u64 arithmetic, shifts and exact int-to-float
//! conversions, which the translator keeps as Rust defines them).
//!
//! ```
//! use granule::prelude::*;
//! use granule::containers::random::{RandomGenerator, RandomPool, XorShift64Pool};
//! use granule::containers::random::device::{xorshift64_drand, xorshift64_next, xorshift64_state};
//! use granule::containers::random::device::{
//!     __GRANULE_DEVICE_xorshift64_drand, __GRANULE_DEVICE_xorshift64_next,
//!     __GRANULE_DEVICE_xorshift64_state,
//! };
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
//! let pool = XorShift64Pool::new("darts", 3, n)?;
//! let policy = RangePolicy::new(&Serial, 0..n);
//! let hits: u64 = parallel_reduce("pi", policy, Sum, inside(pool.key(), pool.num_states(), 100));
//! let mut g = pool.get_state(0);
//! let (x, y) = (g.drand(), g.drand());
//! let mut s = xorshift64_state(pool.key(), n, 0);
//! s = xorshift64_next(s);
//! assert_eq!(xorshift64_drand(s), x);
//! assert!((4.0 * hits as f64 / (100 * n) as f64 - 3.14).abs() < 0.1);
//! # Ok::<(), granule::containers::random::RandomError>(())
//! ```
//!
//! Not yet translated: the method form (`pool.get_state(i)` and `g.drand()`
//! inside a `#[kernel]`), the XorShift1024* generator (its state is an
//! array), the range draws with rejection and `normal` on the device. An
//! index past the pool fails the kernel with an assertion that names the
//! index and the size (the label is host data the device does not have).

use super::bits::{__GRANULE_DEVICE_state_word, __GRANULE_DEVICE_XORSHIFT64_STAR};
use super::bits::{__GRANULE_DEVICE_unit_f32, __GRANULE_DEVICE_unit_f64};
pub use super::bits::{__GRANULE_DEVICE_xorshift64_next, xorshift64_next};
use super::bits::{state_word, unit_f32, unit_f64, XORSHIFT64_STAR};
use granule_core::kernel::device;

/// State `index` of the XorShift64* pool of key `key` and `num_states`
/// states: `pool.get_state(index)`'s state.
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
