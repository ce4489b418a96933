//! A compaction block whose place is not known yet when it starts (more
//! than one worker, or a streamed output): its selected elements (and
//! rejected ones) are gathered in order into block-sized buffers of the
//! thread's, which stay in L2; then the block publishes its count, looks
//! back for the elements kept before it, and copies the buffers there.
//! The input is read from memory once and the predicate called once per
//! element. A block left by the look-back keeps what it gathered
//! ([`Selected`]): in place, later blocks may overwrite its input once
//! its count is published.

#[cfg(target_arch = "x86_64")]
use super::compress;
use super::gather::gather;
use super::{Outs, Packer, Part};
use crate::host::buffer::with_buffer;
use crate::host::raw::Dst;
use crate::host::stream;
use granule_core::exec::lookback::{Block, Stop};
use granule_views::Element;

/// A block whose place is not known yet: its selected elements (and
/// rejected ones) are gathered in order into block-sized buffers of this
/// thread's, which stay in L2; then the count is published, the prefix
/// looked back for, and the buffers copied out (streamed when `stream`).
/// The input is read from memory once and the predicate called once per
/// element.
///
/// # Safety
/// Nothing writes `part`'s elements during the call (in place they are a
/// copy), each output is long enough for everything `keep` selects (or
/// rejects) in the whole input, and in place only blocks that have
/// published their counts are written over (see the module's note).
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn staged<T: Element, K, R>(
    part: Part<'_, T>,
    keep: &K,
    outs: &Outs<T>,
    stream: bool,
    packer: Option<Packer>,
    blk: &Block<'_, '_, usize, R, Selected<T>>,
) -> Result<(), Stop>
where
    K: Fn(usize, T, Option<T>) -> bool,
    R: granule_core::reducer::Reducer<usize>,
{
    let (len, lo) = (part.0.len(), part.1);
    if let Some((kept, rejected)) = blk.take_left() {
        // SAFETY: forwarded contract; what the block's first run selected.
        return unsafe { write_selected(&kept, &rejected, lo, outs.into(), stream, blk) };
    }
    let split = if outs.rejected.is_some() { len } else { 0 };
    with_buffer::<T, _>(len, |ks| {
        with_buffer::<T, _>(split, |rs| {
            let (k, r) = match (&outs.rejected, packer) {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `compress::isa` returned `isa`.
                (None, Some(isa)) => (unsafe { compress::gather(isa, part, keep, ks) }, 0),
                _ => {
                    let split = outs.rejected.is_some().then_some(&mut *rs);
                    let never = |_: &[T]| unreachable!("a staged block is never drained");
                    gather(
                        part,
                        keep,
                        ks,
                        split,
                        (usize::MAX, never),
                        (usize::MAX, never),
                    )
                }
            };
            // SAFETY: forwarded contract.
            unsafe { write_selected(&ks[..k], &rs[..r], lo, outs.into(), stream, blk) }
        })
    })
}

/// What a staged block selected, kept for its next run when it is left
/// (see granule-core's look-back): in place, later blocks may overwrite
/// its input once its count is published, so it cannot gather again.
pub(super) type Selected<T> = (Vec<T>, Vec<T>);

/// Where [`write_selected`] puts a block's elements: the kept ones, and
/// the rejected ones for a partition.
pub(super) struct Targets<'o, T> {
    pub(super) kept: &'o Dst<T>,
    pub(super) rejected: Option<&'o Dst<T>>,
}

impl<'o, T> From<&'o Outs<T>> for Targets<'o, T> {
    fn from(outs: &'o Outs<T>) -> Self {
        Targets {
            kept: &outs.kept,
            rejected: outs.rejected.as_ref(),
        }
    }
}

/// Publishes the count of a staged block's `kept` elements, looks back
/// for its place and writes them (and its `rejected` ones) there; keeps
/// them for the block's next run if it is left.
///
/// # Safety
/// As for [`staged`].
pub(super) unsafe fn write_selected<T: Element, R>(
    kept: &[T],
    rejected: &[T],
    lo: usize,
    outs: Targets<'_, T>,
    stream: bool,
    blk: &Block<'_, '_, usize, R, Selected<T>>,
) -> Result<(), Stop>
where
    R: granule_core::reducer::Reducer<usize>,
{
    let at = match blk.prefix(kept.len()) {
        Ok(at) => at.unwrap_or(0),
        Err(stop) => {
            blk.leave((kept.to_vec(), rejected.to_vec()));
            return Err(stop);
        }
    };
    // SAFETY: this block's kept elements go to at..at + k and its rejected
    // ones to (lo - at)..(lo - at + r), disjoint from every other block's
    // (the prefix counts the kept elements before it); `write` checks them
    // against the outputs' lengths.
    unsafe {
        outs.kept.write(at, kept, stream);
        if let Some(out) = outs.rejected {
            out.write(lo - at, rejected, stream);
        }
    }
    if stream {
        stream::fence();
    }
    Ok(())
}
