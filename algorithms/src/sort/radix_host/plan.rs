//! The plan of a global pass by 12 bits ([`Plan`]). The 8-bit digit that
//! ends at the keys' top varying bit may crowd them into a few buckets
//! (floats, whose exponents share a few values), which a pass by it
//! would leave too large for a cache. The 4096 values of the 12 bits
//! ending there, counted by the survey, are then joined in order into at
//! most 256 runs of about even size, one bucket each, so that one pass
//! leaves buckets that fit, and each run keeps to values whose keys the
//! in-cache sort takes in as few passes.

use super::bucket::bucket_digits;
use super::survey::{regroup, BlockCounts};
use crate::sort::RadixKey;

/// Bits of a [`Plan`]'s key values: 4096 counters still fit in L1.
pub(super) const BINS_BITS: u32 = 12;

/// How many values [`BINS_BITS`] bits take.
pub(super) const BINS: usize = 1 << BINS_BITS;

/// The bits a [`Plan`] reads below an 8-bit digit's.
pub(super) const BINS_EXTRA: u32 = BINS_BITS - 8;

/// The buckets of a global pass by the 12 bits at `shift`: runs of
/// adjacent values, mapped in order to at most 256 buckets, each holding
/// about as many keys as an even split would (a value that holds more
/// is a bucket of its own). A run of many keys stays within values whose
/// keys an in-cache sort of the bits below `shift` takes in as many
/// passes ([`Plan::of_counts`]).
pub(super) struct Plan {
    shift: u32,
    /// The bucket of each 12-bit value.
    map: Box<[u8; BINS]>,
    /// The keys of bucket `d` differ in their low `bits[d]` bits only.
    pub(super) bits: [u32; 256],
}

impl Plan {
    /// A plan for keys whose 12-bit values at `shift` have counts `bins`
    /// in each [`COUNT_BLOCK`](super::survey::COUNT_BLOCK) block, with
    /// its buckets' counts in each block, if one fits (see
    /// [`of_counts`](Self::of_counts)).
    pub(super) fn new(
        bins: &[[u32; BINS]],
        shift: u32,
        limit: usize,
    ) -> Option<(Plan, BlockCounts)> {
        let mut h = vec![0usize; BINS];
        for block in bins {
            for (t, &c) in h.iter_mut().zip(block.iter()) {
                *t += c as usize;
            }
        }
        let plan = Plan::of_counts(&h, shift, limit)?;
        let counts = regroup(bins, |v| plan.map[v] as usize);
        Some((plan, counts))
    }

    /// A plan for keys whose 12-bit values at `shift` have counts `h`
    /// (none from `shift + 12` up), or `None` if no plan found keeps to
    /// 256 buckets. Runs join values up to a quarter past a target of
    /// keys, an even split's share to start with, raised by a quarter until
    /// the runs fit in 256 buckets. A run takes no more in-cache passes
    /// than a single value, unless it holds an eighth of the target or
    /// less, or no plan fits otherwise: then it may take one more. Passes
    /// are counted as [`bucket_digits`] takes them with values: keys
    /// alone take three bytes from 21 bits on, where two wider digits
    /// would miss L1, and those three cost about what two would.
    fn of_counts(h: &[usize], shift: u32, limit: usize) -> Option<Plan> {
        let n: usize = h.iter().sum();
        let passes: Vec<usize> = (0..=64)
            .map(|bits| bucket_digits(bits, true).len())
            .collect();
        let passes = |bits: u32| passes[bits as usize];
        // Bits above `shift` that the bucket `first..=last` spans.
        let span = |first: usize, last: usize| usize::BITS - (first ^ last).leading_zeros();
        let tries = (0..2).flat_map(|extra| (0..8).map(move |growth| (extra, growth)));
        for (extra, growth) in tries {
            // An even split's share, a quarter larger at each try.
            let target = (n.div_ceil(256).saturating_mul(5usize.pow(growth)) / 4usize.pow(growth))
                .clamp(1, limit.max(1));
            let mut map = Box::new([0u8; BINS]);
            // Each bucket's first and last value holding keys.
            let mut runs: Vec<(usize, usize, usize)> = Vec::new();
            for (v, &c) in h.iter().enumerate() {
                if c > 0 {
                    let join = runs.last().is_some_and(|&(first, _, held)| {
                        // A run of few keys may take another pass: the
                        // sparse tails of a distribution then share runs.
                        let few = held + c <= target / 8;
                        held + c <= (target + target / 4).min(limit)
                            && (few || passes(shift + span(first, v)) <= passes(shift) + extra)
                    });
                    match runs.last_mut() {
                        Some((_, last, held)) if join => (*last, *held) = (v, *held + c),
                        _ => runs.push((v, v, c)),
                    }
                }
                map[v] = runs.len().saturating_sub(1).min(255) as u8;
            }
            if runs.len() <= 256 {
                let mut bits = [shift; 256];
                for (b, &(first, last, _)) in bits.iter_mut().zip(&runs) {
                    *b = shift + span(first, last);
                }
                return Some(Plan { shift, map, bits });
            }
        }
        None
    }

