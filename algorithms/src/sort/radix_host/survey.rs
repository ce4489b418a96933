//! The survey that precedes every global pass of the radix sort: one
//! parallel read of the keys, by [`COUNT_BLOCK`] blocks, that finds the
//! bits in which they differ and counts, in each block, the 8-bit digit
//! that ends at the top varying bit (or a [`Plan`]'s 12 bits there).
//!
//! The top varying bit says which 8 bits split the keys into the most
//! buckets. The counts by block say where each block's keys of every
//! bucket go ([`offsets`] of the total, then block by block), so a
//! global pass scatters its blocks in any order, with no count of its own
//! and no look-back.
//!
//! [`Plan`]: super::plan::Plan

use super::plan::{BINS, BINS_BITS};
use crate::host::raw::Src;
use crate::host::{stream, HostExec};
use crate::sort::RadixKey;
use granule_core::exec::{block_bounds, block_count};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Keys per block of the survey's counts and of
/// [`counted_pass`](super::pass::counted_pass). Such a block is read
/// once, so it need not stay in cache; larger blocks cut the share of
/// partial lines at the ends of each block's runs, and inputs of a few
/// million keys still make enough blocks to share among the workers.
pub(super) const COUNT_BLOCK: usize = 1 << 18;

/// Counts of the 256 digits.
pub(super) type Hist = [usize; 256];

/// The 8-bit digit of `k` at `shift`.
#[inline(always)]
pub(in crate::sort) fn digit<K: RadixKey>(k: K, shift: u32) -> usize {
    ((k.to_radix() >> shift) & 0xff) as usize
}

/// Each [`COUNT_BLOCK`] block's histogram of one 8-bit digit.
pub(super) type BlockCounts = Vec<[u32; 256]>;

/// The digit counts of all blocks together.
pub(super) fn total(counts: &[[u32; 256]]) -> Hist {
    let mut h = [0usize; 256];
    for c in counts {
        for (t, &k) in h.iter_mut().zip(c) {
            *t += k as usize;
        }
    }
    h
}

/// Each [`COUNT_BLOCK`] block's counts of the [`BINS_BITS`] bits of the
/// keys at some shift.
pub(super) type BlockBins = Vec<[u32; BINS]>;

/// One parallel read of the keys, by [`COUNT_BLOCK`] blocks: the bits in
/// which some keys differ, and each block's counts of the `log2(W)` bits
/// at `at` (an 8-bit digit, or a [`Plan`](super::plan::Plan)'s 12 bits).
/// The counts by block let the global pass of
/// [`msd_sort`](super::split::msd_sort) place every block without
/// counting it again or waiting on the blocks before it.
///
/// # Safety
/// Nothing writes `keys` during the call.
pub(super) unsafe fn block_counts<E: HostExec, K: RadixKey, const W: usize>(
    exec: &E,
    label: &str,
    keys: &Src<K>,
    at: u32,
) -> (u64, Vec<[u32; W]>) {
    let n = keys.len;
    let blocks = block_count(n, COUNT_BLOCK);
    let slots: Vec<Mutex<[u32; W]>> = (0..blocks).map(|_| Mutex::new([0; W])).collect();
    let (any, all) = (AtomicU64::new(0), AtomicU64::new(!0));
    let of = |bits: u64| ((bits >> at) as usize) & (W - 1);
    exec.run(label, blocks, &|b| {
        let (lo, hi) = block_bounds(0, n, COUNT_BLOCK, b);
        // SAFETY: forwarded contract.
        let ks = unsafe { keys.slice(lo, hi) };
        let (mut or, mut and) = (0u64, !0u64);
        // u32 counters: two tables of 4096 still fit in L1, and a block holds
        // fewer than 2^32 keys. Two tables, for alternate keys, so that
        // equal keys in a row do not chain their increments.
        let mut h = [[0u32; W]; 2];
        // The keys come from memory; see `stream::AHEAD`.
        stream::by_lines(ks, |_, run| {
            let mut pairs = run.chunks_exact(2);
            for p in &mut pairs {
                for (t, &k) in h.iter_mut().zip(p) {
                    let bits = k.to_radix();
                    (or, and) = (or | bits, and & bits);
                    t[of(bits)] += 1;
                }
            }
            for &k in pairs.remainder() {
                let bits = k.to_radix();
                (or, and) = (or | bits, and & bits);
                h[0][of(bits)] += 1;
            }
        });
        let [mut h0, h1] = h;
        for (a, b) in h0.iter_mut().zip(h1) {
            *a += b;
        }
        *slots[b].lock() = h0;
        any.fetch_or(or, Ordering::Relaxed);
        all.fetch_and(and, Ordering::Relaxed);
    });
    let differ = if n == 0 {
        0
    } else {
        any.into_inner() ^ all.into_inner()
    };
    (differ, slots.into_iter().map(Mutex::into_inner).collect())
}

