//! The scans on the host spaces: one pass over memory, blocks chained by
//! decoupled look-back (granule-core's `exec::lookback`), the same shape as the
//! `parallel_scan` pattern on Rayon.
//!
//! Block `b` (of [`SCAN_BLOCK`] elements, [`LARGE_BLOCK`] for outputs
//! beyond the cache; see [`block_len`]):
//! 1. **aggregate** — reads its input (from memory, the only time) and
//!    reduces `transform(x)` over it: the block is cut into 8 contiguous
//!    parts folded side by side (8 independent chains, so the loop is
//!    bound by memory, not by the operator's latency), then joined left to
//!    right. The order of the elements is kept, so any associative
//!    operator works, commutative or not. Float sums (commutative) fold
//!    each part in 8 columns instead, which vectorize
//!    ([`column_aggregate`]), and so do the integer sums of [`simd`];
//! 2. **look-back** — publishes the aggregate and gets the block's
//!    exclusive prefix `p` (the init value folded with every earlier
//!    aggregate, left to right);
//! 3. **scan** — folds the block again from `p` (it is in cache now) and
//!    writes each output element once. Floats fold the 8 parts side by
//!    side too, part `k` from `p ⊕ a_0 ⊕ … ⊕ a_(k-1)` (the parts'
//!    aggregates), so their adds' latency is hidden, except `f64` sums,
//!    which run one chain in [`f64_sums`]'s grouping (a prefix inside
//!    each vector, the running sum added once per 32 elements); integers
//!    fold the block in one chain. Outputs larger than the last-level
//!    cache leave through non-temporal stores: a plain store reads each
//!    destination line first. Meanwhile the worker's next block (claimed with this
//!    one, or at the look-back of a worker's first block) is prefetched
//!    into L2, as many bytes as are written, so its reads overlap these
//!    writes. On Intel's cores, whose streaming stores and prefetches
//!    wait for the same fill buffers ([`stream::reads_overlap_streams`]),
//!    the block instead runs the next block's pass 1 itself, a piece
//!    after each piece it writes ([`Pass1`], the same folds, so the same
//!    bits), and hands the aggregates on; at 2^27 on a 2-core Xeon VM
//!    (driver, alternating rounds) `i64` went from 66–71 to 59–63 ms and
//!    `f64` from 68–71 to 61–64, about the 2-thread streaming copy.
//!    Where vectors can do it (AVX-512 or AVX2), the stores leave from
//!    registers: `f64` sums ([`f64_sums`]) and integer sums ([`simd`])
//!    scan in vectors, `f32` sums fold their 8 parts as the lanes of one
//!    vector ([`parts`], the same bits), into outputs on a 64-byte
//!    boundary; every other scan stages L1-sized chunks and copies them
//!    out.
//!
//! Element `i` of a block is `((s ⊕ x[j]) ⊕ …) ⊕ x[i]`, where `j` starts
//! its chain (the block's start, or its part's for `f32`) and `s` is the
//! chain's start above, or for `f64` sums [`f64_sums`]'s grouping from
//! the block's start: a grouping that depends on the length only, so
//! the bits are the same on Serial and on Rayon with any number of
//! threads, and on every CPU (the column sums are plain code, vectorized
//! or not, and `f64_sums` keeps its grouping in every form). The
//! transform is called twice per element (once per pass), so it must be
//! a pure function.
//!
//! **Outputs that stay in cache, of types other than `f32` and `f64`,
//! except vector sums with several workers** ([`scan_fix_up`]) take the
//! other order: each block scans its input from the identity straight
//! into its output, publishes that total, and
//! joins its prefix onto the output while it is still in L2
//! (`out[i] = p ⊕ local(i)`). The input is read once instead of twice
//! (24 bytes of L3 traffic per i64 element instead of 32): 6–30% faster
//! at 2^20 in a standalone driver's A/B runs, while the criterion bench
//! was too noisy to tell (faster in 4 of 7 pairs). Integers give the same
//! values in either grouping (a user type holding floats may round
//! differently, but its grouping too depends on the length only). With
//! an exact operator ([`Reducer::is_exact`]: integers), a block whose
//! prefix is already known when it starts (every block on Serial, block 0
//! always) scans from that prefix in one pass and skips the fix-up: at
//! 2^20 i64 (driver A/B, four rounds) 1.35–1.50× the sequential loop on
//! two threads against 0.93–1.31×, and on Serial 1.13–1.18× against
//! 0.87–0.94×. `f32` and `f64` keep the order above:
//! their pass 2 runs in 8 chains, where the local scan has one. So do
//! integer sums in vectors ([`simd`]) on several workers: their pass 2 is
//! cheap, and writing each output line twice cost more than reading the
//! input twice (2^20 i64, 2 threads, Xeon VM: criterion A/B, two rounds,
//! 0.363 and 0.367 ms against 0.395 and 0.414, the sequential loop 0.57;
//! on one worker the one-pass blocks stay ahead, 0.55 against 0.57 ms in
//! a driver). Beyond the cache the fix-up touches every output line
//! twice: at 2^27 i64 it ran
//! at 0.53 of the streaming-copy bound against 0.75 for the order above
//! (see the README's performance notes).
//!
//! Sums of 4- and 8-byte integers run their single chain in AVX-512 or
//! AVX2 vectors where the CPU has them and overflow is not checked
//! ([`simd`]); `f64` sums run pass 2 in [`f64_sums`] (vectors, or the
//! same adds one at a time); out of place, `f32` sums run pass 2's 8
//! chains in one AVX2 vector ([`parts`]); every other scan folds element
//! by element as above.

