//! The global pass of a radix sort of keys alone, placed by a sample
//! instead of a count: [`sampled_sort`].
//!
//! The exact pass of `radix_host` first reads every key to count its
//! bucket block by block (the survey), so that every block knows its
//! place in every bucket: a full read of the keys, about a tenth of a
//! sort of random u32 keys. Keys alone need no stable pass: two keys with the
//! same bits are the same key, so the order in which a bucket holds them
//! changes nothing once the bucket is sorted. So here a sample of one
//! piece of [`PIECE_LINES`] lines in each [`RUN_LINES`] sizes each
//! bucket's region of the scratch, with room to spare; the workers
//! scatter their parts of the keys into [`CHUNK_BYTES`] chunks that they
//! claim from their bucket's region as they fill them; and each bucket,
//! before its sort in cache, moves the few keys past its end into the
//! gaps its workers' last chunks left. Each thread then sorts buckets in
//! turn, streaming one out while it counts the next ([`sort_claimed`]).
//! A bucket that outgrows its region, or a sample that does not show the
//! top bit varying (so that the top byte may not be the digit to split
//! by), or one that crowds a bucket, leaves the sort to the exact pass.
//!
//! The sample reads a small fraction of the keys where the survey reads
//! all of them, and this pass costs about what the counted pass does, so
//! the sort saves most of the survey (benches/RESULTS.md has the sorts'
//! ratios). The price is memory: the regions' room to spare makes the
//! scratch about 1.3 times the keys.

use super::radix_host::{crowds, digit, sort_keys_through, LINE};
use super::RadixKey;
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Scratch, Src};
use crate::host::stream::{self, Trickle};
use crate::host::{HostExec, STREAM_BYTES};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The sample reads one piece of [`PIECE_LINES`] adjacent lines in each
/// run of this many lines: one line in 32, so 2^24 u32 keys give 2^19
/// sampled keys, about 2048 a bucket, whose counts then stray by about
/// 2% from the bucket's share.
const RUN_LINES: usize = 256;

/// Adjacent lines read together by the sample: 512 bytes, so on
/// 4 KiB pages a piece costs one page walk, and the pages walked are an
/// eighth of those that lone lines cost. The sample's time goes by the
/// places it reads more than by the lines, so reading the same number of
/// lines in pieces of eight costs far less than line by line, and pieces
/// of sixteen gain nothing more on huge pages.
const PIECE_LINES: usize = 8;

/// Runs ahead of the sample's reads that it asks for a piece.
const SAMPLE_AHEAD: usize = 16;

/// Fewest sampled lines for the sample to decide: below, the exact pass.
const SAMPLE_LINES: usize = 1 << 14;

/// Bytes of a chunk of a bucket's region that a worker claims at once:
/// one atomic add per 128 lines written, and at most one part-filled
/// chunk per part and bucket to mend. Smaller chunks make the claims a
/// visible share of the pass; from 4 KiB on the sort runs the same.
const CHUNK_BYTES: usize = 8192;

/// Parts of the keys scattered by separate workers, each leaving one
/// part-filled chunk per bucket (2, 4, 8 and 16 parts ran the pass in
/// the same time, with 2 KiB chunks).
const PARTS: usize = 4;

/// What the sample found: each bucket's region of the scratch, in
/// elements (`start[d]..start[d + 1]`).
struct Regions {
    start: Vec<usize>,
}

/// The shift of keys of type `K` to their top byte, the digit of this
/// pass: a constant, so that the push loop shifts by an immediate (a
/// shift by a register takes more micro-ops on x86, in a loop bound by
/// its micro-ops).
fn top_shift<K: RadixKey>() -> u32 {
    8 * K::BYTES as u32 - 8
}

/// Sorts `keys` (contiguous, longer than the caches) through a global
/// pass placed by a sample, if the sample allows it, its scratch can be
/// had, and every bucket fits its region; `false` leaves the keys
/// untouched for the exact pass. `limit` is the most keys a bucket may
/// hold to be sorted in cache.
///
/// # Safety
/// `keys` describes a live contiguous host View that nothing else
/// touches during the call.
pub(super) unsafe fn sampled_sort<E: HostExec, K: RadixKey>(
    exec: &E,
    label: &str,
    keys: Dst<K>,
    limit: usize,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe { sampled_sort_from(exec, label, keys, limit, SAMPLE_LINES) }
}

