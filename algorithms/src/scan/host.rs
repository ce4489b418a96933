//! The scans on the host spaces: one pass over memory, blocks chained by
//! decoupled look-back (`crate::host::lookback`).
//!
//! Block `b` (of [`BLOCK`] elements):
//! 1. **local scan** — reads its input once (from memory), applies the
//!    transform and scans it from the identity:
//!    `local(i) = x[lo] ⊕ … ⊕ x[i]`, written into the output itself when
//!    it is contiguous and fits in cache, else into the thread's staging
//!    buffer (cache-resident). The last value is the block's aggregate;
//! 2. **look-back** — publishes the aggregate and gets the block's
//!    exclusive prefix `p` (the init value folded with every earlier
//!    aggregate, left to right);
//! 3. **fix-up** — `out[i] = p ⊕ local(i)` (exclusive: shifted by one,
//!    `out[lo] = p`). This loop has no carried dependency, so the
//!    compiler vectorizes it for the built-in operators; from the staging
//!    buffer it goes out in L1-sized chunks with non-temporal stores.
//!
//! Every element is thus touched by one scalar pass (the same work as a
//! sequential loop) and one vector pass over cached data, whereas the
//! Kokkos-contract pattern needs a reduction pass and a scan pass. The
//! grouping depends on the length only (the block size is fixed), so the
//! bits are the same on Serial and on Rayon with any number of threads.

use super::{ScanImpl, ScanKind, ScanSpec};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Src};
use crate::host::{lookback, HostExec, BLOCK, STREAM_BYTES};
use crate::io::{Input, Output};
use granule_core::exec::{block_bounds, block_count};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::Reducer;
use granule_core::Serial;
use granule_views::{HostSpace, Pod};

/// Elements fixed up and streamed out at a time from the staging buffer:
/// small enough to stay in L1 between the two.
const CHUNK: usize = 512;

/// Pass 1: the local scan of `transform(x)` into `out` (same length),
/// shifted by one for an exclusive scan (`out[0]` is left for the
/// fix-up). Returns the block's aggregate.
#[inline(always)]
fn local_scan<U, T, R, F>(x: &[U], out: &mut [T], kind: ScanKind, op: &R, f: &F) -> T
where
    U: Copy,
    T: Copy,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    // From the identity, as a sequential fold starts: an operator whose
    // identity is not exact for every value (0.0 + -0.0) gives the same
    // first element as the sequential loop.
    let mut acc = op.init();
    op.join(&mut acc, &f.call(x[0]));
    match kind {
        ScanKind::Inclusive => {
            out[0] = acc;
            for (o, &v) in out[1..].iter_mut().zip(&x[1..]) {
                op.join(&mut acc, &f.call(v));
                *o = acc;
            }
        }
        ScanKind::Exclusive => {
            for (o, &v) in out[1..].iter_mut().zip(&x[1..]) {
                *o = acc;
                op.join(&mut acc, &f.call(v));
            }
        }
    }
    acc
}

/// Pass 3 on `out[from..]` of a block: `out[i] = p ⊕ out[i]`, and for an
/// exclusive scan `out[0] = p` (the identity without a prefix) when
/// `from == 0`.
#[inline(always)]
fn fix_up<T: Copy, R: Reducer<T>>(out: &mut [T], from: usize, p: Option<T>, kind: ScanKind, op: &R) {
    let mut rest = &mut out[..];
    if kind == ScanKind::Exclusive && from == 0 {
        rest[0] = p.unwrap_or_else(|| op.init());
        rest = &mut rest[1..];
    }
    if let Some(p) = p {
        for o in rest {
            let mut v = p;
            op.join(&mut v, o);
            *o = v;
        }
    }
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
    let gather = if src.contiguous() { 0 } else { BLOCK };
    let total = lookback::run(exec, label, block_count(n, BLOCK), op, spec.init, |blk| {
        let (lo, hi) = block_bounds(0, n, BLOCK, blk.index);
        with_buffer::<U, _>(gather, |gbuf| {
            // SAFETY: only this block's owner touches elements lo..hi of
            // either View (blocks are disjoint); in place, the slice is
            // last used by the local scan, before the block writes.
            let x = unsafe { src.block(lo, hi, gbuf) };
            if direct {
                // SAFETY: out of place, so `dst` is not `src`; lo..hi
                // belongs to this block alone.
                let out = unsafe { dst.slice_mut(lo, hi) };
                let p = blk.prefix(local_scan(x, out, kind, op, f))?;
                fix_up(out, 0, p, kind, op);
                return Ok(());
            }
            with_buffer::<T, _>(hi - lo, |stage| {
                let p = blk.prefix(local_scan(x, stage, kind, op, f))?;
                for (c, chunk) in stage.chunks_mut(CHUNK).enumerate() {
                    fix_up(chunk, c * CHUNK, p, kind, op);
                    // SAFETY: elements lo..hi belong to this block; in
                    // place, the block has finished reading them.
                    unsafe { dst.write(lo + c * CHUNK, chunk, stream) };
                }
                Ok(())
            })
        })
    });
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