use super::{f64_sums, parts, simd, ScanImpl, ScanKind, ScanSpec};
use crate::host::buffer::with_buffer;
use crate::host::isa::Isa;
use crate::host::raw::{Dst, Src};
use crate::host::{chain, stream, HostExec, STREAM_BYTES};
use crate::io::{Input, Output};
use granule_core::exec::lookback::Block;
use granule_core::exec::{block_bounds, block_count};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::{KnownOp, Reducer};
use granule_core::Serial;
use granule_views::{Element, HostSpace};
use std::any::TypeId;

/// Elements per scan block: its input (256 KiB of 8-byte elements) stays
/// in L2 between the two passes. With [`LARGE_BLOCK`], it fixes the
/// grouping of float scans ([`block_len`]).
pub(crate) const SCAN_BLOCK: usize = 32 * 1024;

/// Elements per block of a scan whose output would be streamed (more
/// than [`STREAM_BYTES`]): 512 KiB of 8-byte elements, so a worker's
/// block and the next one it reads stay in L2 together. Two cores
/// streaming through the blocks they take in turn lose bandwidth when the
/// blocks are small: on a 2-core Xeon VM (driver, huge pages) the 2-thread
/// streaming copy, each thread copying every other block instead of one
/// half, ran at 0.92 of the halves' speed with blocks of 256 KiB and
/// 0.96–1.0 with 512 KiB. `exclusive_scan` at 2^27 (three sets of three
/// alternating rounds) ran at 0.92–0.97 of the bound with 64 Ki elements
/// against 0.90–0.95 with [`SCAN_BLOCK`] for `i64`, 0.87–0.95 against
/// 0.86–0.91 for `f64`; 48 Ki as 64 Ki, 96 Ki at 0.84–0.90, and 128 Ki
/// (1 MiB, past L2) at 0.79–0.82.
const LARGE_BLOCK: usize = 64 * 1024;

/// The block length of a scan of `n` elements of `T`: [`LARGE_BLOCK`]
/// where an output would be streamed, [`SCAN_BLOCK`] otherwise. A
/// function of the length only (not of the path a call takes: in place,
/// strided, out of place), so float scans keep one grouping per length.
fn block_len<T>(n: usize) -> usize {
    if n.saturating_mul(std::mem::size_of::<T>()) > STREAM_BYTES {
        LARGE_BLOCK
    } else {
        SCAN_BLOCK
    }
}

/// Elements of each part staged in L1 before they leave (`LANES` parts at
/// once: 16 KiB of 8-byte elements).
const CHUNK: usize = 256;

