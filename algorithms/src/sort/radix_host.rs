//! Radix sort on the host spaces: global passes by the 8 bits that end at
//! the most significant varying bit until every bucket fits in cache, then
//! an LSD sort of each bucket by its lower bits in cache ([`msd_sort`]).
//!
//! A global pass streams the keys (and values) through DRAM to 256
//! destinations, which is slow, so as few keys as possible take one: the
//! first read of the keys finds the top bit in which they differ and
//! counts the 8-bit digit ending there block by block, one pass by that
//! digit moves every key to its bucket, and only a bucket too large for a
//! cache is surveyed and split again by its own top varying bits. Where
//! the digit crowds its keys into a few buckets (floats, whose exponents
//! share a few values), the pass goes by a [`Plan`] of the 12 bits ending
//! there instead, which joins their 4096 values into 256 buckets of about
//! even size. The counts by block give every block its place in every
//! bucket before a pass starts, so the blocks scatter in any order, with
//! no look-back. Each bucket in cache is then sorted by one worker,
//! stably (a pass visits a bucket's keys in order), and written back
//! once.

use super::radix_sampled::sampled_sort;
use super::{RadixKey, SortImpl};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Scratch, Src};
use crate::host::stream::{self, Trickle};
use crate::host::{HostExec, STREAM_BYTES};
use crate::io::Output;
use crate::AlgorithmError;
use granule_core::exec::{block_bounds, block_count};
use granule_core::Serial;
use granule_views::{Element, HostSpace};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Keys per block of the survey's counts and of [`counted_pass`]. Such a
/// block is read once, so it need not stay in cache; larger blocks cut
/// the share of partial lines at the ends of each block's runs (2^24 u32
/// keys, driver medians over five rounds: 57.6 ms with 2^16, 54.1 with
/// 2^18, 58.4 with 2^20).
const COUNT_BLOCK: usize = 1 << 18;

/// Counts of the 256 digits.
type Hist = [usize; 256];

#[inline(always)]
pub(super) fn digit<K: RadixKey>(k: K, shift: u32) -> usize {
    ((k.to_radix() >> shift) & 0xff) as usize
}

/// Each [`COUNT_BLOCK`] block's histogram of one 8-bit digit.
type BlockCounts = Vec<[u32; 256]>;