/// [`sampled_sort`] of keys that give at least `min_lines` sampled lines
/// (the tests take small inputs through a smaller floor).
///
/// # Safety
/// As for [`sampled_sort`].
unsafe fn sampled_sort_from<E: HostExec, K: RadixKey>(
    exec: &E,
    label: &str,
    keys: Dst<K>,
    limit: usize,
    min_lines: usize,
) -> bool {
    // SAFETY: nothing writes the keys during the sample.
    let Some(regions) = (unsafe { sample(exec, label, &keys.as_src(), (limit, min_lines)) }) else {
        return false;
    };
    // The regions' room to spare makes this scratch larger than the exact
    // pass's: if it cannot be had, the exact pass may still run.
    let Ok(mut scratch) = Scratch::<K>::new(label, regions.start[256] + LINE) else {
        return false;
    };
    let room = scratch.dst();
    let w = Chunks::<K>::W;
    // Regions start on lines, wherever the scratch starts.
    // SAFETY: element 0 of our own buffer; only its address is taken.
    let first = unsafe { room.ptr_at(0) } as usize;
    let skew = (w - first % LINE / std::mem::size_of::<K>()) % w;
    let start: Vec<usize> = regions.start.iter().map(|s| s + skew).collect();
    let pass = Pass {
        keys: keys.as_src(),
        room,
        start: &start,
        next: start[..256].iter().map(|&s| AtomicUsize::new(s)).collect(),
        overflow: AtomicBool::new(false),
        tails: (0..PARTS).map(|_| Mutex::new(Vec::new())).collect(),
    };
    exec.run(label, PARTS, &|p| {
        // SAFETY: the keys are not written during the pass; the room is
        // ours; each part claims its chunks alone.
        unsafe { pass.part(p) }
    });
    if pass.overflow.load(Ordering::Relaxed) {
        return false;
    }
    let buckets = pass.buckets();
    let stream = keys.len * std::mem::size_of::<K>() > STREAM_BYTES;
    let (claimed, longest) = (AtomicUsize::new(0), buckets.iter().map(|b| b.len).max());
    exec.run(label, 256, &|_| {
        // Each call claims buckets in order until none is left: the first
        // call a thread runs sorts, the calls after find none.
        let first = claimed.fetch_add(1, Ordering::Relaxed);
        if first < 256 {
            let longest = longest.unwrap_or(0);
            with_buffer::<K, _>(longest, |x| {
                with_buffer::<K, _>(longest, |y| {
                    // SAFETY: the pass wrote the buckets' chunks and
                    // returned; each bucket is claimed once; the View is
                    // disjoint from the scratch and the buffers.
                    unsafe {
                        sort_claimed(&buckets, (&room, &keys), [x, y], first, &claimed, stream)
                    }
                })
            })
        }
    });
    true
}

/// Sorts bucket `first` and the buckets claimed after it from `claimed`,
/// each in cache through one of `bufs` (whichever the bucket before did
/// not end in), into its place in `keys`. Each bucket streams out while
/// the next one is counted ([`Trickle`]), when `stream`; else it is
/// copied with plain stores once sorted. Streaming a bucket out while the
/// next is counted overlaps the two, where a loop of its own would leave
/// the core waiting on the stores alone.
///
/// # Safety
/// The pass wrote every bucket's chunks; nothing else touches the
/// buckets' regions of `room`, their places in `keys` or the buffers,
/// each as long as the longest bucket.
unsafe fn sort_claimed<K: RadixKey>(
    buckets: &[Bucket],
    (room, keys): (&Dst<K>, &Dst<K>),
    bufs: [&mut [K]; 2],
    first: usize,
    claimed: &AtomicUsize,
    stream: bool,
) {
    let (mut trickle, mut spare, mut d) = (Trickle::none(), 0, first);
    while d < 256 {
        let b = &buckets[d];
        if b.len > 0 {
            // SAFETY: the bucket is this call's alone (claimed), written by
            // the pass; the buffer `spare` holds no bucket still on its way
            // out (the trickle reads the other one, or the scratch, and is
            // finished before the keys move); `b.out..` lies in the View.
            unsafe {
                b.mend(room);
                let work = room.slice_mut(b.lo, b.lo + b.len);
                let buf = &mut bufs[spare][..b.len];
                let in_buf = sort_keys_through(work, buf, top_shift::<K>(), &mut trickle);
                let sorted: &[K] = if in_buf { buf } else { work };
                if stream {
                    trickle = Trickle::new(keys.ptr_at(b.out), sorted);
                } else {
                    keys.write(b.out, sorted, false);
                }
                spare ^= usize::from(in_buf);
            }
        }
        d = claimed.fetch_add(1, Ordering::Relaxed);
    }
    trickle.finish();
}

