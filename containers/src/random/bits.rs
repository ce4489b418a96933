//! The generators' arithmetic, written once as `#[device]` functions so
//! that the host spaces and the device run the same Rust (the translator
//! gives every space the host's bits for wrapping integer arithmetic,
//! shifts, int-to-float casts and IEEE products: see the kernel README's
//! "Semantics kept from Rust").
//!
//! Seeding: a generator's state words are SplitMix64 outputs of a counter,
//! `mix64(key + GOLDEN * (counter + 1))`. `mix64` is a bijection of u64 and
//! GOLDEN is odd, so distinct counters (states, or words of a state) get
//! distinct, decorrelated words; no state depends on which thread asked.

use granule_core::kernel::device;

/// 2^64 / φ, the Weyl increment of SplitMix64 (odd, so `counter * GOLDEN`
/// is a bijection of u64).
#[device(crate = granule_core)]
pub const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The multiplier of XorShift64* (Vigna 2016, "An experimental exploration
/// of Marsaglia's xorshift generators, scrambled", M_32).
#[device(crate = granule_core)]
pub const XORSHIFT64_STAR: u64 = 2_685_821_657_736_338_717;

/// The multiplier of XorShift1024* (same paper, M_8).
#[device(crate = granule_core)]
pub const XORSHIFT1024_STAR: u64 = 1_181_783_497_276_652_981;

/// SplitMix64's output function (Stafford's variant 13): a bijection of
/// u64 whose every output bit depends on every input bit.
#[device(crate = granule_core)]
pub fn mix64(z: u64) -> u64 {
    let mut x = z;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// State word `counter` of the pool whose key is `key`. Never zero, the
/// one state a xorshift generator cannot leave: the single counter that
/// mixes to 0 gets GOLDEN instead.
#[device(crate = granule_core)]
pub fn state_word(key: u64, counter: u64) -> u64 {
    let w = mix64(key.wrapping_add(counter.wrapping_add(1).wrapping_mul(GOLDEN)));
    if w == 0 {
        GOLDEN
    } else {
        w
    }
}

/// One step of the xorshift64 recurrence (shifts 12, 25, 27).
#[device(crate = granule_core)]
pub fn xorshift64_next(s: u64) -> u64 {
    let mut x = s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^ (x >> 27)
}

/// The uniform double in [0, 1) of a draw's top 53 bits: exact (every
/// value is a multiple of 2^-53, so the product rounds nothing).
#[device(crate = granule_core)]
pub fn unit_f64(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// The uniform float in [0, 1) of a draw's top 24 bits, exact as above.
#[device(crate = granule_core)]
pub fn unit_f32(bits: u64) -> f32 {
    (bits >> 40) as f32 * (1.0 / 16_777_216.0)
}

/// 2^64 mod `span` (`span > 0`): draws below it are rejected, so that
/// `draw % span` is exactly uniform (Lemire's threshold).
#[device(crate = granule_core)]
pub fn reject_below(span: u64) -> u64 {
    span.wrapping_neg() % span
}

/// Element `index` of a `fill_random` with a pool of key `key`, uniform in
/// `0..span` (`span > 0`).
///
/// The draw is state word `index` itself: one SplitMix64 output of a
/// counter, a fixed function of (key, index) that no thread count or
/// schedule changes. Drawing the state word rather than the first
/// XorShift64* output of the state it seeds saves the xorshift step and
/// the scrambling multiply per element (the fill is bound by this
/// arithmetic, not by memory). A rejected draw (rare) is followed by the
/// XorShift64* draws of that state, so every element terminates with an
/// exactly uniform value.
#[device(crate = granule_core)]
pub fn fill_element_below(key: u64, index: u64, span: u64) -> u64 {
    let threshold = reject_below(span);
    let mut s = state_word(key, index);
    let mut r = s;
    while r < threshold {
        s = xorshift64_next(s);
        r = s.wrapping_mul(XORSHIFT64_STAR);
    }
    r % span
}

/// As [`fill_element_below`], a double in `[lo, hi)`: `lo + (hi - lo) *
/// u`, u from the top 53 bits of state word `index`, drawn again (from
/// that state's XorShift64* stream) in the rare case where rounding
/// reaches `hi`.
#[device(crate = granule_core)]
pub fn fill_element_f64(key: u64, index: u64, lo: f64, hi: f64) -> f64 {
    // The first draw outside the loop: the loop runs almost never, and a
    // straight-line common case keeps the host's fill loop pipelined.
    let mut s = state_word(key, index);
    let mut v = lo + (hi - lo) * unit_f64(s);
    while v >= hi {
        s = xorshift64_next(s);
        v = lo + (hi - lo) * unit_f64(s.wrapping_mul(XORSHIFT64_STAR));
    }
    v
}

/// As [`fill_element_f64`], for f32 (u from the top 24 bits).
#[device(crate = granule_core)]
pub fn fill_element_f32(key: u64, index: u64, lo: f32, hi: f32) -> f32 {
    // As in fill_element_f64.
    let mut s = state_word(key, index);
    let mut v = lo + (hi - lo) * unit_f32(s);
    while v >= hi {
        s = xorshift64_next(s);
        v = lo + (hi - lo) * unit_f32(s.wrapping_mul(XORSHIFT64_STAR));
    }
    v
}
