//! Stream compaction on the host spaces: predicate, scan of the counts
//! and scatter fused in one pass, chained by decoupled look-back.
//!
//! Block `b` reads its input from memory once and gathers the elements
//! it keeps (and, for a partition, those it rejects), in order, into
//! block-sized buffers of its thread's, which stay in L2: 4 or 8 at a
//! time by a vector permute where the CPU has one (`compress`),
//! branch-free scalar (`stage[k] = x; k += keep`) otherwise. It then
//! publishes its count, looks back for the number of elements kept before
//! it, and copies the buffers to that place in the outputs, through
//! non-temporal stores for large outputs. The input is read from memory
//! once, each kept element written once, and the predicate called once
//! per element. Counting first and packing in a second pass over the
//! block (the scans' shape) was slower: 2^27 i64 `copy_if` on a 2-core
//! AVX2 VM, driver, three alternating rounds: 97-103 ms staged against
//! 127-135 ms, and 0.73-0.78 against 0.82-1.0 ms at 2^20.
//!
//! **Streamed on Intel** (`staged_ahead`): a core's read of a block and
//! its streamed copy-out would take turns, so while a block's kept
//! elements leave, a piece at a time, the worker packs its next block
//! into a second buffer, a proportional piece after each. `copy_if` of
//! 2^27 i64 on a 2-core Xeon VM (driver, three alternating rounds):
//! 61.8-66.3 ms against 57.4-59.5. The next block is packed as three
//! parts side by side ([`WAYS`]), so the core reads three streams of
//! lines at once: on a later Xeon VM, where a core read memory faster in
//! several streams than in one, 74.6-82.3 ms against 62.6-68.9 (four
//! rounds). Other CPUs keep the turns: there the next block's prefetch
//! was measured slower, and this was not measured. These blocks are four
//! or eight times as long as the others ([`AHEAD_BYTES`]): two cores
//! streaming through blocks they take in turn lose bandwidth when the
//! blocks are small.
//!
//! **One worker** (Serial, a one-thread Rayon space), when the output
//! stays in cache: every block knows its place when it starts, so it
//! copies at once in L1-sized chunks and publishes where its run ended
//! (counts are exact, so nothing regroups). At 2^20 i64 on Serial
//! (driver, three rounds) that took 0.49-0.57 ms (one outlier at 1.2)
//! against 0.89-1.07 ms for counting first.
//!
//! **In place** (`remove_if`, `unique`): block `b` writes below its own
//! end, into the input of blocks `≤ b`, only once its prefix is known
//! (after its look-back, or at once with one worker). It first copies its
//! input to a private buffer and gathers from the copy, so every block it
//! overwrites has finished reading (a block publishes its count after its
//! copy); later blocks read only above its end. `unique` compares each
//! block's first element with the last one of the block before, which a
//! write may already have moved, so those boundary elements are copied
//! first.

use super::{CompactByFlagsImpl, CompactImpl, UniqueImpl};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Src};
use crate::host::{chain, stream, HostExec, BLOCK, STREAM_BYTES};
use crate::io::{Input, Output};
use granule_core::exec::lookback::{Block, Stop};
use granule_core::exec::{block_bounds, block_count};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{Logical, Sum};
use granule_core::Serial;
use granule_views::{Element, HostSpace};

/// A block's elements, the index of the first and the element before it.
type Part<'x, T> = (&'x [T], usize, Option<T>);

/// Where a compaction writes.
struct Outs<T> {
    kept: Dst<T>,
    rejected: Option<Dst<T>>,
    in_place: bool,
}

