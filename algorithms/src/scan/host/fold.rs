//! Pass 2 of the host scans: a block scanned from its prefix, each output
//! element written once.
//!
//! Floats fold the block's [`LANES`] parts side by side, each from the
//! prefix joined with the aggregates of the parts before it
//! ([`fold_lanes`], [`part_starts`]), so their adds' latency is hidden;
//! other types fold it in one chain ([`scan_from`]). Sums of 4- and
//! 8-byte integers and of `f64` run their chain in vectors
//! ([`sums_into`]). The outputs go straight into the block's output, or
//! through an L1-sized staging chunk that leaves in one copy (streamed
//! past the cache for large outputs), or for vector sums straight from
//! registers ([`stream_sums`]).

use super::{CHUNK, LANES, STAGED};
use crate::host::isa::Isa;
use crate::scan::{f64_sums, simd, ScanKind};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::Reducer;
use granule_views::Element;
use std::any::TypeId;

/// Pass 2: scans `transform(x)` from `acc`, inclusive or exclusive. With
/// `m` the [`part_len`](super::part_len) of `x`, all [`LANES`] parts at
/// once: part `k` starts from `acc ⊕ aggs[0] ⊕ … ⊕ aggs[k - 1]`, so the
/// operator's latency is hidden `LANES` times over; with `m == 0`, in one
/// chain from `acc`. With `DIRECT`, `out` is the block's output (as long
/// as `x`) and `put` is not called; otherwise `out` is a staging
/// buffer of `LANES * STAGED` and `put(at, values)` receives each part's
/// outputs (`at` counted from `x`'s start), [`CHUNK`] at a time. Returns
/// the running value after the last element.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn fold_lanes<U, T, R, F, const INCLUSIVE: bool, const DIRECT: bool>(
    x: &[U],
    m: usize,
    aggs: &[T; LANES],
    acc: T,
    op: &R,
    f: &F,
    out: &mut [T],
    mut put: impl FnMut(usize, &[T]),
) -> T
where
    U: Copy,
    T: Copy,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    let mut run = if m > 0 {
        part_starts(acc, aggs, op)
    } else {
        [acc; LANES]
    };
    let step = |run: &mut T, v: U| {
        if INCLUSIVE {
            op.join(run, &f.call(v));
            *run
        } else {
            let before = *run;
            op.join(run, &f.call(v));
            before
        }
    };
    // Where element k * m + j0 + j of part k goes.
    let slot = |k: usize, j0: usize, j: usize| {
        if DIRECT {
            k * m + j0 + j
        } else {
            k * STAGED + j
        }
    };
    assert!(out.len() >= if DIRECT { x.len() } else { LANES * STAGED });
    assert!(x.len() >= LANES * m);
    let (xp, op_) = (x.as_ptr(), out.as_mut_ptr());
    for j0 in (0..m).step_by(CHUNK) {
        let len = CHUNK.min(m - j0);
        for j in 0..len {
            for (k, r) in run.iter_mut().enumerate() {
                // SAFETY: k < LANES and j0 + j < m, so k * m + j0 + j <
                // LANES * m <= x.len(); the slot is below x.len() (DIRECT)
                // or LANES * STAGED, which `out` holds (both asserted
                // above). Unchecked, so the LANES chains stay in registers.
                unsafe { *op_.add(slot(k, j0, j)) = step(r, *xp.add(k * m + j0 + j)) };
            }
        }
        if !DIRECT {
            for k in 0..LANES {
                put(k * m + j0, &out[k * STAGED..k * STAGED + len]);
            }
        }
    }
    let last = &mut run[LANES - 1];
    for (c, xc) in x[LANES * m..].chunks(CHUNK).enumerate() {
        let at = LANES * m + c * CHUNK;
        let dst = if DIRECT { &mut out[at..] } else { &mut out[..] };
        for (o, &v) in dst.iter_mut().zip(xc) {
            *o = step(last, v);
        }
        if !DIRECT {
            put(at, &out[..xc.len()]);
        }
    }
    *last
}

/// Where each part's chain of pass 2 starts: part `k` from
/// `acc ⊕ aggs[0] ⊕ … ⊕ aggs[k - 1]`.
#[inline(always)]
pub(super) fn part_starts<T: Copy, R: Reducer<T>>(acc: T, aggs: &[T; LANES], op: &R) -> [T; LANES] {
    let mut run = [acc; LANES];
    for k in 1..LANES {
        run[k] = run[k - 1];
        op.join(&mut run[k], &aggs[k - 1]);
    }
    run
}

