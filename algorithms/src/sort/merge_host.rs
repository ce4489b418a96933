//! Stable merge sort with a comparator on the host spaces: the View is
//! cut into runs sorted in parallel (the standard library's stable sort),
//! then runs are merged pairwise, round after round, between the View and
//! a scratch buffer. Each round is cut into pieces of equal output length
//! (merge path: a binary search finds where a piece's inputs start), so
//! every worker helps even when one pair is left.

use super::radix_host::{gather, scatter};
use super::MergeSortImpl;
use crate::host::raw::{Dst, Scratch, Src};
use crate::host::HostExec;
use crate::io::Output;
use crate::AlgorithmError;
use granule_core::exec::static_part;
use granule_core::functor::BinaryFunctor;
use granule_core::Serial;
use granule_views::{Element, HostSpace};
use std::cmp::Ordering;

/// Elements below which a run is not split further.
const MIN_RUN: usize = 4096;

/// How many elements of `a` are among the first `pos` outputs of the
/// stable merge of `a` and `b` (equal elements: `a`'s first).
fn co_rank<T: Copy, C: BinaryFunctor<T, T, Output = bool>>(
    pos: usize,
    a: &[T],
    b: &[T],
    less: &C,
) -> usize {
    let (mut lo, mut hi) = (pos.saturating_sub(b.len()), pos.min(a.len()));
    while lo < hi {
        let i = lo + (hi - lo) / 2;
        // i < hi <= min(pos, a.len()), so a[i] exists and j = pos - i >= 1.
        let j = pos - i;
        if !less.call(b[j - 1], a[i]) {
            lo = i + 1;
        } else {
            hi = i;
        }
    }
    lo
}

/// Merges `a` and `b` stably into `out` (`a.len() + b.len()` long).
fn merge_into<T: Copy, C: BinaryFunctor<T, T, Output = bool>>(
    a: &[T],
    b: &[T],
    out: &mut [T],
    less: &C,
) {
    let (mut i, mut j) = (0, 0);
    for o in out.iter_mut() {
        let take_b = i == a.len() || (j < b.len() && less.call(b[j], a[i]));
        if take_b {
            *o = b[j];
            j += 1;
        } else {
            *o = a[i];
            i += 1;
        }
    }
}

/// One merge round: pairs of adjacent runs of `src` (run starts in
/// `bounds`) merged into `dst`; returns the bounds of the merged runs.
///
/// # Safety
/// `src` is fully written and not written during the call; `dst` is as
/// long, disjoint from it, and nothing else touches it.
unsafe fn merge_round<E: HostExec, T: Element, C: BinaryFunctor<T, T, Output = bool>>(
    exec: &E,
    label: &str,
    src: &Src<T>,
    dst: &Dst<T>,
    bounds: &[usize],
    less: &C,
) -> Vec<usize> {
    let n = src.len;
    let pieces = (exec.concurrency() * 4).clamp(1, n.div_ceil(MIN_RUN).max(1));
    let runs = bounds.len() - 1;
    // (start, middle, end) of each pair; an odd last run pairs with nothing.
    let pairs: Vec<(usize, usize, usize)> = (0..runs)
        .step_by(2)
        .map(|r| (bounds[r], bounds[r + 1], bounds[(r + 2).min(runs)]))
        .collect();
    exec.run(label, pieces, &|p| {
        let (lo, hi) = static_part(0, n, pieces, p);
        for &(s, m, e) in &pairs {
            let (plo, phi) = (lo.max(s), hi.min(e));
            if plo >= phi {
                continue;
            }
            // SAFETY: `src` is not written during the round.
            let (a, b) = unsafe { (src.slice(s, m), src.slice(m, e)) };
            let (i0, i1) = (co_rank(plo - s, a, b, less), co_rank(phi - s, a, b, less));
            let (j0, j1) = (plo - s - i0, phi - s - i1);
            // A strict weak order gives split points that only go forward.
            assert!(
                i0 <= i1 && j0 <= j1,
                "{label}: the comparator is not a strict weak order (merging elements \
                 {s}..{m} with {m}..{e}, the inputs of output places {plo}..{phi} came out \
                 of order); a comparison sort needs one, such as `a < b`"
            );
            // SAFETY: pieces cover disjoint output ranges plo..phi.
            let out = unsafe { dst.slice_mut(plo, phi) };
            merge_into(&a[i0..i1], &b[j0..j1], out, less);
        }
    });
    let mut next: Vec<usize> = pairs.iter().map(|&(s, _, _)| s).collect();
    next.push(n);
    next
}

