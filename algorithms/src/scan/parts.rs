//! Pass 2 of the host scans of `f64` and `f32` sums in vectors: the
//! [`LANES`] parts' chains of `fold_lanes` (`super::host`) run as the
//! lanes of one vector: an AVX-512 vector of `f64`, two AVX2 vectors of
//! `f64` (parts 0-3 and 4-7, 4×4 blocks), or one AVX2 vector of `f32`
//! (8×8 blocks; AVX-512 CPUs take it too, since there are only 8 parts).
//!
//! Part `k` of a block is folded element by element from its start value,
//! as in the scalar pass; here, each step loads 8 consecutive elements of
//! every part (8 vectors), transposes them so that vector `t` holds the
//! parts' elements `t`, adds them to the vector of running values in
//! order, and transposes the 8 results back, so each part's outputs leave
//! in whole 64-byte lines (non-temporal for outputs beyond the cache).
//! Lane `k` adds exactly what the scalar chain `k` adds, in the same
//! order, so the bits are those of the scalar pass, which CPUs without
//! either run. One vector load and store per 8 (AVX2 `f64`: 4) elements,
//! instead of one per element in 8 interleaved streams, and no staging
//! copy.

use super::host::LANES;
use super::ScanKind;
use crate::host::isa::Isa;
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{KnownOp, Reducer};
use granule_views::Pod;
use std::any::TypeId;

/// The instruction set [`fold_parts`] runs scans of `T` under `op` on:
/// `f64` sums on a CPU with AVX-512F or AVX2 (the widest it has), `f32`
/// sums on one with AVX2.
pub(super) fn isa<T: Pod, R: Reducer<T>>(op: &R) -> Option<Isa> {
    if op.known_op() != Some(KnownOp::Sum) {
        return None;
    }
    if TypeId::of::<T>() == TypeId::of::<f64>() {
        Isa::widest()
    } else if TypeId::of::<T>() == TypeId::of::<f32>() {
        Some(Isa::Avx2).filter(|i| i.present())
    } else {
        None
    }
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
    T: Pod,
    F: UnaryFunctor<U, Output = T>,
{
    let f32s = TypeId::of::<T>() == TypeId::of::<f32>();
    let pair = if f32s {
        isa == Isa::Avx2
    } else {
        TypeId::of::<T>() == TypeId::of::<f64>()
    };
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
        if f32s {
            let mut run = start.map(|v| bits::<T, f32>(v));
            // A closure that only sees f32: `f`'s outputs are T, which is f32.
            let g = |v: U| bits::<T, f32>(f.call(v));
            let o = out.as_mut_ptr().cast::<f32>();
            by_chunks(m, chunk, &mut fetch, |span| {
                // SAFETY: the CPU has AVX2 (asserted); T is f32 (asserted),
                // so `o` points to `out`'s f32s; `j0 + len <= m`, with `m`
                // and `len` multiples of 16, and `x` and `out` hold
                // `LANES * m` (asserted); `out` is 64-byte aligned
                // (asserted), so is every part's start (`m` is a multiple
                // of 16 elements).
                run = unsafe { fold_chunk_f32(inclusive, x, m, span, run, &g, o, stream) };
            });
            return run.map(|v| bits::<f32, T>(v));
        }
        let mut run = start.map(|v| bits::<T, f64>(v));
        // A closure that only sees f64: `f`'s outputs are T, which is f64.
        let g = |v: U| bits::<T, f64>(f.call(v));
        let o = out.as_mut_ptr().cast::<f64>();
        by_chunks(m, chunk, &mut fetch, |span| {
            // SAFETY: as above, with `isa` (asserted present) and f64.
            run = unsafe {
                match isa {
                    Isa::Avx512 => fold_chunk(inclusive, x, m, span, run, &g, o, stream),
                    Isa::Avx2 => fold_chunk_avx2(inclusive, x, m, span, run, &g, o, stream),
                }
            };
        });
        run.map(|v| bits::<f64, T>(v))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (inclusive, start, f, stream, fetch);
        unreachable!("fold_parts off x86-64")
    }
}

/// Calls `step((j0, len))` for the spans of `chunk` elements (the last
/// one shorter) that cover `0..m`, each followed by `fetch(LANES * len)`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn by_chunks(
    m: usize,
    chunk: usize,
    fetch: &mut impl FnMut(usize),
    mut step: impl FnMut((usize, usize)),
) {
    let mut j0 = 0;
    while j0 < m {
        let len = chunk.min(m - j0);
        step((j0, len));
        fetch(LANES * len);
        j0 += len;
    }
}

/// `v`'s bits as `B` (the two are the same type; asserted).
#[inline(always)]
fn bits<A: Pod, B: Pod>(v: A) -> B {
    assert!(TypeId::of::<A>() == TypeId::of::<B>(), "bits: not one type");
    // SAFETY: A and B are the same type (asserted).
    unsafe { std::mem::transmute_copy::<A, B>(&v) }
}

