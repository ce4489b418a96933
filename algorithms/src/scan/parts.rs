//! Pass 2 of the host scans of `f32` sums in vectors: the [`LANES`]
//! parts' chains of `fold_lanes` (`super::host`) run as the 8 lanes of one
//! AVX2 vector (AVX-512 CPUs take it too, since there are only 8 parts).
//!
//! Part `k` of a block is folded element by element from its start value,
//! as in the scalar pass; here, each step loads 8 consecutive elements of
//! every part (8 vectors), transposes them so that vector `t` holds the
//! parts' elements `t`, adds them to the vector of running values in
//! order, and transposes the 8 results back, so each part's outputs leave
//! in whole 64-byte lines (non-temporal for outputs beyond the cache).
//! Lane `k` adds exactly what the scalar chain `k` adds, in the same
//! order, so the bits are those of the scalar pass, which CPUs without
//! AVX2 run. One vector load and store per 8 elements, instead of one per
//! element in 8 interleaved streams, and no staging copy. (`f64` sums took
//! this form too, on AVX-512 and AVX2, until they moved to `f64_sums`,
//! whose in-vector prefix needs no transposes.)

use super::host::LANES;
use super::{bits, ScanKind};
use crate::host::isa::Isa;
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{KnownOp, Reducer};
use granule_views::Element;
use std::any::TypeId;

/// The instruction set [`fold_parts`] runs scans of `T` under `op` on:
/// `f32` sums on a CPU with AVX2.
pub(super) fn isa<T: Element, R: Reducer<T>>(op: &R) -> Option<Isa> {
    let f32_sums = op.known_op() == Some(KnownOp::Sum) && TypeId::of::<T>() == TypeId::of::<f32>();
    Some(Isa::Avx2).filter(|i| f32_sums && i.present())
}

/// Folds the [`LANES`] parts of `x`, each `m` long (a multiple of 16), side
/// by side: part `k` from `start[k]`, its outputs (inclusive or
/// exclusive) to `out[k * m..(k + 1) * m]`. `fetch(len)` is called after
/// every `chunk` elements of each part (`len = LANES * chunk`), so the
/// caller can prefetch its next block at the pace of the writes. Returns
/// the running values after the parts; elements of `x` past `LANES * m`
/// are the caller's.
///
/// With `stream`, the outputs leave through non-temporal stores: the
/// caller fences before it publishes them.
///
/// # Panics
/// If `T` and `isa` are not a pair [`isa`] gives or the CPU lacks `isa`
/// (so a wrong call panics instead of faulting), `m` or `chunk` is not a
/// multiple of 16, `x` or `out` is shorter than `LANES * m`, or `out`
/// does not start on a 64-byte boundary.
#[allow(clippy::too_many_arguments)]
pub(super) fn fold_parts<U, T, F>(
    isa: Isa,
    kind: ScanKind,
    x: &[U],
    m: usize,
    start: [T; LANES],
    f: &F,
    out: &mut [T],
    stream: bool,
    (chunk, mut fetch): (usize, impl FnMut(usize)),
) -> [T; LANES]
where
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    let pair = TypeId::of::<T>() == TypeId::of::<f32>() && isa == Isa::Avx2;
    assert!(
        pair && isa.present(),
        "fold_parts: no {isa:?} form for this type on this CPU"
    );
    assert!(m.is_multiple_of(16) && chunk.is_multiple_of(16) && chunk > 0);
    assert!(x.len() >= LANES * m && out.len() >= LANES * m);
    assert!(
        (out.as_ptr() as usize).is_multiple_of(64),
        "fold_parts: output not on a 64-byte boundary"
    );
    let inclusive = kind == ScanKind::Inclusive;
    #[cfg(target_arch = "x86_64")]
    {
        let mut run = start.map(|v| bits::<T, f32>(v));
        // A closure that only sees f32: `f`'s outputs are T, which is f32.
        let g = |v: U| bits::<T, f32>(f.call(v));
        let o = out.as_mut_ptr().cast::<f32>();
        // SAFETY: the CPU has AVX2 (asserted); T is f32 (asserted), so `o`
        // points to `out`'s f32s; `m` and `chunk` are multiples of 16, and
        // `x` and `out` hold `LANES * m` (asserted); `out` is 64-byte
        // aligned (asserted), so is every part's start (`m` is a multiple
        // of 16 elements).
        run = unsafe { fold_f32(inclusive, x, m, (chunk, &mut fetch), run, &g, o, stream) };
        run.map(|v| bits::<f32, T>(v))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (inclusive, start, f, stream, fetch);
        unreachable!("fold_parts off x86-64")
    }
}