/// Reads one piece of `keys` in each run of lines ([`piece_line`]) and
/// sizes each top-byte bucket's region: its estimate plus six standard
/// deviations of it, plus a chunk per part (each part's last chunk may
/// hold one key), rounded up to chunks. `None` when the sample is too
/// small, does not show the keys' top bit varying, or
/// estimates a bucket past half the limit or crowded as the exact pass
/// would plan around ([`crowds`]).
///
/// # Safety
/// Nothing writes `keys` during the call.
unsafe fn sample<E: HostExec, K: RadixKey>(
    exec: &E,
    label: &str,
    keys: &Src<K>,
    (limit, min_lines): (usize, usize),
) -> Option<Regions> {
    let (n, w) = (keys.len, Chunks::<K>::W);
    let runs = n / w / RUN_LINES;
    if runs * PIECE_LINES < min_lines.max(1) {
        return None;
    }
    let shift = top_shift::<K>();
    let slots: Vec<Mutex<([u64; 256], u64, u64)>> =
        (0..PARTS).map(|_| Mutex::new(([0; 256], 0, !0))).collect();
    exec.run(label, PARTS, &|p| {
        let (mut c, mut or, mut and) = ([0u64; 256], 0u64, !0u64);
        let piece = w * PIECE_LINES;
        for r in (p * runs / PARTS)..((p + 1) * runs / PARTS) {
            // The pieces lie apart, so no prefetcher of the core's follows
            // them: ask for the piece of a run further on.
            let ahead = piece_line(r + SAMPLE_AHEAD) * w;
            keys.prefetch(ahead, ahead + piece);
            let at = piece_line(r) * w;
            // SAFETY: inside the keys (the runs end before the last full
            // line, and a piece lies in its run); nothing writes them.
            let ks = unsafe { keys.slice(at, at + piece) };
            for &k in ks {
                let b = k.to_radix();
                (or, and) = (or | b, and & b);
                c[digit(k, shift)] += 1;
            }
        }
        *slots[p].lock() = (c, or, and);
    });
    let (mut counts, mut or, mut and) = ([0u64; 256], 0u64, !0u64);
    for s in slots {
        let (c, o, a) = s.into_inner();
        (or, and) = (or | o, and & a);
        for (t, k) in counts.iter_mut().zip(c) {
            *t += k;
        }
    }
    if ((or ^ and) >> (8 * K::BYTES - 1)) & 1 == 0 {
        return None;
    }
    let sampled = (runs * PIECE_LINES * w) as f64;
    let scale = n as f64 / sampled;
    let chunk = Chunks::<K>::CHUNK;
    let most = counts.iter().max().map_or(0.0, |&c| c as f64 * scale);
    // Half the exact pass's limit: the estimate strays.
    if most > limit as f64 / 2.0 || crowds(most.ceil() as usize, n, limit) {
        return None;
    }
    let mut start = Vec::with_capacity(257);
    let mut at = 0;
    for &c in &counts {
        start.push(at);
        let room = (c as f64 + 6.0 * (c as f64 + 1.0).sqrt()) * scale;
        at += (room as usize + PARTS * chunk).next_multiple_of(chunk);
    }
    start.push(at);
    Some(Regions { start })
}

