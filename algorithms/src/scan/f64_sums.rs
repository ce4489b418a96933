//! Running sums of `f64` for the host scans, in vectors, in one grouping
//! that every CPU keeps bit for bit.
//!
//! The scalar chain adds one element per step and waits 4 cycles for each
//! add. Here a call's elements go in groups of 32 from its first one
//! (and the last `len % 32` one at a time), and a group of four
//! *octets* of 8 is summed as follows, every `+` an IEEE add:
//! 1. each half of an octet (4 elements `b`) gets its own prefix in two
//!    shifted adds: `a = [b0, b1 + b0, b2 + b1, b3 + b2]`, then
//!    `p = [a0, a1, a2 + a0, a3 + a1]`;
//! 2. the high half adds the low half's last sum: `c[j] = p[j] + p[3]`
//!    for `j` in `4..8`;
//! 3. octet `k > 0` adds octet `k - 1`'s last sum: `s_k = c_k + s_(k-1)[7]`;
//! 4. the outputs are `s_k[j] + run`, where `run` is the running sum before
//!    the group (the call's `carry` at first), and the next group's `run`
//!    is the last of them. An exclusive scan writes each element's
//!    predecessor's output instead (`run` for the first).
//!
//! So no add waits on the running sum except one per group. AVX-512 holds
//! an octet in one vector (steps 1 and 2 are in-half permutes and masked
//! adds), AVX2 in two (masks become blends), and CPUs without either run
//! the same adds one at a time ([`scalar`]): the bits are the same on
//! every CPU, which the tests check. A caller that cuts a block into
//! pieces keeps the grouping by cutting at multiples of 32.
//!
//! Eight independent chains in the lanes of one vector (`parts`) would
//! also hide the add latency, but need two 8×8 transposes per 64
//! elements; this grouping needs none.

use super::{bits, ScanKind};
use crate::host::isa::Isa;
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{KnownOp, Reducer};
use granule_views::Element;
use std::any::TypeId;

/// Elements per group: callers that cut a block into pieces cut at
/// multiples of it.
pub(super) const GROUP: usize = 32;

/// Whether scans of `T` under `op` take [`scan`]: `f64` sums, on any CPU.
pub(super) fn fits<T: Element, R: Reducer<T>>(op: &R) -> bool {
    op.known_op() == Some(KnownOp::Sum) && TypeId::of::<T>() == TypeId::of::<f64>()
}