/// Compacts `src` by `keep(i, x[i], x[i-1])` into `outs`; returns the
/// number kept. `prev` gives each block's boundary element (block `b`
/// gets `prev[b - 1]`); without it `keep` sees `None` at block starts.
///
/// # Safety
/// `src` and the outputs describe live host Views, each output long
/// enough for whatever `keep` selects; nothing else touches the outputs
/// during the call, nor `src` unless `outs.in_place` (then `src` is the
/// `kept` output and there is no `rejected` one).
unsafe fn compact<E, T, K>(
    exec: &E,
    label: &str,
    src: Src<T>,
    outs: Outs<T>,
    prev: Option<&[T]>,
    keep: &K,
) -> usize
where
    E: HostExec,
    T: Element,
    K: Fn(usize, T, Option<T>) -> bool + Sync,
{
    let n = src.len;
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    let stream = !outs.in_place && bytes > STREAM_BYTES;
    // Copying at once, with no look-back: not with more workers, since
    // such a block publishes nothing until it has copied, and the next
    // block's owner waits all that time (two threads at 2^20 i64 ran
    // slower, 0.94-1.37 ms against 0.75-1.01 for counting first); nor for
    // streamed outputs (2 threads at 2^27: 103-121 ms against 76-95;
    // reading memory in the copy loop is slow here). Other blocks out of
    // place are staged, and publish their counts before they copy.
    let one_pass = exec.concurrency() == 1 && !stream;
    // The vector packing, detected once for the whole call.
    #[cfg(target_arch = "x86_64")]
    let packer = compress::isa::<T>();
    #[cfg(not(target_arch = "x86_64"))]
    let packer = None;
    // Where streaming stores and prefetches share the fill buffers (Intel),
    // a streamed block packs its worker's next block between the pieces
    // of its own copy-out, so that a core reads while it writes
    // (`staged_ahead`).
    #[cfg(target_arch = "x86_64")]
    let ahead = packer.filter(|_| {
        stream && src.contiguous() && outs.rejected.is_none() && !stream::reads_overlap_streams()
    });
    #[cfg(target_arch = "x86_64")]
    let block = if ahead.is_some() {
        AHEAD_BYTES / std::mem::size_of::<T>()
    } else {
        BLOCK
    };
    #[cfg(not(target_arch = "x86_64"))]
    let block = BLOCK;
    // In place, a block is copied before it publishes its count: blocks
    // after it may then overwrite it.
    let gather = if src.contiguous() && !outs.in_place {
        0
    } else {
        block
    };
    let blocks = block_count(n, block);
    let total = chain(
        exec,
        label,
        blocks,
        &Sum,
        None,
        |blk: &Block<'_, '_, usize, Sum, Selected<T>>, carry: &mut Ahead<T>| {
            #[cfg(target_arch = "x86_64")]
            if let Some(isa) = ahead {
                let ins = (&src, prev, block);
                // SAFETY: contiguous and out of place (`ahead`), so nothing
                // writes the input; the caller's contract sizes the output.
                return unsafe { staged_ahead(isa, ins, keep, &outs.kept, blk, carry) };
            }
            let (lo, hi) = block_bounds(0, n, block, blk.index());
            let before = before_block(prev, blk.index());
            with_buffer::<T, _>(gather, |gbuf| {
                // SAFETY: out of place nothing writes `src`; in place, no block
                // writes lo..hi before this one has published its count, and
                // `x` is then a copy (see the module's note).
                let x = unsafe {
                    if outs.in_place {
                        src.gather(lo, hi, gbuf)
                    } else {
                        src.block(lo, hi, gbuf)
                    }
                };
                // With one worker every block knows its prefix when it starts:
                // it skips the look-back (counts are exact, so nothing
                // regroups), copies in one pass and publishes where its run
                // ended. Other blocks are staged.
                let known = if one_pass { blk.known() } else { None };
                let Some(at) = known.map(|p| p.unwrap_or(0)) else {
                    // SAFETY: in place, `x` is a copy (above); the caller's
                    // contract sizes the outputs.
                    return unsafe { staged((x, lo, before), keep, &outs, stream, packer, blk) };
                };
                // This block's kept elements go to at..at + k and its rejected
                // ones to (lo - at)..(hi - k - at), disjoint from every other
                // block's, and (in place) below this block's end. Uncounted,
                // a run may reach the most the block can select: no later
                // block writes before this one has published.
                let kept = Run {
                    dst: &outs.kept,
                    at,
                    end: at + (hi - lo),
                };
                let rejected = outs.rejected.as_ref().map(|r| Run {
                    dst: r,
                    at: lo - at,
                    end: hi - at,
                });
                // SAFETY: the runs are this block's alone (above).
                let end =
                    unsafe { emit_any(packer, (x, lo, before), keep, kept, rejected, stream) };
                blk.finish(end);
                Ok(())
            })
        },
    );
    total.unwrap_or(0)
}

/// A block whose place is not known yet: its selected elements (and
/// rejected ones) are gathered in order into block-sized buffers of this
/// thread's, which stay in L2; then the count is published, the prefix
/// looked back for, and the buffers copied out (streamed when `stream`).
/// The input is read from memory once and the predicate called once per
/// element.
///
/// # Safety
/// Nothing writes `part`'s elements during the call (in place they are a
/// copy), each output is long enough for everything `keep` selects (or
/// rejects) in the whole input, and in place only blocks that have
/// published their counts are written over (see the module's note).
#[allow(clippy::too_many_arguments)]
unsafe fn staged<T: Element, K, R>(
    part: Part<'_, T>,
    keep: &K,
    outs: &Outs<T>,
    stream: bool,
    packer: Option<Packer>,
    blk: &Block<'_, '_, usize, R, Selected<T>>,
) -> Result<(), Stop>
where
    K: Fn(usize, T, Option<T>) -> bool,
    R: granule_core::reducer::Reducer<usize>,
{
    let (len, lo) = (part.0.len(), part.1);
    if let Some((kept, rejected)) = blk.take_left() {
        // SAFETY: forwarded contract; what the block's first run selected.
        return unsafe { write_selected(&kept, &rejected, lo, outs, stream, blk) };
    }
    let split = if outs.rejected.is_some() { len } else { 0 };
    with_buffer::<T, _>(len, |ks| {
        with_buffer::<T, _>(split, |rs| {
            let (k, r) = match (&outs.rejected, packer) {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `compress::isa` returned `isa`.
                (None, Some(isa)) => (unsafe { compress::gather(isa, part, keep, ks) }, 0),
                _ => {
                    let split = outs.rejected.is_some().then_some(&mut *rs);
                    let never = |_: &[T]| unreachable!("a staged block is never drained");
                    gather(
                        part,
                        keep,
                        ks,
                        split,
                        (usize::MAX, never),
                        (usize::MAX, never),
                    )
                }
            };
            // SAFETY: forwarded contract.
            unsafe { write_selected(&ks[..k], &rs[..r], lo, outs, stream, blk) }
        })
    })
}

/// What a staged block selected, kept for its next run when it is left
/// (see granule-core's look-back): in place, later blocks may overwrite
/// its input once its count is published, so it cannot gather again.
type Selected<T> = (Vec<T>, Vec<T>);

/// Publishes the count of a staged block's `kept` elements, looks back
/// for its place and writes them (and its `rejected` ones) there; keeps
/// them for the block's next run if it is left.
///
/// # Safety
/// As for [`staged`].
unsafe fn write_selected<T: Element, R>(
    kept: &[T],
    rejected: &[T],
    lo: usize,
    outs: &Outs<T>,
    stream: bool,
    blk: &Block<'_, '_, usize, R, Selected<T>>,
) -> Result<(), Stop>
where
    R: granule_core::reducer::Reducer<usize>,
{
    let at = match blk.prefix(kept.len()) {
        Ok(at) => at.unwrap_or(0),
        Err(stop) => {
            blk.leave((kept.to_vec(), rejected.to_vec()));
            return Err(stop);
        }
    };
    // SAFETY: this block's kept elements go to at..at + k and its rejected
    // ones to (lo - at)..(lo - at + r), disjoint from every other block's
    // (the prefix counts the kept elements before it); `write` checks them
    // against the outputs' lengths.
    unsafe {
        outs.kept.write(at, kept, stream);
        if let Some(out) = &outs.rejected {
            out.write(lo - at, rejected, stream);
        }
    }
    if stream {
        stream::fence();
    }
    Ok(())
}

