//! One global pass of the radix sort: every key (and value) moved from
//! one buffer to the other, into its bucket, through memory.
//!
//! The survey's counts by block give each block its place in every
//! bucket before the pass starts, so the blocks scatter in any order
//! ([`counted_pass`]). Within a block, a store per key to 256 places in
//! memory would miss the cache on nearly every key; instead each bucket
//! collects its keys in a line-sized buffer in L1 that leaves as one
//! whole line when full, streamed past the cache: software
//! write-combining ([`scatter_block`], [`Lines`]).

use super::survey::{Hist, COUNT_BLOCK};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Src};
use crate::host::{stream, HostExec};
use crate::sort::RadixKey;
use granule_core::exec::{block_bounds, block_count};
use granule_views::Element;

/// One global pass: moves keys (and values) from `src` to `dst` ordered
/// by their bucket (`bucket(k)`, below 256: the 8-bit digit at a shift,
/// or a [`Plan`](super::plan::Plan)'s), stably. Every block's digit
/// counts are known beforehand (`counts`, from the survey of these very
/// keys): each block's place in every bucket is a prefix sum, so the
/// blocks are scattered in any order, with no count of their own and no
/// look-back.
///
/// # Safety
/// The sources hold `n` initialized elements no thread writes during the
/// call; the destinations hold room for `n`, are disjoint from the
/// sources, and nothing else touches them. `bucket` returns values below
/// 256; `counts` are the counts of its values in each [`COUNT_BLOCK`]
/// block of the source keys, as they are now, and `start` the
/// [`offsets`](super::survey::offsets) of their total.
pub(super) unsafe fn counted_pass<E: HostExec, K: RadixKey, V: Element>(
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
pub(in crate::sort) const LINE: usize = 64;

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
    /// state, and both would be loaded again for every key.
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
