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
//! block (the scans' shape) would call the predicate twice per element
//! and read every block twice.
//!
//! **Streamed on Intel** (`staged_ahead`): a core's read of a block and
//! its streamed copy-out would take turns, so while a block's kept
//! elements leave, a piece at a time, the worker packs its next block
//! into a second buffer, a proportional piece after each. The next block
//! is packed as three parts side by side ([`WAYS`]), so the core reads
//! three streams of lines at once: a core reads memory faster in several
//! streams than in one. Other CPUs keep the turns (see
//! [`stream::reads_overlap_streams`]). These blocks are four or eight
//! times as long as the others ([`AHEAD_BYTES`]): two cores streaming
//! through blocks they take in turn lose bandwidth when the blocks are
//! small.
//!
//! **One worker** (Serial, a one-thread Rayon space), when the output
//! stays in cache: every block knows its place when it starts, so it
//! copies at once in L1-sized chunks and publishes where its run ended
//! (counts are exact, so nothing regroups): each element is read and
//! written once, with no block-sized buffer between.
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
//!
//! One mechanism per file:
//! - [`staged`](mod@staged): a block whose place is not known yet,
//!   gathered into buffers, then written where its look-back puts it;
//! - [`ahead`]: streamed blocks on Intel, each packing its worker's next
//!   block while it leaves;
//! - [`emit`]: a block that knows its place, copied out in L1-sized
//!   chunks;
//! - [`gather`]: the scalar gathering loop;
//! - `compress`: the gathering in vectors (x86-64).
//!
//! Here: the entry points (the compaction traits for Serial and Rayon),
//! the block chain that chooses among them, and `unique`'s boundaries.
//!
//! [`WAYS`]: ahead::WAYS
//! [`AHEAD_BYTES`]: ahead::AHEAD_BYTES
//! [`stream::reads_overlap_streams`]: crate::host::stream::reads_overlap_streams

mod ahead;
#[cfg(target_arch = "x86_64")]
mod compress;
mod emit;
mod gather;
mod staged;

use super::{CompactByFlagsImpl, CompactImpl, UniqueImpl};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Src};
#[cfg(target_arch = "x86_64")]
use crate::host::stream;
use crate::host::{chain, HostExec, BLOCK, STREAM_BYTES};
use crate::io::{Input, Output};
use ahead::Ahead;
#[cfg(target_arch = "x86_64")]
use ahead::{staged_ahead, AHEAD_BYTES};
use emit::{emit_any, Run};
use granule_core::exec::lookback::Block;
use granule_core::exec::{block_bounds, block_count};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{Logical, Sum};
use granule_core::Serial;
use granule_views::{Element, HostSpace};
use staged::{staged, Selected};

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
    // block's owner waits all that time; nor for streamed outputs, where
    // the copy loop would read memory between its streaming stores. Other
    // blocks out of place are staged, and publish their counts before they
    // copy.
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

/// The element before block `b`'s first, which `keep` compares it with
/// (`prev[b - 1]`; none for block 0 or without `prev`).
fn before_block<T: Copy>(prev: Option<&[T]>, b: usize) -> Option<T> {
    prev.and_then(|p| b.checked_sub(1).map(|a| p[a]))
}

#[cfg(target_arch = "x86_64")]
type Packer = crate::host::isa::Isa;
#[cfg(not(target_arch = "x86_64"))]
type Packer = std::convert::Infallible;

/// Elements gathered in L1 before they leave in one copy.
const CHUNK: usize = 512;

/// Compacts `src` into `dst` keeping the first of every run of equal
/// elements (`unique`, in place or not); returns how many.
///
/// # Safety
/// As for [`compact`]: `src` and `dst` describe live host Views, `dst`
/// at least as long as `src`; nothing else touches `dst` during the
/// call, nor `src` unless `in_place` (then `src` is `dst`).
unsafe fn first_of_runs<E: HostExec, T: Element + PartialEq>(
    exec: &E,
    label: &str,
    src: Src<T>,
    dst: Dst<T>,
    in_place: bool,
) -> usize {
    // SAFETY: nothing writes `src` before the compaction starts (the
    // caller's contract).
    let prev = unsafe { boundaries(&src) };
    let outs = Outs {
        kept: dst,
        rejected: None,
        in_place,
    };
    let keep = |_: usize, x: T, before: Option<T>| before.is_none_or(|b| b != x);
    // SAFETY: forwarded contract.
    unsafe { compact(exec, label, src, outs, Some(&prev), &keep) }
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

            fn remove_copy_if(
                &self,
                label: &str,
                input: Input<'_, T, HostSpace>,
                output: Output<'_, T, HostSpace>,
                pred: &P,
            ) -> usize {
                self.copy_if(label, input, output, &|x: T| !pred.call(x))
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
                // SAFETY: the View is borrowed uniquely for the call; in
                // place, as the protocol allows.
                unsafe { first_of_runs(self, label, src, dst, true) }
            }

            fn unique_copy(
                &self,
                label: &str,
                input: Input<'_, T, HostSpace>,
                output: Output<'_, T, HostSpace>,
            ) -> usize {
                let (src, dst) = (Src::of(&input), Dst::of(&output));
                // SAFETY: the Views are borrowed for the call (shared and
                // unique); the entry point checked that the output holds
                // the input's length.
                unsafe { first_of_runs(self, label, src, dst, false) }
            }
        }
    };
}

host_compactions!(Serial);
#[cfg(feature = "rayon")]
host_compactions!(granule_rayon::Rayon);