/// Whether a scan of `T` under `op` takes [`simd::scan_sums`]: only
/// where integer overflow is not checked, so that a debug build panics on
/// overflow as the scalar chain does (the vector adds wrap).
#[inline(always)]
pub(super) fn vector_sums<T: Element, R: Reducer<T>>(op: &R) -> bool {
    !cfg!(debug_assertions) && simd::fits::<T, R>(op)
}

/// [`fold_lanes`] staged (`DIRECT == false`), in one chain from `acc`,
/// with [`simd::scan_sums`]: `stage` holds at least [`CHUNK`], and
/// `put(at, values)` receives each chunk's outputs.
#[inline(always)]
pub(super) fn fold_sums<U, T, F>(
    kind: ScanKind,
    x: &[U],
    mut acc: T,
    f: &F,
    stage: &mut [T],
    mut put: impl FnMut(usize, &[T]),
) -> T
where
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    for (c, xc) in x.chunks(CHUNK).enumerate() {
        let out = &mut stage[..xc.len()];
        acc = sums_into(kind, xc, f, out, acc, false);
        put(c * CHUNK, out);
    }
    acc
}

/// The vector sums of `f(x)` into `out` from `acc`: `f64` ones in
/// [`f64_sums`]'s grouping, integer ones in [`simd`] (streamed with
/// `stream`; the caller fences). Both keep their grouping when a block is
/// cut into [`CHUNK`]s.
#[inline(always)]
pub(super) fn sums_into<U, T, F>(
    kind: ScanKind,
    x: &[U],
    f: &F,
    out: &mut [T],
    acc: T,
    stream: bool,
) -> T
where
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    if TypeId::of::<T>() == TypeId::of::<f64>() {
        f64_sums::scan(Isa::widest(), kind, x, f, out, acc, stream)
    } else if stream {
        simd::scan_sums_streamed(kind, x, f, out, acc)
    } else {
        simd::scan_sums(kind, x, f, out, acc)
    }
}

/// [`fold_sums`] straight into a streamed output, [`CHUNK`] elements at a
/// time (`fetch(len)` after each): the vectors leave through
/// non-temporal stores from registers, not through a staging chunk.
#[inline(always)]
pub(super) fn stream_sums<U, T, F>(
    kind: ScanKind,
    x: &[U],
    mut acc: T,
    f: &F,
    out: &mut [T],
    mut fetch: impl FnMut(usize),
) -> T
where
    U: Copy,
    T: Element,
    F: UnaryFunctor<U, Output = T>,
{
    for (xc, oc) in x.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        acc = sums_into(kind, xc, f, oc, acc, true);
        fetch(xc.len());
    }
    acc
}

