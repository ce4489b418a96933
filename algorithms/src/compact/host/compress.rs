//! The gathering of the host compactions in vectors (x86-64): 8 or 16
//! elements at a time with AVX-512 (4 or 8 with AVX2), the predicate's
//! answers gathered into a mask and the kept elements packed by one
//! `vpcompress` (AVX2: one `vpermd` by a table of the masks'
//! permutations) and one vector store; the scalar gather does one
//! dependent store per element.

use super::emit::Run;
use super::{Part, CHUNK};
use crate::host::buffer::with_buffer;
use crate::host::isa::Isa;
use crate::host::stream;
use granule_views::Element;

/// The instruction set elements of `T` are packed with on this CPU:
/// the widest it has, with POPCNT, for the 4- and 8-byte primitive
/// numbers. Packing loads elements into vector registers as values,
/// so it takes only types with no padding bytes to load: the numbers
/// are known to have none (a user type of 4 or 8 bytes takes the
/// scalar gather, which copies it as a value).
pub(super) fn isa<T: 'static>() -> Option<Isa> {
    use std::any::TypeId;
    let numbers = [
        TypeId::of::<u32>(),
        TypeId::of::<i32>(),
        TypeId::of::<f32>(),
        TypeId::of::<u64>(),
        TypeId::of::<i64>(),
        TypeId::of::<f64>(),
        TypeId::of::<usize>(),
        TypeId::of::<isize>(),
    ];
    let fits = numbers.contains(&TypeId::of::<T>()) && std::is_x86_feature_detected!("popcnt");
    Isa::widest().filter(|_| fits)
}

/// As [`emit`](super::emit::emit) without rejected elements, on `isa`.
///
/// # Safety
/// As for [`emit`](super::emit::emit), and [`isa::<T>`] returned `isa`
/// (the CPU has it and POPCNT).
pub(super) unsafe fn emit<T: Element, K>(
    isa: Isa,
    (x, lo, before): Part<'_, T>,
    keep: &K,
    mut kept: Run<'_, T>,
    stream: bool,
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    with_buffer::<T, _>(CHUNK + 16, |stage| {
        let first = kept.first_flush(CHUNK);
        // SAFETY: the caller's contract: the run is this block's alone.
        let flush = |full: &[T]| unsafe { kept.push(full, stream) };
        // SAFETY: forwarded contract: the CPU has `isa` and POPCNT.
        let k = unsafe { pack(isa, (x, lo, before), keep, stage, (first, flush)) };
        // SAFETY: as for `flush`.
        unsafe { kept.push(&stage[..k], stream) };
    });
    if stream {
        stream::fence();
    }
    kept.at
}

/// Packs the elements of the part that `keep` selects, in order, at the
/// start of `stage` (at least as long as the part); returns how many.
///
/// # Safety
/// [`isa::<T>`] returned `isa`.
pub(super) unsafe fn gather<T: Element, K>(
    isa: Isa,
    part: Part<'_, T>,
    keep: &K,
    stage: &mut [T],
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    assert!(stage.len() >= part.0.len());
    let never = |_: &[T]| unreachable!("a whole block is gathered without flushing");
    // SAFETY: forwarded contract; the stage holds the whole part.
    unsafe { pack(isa, part, keep, stage, (usize::MAX, never)) }
}

/// [`pack_with`] on `isa`.
///
/// # Safety
/// [`isa::<T>`] returned `isa` (the CPU has it and POPCNT, and `T` is 4
/// or 8 bytes).
unsafe fn pack<T: Element, K>(
    isa: Isa,
    part: Part<'_, T>,
    keep: &K,
    stage: &mut [T],
    drain: (usize, impl FnMut(&[T])),
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    // SAFETY: forwarded contract.
    unsafe {
        match isa {
            Isa::Avx512 => pack_avx512(part, keep, stage, drain),
            Isa::Avx2 => pack_avx2(part, keep, stage, drain),
        }
    }
}