/// The `f32` parts on AVX2: the 8 parts are the 8 lanes of one vector;
/// 16 elements of each part a step (two 8×8 blocks), so that each part's
/// 64-byte line leaves in two adjacent stores; `fetch(LANES * len)` after
/// every `chunk` elements of each part (`len` of them, the last chunk
/// shorter). The running values stay in a register from chunk to chunk:
/// handed back through memory after each chunk, they cost a
/// store-forwarding stall per chunk (13% of the scan's samples at 2^27).
///
/// # Safety
/// The CPU has AVX2; `m` and `chunk` are multiples of 16; `x` and `o`
/// hold `LANES * m` elements; `o` is 64-byte aligned.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn fold_f32<U: Copy>(
    inclusive: bool,
    x: &[U],
    m: usize,
    (chunk, fetch): (usize, &mut impl FnMut(usize)),
    run: [f32; LANES],
    g: &impl Fn(U) -> f32,
    o: *mut f32,
    stream: bool,
) -> [f32; LANES] {
    use std::arch::x86_64::{_mm256_loadu_ps, _mm256_storeu_ps};
    // SAFETY: 8 f32 of `run`, read unaligned; AVX2 (the contract).
    let mut acc = unsafe { _mm256_loadu_ps(run.as_ptr()) };
    let mut j0 = 0;
    while j0 < m {
        let len = chunk.min(m - j0);
        for j in (j0..j0 + len).step_by(16) {
            // SAFETY: the contract; `j + 16 <= j0 + len <= m` (all
            // multiples of 16).
            acc = unsafe { fold_16(inclusive, x, m, j, acc, g, o, stream) };
        }
        fetch(LANES * len);
        j0 += len;
    }
    let mut run = [0f32; LANES];
    // SAFETY: 8 f32 of `run`, written unaligned.
    unsafe { _mm256_storeu_ps(run.as_mut_ptr(), acc) };
    run
}

/// Elements `j..j + 16` of each part, from the running values `acc`.
///
/// # Safety
/// As for [`fold_f32`], with `j + 16 <= m`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn fold_16<U: Copy>(
    inclusive: bool,
    x: &[U],
    m: usize,
    j: usize,
    mut acc: std::arch::x86_64::__m256,
    g: &impl Fn(U) -> f32,
    o: *mut f32,
    stream: bool,
) -> std::arch::x86_64::__m256 {
    use std::arch::x86_64::{_mm256_add_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_stream_ps};
    let mut lines = [[acc; LANES]; 2];
    for (q, line) in lines.iter_mut().enumerate() {
        let mut rows = [[0f32; 8]; LANES];
        for (k, row) in rows.iter_mut().enumerate() {
            let at = k * m + j + 8 * q;
            for (r, &v) in row.iter_mut().zip(&x[at..at + 8]) {
                *r = g(v);
            }
        }
        // SAFETY: each row is 8 f32, read unaligned.
        let cols = transpose8(rows.map(|r| unsafe { _mm256_loadu_ps(r.as_ptr()) }));
        let mut outs = cols;
        for (out, col) in outs.iter_mut().zip(cols) {
            let before = acc;
            acc = _mm256_add_ps(acc, col);
            *out = if inclusive { acc } else { before };
        }
        *line = transpose8(outs);
    }
    for k in 0..LANES {
        for (q, line) in lines.iter().enumerate() {
            // SAFETY: k * m + j + 16 <= LANES * m, inside `o` (the
            // contract); the address is 32-byte aligned (`o` is 64-byte
            // aligned, and the offset a multiple of 8 f32).
            unsafe {
                let at = o.add(k * m + j + 8 * q);
                if stream {
                    _mm256_stream_ps(at, line[k]);
                } else {
                    _mm256_storeu_ps(at, line[k]);
                }
            }
        }
    }
    acc
}

/// The 8×8 transpose of `f32`: lane `t` of output `k` is lane `k` of
/// input `t`. Pairs of lanes, pairs of pairs, then halves.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn transpose8(r: [std::arch::x86_64::__m256; 8]) -> [std::arch::x86_64::__m256; 8] {
    use std::arch::x86_64::{
        _mm256_permute2f128_ps, _mm256_shuffle_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps,
    };
    // Per 128-bit half: a[2i] holds lanes 0 and 1 of inputs 2i and 2i + 1
    // interleaved, a[2i + 1] lanes 2 and 3.
    let a = [
        _mm256_unpacklo_ps(r[0], r[1]),
        _mm256_unpackhi_ps(r[0], r[1]),
        _mm256_unpacklo_ps(r[2], r[3]),
        _mm256_unpackhi_ps(r[2], r[3]),
        _mm256_unpacklo_ps(r[4], r[5]),
        _mm256_unpackhi_ps(r[4], r[5]),
        _mm256_unpacklo_ps(r[6], r[7]),
        _mm256_unpackhi_ps(r[6], r[7]),
    ];
    // The low pair of each input (0x44), then the high pair (0xEE): per
    // half, b[c] holds lane c of inputs 0-3 (and b[4 + c] of inputs 4-7).
    let b = [
        _mm256_shuffle_ps::<0x44>(a[0], a[2]),
        _mm256_shuffle_ps::<0xEE>(a[0], a[2]),
        _mm256_shuffle_ps::<0x44>(a[1], a[3]),
        _mm256_shuffle_ps::<0xEE>(a[1], a[3]),
        _mm256_shuffle_ps::<0x44>(a[4], a[6]),
        _mm256_shuffle_ps::<0xEE>(a[4], a[6]),
        _mm256_shuffle_ps::<0x44>(a[5], a[7]),
        _mm256_shuffle_ps::<0xEE>(a[5], a[7]),
    ];
    // The low halves of both inputs (0x20), then the high ones (0x31).
    [
        _mm256_permute2f128_ps::<0x20>(b[0], b[4]),
        _mm256_permute2f128_ps::<0x20>(b[1], b[5]),
        _mm256_permute2f128_ps::<0x20>(b[2], b[6]),
        _mm256_permute2f128_ps::<0x20>(b[3], b[7]),
        _mm256_permute2f128_ps::<0x31>(b[0], b[4]),
        _mm256_permute2f128_ps::<0x31>(b[1], b[5]),
        _mm256_permute2f128_ps::<0x31>(b[2], b[6]),
        _mm256_permute2f128_ps::<0x31>(b[3], b[7]),
    ]
}
