//! Radix sort on the host spaces: global passes by the 8 bits that end at
//! the most significant varying bit until every bucket fits in cache, then
//! an LSD sort of each bucket by its lower bits in cache ([`msd_sort`]).
//!
//! A global pass streams the keys (and values) through DRAM to 256
//! destinations, which is slow, so as few keys as possible take one: the
//! first read of the keys finds the top bit in which they differ and
//! counts the 8-bit digit ending there block by block, one pass by that
//! digit moves every key to its bucket, and only a bucket too large for a
//! cache is surveyed and split again by its own top varying bits. Where
//! the digit crowds its keys into a few buckets (floats, whose exponents
//! share a few values), the pass goes by a [`Plan`](plan::Plan) of the 12
//! bits ending there instead, which joins their 4096 values into 256
//! buckets of about even size. The counts by block give every block its
//! place in every bucket before a pass starts, so the blocks scatter in
//! any order, with no look-back. Each bucket in cache is then sorted by
//! one worker, stably (a pass visits a bucket's keys in order), and
//! written back once.
//!
//! One mechanism per file, in the order a sort meets them:
//! - [`survey`](mod@survey): the read that finds the top varying bit and
//!   counts its digit by block;
//! - [`plan`]: the 12-bit plan of a pass whose digit would crowd;
//! - [`pass`]: one global pass, placed by the counts, through
//!   write-combining lines;
//! - [`split`]: the passes until every bucket fits in cache, and the
//!   in-cache sorts of the buckets left;
//! - [`bucket`]: the LSD sort of one bucket in cache.
//!
//! Here: the entry points ([`SortImpl`] for Serial and Rayon), the sizes
//! that choose the way, and the copies of strided Views.

mod bucket;
mod pass;
mod plan;
mod split;
mod survey;
#[cfg(test)]
pub(super) mod tests;

pub(super) use bucket::sort_keys_through;
pub(super) use pass::LINE;
pub(super) use split::crowds;
pub(super) use survey::digit;

use super::radix_sampled::sampled_sort;
use super::{RadixKey, SortImpl};
use crate::host::raw::{Dst, Scratch};
use crate::host::HostExec;
use crate::io::Output;
use crate::AlgorithmError;
use bucket::sort_bucket;
use granule_core::Serial;
use granule_views::{Element, HostSpace};
use split::msd_sort;
use survey::{differing, survey};

/// Sorts contiguous `keys` (and `values`) in place.
///
/// One global pass by the 8 bits that end at the most significant varying
/// bit moves every key to its bucket, and each bucket is then sorted by
/// its lower bits in cache ([`msd_sort`]): random keys cross memory twice
/// instead of once per byte. Buckets too large for a cache (keys that
/// crowd together, such as floats in `0.0..1.0`, whose exponents share a
/// few top bytes) are split again by their own top varying bits first.
/// Many keys alone whose top bit varies take a pass placed by a sample
/// instead of a count ([`sampled_sort`]), when the sample allows it.
///
/// # Safety
/// Both describe live contiguous host Views of the same length that
/// nothing else touches during the call.
unsafe fn radix_sort<E: HostExec, K: RadixKey, V: Element>(
    exec: &E,
    label: &str,
    keys: Dst<K>,
    values: Option<Dst<V>>,
) -> Result<(), AlgorithmError> {
    // SAFETY: forwarded contract.
    unsafe { radix_sort_within(exec, label, (keys, values), BUCKET_BYTES) }.map(|_| ())
}

/// [`radix_sort`] with buckets of at most `bucket_bytes` of keys and
/// values sorted in cache (the tests reach every shape with small inputs
/// through a smaller limit). Returns the global passes the most moved key
/// took (0 when the whole range was sorted in cache, or all keys are
/// equal), which the tests check.
///
/// # Safety
/// As for [`radix_sort`].
unsafe fn radix_sort_within<E: HostExec, K: RadixKey, V: Element>(
    exec: &E,
    label: &str,
    (keys, values): (Dst<K>, Option<Dst<V>>),
    bucket_bytes: usize,
) -> Result<usize, AlgorithmError> {
    let n = keys.len;
    let row = std::mem::size_of::<K>() + values.map_or(0, |_| std::mem::size_of::<V>());
    if n < 2 {
        return Ok(0);
    }
    if n * row <= WHOLE_BYTES {
        // SAFETY: nothing writes the keys yet; the caller's contract gives
        // them to this thread alone.
        let ks = unsafe { keys.as_src().slice(0, n) };
        // All keys equal: a stable sort moves nothing.
        if let Some(shift) = differing(ks) {
            // SAFETY: the whole range is one bucket, sorted where it lies.
            unsafe { sort_bucket((&keys, values.as_ref()), None, (0, n), shift + 8, false) };
        }
        return Ok(0);
    }
    // SAFETY: forwarded contract.
    if values.is_none() && unsafe { sampled_sort(exec, label, keys, bucket_bytes / row) } {
        return Ok(1);
    }
    // SAFETY: nothing writes the keys yet.
    let Some(surveyed) = (unsafe { survey(exec, label, &keys.as_src(), 8 * K::BYTES as u32) })
    else {
        return Ok(0); // all keys equal: a stable sort moves nothing
    };
    // SAFETY: forwarded contract; the keys were just surveyed.
    unsafe { msd_sort(exec, label, (keys, values), surveyed, (row, bucket_bytes)) }
}

