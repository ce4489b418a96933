//! Pass 1 of the host scans: a block's aggregates, one per part of the
//! [`LANES`] parts it is cut into ([`part_len`]), which give each part
//! its start in pass 2 and the block its total for the look-back.
//!
//! The parts are folded side by side, in order ([`aggregate`]): any
//! associative operator works, and the independent chains make the loop
//! bound by memory rather than by the operator's latency. Sums, whose
//! operator commutes, fold each part in [`COLUMNS`] columns joined in a
//! fixed tree instead ([`column_aggregate`]): plain code that vectorizes,
//! compiled for AVX-512 or AVX2 where the CPU has them, with the same
//! bits either way. Both run a piece at a time too ([`Pass1`]), so that a
//! streamed block can run its worker's next block's pass 1 between its
//! own writes, with the bits of the whole.

use super::{join_all, part_len, LANES};
use crate::host::isa::Isa;
use crate::host::stream;
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::Reducer;

/// Pass 1: the join of `transform(x)` over each of the [`LANES`] parts of
/// `x` (see [`part_len`]), folded side by side: independent chains, so
/// the loop is bound by memory, not by the operator's latency.
#[inline(always)]
pub(super) fn aggregate<U, T, R, F>(x: &[U], op: &R, f: &F, ahead: bool) -> [T; LANES]
where
    U: Copy,
    T: Copy,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    Aggregate::new(x, op).finish(op, f, ahead)
}

/// [`aggregate`] run a piece at a time: the same folds, each part's in
/// order, so the same result however the pieces are cut. A streamed block
/// runs its worker's next block's pass 1 this way between its own writes.
pub(super) struct Aggregate<'x, U, T> {
    x: &'x [U],
    /// The length of each part ([`part_len`]).
    m: usize,
    /// Elements of each part folded so far.
    j: usize,
    acc: [T; LANES],
}

impl<'x, U: Copy, T: Copy> Aggregate<'x, U, T> {
    fn new<R: Reducer<T>>(x: &'x [U], op: &R) -> Self {
        Aggregate {
            x,
            m: part_len(x.len()),
            j: 0,
            acc: [(); LANES].map(|_| op.init()),
        }
    }

    /// Folds the parts up to element `to` of each (or the parts' end).
    #[inline(always)]
    fn run_to<R, F>(&mut self, to: usize, op: &R, f: &F, ahead: bool)
    where
        R: Reducer<T>,
        F: UnaryFunctor<U, Output = T>,
    {
        let (x, m, to) = (self.x, self.m, to.min(self.m));
        let mut acc = self.acc;
        for j in self.j..to {
            fetch_parts(x, m, j, ahead);
            for (k, a) in acc.iter_mut().enumerate() {
                op.join(a, &f.call(x[k * m + j]));
            }
        }
        self.acc = acc;
        self.j = self.j.max(to);
    }

    /// Folds what is left (the last part takes the block's tail) and
    /// returns the parts' aggregates.
    #[inline(always)]
    fn finish<R, F>(mut self, op: &R, f: &F, ahead: bool) -> [T; LANES]
    where
        R: Reducer<T>,
        F: UnaryFunctor<U, Output = T>,
    {
        self.run_to(self.m, op, f, ahead);
        for &v in &self.x[LANES * self.m..] {
            op.join(&mut self.acc[LANES - 1], &f.call(v));
        }
        self.acc
    }
}

/// At each line of the parts (`j` counts the elements of each part of
/// `m`), asks for the line [`stream::AHEAD`] bytes further on in every
/// part, when `ahead`.
#[inline(always)]
fn fetch_parts<U>(x: &[U], m: usize, j: usize, ahead: bool) {
    if ahead && (j * std::mem::size_of::<U>()).is_multiple_of(64) {
        for k in 0..LANES {
            stream::fetch_ahead(x, k * m + j, 1);
        }
    }
}

/// Columns of the sums' pass 1 ([`Columns`]): one 512-bit vector
/// of `f64`.
const COLUMNS: usize = 8;

/// [`aggregate`] for sums (float ones, and the integer ones of
/// [`simd`](crate::scan::simd)),
/// vectorized: each part is summed in [`COLUMNS`] columns (column `c`
/// takes the part's elements `c`, `c + 8`, `c + 16`, … in order), and the
/// columns are joined in a fixed tree,
/// `((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7))`. The grouping is
/// written out in plain code, so the bits are the same whether the
/// compiler vectorizes it or not; it reorders the elements, which only a
/// commutative operator allows. This is the plain build, which the
/// tests compare with the vector builds of [`column_aggregate`]; the
/// scans run it through [`Columns`].
#[cfg(test)]
fn aggregate_sums<U, T, R, F>(x: &[U], op: &R, f: &F, ahead: bool) -> [T; LANES]
where
    U: Copy,
    T: Copy,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    let mut sums = Columns::new(x, op);
    sums.fold_to(sums.m, op, f, ahead);
    sums.finish(op, f)
}