/// Scans `f(x)` into `out` (as long as `x`) from `carry`, inclusive or
/// exclusive, in the grouping of the module's note, on `isa` (the scans
/// pass [`Isa::widest`]; `None` adds one at a time); returns the running
/// sum after the last element. With `stream`, whole vectors leave through
/// non-temporal stores when `out` starts on a 64-byte boundary (plain
/// stores otherwise: the same bits); the caller fences before it
/// publishes them.
///
/// # Panics
/// If `T` is not `f64`, `out` is not as long as `x`, or the CPU lacks
/// `isa`.
pub(super) fn scan<U, T, F>(
    isa: Option<Isa>,
    kind: ScanKind,
    x: &[U],
    f: &F,
    out: &mut [T],
    carry: T,
    stream: bool,
) -> T
where
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    assert!(
        TypeId::of::<T>() == TypeId::of::<f64>(),
        "f64_sums: T is not f64"
    );
    assert_eq!(x.len(), out.len(), "f64_sums: input and output lengths");
    assert!(isa.is_none_or(Isa::present), "f64_sums: {isa:?} missing");
    let inclusive = kind == ScanKind::Inclusive;
    // A closure that only sees f64: `f`'s outputs are T, which is f64.
    let g = |v: U| bits::<T, f64>(f.call(v));
    // SAFETY: T is f64 (asserted), so `out` holds as many f64.
    let o = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<f64>(), out.len()) };
    let aligned = (o.as_ptr() as usize).is_multiple_of(64);
    let carry = bits::<T, f64>(carry);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has `isa` (asserted); the lengths are equal
    // (asserted); the streaming forms get an output on a 64-byte boundary.
    let run = unsafe {
        match (isa, stream && aligned) {
            (Some(Isa::Avx512), false) => avx512::<_, _, false>(inclusive, x, &g, o, carry),
            (Some(Isa::Avx512), true) => avx512::<_, _, true>(inclusive, x, &g, o, carry),
            (Some(Isa::Avx2), false) => avx2::<_, _, false>(inclusive, x, &g, o, carry),
            (Some(Isa::Avx2), true) => avx2::<_, _, true>(inclusive, x, &g, o, carry),
            (None, _) => scalar(inclusive, x, &g, o, carry),
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let run = {
        let _ = (stream, aligned);
        scalar(inclusive, x, &g, o, carry)
    };
    bits::<f64, T>(run)
}

/// The elements after the last whole group, one add at a time from `run`.
#[inline(always)]
fn tail<U: Copy>(inclusive: bool, x: &[U], g: &impl Fn(U) -> f64, o: &mut [f64], run: f64) -> f64 {
    let mut acc = run;
    for (o, &v) in o.iter_mut().zip(x) {
        let before = acc;
        acc += g(v);
        *o = if inclusive { acc } else { before };
    }
    acc
}

/// The grouping one add at a time: the definition the vector forms keep.
fn scalar<U: Copy>(
    inclusive: bool,
    x: &[U],
    g: &impl Fn(U) -> f64,
    o: &mut [f64],
    carry: f64,
) -> f64 {
    let whole = x.len() / GROUP * GROUP;
    let mut run = carry;
    for (xg, og) in x[..whole]
        .chunks_exact(GROUP)
        .zip(o.chunks_exact_mut(GROUP))
    {
        let mut s = [0f64; GROUP];
        for (k, octet) in xg.chunks_exact(8).enumerate() {
            let v: [f64; 8] = std::array::from_fn(|j| g(octet[j]));
            let mut c = [0f64; 8];
            for h in [0, 4] {
                let b = &v[h..h + 4];
                let a = [b[0], b[1] + b[0], b[2] + b[1], b[3] + b[2]];
                let p = [a[0], a[1], a[2] + a[0], a[3] + a[1]];
                c[h..h + 4].copy_from_slice(&p);
            }
            for j in 4..8 {
                c[j] += c[3];
            }
            if k > 0 {
                let last = s[8 * k - 1];
                for cj in &mut c {
                    *cj += last;
                }
            }
            s[8 * k..8 * k + 8].copy_from_slice(&c);
        }
        let mut before = run;
        for (o, sj) in og.iter_mut().zip(s) {
            let out = sj + run;
            *o = if inclusive { out } else { before };
            before = out;
        }
        run = before;
    }
    tail(inclusive, &x[whole..], g, &mut o[whole..], run)
}

/// An octet of the grouping in one instruction set's vectors.
///
/// # Safety (of the functions)
/// The CPU has the instruction set; they are called only from a kernel
/// compiled for it, into which they inline. Pointers are valid for 8
/// `f64`; `store::<true>` needs them 64-byte aligned.
#[cfg(target_arch = "x86_64")]
trait Octet: Copy {
    unsafe fn load(p: *const f64) -> Self;
    unsafe fn splat(v: f64) -> Self;
    unsafe fn add(self, other: Self) -> Self;
    /// Steps 1 and 2 of the module's note: each half's prefix, then the
    /// low half's last sum added to the high half.
    unsafe fn prefix(self) -> Self;
    /// Lane 7 in every lane.
    unsafe fn top(self) -> Self;
    /// Lane 7 of `before`, then lanes 0..7 of `self`.
    unsafe fn after(self, before: Self) -> Self;
    unsafe fn store<const STREAM: bool>(self, p: *mut f64);
    unsafe fn first(self) -> f64;
}

/// AVX-512: an octet per vector; the steps within halves are in-half
/// permutes and masked adds (lanes outside the mask keep their value, as
/// in the scalar form: adding 0.0 would turn -0.0 into 0.0).
#[cfg(target_arch = "x86_64")]
impl Octet for std::arch::x86_64::__m512d {
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: the trait's contract.
        unsafe { std::arch::x86_64::_mm512_loadu_pd(p) }
    }
    #[inline(always)]
    unsafe fn splat(v: f64) -> Self {
        // SAFETY: as above.
        unsafe { std::arch::x86_64::_mm512_set1_pd(v) }
    }
    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: as above.
        unsafe { std::arch::x86_64::_mm512_add_pd(self, other) }
    }
    #[inline(always)]
    unsafe fn prefix(self) -> Self {
        use std::arch::x86_64::*;
        // SAFETY: as above. In each half, up one lane (lanes 0, 0, 1, 2),
        // added above lane 0; then up two (0, 0, 0, 1), added above lane
        // 1; then lane 3 added to the high half.
        unsafe {
            let v = self;
            let a = _mm512_mask_add_pd(v, 0b1110_1110, v, _mm512_permutex_pd::<0b10_01_00_00>(v));
            let p = _mm512_mask_add_pd(a, 0b1100_1100, a, _mm512_permutex_pd::<0b01_00_00_00>(a));
            _mm512_mask_add_pd(p, 0xF0, p, _mm512_permutexvar_pd(_mm512_set1_epi64(3), p))
        }
    }
    #[inline(always)]
    unsafe fn top(self) -> Self {
        use std::arch::x86_64::*;
        // SAFETY: as above.
        unsafe { _mm512_permutexvar_pd(_mm512_set1_epi64(7), self) }
    }
    #[inline(always)]
    unsafe fn after(self, before: Self) -> Self {
        use std::arch::x86_64::*;
        // SAFETY: as above.
        unsafe {
            _mm512_castsi512_pd(_mm512_alignr_epi64::<7>(
                _mm512_castpd_si512(self),
                _mm512_castpd_si512(before),
            ))
        }
    }
    #[inline(always)]
    unsafe fn store<const STREAM: bool>(self, p: *mut f64) {
        // SAFETY: as above.
        unsafe {
            if STREAM {
                std::arch::x86_64::_mm512_stream_pd(p, self);
            } else {
                std::arch::x86_64::_mm512_storeu_pd(p, self);
            }
        }
    }
    #[inline(always)]
    unsafe fn first(self) -> f64 {
        // SAFETY: as above.
        unsafe { std::arch::x86_64::_mm512_cvtsd_f64(self) }
    }
}