/// Bytes of keys and values sorted in cache on one thread without the
/// global pass: below this, the pass and a second thread do not pay.
/// Up to 1 MiB (the L2 of larger cores) the keys sort from cache whole,
/// while a global pass over so few leaves buckets of a few hundred keys,
/// each clearing and summing two tables of 4096 counters.
const WHOLE_BYTES: usize = 1 << 20;

/// Bytes of keys and values a bucket may hold to be sorted in cache. A
/// bucket and its ping-pong buffer take twice this, more than a core's
/// L2 (512 KiB to 1 MiB): the passes then run partly or wholly from L3,
/// still far faster than a global pass per byte. Two threads' buckets of
/// 8 MiB and their buffers fill a 32 MiB L3. A smaller limit costs large
/// inputs a pass: past 2^26 random u32 keys (2^25 pairs), one pass by
/// the top byte leaves some bucket a little larger than 2 MiB, which
/// would take a second global pass.
const BUCKET_BYTES: usize = 1 << 23;

/// [`radix_sort`] for Views of any stride: strided ones are sorted in a
/// contiguous copy, written back after.
///
/// # Safety
/// As for [`radix_sort`], without the contiguity.
unsafe fn radix_sort_any<E: HostExec, K: RadixKey, V: Element>(
    exec: &E,
    label: &str,
    keys: Dst<K>,
    values: Option<Dst<V>>,
) -> Result<(), AlgorithmError> {
    if keys.contiguous() && values.is_none_or(|v| v.contiguous()) {
        // SAFETY: forwarded contract.
        return unsafe { radix_sort(exec, label, keys, values) };
    }
    let mut k = gather(label, &keys)?;
    let mut v = match &values {
        Some(d) => Some(gather(label, d)?),
        None => None,
    };
    // SAFETY: the copies are contiguous, fully written, and local.
    unsafe { radix_sort(exec, label, k.dst(), v.as_mut().map(|s| s.dst()))? };
    // SAFETY: the copies are written; the Views are ours for the call.
    unsafe { scatter(&mut k, &keys) };
    if let (Some(s), Some(d)) = (v.as_mut(), values) {
        // SAFETY: as above.
        unsafe { scatter(s, &d) };
    }
    Ok(())
}

/// A contiguous copy of a View's elements.
pub(super) fn gather<T: Element>(label: &str, d: &Dst<T>) -> Result<Scratch<T>, AlgorithmError> {
    let mut s = Scratch::new(label, d.len)?;
    let (src, dst) = (d.as_src(), s.dst());
    for i in 0..d.len {
        // SAFETY: reading the caller's View (nothing writes it now) into
        // our own buffer, in bounds.
        unsafe { dst.put(i, src.get(i)) };
    }
    Ok(s)
}

/// Writes a contiguous copy back to its View.
///
/// # Safety
/// `s` is fully written and as long as `d`; nothing else touches `d`.
pub(super) unsafe fn scatter<T: Element>(s: &mut Scratch<T>, d: &Dst<T>) {
    let src = s.src();
    for i in 0..d.len {
        // SAFETY: the caller's contract.
        unsafe { d.set(i, src.get(i)) };
    }
}

macro_rules! host_radix {
    ($space:ty) => {
        impl<K: RadixKey, V: Element> SortImpl<K, V> for $space {
            fn radix_sort(
                &self,
                label: &str,
                keys: Output<'_, K, HostSpace>,
                values: Option<Output<'_, V, HostSpace>>,
            ) -> Result<(), AlgorithmError> {
                let values = values.as_ref().map(Dst::of);
                if let Some(v) = &values {
                    assert_eq!(
                        v.len,
                        keys.len(),
                        "{label}: keys and values differ in length"
                    );
                }
                // SAFETY: both Views are borrowed uniquely for the call.
                unsafe { radix_sort_any(self, label, Dst::of(&keys), values) }
            }
        }
    };
}

host_radix!(Serial);
#[cfg(feature = "rayon")]
host_radix!(granule_rayon::Rayon);