    /// The bucket of `k`.
    #[inline(always)]
    pub(super) fn bucket<K: RadixKey>(&self, k: K) -> usize {
        self.map[((k.to_radix() >> self.shift) as usize) & (BINS - 1)] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::radix_host::tests::rng;

    /// Every plan maps values to buckets in order, keeps to 256 buckets,
    /// holds each run of several values to the limit and (unless it holds
    /// few keys) to the passes of a single value, and gives each bucket
    /// the bits its keys span.
    #[test]
    fn plans_keep_buckets_in_order_and_small() {
        let mut r = rng(0x2F6B_1C3D_91E8_4A07);
        // (shift, counts, more passes a run may take)
        let shapes: Vec<(u32, Vec<usize>, usize)> = vec![
            // Floats in 0.0..1.0: each exponent half the one above.
            (
                18,
                (0..BINS)
                    .map(|v| (1usize << 14) >> (127 - (v >> 5)).min(63))
                    .collect(),
                0,
            ),
            // Random counts, some values empty.
            (
                20,
                (0..BINS)
                    .map(|_| (r() % 3000) as usize * (r() % 2) as usize)
                    .collect(),
                0,
            ),
            // One value holding most keys.
            (
                8,
                (0..BINS)
                    .map(|v| {
                        if v == 77 {
                            1 << 24
                        } else {
                            (r() % 10) as usize
                        }
                    })
                    .collect(),
                1,
            ),
        ];
        for (shift, h, extra) in shapes {
            let limit = 1 << 16;
            let plan = Plan::of_counts(&h, shift, limit).expect("a plan");
            assert!(plan.map.windows(2).all(|w| w[0] <= w[1]), "map in order");
            let mut held = [0usize; 256];
            let (mut first, mut last) = ([usize::MAX; 256], [0; 256]);
            for (v, &c) in h.iter().enumerate() {
                let d = plan.map[v] as usize;
                if c > 0 {
                    held[d] += c;
                    first[d] = first[d].min(v);
                    last[d] = v;
                }
            }
            for d in 0..256 {
                if held[d] == 0 {
                    continue;
                }
                let span = usize::BITS - (first[d] ^ last[d]).leading_zeros();
                assert_eq!(plan.bits[d], shift + span, "bucket {d}'s bits");
                if first[d] != last[d] {
                    assert!(
                        held[d] <= limit,
                        "bucket {d} of several values holds {}",
                        held[d]
                    );
                    let passes = |bits| bucket_digits(bits, true).len();
                    let more = passes(plan.bits[d]) - passes(shift);
                    let few = held[d] <= limit / 8;
                    assert!(more <= extra || few, "bucket {d} takes {more} more passes");
                }
            }
        }
    }
}
