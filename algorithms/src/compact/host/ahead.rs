//! Streamed compaction on Intel's cores, whose streaming stores and
//! prefetches wait on the same fill buffers: a core's read of a block and
//! its streamed copy-out would take turns. So while a block's kept
//! elements leave, a piece at a time, the worker packs its next block
//! into a second buffer, a proportional piece after each, and hands it
//! on ([`Ahead`], [`staged_ahead`]): the core reads while it writes, as
//! in a copy. The next block is packed as [`WAYS`] parts side by side, so
//! the core reads several streams of lines at once.

// The packing is x86-64's (`compress`), and so is everything here but
// the carry, whose type the block chain names on every target.
#[cfg(target_arch = "x86_64")]
use {
    super::{before_block, compress, staged, staged::Selected, Packer},
    crate::host::raw::{Dst, Src},
    crate::host::stream,
    granule_core::exec::block_bounds,
    granule_core::exec::lookback::{Block, Stop},
    granule_views::Element,
};

/// Parts of a block that [`staged_ahead`] packs side by side, each into
/// its own run of the buffer. A core reading one stream of lines from
/// memory waits on it, and reading a few streams at once takes more of
/// the memory's bandwidth; a few suffice, and each more is one more
/// stream for the core to keep apart beside the copy-out's.
pub(super) const WAYS: usize = 3;

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
pub(super) struct Ahead<T> {
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
/// take in turn lose bandwidth when the blocks are small, as they do in a
/// copy that takes every other block: the [`BLOCK`](crate::host::BLOCK)
/// of the other compactions (128 KiB of 8-byte elements) is too small
/// here, and blocks of 1 MiB would need buffers past L2.
#[cfg(target_arch = "x86_64")]
pub(super) const AHEAD_BYTES: usize = 512 * 1024;

/// Elements copied out between two pieces of packing in [`staged_ahead`].
#[cfg(target_arch = "x86_64")]
const PIECE: usize = 256;

/// [`staged`](super::staged::staged) for a streamed, contiguous input
/// packed in vectors, with no rejected output: the block's kept elements
/// were packed by the block before it on this worker (or are packed now),
/// and while they are copied out, a piece at a time, the worker's next
/// block is packed, a proportional piece of each of its [`WAYS`] parts
/// after each, into the other buffer. A core then reads while it writes,
/// as in a copy: a block's read and its copy-out otherwise take turns.
///
/// # Safety
/// Nothing writes `src` during the call, and `kept` is long enough for
/// everything `keep` selects in the whole input.
#[cfg(target_arch = "x86_64")]
pub(super) unsafe fn staged_ahead<T: Element, K, R>(
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
    if let Some((selected, _)) = blk.take_left() {
        let to = staged::Targets {
            kept,
            rejected: None,
        };
        // SAFETY: forwarded contract; what the block's first run packed.
        return unsafe { staged::write_selected(&selected, &[], 0, to, true, blk) };
    }
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
    let at = match blk.prefix(k) {
        Ok(at) => at.unwrap_or(0),
        Err(stop) => {
            // Left: the next run writes what this one packed, without
            // calling the predicate again (it is called once per element).
            let mut selected = Vec::with_capacity(k);
            for &(start, len) in &runs {
                selected.extend_from_slice(&carry.ready[start..start + len]);
            }
            blk.leave((selected, Vec::new()));
            return Err(stop);
        }
    };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::BLOCK;

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
}
