//! Stream compaction on the host spaces: predicate, scan of the counts
//! and scatter fused in one pass, chained by decoupled look-back.
//!
//! Block `b` reads its input from memory once and counts the elements to
//! keep (pass 1); it publishes its count and looks back for the number of
//! elements kept before it; then it goes over the block again (in cache)
//! and copies the kept elements to that place in the output, gathered
//! branch-free in L1-sized chunks (`stage[k] = x; k += keep`) that leave
//! with one copy each, through non-temporal stores for large outputs (a
//! partition also gathers the rejected ones). A block's first chunk is
//! cut where its run reaches a 64-byte line, so every later copy starts
//! on a line and streams whole lines (2^27 i64 `copy_if`, driver, six
//! alternating rounds: 73-79 ms against 73-90, median 77 against 89).
//! The input is read from memory once and each kept element written
//! once; the predicate is called twice per element, so it must be a pure
//! function.
//!
//! **One worker** (Serial, a one-thread Rayon space), when the output
//! stays in cache: every block knows its place when it starts, so it
//! skips the count, copies in one pass and publishes where its run ended
//! (counts are exact, so nothing regroups). At 2^20 i64 on Serial
//! (driver, three rounds) that took 0.49-0.57 ms (one outlier at 1.2)
//! against 0.89-1.07 ms.
//!
//! **In place** (`remove_if`, `unique`): block `b` writes below its own
//! end, into the input of blocks `≤ b`. It writes only once its prefix is
//! known (after its look-back, or at once with one worker), and a block
//! publishes its count only after it has copied its whole input to a
//! private buffer (pass 2 reads the copy), so every block it overwrites
//! has finished reading; later blocks read only above its end. `unique`
//! compares each block's first element with the last one of the block
//! before, which a write may already have moved, so those boundary
//! elements are copied first.

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
unsafe fn compact<E, T, K>(
    exec: &E,
    label: &str,
    src: Src<T>,
    outs: Outs<T>,
    prev: Option<&[T]>,
    keep: &K,
) -> usize
where
    E: HostExec,
    T: Pod,
    K: Fn(usize, T, Option<T>) -> bool + Sync,
{
    let n = src.len;
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    let stream = !outs.in_place && bytes > STREAM_BYTES;
    // In place, a block is copied before it publishes its count: blocks
    // after it may then overwrite it.
    let gather = if src.contiguous() && !outs.in_place {
        0
    } else {
        BLOCK
    };
    // Not with more workers: a block that skips its count publishes
    // nothing until it has copied, and the next block's owner waits all
    // that time (two threads at 2^20 i64 ran slower, 0.94-1.37 ms against
    // 0.75-1.01); nor for streamed outputs (2 threads at 2^27: 103-121
    // ms against 76-95; reading memory in the copy loop is slow here).
    let one_pass = exec.concurrency() == 1 && !stream;
    // The vector packing, detected once for the whole call.
    #[cfg(target_arch = "x86_64")]
    let packer = compress::isa::<T>();
    let total = lookback::run(exec, label, block_count(n, BLOCK), &Sum, None, |blk| {
        let (lo, hi) = block_bounds(0, n, BLOCK, blk.index);
        let before = match (prev, blk.index) {
            (Some(p), b) if b > 0 => Some(p[b - 1]),
            _ => None,
        };
        with_buffer::<T, _>(gather, |gbuf| {
            // SAFETY: out of place nothing writes `src`; in place, no block
            // writes lo..hi before this one has published its count, and
            // `x` is then a copy (see the module's note).
            let x = unsafe {
                if outs.in_place {
                    src.gather(lo, hi, gbuf)
                } else {
                    src.block(lo, hi, gbuf)
                }
            };
            // With one worker every block knows its prefix when it starts:
            // it skips the count (counts are exact, so nothing regroups),
            // copies in one pass and publishes where its run ended.
            let known = if one_pass { blk.known() } else { None };
            let (at, counted) = match known {
                Some(p) => (p.unwrap_or(0), None),
                None => {
                    let k = count(x, lo, before, keep);
                    (blk.prefix(k)?.unwrap_or(0), Some(k))
                }
            };
            // This block's kept elements go to at..at + k and its rejected
            // ones to (lo - at)..(hi - k - at), disjoint from every other
            // block's, and (in place) below this block's end. Uncounted,
            // a run may reach the most the block can select: no later
            // block writes before this one has published.
            let room = counted.unwrap_or(hi - lo);
            let kept = Run {
                dst: &outs.kept,
                at,
                end: at + room,
            };
            let rejected = outs.rejected.as_ref().map(|r| Run {
                dst: r,
                at: lo - at,
                end: hi - at - counted.unwrap_or(0),
            });
            let end = 'emit: {
                #[cfg(target_arch = "x86_64")]
                if let (None, Some(isa)) = (&rejected, packer) {
                    // SAFETY: as below; `compress::isa` checked the CPU and
                    // the element size.
                    break 'emit unsafe { compress::emit(isa, x, lo, before, keep, kept, stream) };
                }
                // SAFETY: the runs are this block's alone (above).
                unsafe { emit(x, lo, before, keep, kept, rejected, stream) }
            };
            if counted.is_none() {
                blk.finish(end);
            }
            Ok(())
        })
    });
    total.unwrap_or(0)
}

