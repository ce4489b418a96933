//! The host spaces' `fill_random` of a contiguous View: block after
//! block, each with the widest vector instructions the CPU has.
//!
//! Element `i` is still `fill_element_*(key, i, ..)`, bit for bit: the
//! straight-line first draw of every element of a short run is computed
//! in one loop that the compiler vectorizes (64-bit multiplies and
//! int-to-float conversions need AVX-512 to be vector instructions, so
//! the loop is compiled again for it and for AVX2, chosen at run time),
//! then, in the rare run where a first draw rounded to the range's end,
//! those elements are drawn again with the full element function.

use super::bits::{fill_element_f32, fill_element_f64, state_word, unit_f32, unit_f64};

/// Elements per run: a run that needs a redraw is read again while it is
/// still in the L1 cache.
const RUN: usize = 512;

macro_rules! float_block {
    ($t:ty, $unit:ident, $element:ident, $generic:ident, $avx2:ident, $avx512:ident, $public:ident) => {
        #[inline(always)]
        fn $generic(out: &mut [$t], key: u64, first: u64, lo: $t, hi: $t) {
            for (r, run) in out.chunks_mut(RUN).enumerate() {
                let base = first + (r * RUN) as u64;
                // The flag is a vector reduction: the run is read again
                // only when one of its draws needs redrawing (reading it
                // back unconditionally stalls on the just-made vector
                // stores).
                let mut redraw = false;
                for (j, y) in run.iter_mut().enumerate() {
                    let v = lo + (hi - lo) * $unit(state_word(key, base + j as u64));
                    redraw |= v >= hi;
                    *y = v;
                }
                if redraw {
                    for (j, y) in run.iter_mut().enumerate() {
                        if *y >= hi {
                            *y = $element(key, base + j as u64, lo, hi);
                        }
                    }
                }
            }
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx2(out: &mut [$t], key: u64, first: u64, lo: $t, hi: $t) {
            $generic(out, key, first, lo, hi)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
        fn $avx512(out: &mut [$t], key: u64, first: u64, lo: $t, hi: $t) {
            $generic(out, key, first, lo, hi)
        }

        /// Elements `first..first + out.len()` of the fill of key `key`
        /// over `lo..hi` (a range `fill_random` accepted).
        pub(crate) fn $public(out: &mut [$t], key: u64, first: u64, lo: $t, hi: $t) {
            #[cfg(target_arch = "x86_64")]
            {
                if has_avx512() {
                    // SAFETY: the CPU has every feature the function is
                    // compiled for (checked at run time just above).
                    return unsafe { $avx512(out, key, first, lo, hi) };
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: as above, for AVX2.
                    return unsafe { $avx2(out, key, first, lo, hi) };
                }
            }
            $generic(out, key, first, lo, hi)
        }
    };
}

float_block!(
    f64,
    unit_f64,
    fill_element_f64,
    generic_f64,
    avx2_f64,
    avx512_f64,
    fill_block_f64
);
float_block!(
    f32,
    unit_f32,
    fill_element_f32,
    generic_f32,
    avx2_f32,
    avx512_f32,
    fill_block_f32
);

#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path (the one this CPU takes, and the portable one) gives the
    /// element function's bits, also where half the first draws round to
    /// the range's end and are drawn again, and from an offset that is
    /// not a multiple of a run.
    #[test]
    fn blocks_are_the_element_function_bitwise() {
        let hi64 = f64::from_bits(1.0f64.to_bits() + 1);
        let hi32 = f32::from_bits(1.0f32.to_bits() + 1);
        for (lo, hi) in [(-3.5, 1e3), (1.0, hi64)] {
            let mut fast = vec![0.0; 3001];
            let mut portable = vec![0.0; 3001];
            fill_block_f64(&mut fast, 99, 777, lo, hi);
            generic_f64(&mut portable, 99, 777, lo, hi);
            for (j, (a, b)) in fast.iter().zip(&portable).enumerate() {
                let want = fill_element_f64(99, 777 + j as u64, lo, hi);
                assert_eq!(a.to_bits(), want.to_bits(), "f64 {lo}..{hi}, element {j}");
                assert_eq!(b.to_bits(), want.to_bits(), "f64 {lo}..{hi}, element {j}");
            }
        }
        let redrawn = (0..3001)
            .filter(|&i| 1.0 + (hi64 - 1.0) * unit_f64(state_word(99, 777 + i)) >= hi64)
            .count();
        assert!(redrawn > 1000, "the narrow range redraws often ({redrawn})");
        for (lo, hi) in [(0.25f32, 0.5f32), (1.0, hi32)] {
            let mut fast = vec![0.0f32; 3001];
            let mut portable = vec![0.0f32; 3001];
            fill_block_f32(&mut fast, 5, 513, lo, hi);
            generic_f32(&mut portable, 5, 513, lo, hi);
            for (j, (a, b)) in fast.iter().zip(&portable).enumerate() {
                let want = fill_element_f32(5, 513 + j as u64, lo, hi);
                assert_eq!(a.to_bits(), want.to_bits(), "f32 {lo}..{hi}, element {j}");
                assert_eq!(b.to_bits(), want.to_bits(), "f32 {lo}..{hi}, element {j}");
            }
        }
    }
}
