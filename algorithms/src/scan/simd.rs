//! Running sums of 4- and 8-byte integers with AVX-512, for the host
//! scans.
//!
//! The scalar scan adds one element to the running value per step, a
//! chain of dependent adds: one element per cycle at best. Here each
//! vector (8 or 16 lanes) gets its own prefix in shifted adds (no
//! dependence on the running value), four vectors are chained to each
//! other, and the running value is added and broadcast once per four
//! vectors. Integer addition is associative, so the sums are the same
//! bits as the scalar chain's, whatever the grouping.

use super::ScanKind;
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{KnownOp, Reducer};
use granule_views::Pod;
use std::any::TypeId;

/// Whether scans of `T` under `op` may take [`scan_sums`]: `op` joins
/// with `+`, `T` is `i32`, `u32`, `i64` or `u64`, and the CPU has
/// AVX-512F. The vector adds wrap, as `+` does when overflow is not
/// checked: callers take this path only then (`!cfg!(debug_assertions)`),
/// so that a debug build still panics on overflow, as the scalar chain
/// does.
pub(super) fn fits<T: Pod, R: Reducer<T>>(op: &R) -> bool {
    op.known_op() == Some(KnownOp::Sum) && fits_type::<T>()
}

/// `T` is a 4- or 8-byte integer, and the CPU has AVX-512F.
fn fits_type<T: Pod>() -> bool {
    width::<T>().is_some() && has_avx512f()
}

/// The vector word of `T`: `i64` for `i64` and `u64`, `i32` for `i32` and
/// `u32` (the same bits under wrapping `+`), or `None`.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Width {
    W64,
    W32,
}

/// `T`'s [`Width`] (known at compile time once inlined).
#[inline(always)]
fn width<T: Pod>() -> Option<Width> {
    let t = TypeId::of::<T>();
    if [TypeId::of::<i64>(), TypeId::of::<u64>()].contains(&t) {
        Some(Width::W64)
    } else if [TypeId::of::<i32>(), TypeId::of::<u32>()].contains(&t) {
        Some(Width::W32)
    } else {
        None
    }
}

