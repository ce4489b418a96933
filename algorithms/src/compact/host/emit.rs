//! A compaction block that knows its place when it starts (one worker,
//! an output that stays in cache): its selected elements (and rejected
//! ones) go straight to their runs of the outputs ([`Run`]), gathered in
//! L1-sized chunks that leave with one copy each ([`emit`], or its vector
//! form where the CPU packs the type), with no block-sized buffer and no
//! look-back.

#[cfg(target_arch = "x86_64")]
use super::compress;
use super::gather::gather;
use super::{Packer, Part, CHUNK};
use crate::host::buffer::with_buffer;
use crate::host::raw::Dst;
use crate::host::stream;
use granule_views::Element;

/// [`emit`], or its vector form when there is no rejected run and the CPU
/// packs `T` (`packer`).
///
/// # Safety
/// As for [`emit`]; `packer` came from [`compress::isa`].
pub(super) unsafe fn emit_any<T: Element, K>(
    packer: Option<Packer>,
    part: Part<'_, T>,
    keep: &K,
    kept: Run<'_, T>,
    rejected: Option<Run<'_, T>>,
    stream: bool,
) -> usize
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    #[cfg(target_arch = "x86_64")]
    if let (None, Some(isa)) = (&rejected, packer) {
        // SAFETY: forwarded contract; `compress::isa` checked the CPU and
        // the element size.
        return unsafe { compress::emit(isa, part, keep, kept, stream) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = packer;
    // SAFETY: forwarded contract.
    unsafe { emit(part, keep, kept, rejected, stream) }
}

/// Where the selected (or rejected) elements of a block that knows its
/// place go: `at..end` of an output, room for the whole block. Writes
/// past `end` panic instead of reaching another block's range.
pub(super) struct Run<'d, T> {
    pub(super) dst: &'d Dst<T>,
    pub(super) at: usize,
    pub(super) end: usize,
}

impl<T: Element> Run<'_, T> {
    /// How many elements the first flush of a staging buffer holds: a
    /// chunk, less the elements before `at` in its 64-byte line, so that
    /// every later flush starts on a line. Streamed flushes that split a
    /// line leave it half written in a write-combining buffer, and the
    /// next flush finishes it with ordinary stores.
    pub(super) fn first_flush(&self, chunk: usize) -> usize {
        chunk - self.dst.past_line(self.at)
    }

    /// Appends `values`, streamed when `stream`.
    ///
    /// # Safety
    /// Nothing but this block touches `at..end` of the output.
    #[inline]
    pub(super) unsafe fn push(&mut self, values: &[T], stream: bool) {
        let next = self.at + values.len();
        assert!(
            next <= self.end,
            "stream compaction: a block's run {}..{} overflows its room ..{}",
            self.at,
            next,
            self.end
        );
        // SAFETY: `at..next` is inside `at..end` (checked), which is ours.
        unsafe { self.dst.write(self.at, values, stream) };
        self.at = next;
    }
}

/// For a block that knows its place: copies the selected elements of the
/// part to the `kept` run (and the others to the `rejected` run), in
/// order, gathering them in L1-sized chunks that leave with one
/// (streaming, when `stream`) copy each. Returns where the kept run
/// ended.
///
/// # Safety
/// Nothing but this block touches the runs' ranges during the call.
#[inline(always)]
pub(super) unsafe fn emit<T: Element, K>(
    part: Part<'_, T>,
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
            let first_r = rejected.as_ref().map_or(CHUNK, |r| r.first_flush(CHUNK));
            let first_k = kept.first_flush(CHUNK);
            let split = rejected.is_some().then_some(&mut *rs);
            // SAFETY: the caller's contract.
            let drain_k = |full: &[T]| unsafe { kept.push(full, stream) };
            let drain_r = |full: &[T]| {
                if let Some(run) = rejected.as_mut() {
                    // SAFETY: as above.
                    unsafe { run.push(full, stream) };
                }
            };
            let (k, r) = gather(
                part,
                keep,
                ks,
                split,
                (first_k, drain_k),
                (first_r, drain_r),
            );
            // SAFETY: the caller's contract.
            unsafe { kept.push(&ks[..k], stream) };
            if let Some(run) = rejected.as_mut() {
                // SAFETY: the caller's contract.
                unsafe { run.push(&rs[..r], stream) };
            }
            if stream {
                stream::fence();
            }
            kept.at
        })
    })
}