/// The element before block `b`'s first, which `keep` compares it with
/// (`prev[b - 1]`; none for block 0 or without `prev`).
fn before_block<T: Copy>(prev: Option<&[T]>, b: usize) -> Option<T> {
    prev.and_then(|p| b.checked_sub(1).map(|a| p[a]))
}

/// Parts of a block that [`staged_ahead`] packs side by side, each into
/// its own run of the buffer. A core reading one stream of lines from
/// memory waits on it, and reading a few streams at once took more of the
/// memory's bandwidth (see the README): `copy_if` of 2^27 i64 on a 2-core
/// Xeon VM (driver, four alternating rounds) ran in 62.6-68.9 ms with
/// three parts against 74.6-82.3 with one. Two, four and six parts were
/// within the noise of three; eight were slower (in a first version).
const WAYS: usize = 3;

/// Where each of a packed block's [`WAYS`] parts left its kept elements
/// in the buffer, as `(start, count)`; the block's kept elements are
/// their concatenation.
type Runs = [(usize, usize); WAYS];

/// Elements `lo..hi` of part `way` of a block of `len` ([`WAYS`] parts):
/// whole vectors of packing (16 elements) but the last part, which takes
/// the rest.
fn way_bounds(len: usize, way: usize) -> (usize, usize) {
    let part = len / WAYS / 16 * 16;
    let hi = if way + 1 == WAYS {
        len
    } else {
        (way + 1) * part
    };
    (way * part, hi)
}

/// What a worker carries from one streamed block to its next
/// ([`staged_ahead`]): the next block's index and runs once it is packed
/// in `ready`, and a second buffer to pack into while `ready` is copied
/// out.
struct Ahead<T> {
    packed: Option<(usize, Runs)>,
    ready: Vec<T>,
    work: Vec<T>,
}

impl<T> Default for Ahead<T> {
    fn default() -> Self {
        Ahead {
            packed: None,
            ready: Vec::new(),
            work: Vec::new(),
        }
    }
}

/// Bytes of input per block of a compaction that [`staged_ahead`]
/// streams (64 Ki elements of 8 bytes, 128 Ki of 4), whose two buffers
/// take 1 MiB of L2 at most. Two cores streaming through the blocks they
/// take in turn lose bandwidth when the blocks are small: on a 2-core Xeon
/// VM (driver, 2^27 `i64`, huge pages), the 2-thread streaming copy of the
/// bench, each thread copying every other block instead of one half, ran
/// at 0.86–0.89 of the halves' speed with blocks of 128 KiB, 0.92 with 256
/// KiB and 0.96–1.0 with 512 KiB and 1 MiB. `copy_if` of 2^27 `i64`
/// (three alternating rounds) ran at 0.80–0.85 of that bound with blocks
/// of [`BLOCK`] (16 Ki elements, 128 KiB), 0.87–0.89 with 256 KiB,
/// 0.89–0.92 with 512 KiB and 0.78 with 1 MiB, whose buffers no longer fit
/// in L2; of `i32`, 0.82–0.85 with 256 KiB and 0.86–0.87 with 512 KiB.
#[cfg(target_arch = "x86_64")]
const AHEAD_BYTES: usize = 512 * 1024;

/// Elements copied out between two pieces of packing in [`staged_ahead`].
#[cfg(target_arch = "x86_64")]
const PIECE: usize = 256;