/// Where a block's selected (or rejected) elements go: `at..end` of an
/// output, exactly what pass 1 counted. Writes past `end` panic instead:
/// a predicate that answers differently in the two passes (through
/// interior mutability, say) must not reach another block's range.
struct Run<'d, T> {
    dst: &'d Dst<T>,
    at: usize,
    end: usize,
}

impl<T: Pod> Run<'_, T> {
    /// How many elements the first flush of a staging buffer holds: a
    /// chunk, less the elements before `at` in its 64-byte line, so that
    /// every later flush starts on a line. Streamed flushes that split a
    /// line leave it half written in a write-combining buffer, and the
    /// next flush finishes it with ordinary stores.
    fn first_flush(&self, chunk: usize) -> usize {
        chunk - self.dst.past_line(self.at)
    }

    /// Appends `values`, streamed when `stream`.
    ///
    /// # Safety
    /// Nothing but this block touches `at..end` of the output.
    #[inline]
    unsafe fn push(&mut self, values: &[T], stream: bool) {
        let next = self.at + values.len();
        assert!(
            next <= self.end,
            "stream compaction: the predicate selected more elements than it did when they were counted; it must be a pure function"
        );
        // SAFETY: `at..next` is inside `at..end` (checked), which is ours.
        unsafe { self.dst.write(self.at, values, stream) };
        self.at = next;
    }
}

/// Pass 1: how many elements of the block `keep` selects.
#[inline(always)]
fn count<T: Copy, K>(x: &[T], lo: usize, mut before: Option<T>, keep: &K) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    let mut k = 0;
    for (j, &v) in x.iter().enumerate() {
        k += usize::from(keep(lo + j, v, before));
        before = Some(v);
    }
    k
}

/// Elements gathered in L1 before they leave in one copy.
const CHUNK: usize = 512;

/// Pass 2: copies the selected elements of `x` to the `kept` run (and
/// the others to the `rejected` run), in order, gathering
/// them branch-free (`stage[k] = x; k += keep`) in L1-sized chunks that
/// leave with one (streaming, when `stream`) copy each. Returns where the
/// kept run ended.
///
/// # Safety
/// Nothing but this block touches the runs' ranges during the call.
#[inline(always)]
unsafe fn emit<T: Pod, K>(
    x: &[T],
    lo: usize,
    mut before: Option<T>,
    keep: &K,
    mut kept: Run<'_, T>,
    mut rejected: Option<Run<'_, T>>,
    stream: bool,
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    let split = if rejected.is_some() { CHUNK + 1 } else { 0 };
    with_buffer::<T, _>(CHUNK + 1, |ks| {
        with_buffer::<T, _>(split, |rs| {
            let (mut k, mut r) = (0, 0);
            let mut limit = kept.first_flush(CHUNK);
            let mut limit_r = rejected.as_ref().map_or(CHUNK, |r| r.first_flush(CHUNK));
            let partition = rejected.is_some();
            for (j, &v) in x.iter().enumerate() {
                let yes = keep(lo + j, v, before);
                before = Some(v);
                // k < limit <= CHUNK always: it is flushed on reaching limit.
                ks[k] = v;
                k += usize::from(yes);
                if partition {
                    rs[r] = v;
                    r += usize::from(!yes);
                }
                if k == limit {
                    // SAFETY: forwarded contract.
                    unsafe { kept.push(&ks[..k], stream) };
                    (k, limit) = (0, CHUNK);
                }
                if let (Some(run), true) = (rejected.as_mut(), r == limit_r) {
                    // SAFETY: forwarded contract.
                    unsafe { run.push(&rs[..r], stream) };
                    (r, limit_r) = (0, CHUNK);
                }
            }
            // SAFETY: forwarded contract.
            unsafe { kept.push(&ks[..k], stream) };
            if let Some(run) = rejected.as_mut() {
                // SAFETY: forwarded contract.
                unsafe { run.push(&rs[..r], stream) };
            }
            if stream {
                stream::fence();
            }
            kept.at
        })
    })
}