/// `aggregate_sums` run a piece at a time, as [`Aggregate`] is: pieces
/// end on a row of [`COLUMNS`], so each column takes the same elements in
/// the same order and the bits are the same however they are cut.
pub(super) struct Columns<'x, U, T> {
    x: &'x [U],
    /// The length of each part ([`part_len`]), a multiple of `COLUMNS`.
    m: usize,
    /// Elements of each part folded so far.
    j: usize,
    cols: [[T; COLUMNS]; LANES],
}

impl<'x, U: Copy, T: Copy> Columns<'x, U, T> {
    fn new<R: Reducer<T>>(x: &'x [U], op: &R) -> Self {
        Columns {
            x,
            m: part_len(x.len()),
            j: 0,
            cols: [(); LANES].map(|_| [(); COLUMNS].map(|_| op.init())),
        }
    }

    /// Folds the parts' rows up to element `to` of each (rounded down to
    /// a row; or the parts' end).
    #[inline(always)]
    fn fold_to<R, F>(&mut self, to: usize, op: &R, f: &F, ahead: bool)
    where
        R: Reducer<T>,
        F: UnaryFunctor<U, Output = T>,
    {
        let (x, m) = (self.x, self.m);
        let to = to.min(m) / COLUMNS * COLUMNS;
        let mut cols = self.cols;
        // The parts' rows side by side: each part's columns are one chain
        // of vector adds, so 8 independent chains hide the adds' latency
        // (one part at a time would wait a vector add's latency per row).
        for j in (self.j..to).step_by(COLUMNS) {
            fetch_parts(x, m, j, ahead);
            for (k, col) in cols.iter_mut().enumerate() {
                for (c, v) in col.iter_mut().zip(&x[k * m + j..][..COLUMNS]) {
                    op.join(c, &f.call(*v));
                }
            }
        }
        self.cols = cols;
        self.j = self.j.max(to);
    }

    /// [`fold_to`](Self::fold_to), compiled for AVX-512 or AVX2 where the
    /// CPU has it (the same code, so the same bits, with the 8 columns in
    /// one or two vectors).
    fn run_to<R, F>(&mut self, to: usize, op: &R, f: &F, ahead: bool)
    where
        R: Reducer<T>,
        F: UnaryFunctor<U, Output = T>,
    {
        /// `fold_to` compiled for `$feature`; calling it needs the CPU to
        /// have it.
        #[cfg(target_arch = "x86_64")]
        macro_rules! compiled_for {
            ($feature:literal) => {{
                /// # Safety
                /// The CPU has the feature.
                #[target_feature(enable = $feature)]
                unsafe fn wide<U, T, R, F>(
                    sums: &mut Columns<'_, U, T>,
                    to: usize,
                    op: &R,
                    f: &F,
                    ahead: bool,
                ) where
                    U: Copy,
                    T: Copy,
                    R: Reducer<T>,
                    F: UnaryFunctor<U, Output = T>,
                {
                    sums.fold_to(to, op, f, ahead)
                }
                wide
            }};
        }
        #[cfg(target_arch = "x86_64")]
        match Isa::widest() {
            Some(Isa::Avx512) => {
                // SAFETY: the CPU has AVX-512F (`widest` detected it).
                return unsafe { compiled_for!("avx512f")(self, to, op, f, ahead) };
            }
            // SAFETY: the CPU has AVX2 (as above).
            Some(Isa::Avx2) => return unsafe { compiled_for!("avx2")(self, to, op, f, ahead) },
            None => {}
        }
        self.fold_to(to, op, f, ahead)
    }

    /// Folds the rows left, then the block's tail into the last part
    /// (`m` is a multiple of `COLUMNS`, so its columns carry on where they
    /// were), and joins each part's columns in the fixed tree.
    #[inline(always)]
    fn finish<R, F>(mut self, op: &R, f: &F) -> [T; LANES]
    where
        R: Reducer<T>,
        F: UnaryFunctor<U, Output = T>,
    {
        self.fold_to(self.m, op, f, false);
        let col = &mut self.cols[LANES - 1];
        let mut rows = self.x[LANES * self.m..].chunks_exact(COLUMNS);
        for row in &mut rows {
            for (c, v) in col.iter_mut().zip(row) {
                op.join(c, &f.call(*v));
            }
        }
        for (c, v) in col.iter_mut().zip(rows.remainder()) {
            op.join(c, &f.call(*v));
        }
        self.cols.map(|[c0, c1, c2, c3, c4, c5, c6, c7]| {
            let pair = |a: T, b: T| join_all(op, a, &[b]);
            let low = pair(pair(c0, c1), pair(c2, c3));
            pair(low, pair(pair(c4, c5), pair(c6, c7)))
        })
    }
}

/// `aggregate_sums` with its rows compiled for AVX-512 or AVX2 where
/// the CPU has them ([`Columns::run_to`]).
#[inline(always)]
pub(super) fn column_aggregate<U, T, R, F>(x: &[U], op: &R, f: &F, ahead: bool) -> [T; LANES]
where
    U: Copy,
    T: Copy,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    let mut sums = Columns::new(x, op);
    sums.run_to(sums.m, op, f, ahead);
    sums.finish(op, f)
}