/// The first line of run `r`'s sampled piece. Which piece of the run it
/// is varies, so that data with a period of pieces is not read at one
/// phase. Pieces start on multiples of [`PIECE_LINES`] lines, so in
/// keys that start on a page no piece crosses a 4 KiB page.
fn piece_line(r: usize) -> usize {
    let scrambled = (r as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29) as usize;
    r * RUN_LINES + scrambled % (RUN_LINES / PIECE_LINES) * PIECE_LINES
}

/// The scatter of [`sampled_sort`].
struct Pass<'a, K> {
    keys: Src<K>,
    room: Dst<K>,
    start: &'a [usize],
    /// Each bucket's next unclaimed chunk.
    next: Vec<AtomicUsize>,
    overflow: AtomicBool,
    /// Each part's last chunk in each bucket it wrote: (bucket, first
    /// element, elements written).
    tails: Vec<Mutex<Vec<(usize, usize, usize)>>>,
}

/// A bucket after the pass: `len` keys in the scratch from `lo` on once
/// mended, bound for elements `out..` of the View; the gaps the parts'
/// last chunks left in its region.
struct Bucket {
    lo: usize,
    len: usize,
    /// The end of the chunks claimed.
    top: usize,
    out: usize,
    gaps: Vec<(usize, usize)>,
}

impl<K: RadixKey> Pass<'_, K> {
    /// Scatters part `p` of the keys to their buckets' chunks.
    ///
    /// # Safety
    /// Nothing writes the keys; nothing but the parts writes the room.
    unsafe fn part(&self, p: usize) {
        let n = self.keys.len;
        let (lo, hi) = (p * n / PARTS, (p + 1) * n / PARTS);
        // SAFETY: forwarded contract.
        let ks = unsafe { self.keys.slice(lo, hi) };
        let w = Chunks::<K>::W;
        with_buffer::<K, _>(256 * 2 * w, |lines| {
            let mut c = Chunks::<K> {
                lines: lines.as_mut_ptr(),
                fill: [0; 256],
                at: [0; 256],
                end: [0; 256],
            };
            // SAFETY: the buffer holds two lines a bucket; the contract.
            let whole = unsafe { c.push_all(self, ks) };
            if whole {
                // SAFETY: as above.
                unsafe { c.finish(self) };
            }
            stream::fence();
            let chunk = Chunks::<K>::CHUNK;
            let tails = (0..256)
                .filter(|&d| c.end[d] != 0)
                .map(|d| (d, c.end[d] - chunk, c.at[d] - (c.end[d] - chunk)));
            *self.tails[p].lock() = tails.collect();
        });
    }

    /// Claims bucket `d`'s next chunk: its first element, or `None` past
    /// the region (the sort then takes the exact pass).
    fn claim(&self, d: usize) -> Option<usize> {
        let chunk = Chunks::<K>::CHUNK;
        let at = self.next[d].fetch_add(chunk, Ordering::Relaxed);
        if at + chunk <= self.start[d + 1] {
            Some(at)
        } else {
            self.overflow.store(true, Ordering::Relaxed);
            None
        }
    }

    /// Every bucket's keys, gaps and place in the View, from the chunks
    /// the parts claimed and the tails they left.
    fn buckets(&self) -> Vec<Bucket> {
        let chunk = Chunks::<K>::CHUNK;
        let mut gaps = vec![Vec::new(); 256];
        for t in &self.tails {
            for &(d, first, written) in t.lock().iter() {
                if written < chunk {
                    gaps[d].push((first + written, first + chunk));
                }
            }
        }
        let mut out = 0;
        (0..256)
            .map(|d| {
                let lo = self.start[d];
                let claimed = self.next[d].load(Ordering::Relaxed) - lo;
                let missing: usize = gaps[d].iter().map(|&(a, b)| b - a).sum();
                let len = claimed - missing;
                let mut g = std::mem::take(&mut gaps[d]);
                g.sort_unstable();
                let b = Bucket {
                    lo,
                    len,
                    top: lo + claimed,
                    out,
                    gaps: g,
                };
                out += len;
                b
            })
            .collect()
    }
}