/// The digit counts of all blocks together.
fn total(counts: &[[u32; 256]]) -> Hist {
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
type BlockBins = Vec<[u32; BINS]>;

/// One parallel read of the keys, by [`COUNT_BLOCK`] blocks: the bits in
/// which some keys differ, and each block's counts of the `log2(W)` bits
/// at `at` (an 8-bit digit, or a [`Plan`]'s 12 bits). The counts by block
/// let the global pass of [`msd_sort`] place every block without counting
/// it again or waiting on the blocks before it.
///
/// # Safety
/// Nothing writes `keys` during the call.
unsafe fn block_counts<E: HostExec, K: RadixKey, const W: usize>(
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
struct Surveyed {
    shift: u32,
    counts: BlockCounts,
    bins: Option<(u32, BlockBins)>,
}

/// Surveys keys that differ in no bit from `end` up; `None` when they
/// are all equal. The digit ending at the top varying bit splits the keys
/// into as many buckets as any 8 bits can: keys in `0..1000` take bits
/// 2..10, not the four values of byte 1. The digit just below `end` is
/// counted first: one read of the keys when it is the one (random keys).
/// Otherwise a second read counts the 12 bits that end at the top varying
/// bit, which a [`Plan`] needs if the digit crowds, and the digit's
/// counts are sums of theirs. (Counting 12 bits in the first read too
/// made random keys' sorts about 4% slower.)
///
/// # Safety
/// Nothing writes `keys` during the call.
unsafe fn survey<E: HostExec, K: RadixKey>(
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
fn regroup(bins: &[[u32; BINS]], bucket: impl Fn(usize) -> usize) -> BlockCounts {
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
fn differing<K: RadixKey>(keys: &[K]) -> Option<u32> {
    let (or, and) = (keys.iter()).fold((0, !0), |(or, and), &k| {
        (or | k.to_radix(), and & k.to_radix())
    });
    let top = (or ^ and).checked_ilog2()?;
    Some(top.saturating_sub(7))
}

/// One global pass: moves keys (and values) from `src` to `dst` ordered
/// by their bucket (`bucket(k)`, below 256: the 8-bit digit at a shift,
/// or a [`Plan`]'s), stably. Every block's digit counts are known
/// beforehand (`counts`, from the survey of these very keys): each
/// block's place in every bucket is a prefix sum, so the blocks are
/// scattered in any order, with no count of their own and no look-back.
///
/// # Safety
/// The sources hold `n` initialized elements no thread writes during the
/// call; the destinations hold room for `n`, are disjoint from the
/// sources, and nothing else touches them. `bucket` returns values below
/// 256; `counts` are the counts of its values in each [`COUNT_BLOCK`]
/// block of the source keys, as they are now, and `start` the
/// [`offsets`] of their total.
unsafe fn counted_pass<E: HostExec, K: RadixKey, V: Element>(
    exec: &E,
    label: &str,
    (sk, sv): (&Src<K>, Option<&Src<V>>),
    (dk, dv): (&Dst<K>, Option<&Dst<V>>),
    bucket: impl Fn(K) -> usize + Copy + Sync,
    (counts, start): (&[[u32; 256]], &Hist),
) {
    let n = sk.len;
    let mut at = Vec::with_capacity(counts.len());
    let mut next = *start;
    for c in counts {
        at.push(next);
        for (a, &k) in next.iter_mut().zip(c) {
            *a += k as usize;
        }
    }
    // What keeps the unchecked writes below in bounds is that the counts
    // are these keys' (the contract); this checks that they at least
    // describe blocks of this length.
    for (b, c) in counts.iter().enumerate() {
        let (lo, hi) = block_bounds(0, n, COUNT_BLOCK, b);
        let sum: usize = c.iter().map(|&k| k as usize).sum();
        assert_eq!(
            sum,
            hi - lo,
            "radix pass: block {b}'s counts do not match its length"
        );
    }
    assert_eq!(
        counts.len(),
        block_count(n, COUNT_BLOCK),
        "radix pass: block count"
    );
    exec.run(label, counts.len(), &|b| {
        let (lo, hi) = block_bounds(0, n, COUNT_BLOCK, b);
        // SAFETY: the sources are not written during the pass.
        let (ks, vs) = unsafe { (sk.slice(lo, hi), sv.map(|sv| sv.slice(lo, hi))) };
        // SAFETY: block b's keys with digit d go to at[b][d].., up to
        // at[b + 1][d] (its counts are exact, the keys unchanged since they
        // were counted): inside bucket d, disjoint from every other block.
        unsafe { scatter_block(ks, vs, (dk, dv), at[b], bucket) };
    });
}

/// Bytes of a cache line: the unit the write-combining buffers flush.
pub(super) const LINE: usize = 64;

/// Scatters a block's keys (and values) to `at[d]`, `at[d] + 1`, …,
/// where `d = bucket(k)`, through software write-combining: each bucket
/// collects its keys in a line-sized buffer (all 256 of them fit in L1)
/// that leaves as one whole line when full, instead of a cache miss per
/// key. A buffer's slots map to one destination line, so full flushes are
/// aligned lines (streamed out); the partial lines at the ends of the
/// block's range are written element by element, since their other
/// elements belong to other blocks.
///
/// # Safety
/// `bucket` returns values below 256. For every bucket `d`, elements
/// `at[d]..at[d] + count(d)` of `dk` (and `dv`) exist, are contiguous,
/// and no other thread touches them, where `count(d)` is how many keys of
/// `ks` are in bucket `d`; `vs` is as long as `ks` when given, and `dv`
/// is given with it.
unsafe fn scatter_block<K: RadixKey, V: Element>(
    ks: &[K],
    vs: Option<&[V]>,
    (dk, dv): (&Dst<K>, Option<&Dst<V>>),
    at: [usize; 256],
    bucket: impl Fn(K) -> usize,
) {
    let w = LINE / std::mem::size_of::<K>();
    with_buffer::<K, _>(256 * w, |kb| {
        with_buffer::<V, _>(if vs.is_some() { 256 * w } else { 0 }, |vb| {
            // Values of the keys' size at the same byte of their lines fill
            // whole, aligned lines exactly when the keys do.
            let byte_in_line = |p: *mut u8| p as usize % LINE;
            let whole_values = dv.is_some_and(|dv| {
                std::mem::size_of::<V>() == std::mem::size_of::<K>()
                    && dv.contiguous()
                    // SAFETY: element 0 of contiguous Views; only the
                    // addresses are taken.
                    && unsafe {
                        byte_in_line(dv.ptr_at(0).cast()) == byte_in_line(dk.ptr_at(0).cast())
                    }
            });
            let mut lines = Lines::<K, V> {
                kb: kb.as_mut_ptr(),
                vb: vb.as_mut_ptr(),
                dk,
                dv,
                whole_values,
                base: [0; 256],
                from: [0; 256],
                fill: [0; 256],
            };
            for (d, &at) in at.iter().enumerate() {
                // Slot j of bucket d's buffer is destination element base + j;
                // the slots before `from` belong to whoever precedes this block.
                let from = dk.past_line(at);
                // `base` may lie before element 0 (the View's first line starts
                // before it); only slots from `from` on are written, at `at` on.
                (lines.from[d], lines.fill[d], lines.base[d]) = (from, from, at.wrapping_sub(from));
            }
            // SAFETY: forwarded contract; the buffers hold 256 * w slots.
            unsafe {
                lines.push_all(ks, vs, bucket);
                lines.finish();
            }
        })
    })
}

/// The write-combining buffers of [`scatter_block`].
struct Lines<'d, K, V> {
    kb: *mut K,
    vb: *mut V,
    dk: &'d Dst<K>,
    dv: Option<&'d Dst<V>>,
    /// A full line of keys maps to a whole, aligned line of values.
    whole_values: bool,
    base: [usize; 256],
    from: [usize; 256],
    fill: [usize; 256],
}

impl<K: RadixKey, V: Element> Lines<'_, K, V> {
    const W: usize = LINE / std::mem::size_of::<K>();

    /// Pushes every key of `ks` (and value of `vs`) to its bucket. A
    /// function of its own, so that the bucket's shift and the buffers'
    /// addresses stay in registers: inlined in `scatter_block`, its stores
    /// through the buffers' raw pointers might have written the caller's
    /// state, and both were loaded again for every key. With this and
    /// `whole_values`, criterion A/B at 2^24, two rounds: `sort_by_key` of
    /// u32 pairs 115.0 and 116.7 ms against 133.5 and 139.0; `sort` of u32
    /// 88.1 and 88.1 against 95.3 and 88.2.
    ///
    /// # Safety
    /// As for [`push`](Self::push), for every key, with `d = bucket(k)`.
    #[inline(never)]
    unsafe fn push_all(&mut self, ks: &[K], vs: Option<&[V]>, bucket: impl Fn(K) -> usize) {
        // SAFETY: forwarded contract.
        unsafe {
            // Keys and values come from memory; see `stream::AHEAD`.
            match vs {
                Some(vs) => stream::by_lines(ks, |at, kr| {
                    let vr = &vs[at..at + kr.len()];
                    stream::fetch_ahead(vs, at, kr.len());
                    for (&k, &v) in kr.iter().zip(vr) {
                        self.push(bucket(k), k, Some(v));
                    }
                }),
                None => stream::by_lines(ks, |_, kr| {
                    for &k in kr {
                        self.push(bucket(k), k, None);
                    }
                }),
            }
        }
    }

    /// Adds key `k` (and value `v`) to bucket `d`, flushing a full line.
    ///
    /// # Safety
    /// `d < 256`; the contract of [`scatter_block`] holds for the keys
    /// pushed; `v` is given exactly when the values buffer exists.
    #[inline(always)]
    unsafe fn push(&mut self, d: usize, k: K, v: Option<V>) {
        let f = self.fill[d];
        // SAFETY: d < 256 and f < W: inside the buffers.
        unsafe {
            *self.kb.add(d * Self::W + f) = k;
            if let Some(v) = v {
                *self.vb.add(d * Self::W + f) = v;
            }
        }
        if f + 1 < Self::W {
            self.fill[d] = f + 1;
        } else {
            // SAFETY: forwarded contract.
            unsafe { self.flush_line(d) };
        }
    }

    /// Writes bucket `d`'s full buffer out and starts its next line.
    ///
    /// # Safety
    /// As for [`push`](Self::push), with the buffer full.
    #[inline(always)]
    unsafe fn flush_line(&mut self, d: usize) {
        if self.from[d] == 0 {
            let at = self.base[d];
            // SAFETY: the W slots are written and are this block's
            // destination elements at..at + W (the caller's contract);
            // a constant count, so the copy is a few vector moves. Key
            // `at` starts a line (`from` is 0), and with `whole_values`
            // value `at` sits at the same place in its line, so it starts
            // one too: both destinations are aligned for `line_nt`.
            unsafe {
                stream::line_nt(self.dk.ptr_at(at).cast(), self.kb.add(d * Self::W).cast());
                match self.dv {
                    Some(dv) if self.whole_values => {
                        stream::line_nt(dv.ptr_at(at).cast(), self.vb.add(d * Self::W).cast())
                    }
                    Some(dv) => stream::copy_nt(
                        dv.ptr_at(at),
                        std::slice::from_raw_parts(self.vb.add(d * Self::W), Self::W),
                    ),
                    None => {}
                }
            }
        } else {
            // SAFETY: forwarded contract (the block's first, partial line).
            unsafe { self.flush(d, Self::W) };
        }
        self.base[d] = self.base[d].wrapping_add(Self::W);
        (self.from[d], self.fill[d]) = (0, 0);
    }

    /// Writes slots `from[d]..hi` of bucket `d` out.
    ///
    /// # Safety
    /// As for [`push`](Self::push); those slots are written, and they are
    /// destination elements of this block (the caller's contract).
    #[inline(always)]
    unsafe fn flush(&self, d: usize, hi: usize) {
        let (lo, at) = (self.from[d], self.base[d].wrapping_add(self.from[d]));
        // SAFETY: slots lo..hi are in the buffers; `at..at + hi - lo` are
        // this block's destination elements; buffers and Views are disjoint.
        unsafe {
            let keys = std::slice::from_raw_parts(self.kb.add(d * Self::W + lo), hi - lo);
            self.dk.write_nt(at, keys);
            if let Some(dv) = self.dv {
                dv.write_nt(
                    at,
                    std::slice::from_raw_parts(self.vb.add(d * Self::W + lo), hi - lo),
                );
            }
        }
    }

    /// Writes every partly filled line out and fences the streamed ones.
    ///
    /// # Safety
    /// As for [`flush`](Self::flush).
    unsafe fn finish(&self) {
        for d in 0..256 {
            if self.fill[d] > self.from[d] {
                // SAFETY: forwarded contract.
                unsafe { self.flush(d, self.fill[d]) };
            }
        }
        stream::fence();
    }
}

/// Sorts contiguous `keys` (and `values`) in place.
///
/// One global pass by the 8 bits that end at the most significant varying
/// bit moves every key to its bucket, and each bucket is then sorted by
/// its lower bits in cache ([`msd_sort`]): random keys cross memory twice
/// instead of once per byte. Buckets too large for a cache (keys that
/// crowd together, such as floats in `0.0..1.0`, whose exponents share a
/// few top bytes) are split again by their own top varying bits first.
/// Many keys alone whose top bit varies take a pass placed by a sample
/// instead of a count ([`sampled_sort`]), when the sample allows it.
///
/// # Safety
/// Both describe live contiguous host Views of the same length that
/// nothing else touches during the call.
unsafe fn radix_sort<E: HostExec, K: RadixKey, V: Element>(
    exec: &E,
    label: &str,
    keys: Dst<K>,
    values: Option<Dst<V>>,
) -> Result<(), AlgorithmError> {
    // SAFETY: forwarded contract.
    unsafe { radix_sort_within(exec, label, (keys, values), BUCKET_BYTES) }.map(|_| ())
}

/// [`radix_sort`] with buckets of at most `bucket_bytes` of keys and
/// values sorted in cache (the tests reach every shape with small inputs
/// through a smaller limit). Returns the global passes the most moved key
/// took (0 when the whole range was sorted in cache, or all keys are
/// equal), which the tests check.
///
/// # Safety
/// As for [`radix_sort`].
unsafe fn radix_sort_within<E: HostExec, K: RadixKey, V: Element>(
    exec: &E,
    label: &str,
    (keys, values): (Dst<K>, Option<Dst<V>>),
    bucket_bytes: usize,
) -> Result<usize, AlgorithmError> {
    let n = keys.len;
    let row = std::mem::size_of::<K>() + values.map_or(0, |_| std::mem::size_of::<V>());
    if n < 2 {
        return Ok(0);
    }
    if n * row <= WHOLE_BYTES {
        // SAFETY: nothing writes the keys yet; the caller's contract gives
        // them to this thread alone.
        let ks = unsafe { keys.as_src().slice(0, n) };
        // All keys equal: a stable sort moves nothing.
        if let Some(shift) = differing(ks) {
            // SAFETY: the whole range is one bucket, sorted where it lies.
            unsafe { sort_bucket((&keys, values.as_ref()), None, (0, n), shift + 8, false) };
        }
        return Ok(0);
    }
    // SAFETY: forwarded contract.
    if values.is_none() && unsafe { sampled_sort(exec, label, keys, bucket_bytes / row) } {
        return Ok(1);
    }
    // SAFETY: nothing writes the keys yet.
    let Some(surveyed) = (unsafe { survey(exec, label, &keys.as_src(), 8 * K::BYTES as u32) })
    else {
        return Ok(0); // all keys equal: a stable sort moves nothing
    };
    // SAFETY: forwarded contract; the keys were just surveyed.
    unsafe { msd_sort(exec, label, (keys, values), surveyed, (row, bucket_bytes)) }
}

/// Bytes of keys and values sorted in cache on one thread without the
/// global pass: below this, the pass and a second thread do not pay. At
/// 1 MiB (the L2 of the larger cores measured) the two ways take the same
/// time; below it the global pass leaves buckets of a few hundred keys,
/// each clearing and summing two tables of 4096 counters (criterion A/B,
/// three rounds against a 256 KiB limit: 2^17 u32 keys 1.30–1.64 ms
/// against 1.77–1.97, 2^16 pairs 0.80–1.04 against 1.52–1.61).
const WHOLE_BYTES: usize = 1 << 20;

/// Bytes of keys and values a bucket may hold to be sorted in cache. A
/// bucket and its ping-pong buffer take twice this, more than a core's
/// L2 (512 KiB to 1 MiB on the machines measured): the passes then run
/// partly or wholly from L3, still far faster than a global pass per byte
/// (2^24 u64 pairs, 1 MiB buckets on average: 384 ms against 565 ms).
/// Two threads' buckets of 8 MiB and their buffers fill a 32 MiB L3.
/// With a 2 MiB limit, random keys past 2^26 u32 (2^25 pairs) made some
/// bucket a little larger than the limit and fell to the global passes:
/// 2^27 u32 keys, 1779 against 793 ms; 2^26 pairs, 1235 against 548 ms;
/// 2^27 pairs, 2397 against 1858 ms (driver, 2 threads).
const BUCKET_BYTES: usize = 1 << 23;

/// Where each digit's bucket begins, given the digits' counts.
fn offsets(h: &Hist) -> Hist {
    let mut start = [0usize; 256];
    for d in 1..256 {
        start[d] = start[d - 1] + h[d - 1];
    }
    start
}

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
/// As for [`radix_sort`], and the counts of `surveyed` are counts of the
/// keys as they are now.
unsafe fn msd_sort<E: HostExec, K: RadixKey, V: Element>(
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
pub(super) fn crowds(most: usize, n: usize, limit: usize) -> bool {
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
    /// eight: their buckets took a second pass or were sorted from L3.
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

/// Bits of a [`Plan`]'s key values: 4096 counters still fit in L1.
const BINS_BITS: u32 = 12;

/// How many values [`BINS_BITS`] bits take.
const BINS: usize = 1 << BINS_BITS;

/// The bits a [`Plan`] reads below an 8-bit digit's.
const BINS_EXTRA: u32 = BINS_BITS - 8;

/// The buckets of a global pass by the 12 bits at `shift`: runs of
/// adjacent values, mapped in order to at most 256 buckets, each holding
/// about as many keys as an even split would (a value that holds more
/// is a bucket of its own). A run of many keys stays within values whose
/// keys an in-cache sort of the bits below `shift` takes in as many
/// passes ([`Plan::of_counts`]).
struct Plan {
    shift: u32,
    /// The bucket of each 12-bit value.
    map: Box<[u8; BINS]>,
    /// The keys of bucket `d` differ in their low `bits[d]` bits only.
    bits: [u32; 256],
}

impl Plan {
    /// A plan for keys whose 12-bit values at `shift` have counts `bins`
    /// in each [`COUNT_BLOCK`] block, with its buckets' counts in each
    /// block, if one fits (see [`of_counts`](Self::of_counts)).
    fn new(bins: &[[u32; BINS]], shift: u32, limit: usize) -> Option<(Plan, BlockCounts)> {
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

    #[inline(always)]
    fn bucket<K: RadixKey>(&self, k: K) -> usize {
        self.map[((k.to_radix() >> self.shift) as usize) & (BINS - 1)] as usize
    }
}

/// The digits a bucket is sorted by, low to high, as (shift, width) in
/// bits, with where each one's counts start in [`bucket_histograms`]'s
/// table (packed, so the tables share L1 sets evenly). The widths are as
/// even as they can be, the wider ones low.
///
/// Up to 20 bits take at most two digits, of up to 10 bits (one of up
/// to 12). Keys alone with more bits take digits of up to 8: a pass to
/// 256 destinations keeps the lines it writes in L1, where a 12-bit
/// digit's 4096 lines miss it on every store, and three such passes cost
/// less than two of 12 bits. With values, up to 24 bits take two digits
/// of up to 12: every pass moves the values too (through one buffer of
/// pairs), so a third costs more than the missed lines (the bucket phase
/// of 2^24 u32 pairs: 48.3–48.5 ms against 50.5–51.2 by bytes).
///
/// Driver, 2^24 keys, 2 threads, three rounds alternating with two
/// 12-bit digits and the histogram loop before [`count_digits`]: random
/// u32 keys 47.4–48.3 ms against 54.9–55.1; u32 pairs 70.6–71.5 against
/// 73.8–75.8; floats in the unit interval and normal ones, whose buckets
/// span 16 to 23 bits, 64.8–68.5 and 68.2–70.6 against 66.3–68.1 and
/// 71.4–72.4. (Three bytes from 17 bits on made those floats 10–20%
/// slower.)
fn bucket_digits(bits: u32, with_values: bool) -> Vec<(Digit, usize)> {
    let count = if bits <= 20 || (with_values && bits <= 24) {
        bits.div_ceil(12)
    } else {
        bits.div_ceil(8)
    };
    let (mut shift, mut at) = (0, 0);
    (0..count)
        .map(|i| {
            let width = (bits - shift).div_ceil(count - i);
            let digit = ((shift, width), at);
            (shift, at) = (shift + width, at + (1 << width));
            digit
        })
        .collect()
}

/// A digit of a bucket sort: its shift and width in bits.
type Digit = (u32, u32);

/// The widest digit's counts: 12 bits.
const TABLE: usize = 1 << 12;

#[inline(always)]
fn digit_of<K: RadixKey>(k: K, (shift, width): Digit) -> usize {
    ((k.to_radix() >> shift) & ((1 << width) - 1)) as usize
}

/// A bucket's histograms of its `digits`, in one read: a digit's counts
/// are `[at..][..1 << width]`.
fn bucket_histograms<K: RadixKey>(
    ks: &[K],
    digits: &[(Digit, usize)],
    trickle: &mut Trickle,
) -> Vec<u32> {
    // The u32 counts must not wrap: that is what keeps the scatters'
    // unchecked writes, which every bucket sort makes by these counts,
    // in bounds.
    let n = ks.len();
    assert!(u32::try_from(n).is_ok(), "radix bucket of {n} keys");
    let len = digits.last().map_or(0, |&((_, w), at)| at + (1 << w));
    let mut h = vec![0u32; len];
    let widest = digits.iter().map(|&((_, w), _)| w).max().unwrap_or(0);
    match (digits.len(), widest) {
        (2, ..=8) => count_digits::<K, 2, 256>(ks, digits, &mut h, trickle),
        (2, ..=12) => count_digits::<K, 2, TABLE>(ks, digits, &mut h, trickle),
        (3, ..=8) => count_digits::<K, 3, 256>(ks, digits, &mut h, trickle),
        // Four to eight bytes: whole keys sorted on one thread (under
        // `WHOLE_BYTES`), and buckets of wide keys. These took the list's
        // loop until 2026-11-29: 2^16 u32 keys 0.63-0.65 ms against
        // 0.43-0.45 now, 2^18 2.42-2.45 against 1.51-1.66 (driver).
        (4, ..=8) => count_digits::<K, 4, 256>(ks, digits, &mut h, trickle),
        (5, ..=8) => count_digits::<K, 5, 256>(ks, digits, &mut h, trickle),
        (6, ..=8) => count_digits::<K, 6, 256>(ks, digits, &mut h, trickle),
        (7, ..=8) => count_digits::<K, 7, 256>(ks, digits, &mut h, trickle),
        (8, ..=8) => count_digits::<K, 8, 256>(ks, digits, &mut h, trickle),
        _ => {
            // The bucket comes from memory (the global pass streamed it
            // out); see `stream::AHEAD`.
            stream::by_lines(ks, |_, run| {
                trickle.step();
                for &k in run {
                    for &(dg, at) in digits {
                        h[at + digit_of(k, dg)] += 1;
                    }
                }
            })
        }
    }
    h
}

/// [`bucket_histograms`] of `N` digits of at most `log2(W)` bits each, in
/// an unrolled loop (a loop over the list of digits reloaded each digit
/// per key: a quarter of the bucket phase in perf). The tables are arrays
/// indexed through a mask below `W`, so no index is checked, and digit 0
/// takes no shift. A variable shift needs `cl` on x86, and every key
/// moved each digit's shift into it, so bytes at bits `0, 8, 16` (random
/// u32 keys' three low bytes) take constant shifts. 2^24 u32 keys in
/// two 12-bit digits, 2 threads: 9.4 ms a thread with checked indexes
/// and two variable shifts, 6.0 this way.
fn count_digits<K: RadixKey, const N: usize, const W: usize>(
    ks: &[K],
    digits: &[(Digit, usize)],
    h: &mut [u32],
    trickle: &mut Trickle,
) {
    let dg: [Digit; N] = std::array::from_fn(|i| digits[i].0);
    debug_assert!(dg[0].0 == 0, "digit 0 starts at bit 0: {dg:?}");
    let bytes = (0..N).all(|i| dg[i] == (8 * i as u32, 8));
    let mut t = [[0u32; W]; N];
    // The bucket comes from memory (the global pass streamed it out); see
    // `stream::AHEAD`.
    if bytes {
        stream::by_lines(ks, |_, run| {
            trickle.step();
            for &k in run {
                let b = k.to_radix();
                for (i, t) in t.iter_mut().enumerate() {
                    t[(b >> (8 * i)) as usize & 0xff] += 1;
                }
            }
        });
    } else {
        let mask: [u64; N] = std::array::from_fn(|i| (1 << dg[i].1) - 1);
        stream::by_lines(ks, |_, run| {
            trickle.step();
            for &k in run {
                let b = k.to_radix();
                // Digit 0 starts at bit 0: one variable shift fewer.
                t[0][(b & mask[0]) as usize & (W - 1)] += 1;
                for (i, t) in t.iter_mut().enumerate().skip(1) {
                    t[((b >> dg[i].0) & mask[i]) as usize & (W - 1)] += 1;
                }
            }
        });
    }
    for (&((_, w), at), t) in digits.iter().zip(&t) {
        h[at..at + (1 << w)].copy_from_slice(&t[..1 << w]);
    }
}

/// Sorts elements `lo..hi` of `work` by their low `bits` bits (the
/// higher ones are the same throughout), stably, moving them between
/// `work` and a per-thread buffer, and leaves the result in `out` (with
/// streaming stores when `stream`), or in `work` when `out` is `None`.
///
/// # Safety
/// `work` and `out` are contiguous, disjoint, and hold elements `lo..hi`,
/// written in `work`; the values are given in both or neither; nothing
/// else touches those elements during the call.
pub(super) unsafe fn sort_bucket<K: RadixKey, V: Element>(
    (wk, wv): (&Dst<K>, Option<&Dst<V>>),
    out: Option<(&Dst<K>, Option<&Dst<V>>)>,
    (lo, hi): (usize, usize),
    bits: u32,
    stream: bool,
) {
    let len = hi - lo;
    // SAFETY: the elements are this call's alone (the contract).
    let (keys, mut vals) = unsafe { (wk.slice_mut(lo, hi), wv.map(|v| v.slice_mut(lo, hi))) };
    let digits = bucket_digits(bits, vals.is_some());
    let hist = bucket_histograms(keys, &digits, &mut Trickle::none());
    let moves = moving(&digits, &hist, len);
    let counts = |i: usize| table(&hist, digits[i]);
    if let (Some(vals), &[a, b]) = (vals.as_deref_mut(), &moves[..]) {
        // Two passes with values: through one buffer of pairs, so that each
        // pass has one destination stream per digit on one side, not two.
        with_buffer::<(K, V), _>(len, |pairs| {
            // SAFETY: the tables count these very keys' digits (the first
            // pass permutes them), and all four slices are `len` long.
            unsafe {
                pack_scatter((keys, vals), pairs, digits[a].0, counts(a));
                unpack_scatter(pairs, (keys, vals), digits[b].0, counts(b));
            }
        });
        if let Some(out) = out {
            // SAFETY: forwarded contract; the bucket is disjoint from `out`.
            unsafe { deliver(out, lo, (keys, Some(vals)), stream) };
        }
        return;
    }
    with_buffer::<K, _>(len, |bk| {
        with_buffer::<V, _>(vals.as_ref().map_or(0, |_| len), |bv| {
            let with_values = vals.is_some().then_some(&mut *bv);
            // SAFETY: the histograms count these keys' digits; the buffers
            // are `len` long, the values given on both sides or neither.
            let in_buf = unsafe {
                let bucket = (&mut *keys, vals.as_deref_mut());
                passes(bucket, (&mut *bk, with_values), &digits, &hist, &moves)
            };
            let (sk, sv) = if in_buf {
                (&*bk, vals.as_ref().map(|_| &*bv))
            } else {
                (&*keys, vals.as_deref())
            };
            match out {
                // SAFETY: forwarded contract; the buffer is disjoint from `out`.
                Some(out) => unsafe { deliver(out, lo, (sk, sv), stream) },
                None if in_buf => {
                    keys.copy_from_slice(bk);
                    if let Some(vals) = vals {
                        vals.copy_from_slice(bv);
                    }
                }
                None => {}
            }
        })
    })
}

/// [`sort_bucket`] of keys alone, through `buf` (as long as `keys`) and
/// into whichever of the two the last pass ends in, `true` for `buf`;
/// `trickle` (the thread's previous bucket, on its way out) is streamed
/// out while the keys are counted, and finished before they move.
///
/// # Safety
/// `trickle`'s source and destination are neither `keys` nor `buf`.
pub(super) unsafe fn sort_keys_through<K: RadixKey>(
    keys: &mut [K],
    buf: &mut [K],
    bits: u32,
    trickle: &mut Trickle,
) -> bool {
    let len = keys.len();
    assert_eq!(buf.len(), len, "a bucket's buffer is as long as its keys");
    let digits = bucket_digits(bits, false);
    let hist = bucket_histograms(keys, &digits, trickle);
    trickle.finish();
    let moves = moving(&digits, &hist, len);
    // No values: `u8` stands for their type.
    // SAFETY: the histograms count these keys' digits; `buf` is as long.
    unsafe { passes::<K, u8>((keys, None), (buf, None), &digits, &hist, &moves) }
}

/// The digits of `digits` that move some key: a digit whose one value
/// every key shares (`len` in its table) leaves them where they are.
fn moving(digits: &[(Digit, usize)], hist: &[u32], len: usize) -> Vec<usize> {
    (0..digits.len())
        .filter(|&i| !table(hist, digits[i]).contains(&(len as u32)))
        .collect()
}

/// The counts of one digit of a bucket's histograms.
fn table(hist: &[u32], ((_, width), at): (Digit, usize)) -> &[u32] {
    &hist[at..][..1 << width]
}

/// The passes `moves` of `digits` (whose counts are in `hist`), back and
/// forth between the bucket and the buffers; whether the keys (and
/// values) end in the buffers.
///
/// # Safety
/// `hist` counts the digits of these very keys; the buffers are as long
/// as the keys, the values given on both sides or neither.
unsafe fn passes<K: RadixKey, V: Element>(
    (keys, mut vals): (&mut [K], Option<&mut [V]>),
    (bk, mut bv): (&mut [K], Option<&mut [V]>),
    digits: &[(Digit, usize)],
    hist: &[u32],
    moves: &[usize],
) -> bool {
    let mut in_buf = false;
    for &i in moves {
        let (dg, h) = (digits[i].0, table(hist, digits[i]));
        // SAFETY: `h` counts digit `dg` of these very keys (a pass
        // permutes them), buffer and bucket are both `len` long, and the
        // values ride along in both or neither.
        unsafe {
            if in_buf {
                scatter_local((bk, bv.as_deref()), (keys, vals.as_deref_mut()), dg, h);
            } else {
                scatter_local((keys, vals.as_deref()), (bk, bv.as_deref_mut()), dg, h);
            }
        }
        in_buf = !in_buf;
    }
    in_buf
}

/// Writes a sorted bucket to elements `lo..` of `out`.
///
/// # Safety
/// Those elements exist, nothing else touches them during the call, and
/// they do not overlap the bucket; `sv` is given when `ov` is.
unsafe fn deliver<K: Element, V: Element>(
    (ok, ov): (&Dst<K>, Option<&Dst<V>>),
    lo: usize,
    (sk, sv): (&[K], Option<&[V]>),
    stream: bool,
) {
    // SAFETY: the caller's contract.
    unsafe {
        ok.write(lo, sk, stream);
        if let (Some(ov), Some(sv)) = (ov, sv) {
            ov.write(lo, sv, stream);
        }
    }
    if stream {
        // Before the space's join publishes the bucket to the caller.
        stream::fence();
    }
}

/// Where each digit's elements start, given the digit's counts `h`
/// (at most [`TABLE`] of them): u32 offsets (a bucket's length fits, as
/// [`bucket_histograms`] checks where the counts are made) keep a 12-bit
/// digit's table at 16 KiB, in L1 beside the scatter's lines.
fn starts(h: &[u32]) -> [u32; TABLE] {
    let mut at = [0u32; TABLE];
    for d in 1..h.len() {
        at[d] = at[d - 1] + h[d - 1];
    }
    at
}

/// The first of two passes with values: keys and values ordered by digit
/// `dg` into one buffer of pairs.
///
/// # Safety
/// `h` is the histogram of `dg` over `sk`; `sv` and `dst` are as long as
/// `sk`.
unsafe fn pack_scatter<K: RadixKey, V: Element>(
    (sk, sv): (&[K], &[V]),
    dst: &mut [(K, V)],
    dg: Digit,
    h: &[u32],
) {
    let mut at = starts(h);
    debug_assert!(sv.len() == sk.len() && dst.len() == sk.len() && h.len() == 1 << dg.1);
    let p = dst.as_mut_ptr();
    for (&k, &v) in sk.iter().zip(sv) {
        let d = digit_of(k, dg);
        // SAFETY: as in `scatter_local`: digit d's pairs go to at[d]..,
        // below the next digit's start, so below the length of `dst`;
        // d < 1 << width <= TABLE.
        unsafe {
            let a = at.get_unchecked_mut(d);
            *p.add(*a as usize) = (k, v);
            *a += 1;
        }
    }
}

/// The second of two passes with values: the pairs ordered by digit `dg`
/// back into keys and values.
///
/// # Safety
/// `h` is the histogram of `dg` over the pairs' keys; `dk` and `dv` are
/// as long as `src`.
unsafe fn unpack_scatter<K: RadixKey, V: Element>(
    src: &[(K, V)],
    (dk, dv): (&mut [K], &mut [V]),
    dg: Digit,
    h: &[u32],
) {
    let mut at = starts(h);
    debug_assert!(dk.len() == src.len() && dv.len() == src.len() && h.len() == 1 << dg.1);
    let (kp, vp) = (dk.as_mut_ptr(), dv.as_mut_ptr());
    for &(k, v) in src {
        let d = digit_of(k, dg);
        // SAFETY: as in `pack_scatter`, for both destinations.
        unsafe {
            let a = at.get_unchecked_mut(d);
            *kp.add(*a as usize) = k;
            *vp.add(*a as usize) = v;
            *a += 1;
        }
    }
}

/// Moves `sk` (and `sv`) to `dk` (and `dv`) ordered by digit `dg`,
/// stably, with plain stores: both sides are in cache.
///
/// # Safety
/// `h` is the histogram of that digit over `sk` (`1 << width` counts);
/// `dk` is as long as `sk`; the values are given on both sides or
/// neither, as long as the keys.
unsafe fn scatter_local<K: RadixKey, V: Element>(
    (sk, sv): (&[K], Option<&[V]>),
    (dk, dv): (&mut [K], Option<&mut [V]>),
    dg: Digit,
    h: &[u32],
) {
    let mut at = starts(h);
    debug_assert!(h.len() == 1 << dg.1 && h.len() <= TABLE);
    let (kp, n) = (dk.as_mut_ptr(), sk.len());
    debug_assert!(dk.len() == n && at[h.len() - 1] as usize + h[h.len() - 1] as usize == n);
    match (sv, dv) {
        (Some(sv), Some(dv)) => {
            debug_assert!(sv.len() == n && dv.len() == n);
            let vp = dv.as_mut_ptr();
            for (&k, &v) in sk.iter().zip(sv) {
                let d = digit_of(k, dg);
                // SAFETY: digit d's keys go to at[d].., below the next
                // digit's start, since `h` counts them exactly; so every
                // index is below n, the length of both destinations; and
                // d < 1 << width <= TABLE.
                unsafe {
                    let a = at.get_unchecked_mut(d);
                    *kp.add(*a as usize) = k;
                    *vp.add(*a as usize) = v;
                    *a += 1;
                }
            }
        }
        _ => {
            for &k in sk {
                let d = digit_of(k, dg);
                // SAFETY: as above.
                unsafe {
                    let a = at.get_unchecked_mut(d);
                    *kp.add(*a as usize) = k;
                    *a += 1;
                }
            }
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

/// [`radix_sort`] for Views of any stride: strided ones are sorted in a
/// contiguous copy, written back after.
///
/// # Safety
/// As for [`radix_sort`], without the contiguity.
unsafe fn radix_sort_any<E: HostExec, K: RadixKey, V: Element>(
    exec: &E,
    label: &str,
    keys: Dst<K>,
    values: Option<Dst<V>>,
) -> Result<(), AlgorithmError> {
    if keys.contiguous() && values.is_none_or(|v| v.contiguous()) {
        // SAFETY: forwarded contract.
        return unsafe { radix_sort(exec, label, keys, values) };
    }
    let mut k = gather(label, &keys)?;
    let mut v = match &values {
        Some(d) => Some(gather(label, d)?),
        None => None,
    };
    // SAFETY: the copies are contiguous, fully written, and local.
    unsafe { radix_sort(exec, label, k.dst(), v.as_mut().map(|s| s.dst()))? };
    // SAFETY: the copies are written; the Views are ours for the call.
    unsafe { scatter(&mut k, &keys) };
    if let (Some(s), Some(d)) = (v.as_mut(), values) {
        // SAFETY: as above.
        unsafe { scatter(s, &d) };
    }
    Ok(())
}

/// A contiguous copy of a View's elements.
pub(super) fn gather<T: Element>(label: &str, d: &Dst<T>) -> Result<Scratch<T>, AlgorithmError> {
    let mut s = Scratch::new(label, d.len)?;
    let (src, dst) = (d.as_src(), s.dst());
    for i in 0..d.len {
        // SAFETY: reading the caller's View (nothing writes it now) into
        // our own buffer, in bounds.
        unsafe { dst.put(i, src.get(i)) };
    }
    Ok(s)
}

/// Writes a contiguous copy back to its View.
///
/// # Safety
/// `s` is fully written and as long as `d`; nothing else touches `d`.
pub(super) unsafe fn scatter<T: Element>(s: &mut Scratch<T>, d: &Dst<T>) {
    let src = s.src();
    for i in 0..d.len {
        // SAFETY: the caller's contract.
        unsafe { d.set(i, src.get(i)) };
    }
}

macro_rules! host_radix {
    ($space:ty) => {
        impl<K: RadixKey, V: Element> SortImpl<K, V> for $space {
            fn radix_sort(
                &self,
                label: &str,
                keys: Output<'_, K, HostSpace>,
                values: Option<Output<'_, V, HostSpace>>,
            ) -> Result<(), AlgorithmError> {
                let values = values.as_ref().map(Dst::of);
                if let Some(v) = &values {
                    assert_eq!(
                        v.len,
                        keys.len(),
                        "{label}: keys and values differ in length"
                    );
                }
                // SAFETY: both Views are borrowed uniquely for the call.
                unsafe { radix_sort_any(self, label, Dst::of(&keys), values) }
            }
        }
    };
}

host_radix!(Serial);
#[cfg(feature = "rayon")]
host_radix!(granule_rayon::Rayon);

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A xorshift stream, so the test needs no dependency.
    pub(in crate::sort) fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    /// `n` keys, two thirds of them in `0..1000` and the rest random: the
    /// bucket of the small ones is too large for a test bucket, and splits
    /// once more (two global passes).
    fn skewed(r: &mut impl FnMut() -> u64, n: usize) -> Vec<u32> {
        (0..n)
            .map(|i| match i % 3 {
                0 => r() as u32,
                _ => (r() % 1000) as u32,
            })
            .collect()
    }

    /// Sorts `keys` with values recording their index on `exec`, checks
    /// the first digit's shift and the global passes taken (`None` when
    /// all keys are equal), and compares with a sequential stable sort; then
    /// sorts the keys alone.
    fn check<E: HostExec, K: RadixKey>(exec: &E, keys: &[K], want: Option<(u32, usize)>) {
        check_within(exec, keys, want, TEST_BUCKET);
    }

    /// [`check`] with buckets of at most `limit` bytes.
    fn check_within<E: HostExec, K: RadixKey>(
        exec: &E,
        keys: &[K],
        want: Option<(u32, usize)>,
        limit: usize,
    ) {
        let n = keys.len();
        let mut k = Scratch::<K>::new("t", n).unwrap();
        let mut v = Scratch::<u32>::new("t", n).unwrap();
        let (dk, dv) = (k.dst(), v.dst());
        for (i, &key) in keys.iter().enumerate() {
            // SAFETY: in bounds, our own buffers.
            unsafe { (dk.put(i, key), dv.put(i, i as u32)) };
        }
        // SAFETY: the buffers are written and ours.
        let top = unsafe { survey(exec, "t", &dk.as_src(), 8 * K::BYTES as u32) }.map(|s| s.shift);
        // SAFETY: as above.
        let passes = unsafe { radix_sort_within(exec, "t", (dk, Some(dv)), limit).unwrap() };
        assert_eq!(top.map(|t| (t, passes)), want, "first digit and passes");
        assert!(want.is_some() || passes == 0);
        let mut expect: Vec<(K, u32)> = keys.iter().copied().zip(0..).collect();
        expect.sort_by_key(|&(key, _)| key.to_radix()); // stable
        let (sk, sv) = (k.src(), v.src());
        // SAFETY: as above.
        let got: Vec<(K, u32)> = (0..n).map(|i| unsafe { (sk.get(i), sv.get(i)) }).collect();
        // Compared by bits: NaN keys are not equal to themselves.
        let bits = |kv: &[(K, u32)]| {
            kv.iter()
                .map(|&(k, v)| (k.to_radix(), v))
                .collect::<Vec<_>>()
        };
        assert!(
            bits(&got) == bits(&expect),
            "sort_by_key of {n} keys differs"
        );

        let mut k = Scratch::<K>::new("t", n).unwrap();
        let dk = k.dst();
        for (i, &key) in keys.iter().enumerate() {
            // SAFETY: as above.
            unsafe { dk.put(i, key) };
        }
        // SAFETY: as above.
        unsafe { radix_sort_within::<E, K, u32>(exec, "t", (dk, None), limit).unwrap() };
        let sk = k.src();
        // SAFETY: as above.
        let got: Vec<u64> = (0..n).map(|i| unsafe { sk.get(i).to_radix() }).collect();
        let expect: Vec<u64> = expect.into_iter().map(|(key, _)| key.to_radix()).collect();
        assert!(got == expect, "sort of {n} keys differs");
    }

    /// The bucket limit of [`check`]'s sorts: small, so that inputs of a
    /// few MB reach every shape of split.
    const TEST_BUCKET: usize = 1 << 21;

    /// Every shape of [`bucket_histograms`]' unrolled loops (two digits of
    /// up to 8 or 12 bits, three to eight bytes, narrower digits) and its
    /// loop over the list counts what a plain count does, and streams out
    /// the trickle it is given, a line per line counted.
    #[test]
    fn histograms_match_a_plain_count() {
        let mut r = rng(0x6A09_E667_F3BC_C908);
        let keys: Vec<u64> = (0..5000).map(|_| r()).collect();
        let earlier: Vec<u32> = (0..7001).map(|_| r() as u32).collect();
        for with_values in [false, true] {
            for bits in [1, 9, 16, 20, 21, 23, 24, 30, 32, 40, 44, 56, 64] {
                let digits = bucket_digits(bits, with_values);
                let mut want = vec![0u32; digits.last().map_or(0, |&((_, w), at)| at + (1 << w))];
                for &k in &keys {
                    for &(dg, at) in &digits {
                        want[at + digit_of(k, dg)] += 1;
                    }
                }
                let mut out = vec![0u32; earlier.len() + 1];
                // SAFETY: both vectors outlive the trickle, which is
                // finished below; nothing else touches `out`.
                let mut trickle = unsafe { Trickle::new(out.as_mut_ptr().add(1), &earlier) };
                let got = bucket_histograms(&keys, &digits, &mut trickle);
                assert!(got == want, "{bits} bits, values {with_values}");
                // The count reads 625 lines, more than the earlier bucket's
                // 437: it streamed them all; `finish` orders the stores.
                trickle.finish();
                assert!(out[1..] == earlier[..], "{bits} bits: the trickle");
            }
        }
    }

    #[test]
    fn bucket_digits_cover_the_bits_once() {
        for with_values in [false, true] {
            for bits in 0..=64 {
                let digits = bucket_digits(bits, with_values);
                let (mut bit, mut at) = (0, 0);
                for &((shift, width), start) in &digits {
                    assert_eq!((shift, start), (bit, at), "{bits} bits: {digits:?}");
                    let widest = match bits {
                        ..=12 => 12,
                        13..=20 => 10,
                        21..=24 if with_values => 12,
                        _ => 8,
                    };
                    assert!((1..=widest).contains(&width), "{bits} bits: {digits:?}");
                    (bit, at) = (bit + width, at + (1 << width));
                }
                assert_eq!(bit, bits, "{bits} bits: {digits:?}");
            }
        }
        assert_eq!(
            bucket_digits(24, false).len(),
            3,
            "three bytes alone: bytes"
        );
        assert_eq!(
            bucket_digits(24, true).len(),
            2,
            "three bytes, values: two passes"
        );
        assert_eq!(bucket_digits(32, true).len(), 4, "four bytes: bytes");
    }

    fn every_shape<E: HostExec>(exec: &E) {
        let mut r = rng(0x9E37_79B9_7F4A_7C15);
        // Few distinct values spread over the top byte: many duplicates in
        // every bucket, so an unstable bucket sort would show.
        let spread: Vec<u32> = (0..400_000)
            .map(|_| (r() % 20_000) as u32 * 214_748)
            .collect();
        check(exec, &spread, Some((24, 1)));
        // Two thirds of the keys in one top-byte bucket of 3.2 MB, all of
        // them in 0..1000: a plan of bits 20..32 keeps them in one bucket
        // (with the other keys of top 12 bits 0), still too large, which a
        // plan of bits 8..20 cuts in four (a digit's passes would take
        // three: by bits 16..24, which the other keys vary, then 8..16).
        check(exec, &skewed(&mut r, 600_000), Some((24, 2)));
        // Two thirds of the keys equal, the rest random with another top
        // byte: a large bucket whose keys are all equal, left in order.
        let equal: Vec<u32> = (0..600_000)
            .map(|i| match i % 3 {
                0 => r() as u32 & 0x7fff_ffff,
                _ => 0xff00_0000,
            })
            .collect();
        check(exec, &equal, Some((24, 1)));
        // Two thirds of the keys differ only in the low byte, the rest
        // random: split down to the last byte, by a plan of 12 bits twice
        // (a digit's passes would take four).
        let repeated: Vec<u32> = (0..600_000)
            .map(|i| match i % 3 {
                0 => r() as u32,
                _ => 0xabcd_1200 | (r() % 4) as u32,
            })
            .collect();
        check(exec, &repeated, Some((24, 3)));
        // Keys in 0..2^20: the buckets are bits 12..20's, bits above
        // ignored.
        let low: Vec<i32> = (0..300_000).map(|_| (r() % (1 << 20)) as i32).collect();
        check(exec, &low, Some((12, 1)));
        let wide: Vec<u64> = (0..300_000).map(|_| r() % (1 << 44)).collect();
        check(exec, &wide, Some((36, 1)));
        let signed: Vec<i64> = (0..300_000)
            .map(|_| ((r() % 5000) as i64 - 2500) * 0x3_0000_0000_0001)
            .collect();
        check(exec, &signed, Some((56, 1)));
        // Two top-byte buckets (one per sign, exponents 1024 and up) of 2.4
        // MB each: the pass is planned by 12 bits instead, which cut them
        // small (a digit's pass would have split them again).
        let floats: Vec<f64> = (0..400_000).map(|_| (r() % 7000) as f64 - 3500.5).collect();
        check(exec, &floats, Some((56, 1)));
        let floats: Vec<f32> = (0..300_000).map(|_| f32::from_bits(r() as u32)).collect();
        check(exec, &floats, Some((24, 1)));
        let same = vec![7u64; 200_000];
        check(exec, &same, None);
        for n in [0, 1, 2, 3, 100, 5000] {
            let mut small: Vec<i64> = (0..n).map(|_| (r() % 50) as i64 - 25).collect();
            if n >= 2 {
                // Both signs, so the sign byte varies.
                (small[0], small[1]) = (3, -3);
            }
            let want = (n >= 2).then_some((56, 0));
            check(exec, &small, want);
        }
    }

    /// Floats in `0.0..1.0` put half their keys in exponent 126, which the
    /// top varying 8 bits cut only in two: with buckets of 256 KiB, those
    /// halves are too large, and a digit's pass would split them again.
    /// The plan of 12 bits cuts every exponent in 32: one pass.
    #[test]
    fn floats_in_the_unit_interval_take_one_pass() {
        let mut r = rng(0x51_7CC1_B727_220A);
        let mut unit: Vec<f32> = (0..300_000)
            .map(|_| (r() >> 40) as f32 / (1u64 << 24) as f32)
            .collect();
        // A zero makes every exponent bit vary.
        unit[1000] = 0.0;
        check_within(&Serial, &unit, Some((22, 1)), 1 << 18);
        #[cfg(feature = "rayon")]
        check_within(
            &granule_rayon::Rayon::new(2).unwrap(),
            &unit,
            Some((22, 1)),
            1 << 18,
        );
    }

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

    #[test]
    fn every_shape_sorts_stably_on_serial() {
        every_shape(&Serial);
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn every_shape_sorts_stably_on_rayon() {
        every_shape(&granule_rayon::Rayon::new(2).unwrap());
    }

    /// A global pass streams whole lines of values only where they sit at
    /// the keys' byte of their lines. Crowded keys take two passes, the
    /// second into the View's parts: keys and values starting at the same
    /// or at different bytes of a line, and values of another size, all
    /// sort stably.
    #[test]
    fn values_at_any_byte_of_their_lines_sort_stably() {
        fn sort_parts<V: Element + PartialEq + std::fmt::Debug>(
            skip: (usize, usize),
            value: fn(u32) -> V,
        ) {
            let n = 600_000;
            let keys = skewed(&mut rng(0x2545_F491_4F6C_DD1D), n);
            let mut k = Scratch::<u32>::new("t", n + 16).unwrap();
            let mut v = Scratch::<V>::new("t", n + 16).unwrap();
            let (dk, dv) = (
                k.dst().part(skip.0, skip.0 + n),
                v.dst().part(skip.1, skip.1 + n),
            );
            for (i, &key) in keys.iter().enumerate() {
                // SAFETY: in bounds, our own buffers.
                unsafe { (dk.put(i, key), dv.put(i, value(i as u32))) };
            }
            // SAFETY: the parts are written and ours.
            let passes = unsafe { radix_sort_within(&Serial, "t", (dk, Some(dv)), TEST_BUCKET) };
            assert_eq!(passes.unwrap(), 2, "global passes");
            let mut want: Vec<(u32, u32)> = keys.into_iter().zip(0..).collect();
            want.sort_by_key(|&(key, _)| key); // stable
            let (sk, sv) = (dk.as_src(), dv.as_src());
            for (i, &(key, at)) in want.iter().enumerate() {
                // SAFETY: in bounds, sorted and returned.
                let got = unsafe { (sk.get(i), sv.get(i)) };
                assert_eq!(got, (key, value(at)), "element {i}, parts at {skip:?}");
            }
        }
        for skip in [(0, 0), (3, 3), (0, 5), (1, 0)] {
            sort_parts(skip, |i| i);
        }
        sort_parts((3, 3), |i| u16::try_from(i % 65_536).unwrap());
        sort_parts((0, 1), |i| u64::from(i) << 20);
    }
}