/// Scans `transform(x)` into `out` (as long as `x`) in one chain from
/// `acc`; returns the running value after the last element.
#[inline(always)]
pub(super) fn scan_from<U, T, R, F>(
    kind: ScanKind,
    x: &[U],
    op: &R,
    f: &F,
    out: &mut [T],
    acc: T,
) -> T
where
    U: Copy,
    T: Element,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    if vector_sums::<T, R>(op) {
        return simd::scan_sums(kind, x, f, out, acc);
    }
    let none = [(); LANES].map(|_| op.init());
    let put = |_: usize, _: &[T]| {};
    match kind {
        ScanKind::Inclusive => {
            fold_lanes::<_, _, _, _, true, true>(x, 0, &none, acc, op, f, out, put)
        }
        ScanKind::Exclusive => {
            fold_lanes::<_, _, _, _, false, true>(x, 0, &none, acc, op, f, out, put)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::raw::Scratch;
    use crate::host::stream;
    use crate::scan::host::aggregate::aggregate;
    use crate::scan::host::{part_len, SCAN_BLOCK_ELEMS};
    use crate::scan::parts;

    #[test]
    fn the_lane_fold_is_the_defined_grouping() {
        let x: Vec<f64> = (0..3000).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let (op, f) = (granule_core::reducer::Sum, |v: f64| v);
        let aggs = aggregate(&x, &op, &f, false);
        let m = part_len(x.len());
        let mut out = vec![0.0; x.len()];
        fold_lanes::<_, _, _, _, true, true>(&x, m, &aggs, 0.5, &op, &f, &mut out, |_, _| {});
        // The staged form hands out the same values.
        let mut staged = vec![f64::NAN; x.len()];
        let mut stage = vec![0.0; LANES * STAGED];
        let put = |at: usize, v: &[f64]| staged[at..at + v.len()].copy_from_slice(v);
        fold_lanes::<_, _, _, _, true, false>(&x, m, &aggs, 0.5, &op, &f, &mut stage, put);
        let bits = |v: &[f64]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&staged), bits(&out), "staged and direct folds differ");
        // Part k's chain starts from 0.5 and the earlier parts' aggregates.
        let mut start = 0.5;
        for (k, agg) in aggs.iter().enumerate() {
            let hi = if k == LANES - 1 { x.len() } else { (k + 1) * m };
            let mut run = start;
            for i in k * m..hi {
                run += x[i];
                assert_eq!(out[i].to_bits(), run.to_bits(), "element {i}");
            }
            start += agg;
        }
    }

    /// Runs [`parts::fold_parts`] and the tail as the scan does, into a
    /// 64-byte aligned copy of `out`'s room.
    fn vector_parts<U: Copy, T: Element + Float>(
        isa: Isa,
        kind: ScanKind,
        x: &[U],
        f: &impl UnaryFunctor<U, Output = T>,
        acc: T,
        stream: bool,
    ) -> Vec<T> {
        let op = granule_core::reducer::Sum;
        let (aggs, m) = (aggregate(x, &op, f, false), part_len(x.len()));
        let per_line = 64 / std::mem::size_of::<T>();
        let mut room = Scratch::<T>::new("o", x.len() + per_line).unwrap();
        let dst = room.dst();
        let skip = dst.past_line(0).wrapping_neg() & (per_line - 1);
        // SAFETY: our own buffer, in bounds.
        let out = unsafe { dst.slice_mut(skip, skip + x.len()) };
        let mut fetched = 0;
        let chain = (CHUNK, |len: usize| fetched += len);
        let run = parts::fold_parts(
            isa,
            kind,
            x,
            m,
            part_starts(acc, &aggs, &op),
            f,
            out,
            stream,
            chain,
        );
        assert_eq!(fetched, LANES * m, "fetch paced by the parts' writes");
        let (xt, ot) = (&x[LANES * m..], &mut out[LANES * m..]);
        scan_from(kind, xt, &op, f, ot, run[LANES - 1]);
        stream::fence();
        out.to_vec()
    }

    /// The float types whose sums take pass 2 in vectors.
    trait Float:
        Copy + std::ops::AddAssign + granule_core::reducer::ReductionIdentity + 'static
    {
        fn from_f64(v: f64) -> Self;
        fn bits(self) -> u64;
    }

    impl Float for f64 {
        fn from_f64(v: f64) -> Self {
            v
        }
        fn bits(self) -> u64 {
            self.to_bits()
        }
    }

    impl Float for f32 {
        fn from_f64(v: f64) -> Self {
            v as f32
        }
        fn bits(self) -> u64 {
            u64::from(self.to_bits())
        }
    }

    #[test]
    fn vector_parts_give_the_bits_of_the_lane_fold() {
        let op = granule_core::reducer::Sum;
        if let Some(isa) = parts::isa::<f32, _>(&op) {
            parts_match_the_lane_fold::<f32>(isa);
        }
    }

    fn parts_match_the_lane_fold<T: Element + Float>(isa: Isa) {
        let op = granule_core::reducer::Sum;
        let bits = |v: &[T]| v.iter().map(|e| e.bits()).collect::<Vec<_>>();
        let name = std::any::type_name::<T>();
        for len in [
            0,
            7,
            600,
            3000,
            5000,
            SCAN_BLOCK_ELEMS - 3,
            SCAN_BLOCK_ELEMS,
        ] {
            let x: Vec<u16> = (0..len).map(|i| ((i * 7919) % 1013) as u16).collect();
            let f = |v: u16| T::from_f64(f64::from(v) * 0.37 + 1.0 / (1.0 + f64::from(v)));
            let (aggs, m) = (aggregate(&x, &op, &f, true), part_len(len));
            for stream in [false, true] {
                let mut want = vec![T::from_f64(0.0); len];
                let start = T::from_f64(0.5);
                fold_lanes::<_, _, _, _, true, true>(
                    &x,
                    m,
                    &aggs,
                    start,
                    &op,
                    &f,
                    &mut want,
                    |_, _| {},
                );
                let got = vector_parts(isa, ScanKind::Inclusive, &x, &f, start, stream);
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "{name} {isa:?} inclusive, len {len}, stream {stream}"
                );
                let start = T::from_f64(-2.0);
                fold_lanes::<_, _, _, _, false, true>(
                    &x,
                    m,
                    &aggs,
                    start,
                    &op,
                    &f,
                    &mut want,
                    |_, _| {},
                );
                let got = vector_parts(isa, ScanKind::Exclusive, &x, &f, start, stream);
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "{name} {isa:?} exclusive, len {len}, stream {stream}"
                );
            }
        }
    }
}