/// The packing loop, for vectors of `BYTES` bytes: `squeeze(from,
/// mask, to)` writes the elements of the vector at `from` that `mask`
/// selects, in order, from `to` on (`BYTES` bytes may be written).
/// The kept elements gather at the start of `stage`; when they reach
/// the drain's limit, that many are handed to the drain and the rest
/// move down, with a limit of CHUNK from then on. `stage` holds the
/// whole part, or CHUNK + 16 elements with a first limit of at most
/// CHUNK (asserted). Returns how many are left in `stage`.
///
/// # Safety
/// `squeeze` may be called with `from` valid for `BYTES` bytes of
/// reads and `to` for `BYTES` bytes of writes; `BYTES` is at most 64
/// and a multiple of the element size, which is at least 4.
#[inline(always)]
unsafe fn pack_with<T: Element, K, const BYTES: usize>(
    (x, lo, mut before): Part<'_, T>,
    keep: &K,
    stage: &mut [T],
    (mut limit, mut flush): (usize, impl FnMut(&[T])),
    squeeze: impl Fn(*const u8, u16, *mut u8),
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    let size = std::mem::size_of::<T>();
    let lanes = BYTES / size;
    assert!(
        stage.len() >= x.len() || (limit <= CHUNK && stage.len() >= CHUNK + 16),
        "compaction staging buffer too small"
    );
    let (sp, xp) = (stage.as_mut_ptr().cast::<u8>(), x.as_ptr().cast::<u8>());
    let (mut j, mut k) = (0, 0);
    while j + lanes <= x.len() {
        // The part comes from memory; see `stream::AHEAD`.
        stream::fetch_ahead(x, j, lanes);
        // The answers as bytes, gathered into a mask by one
        // `pmovmskb`: a predicate the compiler can vectorize (a
        // comparison) then runs as one vector compare per step.
        let mut bits = [0u8; 16];
        for (l, &v) in x[j..j + lanes].iter().enumerate() {
            bits[l] = u8::from(keep(lo + j + l, v, before));
            before = Some(v);
        }
        // SAFETY: SSE2 is in the x86-64 baseline; `bits` is 16 bytes.
        let m = unsafe {
            use std::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8, _mm_slli_epi16};
            let b = _mm_loadu_si128(bits.as_ptr().cast());
            _mm_movemask_epi8(_mm_slli_epi16::<7>(b)) as u16
        };
        // `j + lanes <= len`, so the BYTES read are in `x`. The BYTES
        // written are in `stage`: `k <= j` (k counts kept elements of
        // the first j), so they end by `x.len()`, and when the stage is
        // shorter than `x`, `k < limit <= CHUNK` here and it holds
        // CHUNK + 16 elements of at least 4 bytes (BYTES <= 64); the
        // assert above checked one or the other.
        // SAFETY: the offsets stay inside `x` and `stage` (above).
        let (from, to) = unsafe { (xp.add(j * size), sp.add(k * size)) };
        squeeze(from, m, to);
        k += m.count_ones() as usize;
        j += lanes;
        if k >= limit {
            flush(&stage[..limit]);
            stage.copy_within(limit..k, 0);
            (k, limit) = (k - limit, CHUNK);
        }
    }
    for (l, &v) in x[j..].iter().enumerate() {
        stage[k] = v;
        k += usize::from(keep(lo + j + l, v, before));
        before = Some(v);
    }
    k
}

/// [`pack_with`] with AVX-512 compress, compiled for AVX-512F.
///
/// # Safety
/// The CPU has AVX-512F and POPCNT, and elements are 4 or 8 bytes.
#[target_feature(enable = "avx512f,popcnt")]
unsafe fn pack_avx512<T: Element, K>(
    part: Part<'_, T>,
    keep: &K,
    stage: &mut [T],
    drain: (usize, impl FnMut(&[T])),
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    use std::arch::x86_64::*;
    let wide = std::mem::size_of::<T>() == 8;
    // SAFETY: `pack_with` hands `squeeze` 64 readable and 64 writable bytes;
    // unaligned accesses are allowed; AVX-512F (the contract). The
    // elements move bytewise.
    let squeeze = |from: *const u8, m: u16, to: *mut u8| unsafe {
        let v = _mm512_loadu_si512(from.cast());
        let c = if wide {
            _mm512_maskz_compress_epi64(m as u8, v)
        } else {
            _mm512_maskz_compress_epi32(m, v)
        };
        _mm512_storeu_si512(to.cast(), c);
    };
    // SAFETY: forwarded contract; `squeeze` keeps `pack`'s promise.
    unsafe { pack_with::<T, K, 64>(part, keep, stage, drain, squeeze) }
}

