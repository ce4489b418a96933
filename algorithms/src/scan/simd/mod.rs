//! Running sums of 4- and 8-byte integers in vectors, for the host scans:
//! AVX-512 where the CPU has it, else AVX2 (half as many lanes).
//!
//! The scalar scan adds one element to the running value per step, a
//! chain of dependent adds: one element per cycle at best. Here each
//! vector (8 or 16 lanes) gets its own prefix in shifted adds (no
//! dependence on the running value), four vectors are chained to each
//! other, and the running value is added and broadcast once per four
//! vectors. Integer addition is associative, so the sums are the same
//! bits as the scalar chain's, whatever the grouping.
//!
//! Here: the entry points, which pick the instruction set and the word,
//! and the kernels, written once over the vectors of [`vectors`].

#[cfg(target_arch = "x86_64")]
mod vectors;

use super::ScanKind;
use crate::host::isa::Isa;
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{KnownOp, Reducer};
use granule_views::Element;
use std::any::TypeId;
#[cfg(target_arch = "x86_64")]
use vectors::{Lanes, Ymm, Zmm};

/// Whether scans of `T` under `op` may take [`scan_sums`]: `op` joins
/// with `+`, `T` is `i32`, `u32`, `i64` or `u64`, and the CPU has
/// AVX-512F or AVX2. The vector adds wrap, as `+` does when overflow is not
/// checked: callers take this path only then (`!cfg!(debug_assertions)`),
/// so that a debug build still panics on overflow, as the scalar chain
/// does.
pub(super) fn fits<T: Element, R: Reducer<T>>(op: &R) -> bool {
    op.known_op() == Some(KnownOp::Sum) && fits_type::<T>()
}

/// `T` is a 4- or 8-byte integer, and the CPU has AVX-512F or AVX2.
fn fits_type<T: Element>() -> bool {
    width::<T>().is_some() && Isa::widest().is_some()
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
fn width<T: Element>() -> Option<Width> {
    let t = TypeId::of::<T>();
    if [TypeId::of::<i64>(), TypeId::of::<u64>()].contains(&t) {
        Some(Width::W64)
    } else if [TypeId::of::<i32>(), TypeId::of::<u32>()].contains(&t) {
        Some(Width::W32)
    } else {
        None
    }
}

/// Scans `f(x)` into `out` (as long as `x`) from `carry`, with wrapping
/// `+`, inclusive or exclusive; returns the running sum after the last
/// element.
///
/// # Panics
/// If `T` is not a 4- or 8-byte integer or the CPU lacks both AVX-512F and
/// AVX2 (so a wrong call panics instead of faulting), or `out` is not as
/// long as `x`.
pub(super) fn scan_sums<U, T, F>(kind: ScanKind, x: &[U], f: &F, out: &mut [T], carry: T) -> T
where
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    let isa = Isa::widest().expect("scan_sums: needs AVX-512F or AVX2");
    sums_on(isa, kind, x, f, out, carry)
}

/// [`scan_sums`] on `isa`.
///
/// # Panics
/// If the CPU lacks `isa`, or as for [`scan_sums`].
fn sums_on<U, T, F>(isa: Isa, kind: ScanKind, x: &[U], f: &F, out: &mut [T], carry: T) -> T
where
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    assert!(
        width::<T>().is_some() && isa.present(),
        "scan_sums: needs a 4- or 8-byte integer and {isa:?}"
    );
    assert_eq!(x.len(), out.len(), "scan_sums: input and output lengths");
    // SAFETY: the CPU has `isa` and `T` is an integer of a word's width
    // (asserted); the lengths are equal (asserted).
    unsafe { run::<U, T, F, false>(isa, kind, x, f, out, carry) }
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
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    let isa = Isa::widest().expect("scan_sums_streamed: needs AVX-512F or AVX2");
    streamed_on(isa, kind, x, f, out, carry)
}

/// [`scan_sums_streamed`] on `isa`.
///
/// # Panics
/// If the CPU lacks `isa`, or as for [`scan_sums`].
fn streamed_on<U, T, F>(isa: Isa, kind: ScanKind, x: &[U], f: &F, out: &mut [T], carry: T) -> T
where
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    assert_eq!(x.len(), out.len(), "scan_sums_streamed: lengths");
    let head = out.as_ptr().align_offset(64).min(out.len());
    let carry = sums_on(isa, kind, &x[..head], f, &mut out[..head], carry);
    let (x, out) = (&x[head..], &mut out[head..]);
    // SAFETY: `sums_on` checked the CPU and the type; the lengths are
    // equal; and `out` now starts on a 64-byte boundary (or is empty),
    // which the streaming stores need.
    unsafe { run::<U, T, F, true>(isa, kind, x, f, out, carry) }
}

