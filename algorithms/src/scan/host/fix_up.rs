//! The host scans' other order, for outputs that stay in cache: each
//! block scans its input from the identity straight into its output,
//! publishes that total, and joins its prefix onto the output while it
//! is still in L2. The input is read once instead of twice; the fix-up
//! reads the output from L2. With an exact operator, a block whose prefix
//! is known when it starts scans from it in one pass and skips the
//! fix-up.

use super::block_len;
use super::fold::{scan_from, vector_sums};
use crate::host::raw::{Dst, Src};
use crate::host::{chain, HostExec};
use crate::scan::{simd, ScanSpec};
use granule_core::exec::lookback::Block;
use granule_core::exec::{block_bounds, block_count};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::Reducer;
use granule_views::Element;

/// The scan in one read for outputs that stay in cache (out of place,
/// contiguous, below [`STREAM_BYTES`](crate::host::STREAM_BYTES)) of
/// types other than `f32` and `f64`: each block scans its input from the
/// identity straight into its output, publishes its total, and joins its
/// prefix onto its output, which is still in L2. The input is read once
/// instead of twice (the fix-up pass reads the output from L2).
///
/// # Safety
/// As for [`scan`](super::scan), out of place, `src` and `dst` contiguous.
pub(super) unsafe fn scan_fix_up<E, U, T, R, F>(
    exec: &E,
    label: &str,
    src: &Src<U>,
    dst: &Dst<T>,
    spec: &ScanSpec<'_, T, R, F>,
) -> T
where
    E: HostExec,
    U: Element,
    T: Element,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    let (n, op, f) = (src.len, spec.op, spec.transform);
    let block = block_len::<T>(n);
    let total = chain(
        exec,
        label,
        block_count(n, block),
        op,
        spec.init,
        |blk: &Block<'_, '_, T, R>, _: &mut ()| {
            let (lo, hi) = block_bounds(0, n, block, blk.index());
            // SAFETY: out of place, and elements lo..hi of `dst` are this
            // block's alone.
            let (x, out) = unsafe { (src.slice(lo, hi), dst.slice_mut(lo, hi)) };
            // An exact operator may regroup: a block whose prefix is known
            // already scans from it, in one pass.
            if let Some(p) = op.is_exact().then(|| blk.known()).flatten() {
                let acc = p.unwrap_or_else(|| op.init());
                blk.finish(scan_from(spec.kind, x, op, f, out, acc));
                return Ok(());
            }
            let local = scan_from(spec.kind, x, op, f, out, op.init());
            if let Some(p) = blk.prefix(local)? {
                if vector_sums::<T, R>(op) {
                    simd::add_to(out, p);
                    return Ok(());
                }
                for o in out.iter_mut() {
                    let mut v = p;
                    op.join(&mut v, o);
                    *o = v;
                }
            }
            Ok(())
        },
    );
    total.or(spec.init).unwrap_or_else(|| op.init())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::raw::Scratch;
    use crate::scan::host::SCAN_BLOCK_ELEMS;
    use crate::scan::ScanKind;
    use granule_core::Serial;

    /// The fix-up order against a sequential fold, with an associative
    /// operator that is not commutative ("the last nonzero value"), a
    /// seed, both kinds, and blocks that end mid-way.
    fn fix_up_matches_the_fold_on<E: HostExec>(exec: &E) {
        let op = granule_core::reducer::custom(
            || 0u64,
            |a: &mut u64, b: &u64| {
                if *b != 0 {
                    *a = *b
                }
            },
        );
        fix_up_matches_the_fold_with(exec, &op);
        // An exact operator: blocks that know their prefix scan from it.
        fix_up_matches_the_fold_with(exec, &granule_core::reducer::Sum);
    }

    fn fix_up_matches_the_fold_with<E: HostExec, R: Reducer<u64>>(exec: &E, op: &R) {
        let n = 3 * SCAN_BLOCK_ELEMS + 5;
        let x: Vec<u64> = (0..n as u64)
            .map(|i| if i % 7 == 3 { 0 } else { i * 31 })
            .collect();
        for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
            for init in [None, Some(99u64)] {
                let (mut xs, mut ys) =
                    (Scratch::new("x", n).unwrap(), Scratch::new("y", n).unwrap());
                let (src, dst) = (xs.dst(), ys.dst());
                for (i, &v) in x.iter().enumerate() {
                    // SAFETY: in bounds, our own buffer.
                    unsafe { src.put(i, v) };
                }
                let spec = ScanSpec {
                    kind,
                    op,
                    transform: &crate::Identity,
                    init,
                };
                // SAFETY: two distinct buffers of ours, the input written.
                let total = unsafe { scan_fix_up(exec, "t", &src.as_src(), &dst, &spec) };
                // SAFETY: the scan wrote every element.
                let out: Vec<u64> = (0..n).map(|i| unsafe { dst.as_src().get(i) }).collect();
                let mut run = init.unwrap_or_else(|| op.init());
                for (i, &v) in x.iter().enumerate() {
                    let before = run;
                    op.join(&mut run, &v);
                    let want = if kind == ScanKind::Inclusive {
                        run
                    } else {
                        before
                    };
                    assert_eq!(out[i], want, "{kind:?} {init:?}: element {i}");
                }
                assert_eq!(total, run, "{kind:?} {init:?}: total");
            }
        }
    }

    #[test]
    fn fix_up_matches_the_fold() {
        fix_up_matches_the_fold_on(&Serial);
        #[cfg(feature = "rayon")]
        fix_up_matches_the_fold_on(&granule_rayon::Rayon::new(2).expect("rayon"));
    }
}