/// A block's pass 1 run a piece at a time ([`Aggregate`], or
/// [`Columns`] for sums), paced by the writes of the block before.
pub(super) enum Pass1<'x, U, T> {
    Parts(Aggregate<'x, U, T>),
    Columns(Columns<'x, U, T>),
}

impl<'x, U: Copy, T: Copy> Pass1<'x, U, T> {
    pub(super) fn new<R: Reducer<T>>(x: &'x [U], columns: bool, op: &R) -> Self {
        if columns {
            Pass1::Columns(Columns::new(x, op))
        } else {
            Pass1::Parts(Aggregate::new(x, op))
        }
    }

    /// Runs as much of the pass as `done / of` of the block before has
    /// been written. The column sums ask for each line a little ahead;
    /// the 8 parts' folds do not: their loads already overlap the stores
    /// between them, so prefetches would only add their own cost.
    #[inline(always)]
    pub(super) fn pace<R, F>(&mut self, done: usize, of: usize, op: &R, f: &F)
    where
        R: Reducer<T>,
        F: UnaryFunctor<U, Output = T>,
    {
        match self {
            Pass1::Parts(a) => a.run_to(a.m * done / of.max(1), op, f, false),
            Pass1::Columns(c) => c.run_to(c.m * done / of.max(1), op, f, true),
        }
    }

    pub(super) fn finish<R, F>(self, op: &R, f: &F) -> [T; LANES]
    where
        R: Reducer<T>,
        F: UnaryFunctor<U, Output = T>,
    {
        match self {
            Pass1::Parts(a) => a.finish(op, f, true),
            Pass1::Columns(mut c) => {
                c.run_to(c.m, op, f, true);
                c.finish(op, f)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::host::SCAN_BLOCK_ELEMS;

    #[test]
    fn a_pass_1_run_in_pieces_gives_the_whole_ones_bits() {
        let (op, f) = (granule_core::reducer::Sum, |v: f64| v);
        for len in [0, 7, 3000, SCAN_BLOCK_ELEMS - 3, SCAN_BLOCK_ELEMS] {
            let x: Vec<f64> = (0..len).map(|i| 1.0 / (1.0 + i as f64)).collect();
            let whole = aggregate(&x, &op, &f, false);
            for step in [1, 5, 31, 64, 1000] {
                let mut pieces = Aggregate::new(&x, &op);
                let mut to = 0;
                while to < pieces.m {
                    to += step;
                    // Cuts past the parts' end and repeated cuts fold nothing twice.
                    pieces.run_to(to + 3, &op, &f, true);
                    pieces.run_to(to, &op, &f, false);
                }
                let bits = |a: [f64; LANES]| a.map(f64::to_bits);
                assert_eq!(
                    bits(pieces.finish(&op, &f, false)),
                    bits(whole),
                    "len {len}, step {step}"
                );
                // The column sums too, cut anywhere (mid-row included).
                let mut cols = Pass1::new(&x, true, &op);
                for done in (0..=len).step_by(step * 7 + 1) {
                    cols.pace(done, len, &op, &f);
                }
                assert_eq!(
                    bits(cols.finish(&op, &f)),
                    bits(column_aggregate(&x, &op, &f, false)),
                    "columns, len {len}, step {step}"
                );
            }
        }
    }

    #[test]
    fn float_sums_take_pass_1_in_the_defined_columns() {
        let op = granule_core::reducer::Sum;
        for len in [
            0,
            5,
            1000,
            3000,
            5000,
            SCAN_BLOCK_ELEMS - 3,
            SCAN_BLOCK_ELEMS,
        ] {
            let x: Vec<f64> = (0..len)
                .map(|i| ((i * 7919) % 1009) as f64 * 1e-3 + 1.0 / (1.0 + i as f64))
                .collect();
            let got = aggregate_sums(&x, &op, &|v: f64| v, false);
            // The form compiled for the widest vectors gives the same bits.
            let wide = column_aggregate(&x, &op, &|v: f64| v, true);
            assert_eq!(got.map(f64::to_bits), wide.map(f64::to_bits), "len {len}");
            let m = part_len(len);
            for (k, agg) in got.iter().enumerate() {
                let hi = if k == LANES - 1 { len } else { (k + 1) * m };
                let mut cols = [0.0f64; COLUMNS];
                for (t, &v) in x[k * m..hi].iter().enumerate() {
                    cols[t % COLUMNS] += v;
                }
                let c = cols;
                let want = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
                assert_eq!(agg.to_bits(), want.to_bits(), "len {len}, part {k}");
            }
            // f32 through a transform, as the scan calls it.
            let y: Vec<u16> = (0..len).map(|i| (i % 1013) as u16).collect();
            let g = |v: u16| f32::from(v) * 0.37;
            let (narrow, wide) = (
                aggregate_sums(&y, &op, &g, false),
                column_aggregate(&y, &op, &g, true),
            );
            assert_eq!(
                narrow.map(f32::to_bits),
                wide.map(f32::to_bits),
                "f32 len {len}"
            );
        }
    }
}