/// [`staged`] for a streamed, contiguous input packed in vectors, with no
/// rejected output: the block's kept elements were packed by the block
/// before it on this worker (or are packed now), and while they are
/// copied out, a piece at a time, the worker's next block is packed, a
/// proportional piece of each of its [`WAYS`] parts after each, into the
/// other buffer. A core then reads while it writes, as in a copy: a
/// block's read and its copy-out otherwise take turns.
///
/// # Safety
/// Nothing writes `src` during the call, and `kept` is long enough for
/// everything `keep` selects in the whole input.
#[cfg(target_arch = "x86_64")]
unsafe fn staged_ahead<T: Element, K, R>(
    isa: Packer,
    (src, prev, block): (&Src<T>, Option<&[T]>, usize),
    keep: &K,
    kept: &Dst<T>,
    blk: &Block<'_, '_, usize, R, Selected<T>>,
    carry: &mut Ahead<T>,
) -> Result<(), Stop>
where
    K: Fn(usize, T, Option<T>) -> bool,
    R: granule_core::reducer::Reducer<usize>,
{
    let part_of = |b: usize| {
        let (lo, hi) = block_bounds(0, src.len, block, b);
        // SAFETY: contiguous, and nothing writes it (the caller's contract).
        (unsafe { src.slice(lo, hi) }, lo, before_block(prev, b))
    };
    let room = |v: &mut Vec<T>, fill: T| {
        if v.len() < block {
            v.resize(block, fill);
        }
    };
    let runs = match carry.packed.take() {
        Some((b, runs)) if b == blk.index() => runs,
        _ => {
            let part = part_of(blk.index());
            room(&mut carry.ready, part.0[0]);
            let mut runs = [(0, 0); WAYS];
            // SAFETY: `compress::isa` returned `isa`.
            runs[0].1 = unsafe { compress::gather(isa, part, keep, &mut carry.ready) };
            runs
        }
    };
    let k = runs.iter().map(|r| r.1).sum();
    let at = blk.prefix(k)?.unwrap_or(0);
    let next = blk.next().map(|b| (b, part_of(b)));
    // The next block's parts, and where each one's run starts.
    let mut bounds = [(0, 0); WAYS];
    if let Some((_, (nx, _, _))) = next {
        room(&mut carry.work, nx[0]);
        bounds = std::array::from_fn(|way| way_bounds(nx.len(), way));
    }
    let mut next_runs: Runs = bounds.map(|(lo, _)| (lo, 0));
    let (ready, work) = (&carry.ready[..], &mut carry.work);
    // Pieces of the copy-out end on the output's 64-byte lines, so each
    // line is written by one streaming burst.
    let line = (64 / std::mem::size_of::<T>()).max(1);
    let (mut w, mut packed) = (0, [0; WAYS]);
    loop {
        let end = (((at + w + PIECE) / line * line) - at).min(k);
        // SAFETY: this block's kept elements go to at..at + k, disjoint
        // from every other block's; `write` checks them against the length.
        unsafe { write_runs(kept, at, ready, &runs, w..end) };
        w = end;
        if let Some((_, (nx, nlo, nbefore))) = next {
            for ((run, done), &(lo, hi)) in next_runs.iter_mut().zip(&mut packed).zip(&bounds) {
                // Each part in step with this copy-out, in whole vectors of
                // packing until the last piece.
                let to = lo
                    + if w >= k {
                        hi - lo
                    } else {
                        (hi - lo) * w / k / 16 * 16
                    };
                if to > lo + *done {
                    let from = lo + *done;
                    let before = from.checked_sub(1).map_or(nbefore, |p| Some(nx[p]));
                    let piece = (&nx[from..to], nlo + from, before);
                    // SAFETY: `compress::isa` returned `isa`; the part's
                    // run starts at `lo` and holds at most `done` elements,
                    // so `work[lo + run.1..]` has room for `to - from`
                    // more before the part's end `hi`, the next run's start.
                    run.1 += unsafe { compress::gather(isa, piece, keep, &mut work[lo + run.1..]) };
                    *done = to - lo;
                }
            }
        }
        if w >= k {
            break;
        }
    }
    stream::fence();
    carry.packed = next.map(|(b, _)| (b, next_runs));
    std::mem::swap(&mut carry.ready, &mut carry.work);
    Ok(())
}

/// Writes elements `w` of the concatenation of `runs` (slices of
/// `ready`) to `at + w` of `kept`, streamed, for `w` in `span`.
///
/// # Safety
/// Nothing else touches `at + span` of `kept` during the call.
#[cfg(target_arch = "x86_64")]
unsafe fn write_runs<T: Element>(
    kept: &Dst<T>,
    at: usize,
    ready: &[T],
    runs: &Runs,
    span: std::ops::Range<usize>,
) {
    let mut base = 0;
    for &(start, len) in runs {
        let (lo, hi) = (span.start.max(base), span.end.min(base + len));
        if lo < hi {
            let from = start + lo - base;
            // SAFETY: `at + lo..at + hi` lies in `at + span`, which the
            // caller gives us; `write` checks it against the length.
            unsafe { kept.write(at + lo, &ready[from..from + hi - lo], true) };
        }
        base += len;
    }
}

#[cfg(target_arch = "x86_64")]
type Packer = crate::host::isa::Isa;
#[cfg(not(target_arch = "x86_64"))]
type Packer = std::convert::Infallible;

/// [`emit`], or its vector form when there is no rejected run and the CPU
/// packs `T` (`packer`).
///
/// # Safety
/// As for [`emit`]; `packer` came from [`compress::isa`].
unsafe fn emit_any<T: Element, K>(
    packer: Option<Packer>,
    part: Part<'_, T>,
    keep: &K,
    kept: Run<'_, T>,
    rejected: Option<Run<'_, T>>,
    stream: bool,
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    #[cfg(target_arch = "x86_64")]
    if let (None, Some(isa)) = (&rejected, packer) {
        // SAFETY: forwarded contract; `compress::isa` checked the CPU and
        // the element size.
        return unsafe { compress::emit(isa, part, keep, kept, stream) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = packer;
    // SAFETY: forwarded contract.
    unsafe { emit(part, keep, kept, rejected, stream) }
}

/// Where the selected (or rejected) elements of a block that knows its
/// place go: `at..end` of an output, room for the whole block. Writes
/// past `end` panic instead of reaching another block's range.
struct Run<'d, T> {
    dst: &'d Dst<T>,
    at: usize,
    end: usize,
}

impl<T: Element> Run<'_, T> {
    /// How many elements the first flush of a staging buffer holds: a
    /// chunk, less the elements before `at` in its 64-byte line, so that
    /// every later flush starts on a line. Streamed flushes that split a
    /// line leave it half written in a write-combining buffer, and the
    /// next flush finishes it with ordinary stores.
    fn first_flush(&self, chunk: usize) -> usize {
        chunk - self.dst.past_line(self.at)
    }

    /// Appends `values`, streamed when `stream`.
    ///
    /// # Safety
    /// Nothing but this block touches `at..end` of the output.
    #[inline]
    unsafe fn push(&mut self, values: &[T], stream: bool) {
        let next = self.at + values.len();
        assert!(
            next <= self.end,
            "stream compaction: a block's run {}..{} overflows its room ..{}",
            self.at,
            next,
            self.end
        );
        // SAFETY: `at..next` is inside `at..end` (checked), which is ours.
        unsafe { self.dst.write(self.at, values, stream) };
        self.at = next;
    }
}

/// Elements gathered in L1 before they leave in one copy.
const CHUNK: usize = 512;