/// Elements `j0..j0 + len` of each part, 8 at a time.
///
/// # Safety
/// The CPU has AVX-512F; `m` and `len` are multiples of 8, `j0 + len <=
/// m`; `x` and `o` hold `LANES * m` elements; `o` is 64-byte aligned.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
unsafe fn fold_chunk<U: Copy>(
    inclusive: bool,
    x: &[U],
    m: usize,
    (j0, len): (usize, usize),
    run: [f64; LANES],
    g: &impl Fn(U) -> f64,
    o: *mut f64,
    stream: bool,
) -> [f64; LANES] {
    use std::arch::x86_64::{_mm512_add_pd, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_stream_pd};
    // SAFETY: 8 f64 of `run`, read unaligned; AVX-512F (the contract).
    let mut acc = unsafe { _mm512_loadu_pd(run.as_ptr()) };
    let mut j = j0;
    while j < j0 + len {
        let mut rows = [[0f64; 8]; LANES];
        for (k, row) in rows.iter_mut().enumerate() {
            for (r, &v) in row.iter_mut().zip(&x[k * m + j..][..8]) {
                *r = g(v);
            }
        }
        // SAFETY: each row is 8 f64, read unaligned.
        let cols = transpose(rows.map(|r| unsafe { _mm512_loadu_pd(r.as_ptr()) }));
        let mut outs = cols;
        for (out, col) in outs.iter_mut().zip(cols) {
            let before = acc;
            acc = _mm512_add_pd(acc, col);
            *out = if inclusive { acc } else { before };
        }
        for (k, row) in transpose(outs).into_iter().enumerate() {
            // SAFETY: k * m + j + 8 <= LANES * m, inside `o` (the
            // contract); the address is 64-byte aligned (`o` is, and
            // k * m + j is a multiple of 8 f64).
            unsafe {
                let at = o.add(k * m + j);
                if stream {
                    _mm512_stream_pd(at, row);
                } else {
                    _mm512_storeu_pd(at, row);
                }
            }
        }
        j += 8;
    }
    let mut run = [0f64; LANES];
    // SAFETY: 8 f64 of `run`, written unaligned.
    unsafe { _mm512_storeu_pd(run.as_mut_ptr(), acc) };
    run
}

/// [`fold_chunk`] on AVX2: parts 0-3 and 4-7 in two vectors, 8 elements
/// of each part a step (two 4×4 blocks).
///
/// # Safety
/// As for [`fold_chunk`], with AVX2 instead of AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn fold_chunk_avx2<U: Copy>(
    inclusive: bool,
    x: &[U],
    m: usize,
    (j0, len): (usize, usize),
    run: [f64; LANES],
    g: &impl Fn(U) -> f64,
    o: *mut f64,
    stream: bool,
) -> [f64; LANES] {
    use std::arch::x86_64::{_mm256_add_pd, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_stream_pd};
    // SAFETY: 4 + 4 f64 of `run`, read unaligned; AVX2 (the contract).
    let mut acc = unsafe {
        [
            _mm256_loadu_pd(run.as_ptr()),
            _mm256_loadu_pd(run.as_ptr().add(4)),
        ]
    };
    let mut j = j0;
    while j < j0 + len {
        for (half, acc) in acc.iter_mut().enumerate() {
            // Elements j..j + 4, then j + 4..j + 8, of parts 4 * half..+4:
            // each part's 64-byte line then leaves in two adjacent stores,
            // so its write-combining buffer fills at once.
            let mut lines = [[*acc; 4]; 2];
            for (q, line) in lines.iter_mut().enumerate() {
                let mut rows = [[0f64; 4]; 4];
                for (k, row) in rows.iter_mut().enumerate() {
                    let at = (4 * half + k) * m + j + 4 * q;
                    for (r, &v) in row.iter_mut().zip(&x[at..at + 4]) {
                        *r = g(v);
                    }
                }
                // SAFETY: each row is 4 f64, read unaligned.
                let cols = transpose4(rows.map(|r| unsafe { _mm256_loadu_pd(r.as_ptr()) }));
                let mut outs = cols;
                for (out, col) in outs.iter_mut().zip(cols) {
                    let before = *acc;
                    *acc = _mm256_add_pd(*acc, col);
                    *out = if inclusive { *acc } else { before };
                }
                *line = transpose4(outs);
            }
            for k in 0..4 {
                for (q, line) in lines.iter().enumerate() {
                    // SAFETY: (4 * half + k) * m + j + 8 <= LANES * m,
                    // inside `o` (the contract); the address is 32-byte
                    // aligned (`o` is 64-byte aligned, and the offset a
                    // multiple of 4 f64).
                    unsafe {
                        let at = o.add((4 * half + k) * m + j + 4 * q);
                        if stream {
                            _mm256_stream_pd(at, line[k]);
                        } else {
                            _mm256_storeu_pd(at, line[k]);
                        }
                    }
                }
            }
        }
        j += 8;
    }
    let mut run = [0f64; LANES];
    // SAFETY: 4 + 4 f64 of `run`, written unaligned.
    unsafe {
        _mm256_storeu_pd(run.as_mut_ptr(), acc[0]);
        _mm256_storeu_pd(run.as_mut_ptr().add(4), acc[1]);
    }
    run
}