/// Pass 2 in vectors: 8 or 16 elements at a time with AVX-512 (4 or 8
/// with AVX2), the predicate's answers gathered into a mask and the kept
/// elements packed by one `vpcompress` (AVX2: one `vpermd` by a table of
/// the masks' permutations) and one vector store; the scalar gather does
/// one dependent store per element.
#[cfg(target_arch = "x86_64")]
mod compress {
    use super::{stream, with_buffer, Pod, Run, CHUNK};
    use crate::host::isa::Isa;

    /// The instruction set elements of `T` are packed with on this CPU:
    /// the widest it has, for 4- and 8-byte elements and with POPCNT.
    pub(super) fn isa<T>() -> Option<Isa> {
        let fits =
            matches!(std::mem::size_of::<T>(), 4 | 8) && std::is_x86_feature_detected!("popcnt");
        Isa::widest().filter(|_| fits)
    }

    /// As [`super::emit`] without rejected elements, on `isa`.
    ///
    /// # Safety
    /// As for [`super::emit`], and [`isa::<T>`] returned `isa` (the CPU
    /// has it and POPCNT).
    pub(super) unsafe fn emit<T: Pod, K>(
        isa: Isa,
        x: &[T],
        lo: usize,
        before: Option<T>,
        keep: &K,
        kept: Run<'_, T>,
        stream: bool,
    ) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        let end = with_buffer::<T, _>(CHUNK + 16, |stage| {
            let run = (x, lo, before, kept, stream);
            // SAFETY: forwarded contract: the CPU has `isa` and POPCNT.
            unsafe {
                match isa {
                    Isa::Avx512 => pack_avx512(run, keep, stage),
                    Isa::Avx2 => pack_avx2(run, keep, stage),
                }
            }
        });
        if stream {
            stream::fence();
        }
        end
    }

    /// What a packing loop works on: the block, its first index, the
    /// element before it, the kept run and whether it streams.
    type Block<'x, 'd, T> = (&'x [T], usize, Option<T>, Run<'d, T>, bool);

    /// The packing loop, for vectors of `BYTES` bytes: `squeeze(from,
    /// mask, to)` writes the elements of the vector at `from` that `mask`
    /// selects, in order, from `to` on (`BYTES` bytes may be written).
    /// `stage` holds CHUNK + 16 elements.
    ///
    /// # Safety
    /// As for [`emit`]; `squeeze` may be called with `from` valid for
    /// `BYTES` bytes of reads and `to` for `BYTES` bytes of writes.
    #[inline(always)]
    unsafe fn pack<T: Pod, K, const BYTES: usize>(
        (x, lo, mut before, mut kept, stream): Block<'_, '_, T>,
        keep: &K,
        stage: &mut [T],
        squeeze: impl Fn(*const u8, u16, *mut u8),
    ) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        let size = std::mem::size_of::<T>();
        let lanes = BYTES / size;
        let (sp, xp) = (stage.as_mut_ptr().cast::<u8>(), x.as_ptr().cast::<u8>());
        let (mut j, mut k) = (0, 0);
        let mut limit = kept.first_flush(CHUNK);
        while j + lanes <= x.len() {
            let mut m = 0u16;
            for (l, &v) in x[j..j + lanes].iter().enumerate() {
                m |= u16::from(keep(lo + j + l, v, before)) << l;
                before = Some(v);
            }
            // `j + lanes <= len`, so the BYTES read are in `x`; `k < limit
            // <= CHUNK` here, so the BYTES written are in `stage` (CHUNK +
            // 16 elements of at least 4 bytes, BYTES <= 64).
            // SAFETY: the offsets stay inside `x` and `stage` (above).
            let (from, to) = unsafe { (xp.add(j * size), sp.add(k * size)) };
            squeeze(from, m, to);
            k += m.count_ones() as usize;
            j += lanes;
            if k >= limit {
                // SAFETY: the caller's contract.
                unsafe { kept.push(&stage[..limit], stream) };
                stage.copy_within(limit..k, 0);
                (k, limit) = (k - limit, CHUNK);
            }
        }
        for (l, &v) in x[j..].iter().enumerate() {
            stage[k] = v;
            k += usize::from(keep(lo + j + l, v, before));
            before = Some(v);
        }
        // SAFETY: the caller's contract.
        unsafe { kept.push(&stage[..k], stream) };
        kept.at
    }

    /// [`pack`] with AVX-512 compress, compiled for AVX-512F.
    ///
    /// # Safety
    /// As for [`emit`], with AVX-512F and POPCNT.
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn pack_avx512<T: Pod, K>(block: Block<'_, '_, T>, keep: &K, stage: &mut [T]) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        use std::arch::x86_64::*;
        let wide = std::mem::size_of::<T>() == 8;
        // SAFETY: `pack` hands `squeeze` 64 readable and 64 writable bytes;
        // unaligned accesses are allowed; AVX-512F (the contract). The
        // elements move bytewise.
        let squeeze = |from: *const u8, m: u16, to: *mut u8| unsafe {
            let v = _mm512_loadu_si512(from.cast());
            let c = if wide {
                _mm512_maskz_compress_epi64(m as u8, v)
            } else {
                _mm512_maskz_compress_epi32(m, v)
            };
            _mm512_storeu_si512(to.cast(), c);
        };
        // SAFETY: forwarded contract; `squeeze` keeps `pack`'s promise.
        unsafe { pack::<T, K, 64>(block, keep, stage, squeeze) }
    }

    /// [`pack`] with AVX2 permutes, compiled for AVX2.
    ///
    /// # Safety
    /// As for [`emit`], with AVX2 and POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn pack_avx2<T: Pod, K>(block: Block<'_, '_, T>, keep: &K, stage: &mut [T]) -> usize
    where
        K: Fn(usize, T, Option<T>) -> bool,
    {
        use std::arch::x86_64::*;
        let table: &[[i32; 8]] = if std::mem::size_of::<T>() == 8 {
            &PAIRS
        } else {
            &SINGLES
        };
        // SAFETY: `pack` hands `squeeze` 32 readable and 32 writable bytes;
        // the mask has 4 (8-byte elements) or 8 bits, so it indexes its
        // table; unaligned accesses are allowed; AVX2 (the contract).
        let squeeze = |from: *const u8, m: u16, to: *mut u8| unsafe {
            let v = _mm256_loadu_si256(from.cast());
            let order = _mm256_loadu_si256(table[usize::from(m)].as_ptr().cast());
            _mm256_storeu_si256(to.cast(), _mm256_permutevar8x32_epi32(v, order));
        };
        // SAFETY: forwarded contract; `squeeze` keeps `pack`'s promise.
        unsafe { pack::<T, K, 32>(block, keep, stage, squeeze) }
    }

    /// For each mask of 8 four-byte lanes, the lanes it selects, in order
    /// (the rest 0): `vpermd`'s operand that packs them.
    static SINGLES: [[i32; 8]; 256] = packing(1);
    /// The same for masks of 4 eight-byte lanes, each a pair of 32-bit
    /// lanes.
    static PAIRS: [[i32; 8]; 256] = packing(2);

    /// The packing permutations of masks over `8 / width` lanes of
    /// `width` 32-bit words (masks with higher bits are not used).
    const fn packing(width: usize) -> [[i32; 8]; 256] {
        let lanes = 8 / width;
        let mut t = [[0i32; 8]; 256];
        let mut m = 0;
        while m < 256 {
            let (mut l, mut k) = (0, 0);
            while l < lanes {
                if m >> l & 1 == 1 {
                    let mut w = 0;
                    while w < width {
                        t[m][k] = (l * width + w) as i32;
                        k += 1;
                        w += 1;
                    }
                }
                l += 1;
            }
            m += 1;
        }
        t
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::host::raw::Scratch;

        /// Every instruction set this CPU has packs as the scalar loop
        /// does: at every output offset in a line, 4- and 8-byte elements,
        /// through a flush or two.
        #[test]
        fn every_isa_packs_the_kept_elements_in_order() {
            if !std::is_x86_feature_detected!("popcnt") {
                return;
            }
            for isa in Isa::present_all() {
                for n in [0, 3, 4, 7, 8, 17, 600, 1500] {
                    check::<u64>(isa, n);
                    check::<i32>(isa, n);
                }
            }
        }

        fn check<T: Pod + PartialEq + std::fmt::Debug + TryFrom<u8>>(isa: Isa, n: usize) {
            let x: Vec<T> = (0..n)
                .map(|i| T::try_from((i * 37 % 251) as u8).ok().expect("fits"))
                .collect();
            let keep = |i: usize, _: T, _: Option<T>| i % 3 != 1 && !i.is_multiple_of(7);
            let want: Vec<T> = x
                .iter()
                .enumerate()
                .filter(|&(i, v)| keep(i, *v, None))
                .map(|(_, v)| *v)
                .collect();
            for at in 0..16 {
                let mut out = Scratch::<T>::new("out", at + n).expect("scratch");
                let dst = out.dst();
                let run = Run {
                    dst: &dst,
                    at,
                    end: at + want.len(),
                };
                // SAFETY: the CPU has `isa` (present) and POPCNT
                // (checked); the run is the scratch's alone.
                let end = unsafe { emit(isa, &x, 0, None, &keep, run, false) };
                assert_eq!(end, at + want.len(), "{isa:?} {n} at {at}");
                // SAFETY: nothing else touches the scratch.
                let got = unsafe { dst.slice_mut(at, end) }.to_vec();
                assert_eq!(got, want, "{isa:?} {n} at {at}");
            }
        }
    }
}