/// [`pack_with`] with AVX2 permutes, compiled for AVX2.
///
/// # Safety
/// The CPU has AVX2 and POPCNT, and elements are 4 or 8 bytes.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn pack_avx2<T: Element, K>(
    part: Part<'_, T>,
    keep: &K,
    stage: &mut [T],
    drain: (usize, impl FnMut(&[T])),
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    use std::arch::x86_64::*;
    let table: &[[i32; 8]] = if std::mem::size_of::<T>() == 8 {
        &PAIRS
    } else {
        &SINGLES
    };
    // SAFETY: `pack_with` hands `squeeze` 32 readable and 32 writable bytes;
    // the mask has 4 (8-byte elements) or 8 bits, so it indexes its
    // table; unaligned accesses are allowed; AVX2 (the contract).
    let squeeze = |from: *const u8, m: u16, to: *mut u8| unsafe {
        let v = _mm256_loadu_si256(from.cast());
        let order = _mm256_loadu_si256(table[usize::from(m)].as_ptr().cast());
        _mm256_storeu_si256(to.cast(), _mm256_permutevar8x32_epi32(v, order));
    };
    // SAFETY: forwarded contract; `squeeze` keeps `pack`'s promise.
    unsafe { pack_with::<T, K, 32>(part, keep, stage, drain, squeeze) }
}

/// For each mask of 8 four-byte lanes, the lanes it selects, in order
/// (the rest 0): `vpermd`'s operand that packs them.
static SINGLES: [[i32; 8]; 256] = packing(1);
/// The same for masks of 4 eight-byte lanes, each a pair of 32-bit
/// lanes.
static PAIRS: [[i32; 8]; 256] = packing(2);

/// The packing permutations of masks over `8 / width` lanes of
/// `width` 32-bit words (masks with higher bits are not used).
const fn packing(width: usize) -> [[i32; 8]; 256] {
    let lanes = 8 / width;
    let mut t = [[0i32; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut l, mut k) = (0, 0);
        while l < lanes {
            if m >> l & 1 == 1 {
                let mut w = 0;
                while w < width {
                    t[m][k] = (l * width + w) as i32;
                    k += 1;
                    w += 1;
                }
            }
            l += 1;
        }
        m += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::raw::Scratch;

    /// Every instruction set this CPU has packs as the scalar loop
    /// does: at every output offset in a line, 4- and 8-byte elements,
    /// through a flush or two.
    #[test]
    fn every_isa_packs_the_kept_elements_in_order() {
        if !std::is_x86_feature_detected!("popcnt") {
            return;
        }
        for isa in Isa::present_all() {
            for n in [0, 3, 4, 7, 8, 17, 600, 1500] {
                check::<u64>(isa, n);
                check::<i32>(isa, n);
            }
        }
    }

    fn check<T: Element + PartialEq + std::fmt::Debug + TryFrom<u8>>(isa: Isa, n: usize) {
        let x: Vec<T> = (0..n)
            .map(|i| T::try_from((i * 37 % 251) as u8).ok().expect("fits"))
            .collect();
        let keep = |i: usize, _: T, _: Option<T>| i % 3 != 1 && !i.is_multiple_of(7);
        let want: Vec<T> = x
            .iter()
            .enumerate()
            .filter(|&(i, v)| keep(i, *v, None))
            .map(|(_, v)| *v)
            .collect();
        for at in 0..16 {
            let mut out = Scratch::<T>::new("out", at + n).expect("scratch");
            let dst = out.dst();
            let run = Run {
                dst: &dst,
                at,
                end: at + want.len(),
            };
            // SAFETY: the CPU has `isa` (present) and POPCNT
            // (checked); the run is the scratch's alone.
            let end = unsafe { emit(isa, (&x, 0, None), &keep, run, false) };
            assert_eq!(end, at + want.len(), "{isa:?} {n} at {at}");
            // SAFETY: nothing else touches the scratch.
            let got = unsafe { dst.slice_mut(at, end) }.to_vec();
            assert_eq!(got, want, "{isa:?} {n} at {at}");
        }
        // A whole block gathered into a buffer of its length.
        let mut stage = vec![x.first().copied().unwrap_or(want_zero::<T>()); n];
        // SAFETY: the CPU has `isa` and POPCNT (checked above).
        let k = unsafe { gather(isa, (&x, 0, None), &keep, &mut stage) };
        assert_eq!(stage[..k], want[..], "{isa:?} {n} gathered");
    }

    fn want_zero<T: TryFrom<u8>>() -> T {
        T::try_from(0).ok().expect("fits")
    }
}