impl Bucket {
    /// Moves the keys written at or past `lo + len` into the gaps before
    /// it, so that the bucket's keys are elements `lo..lo + len`. Keys
    /// alone: their order within the bucket does not matter.
    ///
    /// # Safety
    /// The bucket's chunks are written up to `top` but in its gaps, and
    /// nothing else touches its region.
    unsafe fn mend<K: RadixKey>(&self, room: &Dst<K>) {
        let end = self.lo + self.len;
        // The runs of keys at or past `end`: `end..top` without the gaps
        // (which are sorted and disjoint).
        let mut runs = Vec::new();
        let mut at = end;
        for &(a, b) in &self.gaps {
            if b > at {
                if a > at {
                    runs.push((at, a));
                }
                at = b;
            }
        }
        if at < self.top {
            runs.push((at, self.top));
        }
        let holes = self.gaps.iter().filter(|&&(a, _)| a < end);
        let mut runs = runs.into_iter();
        let mut run = (0, 0);
        for &(mut a, b) in holes {
            let b = b.min(end);
            while a < b {
                if run.0 == run.1 {
                    run = runs
                        .next()
                        .expect("radix mend: a key past the end for every gap");
                }
                let k = (b - a).min(run.1 - run.0);
                // SAFETY: both ranges lie in this bucket's region, which is
                // ours alone: the hole below `end`, the keys at or past it.
                unsafe { std::ptr::copy_nonoverlapping(room.ptr_at(run.0), room.ptr_at(a), k) };
                (a, run.0) = (a + k, run.0 + k);
            }
        }
    }
}

/// A part's write-combining lines (as in `radix_host`'s `Lines`, but two
/// a bucket: a line and its slack) and the chunk each bucket writes to.
struct Chunks<K> {
    lines: *mut K,
    /// Keys in each bucket's line and slack: below 2W.
    fill: [usize; 256],
    /// Next element to write in the bucket's chunk.
    at: [usize; 256],
    /// End of the bucket's chunk; 0 before its first.
    end: [usize; 256],
}

impl<K: RadixKey> Chunks<K> {
    /// Keys in a line.
    const W: usize = LINE / std::mem::size_of::<K>();
    /// Keys in a chunk.
    const CHUNK: usize = CHUNK_BYTES / std::mem::size_of::<K>();

    /// Pushes every key of `ks` to its bucket; `false` when a bucket
    /// outgrew its region. A function of its own, so that its state stays
    /// in registers (see `radix_host`'s `Lines::push_all`).
    ///
    /// # Safety
    /// As for [`Pass::part`]; `lines` holds two lines for each of the
    /// 256 buckets.
    #[inline(never)]
    unsafe fn push_all(&mut self, pass: &Pass<'_, K>, ks: &[K]) -> bool {
        // Copies, so that the stores through `lines` do not reload them.
        let (shift, room) = (top_shift::<K>(), pass.room);
        let mut whole = true;
        let w = Self::W;
        stream::by_lines(ks, |_, run| {
            if !whole {
                return;
            }
            // Every key goes to its line's slack without a branch; the
            // lines that filled are flushed after the run (a run is at
            // most W keys, so a line holds at most 2W - 1). Which keys
            // filled a line is a bit mask (key i at bit len - 1 - i), not
            // a list of buckets, which would take a third store a key in
            // a loop bound by its stores.
            let mut full = 0u64;
            for &k in run {
                let d = digit(k, shift);
                let f = self.fill[d];
                // SAFETY: d < 256 and f < 2W: inside the lines.
                unsafe { *self.lines.add(d * 2 * w + f) = k };
                self.fill[d] = f + 1;
                full = full << 1 | u64::from(f + 1 == w);
            }
            while full != 0 {
                let i = run.len() - 1 - full.trailing_zeros() as usize;
                full &= full - 1;
                let d = digit(run[i], shift);
                if !(self.at[d] < self.end[d] || self.next(pass, d)) {
                    whole = false;
                    return;
                }
                // SAFETY: the chunk is this part's and has a whole line
                // left at `at`, which starts a line (chunks and regions
                // do); the line's first W keys are written; the slack's
                // keys move down within the bucket's two lines.
                unsafe {
                    let line = self.lines.add(d * 2 * w);
                    stream::line_nt(room.ptr_at(self.at[d]).cast(), line.cast());
                    std::ptr::copy_nonoverlapping(line.add(w), line, w);
                }
                self.at[d] += w;
                self.fill[d] -= w;
            }
        });
        whole
    }