/// AVX2: an octet as its two halves; masks become blends.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Halves(std::arch::x86_64::__m256d, std::arch::x86_64::__m256d);

#[cfg(target_arch = "x86_64")]
impl Octet for Halves {
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        use std::arch::x86_64::_mm256_loadu_pd;
        // SAFETY: the trait's contract.
        unsafe { Halves(_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4))) }
    }
    #[inline(always)]
    unsafe fn splat(v: f64) -> Self {
        // SAFETY: as above.
        let h = unsafe { std::arch::x86_64::_mm256_set1_pd(v) };
        Halves(h, h)
    }
    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        use std::arch::x86_64::_mm256_add_pd;
        // SAFETY: as above.
        unsafe {
            Halves(
                _mm256_add_pd(self.0, other.0),
                _mm256_add_pd(self.1, other.1),
            )
        }
    }
    #[inline(always)]
    unsafe fn prefix(self) -> Self {
        use std::arch::x86_64::*;
        // SAFETY: as above. Up one lane, blended above lane 0; up two,
        // blended above lane 1.
        let half = |b: __m256d| unsafe {
            let one = _mm256_add_pd(b, _mm256_permute4x64_pd::<0b10_01_00_00>(b));
            let a = _mm256_blend_pd::<0b1110>(b, one);
            let two = _mm256_add_pd(a, _mm256_permute4x64_pd::<0b01_00_00_00>(a));
            _mm256_blend_pd::<0b1100>(a, two)
        };
        let lo = half(self.0);
        // SAFETY: as above.
        unsafe {
            Halves(
                lo,
                _mm256_add_pd(half(self.1), _mm256_permute4x64_pd::<0xFF>(lo)),
            )
        }
    }
    #[inline(always)]
    unsafe fn top(self) -> Self {
        // SAFETY: as above.
        let t = unsafe { std::arch::x86_64::_mm256_permute4x64_pd::<0xFF>(self.1) };
        Halves(t, t)
    }
    #[inline(always)]
    unsafe fn after(self, before: Self) -> Self {
        use std::arch::x86_64::*;
        // SAFETY: as above. Each half up one lane, the lane below it in
        // lane 0.
        let up = |v: __m256d, below: __m256d| unsafe {
            _mm256_blend_pd::<0b0001>(_mm256_permute4x64_pd::<0b10_01_00_00>(v), below)
        };
        // SAFETY: as above.
        let low_top = unsafe { _mm256_permute4x64_pd::<0xFF>(self.0) };
        // SAFETY: as above.
        Halves(up(self.0, unsafe { before.top() }.0), up(self.1, low_top))
    }
    #[inline(always)]
    unsafe fn store<const STREAM: bool>(self, p: *mut f64) {
        use std::arch::x86_64::*;
        // SAFETY: as above; with STREAM each half is 32-byte aligned.
        unsafe {
            if STREAM {
                _mm256_stream_pd(p, self.0);
                _mm256_stream_pd(p.add(4), self.1);
            } else {
                _mm256_storeu_pd(p, self.0);
                _mm256_storeu_pd(p.add(4), self.1);
            }
        }
    }
    #[inline(always)]
    unsafe fn first(self) -> f64 {
        // SAFETY: as above.
        unsafe { std::arch::x86_64::_mm256_cvtsd_f64(self.0) }
    }
}