/// For a block that knows its place: copies the selected elements of the
/// part to the `kept` run (and the others to the `rejected` run), in
/// order, gathering them in L1-sized chunks that leave with one
/// (streaming, when `stream`) copy each. Returns where the kept run
/// ended.
///
/// # Safety
/// Nothing but this block touches the runs' ranges during the call.
#[inline(always)]
unsafe fn emit<T: Element, K>(
    part: Part<'_, T>,
    keep: &K,
    mut kept: Run<'_, T>,
    mut rejected: Option<Run<'_, T>>,
    stream: bool,
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    let split = if rejected.is_some() { CHUNK + 1 } else { 0 };
    with_buffer::<T, _>(CHUNK + 1, |ks| {
        with_buffer::<T, _>(split, |rs| {
            let first_r = rejected.as_ref().map_or(CHUNK, |r| r.first_flush(CHUNK));
            let first_k = kept.first_flush(CHUNK);
            let split = rejected.is_some().then_some(&mut *rs);
            // SAFETY: the caller's contract.
            let drain_k = |full: &[T]| unsafe { kept.push(full, stream) };
            let drain_r = |full: &[T]| {
                if let Some(run) = rejected.as_mut() {
                    // SAFETY: as above.
                    unsafe { run.push(full, stream) };
                }
            };
            let (k, r) = gather(
                part,
                keep,
                ks,
                split,
                (first_k, drain_k),
                (first_r, drain_r),
            );
            // SAFETY: the caller's contract.
            unsafe { kept.push(&ks[..k], stream) };
            if let Some(run) = rejected.as_mut() {
                // SAFETY: the caller's contract.
                unsafe { run.push(&rs[..r], stream) };
            }
            if stream {
                stream::fence();
            }
            kept.at
        })
    })
}

/// The scalar gathering loop: the elements of the part that `keep`
/// selects go in order to `ks` (and the others to `rs`), branch-free
/// (`ks[k] = x; k += keep`). A buffer that reaches its limit is drained
/// (its first `limit` elements handed to its drain) and starts over, with
/// a limit of [`CHUNK`] from then on. Returns how many each buffer holds
/// at the end.
///
/// # Panics
/// If a buffer is shorter than the part and than its limits + 1.
#[inline(always)]
fn gather<T: Element, K>(
    (x, lo, mut before): Part<'_, T>,
    keep: &K,
    ks: &mut [T],
    mut rs: Option<&mut [T]>,
    (mut limit_k, mut drain_k): (usize, impl FnMut(&[T])),
    (mut limit_r, mut drain_r): (usize, impl FnMut(&[T])),
) -> (usize, usize)
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    let roomy = |buf: &[T], limit: usize| buf.len() >= x.len() || buf.len() > limit.max(CHUNK);
    assert!(roomy(ks, limit_k) && rs.as_deref().is_none_or(|rs| roomy(rs, limit_r)));
    let (mut k, mut r) = (0, 0);
    for (j, &v) in x.iter().enumerate() {
        let yes = keep(lo + j, v, before);
        before = Some(v);
        // k < limit (drained on reaching it) and k <= j < len.
        ks[k] = v;
        k += usize::from(yes);
        if let Some(rs) = rs.as_deref_mut() {
            rs[r] = v;
            r += usize::from(!yes);
            if r == limit_r {
                drain_r(&rs[..r]);
                (r, limit_r) = (0, CHUNK);
            }
        }
        if k == limit_k {
            drain_k(&ks[..k]);
            (k, limit_k) = (0, CHUNK);
        }
    }
    (k, r)
}

/// The gathering in vectors: 8 or 16 elements at a time with AVX-512 (4 or 8
/// with AVX2), the predicate's answers gathered into a mask and the kept
/// elements packed by one `vpcompress` (AVX2: one `vpermd` by a table of
/// the masks' permutations) and one vector store; the scalar gather does
/// one dependent store per element.
#[cfg(target_arch = "x86_64")]
mod compress {
    use super::{stream, with_buffer, Element, Part, Run, CHUNK};
    use crate::host::isa::Isa;

