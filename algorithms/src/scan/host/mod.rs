//! The scans on the host spaces: one pass over memory, blocks chained by
//! decoupled look-back (granule-core's `exec::lookback`), the same shape
//! as the `parallel_scan` pattern on Rayon.
//!
//! Block `b` (of [`SCAN_BLOCK_ELEMS`] elements, [`LARGE_BLOCK_ELEMS`] for outputs
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
//!    destination line first. Meanwhile the worker's next block (claimed
//!    with this one, or at the look-back of a worker's first block) is
//!    prefetched into L2, as many bytes as are written, so its reads
//!    overlap these writes. On Intel's cores, whose streaming stores and
//!    prefetches wait for the same fill buffers
//!    ([`stream::reads_overlap_streams`]), the block instead runs the next
//!    block's pass 1 itself, a piece after each piece it writes
//!    ([`Pass1`], the same folds, so the same bits), and hands the
//!    aggregates on, so that a core reads while it writes, as a copy
//!    does. Where vectors can do it (AVX-512 or AVX2), the stores leave
//!    from registers: `f64` sums ([`f64_sums`]) and integer sums
//!    ([`simd`]) scan in vectors, `f32` sums fold their 8 parts as the
//!    lanes of one vector ([`parts`], the same bits), into outputs on a
//!    64-byte boundary; every other scan stages L1-sized chunks and
//!    copies them out.
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
//! into its output, publishes that total, and joins its prefix onto the
//! output while it is still in L2 (`out[i] = p ⊕ local(i)`). The input is
//! read once instead of twice (24 bytes of L3 traffic per i64 element
//! instead of 32). Integers give the same values in either grouping (a
//! user type holding floats may round differently, but its grouping too
//! depends on the length only). With an exact operator
//! ([`Reducer::is_exact`]: integers), a block whose prefix is already
//! known when it starts (every block on Serial, block 0 always) scans
//! from that prefix in one pass and skips the fix-up: one read and one
//! write of each element. `f32` and `f64` keep the order above: their
//! pass 2 runs in 8 chains, where the local scan has one. So do integer
//! sums in vectors ([`simd`]) on several workers: their pass 2 is cheap,
//! and writing each output line twice costs more than reading the input
//! twice (on one worker every block knows its prefix, and takes one
//! pass). Beyond the cache the fix-up would write every output line to
//! memory twice, so streamed outputs keep the order above.
//!
//! Sums of 4- and 8-byte integers run their single chain in AVX-512 or
//! AVX2 vectors where the CPU has them and overflow is not checked
//! ([`simd`]); `f64` sums run pass 2 in [`f64_sums`] (vectors, or the
//! same adds one at a time); out of place, `f32` sums run pass 2's 8
//! chains in one AVX2 vector ([`parts`]); every other scan folds element
//! by element as above.
//!
//! One mechanism per file:
//! - [`aggregate`]: pass 1, the parts' aggregates (in order, or in
//!   columns for sums), whole or a piece at a time;
//! - [`fold`]: pass 2, the scan of a block from its prefix (in parts,
//!   in one chain, or in vectors), direct or staged;
//! - [`blocks`]: the block chain of the two passes, with the streamed
//!   blocks' prefetch or fused pass 1;
//! - [`fix_up`]: the other order, for outputs that stay in cache.
//!
//! Here: the entry points ([`ScanImpl`] for Serial and Rayon), the
//! blocks' geometry and the scan's total.
//!
//! [`column_aggregate`]: aggregate::column_aggregate
//! [`Pass1`]: aggregate::Pass1
//! [`scan_fix_up`]: fix_up::scan_fix_up
//! [`simd`]: super::simd
//! [`parts`]: super::parts
//! [`stream::reads_overlap_streams`]: crate::host::stream::reads_overlap_streams

mod aggregate;
mod blocks;
mod fix_up;
mod fold;

use super::{f64_sums, ScanImpl, ScanKind, ScanSpec};
use crate::host::raw::{Dst, Src};
use crate::host::{HostExec, STREAM_BYTES};
use crate::io::{Input, Output};
use blocks::scan_blocks;
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::Reducer;
use granule_core::Serial;
use granule_views::{Element, HostSpace};

/// Elements per scan block: its input (256 KiB of 8-byte elements) stays
/// in L2 between the two passes. With [`LARGE_BLOCK_ELEMS`], it fixes the
/// grouping of float scans ([`block_len`]).
pub(crate) const SCAN_BLOCK_ELEMS: usize = 32 * 1024;

/// Elements per block of a scan whose output would be streamed (more
/// than [`STREAM_BYTES`]): 512 KiB of 8-byte elements, so a worker's
/// block and the next one it reads stay in L2 together. Two cores
/// streaming through the blocks they take in turn lose bandwidth when the
/// blocks are small, as they do in a copy that takes every other block;
/// and a block past L2 (1 MiB of 8-byte elements) would read its input
/// from memory twice.
const LARGE_BLOCK_ELEMS: usize = 64 * 1024;

/// The block length of a scan of `n` elements of `T`: [`LARGE_BLOCK_ELEMS`]
/// where an output would be streamed, [`SCAN_BLOCK_ELEMS`] otherwise. A
/// function of the length only (not of the path a call takes: in place,
/// strided, out of place), so float scans keep one grouping per length.
fn block_len<T>(n: usize) -> usize {
    if n.saturating_mul(std::mem::size_of::<T>()) > STREAM_BYTES {
        LARGE_BLOCK_ELEMS
    } else {
        SCAN_BLOCK_ELEMS
    }
}

/// Elements of each part staged in L1 before they leave (`LANES` parts at
/// once: 16 KiB of 8-byte elements).
const CHUNK: usize = 256;

// Pieces and blocks of `f64` sums start at multiples of a group, so the
// grouping depends on the length only.
const _: () = assert!(
    CHUNK.is_multiple_of(f64_sums::GROUP)
        && SCAN_BLOCK_ELEMS.is_multiple_of(f64_sums::GROUP)
        && LARGE_BLOCK_ELEMS.is_multiple_of(f64_sums::GROUP)
);

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

/// The left fold of `parts` onto `acc`.
#[inline(always)]
fn join_all<T: Copy, R: Reducer<T>>(op: &R, mut acc: T, parts: &[T]) -> T {
    for a in parts {
        op.join(&mut acc, a);
    }
    acc
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

    #[test]
    fn parts_are_odd_line_multiples_inside_the_block() {
        let blocks = [
            SCAN_BLOCK_ELEMS - 3,
            SCAN_BLOCK_ELEMS,
            LARGE_BLOCK_ELEMS - 3,
            LARGE_BLOCK_ELEMS,
        ];
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
        assert_eq!(block_len::<f64>(STREAM_BYTES / 8), SCAN_BLOCK_ELEMS);
        assert_eq!(block_len::<f64>(STREAM_BYTES / 8 + 1), LARGE_BLOCK_ELEMS);
        assert_eq!(block_len::<f32>(STREAM_BYTES / 8 + 1), SCAN_BLOCK_ELEMS);
        assert_eq!(block_len::<u8>(STREAM_BYTES + 1), LARGE_BLOCK_ELEMS);
        assert_eq!(block_len::<u64>(usize::MAX), LARGE_BLOCK_ELEMS);
        assert_eq!(block_len::<u64>(0), SCAN_BLOCK_ELEMS);
    }
}