/// Copies a merge round's source back over its destination, the View,
/// when the round unwinds: so a panicking comparator leaves the View a
/// permutation of its elements, as the standard library's sorts do.
struct Restore<T: Element> {
    from: Src<T>,
    to: Dst<T>,
}

impl<T: Element> Drop for Restore<T> {
    fn drop(&mut self) {
        // SAFETY: only dropped while a round unwinds (it is forgotten once
        // the round returns): every worker of the round has stopped (the
        // space joins them before the panic resumes), so nothing else
        // touches the View, and the source, the scratch, is fully written
        // and as long as the View.
        unsafe { self.to.write(0, self.from.slice(0, self.from.len), false) };
    }
}

/// Sorts a contiguous View stably by `less`.
///
/// # Safety
/// `data` describes a live contiguous host View nothing else touches.
unsafe fn merge_sort<E: HostExec, T: Element, C: BinaryFunctor<T, T, Output = bool>>(
    exec: &E,
    label: &str,
    data: Dst<T>,
    less: &C,
) -> Result<(), AlgorithmError> {
    let n = data.len;
    if n < 2 {
        return Ok(());
    }
    let runs = (exec.concurrency() * 4).clamp(1, n.div_ceil(MIN_RUN));
    let order = |a: &T, b: &T| {
        if less.call(*a, *b) {
            Ordering::Less
        } else if less.call(*b, *a) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    };
    exec.run(label, runs, &|r| {
        let (lo, hi) = static_part(0, n, runs, r);
        // SAFETY: runs are disjoint; the View is ours for the call.
        unsafe { data.slice_mut(lo, hi) }.sort_by(order);
    });
    let mut bounds: Vec<usize> = (0..runs).map(|r| static_part(0, n, runs, r).0).collect();
    bounds.push(n);
    let mut scratch = Scratch::<T>::new(label, n)?;
    let mut in_scratch = false;
    while bounds.len() > 2 {
        let (sd, vd) = (scratch.dst(), data);
        let (from, to) = if in_scratch {
            (sd.as_src(), vd)
        } else {
            (vd.as_src(), sd)
        };
        // A round into the View that unwinds (the comparator panicked, or
        // is no strict weak order) leaves it half merged; the scratch, the
        // round's source, still holds every element once.
        let restore = in_scratch.then(|| Restore { from, to: vd });
        // SAFETY: View and scratch are disjoint; the source side is fully
        // written (the View, or the scratch after a round).
        bounds = unsafe { merge_round(exec, label, &from, &to, &bounds, less) };
        std::mem::forget(restore);
        in_scratch = !in_scratch;
    }
    if in_scratch {
        let src = scratch.src();
        // SAFETY: the scratch holds the sorted elements; the View is ours.
        unsafe { data.write(0, src.slice(0, n), false) };
    }
    Ok(())
}

macro_rules! host_merge_sort {
    ($space:ty) => {
        impl<T: Element, C: BinaryFunctor<T, T, Output = bool>> MergeSortImpl<T, C> for $space {
            fn merge_sort(
                &self,
                label: &str,
                data: Output<'_, T, HostSpace>,
                less: &C,
            ) -> Result<(), AlgorithmError> {
                let d = Dst::of(&data);
                if d.contiguous() {
                    // SAFETY: the View is borrowed uniquely for the call.
                    return unsafe { merge_sort(self, label, d, less) };
                }
                let mut copy = gather(label, &d)?;
                // SAFETY: the copy is ours, contiguous and written.
                unsafe { merge_sort(self, label, copy.dst(), less)? };
                // SAFETY: the copy is written; the View is ours for the call.
                unsafe { scatter(&mut copy, &d) };
                Ok(())
            }
        }
    };
}

host_merge_sort!(Serial);
#[cfg(feature = "rayon")]
host_merge_sort!(granule_rayon::Rayon);