    /// The instruction set elements of `T` are packed with on this CPU:
    /// the widest it has, with POPCNT, for the 4- and 8-byte primitive
    /// numbers. Packing loads elements into vector registers as values,
    /// so it takes only types with no padding bytes to load: the numbers
    /// are known to have none (a user type of 4 or 8 bytes takes the
    /// scalar gather, which copies it as a value).
    pub(super) fn isa<T: 'static>() -> Option<Isa> {
        use std::any::TypeId;
        let numbers = [
            TypeId::of::<u32>(),
            TypeId::of::<i32>(),
            TypeId::of::<f32>(),
            TypeId::of::<u64>(),
            TypeId::of::<i64>(),
            TypeId::of::<f64>(),
            TypeId::of::<usize>(),
            TypeId::of::<isize>(),
        ];
        let fits = numbers.contains(&TypeId::of::<T>()) && std::is_x86_feature_detected!("popcnt");
        Isa::widest().filter(|_| fits)
    }

    /// As [`super::emit`] without rejected elements, on `isa`.
    ///
    /// # Safety
    /// As for [`super::emit`], and [`isa::<T>`] returned `isa` (the CPU
    /// has it and POPCNT).
    pub(super) unsafe fn emit<T: Element, K>(
        isa: Isa,
        (x, lo, before): Part<'_, T>,
        keep: &K,
        mut kept: Run<'_, T>,
        stream: bool,
    ) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        with_buffer::<T, _>(CHUNK + 16, |stage| {
            let first = kept.first_flush(CHUNK);
            // SAFETY: the caller's contract: the run is this block's alone.
            let flush = |full: &[T]| unsafe { kept.push(full, stream) };
            // SAFETY: forwarded contract: the CPU has `isa` and POPCNT.
            let k = unsafe { pack(isa, (x, lo, before), keep, stage, (first, flush)) };
            // SAFETY: as for `flush`.
            unsafe { kept.push(&stage[..k], stream) };
        });
        if stream {
            stream::fence();
        }
        kept.at
    }

    /// Packs the elements of the part that `keep` selects, in order, at the
    /// start of `stage` (at least as long as the part); returns how many.
    ///
    /// # Safety
    /// [`isa::<T>`] returned `isa`.
    pub(super) unsafe fn gather<T: Element, K>(
        isa: Isa,
        part: Part<'_, T>,
        keep: &K,
        stage: &mut [T],
    ) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        assert!(stage.len() >= part.0.len());
        let never = |_: &[T]| unreachable!("a whole block is gathered without flushing");
        // SAFETY: forwarded contract; the stage holds the whole part.
        unsafe { pack(isa, part, keep, stage, (usize::MAX, never)) }
    }

    /// [`pack_with`] on `isa`.
    ///
    /// # Safety
    /// [`isa::<T>`] returned `isa` (the CPU has it and POPCNT, and `T` is 4
    /// or 8 bytes).
    unsafe fn pack<T: Element, K>(
        isa: Isa,
        part: Part<'_, T>,
        keep: &K,
        stage: &mut [T],
        drain: (usize, impl FnMut(&[T])),
    ) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        // SAFETY: forwarded contract.
        unsafe {
            match isa {
                Isa::Avx512 => pack_avx512(part, keep, stage, drain),
                Isa::Avx2 => pack_avx2(part, keep, stage, drain),
            }
        }
    }

    /// The packing loop, for vectors of `BYTES` bytes: `squeeze(from,
    /// mask, to)` writes the elements of the vector at `from` that `mask`
    /// selects, in order, from `to` on (`BYTES` bytes may be written).
    /// The kept elements gather at the start of `stage`; when they reach
    /// the drain's limit, that many are handed to the drain and the rest
    /// move down, with a limit of CHUNK from then on. `stage` holds the
    /// whole part, or CHUNK + 16 elements with a first limit of at most
    /// CHUNK (asserted). Returns how many are left in `stage`.
    ///
    /// # Safety
    /// `squeeze` may be called with `from` valid for `BYTES` bytes of
    /// reads and `to` for `BYTES` bytes of writes; `BYTES` is at most 64
    /// and a multiple of the element size, which is at least 4.
    #[inline(always)]
    unsafe fn pack_with<T: Element, K, const BYTES: usize>(
        (x, lo, mut before): Part<'_, T>,
        keep: &K,
        stage: &mut [T],
        (mut limit, mut flush): (usize, impl FnMut(&[T])),
        squeeze: impl Fn(*const u8, u16, *mut u8),
    ) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        let size = std::mem::size_of::<T>();
        let lanes = BYTES / size;
        assert!(
            stage.len() >= x.len() || (limit <= CHUNK && stage.len() >= CHUNK + 16),
            "compaction staging buffer too small"
        );
        let (sp, xp) = (stage.as_mut_ptr().cast::<u8>(), x.as_ptr().cast::<u8>());
        let (mut j, mut k) = (0, 0);
        while j + lanes <= x.len() {
            // The part comes from memory; see `stream::AHEAD`.
            stream::fetch_ahead(x, j, lanes);
            // The answers as bytes, gathered into a mask by one
            // `pmovmskb`: a predicate the compiler can vectorize (a
            // comparison) then runs as one vector compare per step.
            let mut bits = [0u8; 16];
            for (l, &v) in x[j..j + lanes].iter().enumerate() {
                bits[l] = u8::from(keep(lo + j + l, v, before));
                before = Some(v);
            }
            // SAFETY: SSE2 is in the x86-64 baseline; `bits` is 16 bytes.
            let m = unsafe {
                use std::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8, _mm_slli_epi16};
                let b = _mm_loadu_si128(bits.as_ptr().cast());
                _mm_movemask_epi8(_mm_slli_epi16::<7>(b)) as u16
            };
            // `j + lanes <= len`, so the BYTES read are in `x`. The BYTES
            // written are in `stage`: `k <= j` (k counts kept elements of
            // the first j), so they end by `x.len()`, and when the stage is
            // shorter than `x`, `k < limit <= CHUNK` here and it holds
            // CHUNK + 16 elements of at least 4 bytes (BYTES <= 64); the
            // assert above checked one or the other.
            // SAFETY: the offsets stay inside `x` and `stage` (above).
            let (from, to) = unsafe { (xp.add(j * size), sp.add(k * size)) };
            squeeze(from, m, to);
            k += m.count_ones() as usize;
            j += lanes;
            if k >= limit {
                flush(&stage[..limit]);
                stage.copy_within(limit..k, 0);
                (k, limit) = (k - limit, CHUNK);
            }
        }
        for (l, &v) in x[j..].iter().enumerate() {
            stage[k] = v;
            k += usize::from(keep(lo + j + l, v, before));
            before = Some(v);
        }
        k
    }

    /// [`pack_with`] with AVX-512 compress, compiled for AVX-512F.
    ///
    /// # Safety
    /// The CPU has AVX-512F and POPCNT, and elements are 4 or 8 bytes.
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn pack_avx512<T: Element, K>(
        part: Part<'_, T>,
        keep: &K,
        stage: &mut [T],
        drain: (usize, impl FnMut(&[T])),
    ) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        use std::arch::x86_64::*;
        let wide = std::mem::size_of::<T>() == 8;
        // SAFETY: `pack_with` hands `squeeze` 64 readable and 64 writable bytes;
        // unaligned accesses are allowed; AVX-512F (the contract). The
        // elements move bytewise.
        let squeeze = |from: *const u8, m: u16, to: *mut u8| unsafe {
            let v = _mm512_loadu_si512(from.cast());
            let c = if wide {
                _mm512_maskz_compress_epi64(m as u8, v)
            } else {
                _mm512_maskz_compress_epi32(m, v)
            };
            _mm512_storeu_si512(to.cast(), c);
        };
        // SAFETY: forwarded contract; `squeeze` keeps `pack`'s promise.
        unsafe { pack_with::<T, K, 64>(part, keep, stage, drain, squeeze) }
    }

    /// [`pack_with`] with AVX2 permutes, compiled for AVX2.
    ///
    /// # Safety
    /// The CPU has AVX2 and POPCNT, and elements are 4 or 8 bytes.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn pack_avx2<T: Element, K>(
        part: Part<'_, T>,
        keep: &K,
        stage: &mut [T],
        drain: (usize, impl FnMut(&[T])),
    ) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        use std::arch::x86_64::*;
        let table: &[[i32; 8]] = if std::mem::size_of::<T>() == 8 {
            &PAIRS
        } else {
            &SINGLES
        };
        // SAFETY: `pack_with` hands `squeeze` 32 readable and 32 writable bytes;
        // the mask has 4 (8-byte elements) or 8 bits, so it indexes its
        // table; unaligned accesses are allowed; AVX2 (the contract).
        let squeeze = |from: *const u8, m: u16, to: *mut u8| unsafe {
            let v = _mm256_loadu_si256(from.cast());
            let order = _mm256_loadu_si256(table[usize::from(m)].as_ptr().cast());
            _mm256_storeu_si256(to.cast(), _mm256_permutevar8x32_epi32(v, order));
        };
        // SAFETY: forwarded contract; `squeeze` keeps `pack`'s promise.
        unsafe { pack_with::<T, K, 32>(part, keep, stage, drain, squeeze) }
    }

    /// For each mask of 8 four-byte lanes, the lanes it selects, in order
    /// (the rest 0): `vpermd`'s operand that packs them.
    static SINGLES: [[i32; 8]; 256] = packing(1);
    /// The same for masks of 4 eight-byte lanes, each a pair of 32-bit
    /// lanes.
    static PAIRS: [[i32; 8]; 256] = packing(2);

    /// The packing permutations of masks over `8 / width` lanes of
    /// `width` 32-bit words (masks with higher bits are not used).
    const fn packing(width: usize) -> [[i32; 8]; 256] {
        let lanes = 8 / width;
        let mut t = [[0i32; 8]; 256];
        let mut m = 0;
        while m < 256 {
            let (mut l, mut k) = (0, 0);
            while l < lanes {
                if m >> l & 1 == 1 {
                    let mut w = 0;
                    while w < width {
                        t[m][k] = (l * width + w) as i32;
                        k += 1;
                        w += 1;
                    }
                }
                l += 1;
            }
            m += 1;
        }
        t
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::host::raw::Scratch;

        /// Every instruction set this CPU has packs as the scalar loop
        /// does: at every output offset in a line, 4- and 8-byte elements,
        /// through a flush or two.
        #[test]
        fn every_isa_packs_the_kept_elements_in_order() {
            if !std::is_x86_feature_detected!("popcnt") {
                return;
            }
            for isa in Isa::present_all() {
                for n in [0, 3, 4, 7, 8, 17, 600, 1500] {
                    check::<u64>(isa, n);
                    check::<i32>(isa, n);
                }
            }
        }

        fn check<T: Element + PartialEq + std::fmt::Debug + TryFrom<u8>>(isa: Isa, n: usize) {
            let x: Vec<T> = (0..n)
                .map(|i| T::try_from((i * 37 % 251) as u8).ok().expect("fits"))
                .collect();
            let keep = |i: usize, _: T, _: Option<T>| i % 3 != 1 && !i.is_multiple_of(7);
            let want: Vec<T> = x
                .iter()
                .enumerate()
                .filter(|&(i, v)| keep(i, *v, None))
                .map(|(_, v)| *v)
                .collect();
            for at in 0..16 {
                let mut out = Scratch::<T>::new("out", at + n).expect("scratch");
                let dst = out.dst();
                let run = Run {
                    dst: &dst,
                    at,
                    end: at + want.len(),
                };
                // SAFETY: the CPU has `isa` (present) and POPCNT
                // (checked); the run is the scratch's alone.
                let end = unsafe { emit(isa, (&x, 0, None), &keep, run, false) };
                assert_eq!(end, at + want.len(), "{isa:?} {n} at {at}");
                // SAFETY: nothing else touches the scratch.
                let got = unsafe { dst.slice_mut(at, end) }.to_vec();
                assert_eq!(got, want, "{isa:?} {n} at {at}");
            }
            // A whole block gathered into a buffer of its length.
            let mut stage = vec![x.first().copied().unwrap_or(want_zero::<T>()); n];
            // SAFETY: the CPU has `isa` and POPCNT (checked above).
            let k = unsafe { gather(isa, (&x, 0, None), &keep, &mut stage) };
            assert_eq!(stage[..k], want[..], "{isa:?} {n} gathered");
        }

        fn want_zero<T: TryFrom<u8>>() -> T {
            T::try_from(0).ok().expect("fits")
        }
    }
}