/// What [`survey`] found: the 8-bit digit that ends at the keys' most
/// significant varying bit and its counts by block, and, when it counted
/// 12 bits, their counts by block and their shift.
pub(super) struct Surveyed {
    pub(super) shift: u32,
    pub(super) counts: BlockCounts,
    pub(super) bins: Option<(u32, BlockBins)>,
}

/// Surveys keys that differ in no bit from `end` up; `None` when they
/// are all equal. The digit ending at the top varying bit splits the keys
/// into as many buckets as any 8 bits can: keys in `0..1000` take bits
/// 2..10, not the four values of byte 1. The digit just below `end` is
/// counted first: one read of the keys when it is the one (random keys).
/// Otherwise a second read counts the 12 bits that end at the top varying
/// bit, which a [`Plan`](super::plan::Plan) needs if the digit crowds,
/// and the digit's counts are sums of theirs. The first read counts 8
/// bits only: random keys, for which it suffices, would otherwise pay for
/// the 12 bits' larger tables in every block.
///
/// # Safety
/// Nothing writes `keys` during the call.
pub(super) unsafe fn survey<E: HostExec, K: RadixKey>(
    exec: &E,
    label: &str,
    keys: &Src<K>,
    end: u32,
) -> Option<Surveyed> {
    let first = end.saturating_sub(8);
    // SAFETY: forwarded contract.
    let (differ, counts) = unsafe { block_counts::<E, K, 256>(exec, label, keys, first) };
    let top = differ.checked_ilog2()?;
    assert!(top < end, "radix survey: keys differ above bit {}", end - 1);
    let shift = top.saturating_sub(7);
    if shift == first {
        let bins = None;
        return Some(Surveyed {
            shift,
            counts,
            bins,
        });
    }
    let at = top.saturating_sub(BINS_BITS - 1);
    // SAFETY: forwarded contract.
    let (_, bins) = unsafe { block_counts::<E, K, BINS>(exec, label, keys, at) };
    // The digit is the top 8 of the 12 bits, or lies lower among them.
    let counts = regroup(&bins, |v| (v >> (shift - at)) & 0xff);
    let bins = Some((at, bins));
    Some(Surveyed {
        shift,
        counts,
        bins,
    })
}

/// Each block's counts of 256 buckets, from its counts of 12-bit values
/// `bins`: value `v` falls in bucket `bucket(v)` (below 256).
pub(super) fn regroup(bins: &[[u32; BINS]], bucket: impl Fn(usize) -> usize) -> BlockCounts {
    (bins.iter())
        .map(|block| {
            let mut c = [0u32; 256];
            for (v, &k) in block.iter().enumerate() {
                c[bucket(v)] += k;
            }
            c
        })
        .collect()
}

/// The shift of the 8-bit digit that ends at the most significant bit in
/// which some keys differ (or starts at bit 0), in one plain read of
/// them; `None` when all keys are equal.
pub(super) fn differing<K: RadixKey>(keys: &[K]) -> Option<u32> {
    let (or, and) = (keys.iter()).fold((0, !0), |(or, and), &k| {
        (or | k.to_radix(), and & k.to_radix())
    });
    let top = (or ^ and).checked_ilog2()?;
    Some(top.saturating_sub(7))
}

/// Where each digit's bucket begins, given the digits' counts.
pub(super) fn offsets(h: &Hist) -> Hist {
    let mut start = [0usize; 256];
    for d in 1..256 {
        start[d] = start[d - 1] + h[d - 1];
    }
    start
}