/// [`kernel`] for `T`'s word on `isa`.
///
/// # Safety
/// The CPU has `isa`, `T` is an integer of `width::<T>()`'s word, `out` is
/// as long as `x`, and with `STREAM` `out` starts on a 64-byte boundary.
#[inline(always)]
unsafe fn run<U, T, F, const STREAM: bool>(
    isa: Isa,
    kind: ScanKind,
    x: &[U],
    f: &F,
    out: &mut [T],
    carry: T,
) -> T
where
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    let inc = kind == ScanKind::Inclusive;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the contract: the CPU has `isa`, and T is an integer of
    // `width::<T>()`'s word; the lengths and (STREAM) the alignment.
    unsafe {
        match (isa, width::<T>()) {
            (Isa::Avx512, Some(Width::W64)) => from_word(kernel_avx512::<i64, _, _, _, STREAM>(
                inc,
                x,
                f,
                out,
                to_word(carry),
            )),
            (Isa::Avx512, _) => from_word(kernel_avx512::<i32, _, _, _, STREAM>(
                inc,
                x,
                f,
                out,
                to_word(carry),
            )),
            (Isa::Avx2, Some(Width::W64)) => from_word(kernel_avx2::<i64, _, _, _, STREAM>(
                inc,
                x,
                f,
                out,
                to_word(carry),
            )),
            (Isa::Avx2, _) => from_word(kernel_avx2::<i32, _, _, _, STREAM>(
                inc,
                x,
                f,
                out,
                to_word(carry),
            )),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // Unreachable: `isa` is `None` off x86-64 (the contract).
        let _ = (isa, inc, x, f, out, carry);
        unreachable!("scan_sums off x86-64")
    }
}

/// Adds `p` to every element of `out` (wrapping): the fix-up of a block
/// scanned from zero, a vector at a time.
///
/// # Panics
/// As for [`scan_sums`].
pub(super) fn add_to<T: Element>(out: &mut [T], p: T) {
    add_on(
        Isa::widest().expect("add_to: needs AVX-512F or AVX2"),
        out,
        p,
    )
}