/// The last element of every block but the final one (the boundary
/// elements `unique` compares across blocks), read before any write.
///
/// # Safety
/// No thread writes `src` during the call.
unsafe fn boundaries<T: Element>(src: &Src<T>) -> Vec<T> {
    let nb = block_count(src.len, BLOCK);
    // SAFETY: forwarded contract; `(b + 1) * BLOCK - 1 < len` for b < nb - 1.
    (0..nb.saturating_sub(1))
        .map(|b| unsafe { src.get((b + 1) * BLOCK - 1) })
        .collect()
}

macro_rules! host_compactions {
    ($space:ty) => {
        impl<T: Element, P: UnaryFunctor<T, Output = bool>> CompactImpl<T, P> for $space {
            fn copy_if(
                &self,
                label: &str,
                input: Input<'_, T, HostSpace>,
                output: Output<'_, T, HostSpace>,
                pred: &P,
            ) -> usize {
                let (src, dst) = (Src::of(&input), Dst::of(&output));
                let outs = Outs {
                    kept: dst,
                    rejected: None,
                    in_place: false,
                };
                // SAFETY: the Views are borrowed for the call (shared and
                // unique); the entry point checked that the output holds
                // the input's length.
                unsafe { compact(self, label, src, outs, None, &|_, x, _| pred.call(x)) }
            }

            fn remove_if(&self, label: &str, data: Output<'_, T, HostSpace>, pred: &P) -> usize {
                let (src, dst) = (Src::of_output(&data), Dst::of(&data));
                let outs = Outs {
                    kept: dst,
                    rejected: None,
                    in_place: true,
                };
                // SAFETY: the View is borrowed uniquely for the call; in
                // place, as the protocol allows.
                unsafe { compact(self, label, src, outs, None, &|_, x, _| !pred.call(x)) }
            }

            fn partition_copy(
                &self,
                label: &str,
                input: Input<'_, T, HostSpace>,
                out_true: Output<'_, T, HostSpace>,
                out_false: Output<'_, T, HostSpace>,
                pred: &P,
            ) -> (usize, usize) {
                let n = input.len();
                let outs = Outs {
                    kept: Dst::of(&out_true),
                    rejected: Some(Dst::of(&out_false)),
                    in_place: false,
                };
                // SAFETY: three distinct borrowed Views; the entry point
                // checked both outputs' lengths.
                let t = unsafe {
                    compact(self, label, Src::of(&input), outs, None, &|_, x, _| {
                        pred.call(x)
                    })
                };
                (t, n - t)
            }
        }

        impl<T: Element, G: Element + Logical> CompactByFlagsImpl<T, G> for $space {
            fn compact_by_flags(
                &self,
                label: &str,
                input: Input<'_, T, HostSpace>,
                flags: Input<'_, G, HostSpace>,
                output: Output<'_, T, HostSpace>,
            ) -> usize {
                let flags = Src::of(&flags);
                assert_eq!(
                    flags.len,
                    input.len(),
                    "{label}: flags and input differ in length"
                );
                let outs = Outs {
                    kept: Dst::of(&output),
                    rejected: None,
                    in_place: false,
                };
                // SAFETY: the flags View is borrowed shared: nothing writes it.
                let keep = |i: usize, _: T, _: Option<T>| unsafe { flags.get(i) }.truthy();
                // SAFETY: as for copy_if.
                unsafe { compact(self, label, Src::of(&input), outs, None, &keep) }
            }
        }

        impl<T: Element + PartialEq> UniqueImpl<T> for $space {
            fn unique(&self, label: &str, data: Output<'_, T, HostSpace>) -> usize {
                let (src, dst) = (Src::of_output(&data), Dst::of(&data));
                // SAFETY: nothing writes the View before the compaction.
                let prev = unsafe { boundaries(&src) };
                let outs = Outs {
                    kept: dst,
                    rejected: None,
                    in_place: true,
                };
                let keep = |_: usize, x: T, before: Option<T>| before.is_none_or(|b| b != x);
                // SAFETY: as for remove_if.
                unsafe { compact(self, label, src, outs, Some(&prev), &keep) }
            }
        }
    };
}

