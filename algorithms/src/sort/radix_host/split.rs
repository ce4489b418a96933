//! The global phase of the radix sort (MSD): passes by the top varying
//! bits until every bucket fits in cache, then each bucket sorted there
//! by one worker ([`msd_sort`]).
//!
//! The keys (and values) move back and forth between the View and a
//! scratch buffer of its length ([`Sides`]): each pass leaves its buckets
//! on the other side, and only a bucket still too large for a cache is
//! surveyed and split again by its own top varying bits ([`Split`]), so
//! as few keys as possible cross memory more than once. Where the
//! surveyed digit would crowd the keys into a few buckets, the pass goes
//! by a [`Plan`] of 12 bits instead. The buckets left ([`Bucket`]) are
//! sorted where they lie and written back to the View once.

use super::bucket::sort_bucket;
use super::pass::counted_pass;
use super::plan::{Plan, BINS, BINS_EXTRA};
use super::survey::{block_counts, digit, offsets, survey, total, Hist, Surveyed};
use crate::host::raw::{Dst, Scratch};
use crate::host::{HostExec, STREAM_BYTES};
use crate::sort::RadixKey;
use crate::AlgorithmError;
use granule_views::Element;

/// The two buffers [`msd_sort`] moves keys (and values) between: the
/// View and a scratch buffer of its length, element `i` of one standing
/// for element `i` of the other.
#[derive(Clone, Copy)]
struct Sides<K, V> {
    view: (Dst<K>, Option<Dst<V>>),
    scratch: (Dst<K>, Option<Dst<V>>),
}

impl<K: Element, V: Element> Sides<K, V> {
    /// Elements `lo..hi` of the scratch side (`true`) or the View's.
    fn part(&self, in_scratch: bool, lo: usize, hi: usize) -> (Dst<K>, Option<Dst<V>>) {
        let (k, v) = if in_scratch { self.scratch } else { self.view };
        (k.part(lo, hi), v.map(|v| v.part(lo, hi)))
    }
}

/// A bucket left for the in-cache sorts: elements `lo..hi`, on the
/// scratch side or in the View, whose keys differ only in their low
/// `bits` bits.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    lo: usize,
    hi: usize,
    bits: u32,
    in_scratch: bool,
}

/// Global passes until every bucket holds at most `bucket_bytes` of keys
/// and values (`row` bytes each), then every bucket sorted by its lower
/// bits in cache and left in the View. `surveyed` is [`survey`]'s
/// account of the keys. Returns the global passes the most moved key
/// took.
///
/// # Safety
/// As for [`radix_sort`](super::radix_sort), and the counts of
/// `surveyed` are counts of the keys as they are now.
pub(super) unsafe fn msd_sort<E: HostExec, K: RadixKey, V: Element>(
    exec: &E,
    label: &str,
    (keys, values): (Dst<K>, Option<Dst<V>>),
    surveyed: Surveyed,
    (row, bucket_bytes): (usize, usize),
) -> Result<usize, AlgorithmError> {
    let n = keys.len;
    let (mut tk, mut tv) = scratch_pair::<K, V>(label, n, values.is_some())?;
    let sides = Sides {
        view: (keys, values),
        scratch: (tk.dst(), tv.as_mut().map(|t| t.dst())),
    };
    let mut buckets = Vec::new();
    let split = Split {
        exec,
        label,
        sides,
        limit: bucket_bytes / row,
    };
    // SAFETY: the View is fully written and `surveyed` counts it; the
    // scratch is ours; nothing else touches either (forwarded contract).
    let depth = unsafe { split.run((0, n), surveyed, false, &mut buckets) };
    let stream = n * row > STREAM_BYTES;
    exec.run(label, buckets.len(), &|i| {
        let b = buckets[i];
        let (wk, wv) = sides.part(b.in_scratch, b.lo, b.hi);
        let out = b.in_scratch.then(|| sides.part(false, b.lo, b.hi));
        // SAFETY: the passes wrote every bucket's elements on its side
        // (and returned, so their writes are visible); the buckets are
        // disjoint ranges, each touched by this call alone, and the two
        // sides are disjoint buffers.
        unsafe {
            sort_bucket(
                (&wk, wv.as_ref()),
                out.as_ref().map(|(k, v)| (k, v.as_ref())),
                (0, b.hi - b.lo),
                b.bits,
                stream,
            )
        };
    });
    Ok(depth)
}

/// Whether a top-varying-byte pass over `n` keys whose largest bucket
/// holds `most` leaves a bucket too large for a cache (more than `limit`
/// keys), or many times an even share and larger than L2: such keys take
/// a [`Plan`] of 12 bits instead ([`Split::run`]).
pub(in crate::sort) fn crowds(most: usize, n: usize, limit: usize) -> bool {
    most > limit || (most > 4 * n.div_ceil(256) && most > limit / 16)
}

/// The global passes of [`msd_sort`].
struct Split<'a, E, K, V> {
    exec: &'a E,
    label: &'a str,
    sides: Sides<K, V>,
    limit: usize,
}

