//! The XorShift1024* generator inside `#[kernel]`s, on every space Cuda
//! included: a `#[device] struct` of the 16 state words and `#[device]`
//! functions over it, in the functional form of the XorShift64* ones
//! (`g = xorshift1024_next(g); xorshift1024_drand(g)` is `gen.drand()`).
//!
//! The host generator keeps its words in a ring with a moving position
//! `p`. Here the words are kept rotated so that `p` is always 0: `w0` is
//! word `p`, `w1` word `p + 1`, and so on. A step rewrites word `p + 1`
//! and moves `p` to it, so the next state is that new word followed by
//! the old `w2 .. w15, w0`: no index, no branch, the same numbers.
//!
//! ```
//! use granule::prelude::*;
//! use granule::containers::random::{RandomGenerator, RandomPool, XorShift1024Pool};
//! use granule::containers::random::device1024::*;
//!
//! #[kernel(reduce)]
//! fn inside(i: usize, hits: &mut u64, key: u64, states: usize, m: usize) {
//!     let mut g = xorshift1024_state(key, states, i);
//!     for _draw in 0..m {
//!         g = xorshift1024_next(g);
//!         let x = xorshift1024_drand(g);
//!         g = xorshift1024_next(g);
//!         let y = xorshift1024_drand(g);
//!         if x * x + y * y < 1.0 {
//!             *hits += 1;
//!         }
//!     }
//! }
//!
//! let n = 64;
//! let pool = XorShift1024Pool::with_states("darts", 3, n)?;
//! let policy = RangePolicy::new(&Serial, 0..n);
//! let hits: u64 = parallel_reduce("pi", policy, Sum, inside(pool.key(), n, 100));
//! let mut host = pool.state_at(0);
//! let g = xorshift1024_next(xorshift1024_state(pool.key(), n, 0));
//! assert_eq!(xorshift1024_drand(g), host.drand());
//! assert!((4.0 * hits as f64 / (100 * n) as f64 - 3.14).abs() < 0.1);
//! # Ok::<(), granule::containers::random::RandomError>(())
//! ```
//!
//! The range draws and `normal` come in pairs as for XorShift64*:
//! `xorshift1024_drand_in(g, a, b)` is the value `gen.drand_in(a,
//! b)` gives for a generator in state `g` (the draw advances it), and
//! `xorshift1024_after_drand_in(g, a, b)` the state after it.

use super::bits::{reject_below, state_word, unit_f32, unit_f64, XORSHIFT1024_STAR};
use granule_core::kernel::device;

/// The 16 words of a XorShift1024* generator, rotated so that its
/// position is word 0 (see the module's documentation).
#[device(crate = granule_core)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the words, in order
pub struct XorShift1024State {
    pub w0: u64,
    pub w1: u64,
    pub w2: u64,
    pub w3: u64,
    pub w4: u64,
    pub w5: u64,
    pub w6: u64,
    pub w7: u64,
    pub w8: u64,
    pub w9: u64,
    pub w10: u64,
    pub w11: u64,
    pub w12: u64,
    pub w13: u64,
    pub w14: u64,
    pub w15: u64,
}

/// State `index` of the XorShift1024* pool of key `key` and `num_states`
/// states: `pool.state_at(index)`'s state.
///
/// # Panics
/// If `index >= num_states` (a failed assertion on the device).
#[device(crate = granule_core)]
pub fn xorshift1024_state(key: u64, num_states: usize, index: usize) -> XorShift1024State {
    assert!(
        index < num_states,
        "random pool: state {} asked for, but the pool has {} states",
        index,
        num_states
    );
    // A pool keeps at most 2^60 states apart (`XorShift1024Pool::MAX_STATES`):
    // past it, 16 index would wrap onto another state's words.
    assert!(
        index < 1152921504606846976,
        "random pool: state {} asked for, but a XorShift1024 pool has at most 2^60 states",
        index
    );
    let base = index as u64 * 16;
    XorShift1024State {
        w0: state_word(key, base),
        w1: state_word(key, base + 1),
        w2: state_word(key, base + 2),
        w3: state_word(key, base + 3),
        w4: state_word(key, base + 4),
        w5: state_word(key, base + 5),
        w6: state_word(key, base + 6),
        w7: state_word(key, base + 7),
        w8: state_word(key, base + 8),
        w9: state_word(key, base + 9),
        w10: state_word(key, base + 10),
        w11: state_word(key, base + 11),
        w12: state_word(key, base + 12),
        w13: state_word(key, base + 13),
        w14: state_word(key, base + 14),
        w15: state_word(key, base + 15),
    }
}

