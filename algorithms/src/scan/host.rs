//! The scans on the host spaces: one pass over memory, blocks chained by
//! decoupled look-back (`crate::host::lookback`), the same shape as the
//! `parallel_scan` pattern on Rayon.
//!
//! Block `b` (of [`SCAN_BLOCK`] elements):
//! 1. **aggregate** — reads its input (from memory, the only time) and
//!    reduces `transform(x)` over it: the block is cut into 8 contiguous
//!    parts folded side by side (8 independent chains, so the loop is
//!    bound by memory, not by the operator's latency), then joined left to
//!    right. The order of the elements is kept, so any associative
//!    operator works, commutative or not;
//! 2. **look-back** — publishes the aggregate and gets the block's
//!    exclusive prefix `p` (the init value folded with every earlier
//!    aggregate, left to right);
//! 3. **scan** — folds the block again from `p` (it is in cache now) and
//!    writes each output element once. Outputs larger than the
//!    last-level cache leave through non-temporal stores (from an L1-sized
//!    staging chunk): a plain store reads each destination line first.
//!
//! Element `i` of block `b` is `((p ⊕ x[lo]) ⊕ …) ⊕ x[i]`, a grouping
//! that depends on the length only, so the bits are the same on Serial and
//! on Rayon with any number of threads. The transform is called twice per
//! element (once per pass), so it must be a pure function.
//!
//! Why not scan each block locally first and fix it up with the prefix
//! after (`out[i] = p ⊕ local(i)`, one scalar pass and one vector pass)?
//! That touches every output line twice; measured on the 2-core
//! development VM at 2^27 i64 it ran at 0.53 of the streaming-copy bound
//! against 0.75 for this order (see the README's performance notes).

use super::{ScanImpl, ScanKind, ScanSpec};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Src};
use crate::host::{lookback, stream, HostExec, STREAM_BYTES};
use crate::io::{Input, Output};
use granule_core::exec::{block_bounds, block_count};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::Reducer;
use granule_core::Serial;
use granule_views::{HostSpace, Pod};

/// Elements per scan block: its input (256 KiB of 8-byte elements) stays
/// in L2 between the two passes. It fixes the grouping of float scans.
pub(crate) const SCAN_BLOCK: usize = 32 * 1024;

/// Elements staged in L1 before they are streamed out.
const CHUNK: usize = 256;

/// Independent chains of the aggregate pass.
const LANES: usize = 8;

/// Pass 1: the join of `transform(x)`, in order, with [`LANES`]
/// independent chains over contiguous parts.
#[inline(always)]
fn aggregate<U, T, R, F>(x: &[U], op: &R, f: &F) -> T
where
    U: Copy,
    T: Copy,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    let m = x.len() / LANES;
    let mut acc = [(); LANES].map(|_| op.init());
    for j in 0..m {
        for (k, a) in acc.iter_mut().enumerate() {
            op.join(a, &f.call(x[k * m + j]));
        }
    }
    for &v in &x[LANES * m..] {
        op.join(&mut acc[LANES - 1], &f.call(v));
    }
    let mut total = acc[0];
    for a in &acc[1..] {
        op.join(&mut total, a);
    }
    total
}

/// Pass 2: folds `transform(x)` from `acc` into `out` (same length),
/// inclusive or exclusive; returns the running value after the last.
#[inline(always)]
fn fold_into<U, T, R, F>(x: &[U], out: &mut [T], mut acc: T, kind: ScanKind, op: &R, f: &F) -> T
where
    U: Copy,
    T: Copy,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    match kind {
        ScanKind::Inclusive => {
            for (o, &v) in out.iter_mut().zip(x) {
                op.join(&mut acc, &f.call(v));
                *o = acc;
            }
        }
        ScanKind::Exclusive => {
            for (o, &v) in out.iter_mut().zip(x) {
                *o = acc;
                op.join(&mut acc, &f.call(v));
            }
        }
    }
    acc
}

/// Scans `src` into `dst[0..src.len]` (`in_place`: they are the same
/// elements) on `exec`.
///
/// # Safety
/// `src` and `dst` describe live host Views; nothing else touches `dst`
/// during the call, nor `src` unless `in_place` (then it is `dst`).
unsafe fn scan<E, U, T, R, F>(
    exec: &E,
    label: &str,
    src: Src<U>,
    dst: Dst<T>,
    in_place: bool,
    spec: &ScanSpec<'_, T, R, F>,
) -> T
where
    E: HostExec,
    U: Pod,
    T: Pod,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    let (n, kind, op, f) = (src.len, spec.kind, spec.op, spec.transform);
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    let stream = !in_place && dst.contiguous() && bytes > STREAM_BYTES;
    let direct = !in_place && !stream && dst.contiguous();
    // In place, the block is copied first: its output overwrites it.
    let gather = if src.contiguous() && !in_place {
        0
    } else {
        SCAN_BLOCK
    };
    let total = lookback::run(
        exec,
        label,
        block_count(n, SCAN_BLOCK),
        op,
        spec.init,
        |blk| {
            let (lo, hi) = block_bounds(0, n, SCAN_BLOCK, blk.index);
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
                let p = blk.prefix(aggregate(x, op, f))?;
                let acc = p.unwrap_or_else(|| op.init());
                if direct {
                    // SAFETY: out of place, so `dst` is not `src`; lo..hi
                    // belongs to this block alone.
                    let out = unsafe { dst.slice_mut(lo, hi) };
                    fold_into(x, out, acc, kind, op, f);
                    return Ok(());
                }
                with_buffer::<T, _>(CHUNK, |stage| {
                    let mut acc = acc;
                    for (c, xc) in x.chunks(CHUNK).enumerate() {
                        let out = &mut stage[..xc.len()];
                        acc = fold_into(xc, out, acc, kind, op, f);
                        // SAFETY: elements lo..hi belong to this block; in
                        // place, `x` is a copy.
                        unsafe { dst.write(lo + c * CHUNK, out, stream) };
                    }
                    if stream {
                        stream::fence();
                    }
                    Ok(())
                })
            })
        },
    );
    total.or(spec.init).unwrap_or_else(|| op.init())
}

macro_rules! host_scans {
    ($space:ty) => {
        impl<U, T, R, F> ScanImpl<U, T, R, F> for $space
        where
            U: Pod,
            T: Pod,
            R: Reducer<T>,
            F: UnaryFunctor<U, Output = T>,
        {
            fn scan(
                &self,
                label: &str,
                input: Input<'_, U, HostSpace>,
                output: Output<'_, T, HostSpace>,
                spec: ScanSpec<'_, T, R, F>,
            ) -> T {
                let (src, dst) = (Src::of(&input), Dst::of(&output));
                assert!(dst.len >= src.len, "{label}: output shorter than input");
                // SAFETY: `input` and `output` hold the call's borrows of
                // two Views (shared and unique), so they are live, and
                // nothing else touches the output.
                unsafe { scan(self, label, src, dst, false, &spec) }
            }

            fn scan_in_place(
                &self,
                label: &str,
                data: Output<'_, T, HostSpace>,
                spec: ScanSpec<'_, T, R, F>,
            ) -> T
            where
                F: UnaryFunctor<T, Output = T>,
            {
                let (src, dst) = (Src::of_output(&data), Dst::of(&data));
                // SAFETY: `data` holds the call's unique borrow of the
                // View; source and destination are its elements.
                unsafe { scan(self, label, src, dst, true, &spec) }
            }
        }
    };
}

host_scans!(Serial);
#[cfg(feature = "rayon")]
host_scans!(granule_rayon::Rayon);