impl<E: HostExec, K: RadixKey, V: Element> Split<'_, E, K, V> {
    /// Moves elements `lo..hi` from one side (the scratch when
    /// `in_scratch`) to the other by their top varying bits, then splits
    /// again each resulting bucket of more than `limit` keys, and lists
    /// the rest in `buckets`, in order. Returns the passes the most moved
    /// key took.
    ///
    /// The pass is by the surveyed 8-bit digit, unless that leaves a
    /// bucket too large for a cache, or many times an even share and
    /// larger than L2: then by a [`Plan`] of the 12 bits that end where
    /// the digit ends, when one fits in 256 buckets. Floats in `0.0..1.0`
    /// put half their keys in one exponent, which a digit cuts in two to
    /// eight: their buckets would take a second pass or be sorted from
    /// L3.
    ///
    /// # Safety
    /// Elements `lo..hi` are written on their side, and `surveyed` counts
    /// them, by blocks from `lo`; nothing else touches those elements on
    /// either side.
    unsafe fn run(
        &self,
        (lo, hi): (usize, usize),
        surveyed: Surveyed,
        in_scratch: bool,
        buckets: &mut Vec<Bucket>,
    ) -> usize {
        let Surveyed {
            shift,
            counts,
            bins,
        } = surveyed;
        let keys = self.sides.part(in_scratch, lo, hi).0.as_src();
        let most = total(&counts).into_iter().max().unwrap_or(0);
        let wide = (shift.checked_sub(BINS_EXTRA)).filter(|_| crowds(most, hi - lo, self.limit));
        let plan = wide.and_then(|at| {
            let bins = match bins {
                Some((bins_at, bins)) if bins_at == at => bins,
                // SAFETY: nothing writes the source part during the read.
                _ => unsafe { block_counts::<E, K, BINS>(self.exec, self.label, &keys, at) }.1,
            };
            Plan::new(&bins, at, self.limit)
        });
        let (plan, counts) = plan.map_or((None, counts), |(p, c)| (Some(p), c));
        let h = total(&counts);
        let start = offsets(&h);
        let counted = (&counts[..], &start);
        let bits = match &plan {
            Some(plan) => {
                // SAFETY: the contract; `counts` counts the plan's buckets.
                unsafe { self.pass((lo, hi), in_scratch, |k: K| plan.bucket(k), counted) };
                plan.bits
            }
            None => {
                // SAFETY: the contract; `counts` counts the digit.
                unsafe { self.pass((lo, hi), in_scratch, |k: K| digit(k, shift), counted) };
                [shift; 256]
            }
        };
        let mut depth = 1;
        for d in 0..256 {
            let bucket = Bucket {
                lo: lo + start[d],
                hi: lo + start[d] + h[d],
                bits: bits[d],
                in_scratch: !in_scratch,
            };
            // SAFETY: the pass wrote the bucket on the other side and
            // returned; its keys differ in no bit from `bits[d]` up.
            depth = depth.max(1 + unsafe { self.settle(bucket, buckets) });
        }
        depth
    }

    /// One [`counted_pass`] of elements `lo..hi` from one side (the
    /// scratch when `in_scratch`) to the other, by `bucket`.
    ///
    /// # Safety
    /// The elements are written on their side, nothing else touches them
    /// on either side, `counts` are the counts of `bucket`'s values
    /// (below 256) in their blocks, and `start` the [`offsets`] of their
    /// total.
    unsafe fn pass(
        &self,
        (lo, hi): (usize, usize),
        in_scratch: bool,
        bucket: impl Fn(K) -> usize + Copy + Sync,
        (counts, start): (&[[u32; 256]], &Hist),
    ) {
        let (from, to) = (
            self.sides.part(in_scratch, lo, hi),
            self.sides.part(!in_scratch, lo, hi),
        );
        let src = (&from.0.as_src(), from.1.map(|v| v.as_src()));
        // SAFETY: the two sides are disjoint buffers; the source part is
        // written and counted (the contract), and the parts are ours.
        unsafe {
            counted_pass(
                self.exec,
                self.label,
                (src.0, src.1.as_ref()),
                (&to.0, to.1.as_ref()),
                bucket,
                (counts, start),
            )
        };
    }

    /// Lists `bucket` in `buckets` if it is small enough for a cache (or
    /// empty, or its keys need no more sorting), else splits it again.
    /// Returns the passes that took.
    ///
    /// # Safety
    /// The bucket's elements are written on its side, nothing else
    /// touches them, and its keys differ in no bit from `bucket.bits` up.
    unsafe fn settle(&self, bucket: Bucket, buckets: &mut Vec<Bucket>) -> usize {
        let Bucket {
            lo,
            hi,
            bits,
            in_scratch,
        } = bucket;
        if hi - lo <= self.limit || bits == 0 {
            if lo < hi {
                buckets.push(bucket);
            }
            return 0;
        }
        let keys = self.sides.part(in_scratch, lo, hi).0.as_src();
        // SAFETY: the contract; nothing writes the bucket during the survey.
        match unsafe { survey(self.exec, self.label, &keys, bits) } {
            // All equal: nothing to sort, only to bring back.
            None => {
                buckets.push(Bucket { bits: 0, ..bucket });
                0
            }
            // SAFETY: the bucket is written on its side, `next` counts
            // it, and its keys differ in no bit from `bits` up.
            Some(next) => unsafe { self.run((lo, hi), next, in_scratch, buckets) },
        }
    }
}

/// Scratch room for `n` keys, and for `n` values when `with_values`.
fn scratch_pair<K: Element, V: Element>(
    label: &str,
    n: usize,
    with_values: bool,
) -> Result<(Scratch<K>, Option<Scratch<V>>), AlgorithmError> {
    let values = match with_values {
        true => Some(Scratch::new(label, n)?),
        false => None,
    };
    Ok((Scratch::new(label, n)?, values))
}
