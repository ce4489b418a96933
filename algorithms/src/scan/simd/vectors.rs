//! The vectors of the integer sums (x86-64): the 64-byte vectors of
//! AVX-512F ([`Zmm`]) and the 32-byte ones of AVX2 ([`Ymm`]), their loads
//! and stores ([`Vector`]), and their arithmetic on lanes of `i64` or
//! `i32` ([`Lanes`]): broadcast, add, subtract, each vector's own prefix
//! in shifted adds, its last lane in every lane, its first lane. Each is
//! one intrinsic or a few, inlined into the kernels compiled for its
//! instruction set, so that one kernel is written for both.

use super::Word;

/// The 64-byte vectors of AVX-512F.
pub(super) struct Zmm;

/// The 32-byte vectors of AVX2.
pub(super) struct Ymm;

/// The vectors of one instruction set: their loads and stores.
///
/// # Safety (of the functions)
/// The CPU has the instruction set; they are called only from kernels
/// compiled for it, into which they inline. Pointers are valid for one
/// vector (`BYTES`); `stream` needs them `BYTES`-aligned.
pub(super) trait Vector {
    type V: Copy;
    /// Bytes per vector.
    const BYTES: usize;
    unsafe fn load<W>(p: *const W) -> Self::V;
    unsafe fn store<W>(p: *mut W, v: Self::V);
    /// A non-temporal store.
    unsafe fn stream<W>(p: *mut W, v: Self::V);
}

/// Lanes of the word `W` in a [`Vector`]: the sums' arithmetic.
///
/// # Safety (of the functions)
/// As for [`Vector`].
pub(super) trait Lanes<W: Word>: Vector {
    unsafe fn splat(w: W) -> Self::V;
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn sub(a: Self::V, b: Self::V) -> Self::V;
    /// Each lane plus the lanes below it.
    unsafe fn prefix(v: Self::V) -> Self::V;
    /// The last lane in every lane.
    unsafe fn top(v: Self::V) -> Self::V;
    /// The first lane.
    unsafe fn first(v: Self::V) -> W;
}

/// The [`Vector`] impl of one instruction set: its vector type and size,
/// and its unaligned load, unaligned store and streaming store.
macro_rules! vector {
    ($isa:ident, $v:ident, $bytes:literal, $load:ident, $store:ident, $stream:ident) => {
        impl Vector for $isa {
            type V = std::arch::x86_64::$v;
            const BYTES: usize = $bytes;
            #[inline(always)]
            unsafe fn load<W>(p: *const W) -> Self::V {
                // SAFETY: the instruction set and a valid pointer (the
                // caller's contract).
                unsafe { std::arch::x86_64::$load(p.cast()) }
            }
            #[inline(always)]
            unsafe fn store<W>(p: *mut W, v: Self::V) {
                // SAFETY: as above.
                unsafe { std::arch::x86_64::$store(p.cast(), v) }
            }
            #[inline(always)]
            unsafe fn stream<W>(p: *mut W, v: Self::V) {
                // SAFETY: as above, aligned to the vector's size.
                unsafe { std::arch::x86_64::$stream(p.cast(), v) }
            }
        }
    };
}

vector!(
    Zmm,
    __m512i,
    64,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_stream_si512
);
vector!(
    Ymm,
    __m256i,
    32,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_stream_si256
);

/// `splat`, `add` and `sub` of one word type's [`Lanes`] impl: the
/// intrinsics named, under the caller's contract (the CPU has them).
macro_rules! arithmetic {
    ($t:ty, $set1:ident, $add:ident, $sub:ident) => {
        #[inline(always)]
        unsafe fn splat(w: $t) -> Self::V {
            // SAFETY: the caller's contract: the CPU has the instructions.
            unsafe { std::arch::x86_64::$set1(w) }
        }
        #[inline(always)]
        unsafe fn add(a: Self::V, b: Self::V) -> Self::V {
            // SAFETY: as above.
            unsafe { std::arch::x86_64::$add(a, b) }
        }
        #[inline(always)]
        unsafe fn sub(a: Self::V, b: Self::V) -> Self::V {
            // SAFETY: as above.
            unsafe { std::arch::x86_64::$sub(a, b) }
        }
    };
}

