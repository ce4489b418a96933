//! The suite's per-element user code, as `#[kernel]` element functions:
//! they run on every space, where closures run on host spaces only.

use granule::prelude::*;

#[kernel]
pub fn nonzero(v: i64) -> bool {
    v != 0
}

#[kernel]
pub fn multiple_of_4(v: u64) -> bool {
    v & 3 == 0
}

#[kernel]
pub fn below(v: i32, cut: i32) -> bool {
    v < cut
}

#[kernel]
pub fn below_i16(v: i16, cut: i16) -> bool {
    v < cut
}

#[kernel]
pub fn flag(v: u8) -> u64 {
    (v != 0) as u64
}

#[kernel]
pub fn square_u8(v: u8) -> u64 {
    (v as u64) * (v as u64)
}

#[kernel]
pub fn square(v: i64) -> i64 {
    v * v
}

#[kernel]
pub fn identity(v: i64) -> i64 {
    v
}

#[kernel]
pub fn above(v: i64, t: i64) -> bool {
    v > t
}

#[kernel]
pub fn under(v: i64, t: i64) -> bool {
    v < t
}

#[kernel]
pub fn at_least(v: i64, t: i64) -> bool {
    v >= t
}

#[kernel]
pub fn equals(v: i64, t: i64) -> bool {
    v == t
}

#[kernel]
pub fn always(_v: i64) -> bool {
    true
}

/// NaN is the only value that differs from itself (device code has no
/// `is_nan`).
#[kernel]
#[allow(clippy::eq_op)]
pub fn nan(v: f64) -> bool {
    v != v
}

#[kernel]
pub fn never(_v: f64) -> bool {
    false
}

#[kernel(binary)]
pub fn less(a: i64, b: i64) -> bool {
    a < b
}

#[kernel(binary)]
pub fn greater(a: i32, b: i32) -> bool {
    a > b
}

#[kernel(binary)]
pub fn greater_i64(a: i64, b: i64) -> bool {
    a > b
}

#[kernel(binary)]
pub fn same_parity(a: i64, b: i64) -> bool {
    (a - b) % 2 == 0
}

/// Descending by the high half (the key), so that the low half (the
/// original index) shows whether the sort is stable.
#[kernel(binary)]
pub fn high_half_descending(a: u64, b: u64) -> bool {
    (a >> 32) > (b >> 32)
}

#[kernel]
pub fn even_unless(v: i64, at: i64) -> bool {
    assert!(v != at, "user code failed");
    v % 2 == 0
}

#[kernel]
pub fn same_unless(v: i64, at: i64) -> i64 {
    assert!(v != at, "user code failed");
    v
}

/// Not a strict weak order: `scrambled(a, b)` and `scrambled(b, a)` can
/// both hold, and it is not transitive. A sort may order by it in any
/// way, but must stay free of races.
#[kernel(binary)]
pub fn scrambled(a: i64, b: i64) -> bool {
    (a * 7 + b * 3) % 5 < 2
}

#[kernel(binary)]
pub fn less_unless(a: i64, b: i64, at: i64) -> bool {
    assert!(a != at, "user code failed");
    a < b
}

#[kernel(binary)]
pub fn weighted(a: i64, b: i64) -> i64 {
    3 * a - b
}

#[kernel(binary)]
pub fn larger(a: i64, b: i64) -> i64 {
    if a > b {
        a
    } else {
        b
    }
}

#[kernel]
pub fn index_pattern(i: usize, k: i64) -> i64 {
    (i as i64 * k) % 17
}

#[kernel]
pub fn twice_plus(v: i64, c: i64) -> i64 {
    2 * v + c
}
