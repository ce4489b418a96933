//! Running sums of 8-byte integers with AVX-512, for the host scans.
//!
//! The scalar scan adds one element to the running value per step, a
//! chain of dependent adds: one element per cycle at best. Here each
//! vector of eight gets its own prefix in three shifted adds (no
//! dependence on the running value), four vectors are chained to each
//! other, and the running value is added once and broadcast once per 32
//! elements. Integer addition is associative, so the sums are the same
//! bits as the scalar chain's, whatever the grouping.

use super::ScanKind;
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{KnownOp, Reducer};
use granule_views::Pod;
use std::any::TypeId;

/// Elements per step of the vector loop: four vectors of eight.
const STEP: usize = 32;

/// Whether scans of `T` under `op` may take [`scan_sums`]: `op` joins
/// with `+`, `T` is `i64` or `u64`, and the CPU has AVX-512F. The vector
/// adds wrap, as `+` does when overflow is not checked: callers take this
/// path only then (`!cfg!(debug_assertions)`), so that a debug build
/// still panics on overflow, as the scalar chain does.
pub(super) fn fits<T: Pod, R: Reducer<T>>(op: &R) -> bool {
    op.known_op() == Some(KnownOp::Sum) && fits_type::<T>()
}

/// `T` is `i64` or `u64`, and the CPU has AVX-512F.
fn fits_type<T: Pod>() -> bool {
    int64::<T>() && has_avx512f()
}

/// `T` is `i64` or `u64` (known at compile time once inlined).
#[inline(always)]
fn int64<T: Pod>() -> bool {
    [TypeId::of::<i64>(), TypeId::of::<u64>()].contains(&TypeId::of::<T>())
}

fn has_avx512f() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Scans `f(x)` into `out` (as long as `x`) from `carry`, with wrapping
/// `+`, inclusive or exclusive; returns the running sum after the last
/// element.
///
/// # Panics
/// If `T` is not `i64` or `u64` or the CPU lacks AVX-512F (so a wrong
/// call panics instead of faulting), or `out` is not as long as `x`.
pub(super) fn scan_sums<U, T, F>(kind: ScanKind, x: &[U], f: &F, out: &mut [T], carry: T) -> T
where
    U: Copy,
    T: Pod,
    F: UnaryFunctor<U, Output = T>,
{
    assert!(fits_type::<T>(), "scan_sums: needs i64 or u64 and AVX-512F");
    assert_eq!(x.len(), out.len(), "scan_sums: input and output lengths");
    let inclusive = kind == ScanKind::Inclusive;
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `fits_type` checked that T is i64 or u64 and that the CPU
        // has AVX-512F; the lengths are equal (asserted).
        from_bits(unsafe { kernel(inclusive, x, f, out, to_bits(carry)) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // Unreachable: `fits_type` is false off x86-64 (asserted above).
        let _ = (inclusive, f, carry);
        unreachable!("scan_sums off x86-64")
    }
}

/// Adds `p` to every element of `out` (wrapping): the fix-up of a block
/// scanned from zero, 8 elements per vector add.
///
/// # Panics
/// As for [`scan_sums`].
pub(super) fn add_to<T: Pod>(out: &mut [T], p: T) {
    assert!(fits_type::<T>(), "add_to: needs i64 or u64 and AVX-512F");
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `fits_type` checked that T is i64 or u64 and that the CPU
    // has AVX-512F.
    unsafe {
        add_kernel(out, to_bits(p))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (out, p);
        unreachable!("add_to off x86-64")
    }
}

/// # Safety
/// The CPU has AVX-512F; `T` is `i64` or `u64`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn add_kernel<T: Pod>(out: &mut [T], p: i64) {
    use std::arch::x86_64::{
        _mm512_add_epi64, _mm512_loadu_si512, _mm512_set1_epi64, _mm512_storeu_si512,
    };
    let (n, op) = (out.len(), out.as_mut_ptr().cast::<i64>());
    let pv = _mm512_set1_epi64(p);
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n elements of 8 bytes (T is i64 or u64): in
        // bounds; unaligned accesses are allowed.
        unsafe {
            let v = _mm512_loadu_si512(op.add(i).cast());
            _mm512_storeu_si512(op.add(i).cast(), _mm512_add_epi64(v, pv));
        }
        i += 8;
    }
    for o in &mut out[i..] {
        *o = from_bits(to_bits(*o).wrapping_add(p));
    }
}

/// The bits of an `i64` or `u64` as an `i64`.
#[inline(always)]
fn to_bits<T: Pod>(v: T) -> i64 {
    assert!(int64::<T>(), "to_bits: not an 8-byte integer");
    // SAFETY: T is i64 or u64 (asserted): eight bytes, no padding.
    unsafe { std::mem::transmute_copy::<T, i64>(&v) }
}

/// An `i64`'s bits as `T`, an `i64` or `u64`.
#[inline(always)]
fn from_bits<T: Pod>(v: i64) -> T {
    assert!(int64::<T>(), "from_bits: not an 8-byte integer");
    // SAFETY: T is i64 or u64 (asserted), for which every bit pattern of
    // eight bytes is a valid value.
    unsafe { std::mem::transmute_copy::<i64, T>(&v) }
}