/// [`add_to`] on `isa`.
///
/// # Panics
/// If the CPU lacks `isa`, or as for [`scan_sums`].
fn add_on<T: Element>(isa: Isa, out: &mut [T], p: T) {
    assert!(
        width::<T>().is_some() && isa.present(),
        "add_to: needs a 4- or 8-byte integer and {isa:?}"
    );
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as in `sums_on`.
    unsafe {
        match (isa, width::<T>()) {
            (Isa::Avx512, Some(Width::W64)) => add_avx512::<i64, T>(out, to_word(p)),
            (Isa::Avx512, _) => add_avx512::<i32, T>(out, to_word(p)),
            (Isa::Avx2, Some(Width::W64)) => add_avx2::<i64, T>(out, to_word(p)),
            (Isa::Avx2, _) => add_avx2::<i32, T>(out, to_word(p)),
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
fn to_word<T: Element, W: Word>(v: T) -> W {
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
fn from_word<W: Word, T: Element>(v: W) -> T {
    assert!(
        W::holds::<T>(),
        "from_word: not an integer of the word's width"
    );
    // SAFETY: as in `to_word`.
    unsafe { std::mem::transmute_copy::<W, T>(&v) }
}

/// An integer word the vector sums add: `i64` or `i32`.
trait Word: Element {
    /// Whether `T` is this word or its unsigned twin.
    fn holds<T: Element>() -> bool;
    fn wrapping_add(self, other: Self) -> Self;
}

impl Word for i64 {
    fn holds<T: Element>() -> bool {
        width::<T>() == Some(Width::W64)
    }
    #[inline(always)]
    fn wrapping_add(self, other: Self) -> Self {
        i64::wrapping_add(self, other)
    }
}

impl Word for i32 {
    fn holds<T: Element>() -> bool {
        width::<T>() == Some(Width::W32)
    }
    #[inline(always)]
    fn wrapping_add(self, other: Self) -> Self {
        i32::wrapping_add(self, other)
    }
}

/// Vectors per step of the loop.
const VECTORS: usize = 4;

/// The vector scan on `I`'s vectors; with `STREAM`, whole vectors leave
/// through non-temporal stores. Inlined into the entry points that
/// `entries!` makes, which compile it for their instruction set.
///
/// # Safety
/// The CPU has `I`'s instruction set and the caller is compiled for it;
/// `W::holds::<T>()`; `out` is as long as `x`; with `STREAM`, `out` starts
/// on a 64-byte boundary.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn kernel<I, W, U, T, F, const STREAM: bool>(
    inclusive: bool,
    x: &[U],
    f: &F,
    out: &mut [T],
    carry: W,
) -> W
where
    I: Lanes<W>,
    W: Word,
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    let lanes = I::BYTES / std::mem::size_of::<W>();
    let step = VECTORS * lanes;
    let n = x.len();
    let op = out.as_mut_ptr().cast::<W>();
    // SAFETY: the CPU has I's instruction set (the contract), for which
    // the caller is compiled; so for every vector call below.
    let mut run = unsafe { I::splat(carry) };
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
            // SAFETY: `buf` holds 64 words of which `step` (at most 4 × 16)
            // are read, a vector at a time; loads are unaligned.
            *vk = unsafe { I::load(bp.add(k * lanes)) };
        }
        // SAFETY: the instruction set (above).
        unsafe {
            // Each vector's own prefix, then chained to the one before.
            let mut s = v;
            for sk in &mut s {
                *sk = I::prefix(*sk);
            }
            for k in 1..VECTORS {
                s[k] = I::add(s[k], I::top(s[k - 1]));
            }
            let mut inc = run;
            for k in 0..VECTORS {
                inc = I::add(s[k], run);
                let o = if inclusive { inc } else { I::sub(inc, v[k]) };
                // i + (k + 1) * lanes <= i + step <= n = out.len() (the
                // contract), and T is as wide as W: in bounds; unaligned
                // stores are allowed; with STREAM, `op` is 64-byte aligned
                // (the contract) and every vector lies a multiple of its
                // own size from it.
                let at = op.add(i + k * lanes);
                if STREAM {
                    I::stream(at, o);
                } else {
                    I::store(at, o);
                }
            }
            // The one dependence from step to step: the last sum, broadcast.
            run = I::top(inc);
        }
        i += step;
    }
    // SAFETY: the instruction set (above).
    let mut acc = unsafe { I::first(run) };
    for (o, &v) in out[i..].iter_mut().zip(&x[i..]) {
        let v: W = to_word(f.call(v));
        let before = acc;
        acc = acc.wrapping_add(v);
        *o = from_word(if inclusive { acc } else { before });
    }
    acc
}

/// Adds `p` to every element of `out`, a vector at a time.
///
/// # Safety
/// The CPU has `I`'s instruction set and the caller is compiled for it;
/// `W::holds::<T>()`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn add_kernel<I: Lanes<W>, W: Word, T: Element>(out: &mut [T], p: W) {
    let lanes = I::BYTES / std::mem::size_of::<W>();
    let (n, op) = (out.len(), out.as_mut_ptr().cast::<W>());
    // SAFETY: the instruction set (the contract).
    let pv = unsafe { I::splat(p) };
    let mut i = 0;
    while i + lanes <= n {
        // SAFETY: i + lanes <= n elements as wide as W: in bounds;
        // unaligned accesses are allowed; the instruction set (the contract).
        unsafe { I::store(op.add(i), I::add(I::load(op.add(i)), pv)) };
        i += lanes;
    }
    for o in &mut out[i..] {
        *o = from_word(to_word::<T, W>(*o).wrapping_add(p));
    }
}

/// The entry points of one instruction set: [`kernel`] and [`add_kernel`]
/// on the vectors `$isa`, compiled for `$feature`.
#[cfg(target_arch = "x86_64")]
macro_rules! entries {
    ($isa:ident, $feature:literal, $kernel:ident, $add:ident) => {
        /// [`kernel`] on this instruction set.
        ///
        /// # Safety
        /// As for [`kernel`], the CPU having the feature compiled for.
        #[target_feature(enable = $feature)]
        unsafe fn $kernel<W, U, T, F, const STREAM: bool>(
            inclusive: bool,
            x: &[U],
            f: &F,
            out: &mut [T],
            carry: W,
        ) -> W
        where
            $isa: Lanes<W>,
            W: Word,
            U: Copy,
            T: Element,
            F: UnaryFunctor<U, Output = T>,
        {
            // SAFETY: forwarded contract; compiled for the feature.
            unsafe { kernel::<$isa, W, U, T, F, STREAM>(inclusive, x, f, out, carry) }
        }

        /// [`add_kernel`] on this instruction set.
        ///
        /// # Safety
        /// The CPU has the feature compiled for; `W::holds::<T>()`.
        #[target_feature(enable = $feature)]
        unsafe fn $add<W: Word, T: Element>(out: &mut [T], p: W)
        where
            $isa: Lanes<W>,
        {
            // SAFETY: forwarded contract; compiled for the feature.
            unsafe { add_kernel::<$isa, W, T>(out, p) }
        }
    };
}

