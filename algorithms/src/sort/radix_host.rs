//! LSD radix sort on the host spaces, one byte per pass, Onesweep-style:
//! one read of the keys counts every byte's histogram, then each pass
//! moves the keys (and values) from one buffer to the other in a single
//! read, chaining its blocks' digit offsets by decoupled look-back.
//!
//! Pass `p`, block `b`: count the block's digits (it is read from memory
//! once, into cache), publish the counts, look back for the counts of all
//! earlier blocks, and scatter the block to `start[d] + before[d] + rank`.
//! Blocks are visited in order within a digit, so the sort is stable.
//! Passes whose digit is the same for every key are skipped.
//!
//! Each such pass streams the keys through DRAM to 256 destinations, which
//! is slow; so when the most significant varying byte cuts the keys into
//! buckets that fit in cache, only that byte takes a global pass, and
//! every bucket is then sorted LSD by its lower bits in cache, one worker
//! per bucket, and written back once ([`msd_sort`]). That global pass
//! needs no look-back: the first read of the keys counts that byte block
//! by block, so every block's place is known before the pass starts.

use super::{RadixKey, SortImpl};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Scratch, Src};
use crate::host::{lookback, stream, HostExec, STREAM_BYTES};
use crate::io::Output;
use crate::AlgorithmError;
use granule_core::exec::{block_bounds, block_count, static_part};
use granule_core::reducer::Reducer;
use granule_core::Serial;
use granule_views::{HostSpace, Pod};
use parking_lot::Mutex;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// Keys per block of a look-back pass: the block's keys and values (256
/// KiB of u32 pairs) stay in L2 between its count and its scatter.
const RADIX_BLOCK: usize = 1 << 16;

/// Keys per block of the survey's counts and of [`counted_pass`]. Such a
/// block is read once, so it need not stay in cache; larger blocks cut
/// the share of partial lines at the ends of each block's runs (2^24 u32
/// keys, driver medians over five rounds: 57.6 ms with 2^16, 54.1 with
/// 2^18, 58.4 with 2^20).
const COUNT_BLOCK: usize = 1 << 18;

/// Counts of the 256 digits.
type Hist = [usize; 256];

/// Sums histograms (the look-back's operator).
struct Counts;

impl Reducer<Hist> for Counts {
    #[inline(always)]
    fn init(&self) -> Hist {
        [0; 256]
    }
    #[inline(always)]
    fn join(&self, dst: &mut Hist, src: &Hist) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d += s;
        }
    }
}

#[inline(always)]
fn digit<K: RadixKey>(k: K, shift: u32) -> usize {
    ((k.to_radix() >> shift) & 0xff) as usize
}

/// One parallel read of the keys: the histograms of the bytes in
/// `bytes`, for the global LSD passes.
///
/// # Safety
/// Nothing writes `keys` during the call.
unsafe fn histograms<E: HostExec, K: RadixKey>(
    exec: &E,
    label: &str,
    keys: &Src<K>,
    bytes: Range<usize>,
) -> Vec<Hist> {
    let n = keys.len;
    let parts = (exec.concurrency() * 4).clamp(1, n.max(1));
    let total = Mutex::new(vec![[0usize; 256]; bytes.len()]);
    exec.run(label, parts, &|p| {
        let (lo, hi) = static_part(0, n, parts, p);
        // SAFETY: forwarded contract.
        let ks = unsafe { keys.slice(lo, hi) };
        // u32 counters (dense in L1), flushed before they could overflow.
        for chunk in ks.chunks(1 << 31) {
            let mut h = vec![[0u32; 256]; bytes.len()];
            for &k in chunk {
                let bits = k.to_radix();
                for (byte, hb) in bytes.clone().zip(h.iter_mut()) {
                    hb[((bits >> (8 * byte)) & 0xff) as usize] += 1;
                }
            }
            for (tb, hb) in total.lock().iter_mut().zip(&h) {
                for (a, &b) in tb.iter_mut().zip(hb) {
                    *a += b as usize;
                }
            }
        }
    });
    total.into_inner()
}

/// Each [`COUNT_BLOCK`] block's histogram of one byte.
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