/// The last element of every block but the final one (the boundary
/// elements `unique` compares across blocks), read before any write.
///
/// # Safety
/// No thread writes `src` during the call.
unsafe fn boundaries<T: Pod>(src: &Src<T>) -> Vec<T> {
    let nb = block_count(src.len, BLOCK);
    // SAFETY: forwarded contract; `(b + 1) * BLOCK - 1 < len` for b < nb - 1.
    (0..nb.saturating_sub(1))
        .map(|b| unsafe { src.get((b + 1) * BLOCK - 1) })
        .collect()
}

macro_rules! host_compactions {
    ($space:ty) => {
        impl<T: Pod, P: UnaryFunctor<T, Output = bool>> CompactImpl<T, P> for $space {
            fn copy_if(
                &self,
                label: &str,
                input: Input<'_, T, HostSpace>,
                output: Output<'_, T, HostSpace>,
                pred: &P,
            ) -> usize {
                let (src, dst) = (Src::of(&input), Dst::of(&output));
                let outs = Outs {
                    kept: dst,
                    rejected: None,
                    in_place: false,
                };
                // SAFETY: the Views are borrowed for the call (shared and
                // unique); the entry point checked that the output holds
                // the input's length.
                unsafe { compact(self, label, src, outs, None, &|_, x, _| pred.call(x)) }
            }

            fn remove_if(&self, label: &str, data: Output<'_, T, HostSpace>, pred: &P) -> usize {
                let (src, dst) = (Src::of_output(&data), Dst::of(&data));
                let outs = Outs {
                    kept: dst,
                    rejected: None,
                    in_place: true,
                };
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
                let outs = Outs {
                    kept: Dst::of(&out_true),
                    rejected: Some(Dst::of(&out_false)),
                    in_place: false,
                };
                // SAFETY: three distinct borrowed Views; the entry point
                // checked both outputs' lengths.
                let t = unsafe {
                    compact(self, label, Src::of(&input), outs, None, &|_, x, _| {
                        pred.call(x)
                    })
                };
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
                assert_eq!(
                    flags.len,
                    input.len(),
                    "{label}: flags and input differ in length"
                );
                let outs = Outs {
                    kept: Dst::of(&output),
                    rejected: None,
                    in_place: false,
                };
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
                let outs = Outs {
                    kept: dst,
                    rejected: None,
                    in_place: true,
                };
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