/// One step of the XorShift1024 recurrence: the state whose draws are
/// the generator's next.
#[device(crate = granule_core)]
pub fn xorshift1024_next(g: XorShift1024State) -> XorShift1024State {
    let s0 = g.w0;
    let mut s1 = g.w1;
    s1 ^= s1 << 31;
    XorShift1024State {
        w0: s1 ^ s0 ^ (s1 >> 11) ^ (s0 >> 30),
        w1: g.w2,
        w2: g.w3,
        w3: g.w4,
        w4: g.w5,
        w5: g.w6,
        w6: g.w7,
        w7: g.w8,
        w8: g.w9,
        w9: g.w10,
        w10: g.w11,
        w11: g.w12,
        w12: g.w13,
        w13: g.w14,
        w14: g.w15,
        w15: g.w0,
    }
}

/// The 64 bits a generator in state `g` gives (`urand64`), once `g` was
/// advanced with [`xorshift1024_next`].
#[device(crate = granule_core)]
pub fn xorshift1024_urand64(g: XorShift1024State) -> u64 {
    g.w0.wrapping_mul(XORSHIFT1024_STAR)
}

/// The 32 bits of state `g` (`urand`): the top half of its 64.
#[device(crate = granule_core)]
pub fn xorshift1024_urand(g: XorShift1024State) -> u32 {
    (xorshift1024_urand64(g) >> 32) as u32
}

/// The i32 in `0..2^31` of state `g` (`rand`): the top 31 of its bits.
#[device(crate = granule_core)]
pub fn xorshift1024_rand(g: XorShift1024State) -> i32 {
    (xorshift1024_urand(g) >> 1) as i32
}

/// The i64 in `0..2^63` of state `g` (`rand64`): the top 63 of its bits.
#[device(crate = granule_core)]
pub fn xorshift1024_rand64(g: XorShift1024State) -> i64 {
    (xorshift1024_urand64(g) >> 1) as i64
}

/// The double in [0, 1) of state `g` (`drand`).
#[device(crate = granule_core)]
pub fn xorshift1024_drand(g: XorShift1024State) -> f64 {
    unit_f64(xorshift1024_urand64(g))
}

/// The float in [0, 1) of state `g` (`frand`).
#[device(crate = granule_core)]
pub fn xorshift1024_frand(g: XorShift1024State) -> f32 {
    unit_f32(xorshift1024_urand64(g))
}

super::draws::device_draws! {
    state: XorShift1024State,
    next: xorshift1024_next,
    bits: xorshift1024_urand64,
    drand: xorshift1024_drand,
    frand: xorshift1024_frand,
    after_urand64_in: xorshift1024_after_urand64_in,
    urand64_in: xorshift1024_urand64_in,
    after_urand_in: xorshift1024_after_urand_in,
    urand_in: xorshift1024_urand_in,
    after_drand_in: xorshift1024_after_drand_in,
    drand_in: xorshift1024_drand_in,
    after_frand_in: xorshift1024_after_frand_in,
    frand_in: xorshift1024_frand_in,
    polar_radius2: polar_radius2_1024,
    polar_rejects: polar_rejects_1024,
    after_normal: xorshift1024_after_normal,
    normal: xorshift1024_normal,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{RandomGenerator, RandomPool, XorShift1024Pool};

    /// Step for step the host generator, past several turns of the ring,
    /// for every draw kind.
    #[test]
    fn the_device_form_is_the_host_generator() {
        let pool = XorShift1024Pool::with_states("dev", 42, 5).unwrap();
        for i in 0..5 {
            let mut host = pool.state_at(i);
            let mut g = xorshift1024_state(pool.key(), 5, i);
            for step in 0..100 {
                g = xorshift1024_next(g);
                assert_eq!(
                    xorshift1024_urand64(g),
                    host.urand64(),
                    "state {i} step {step}"
                );
            }
            assert_eq!(
                xorshift1024_drand_in(g, -2.0, 3.0),
                host.drand_in(-2.0, 3.0)
            );
            g = xorshift1024_after_drand_in(g, -2.0, 3.0);
            assert_eq!(
                xorshift1024_frand_in(g, 0.5, 0.75),
                host.frand_in(0.5, 0.75)
            );
            g = xorshift1024_after_frand_in(g, 0.5, 0.75);
            let top = (1u64 << 63) + 5;
            assert_eq!(xorshift1024_urand64_in(g, 3, top), host.urand64_in(3, top));
            g = xorshift1024_after_urand64_in(g, 3, top);
            assert_eq!(xorshift1024_urand_in(g, 10, 17), host.urand_in(10, 17));
            g = xorshift1024_after_urand_in(g, 10, 17);
            assert_eq!(xorshift1024_normal(g).to_bits(), host.normal().to_bits());
            g = xorshift1024_after_normal(g);
            g = xorshift1024_next(g);
            assert_eq!(xorshift1024_urand(g), host.urand());
            g = xorshift1024_next(g);
            assert_eq!(xorshift1024_frand(g), host.frand());
            g = xorshift1024_next(g);
            assert_eq!(xorshift1024_rand(g), host.rand());
            g = xorshift1024_next(g);
            assert_eq!(xorshift1024_rand64(g), host.rand64());
        }
    }
}