host_compactions!(Serial);
#[cfg(feature = "rayon")]
host_compactions!(granule_rayon::Rayon);

#[cfg(test)]
mod tests {
    use super::*;

    /// A block's parts tile it in order, each but the last a whole number
    /// of packing vectors, whatever its length.
    #[test]
    fn ways_tile_the_block_in_order() {
        for len in (0..300).chain([BLOCK - 1, BLOCK]) {
            let mut at = 0;
            for way in 0..WAYS {
                let (lo, hi) = way_bounds(len, way);
                assert_eq!(lo, at, "len {len}, way {way}");
                assert!(hi >= lo && (way + 1 == WAYS || (hi - lo) % 16 == 0));
                at = hi;
            }
            assert_eq!(at, len);
        }
    }

    /// The scalar loop gathers the kept and the rejected elements in
    /// order, whole or drained in chunks from any first limit.
    #[test]
    fn gather_splits_in_order_whole_or_drained() {
        let keep = |i: usize, _: u64, _: Option<u64>| i % 3 != 1 && !i.is_multiple_of(7);
        for n in [0, 1, 7, 600, 1500] {
            let x: Vec<u64> = (0..n as u64).map(|i| i * 11).collect();
            let pick = |yes: bool| -> Vec<u64> {
                (0..n)
                    .filter(|&i| keep(i, 0, None) == yes)
                    .map(|i| x[i])
                    .collect()
            };
            let (want_k, want_r) = (pick(true), pick(false));
            let (mut ks, mut rs) = (vec![0u64; n], vec![0u64; n]);
            let none = |_: &[u64]| panic!("drained a whole-block gather");
            let (k, r) = gather(
                (&x, 0, None),
                &keep,
                &mut ks,
                Some(&mut rs),
                (usize::MAX, none),
                (usize::MAX, none),
            );
            assert_eq!(
                (&ks[..k], &rs[..r]),
                (&want_k[..], &want_r[..]),
                "whole, n {n}"
            );
            for first in [1, 5, CHUNK] {
                let (mut got_k, mut got_r) = (Vec::new(), Vec::new());
                let (mut ks, mut rs) = (vec![0u64; CHUNK + 1], vec![0u64; CHUNK + 1]);
                let (k, r) = gather(
                    (&x, 0, None),
                    &keep,
                    &mut ks,
                    Some(&mut rs),
                    (first, |s: &[u64]| got_k.extend_from_slice(s)),
                    (first, |s: &[u64]| got_r.extend_from_slice(s)),
                );
                got_k.extend_from_slice(&ks[..k]);
                got_r.extend_from_slice(&rs[..r]);
                assert_eq!(
                    (got_k, got_r),
                    (want_k.clone(), want_r.clone()),
                    "n {n}, first {first}"
                );
            }
        }
    }
}