#[cfg(target_arch = "x86_64")]
entries!(Zmm, "avx512f", kernel_avx512, add_avx512);
#[cfg(target_arch = "x86_64")]
entries!(Ymm, "avx2", kernel_avx2, add_avx2);

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
        // No instruction set: nothing to check, `fits` is false.
        for isa in Isa::present_all() {
            sums_match_on(isa);
        }
    }

    fn sums_match_on(isa: Isa) {
        let r = draws(300);
        // Full-range values: the sums wrap.
        let x64: Vec<i64> = r.iter().map(|&v| v as i64).collect();
        let x32: Vec<i32> = r.iter().map(|&v| v as i32).collect();
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            for len in (0..100).chain([255, 256, 257, 300]) {
                for carry in [0, -5, i32::MAX] {
                    let x = &x64[..len];
                    let mut out = vec![0i64; len];
                    let total = sums_on(isa, kind, x, &Identity, &mut out, carry as i64);
                    let want = reference(kind, x, carry as i64, i64::wrapping_add);
                    assert_eq!((out, total), want, "{isa:?} i64 {kind:?} {len} {carry}");
                    let x = &x32[..len];
                    let mut out = vec![0i32; len];
                    let total = sums_on(isa, kind, x, &Identity, &mut out, carry);
                    let want = reference(kind, x, carry, i32::wrapping_add);
                    assert_eq!((out, total), want, "{isa:?} i32 {kind:?} {len} {carry}");
                }
            }
        }
        // The unsigned twins, with a transform from another type.
        let xu: Vec<u8> = r.iter().map(|&v| v as u8).collect();
        let mut out = vec![0u64; 300];
        let total = sums_on(
            isa,
            ScanKind::Inclusive,
            &xu,
            &|v: u8| v as u64 * 3,
            &mut out,
            3,
        );
        let x3: Vec<u64> = xu.iter().map(|&v| v as u64 * 3).collect();
        assert_eq!(
            (out, total),
            reference(ScanKind::Inclusive, &x3, 3, u64::wrapping_add)
        );
        let mut out = vec![0u32; 300];
        let total = sums_on(
            isa,
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
        for isa in Isa::present_all() {
            streamed_sums_match_on(isa);
        }
    }

    fn streamed_sums_match_on(isa: Isa) {
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
                    let total = streamed_on(isa, kind, &x64[..len], &Identity, out, -7);
                    let want = reference(kind, &x64[..len], -7, i64::wrapping_add);
                    assert_eq!(
                        (out.to_vec(), total),
                        want,
                        "{isa:?} i64 {kind:?} at {at}, {len}"
                    );
                    let out = &mut room32[at..at + len];
                    let total = streamed_on(isa, kind, &x32[..len], &Identity, out, 5);
                    let want = reference(kind, &x32[..len], 5, i32::wrapping_add);
                    assert_eq!(
                        (out.to_vec(), total),
                        want,
                        "{isa:?} i32 {kind:?} at {at}, {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn add_to_adds_everywhere() {
        for isa in Isa::present_all() {
            for len in [0, 1, 7, 8, 9, 15, 16, 17, 31, 100] {
                let mut v: Vec<i64> = (0..len as i64).collect();
                add_on(isa, &mut v, i64::MAX);
                let want: Vec<i64> = (0..len as i64).map(|i| i.wrapping_add(i64::MAX)).collect();
                assert_eq!(v, want, "i64 {len}");
                let mut v: Vec<u32> = (0..len as u32).collect();
                add_on(isa, &mut v, u32::MAX - 3);
                let want: Vec<u32> = (0..len as u32)
                    .map(|i| i.wrapping_add(u32::MAX - 3))
                    .collect();
                assert_eq!(v, want, "u32 {len}");
            }
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
            assert_eq!(ok, Isa::widest().is_some());
        }
    }

    #[test]
    fn words_hold_their_twins_only() {
        assert!(<i64 as Word>::holds::<u64>() && !<i64 as Word>::holds::<u32>());
        assert!(<i32 as Word>::holds::<i32>() && !<i32 as Word>::holds::<i64>());
        assert!(!<i32 as Word>::holds::<f32>());
    }
}