/// The grouping on `V`'s vectors; with `STREAM`, octets leave through
/// non-temporal stores. Inlined into [`avx512`] and [`avx2`], which
/// compile it for their instruction set.
///
/// # Safety
/// The CPU has `V`'s instruction set and the caller is compiled for it;
/// `o` is as long as `x`; with `STREAM`, `o` starts on a 64-byte boundary.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn kernel<V: Octet, U: Copy, G: Fn(U) -> f64, const STREAM: bool>(
    inclusive: bool,
    x: &[U],
    g: &G,
    o: &mut [f64],
    carry: f64,
) -> f64 {
    let whole = x.len() / GROUP * GROUP;
    let op = o.as_mut_ptr();
    // SAFETY: for every vector call below, the instruction set (the
    // contract), and `buf` holds the 4 octets loaded.
    let mut run = unsafe { V::splat(carry) };
    let mut buf = [0f64; GROUP];
    let mut i = 0;
    while i < whole {
        for (b, &v) in buf.iter_mut().zip(&x[i..i + GROUP]) {
            *b = g(v);
        }
        // SAFETY: as above.
        unsafe {
            let mut s = [run; 4];
            for (k, sk) in s.iter_mut().enumerate() {
                *sk = V::load(buf.as_ptr().add(8 * k)).prefix();
            }
            for k in 1..4 {
                s[k] = s[k].add(s[k - 1].top());
            }
            let mut before = run;
            for (k, sk) in s.into_iter().enumerate() {
                let out = sk.add(run);
                let w = if inclusive { out } else { out.after(before) };
                // i + 8k + 8 <= whole <= o.len(); with STREAM, `op` is
                // 64-byte aligned (the contract) and so is every octet.
                w.store::<STREAM>(op.add(i + 8 * k));
                before = out;
            }
            run = before.top();
        }
        i += GROUP;
    }
    // SAFETY: as above.
    let run = unsafe { run.first() };
    tail(inclusive, &x[whole..], g, &mut o[whole..], run)
}

/// [`kernel`] on AVX-512.
///
/// # Safety
/// As for [`kernel`], the CPU having AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn avx512<U: Copy, G: Fn(U) -> f64, const STREAM: bool>(
    inclusive: bool,
    x: &[U],
    g: &G,
    o: &mut [f64],
    carry: f64,
) -> f64 {
    use std::arch::x86_64::__m512d;
    // SAFETY: forwarded contract; compiled for AVX-512F.
    unsafe { kernel::<__m512d, U, G, STREAM>(inclusive, x, g, o, carry) }
}