    /// Moves bucket `d` to a new chunk; `false` past its region.
    fn next(&mut self, pass: &Pass<'_, K>, d: usize) -> bool {
        match pass.claim(d) {
            Some(at) => {
                self.at[d] = at;
                self.end[d] = at + Self::CHUNK;
                true
            }
            None => false,
        }
    }

    /// Writes each bucket's part-filled line after its chunk's lines.
    ///
    /// # Safety
    /// As for [`push_all`](Self::push_all).
    unsafe fn finish(&mut self, pass: &Pass<'_, K>) {
        for d in 0..256 {
            let f = self.fill[d];
            if f == 0 || (self.at[d] == self.end[d] && !self.next(pass, d)) {
                continue;
            }
            // SAFETY: the chunk has a whole line left at `at` (lines fill
            // chunks exactly), this part's alone.
            unsafe {
                let line = std::slice::from_raw_parts(self.lines.add(d * 2 * Self::W), f);
                pass.room.write_nt(self.at[d], line);
            }
            self.at[d] += f;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::radix_host::tests::rng;
    use super::*;
    use granule_core::Serial;

    /// Sorts `keys` through the sampled pass with a low floor; whether it
    /// took the keys, and the keys after.
    fn sorted<E: HostExec, K: RadixKey>(exec: &E, keys: &[K], limit: usize) -> (bool, Vec<K>) {
        let n = keys.len();
        let mut k = Scratch::<K>::new("t", n).unwrap();
        let dk = k.dst();
        for (i, &key) in keys.iter().enumerate() {
            // SAFETY: in bounds, our own buffer.
            unsafe { dk.put(i, key) };
        }
        // SAFETY: the buffer is written and ours.
        let took = unsafe { sampled_sort_from(exec, "t", dk, limit, 64) };
        let src = k.src();
        // SAFETY: written above and by the sort, which returned.
        (took, (0..n).map(|i| unsafe { src.get(i) }).collect())
    }

    fn check<E: HostExec, K: RadixKey>(exec: &E, keys: &[K]) {
        let (took, got) = sorted(exec, keys, 1 << 20);
        assert!(took, "{} keys: the sample should take them", keys.len());
        let mut want: Vec<u64> = keys.iter().map(|k| k.to_radix()).collect();
        want.sort_unstable();
        let got: Vec<u64> = got.iter().map(|k| k.to_radix()).collect();
        assert!(got == want, "{} keys sorted differently", keys.len());
    }

    /// Random keys of every width, at lengths that end mid-line, through
    /// buckets whose last chunks leave gaps of every size to mend.
    fn every_width<E: HostExec>(exec: &E) {
        let mut r = rng(0xB7E1_5162_8AED_2A6B);
        for n in [40_000, 150_001, 600_003] {
            if n > 500_000 {
                // Narrow keys: more to a line, fewer lines to sample.
                check(exec, &(0..n).map(|_| r() as u8).collect::<Vec<_>>());
                check(exec, &(0..n).map(|_| r() as i16).collect::<Vec<_>>());
            }
            check(exec, &(0..n).map(|_| r() as u32).collect::<Vec<_>>());
            check(exec, &(0..n).map(|_| r() as i32).collect::<Vec<_>>());
            check(
                exec,
                &(0..n)
                    .map(|_| f32::from_bits(r() as u32))
                    .collect::<Vec<_>>(),
            );
            check(
                exec,
                &(0..n).map(|_| f64::from_bits(r())).collect::<Vec<_>>(),
            );
            check(exec, &(0..n).map(|_| r()).collect::<Vec<_>>());
            check(
                exec,
                &(0..n)
                    .map(|_| (r() as i64).wrapping_mul(3))
                    .collect::<Vec<_>>(),
            );
        }
    }

    #[test]
    fn random_keys_sort_on_serial() {
        every_width(&Serial);
    }

    #[test]
    #[cfg(feature = "rayon")]
    fn random_keys_sort_on_rayon() {
        every_width(&granule_rayon::Rayon::new(2).unwrap());
        every_width(&granule_rayon::Rayon::new(3).unwrap());
    }

    /// Keys in order, or in reverse, place each bucket in one stretch of
    /// the input, which holds as many pieces as runs it spans, give or
    /// take one. At the fewest sampled lines that the sort takes (2^23
    /// u32 keys: a bucket spans eight runs) the regions hold every
    /// bucket without the parts' chunks added to them.
    #[test]
    fn ordered_keys_fit_their_regions() {
        let mut r = rng(0x1F83_D9AB_FB41_BD6B);
        let n = SAMPLE_LINES * RUN_LINES / PIECE_LINES * Chunks::<u32>::W;
        let mut keys: Vec<u32> = (0..n).map(|_| r() as u32).collect();
        keys.sort_unstable();
        let mut count = [0usize; 256];
        for &k in &keys {
            count[(k >> 24) as usize] += 1;
        }
        for order in ["ascending", "descending"] {
            let mut room = Scratch::<u32>::new("t", n).unwrap();
            let dk = room.dst();
            for (i, &key) in keys.iter().enumerate() {
                // SAFETY: in bounds, our own buffer.
                unsafe { dk.put(i, key) };
            }
            // SAFETY: written above; nothing writes it during the call.
            let regions = unsafe { sample(&Serial, "t", &room.src(), (n, SAMPLE_LINES)) };
            let start = regions.expect("the sample takes ordered keys").start;
            for d in 0..256 {
                let held = start[d + 1] - start[d] - PARTS * Chunks::<u32>::CHUNK;
                assert!(
                    held >= count[d],
                    "{order}: bucket {d} of {} keys, region of {held}",
                    count[d]
                );
            }
            keys.reverse();
        }
    }

    /// The sample declines keys whose top bit it does not see vary, keys
    /// that crowd a bucket, and too few lines; keys that outgrow a region
    /// the sample sized leave the sort to the exact pass, untouched.
    #[test]
    fn the_sample_declines_what_the_exact_pass_must_take() {
        let mut r = rng(0x3C6E_F372_FE94_F82B);
        let n = 200_000;
        let narrow: Vec<u32> = (0..n).map(|_| r() as u32 >> 1).collect();
        assert!(!sorted(&Serial, &narrow, 1 << 20).0, "top bit never set");
        let crowded: Vec<u32> = (0..n)
            .map(|i| if i % 4 == 0 { r() as u32 } else { 7 << 28 })
            .collect();
        assert!(
            !sorted(&Serial, &crowded, 1 << 20).0,
            "one bucket of most keys"
        );
        let few: Vec<u32> = (0..1000).map(|_| r() as u32).collect();
        assert!(!sorted(&Serial, &few, 1 << 20).0, "too few lines");
        // The sampled lines random, every other line's keys in bucket 0x55:
        // bucket 0x55 outgrows its region.
        let w = LINE / 4;
        let runs = n / w / RUN_LINES;
        let sampled: Vec<bool> = (0..n / w)
            .map(|l| {
                let r = l / RUN_LINES;
                r < runs && (piece_line(r)..piece_line(r) + PIECE_LINES).contains(&l)
            })
            .collect();
        let lopsided: Vec<u32> = (0..n)
            .map(|i| match sampled.get(i / w) {
                Some(true) => r() as u32,
                _ => 0x5500_0000 | (r() as u32 >> 8),
            })
            .collect();
        let (took, got) = sorted(&Serial, &lopsided, 1 << 20);
        assert!(!took, "bucket 0x55 should outgrow its region");
        assert!(got == lopsided, "keys written before the exact pass");
    }
}