// Pieces and blocks of `f64` sums start at multiples of a group, so the
// grouping depends on the length only.
const _: () = assert!(
    CHUNK.is_multiple_of(f64_sums::GROUP)
        && SCAN_BLOCK.is_multiple_of(f64_sums::GROUP)
        && LARGE_BLOCK.is_multiple_of(f64_sums::GROUP)
);

/// Elements of each part [`parts::fold_parts`] writes between two
/// prefetches of the next block (16 lines of it, one per 8 elements
/// written): at 2^27 `f64` (which took the parts then) the scan ran at
/// 0.82–0.91 of the streaming copy with this pace, 0.81–0.84 with 32 and
/// 0.73–0.77 with [`CHUNK`] (bursts of 256 lines), in a driver's
/// interleaved rounds.
const PART_FETCH: usize = 16;

/// The stride of the parts in the staging buffer: a chunk and 8 more
/// elements, so the parts' staged chunks do not share L1 sets.
const STAGED: usize = CHUNK + 8;

/// Independent chains of both passes.
pub(super) const LANES: usize = 8;

/// The length of each of the first `LANES - 1` parts of a block of
/// `len` elements (the last part takes the rest): a multiple of 64
/// elements, so every part's output starts on a cache line boundary
/// relative to the block, and streamed parts never share a line; and an
/// odd number of 64-element units, so that the parts' starts spread over
/// the L1 sets: parts a power of two of 4 KiB apart would put all
/// `2 * LANES` streams (reads and writes) on one set and thrash it.
#[inline(always)]
fn part_len(len: usize) -> usize {
    let units = len / LANES / 64;
    (if units.is_multiple_of(2) {
        units.saturating_sub(1)
    } else {
        units
    }) * 64
}

/// Pass 1: the join of `transform(x)` over each of the [`LANES`] parts of
/// `x` (see [`part_len`]), folded side by side: independent chains, so
/// the loop is bound by memory, not by the operator's latency.
#[inline(always)]
fn aggregate<U, T, R, F>(x: &[U], op: &R, f: &F, ahead: bool) -> [T; LANES]
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
struct Aggregate<'x, U, T> {
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

