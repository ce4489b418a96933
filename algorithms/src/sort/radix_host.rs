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

use super::{RadixKey, SortImpl};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Scratch, Src};
use crate::host::{lookback, stream, HostExec};
use crate::io::Output;
use crate::AlgorithmError;
use granule_core::exec::{block_bounds, block_count, static_part};
use granule_core::reducer::Reducer;
use granule_core::Serial;
use granule_views::{HostSpace, Pod};
use parking_lot::Mutex;

/// Keys per block of a pass: the block's keys and values (256 KiB of u32
/// pairs) stay in L2 between the count and the scatter.
const RADIX_BLOCK: usize = 1 << 16;

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

/// The histogram of every byte of the keys, in one parallel read.
///
/// # Safety
/// Nothing writes `keys` during the call.
unsafe fn histograms<E: HostExec, K: RadixKey>(exec: &E, label: &str, keys: &Src<K>) -> Vec<Hist> {
    let n = keys.len;
    let parts = (exec.concurrency() * 4).clamp(1, n.max(1));
    let total = Mutex::new(vec![[0usize; 256]; K::BYTES]);
    exec.run(label, parts, &|p| {
        let (lo, hi) = static_part(0, n, parts, p);
        // SAFETY: forwarded contract.
        let ks = unsafe { keys.slice(lo, hi) };
        // u32 counters (dense in L1), flushed before they could overflow.
        for chunk in ks.chunks(1 << 31) {
            let mut h = vec![[0u32; 256]; K::BYTES];
            for &k in chunk {
                let bits = k.to_radix();
                for (byte, hb) in h.iter_mut().enumerate() {
                    hb[((bits >> (8 * byte)) & 0xff) as usize] += 1;
                }
            }
            let mut t = total.lock();
            for (tb, hb) in t.iter_mut().zip(&h) {
                for (a, &b) in tb.iter_mut().zip(hb) {
                    *a += b as usize;
                }
            }
        }
    });
    total.into_inner()
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
                let from = (dk.addr() / std::mem::size_of::<K>() + at) % w;
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
/// # Safety
/// Both describe live contiguous host Views of the same length that
/// nothing else touches during the call.
unsafe fn radix_sort<E: HostExec, K: RadixKey, V: Pod>(
    exec: &E,
    label: &str,
    keys: Dst<K>,
    values: Option<Dst<V>>,
) -> Result<(), AlgorithmError> {
    let n = keys.len;
    if n < 2 {
        return Ok(());
    }
    // SAFETY: nothing writes the keys yet.
    let hists = unsafe { histograms(exec, label, &keys.as_src()) };
    let mut tk = Scratch::<K>::new(label, n)?;
    let mut tv = match values {
        Some(_) => Some(Scratch::<V>::new(label, n)?),
        None => None,
    };
    let mut in_scratch = false;
    for (byte, h) in hists.iter().enumerate() {
        if h.contains(&n) {
            continue; // every key has this digit: the pass would not move anything
        }
        let mut start = [0usize; 256];
        for d in 1..256 {
            start[d] = start[d - 1] + h[d - 1];
        }
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