/// One parallel read of the keys, by [`COUNT_BLOCK`] blocks: the bits in
/// which some keys differ, and each block's histogram of byte `byte`.
/// The counts by block let the global pass of [`msd_sort`] place every
/// block without counting it again or waiting on the blocks before it.
///
/// # Safety
/// Nothing writes `keys` during the call.
unsafe fn block_histograms<E: HostExec, K: RadixKey>(
    exec: &E,
    label: &str,
    keys: &Src<K>,
    byte: usize,
) -> (u64, BlockCounts) {
    let n = keys.len;
    let blocks = block_count(n, COUNT_BLOCK);
    let slots: Vec<Mutex<[u32; 256]>> = (0..blocks).map(|_| Mutex::new([0; 256])).collect();
    let (any, all) = (AtomicU64::new(0), AtomicU64::new(!0));
    let shift = 8 * byte as u32;
    exec.run(label, blocks, &|b| {
        let (lo, hi) = block_bounds(0, n, COUNT_BLOCK, b);
        // SAFETY: forwarded contract.
        let ks = unsafe { keys.slice(lo, hi) };
        let (mut or, mut and) = (0u64, !0u64);
        // u32 counters: dense in L1, and a block holds fewer than 2^32
        // keys. Two tables, for alternate keys, so that equal bytes in a
        // row do not chain their increments.
        let mut h = [[0u32; 256]; 2];
        let mut pairs = ks.chunks_exact(2);
        for p in &mut pairs {
            for (t, &k) in h.iter_mut().zip(p) {
                let bits = k.to_radix();
                (or, and) = (or | bits, and & bits);
                t[digit(k, shift)] += 1;
            }
        }
        for &k in pairs.remainder() {
            let bits = k.to_radix();
            (or, and) = (or | bits, and & bits);
            h[0][digit(k, shift)] += 1;
        }
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

/// The most significant byte in which some keys differ, and its counts by
/// block; `None` when all keys are equal. One read of the keys when that
/// is the top byte (random keys), two otherwise.
///
/// # Safety
/// Nothing writes `keys` during the call.
unsafe fn survey<E: HostExec, K: RadixKey>(
    exec: &E,
    label: &str,
    keys: &Src<K>,
) -> Option<(usize, BlockCounts)> {
    let last = K::BYTES - 1;
    // SAFETY: forwarded contract.
    let (differ, counts) = unsafe { block_histograms(exec, label, keys, last) };
    let top = (differ.checked_ilog2()? / 8) as usize;
    if top == last {
        return Some((top, counts));
    }
    // SAFETY: forwarded contract.
    let (_, counts) = unsafe { block_histograms(exec, label, keys, top) };
    Some((top, counts))
}

/// One pass: moves keys (and values) from `src` to `dst` ordered by the
/// digit at `shift`, stably. `start[d]` is where digit `d` begins.
///
/// # Safety
/// The sources hold `n` initialized elements no thread writes during the
/// call; the destinations hold room for `n`, are disjoint from the
/// sources, and nothing else touches them.
unsafe fn pass<E: HostExec, K: RadixKey, V: Pod>(
    exec: &E,
    label: &str,
    (sk, sv): (&Src<K>, Option<&Src<V>>),
    (dk, dv): (&Dst<K>, Option<&Dst<V>>),
    shift: u32,
    start: &Hist,
) {
    let n = sk.len;
    lookback::run(
        exec,
        label,
        block_count(n, RADIX_BLOCK),
        &Counts,
        None,
        |blk| {
            let (lo, hi) = block_bounds(0, n, RADIX_BLOCK, blk.index);
            // SAFETY: the sources are not written during the pass.
            let ks = unsafe { sk.slice(lo, hi) };
            let mut here = [0usize; 256];
            for &k in ks {
                here[digit(k, shift)] += 1;
            }
            let before = blk.prefix(here)?.unwrap_or([0; 256]);
            let mut at = [0usize; 256];
            for d in 0..256 {
                at[d] = start[d] + before[d];
                let end = if d == 255 { n } else { start[d + 1] };
                // The counts come from the same keys, so this holds; it is
                // what makes the unchecked writes below in bounds.
                assert!(
                    at[d] + here[d] <= end,
                    "radix pass: digit {d} overflows its bucket"
                );
            }
            let vs = sv.map(|sv| {
                // SAFETY: as for the keys.
                unsafe { sv.slice(lo, hi) }
            });
            // SAFETY: `at` and `here` give this block's part of every bucket,
            // checked above to lie inside the bucket, so inside `dk` and `dv`,
            // and disjoint from every other block's part.
            unsafe { scatter_block(ks, vs, (dk, dv), at, shift) };
            Ok(())
        },
    );
}

/// [`pass`] with every block's digit counts known beforehand (`counts`,
/// from the survey of these very keys): each block's place in every
/// bucket is a prefix sum, so the blocks are scattered in any order, with
/// no count of their own and no look-back.
///
/// # Safety
/// As for [`pass`]; `counts` are the counts of the digit at `shift` in
/// each [`COUNT_BLOCK`] block of the source keys, as they are now, and
/// `start` the [`offsets`] of their total.
unsafe fn counted_pass<E: HostExec, K: RadixKey, V: Pod>(
    exec: &E,
    label: &str,
    (sk, sv): (&Src<K>, Option<&Src<V>>),
    (dk, dv): (&Dst<K>, Option<&Dst<V>>),
    shift: u32,
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
        unsafe { scatter_block(ks, vs, (dk, dv), at[b], shift) };
    });
}

/// Bytes of a cache line: the unit the write-combining buffers flush.
const LINE: usize = 64;

/// Scatters a block's keys (and values) to `at[digit]`, `at[digit] + 1`,
/// … through software write-combining: each bucket collects its keys in a
/// line-sized buffer (all 256 of them fit in L1) that leaves as one whole
/// line when full, instead of a cache miss per key. A buffer's slots map
/// to one destination line, so full flushes are aligned lines (streamed
/// out); the partial lines at the ends of the block's range are written
/// element by element, since their other elements belong to other blocks.
///
/// # Safety
/// For every digit `d`, elements `at[d]..at[d] + count(d)` of `dk` (and
/// `dv`) exist, are contiguous, and no other thread touches them, where
/// `count(d)` is how many keys of `ks` have digit `d`; `vs` is as long as
/// `ks` when given, and `dv` is given with it.
unsafe fn scatter_block<K: RadixKey, V: Pod>(
    ks: &[K],
    vs: Option<&[V]>,
    (dk, dv): (&Dst<K>, Option<&Dst<V>>),
    at: [usize; 256],
    shift: u32,
) {
    let w = LINE / std::mem::size_of::<K>();
    with_buffer::<K, _>(256 * w, |kb| {
        with_buffer::<V, _>(if vs.is_some() { 256 * w } else { 0 }, |vb| {
            let mut lines = Lines::<K, V> {
                kb: kb.as_mut_ptr(),
                vb: vb.as_mut_ptr(),
                dk,
                dv,
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
                match vs {
                    Some(vs) => {
                        for (&k, &v) in ks.iter().zip(vs) {
                            lines.push(digit(k, shift), k, Some(v));
                        }
                    }
                    None => {
                        for &k in ks {
                            lines.push(digit(k, shift), k, None);
                        }
                    }
                }
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
    base: [usize; 256],
    from: [usize; 256],
    fill: [usize; 256],
}

impl<K: RadixKey, V: Pod> Lines<'_, K, V> {
    const W: usize = LINE / std::mem::size_of::<K>();

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
            // a constant count, so the copy is a few vector moves.
            unsafe {
                stream::line_nt(self.dk.ptr_at(at).cast(), self.kb.add(d * Self::W).cast());
                if let Some(dv) = self.dv {
                    stream::copy_nt(
                        dv.ptr_at(at),
                        std::slice::from_raw_parts(self.vb.add(d * Self::W), Self::W),
                    );
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

/// Copies `src` to `dst` (same length, contiguous) in parallel.
///
/// # Safety
/// As for [`pass`].
unsafe fn copy_back<E: HostExec, T: Pod>(exec: &E, label: &str, src: &Src<T>, dst: &Dst<T>) {
    let n = src.len;
    let parts = exec.concurrency().clamp(1, n.max(1));
    exec.run(label, parts, &|p| {
        let (lo, hi) = static_part(0, n, parts, p);
        // SAFETY: disjoint parts; the caller's contract.
        unsafe { dst.write(lo, src.slice(lo, hi), false) }
    });
}

/// Sorts contiguous `keys` (and `values`) in place.
///
/// When the most significant byte that varies cuts the keys into buckets
/// that each fit in a core's cache, one global pass by that byte moves
/// every key to its bucket and each bucket is then sorted by its lower
/// bytes in cache ([`msd_sort`]): the keys cross memory twice instead of
/// once per byte. Keys that crowd into one large bucket take the global
/// passes of [`lsd_sort`].
///
/// # Safety
/// Both describe live contiguous host Views of the same length that
/// nothing else touches during the call.
unsafe fn radix_sort<E: HostExec, K: RadixKey, V: Pod>(
    exec: &E,
    label: &str,
    keys: Dst<K>,
    values: Option<Dst<V>>,
) -> Result<(), AlgorithmError> {
    // SAFETY: forwarded contract.
    unsafe { radix_sort_within(exec, label, (keys, values), BUCKET_BYTES) }
}

/// [`radix_sort`] with buckets of at most `bucket_bytes` of keys and
/// values sorted in cache (the tests reach every plan with small inputs
/// through a smaller limit).
///
/// # Safety
/// As for [`radix_sort`].
unsafe fn radix_sort_within<E: HostExec, K: RadixKey, V: Pod>(
    exec: &E,
    label: &str,
    (keys, values): (Dst<K>, Option<Dst<V>>),
    bucket_bytes: usize,
) -> Result<(), AlgorithmError> {
    let n = keys.len;
    if n < 2 {
        return Ok(());
    }
    // SAFETY: nothing writes the keys yet.
    let Some((top, counts)) = (unsafe { survey(exec, label, &keys.as_src()) }) else {
        return Ok(()); // all keys equal: a stable sort moves nothing
    };
    let h = total(&counts);
    let row = std::mem::size_of::<K>() + values.map_or(0, |_| std::mem::size_of::<V>());
    match plan(&h, n, row, bucket_bytes) {
        Plan::Whole => {
            // SAFETY: the whole range is one bucket, sorted where it lies;
            // the caller's contract gives it to this thread alone.
            unsafe { sort_bucket((&keys, values.as_ref()), None, (0, n), top + 1, false) };
            Ok(())
        }
        // SAFETY: forwarded contract.
        Plan::Msd => unsafe { msd_sort(exec, label, (keys, values), (&counts, &h), top) },
        Plan::Lsd => {
            // SAFETY: nothing writes the keys yet.
            let hists = unsafe { histograms(exec, label, &keys.as_src(), 0..top + 1) };
            // SAFETY: forwarded contract.
            unsafe { lsd_sort(exec, label, (keys, values), &hists) }
        }
    }
}

/// How [`radix_sort`] goes about it, given the most significant byte in
/// which keys differ (no pass looks at the bytes above).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Plan {
    /// Everything fits in cache: one in-cache sort, on one thread.
    Whole,
    /// That byte's buckets fit in cache: [`msd_sort`].
    Msd,
    /// A bucket is too large: [`lsd_sort`].
    Lsd,
}

/// The plan for `n` keys whose top varying byte has histogram `h`, with
/// `row` bytes of keys and values each, and buckets of at most
/// `bucket_bytes` sorted in cache.
fn plan(h: &Hist, n: usize, row: usize, bucket_bytes: usize) -> Plan {
    let largest = h.iter().copied().max().unwrap_or(0);
    if n * row <= WHOLE_BYTES {
        Plan::Whole
    } else if largest * row <= bucket_bytes {
        Plan::Msd
    } else {
        Plan::Lsd
    }
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

/// One global pass by byte `top` into a scratch buffer, then every bucket
/// sorted by its lower bytes in cache and written back to its place.
/// `counts` are byte `top`'s counts in each block of the keys and `h`
/// their total; no bucket holds more than the plan's limit of keys and
/// values.
///
/// # Safety
/// As for [`radix_sort`], and `counts` are counts of the keys as they
/// are now.
unsafe fn msd_sort<E: HostExec, K: RadixKey, V: Pod>(
    exec: &E,
    label: &str,
    (keys, values): (Dst<K>, Option<Dst<V>>),
    (counts, h): (&[[u32; 256]], &Hist),
    top: usize,
) -> Result<(), AlgorithmError> {
    let n = keys.len;
    let (mut tk, mut tv) = scratch_pair::<K, V>(label, n, values.is_some())?;
    let (sk, sv) = (tk.dst(), tv.as_mut().map(|t| t.dst()));
    let start = offsets(h);
    // SAFETY: the View and the scratch buffer are disjoint; the View is
    // fully written and nothing else touches either; `counts` are its
    // keys' (the caller's contract).
    unsafe {
        counted_pass(
            exec,
            label,
            (&keys.as_src(), values.map(|v| v.as_src()).as_ref()),
            (&sk, sv.as_ref()),
            8 * top as u32,
            (counts, &start),
        )
    };
    let row = std::mem::size_of::<K>() + values.map_or(0, |_| std::mem::size_of::<V>());
    let stream = n * row > STREAM_BYTES;
    exec.run(label, 256, &|d| {
        let (lo, hi) = (start[d], start[d] + h[d]);
        if lo < hi {
            // SAFETY: the pass wrote the whole scratch (and returned, so
            // its writes are visible); bucket `d` is elements lo..hi of
            // the scratch and of the View, and only this call touches them.
            unsafe {
                sort_bucket(
                    (&sk, sv.as_ref()),
                    Some((&keys, values.as_ref())),
                    (lo, hi),
                    top,
                    stream,
                )
            };
        }
    });
    Ok(())
}

/// The digits a bucket is sorted by, low to high, as (shift, width) in
/// bits, with where each one's counts start in [`bucket_histograms`]'s
/// table (packed, so the tables share L1 sets evenly). Three bytes (the
/// buckets of u32, i32 and f32 keys) take two 12-bit digits: two passes
/// instead of three, and a 4096-counter table still fits in L1 (one
/// bucket's in-cache sort measured 2.4 against 3.0 ns per key by bytes).
/// Other lengths take bytes: wider digits over more bytes would need
/// tables that leave L1.
fn bucket_digits(bytes: usize) -> Vec<(Digit, usize)> {
    let digits: Vec<Digit> = match bytes {
        3 => vec![(0, 12), (12, 12)],
        _ => (0..bytes as u32).map(|b| (8 * b, 8)).collect(),
    };
    let mut at = 0;
    digits
        .into_iter()
        .map(|dg| {
            at += 1 << dg.1;
            (dg, at - (1 << dg.1))
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
fn bucket_histograms<K: RadixKey>(ks: &[K], digits: &[(Digit, usize)]) -> Vec<u32> {
    let len = digits.last().map_or(0, |&((_, w), at)| at + (1 << w));
    let mut h = vec![0u32; len];
    if let &[(d0, a0), (d1, a1)] = digits {
        // The two 12-bit digits of three bytes, unrolled: the loop over
        // `digits` reloads each digit per key (a quarter of the bucket
        // phase in perf).
        for &k in ks {
            h[a0 + digit_of(k, d0)] += 1;
            h[a1 + digit_of(k, d1)] += 1;
        }
        return h;
    }
    for &k in ks {
        for &(dg, at) in digits {
            h[at + digit_of(k, dg)] += 1;
        }
    }
    h
}

/// Sorts elements `lo..hi` of `work` by their low `bytes` bytes (the
/// higher ones are the same throughout), stably, moving them between
/// `work` and a per-thread buffer, and leaves the result in `out` (with
/// streaming stores when `stream`), or in `work` when `out` is `None`.
///
/// # Safety
/// `work` and `out` are contiguous, disjoint, and hold elements `lo..hi`,
/// written in `work`; the values are given in both or neither; nothing
/// else touches those elements during the call.
unsafe fn sort_bucket<K: RadixKey, V: Pod>(
    (wk, wv): (&Dst<K>, Option<&Dst<V>>),
    out: Option<(&Dst<K>, Option<&Dst<V>>)>,
    (lo, hi): (usize, usize),
    bytes: usize,
    stream: bool,
) {
    let len = hi - lo;
    // The u32 counts below must not wrap: that is what keeps the
    // scatters' unchecked writes in bounds.
    assert!(u32::try_from(len).is_ok(), "radix bucket of {len} keys");
    // SAFETY: the elements are this call's alone (the contract).
    let (keys, mut vals) = unsafe { (wk.slice_mut(lo, hi), wv.map(|v| v.slice_mut(lo, hi))) };
    let digits = bucket_digits(bytes);
    let hist = bucket_histograms(keys, &digits);
    let table = |i: usize| &hist[digits[i].1..][..1 << digits[i].0 .1];
    let moving = |i: &usize| !table(*i).contains(&(len as u32));
    let moves: Vec<usize> = (0..digits.len()).filter(moving).collect();
    if let (Some(vals), &[a, b]) = (vals.as_deref_mut(), &moves[..]) {
        // Two passes with values: through one buffer of pairs, so that each
        // pass has one destination stream per digit on one side, not two.
        with_buffer::<(K, V), _>(len, |pairs| {
            // SAFETY: the tables count these very keys' digits (the first
            // pass permutes them), and all four slices are `len` long.
            unsafe {
                pack_scatter((keys, vals), pairs, digits[a].0, table(a));
                unpack_scatter(pairs, (keys, vals), digits[b].0, table(b));
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
            let mut in_buf = false;
            for &i in &moves {
                let (dg, h) = (digits[i].0, table(i));
                // SAFETY: `h` counts digit `dg` of these very keys (a pass
                // permutes them), buffer and bucket are both `len` long,
                // and the values ride along in both or neither.
                unsafe {
                    if in_buf {
                        let bv = vals.is_some().then_some(&*bv);
                        scatter_local((bk, bv), (keys, vals.as_deref_mut()), dg, h);
                    } else {
                        let bv = vals.is_some().then_some(&mut *bv);
                        scatter_local((keys, vals.as_deref()), (bk, bv), dg, h);
                    }
                }
                in_buf = !in_buf;
            }
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

/// Writes a sorted bucket to elements `lo..` of `out`.
///
/// # Safety
/// Those elements exist, nothing else touches them during the call, and
/// they do not overlap the bucket; `sv` is given when `ov` is.
unsafe fn deliver<K: Pod, V: Pod>(
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
/// (at most [`TABLE`] of them): u32 offsets (a bucket's length fits,
/// sort_bucket checks) keep a 12-bit digit's table at 16 KiB, in L1
/// beside the scatter's lines.
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
unsafe fn pack_scatter<K: RadixKey, V: Pod>(
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
unsafe fn unpack_scatter<K: RadixKey, V: Pod>(
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
unsafe fn scatter_local<K: RadixKey, V: Pod>(
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
fn scratch_pair<K: Pod, V: Pod>(
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

/// One global pass per varying byte, between the View and a scratch
/// buffer: for keys that crowd into buckets too large for a cache.
///
/// # Safety
/// As for [`radix_sort`].
unsafe fn lsd_sort<E: HostExec, K: RadixKey, V: Pod>(
    exec: &E,
    label: &str,
    (keys, values): (Dst<K>, Option<Dst<V>>),
    hists: &[Hist],
) -> Result<(), AlgorithmError> {
    let n = keys.len;
    let (mut tk, mut tv) = scratch_pair::<K, V>(label, n, values.is_some())?;
    let mut in_scratch = false;
    for (byte, h) in hists.iter().enumerate() {
        if h.contains(&n) {
            continue; // every key has this digit: the pass would not move anything
        }
        let start = offsets(h);
        let (view_k, view_v) = (keys, values);
        let (scr_k, scr_v) = (tk.dst(), tv.as_mut().map(|t| t.dst()));
        let (from, to) = if in_scratch {
            (
                (scr_k.as_src(), scr_v.map(|d| d.as_src())),
                (view_k, view_v),
            )
        } else {
            (
                (view_k.as_src(), view_v.map(|d| d.as_src())),
                (scr_k, scr_v),
            )
        };
        // SAFETY: the View and the scratch buffer are disjoint; the source
        // side is fully written (the View, or the scratch after a pass).
        unsafe {
            pass(
                exec,
                label,
                (&from.0, from.1.as_ref()),
                (&to.0, to.1.as_ref()),
                8 * byte as u32,
                &start,
            )
        };
        in_scratch = !in_scratch;
    }
    if in_scratch {
        // SAFETY: the scratch holds the sorted keys (all written).
        unsafe { copy_back(exec, label, &tk.src(), &keys) };
        if let (Some(t), Some(v)) = (tv.as_mut(), values) {
            // SAFETY: as above.
            unsafe { copy_back(exec, label, &t.src(), &v) };
        }
    }
    Ok(())
}

/// [`radix_sort`] for Views of any stride: strided ones are sorted in a
/// contiguous copy, written back after.
///
/// # Safety
/// As for [`radix_sort`], without the contiguity.
unsafe fn radix_sort_any<E: HostExec, K: RadixKey, V: Pod>(
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
pub(super) fn gather<T: Pod>(label: &str, d: &Dst<T>) -> Result<Scratch<T>, AlgorithmError> {
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
pub(super) unsafe fn scatter<T: Pod>(s: &mut Scratch<T>, d: &Dst<T>) {
    let src = s.src();
    for i in 0..d.len {
        // SAFETY: the caller's contract.
        unsafe { d.set(i, src.get(i)) };
    }
}

macro_rules! host_radix {
    ($space:ty) => {
        impl<K: RadixKey, V: Pod> SortImpl<K, V> for $space {
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
mod tests {
    use super::*;

    /// A xorshift stream, so the test needs no dependency.
    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    /// Sorts `keys` with values recording their index on `exec`, checks
    /// the plan taken, and compares with a sequential stable sort; then
    /// sorts the keys alone.
    fn check<E: HostExec, K: RadixKey>(exec: &E, keys: &[K], want: Option<(usize, Plan)>) {
        let n = keys.len();
        let mut k = Scratch::<K>::new("t", n).unwrap();
        let mut v = Scratch::<u32>::new("t", n).unwrap();
        let (dk, dv) = (k.dst(), v.dst());
        for (i, &key) in keys.iter().enumerate() {
            // SAFETY: in bounds, our own buffers.
            unsafe { (dk.put(i, key), dv.put(i, i as u32)) };
        }
        // SAFETY: the buffers are written and ours.
        let got = unsafe { survey(exec, "t", &dk.as_src()) };
        let row = std::mem::size_of::<K>() + 4;
        let got = got.map(|(top, c)| (top, plan(&total(&c), n, row, TEST_BUCKET)));
        assert_eq!(got, want);
        // SAFETY: as above.
        unsafe { radix_sort_within(exec, "t", (dk, Some(dv)), TEST_BUCKET).unwrap() };
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
        unsafe { radix_sort_within::<E, K, u32>(exec, "t", (dk, None), TEST_BUCKET).unwrap() };
        let sk = k.src();
        // SAFETY: as above.
        let got: Vec<u64> = (0..n).map(|i| unsafe { sk.get(i).to_radix() }).collect();
        let expect: Vec<u64> = expect.into_iter().map(|(key, _)| key.to_radix()).collect();
        assert!(got == expect, "sort of {n} keys differs");
    }

    /// The bucket limit of [`check`]'s sorts: small, so that inputs of a
    /// few MB reach every plan.
    const TEST_BUCKET: usize = 1 << 21;

    #[test]
    fn random_keys_past_the_cache_take_the_bucket_sort() {
        // Random keys fill the top byte's buckets evenly, give or take a
        // few standard deviations (sqrt of the mean).
        let even = |n: usize| {
            let mean = n / 256;
            let mut h = [mean; 256];
            h[0] += 4 * mean.isqrt();
            h
        };
        // 2^27 u32 keys and 2^26 u32 pairs: 2 MiB buckets on average.
        assert_eq!(plan(&even(1 << 27), 1 << 27, 4, BUCKET_BYTES), Plan::Msd);
        assert_eq!(plan(&even(1 << 26), 1 << 26, 8, BUCKET_BYTES), Plan::Msd);
        // 2^27 pairs: 4 MiB buckets; 2^28 pairs: 8 MiB and over.
        assert_eq!(plan(&even(1 << 27), 1 << 27, 8, BUCKET_BYTES), Plan::Msd);
        assert_eq!(plan(&even(1 << 28), 1 << 28, 8, BUCKET_BYTES), Plan::Lsd);
    }

    #[test]
    fn bucket_digits_cover_the_bytes_once() {
        for bytes in 1..=8 {
            let digits = bucket_digits(bytes);
            let (mut bit, mut at) = (0, 0);
            for &((shift, width), start) in &digits {
                assert_eq!((shift, start), (bit, at), "{bytes} bytes: {digits:?}");
                assert!((1..=12).contains(&width));
                (bit, at) = (bit + width, at + (1 << width));
            }
            assert_eq!(bit, 8 * bytes as u32, "{bytes} bytes: {digits:?}");
        }
        assert_eq!(bucket_digits(3).len(), 2, "three bytes: two passes");
    }

    fn every_plan<E: HostExec>(exec: &E) {
        let mut r = rng(0x9E37_79B9_7F4A_7C15);
        // Few distinct values spread over the top byte: many duplicates in
        // every bucket, so an unstable bucket sort would show.
        let spread: Vec<u32> = (0..400_000)
            .map(|_| (r() % 20_000) as u32 * 214_748)
            .collect();
        check(exec, &spread, Some((3, Plan::Msd)));
        // Two thirds of the keys in one top-byte bucket of 3.2 MB: the
        // global passes.
        let skewed: Vec<u32> = (0..600_000)
            .map(|i| {
                if i % 3 != 0 {
                    (r() % 1000) as u32
                } else {
                    r() as u32
                }
            })
            .collect();
        check(exec, &skewed, Some((3, Plan::Lsd)));
        // Keys in 0..2^20: the buckets are byte 2's, bytes above ignored.
        let low: Vec<i32> = (0..300_000).map(|_| (r() % (1 << 20)) as i32).collect();
        check(exec, &low, Some((2, Plan::Msd)));
        let wide: Vec<u64> = (0..300_000).map(|_| r() % (1 << 44)).collect();
        check(exec, &wide, Some((5, Plan::Msd)));
        let signed: Vec<i64> = (0..300_000)
            .map(|_| ((r() % 5000) as i64 - 2500) * 0x3_0000_0000_0001)
            .collect();
        check(exec, &signed, Some((7, Plan::Msd)));
        // Two top-byte buckets (the signs) of 2.4 MB each.
        let floats: Vec<f64> = (0..400_000).map(|_| (r() % 7000) as f64 - 3500.5).collect();
        check(exec, &floats, Some((7, Plan::Lsd)));
        let floats: Vec<f32> = (0..300_000).map(|_| f32::from_bits(r() as u32)).collect();
        check(exec, &floats, Some((3, Plan::Msd)));
        let same = vec![7u64; 200_000];
        check(exec, &same, None);
        for n in [0, 1, 2, 3, 100, 5000] {
            let mut small: Vec<i64> = (0..n).map(|_| (r() % 50) as i64 - 25).collect();
            if n >= 2 {
                // Both signs, so the sign byte varies.
                (small[0], small[1]) = (3, -3);
            }
            let want = (n >= 2).then_some((7, Plan::Whole));
            check(exec, &small, want);
        }
    }

    #[test]
    fn every_plan_sorts_stably_on_serial() {
        every_plan(&Serial);
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn every_plan_sorts_stably_on_rayon() {
        every_plan(&granule_rayon::Rayon::new(2).unwrap());
    }
}
