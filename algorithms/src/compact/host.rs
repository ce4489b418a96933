//! Stream compaction on the host spaces: predicate, scan of the counts
//! and scatter fused in one pass, chained by decoupled look-back.
//!
//! Block `b` reads its input once and copies each element into the
//! thread's staging buffer (cache-resident) with a branch-free
//! `stage[k] = x; k += keep` (a partition also stages the rejected ones);
//! it publishes its count, looks back for the number of elements kept
//! before it, and copies the staged elements to that place in the output
//! (with non-temporal stores for large outputs). The input is read once
//! and each kept element written once.
//!
//! **In place** (`remove_if`, `unique`): block `b` writes below its own
//! end, into the input of blocks `≤ b`. It writes only after its
//! look-back, and a block publishes its count only after it has read (and
//! staged) its whole input, so every block it overwrites has finished
//! reading; later blocks read only above its end. `unique` compares each
//! block's first element with the last one of the block before, which a
//! write may already have moved, so those boundary elements are copied
//! first.

use super::{CompactByFlagsImpl, CompactImpl, UniqueImpl};
use crate::host::buffer::with_buffer;
use crate::host::raw::{Dst, Src};
use crate::host::{lookback, stream, HostExec, BLOCK, STREAM_BYTES};
use crate::io::{Input, Output};
use granule_core::exec::{block_bounds, block_count};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{Logical, Sum};
use granule_core::Serial;
use granule_views::{HostSpace, Pod};

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
unsafe fn compact<E, T, K>(exec: &E, label: &str, src: Src<T>, outs: Outs<T>, prev: Option<&[T]>, keep: &K) -> usize
where
    E: HostExec,
    T: Pod,
    K: Fn(usize, T, Option<T>) -> bool + Sync,
{
    let n = src.len;
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    let stream = !outs.in_place && bytes > STREAM_BYTES;
    let gather = if src.contiguous() { 0 } else { BLOCK };
    let split = if outs.rejected.is_some() { BLOCK } else { 0 };
    let total = lookback::run(exec, label, block_count(n, BLOCK), &Sum, None, |blk| {
        let (lo, hi) = block_bounds(0, n, BLOCK, blk.index);
        let before = match (prev, blk.index) {
            (Some(p), b) if b > 0 => Some(p[b - 1]),
            _ => None,
        };
        with_buffer::<T, _>(gather, |gbuf| {
            with_buffer::<T, _>(hi - lo, |kept| {
                with_buffer::<T, _>(split, |rejected| {
                    // SAFETY: no block writes lo..hi before this one has
                    // published its count, which comes after its last use
                    // of `x` (see the module's note on in place).
                    let x = unsafe { src.block(lo, hi, gbuf) };
                    let (k, r) = stage(x, lo, before, keep, kept, rejected, split > 0);
                    let at: usize = blk.prefix(k)?.unwrap_or(0);
                    // SAFETY: the kept elements of this block go to
                    // at..at + k, disjoint from every other block's, and
                    // below this block's end (see the module's note).
                    unsafe { outs.kept.write(at, &kept[..k], stream) };
                    if let Some(rej) = &outs.rejected {
                        // SAFETY: the rejected ones before this block are
                        // `lo - at`; disjoint in the same way.
                        unsafe { rej.write(lo - at, &rejected[..r], stream) };
                    }
                    if stream {
                        stream::fence();
                    }
                    Ok(())
                })
            })
        })
    });
    total.unwrap_or(0)
}

/// Copies the kept elements of `x` to the front of `kept` (and, with
/// `split`, the others to the front of `rejected`) without branches;
/// returns both counts.
#[inline(always)]
fn stage<T: Copy, K>(
    x: &[T],
    lo: usize,
    mut before: Option<T>,
    keep: &K,
    kept: &mut [T],
    rejected: &mut [T],
    split: bool,
) -> (usize, usize)
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    let (mut k, mut r) = (0, 0);
    let kept = &mut kept[..x.len()];
    for (j, &v) in x.iter().enumerate() {
        let yes = keep(lo + j, v, before);
        before = Some(v);
        // k <= j < x.len(): always in bounds.
        kept[k] = v;
        k += usize::from(yes);
        if split {
            rejected[r] = v;
            r += usize::from(!yes);
        }
    }
    (k, r)
}

/// The last element of every block but the final one (the boundary
/// elements `unique` compares across blocks), read before any write.
///
/// # Safety
/// No thread writes `src` during the call.
unsafe fn boundaries<T: Pod>(src: &Src<T>) -> Vec<T> {
    let nb = block_count(src.len, BLOCK);
    // SAFETY: forwarded contract; `(b + 1) * BLOCK - 1 < len` for b < nb - 1.
    (0..nb.saturating_sub(1)).map(|b| unsafe { src.get((b + 1) * BLOCK - 1) }).collect()
}

macro_rules! host_compactions {
    ($space:ty) => {
        impl<T: Pod, P: UnaryFunctor<T, Output = bool>> CompactImpl<T, P> for $space {
            fn copy_if(&self, label: &str, input: Input<'_, T, HostSpace>, output: Output<'_, T, HostSpace>, pred: &P) -> usize {
                let (src, dst) = (Src::of(&input), Dst::of(&output));
                let outs = Outs { kept: dst, rejected: None, in_place: false };
                // SAFETY: the Views are borrowed for the call (shared and
                // unique); the entry point checked that the output holds
                // the input's length.
                unsafe { compact(self, label, src, outs, None, &|_, x, _| pred.call(x)) }
            }

            fn remove_if(&self, label: &str, data: Output<'_, T, HostSpace>, pred: &P) -> usize {
                let (src, dst) = (Src::of_output(&data), Dst::of(&data));
                let outs = Outs { kept: dst, rejected: None, in_place: true };
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
                let outs = Outs { kept: Dst::of(&out_true), rejected: Some(Dst::of(&out_false)), in_place: false };
                // SAFETY: three distinct borrowed Views; the entry point
                // checked both outputs' lengths.
                let t = unsafe { compact(self, label, Src::of(&input), outs, None, &|_, x, _| pred.call(x)) };
                (t, n - t)
            }
        }

        impl<T: Pod, G: Pod + Logical> CompactByFlagsImpl<T, G> for $space {
            fn compact_by_flags(
                &self,
                label: &str,
                input: Input<'_, T, HostSpace>,
                flags: Input<'_, G, HostSpace>,
                output: Output<'_, T, HostSpace>,
            ) -> usize {
                let flags = Src::of(&flags);
                assert_eq!(flags.len, input.len(), "{label}: flags and input differ in length");
                let outs = Outs { kept: Dst::of(&output), rejected: None, in_place: false };
                // SAFETY: the flags View is borrowed shared: nothing writes it.
                let keep = |i: usize, _: T, _: Option<T>| unsafe { flags.get(i) }.truthy();
                // SAFETY: as for copy_if.
                unsafe { compact(self, label, Src::of(&input), outs, None, &keep) }
            }
        }

        impl<T: Pod + PartialEq> UniqueImpl<T> for $space {
            fn unique(&self, label: &str, data: Output<'_, T, HostSpace>) -> usize {
                let (src, dst) = (Src::of_output(&data), Dst::of(&data));
                // SAFETY: nothing writes the View before the compaction.
                let prev = unsafe { boundaries(&src) };
                let outs = Outs { kept: dst, rejected: None, in_place: true };
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