/// # Safety
/// The CPU has AVX-512F; `T` is `i64` or `u64`; `out` is as long as `x`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn kernel<U, T, F>(inclusive: bool, x: &[U], f: &F, out: &mut [T], carry: i64) -> i64
where
    U: Copy,
    T: Pod,
    F: UnaryFunctor<U, Output = T>,
{
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi64, _mm512_alignr_epi64, _mm512_castsi512_si128, _mm512_loadu_si512,
        _mm512_permutexvar_epi64, _mm512_set1_epi64, _mm512_setzero_si512, _mm512_storeu_si512,
        _mm512_sub_epi64, _mm_cvtsi128_si64,
    };
    let n = x.len();
    let op = out.as_mut_ptr().cast::<i64>();
    let zero = _mm512_setzero_si512();
    let top = _mm512_set1_epi64(7);
    let mut run = _mm512_set1_epi64(carry);
    // The transformed inputs of one step, so that any `f` works; for a
    // plain scan the copy stays in L1 and costs little.
    let mut buf = [0i64; STEP];
    let mut i = 0;
    while i + STEP <= n {
        for (b, &v) in buf.iter_mut().zip(&x[i..i + STEP]) {
            *b = to_bits(f.call(v));
        }
        let bp = buf.as_ptr();
        // SAFETY: `buf` holds STEP = 32 i64, read 8 at a time at
        // offsets 0, 8, 16 and 24; unaligned loads are allowed.
        let v: [__m512i; 4] = unsafe {
            [
                _mm512_loadu_si512(bp.cast()),
                _mm512_loadu_si512(bp.add(8).cast()),
                _mm512_loadu_si512(bp.add(16).cast()),
                _mm512_loadu_si512(bp.add(24).cast()),
            ]
        };
        // Each vector's own inclusive prefix: add the vector shifted up by
        // one, two and four lanes (zeros shifted in).
        let mut s = v;
        for sk in &mut s {
            *sk = _mm512_add_epi64(*sk, _mm512_alignr_epi64::<7>(*sk, zero));
            *sk = _mm512_add_epi64(*sk, _mm512_alignr_epi64::<6>(*sk, zero));
            *sk = _mm512_add_epi64(*sk, _mm512_alignr_epi64::<4>(*sk, zero));
        }
        // Chain the four: each adds the last lane of the one before.
        for k in 1..4 {
            s[k] = _mm512_add_epi64(s[k], _mm512_permutexvar_epi64(top, s[k - 1]));
        }
        let mut inc = run;
        for k in 0..4 {
            inc = _mm512_add_epi64(s[k], run);
            let o = if inclusive {
                inc
            } else {
                _mm512_sub_epi64(inc, v[k])
            };
            // SAFETY: i + 8k + 8 <= i + STEP <= n = out.len() (the
            // contract), and T is 8 bytes: in bounds; unaligned allowed.
            unsafe { _mm512_storeu_si512(op.add(i + 8 * k).cast(), o) };
        }
        // The one dependence from step to step: the last sum, broadcast.
        run = _mm512_permutexvar_epi64(top, inc);
        i += STEP;
    }
    let mut acc = _mm_cvtsi128_si64(_mm512_castsi512_si128(run));
    for (o, &v) in out[i..].iter_mut().zip(&x[i..]) {
        let v = to_bits(f.call(v));
        let before = acc;
        acc = acc.wrapping_add(v);
        *o = from_bits(if inclusive { acc } else { before });
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Identity;

    fn reference(kind: ScanKind, x: &[i64], carry: i64) -> (Vec<i64>, i64) {
        let mut acc = carry;
        let out = x
            .iter()
            .map(|&v| {
                let before = acc;
                acc = acc.wrapping_add(v);
                if kind == ScanKind::Inclusive {
                    acc
                } else {
                    before
                }
            })
            .collect();
        (out, acc)
    }

    #[test]
    fn sums_match_the_scalar_chain() {
        if !has_avx512f() {
            return; // nothing to check: `fits` is false, the path unused
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let x: Vec<i64> = (0..300)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as i64 // full range: the sums wrap
            })
            .collect();
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            for len in (0..100).chain([255, 256, 257, 300]) {
                for carry in [0, -5, i64::MAX] {
                    let x = &x[..len];
                    let mut out = vec![0i64; len];
                    let total = scan_sums(kind, x, &Identity, &mut out, carry);
                    assert_eq!(
                        (out, total),
                        reference(kind, x, carry),
                        "{kind:?} {len} {carry}"
                    );
                }
            }
        }
        // u64 and a transform.
        let xu: Vec<u64> = (0..77u64).map(|i| i * i).collect();
        let mut out = vec![0u64; 77];
        let total = scan_sums(ScanKind::Inclusive, &xu, &|v: u64| v + 1, &mut out, 3);
        let mut acc = 3u64;
        for (o, &v) in out.iter().zip(&xu) {
            acc += v + 1;
            assert_eq!(*o, acc);
        }
        assert_eq!(total, acc);
    }

    #[test]
    fn add_to_adds_everywhere() {
        if !has_avx512f() {
            return;
        }
        for len in [0, 1, 7, 8, 9, 31, 100] {
            let mut v: Vec<i64> = (0..len as i64).collect();
            add_to(&mut v, i64::MAX);
            let want: Vec<i64> = (0..len as i64).map(|i| i.wrapping_add(i64::MAX)).collect();
            assert_eq!(v, want, "{len}");
        }
    }

    #[test]
    fn only_sums_of_eight_byte_integers_fit() {
        use granule_core::reducer::{Max, Sum};
        assert!(!fits::<i64, _>(&Max));
        assert!(!fits::<f64, _>(&Sum));
        assert!(!fits::<i32, _>(&Sum));
        assert_eq!(fits::<i64, _>(&Sum), has_avx512f());
        assert_eq!(fits::<u64, _>(&&Sum), has_avx512f());
    }
}