/// [`kernel`] on AVX2.
///
/// # Safety
/// As for [`kernel`], the CPU having AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<U: Copy, G: Fn(U) -> f64, const STREAM: bool>(
    inclusive: bool,
    x: &[U],
    g: &G,
    o: &mut [f64],
    carry: f64,
) -> f64 {
    // SAFETY: forwarded contract; compiled for AVX2.
    unsafe { kernel::<Halves, U, G, STREAM>(inclusive, x, g, o, carry) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values over many orders of magnitude and both signs, with zeros of
    /// both signs and infinities: any regrouping changes some bits.
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                match i % 97 {
                    5 => -0.0,
                    11 => 0.0,
                    89 if n > 500 => f64::INFINITY,
                    _ => ((s % 2001) as f64 - 1000.0) * 10f64.powi((s >> 20) as i32 % 12 - 6),
                }
            })
            .collect()
    }

    fn run_on(
        isa: Option<Isa>,
        kind: ScanKind,
        x: &[f64],
        carry: f64,
        stream: bool,
    ) -> (Vec<u64>, u64) {
        // Streamed into a 64-byte aligned output, else one 8 bytes off it.
        let mut room = vec![0f64; x.len() + 16];
        let skip = room.as_ptr().align_offset(64) + usize::from(!stream);
        let out = &mut room[skip..skip + x.len()];
        let total = scan(isa, kind, x, &|v: f64| 2.0 * v, out, carry, stream);
        crate::host::stream::fence();
        (out.iter().map(|v| v.to_bits()).collect(), total.to_bits())
    }

    #[test]
    fn every_form_gives_the_scalar_bits() {
        let lens = (0..=100).chain([255, 256, 257, 1000, 4099]);
        for (n, kind) in lens.flat_map(|n| [(n, ScanKind::Inclusive), (n, ScanKind::Exclusive)]) {
            let x = values(n, 0x9E37_79B9 ^ n as u64);
            for stream in [false, true] {
                let want = run_on(None, kind, &x, 0.375, stream);
                for isa in Isa::present_all() {
                    let got = run_on(Some(isa), kind, &x, 0.375, stream);
                    assert!(got == want, "n {n}, {kind:?}, {isa:?}, stream {stream}");
                }
            }
        }
    }

    #[test]
    fn the_grouping_is_the_one_documented() {
        // Powers of two, exact in any grouping, and then one value that
        // shows which adds happened in which order.
        let x: Vec<f64> = (0..40).map(|i| f64::from(1u32 << (i % 20))).collect();
        let (out, _) = run_on(None, ScanKind::Inclusive, &x, 0.0, false);
        let mut acc = 0.0;
        for (i, (&v, &o)) in x.iter().zip(&out).enumerate() {
            acc += 2.0 * v;
            assert_eq!(f64::from_bits(o), acc, "element {i}");
        }
        // 2e16 + 2 + 2 + ... rounds differently by grouping (2 is half an
        // ulp of 2e16): in the documented one, element 2 is (2 + 2) + 2e16
        // (its half's prefix adds its two neighbours first), where the
        // chain gives (2e16 + 2) + 2 = 2e16.
        // (A whole group: shorter calls add one at a time.)
        let mut y = vec![1.0; GROUP];
        y[0] = 1e16;
        let (out, _) = run_on(None, ScanKind::Inclusive, &y, 0.0, false);
        assert_eq!(f64::from_bits(out[1]), 2.0 + 2e16);
        assert_eq!(f64::from_bits(out[2]), (2.0 + 2.0) + 2e16);
        assert_ne!(f64::from_bits(out[2]), (2e16 + 2.0) + 2.0);
        assert_eq!(f64::from_bits(out[3]), (2.0 + 2.0) + (2.0 + 2e16));
    }
}