/// The [`Lanes`] impl of one integer type on AVX-512: its intrinsics, the
/// `alignr` counts of its prefix's shifts, and its last lane.
macro_rules! zmm {
    ($t:ty, $set1:ident, $add:ident, $sub:ident, $up:ident,
     [$($shift:literal),+], $last:literal, $perm:ident, $first:ident) => {
        impl Lanes<$t> for Zmm {
            arithmetic!($t, $set1, $add, $sub);
            #[inline(always)]
            unsafe fn prefix(v: Self::V) -> Self::V {
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
            #[inline(always)]
            unsafe fn top(v: Self::V) -> Self::V {
                // SAFETY: as above.
                unsafe { std::arch::x86_64::$perm(<Self as Lanes<$t>>::splat($last), v) }
            }
            #[inline(always)]
            unsafe fn first(v: Self::V) -> $t {
                use std::arch::x86_64::{_mm512_castsi512_si128, $first as first};
                // SAFETY: as above.
                unsafe { first(_mm512_castsi512_si128(v)) }
            }
        }
    };
}

zmm!(
    i64,
    _mm512_set1_epi64,
    _mm512_add_epi64,
    _mm512_sub_epi64,
    _mm512_alignr_epi64,
    [7, 6, 4],
    7,
    _mm512_permutexvar_epi64,
    _mm_cvtsi128_si64
);
zmm!(
    i32,
    _mm512_set1_epi32,
    _mm512_add_epi32,
    _mm512_sub_epi32,
    _mm512_alignr_epi32,
    [15, 14, 12, 8],
    15,
    _mm512_permutexvar_epi32,
    _mm_cvtsi128_si32
);

/// The low 128-bit half of an AVX2 vector moved to the high one, zeros
/// below.
///
/// # Safety
/// AVX2.
#[inline(always)]
unsafe fn up_half(v: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
    // SAFETY: the caller's contract.
    unsafe { std::arch::x86_64::_mm256_permute2x128_si256::<0x08>(v, v) }
}

impl Lanes<i64> for Ymm {
    arithmetic!(i64, _mm256_set1_epi64x, _mm256_add_epi64, _mm256_sub_epi64);
    #[inline(always)]
    unsafe fn prefix(v: Self::V) -> Self::V {
        use std::arch::x86_64::*;
        // SAFETY: as above. Up one lane: lanes (0, 0, 1, 2), lane 0
        // zeroed; then up two lanes: the low half to the high one.
        unsafe {
            let one = _mm256_permute4x64_epi64::<0b10_01_00_00>(v);
            let v = _mm256_add_epi64(v, _mm256_blend_epi32::<0b11>(one, _mm256_setzero_si256()));
            _mm256_add_epi64(v, up_half(v))
        }
    }
    #[inline(always)]
    unsafe fn top(v: Self::V) -> Self::V {
        // SAFETY: as above.
        unsafe { std::arch::x86_64::_mm256_permute4x64_epi64::<0xFF>(v) }
    }
    #[inline(always)]
    unsafe fn first(v: Self::V) -> i64 {
        use std::arch::x86_64::{_mm256_castsi256_si128, _mm_cvtsi128_si64};
        // SAFETY: as above.
        unsafe { _mm_cvtsi128_si64(_mm256_castsi256_si128(v)) }
    }
}

impl Lanes<i32> for Ymm {
    arithmetic!(i32, _mm256_set1_epi32, _mm256_add_epi32, _mm256_sub_epi32);
    #[inline(always)]
    unsafe fn prefix(v: Self::V) -> Self::V {
        use std::arch::x86_64::*;
        // SAFETY: as above. Each 128-bit half's own prefix (byte shifts
        // stay inside a half), then the low half's last lane, broadcast,
        // added to the high half.
        unsafe {
            let v = _mm256_add_epi32(v, _mm256_slli_si256::<4>(v));
            let v = _mm256_add_epi32(v, _mm256_slli_si256::<8>(v));
            _mm256_add_epi32(v, up_half(_mm256_shuffle_epi32::<0xFF>(v)))
        }
    }
    #[inline(always)]
    unsafe fn top(v: Self::V) -> Self::V {
        use std::arch::x86_64::{_mm256_permutevar8x32_epi32, _mm256_set1_epi32};
        // SAFETY: as above.
        unsafe { _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7)) }
    }
    #[inline(always)]
    unsafe fn first(v: Self::V) -> i32 {
        use std::arch::x86_64::{_mm256_castsi256_si128, _mm_cvtsi128_si32};
        // SAFETY: as above.
        unsafe { _mm_cvtsi128_si32(_mm256_castsi256_si128(v)) }
    }
}
