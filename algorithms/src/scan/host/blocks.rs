//! The block chain of the host scans' two passes: each block reads its
//! input once for pass 1, looks back for its prefix, and folds the block
//! again from it while it is in cache (pass 2), writing each output
//! element once.
//!
//! A block chooses its forms here: the parts' or the columns' pass 1, the
//! lanes' or one chain's pass 2, in vectors where the types and the CPU
//! allow, and direct, staged or streamed outputs. While a streamed block
//! leaves, its worker's next block comes in, as many bytes as are
//! written: prefetched, or, where prefetches and streaming stores wait on
//! the same fill buffers, read by that block's pass 1 run between the
//! writes ([`Pass1`]), its aggregates handed on to it. Outputs that stay
//! in cache take the other order ([`scan_fix_up`]) where it reads less.

use super::aggregate::{aggregate, column_aggregate, Pass1};
use super::fix_up::scan_fix_up;
use super::fold::{
    fold_lanes, fold_sums, part_starts, scan_from, stream_sums, sums_into, vector_sums,
};
use super::{block_len, join_all, part_len, LANES, STAGED};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Src};
use crate::host::{chain, stream, HostExec, STREAM_BYTES};
use crate::scan::{f64_sums, parts, ScanKind, ScanSpec};
use granule_core::exec::lookback::Block;
use granule_core::exec::{block_bounds, block_count};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{KnownOp, Reducer};
use granule_views::Element;
use std::any::TypeId;

/// Elements of each part [`parts::fold_parts`] writes between two
/// prefetches of the next block (16 lines of it, one per 8 elements
/// written): an even pace keeps the reads beside the writes, where bursts
/// of a [`CHUNK`](super::CHUNK) (256 lines) would bunch them up.
const PART_FETCH: usize = 16;