/// [`fold_chunk`] for `f32` on AVX2: the 8 parts are the 8 lanes of one
/// vector; 16 elements of each part a step (two 8×8 blocks), so that each
/// part's 64-byte line leaves in two adjacent stores.
///
/// # Safety
/// The CPU has AVX2; `m` and `len` are multiples of 16, `j0 + len <= m`;
/// `x` and `o` hold `LANES * m` elements; `o` is 64-byte aligned.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn fold_chunk_f32<U: Copy>(
    inclusive: bool,
    x: &[U],
    m: usize,
    (j0, len): (usize, usize),
    run: [f32; LANES],
    g: &impl Fn(U) -> f32,
    o: *mut f32,
    stream: bool,
) -> [f32; LANES] {
    use std::arch::x86_64::{_mm256_add_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_stream_ps};
    // SAFETY: 8 f32 of `run`, read unaligned; AVX2 (the contract).
    let mut acc = unsafe { _mm256_loadu_ps(run.as_ptr()) };
    let mut j = j0;
    while j < j0 + len {
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
        j += 16;
    }
    let mut run = [0f32; LANES];
    // SAFETY: 8 f32 of `run`, written unaligned.
    unsafe { _mm256_storeu_ps(run.as_mut_ptr(), acc) };
    run
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

/// The 4×4 transpose: lane `t` of output `k` is lane `k` of input `t`.
/// Pairs of lanes, then halves.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn transpose4(r: [std::arch::x86_64::__m256d; 4]) -> [std::arch::x86_64::__m256d; 4] {
    use std::arch::x86_64::{_mm256_permute2f128_pd, _mm256_unpackhi_pd, _mm256_unpacklo_pd};
    let a = [
        _mm256_unpacklo_pd(r[0], r[1]),
        _mm256_unpackhi_pd(r[0], r[1]),
        _mm256_unpacklo_pd(r[2], r[3]),
        _mm256_unpackhi_pd(r[2], r[3]),
    ];
    // The low halves of both inputs (0x20), then the high ones (0x31).
    [
        _mm256_permute2f128_pd::<0x20>(a[0], a[2]),
        _mm256_permute2f128_pd::<0x20>(a[1], a[3]),
        _mm256_permute2f128_pd::<0x31>(a[0], a[2]),
        _mm256_permute2f128_pd::<0x31>(a[1], a[3]),
    ]
}

/// The 8×8 transpose: lane `t` of output `k` is lane `k` of input `t`.
/// Three rounds of two-input shuffles: pairs of lanes, pairs of pairs,
/// then halves.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn transpose(r: [std::arch::x86_64::__m512d; 8]) -> [std::arch::x86_64::__m512d; 8] {
    use std::arch::x86_64::{
        _mm512_permutex2var_pd, _mm512_set_epi64, _mm512_shuffle_f64x2, _mm512_unpackhi_pd,
        _mm512_unpacklo_pd,
    };
    let a = [
        _mm512_unpacklo_pd(r[0], r[1]),
        _mm512_unpackhi_pd(r[0], r[1]),
        _mm512_unpacklo_pd(r[2], r[3]),
        _mm512_unpackhi_pd(r[2], r[3]),
        _mm512_unpacklo_pd(r[4], r[5]),
        _mm512_unpackhi_pd(r[4], r[5]),
        _mm512_unpacklo_pd(r[6], r[7]),
        _mm512_unpackhi_pd(r[6], r[7]),
    ];
    // Lanes (of the first input, then 8 + of the second) 0 1 8 9 4 5 12 13,
    // and 2 3 10 11 6 7 14 15; `set` lists them from the top lane down.
    let low = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    let high = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    let b = [
        _mm512_permutex2var_pd(a[0], low, a[2]),
        _mm512_permutex2var_pd(a[1], low, a[3]),
        _mm512_permutex2var_pd(a[0], high, a[2]),
        _mm512_permutex2var_pd(a[1], high, a[3]),
        _mm512_permutex2var_pd(a[4], low, a[6]),
        _mm512_permutex2var_pd(a[5], low, a[7]),
        _mm512_permutex2var_pd(a[4], high, a[6]),
        _mm512_permutex2var_pd(a[5], high, a[7]),
    ];
    // 128-bit quarters 0 1 of each input (0x44), then 2 3 (0xEE).
    [
        _mm512_shuffle_f64x2::<0x44>(b[0], b[4]),
        _mm512_shuffle_f64x2::<0x44>(b[1], b[5]),
        _mm512_shuffle_f64x2::<0x44>(b[2], b[6]),
        _mm512_shuffle_f64x2::<0x44>(b[3], b[7]),
        _mm512_shuffle_f64x2::<0xEE>(b[0], b[4]),
        _mm512_shuffle_f64x2::<0xEE>(b[1], b[5]),
        _mm512_shuffle_f64x2::<0xEE>(b[2], b[6]),
        _mm512_shuffle_f64x2::<0xEE>(b[3], b[7]),
    ]
}