/// [`aggregate`] for sums (float ones, and the integer ones of [`simd`]),
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
struct Columns<'x, U, T> {
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
        // (one part at a time ran at a vector add's latency per row).
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
fn column_aggregate<U, T, R, F>(x: &[U], op: &R, f: &F, ahead: bool) -> [T; LANES]
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
enum Pass1<'x, U, T> {
    Parts(Aggregate<'x, U, T>),
    Columns(Columns<'x, U, T>),
}

impl<'x, U: Copy, T: Copy> Pass1<'x, U, T> {
    fn new<R: Reducer<T>>(x: &'x [U], columns: bool, op: &R) -> Self {
        if columns {
            Pass1::Columns(Columns::new(x, op))
        } else {
            Pass1::Parts(Aggregate::new(x, op))
        }
    }

    /// Runs as much of the pass as `done / of` of the block before has
    /// been written. The column sums ask for each line a little ahead;
    /// the 8 parts' folds do not: their loads already overlap the stores
    /// between them, and here the prefetches cost more than they gained
    /// (criterion, `exclusive_scan` i64 at 2^27, six alternating
    /// pairs: 59.4–63.9 ms without against 62.8–68.3 with). For `f64`
    /// the driver could not tell the two apart.
    #[inline(always)]
    fn pace<R, F>(&mut self, done: usize, of: usize, op: &R, f: &F)
    where
        R: Reducer<T>,
        F: UnaryFunctor<U, Output = T>,
    {
        match self {
            Pass1::Parts(a) => a.run_to(a.m * done / of.max(1), op, f, false),
            Pass1::Columns(c) => c.run_to(c.m * done / of.max(1), op, f, true),
        }
    }

    fn finish<R, F>(self, op: &R, f: &F) -> [T; LANES]
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

/// The left fold of `parts` onto `acc`.
#[inline(always)]
fn join_all<T: Copy, R: Reducer<T>>(op: &R, mut acc: T, parts: &[T]) -> T {
    for a in parts {
        op.join(&mut acc, a);
    }
    acc
}

/// Pass 2: scans `transform(x)` from `acc`, inclusive or exclusive. With
/// `m` the [`part_len`] of `x`, all [`LANES`] parts at once: part `k`
/// starts from `acc ⊕ aggs[0] ⊕ … ⊕ aggs[k - 1]`, so the operator's
/// latency is hidden `LANES` times over; with `m == 0`, in one chain from
/// `acc`. With `DIRECT`, `out` is the block's output (as
/// long as `x`) and `put` is not called; otherwise `out` is a staging
/// buffer of `LANES * STAGED` and `put(at, values)` receives each part's
/// outputs (`at` counted from `x`'s start), [`CHUNK`] at a time. Returns
/// the running value after the last element.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fold_lanes<U, T, R, F, const INCLUSIVE: bool, const DIRECT: bool>(
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
fn part_starts<T: Copy, R: Reducer<T>>(acc: T, aggs: &[T; LANES], op: &R) -> [T; LANES] {
    let mut run = [acc; LANES];
    for k in 1..LANES {
        run[k] = run[k - 1];
        op.join(&mut run[k], &aggs[k - 1]);
    }
    run
}

/// Scans `src` into `dst[0..src.len]` (`in_place`: they are the same
/// elements) on `exec`, and returns the total as the scan's own chain
/// ends it: the last output of an inclusive scan, and the last output of
/// an exclusive one joined with the last (transformed) input, bit for
/// bit (the chain's regrouped prefixes may differ in a float's last bit).
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
    U: Element,
    T: Element,
    R: Reducer<T>,
    F: UnaryFunctor<U, Output = T>,
{
    let n = src.len;
    let Some(last) = n.checked_sub(1) else {
        return spec.init.unwrap_or_else(|| spec.op.init());
    };
    // In place the last input is overwritten: read it first.
    // SAFETY: nothing writes `src` yet.
    let last_in =
        (spec.kind == ScanKind::Exclusive).then(|| spec.transform.call(unsafe { src.get(last) }));
    // SAFETY: forwarded contract.
    unsafe { scan_blocks(exec, label, src, dst, in_place, spec) };
    // SAFETY: every block has written its outputs and returned.
    let last_out = unsafe { dst.as_src().get(last) };
    match last_in {
        Some(x) => join_all(spec.op, last_out, &[x]),
        None => last_out,
    }
}

/// The block-chained scan behind [`scan`]; returns the chain's total.
///
/// # Safety
/// As for [`scan`].
unsafe fn scan_blocks<E, U, T, R, F>(
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
    // the pass-2 fold in LANES chains (measured 1.5-1.7x faster on f64);
    // an integer join takes one cycle, and its single chain beats the
    // LANES streams (the lane fold ran 1.2-1.9x slower on i64).
    let lanes = [TypeId::of::<f32>(), TypeId::of::<f64>()].contains(&TypeId::of::<T>());
    // `f64` sums: pass 2 in vectors, in one grouping on every CPU (see
    // `f64_sums`), not in parts.
    let f64s = f64_sums::fits::<T, R>(op);
    // Sums of 4- and 8-byte integers: one chain, in vectors (see `simd`);
    // `f64` sums take the same paths.
    let sums = (!lanes && vector_sums::<T, R>(op)) || f64s;
    // Float sums take pass 1 in columns (`aggregate_sums`): at 2^27 f64,
    // 61-73 ms against 74-100 ms in a driver's four alternating rounds.
    // So do the integer vector sums, whose wrapping adds give the same
    // total in any grouping: at 2^27 i64, 48.6-49.6 ms against 51.5-52.3
    // (driver, five alternating rounds; criterion A/B 50.2 and 51.6
    // against 51.7 and 51.8).
    let column_sums = (lanes || sums) && op.known_op() == Some(KnownOp::Sum);
    // f32 sums out of place take pass 2 in vectors (see `parts`), and f64
    // sums stream from registers (see below), into an output on a 64-byte
    // line: blocks start a block length apart, a multiple of 64 bytes,
    // so block 0's alignment is every block's.
    let aligned = !in_place && dst.contiguous() && dst.past_line(0) == 0;
    let wide = parts::isa::<T, R>(op).filter(|_| aligned && !f64s);
    // Vector sums with several workers keep the order above: their pass
    // 2 is cheap, and the fix-up's second write of each output line cost
    // more than pass 1's second read (2^20 i64, 2 threads, Xeon VM, driver
    // rounds: 0.33-0.35 ms against 0.38-0.41). One worker knows every
    // block's prefix and scans it in one pass there.
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

/// The scan in one read for outputs that stay in cache (out of place,
/// contiguous, below [`STREAM_BYTES`]) of types other than `f32` and
/// `f64`: each block scans its input from the identity straight into its
/// output, publishes its total, and joins its prefix onto its output,
/// which is still in L2.
/// The input is read once instead of twice (the fix-up pass reads the
/// output from L2).
///
/// # Safety
/// As for [`scan`], out of place, `src` and `dst` contiguous.
unsafe fn scan_fix_up<E, U, T, R, F>(
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

/// Whether a scan of `T` under `op` takes [`simd::scan_sums`]: only
/// where integer overflow is not checked, so that a debug build panics on
/// overflow as the scalar chain does (the vector adds wrap).
#[inline(always)]
fn vector_sums<T: Element, R: Reducer<T>>(op: &R) -> bool {
    !cfg!(debug_assertions) && simd::fits::<T, R>(op)
}

/// [`fold_lanes`] staged (`DIRECT == false`), in one chain from `acc`,
/// with [`simd::scan_sums`]: `stage` holds at least [`CHUNK`], and
/// `put(at, values)` receives each chunk's outputs.
#[inline(always)]
fn fold_sums<U, T, F>(
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
fn sums_into<U, T, F>(kind: ScanKind, x: &[U], f: &F, out: &mut [T], acc: T, stream: bool) -> T
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
fn stream_sums<U, T, F>(
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
fn scan_from<U, T, R, F>(kind: ScanKind, x: &[U], op: &R, f: &F, out: &mut [T], acc: T) -> T
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

macro_rules! host_scans {
    ($space:ty) => {
        impl<U, T, R, F> ScanImpl<U, T, R, F> for $space
        where
            U: Element,
            T: Element,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::raw::Scratch;

    #[test]
    fn parts_are_odd_line_multiples_inside_the_block() {
        let blocks = [SCAN_BLOCK - 3, SCAN_BLOCK, LARGE_BLOCK - 3, LARGE_BLOCK];
        for len in (0..5000).chain(blocks) {
            let m = part_len(len);
            assert!(LANES * m <= len, "len {len}: parts of {m} overrun");
            assert!(
                m == 0 || (m.is_multiple_of(64) && !(m / 64).is_multiple_of(2)),
                "len {len}: part {m}"
            );
            assert!(len < LANES * 192 || m > 0, "len {len}: no parts");
        }
    }

    /// Blocks are long only where an output of that length and type
    /// would be streamed, whatever the call.
    #[test]
    fn blocks_are_long_only_past_the_streaming_size() {
        assert_eq!(block_len::<f64>(STREAM_BYTES / 8), SCAN_BLOCK);
        assert_eq!(block_len::<f64>(STREAM_BYTES / 8 + 1), LARGE_BLOCK);
        assert_eq!(block_len::<f32>(STREAM_BYTES / 8 + 1), SCAN_BLOCK);
        assert_eq!(block_len::<u8>(STREAM_BYTES + 1), LARGE_BLOCK);
        assert_eq!(block_len::<u64>(usize::MAX), LARGE_BLOCK);
        assert_eq!(block_len::<u64>(0), SCAN_BLOCK);
    }

    #[test]
    fn a_pass_1_run_in_pieces_gives_the_whole_ones_bits() {
        let (op, f) = (granule_core::reducer::Sum, |v: f64| v);
        for len in [0, 7, 3000, SCAN_BLOCK - 3, SCAN_BLOCK] {
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
        for len in [0, 7, 600, 3000, 5000, SCAN_BLOCK - 3, SCAN_BLOCK] {
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

    #[test]
    fn float_sums_take_pass_1_in_the_defined_columns() {
        let op = granule_core::reducer::Sum;
        for len in [0, 5, 1000, 3000, 5000, SCAN_BLOCK - 3, SCAN_BLOCK] {
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
        let n = 3 * SCAN_BLOCK + 5;
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