/// The block-chained scan behind [`scan`](super::scan); returns the
/// chain's total.
///
/// # Safety
/// As for [`scan`](super::scan).
pub(super) unsafe fn scan_blocks<E, U, T, R, F>(
    exec: &E,
    label: &str,
    src: Src<U>,
    dst: Dst<T>,
    in_place: bool,
    spec: &ScanSpec<'_, T, R, F>,
) -> T
where
    E: HostExec,
    U: Element,
    T: Element,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    let (n, kind, op, f) = (src.len, spec.kind, spec.op, spec.transform);
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    let stream = !in_place && dst.contiguous() && bytes > STREAM_BYTES;
    let block = block_len::<T>(n);
    // Streamed blocks read from memory: the next block comes in while
    // this one streams out, or, where that stalls the streaming stores,
    // each block's lines are asked for just ahead of its first pass.
    let overlap = stream && stream::reads_overlap_streams();
    let ahead = stream && !overlap;
    let direct = !in_place && !stream && dst.contiguous();
    // A float join waits 3-4 cycles for the one before, so floats take
    // the pass-2 fold in LANES chains; an integer join takes one cycle,
    // and its single chain is faster than the LANES streams.
    let lanes = [TypeId::of::<f32>(), TypeId::of::<f64>()].contains(&TypeId::of::<T>());
    // `f64` sums: pass 2 in vectors, in one grouping on every CPU (see
    // `f64_sums`), not in parts.
    let f64s = f64_sums::fits::<T, R>(op);
    // Sums of 4- and 8-byte integers: one chain, in vectors (see `simd`);
    // `f64` sums take the same paths.
    let sums = (!lanes && vector_sums::<T, R>(op)) || f64s;
    // Float sums take pass 1 in columns (`aggregate_sums`), which
    // vectorize. So do the integer vector sums, whose wrapping adds give
    // the same total in any grouping.
    let column_sums = (lanes || sums) && op.known_op() == Some(KnownOp::Sum);
    // f32 sums out of place take pass 2 in vectors (see `parts`), and f64
    // sums stream from registers (see below), into an output on a 64-byte
    // line: blocks start a block length apart, a multiple of 64 bytes,
    // so block 0's alignment is every block's.
    let aligned = !in_place && dst.contiguous() && dst.past_line(0) == 0;
    let wide = parts::isa::<T, R>(op).filter(|_| aligned && !f64s);
    // Vector sums with several workers keep the order above: their pass
    // 2 is cheap, and the fix-up's second write of each output line costs
    // more than pass 1's second read. One worker knows every block's
    // prefix and scans it in one pass there.
    let fix_up = !(sums && exec.concurrency() > 1);
    if direct && !lanes && src.contiguous() && fix_up {
        // SAFETY: forwarded contract; `direct` means out of place.
        return unsafe { scan_fix_up(exec, label, &src, &dst, spec) };
    }
    // In place, the block is copied first: its output overwrites it.
    let gather = if src.contiguous() && !in_place {
        0
    } else {
        block
    };
    // Where the next block is not prefetched, a streamed block runs its
    // worker's next block's pass 1 between its own streaming stores (see
    // `Pass1`), so that a core reads while it writes, as in a copy.
    let fuse = ahead && src.contiguous();
    let total = chain(
        exec,
        label,
        block_count(n, block),
        op,
        spec.init,
        |blk: &Block<'_, '_, T, R>, carry: &mut Option<(usize, [T; LANES])>| {
            let (lo, hi) = block_bounds(0, n, block, blk.index());
            with_buffer::<U, _>(gather, |gbuf| {
                // SAFETY: only this block's owner touches elements lo..hi of
                // either View (blocks are disjoint); in place, `x` is a copy.
                let x = unsafe {
                    if in_place {
                        src.gather(lo, hi, gbuf)
                    } else {
                        src.block(lo, hi, gbuf)
                    }
                };
                let aggs = match carry.take() {
                    Some((b, aggs)) if b == blk.index() => aggs,
                    _ if column_sums => column_aggregate(x, op, f, ahead),
                    _ => aggregate(x, op, f, ahead),
                };
                let p = blk.prefix(join_all(op, op.init(), &aggs))?;
                let acc = p.unwrap_or_else(|| op.init());
                let m = if lanes && !f64s { part_len(x.len()) } else { 0 };
                // While this block streams out, the next one's input comes
                // in, as many elements as have been written (`fetch`):
                // prefetched (`overlap`), or read by its pass 1 (`fuse`).
                let next_block = blk.next().map(|b| (b, block_bounds(0, n, block, b)));
                let mut next_pass = next_block.filter(|_| fuse).map(|(b, (nlo, nhi))| {
                    // SAFETY: contiguous (`fuse`), and out of place (`fuse`
                    // streams), so no thread writes the input.
                    (
                        b,
                        Pass1::new(unsafe { src.slice(nlo, nhi) }, column_sums, op),
                    )
                });
                let mut written = 0;
                let mut fetch = |len: usize| {
                    written += len;
                    if let (Some((_, (next, _))), true) = (next_block, overlap) {
                        src.prefetch(next + written - len, next + written);
                    }
                    if let Some((_, pass)) = &mut next_pass {
                        pass.pace(written, x.len(), op, f);
                    }
                };
                if let (Some(isa), true) = (wide, m > 0) {
                    // SAFETY: out of place and contiguous; lo..hi belongs
                    // to this block alone.
                    let out = unsafe { dst.slice_mut(lo, hi) };
                    let start = part_starts(acc, &aggs, op);
                    let chain = (PART_FETCH, &mut fetch);
                    let run = parts::fold_parts(isa, kind, x, m, start, f, out, stream, chain);
                    // The block's tail continues the last part's chain.
                    let (xt, ot) = (&x[LANES * m..], &mut out[LANES * m..]);
                    scan_from(kind, xt, op, f, ot, run[LANES - 1]);
                    if stream {
                        stream::fence();
                    }
                    *carry = hand_on(next_pass, op, f);
                    return Ok(());
                }
                // `f64` sums stream from registers only into an output on a
                // 64-byte line (they may not cut a head off to reach one:
                // that would move their groups); others stage.
                if stream && sums && (aligned || !f64s) {
                    // SAFETY: streamed outputs are out of place and
                    // contiguous; lo..hi belongs to this block alone.
                    let out = unsafe { dst.slice_mut(lo, hi) };
                    stream_sums(kind, x, acc, f, out, fetch);
                    stream::fence();
                    *carry = hand_on(next_pass, op, f);
                    return Ok(());
                }
                let put = |at: usize, out: &[T]| {
                    fetch(out.len());
                    // SAFETY: elements lo..hi belong to this block, and
                    // `at + out.len() <= hi - lo`; in place, `x` is a copy.
                    unsafe { dst.write(lo + at, out, stream) };
                };
                if direct {
                    // SAFETY: out of place, so `dst` is not `src`; lo..hi
                    // belongs to this block alone.
                    let out = unsafe { dst.slice_mut(lo, hi) };
                    if sums {
                        sums_into(kind, x, f, out, acc, false);
                        return Ok(());
                    }
                    match kind {
                        ScanKind::Inclusive => {
                            fold_lanes::<_, _, _, _, true, true>(x, m, &aggs, acc, op, f, out, put)
                        }
                        ScanKind::Exclusive => {
                            fold_lanes::<_, _, _, _, false, true>(x, m, &aggs, acc, op, f, out, put)
                        }
                    };
                    return Ok(());
                }
                with_buffer::<T, _>(LANES * STAGED, |stage| {
                    if sums {
                        fold_sums(kind, x, acc, f, stage, put);
                    } else {
                        match kind {
                            ScanKind::Inclusive => fold_lanes::<_, _, _, _, true, false>(
                                x, m, &aggs, acc, op, f, stage, put,
                            ),
                            ScanKind::Exclusive => fold_lanes::<_, _, _, _, false, false>(
                                x, m, &aggs, acc, op, f, stage, put,
                            ),
                        };
                    }
                    if stream {
                        stream::fence();
                    }
                });
                *carry = hand_on(next_pass, op, f);
                Ok(())
            })
        },
    );
    total.or(spec.init).unwrap_or_else(|| op.init())
}

/// What a block leaves its worker's next block: that block's index and
/// aggregates, when it ran its pass 1 ([`Pass1`]).
#[inline(always)]
fn hand_on<U, T, R, F>(
    pass: Option<(usize, Pass1<'_, U, T>)>,
    op: &R,
    f: &F,
) -> Option<(usize, [T; LANES])>
where
    U: Copy,
    T: Copy,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    pass.map(|(b, pass)| (b, pass.finish(op, f)))
}