pub(super) fn has_avx512f() -> bool {
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
/// If `T` is not a 4- or 8-byte integer or the CPU lacks AVX-512F (so a
/// wrong call panics instead of faulting), or `out` is not as long as `x`.
pub(super) fn scan_sums<U, T, F>(kind: ScanKind, x: &[U], f: &F, out: &mut [T], carry: T) -> T
where
    U: Copy,
    T: Pod,
    F: UnaryFunctor<U, Output = T>,
{
    assert!(
        fits_type::<T>(),
        "scan_sums: needs a 4- or 8-byte integer and AVX-512F"
    );
    assert_eq!(x.len(), out.len(), "scan_sums: input and output lengths");
    // SAFETY: `fits_type` checked the CPU and the type; the lengths are
    // equal (asserted).
    unsafe { run::<U, T, F, false>(kind, x, f, out, carry) }
}

/// [`scan_sums`] into an output that leaves the cache: from the first
/// element of `out` on a 64-byte boundary, whole vectors go out through
/// non-temporal stores (the elements before it, and the tail, through
/// plain ones). The same sums, so the same bits. The caller fences
/// ([`crate::host::stream::fence`]) before it publishes the output.
///
/// # Panics
/// As for [`scan_sums`].
pub(super) fn scan_sums_streamed<U, T, F>(
    kind: ScanKind,
    x: &[U],
    f: &F,
    out: &mut [T],
    carry: T,
) -> T
where
    U: Copy,
    T: Pod,
    F: UnaryFunctor<U, Output = T>,
{
    assert!(
        fits_type::<T>(),
        "scan_sums_streamed: needs a 4- or 8-byte integer and AVX-512F"
    );
    assert_eq!(x.len(), out.len(), "scan_sums_streamed: lengths");
    let head = out.as_ptr().align_offset(64).min(out.len());
    let carry = scan_sums(kind, &x[..head], f, &mut out[..head], carry);
    let (x, out) = (&x[head..], &mut out[head..]);
    // SAFETY: as in `scan_sums`; and `out` now starts on a 64-byte
    // boundary (or is empty), which the streaming stores need.
    unsafe { run::<U, T, F, true>(kind, x, f, out, carry) }
}

/// [`kernel`] for `T`'s word.
///
/// # Safety
/// [`fits_type::<T>`] holds, `out` is as long as `x`, and with `STREAM`
/// `out` starts on a 64-byte boundary.
#[inline(always)]
unsafe fn run<U, T, F, const STREAM: bool>(
    kind: ScanKind,
    x: &[U],
    f: &F,
    out: &mut [T],
    carry: T,
) -> T
where
    U: Copy,
    T: Pod,
    F: UnaryFunctor<U, Output = T>,
{
    let inclusive = kind == ScanKind::Inclusive;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the contract: the CPU has AVX-512F and T is an integer of
    // `width::<T>()`'s word; the lengths and (STREAM) the alignment.
    unsafe {
        match width::<T>() {
            Some(Width::W64) => from_word(kernel::<i64, _, _, _, STREAM>(
                inclusive,
                x,
                f,
                out,
                to_word(carry),
            )),
            _ => from_word(kernel::<i32, _, _, _, STREAM>(
                inclusive,
                x,
                f,
                out,
                to_word(carry),
            )),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // Unreachable: `fits_type` is false off x86-64 (the contract).
        let _ = (inclusive, x, f, out, carry);
        unreachable!("scan_sums off x86-64")
    }
}

/// Adds `p` to every element of `out` (wrapping): the fix-up of a block
/// scanned from zero, a vector at a time.
///
/// # Panics
/// As for [`scan_sums`].
pub(super) fn add_to<T: Pod>(out: &mut [T], p: T) {
    assert!(
        fits_type::<T>(),
        "add_to: needs a 4- or 8-byte integer and AVX-512F"
    );
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as in `scan_sums`.
    unsafe {
        match width::<T>() {
            Some(Width::W64) => add_kernel::<i64, T>(out, to_word(p)),
            _ => add_kernel::<i32, T>(out, to_word(p)),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (out, p);
        unreachable!("add_to off x86-64")
    }
}

/// `v`'s bits as the word `W`.
#[inline(always)]
fn to_word<T: Pod, W: Word>(v: T) -> W {
    assert!(
        W::holds::<T>(),
        "to_word: not an integer of the word's width"
    );
    // SAFETY: T is W or its unsigned twin (asserted): same size, no
    // padding, every bit pattern valid in both.
    unsafe { std::mem::transmute_copy::<T, W>(&v) }
}

/// `v`'s bits as `T`, the word `W` or its unsigned twin.
#[inline(always)]
fn from_word<W: Word, T: Pod>(v: W) -> T {
    assert!(
        W::holds::<T>(),
        "from_word: not an integer of the word's width"
    );
    // SAFETY: as in `to_word`.
    unsafe { std::mem::transmute_copy::<W, T>(&v) }
}

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::__m512i;

/// A vector word: `i64` in 8 lanes or `i32` in 16.
///
/// # Safety (of the vector functions)
/// The CPU has AVX-512F; they are called only from kernels compiled for
/// it, into which they inline.
trait Word: Pod {
    /// Whether `T` is this word or its unsigned twin.
    fn holds<T: Pod>() -> bool;
    fn wrapping_add(self, other: Self) -> Self;
    #[cfg(target_arch = "x86_64")]
    unsafe fn splat(self) -> __m512i;
    #[cfg(target_arch = "x86_64")]
    unsafe fn add(a: __m512i, b: __m512i) -> __m512i;
    #[cfg(target_arch = "x86_64")]
    unsafe fn sub(a: __m512i, b: __m512i) -> __m512i;
    /// Each lane plus the lanes below it.
    #[cfg(target_arch = "x86_64")]
    unsafe fn prefix(v: __m512i) -> __m512i;
    /// The last lane in every lane.
    #[cfg(target_arch = "x86_64")]
    unsafe fn top(v: __m512i) -> __m512i;
    /// The first lane.
    #[cfg(target_arch = "x86_64")]
    unsafe fn first(v: __m512i) -> Self;
}

/// The [`Word`] impl of one integer type: its [`Width`], its intrinsics,
/// the `alignr` counts of its prefix's shifts, and its last lane.
macro_rules! word {
    ($t:ty, $width:ident, $set1:ident, $add:ident, $sub:ident, $up:ident,
     [$($shift:literal),+], $last:literal, $perm:ident, $first:ident) => {
        impl Word for $t {
            fn holds<T: Pod>() -> bool {
                width::<T>() == Some(Width::$width)
            }
            #[inline(always)]
            fn wrapping_add(self, other: Self) -> Self {
                <$t>::wrapping_add(self, other)
            }
            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn splat(self) -> __m512i {
                // SAFETY: the caller's contract: the CPU has AVX-512F.
                unsafe { std::arch::x86_64::$set1(self) }
            }
            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn add(a: __m512i, b: __m512i) -> __m512i {
                // SAFETY: as above.
                unsafe { std::arch::x86_64::$add(a, b) }
            }
            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn sub(a: __m512i, b: __m512i) -> __m512i {
                // SAFETY: as above.
                unsafe { std::arch::x86_64::$sub(a, b) }
            }
            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn prefix(v: __m512i) -> __m512i {
                use std::arch::x86_64::{$add as add, $up as up};
                // SAFETY: as above. Shifted up by 1, 2, 4 (, 8) lanes,
                // zeros shifted in: `up::<k>(v, 0)` moves lane i to i + L - k.
                unsafe {
                    let z = std::arch::x86_64::_mm512_setzero_si512();
                    let mut v = v;
                    $(v = add(v, up::<$shift>(v, z));)+
                    v
                }
            }
            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn top(v: __m512i) -> __m512i {
                // SAFETY: as above.
                unsafe { std::arch::x86_64::$perm(Self::splat($last), v) }
            }
            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn first(v: __m512i) -> Self {
                use std::arch::x86_64::{_mm512_castsi512_si128, $first as first};
                // SAFETY: as above.
                unsafe { first(_mm512_castsi512_si128(v)) }
            }
        }
    };
}

word!(
    i64,
    W64,
    _mm512_set1_epi64,
    _mm512_add_epi64,
    _mm512_sub_epi64,
    _mm512_alignr_epi64,
    [7, 6, 4],
    7,
    _mm512_permutexvar_epi64,
    _mm_cvtsi128_si64
);
word!(
    i32,
    W32,
    _mm512_set1_epi32,
    _mm512_add_epi32,
    _mm512_sub_epi32,
    _mm512_alignr_epi32,
    [15, 14, 12, 8],
    15,
    _mm512_permutexvar_epi32,
    _mm_cvtsi128_si32
);

/// Vectors per step of the loop.
const VECTORS: usize = 4;

/// With `STREAM`, whole vectors leave through non-temporal stores.
///
/// # Safety
/// The CPU has AVX-512F; `W::holds::<T>()`; `out` is as long as `x`;
/// with `STREAM`, `out` starts on a 64-byte boundary.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn kernel<W, U, T, F, const STREAM: bool>(
    inclusive: bool,
    x: &[U],
    f: &F,
    out: &mut [T],
    carry: W,
) -> W
where
    W: Word,
    U: Copy,
    T: Pod,
    F: UnaryFunctor<U, Output = T>,
{
    use std::arch::x86_64::{_mm512_loadu_si512, _mm512_storeu_si512, _mm512_stream_si512};
    let lanes = 64 / std::mem::size_of::<W>();
    let step = VECTORS * lanes;
    let n = x.len();
    let op = out.as_mut_ptr().cast::<W>();
    // SAFETY: the CPU has AVX-512F (the contract), for which this
    // function is compiled; so for every vector call below.
    let mut run = unsafe { carry.splat() };
    // The transformed inputs of one step, so that any `f` works; for a
    // plain scan the copy folds away into the loads.
    let mut buf = [carry; 64];
    let mut i = 0;
    while i + step <= n {
        for (b, &v) in buf.iter_mut().zip(&x[i..i + step]) {
            *b = to_word(f.call(v));
        }
        let bp = buf.as_ptr();
        let mut v = [run; VECTORS];
        for (k, vk) in v.iter_mut().enumerate() {
            // SAFETY: `buf` holds 64 words of which `step` = 4 * lanes are
            // read, a vector (64 bytes) at a time; unaligned loads are
            // allowed.
            *vk = unsafe { _mm512_loadu_si512(bp.add(k * lanes).cast()) };
        }
        // SAFETY: AVX-512F (above).
        unsafe {
            // Each vector's own prefix, then chained to the one before.
            let mut s = v;
            for sk in &mut s {
                *sk = W::prefix(*sk);
            }
            for k in 1..VECTORS {
                s[k] = W::add(s[k], W::top(s[k - 1]));
            }
            let mut inc = run;
            for k in 0..VECTORS {
                inc = W::add(s[k], run);
                let o = if inclusive { inc } else { W::sub(inc, v[k]) };
                // i + (k + 1) * lanes <= i + step <= n = out.len() (the
                // contract), and T is as wide as W: in bounds; unaligned
                // stores are allowed; with STREAM, `op` is 64-byte aligned
                // (the contract) and so is every vector, 64 bytes apart.
                let at = op.add(i + k * lanes);
                if STREAM {
                    _mm512_stream_si512(at.cast(), o);
                } else {
                    _mm512_storeu_si512(at.cast(), o);
                }
            }
            // The one dependence from step to step: the last sum, broadcast.
            run = W::top(inc);
        }
        i += step;
    }
    // SAFETY: AVX-512F (above).
    let mut acc = unsafe { W::first(run) };
    for (o, &v) in out[i..].iter_mut().zip(&x[i..]) {
        let v: W = to_word(f.call(v));
        let before = acc;
        acc = acc.wrapping_add(v);
        *o = from_word(if inclusive { acc } else { before });
    }
    acc
}

/// # Safety
/// The CPU has AVX-512F; `W::holds::<T>()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn add_kernel<W: Word, T: Pod>(out: &mut [T], p: W) {
    use std::arch::x86_64::{_mm512_loadu_si512, _mm512_storeu_si512};
    let lanes = 64 / std::mem::size_of::<W>();
    let (n, op) = (out.len(), out.as_mut_ptr().cast::<W>());
    // SAFETY: AVX-512F (the contract).
    let pv = unsafe { p.splat() };
    let mut i = 0;
    while i + lanes <= n {
        // SAFETY: i + lanes <= n elements as wide as W: in bounds;
        // unaligned accesses are allowed; AVX-512F (the contract).
        unsafe {
            let v = _mm512_loadu_si512(op.add(i).cast());
            _mm512_storeu_si512(op.add(i).cast(), W::add(v, pv));
        }
        i += lanes;
    }
    for o in &mut out[i..] {
        *o = from_word(to_word::<T, W>(*o).wrapping_add(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Identity;

    /// The scalar chain, wrapping.
    fn reference<T: Copy>(
        kind: ScanKind,
        x: &[T],
        carry: T,
        add: impl Fn(T, T) -> T,
    ) -> (Vec<T>, T) {
        let mut acc = carry;
        let out = x
            .iter()
            .map(|&v| {
                let before = acc;
                acc = add(acc, v);
                if kind == ScanKind::Inclusive {
                    acc
                } else {
                    before
                }
            })
            .collect();
        (out, acc)
    }

    fn draws(n: usize) -> Vec<u64> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            })
            .collect()
    }

    #[test]
    fn sums_match_the_scalar_chain() {
        if !has_avx512f() {
            return; // nothing to check: `fits` is false, the path unused
        }
        let r = draws(300);
        // Full-range values: the sums wrap.
        let x64: Vec<i64> = r.iter().map(|&v| v as i64).collect();
        let x32: Vec<i32> = r.iter().map(|&v| v as i32).collect();
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            for len in (0..100).chain([255, 256, 257, 300]) {
                for carry in [0, -5, i32::MAX] {
                    let x = &x64[..len];
                    let mut out = vec![0i64; len];
                    let total = scan_sums(kind, x, &Identity, &mut out, carry as i64);
                    let want = reference(kind, x, carry as i64, i64::wrapping_add);
                    assert_eq!((out, total), want, "i64 {kind:?} {len} {carry}");
                    let x = &x32[..len];
                    let mut out = vec![0i32; len];
                    let total = scan_sums(kind, x, &Identity, &mut out, carry);
                    let want = reference(kind, x, carry, i32::wrapping_add);
                    assert_eq!((out, total), want, "i32 {kind:?} {len} {carry}");
                }
            }
        }
        // The unsigned twins, with a transform from another type.
        let xu: Vec<u8> = r.iter().map(|&v| v as u8).collect();
        let mut out = vec![0u64; 300];
        let total = scan_sums(ScanKind::Inclusive, &xu, &|v: u8| v as u64 * 3, &mut out, 3);
        let x3: Vec<u64> = xu.iter().map(|&v| v as u64 * 3).collect();
        assert_eq!(
            (out, total),
            reference(ScanKind::Inclusive, &x3, 3, u64::wrapping_add)
        );
        let mut out = vec![0u32; 300];
        let total = scan_sums(
            ScanKind::Exclusive,
            &xu,
            &|v: u8| v as u32,
            &mut out,
            u32::MAX,
        );
        let x1: Vec<u32> = xu.iter().map(|&v| v as u32).collect();
        assert_eq!(
            (out, total),
            reference(ScanKind::Exclusive, &x1, u32::MAX, u32::wrapping_add)
        );
    }

    #[test]
    fn streamed_sums_match_the_scalar_chain_at_every_offset() {
        if !has_avx512f() {
            return;
        }
        let r = draws(700);
        let x64: Vec<i64> = r.iter().map(|&v| v as i64).collect();
        let x32: Vec<i32> = r.iter().map(|&v| v as i32).collect();
        // Outputs starting at each element of a line: the head before the
        // 64-byte boundary takes plain stores, the rest streams.
        let mut room64 = vec![0i64; 720];
        let mut room32 = vec![0i32; 720];
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            for at in 0..16 {
                for len in [0, 1, 9, 31, 64, 255, 700 - 16] {
                    let out = &mut room64[at..at + len];
                    let total = scan_sums_streamed(kind, &x64[..len], &Identity, out, -7);
                    let want = reference(kind, &x64[..len], -7, i64::wrapping_add);
                    assert_eq!((out.to_vec(), total), want, "i64 {kind:?} at {at}, {len}");
                    let out = &mut room32[at..at + len];
                    let total = scan_sums_streamed(kind, &x32[..len], &Identity, out, 5);
                    let want = reference(kind, &x32[..len], 5, i32::wrapping_add);
                    assert_eq!((out.to_vec(), total), want, "i32 {kind:?} at {at}, {len}");
                }
            }
        }
    }

    #[test]
    fn add_to_adds_everywhere() {
        if !has_avx512f() {
            return;
        }
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 31, 100] {
            let mut v: Vec<i64> = (0..len as i64).collect();
            add_to(&mut v, i64::MAX);
            let want: Vec<i64> = (0..len as i64).map(|i| i.wrapping_add(i64::MAX)).collect();
            assert_eq!(v, want, "i64 {len}");
            let mut v: Vec<u32> = (0..len as u32).collect();
            add_to(&mut v, u32::MAX - 3);
            let want: Vec<u32> = (0..len as u32)
                .map(|i| i.wrapping_add(u32::MAX - 3))
                .collect();
            assert_eq!(v, want, "u32 {len}");
        }
    }

    #[test]
    fn only_sums_of_four_and_eight_byte_integers_fit() {
        use granule_core::reducer::{Max, Sum};
        assert!(!fits::<i64, _>(&Max));
        assert!(!fits::<f64, _>(&Sum));
        assert!(!fits::<f32, _>(&Sum));
        assert!(!fits::<i16, _>(&Sum));
        for ok in [
            fits::<i64, _>(&Sum),
            fits::<u64, _>(&&Sum),
            fits::<i32, _>(&Sum),
            fits::<u32, _>(&Sum),
        ] {
            assert_eq!(ok, has_avx512f());
        }
    }

    #[test]
    fn words_hold_their_twins_only() {
        assert!(<i64 as Word>::holds::<u64>() && !<i64 as Word>::holds::<u32>());
        assert!(<i32 as Word>::holds::<i32>() && !<i32 as Word>::holds::<i64>());
        assert!(!<i32 as Word>::holds::<f32>());
    }
}
