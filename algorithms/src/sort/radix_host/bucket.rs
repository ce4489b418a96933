//! The in-cache sort of one bucket: an LSD radix sort of the bits below
//! the ones its keys share, by a few digits, moving the keys (and values)
//! back and forth between the bucket and a buffer of the worker's.
//!
//! One read counts every digit at once ([`bucket_histograms`], unrolled
//! in [`count_digits`]). Each digit that moves some key then takes one
//! stable pass ([`scatter_local`]; with values and two passes,
//! [`pack_scatter`] and [`unpack_scatter`] through one buffer of pairs).
//! The bucket and its buffer are in cache, so those passes take plain
//! stores, and the sorted bucket leaves for the View once ([`deliver`]).
//! The digits' widths ([`bucket_digits`]) trade one more pass against
//! the L1 misses of wider tables.

use crate::host::buffer::with_buffer;
use crate::host::raw::Dst;
use crate::host::stream::{self, Trickle};
use crate::sort::RadixKey;
use granule_views::Element;

/// The digits a bucket is sorted by, low to high, as (shift, width) in
/// bits, with where each one's counts start in [`bucket_histograms`]'s
/// table (packed, so the tables share L1 sets evenly). The widths are as
/// even as they can be, the wider ones low.
///
/// Up to 20 bits take at most two digits, of up to 10 bits (one of up
/// to 12): a pass fewer saves more than digits that wide lose to missed
/// lines, so the buckets of floats, which span 16 to 23 bits, take two
/// passes up to 20 bits rather than three bytes. Keys alone with more
/// bits take digits of up to 8: a pass to 256 destinations keeps the
/// lines it writes in L1, where a 12-bit digit's 4096 lines miss it on
/// every store, and three such passes cost less than two of 12 bits.
/// With values, up to 24 bits take two digits of up to 12: every pass
/// moves the values too (through one buffer of pairs), so a third costs
/// more than the missed lines.
pub(super) fn bucket_digits(bits: u32, with_values: bool) -> Vec<(Digit, usize)> {
    let count = if bits <= 20 || (with_values && bits <= 24) {
        bits.div_ceil(12)
    } else {
        bits.div_ceil(8)
    };
    let (mut shift, mut at) = (0, 0);
    (0..count)
        .map(|i| {
            let width = (bits - shift).div_ceil(count - i);
            let digit = ((shift, width), at);
            (shift, at) = (shift + width, at + (1 << width));
            digit
        })
        .collect()
}

/// A digit of a bucket sort: its shift and width in bits.
type Digit = (u32, u32);

/// The widest digit's counts: 12 bits.
const TABLE: usize = 1 << 12;

#[inline(always)]
fn digit_of<K: RadixKey>(k: K, (shift, width): Digit) -> usize {
    ((k.to_radix() >> shift) & ((1 << width) - 1)) as usize
}

/// A bucket's histograms of its `digits`, in one read: a digit's counts
/// are `[at..][..1 << width]`.
fn bucket_histograms<K: RadixKey>(
    ks: &[K],
    digits: &[(Digit, usize)],
    trickle: &mut Trickle,
) -> Vec<u32> {
    // The u32 counts must not wrap: that is what keeps the scatters'
    // unchecked writes, which every bucket sort makes by these counts,
    // in bounds.
    let n = ks.len();
    assert!(u32::try_from(n).is_ok(), "radix bucket of {n} keys");
    let len = digits.last().map_or(0, |&((_, w), at)| at + (1 << w));
    let mut h = vec![0u32; len];
    let widest = digits.iter().map(|&((_, w), _)| w).max().unwrap_or(0);
    match (digits.len(), widest) {
        (2, ..=8) => count_digits::<K, 2, 256>(ks, digits, &mut h, trickle),
        (2, ..=12) => count_digits::<K, 2, TABLE>(ks, digits, &mut h, trickle),
        (3, ..=8) => count_digits::<K, 3, 256>(ks, digits, &mut h, trickle),
        // Four to eight bytes: whole keys sorted on one thread (under
        // `WHOLE_BYTES`), and buckets of wide keys, unrolled as the
        // shorter lists are.
        (4, ..=8) => count_digits::<K, 4, 256>(ks, digits, &mut h, trickle),
        (5, ..=8) => count_digits::<K, 5, 256>(ks, digits, &mut h, trickle),
        (6, ..=8) => count_digits::<K, 6, 256>(ks, digits, &mut h, trickle),
        (7, ..=8) => count_digits::<K, 7, 256>(ks, digits, &mut h, trickle),
        (8, ..=8) => count_digits::<K, 8, 256>(ks, digits, &mut h, trickle),
        _ => {
            // The bucket comes from memory (the global pass streamed it
            // out); see `stream::AHEAD`.
            stream::by_lines(ks, |_, run| {
                trickle.step();
                for &k in run {
                    for &(dg, at) in digits {
                        h[at + digit_of(k, dg)] += 1;
                    }
                }
            })
        }
    }
    h
}

/// [`bucket_histograms`] of `N` digits of at most `log2(W)` bits each, in
/// an unrolled loop (a loop over the list of digits reloads each digit
/// for every key). The tables are arrays indexed through a mask below
/// `W`, so no index is checked, and digit 0 takes no shift. A variable
/// shift needs `cl` on x86, and every key would move each digit's shift
/// into it, so bytes at bits `0, 8, 16` (random u32 keys' three low
/// bytes) take constant shifts.
fn count_digits<K: RadixKey, const N: usize, const W: usize>(
    ks: &[K],
    digits: &[(Digit, usize)],
    h: &mut [u32],
    trickle: &mut Trickle,
) {
    let dg: [Digit; N] = std::array::from_fn(|i| digits[i].0);
    debug_assert!(dg[0].0 == 0, "digit 0 starts at bit 0: {dg:?}");
    let bytes = (0..N).all(|i| dg[i] == (8 * i as u32, 8));
    let mut t = [[0u32; W]; N];
    // The bucket comes from memory (the global pass streamed it out); see
    // `stream::AHEAD`.
    if bytes {
        stream::by_lines(ks, |_, run| {
            trickle.step();
            for &k in run {
                let b = k.to_radix();
                for (i, t) in t.iter_mut().enumerate() {
                    t[(b >> (8 * i)) as usize & 0xff] += 1;
                }
            }
        });
    } else {
        let mask: [u64; N] = std::array::from_fn(|i| (1 << dg[i].1) - 1);
        stream::by_lines(ks, |_, run| {
            trickle.step();
            for &k in run {
                let b = k.to_radix();
                // Digit 0 starts at bit 0: one variable shift fewer.
                t[0][(b & mask[0]) as usize & (W - 1)] += 1;
                for (i, t) in t.iter_mut().enumerate().skip(1) {
                    t[((b >> dg[i].0) & mask[i]) as usize & (W - 1)] += 1;
                }
            }
        });
    }
    for (&((_, w), at), t) in digits.iter().zip(&t) {
        h[at..at + (1 << w)].copy_from_slice(&t[..1 << w]);
    }
}

/// Sorts elements `lo..hi` of `work` by their low `bits` bits (the
/// higher ones are the same throughout), stably, moving them between
/// `work` and a per-thread buffer, and leaves the result in `out` (with
/// streaming stores when `stream`), or in `work` when `out` is `None`.
///
/// # Safety
/// `work` and `out` are contiguous, disjoint, and hold elements `lo..hi`,
/// written in `work`; the values are given in both or neither; nothing
/// else touches those elements during the call.
pub(super) unsafe fn sort_bucket<K: RadixKey, V: Element>(
    (wk, wv): (&Dst<K>, Option<&Dst<V>>),
    out: Option<(&Dst<K>, Option<&Dst<V>>)>,
    (lo, hi): (usize, usize),
    bits: u32,
    stream: bool,
) {
    let len = hi - lo;
    // SAFETY: the elements are this call's alone (the contract).
    let (keys, mut vals) = unsafe { (wk.slice_mut(lo, hi), wv.map(|v| v.slice_mut(lo, hi))) };
    let digits = bucket_digits(bits, vals.is_some());
    let hist = bucket_histograms(keys, &digits, &mut Trickle::none());
    let moves = moving(&digits, &hist, len);
    let counts = |i: usize| table(&hist, digits[i]);
    if let (Some(vals), &[a, b]) = (vals.as_deref_mut(), &moves[..]) {
        // Two passes with values: through one buffer of pairs, so that each
        // pass has one destination stream per digit on one side, not two.
        with_buffer::<(K, V), _>(len, |pairs| {
            // SAFETY: the tables count these very keys' digits (the first
            // pass permutes them), and all four slices are `len` long.
            unsafe {
                pack_scatter((keys, vals), pairs, digits[a].0, counts(a));
                unpack_scatter(pairs, (keys, vals), digits[b].0, counts(b));
            }
        });
        if let Some(out) = out {
            // SAFETY: forwarded contract; the bucket is disjoint from `out`.
            unsafe { deliver(out, lo, (keys, Some(vals)), stream) };
        }
        return;
    }
    with_buffer::<K, _>(len, |bk| {
        with_buffer::<V, _>(vals.as_ref().map_or(0, |_| len), |bv| {
            let with_values = vals.is_some().then_some(&mut *bv);
            // SAFETY: the histograms count these keys' digits; the buffers
            // are `len` long, the values given on both sides or neither.
            let in_buf = unsafe {
                let bucket = (&mut *keys, vals.as_deref_mut());
                passes(bucket, (&mut *bk, with_values), &digits, &hist, &moves)
            };
            let (sk, sv) = if in_buf {
                (&*bk, vals.as_ref().map(|_| &*bv))
            } else {
                (&*keys, vals.as_deref())
            };
            match out {
                // SAFETY: forwarded contract; the buffer is disjoint from `out`.
                Some(out) => unsafe { deliver(out, lo, (sk, sv), stream) },
                None if in_buf => {
                    keys.copy_from_slice(bk);
                    if let Some(vals) = vals {
                        vals.copy_from_slice(bv);
                    }
                }
                None => {}
            }
        })
    })
}

/// [`sort_bucket`] of keys alone, through `buf` (as long as `keys`) and
/// into whichever of the two the last pass ends in, `true` for `buf`;
/// `trickle` (the thread's previous bucket, on its way out) is streamed
/// out while the keys are counted, and finished before they move.
///
/// # Safety
/// `trickle`'s source and destination are neither `keys` nor `buf`.
pub(in crate::sort) unsafe fn sort_keys_through<K: RadixKey>(
    keys: &mut [K],
    buf: &mut [K],
    bits: u32,
    trickle: &mut Trickle,
) -> bool {
    let len = keys.len();
    assert_eq!(buf.len(), len, "a bucket's buffer is as long as its keys");
    let digits = bucket_digits(bits, false);
    let hist = bucket_histograms(keys, &digits, trickle);
    trickle.finish();
    let moves = moving(&digits, &hist, len);
    // No values: `u8` stands for their type.
    // SAFETY: the histograms count these keys' digits; `buf` is as long.
    unsafe { passes::<K, u8>((keys, None), (buf, None), &digits, &hist, &moves) }
}

/// The digits of `digits` that move some key: a digit whose one value
/// every key shares (`len` in its table) leaves them where they are.
fn moving(digits: &[(Digit, usize)], hist: &[u32], len: usize) -> Vec<usize> {
    (0..digits.len())
        .filter(|&i| !table(hist, digits[i]).contains(&(len as u32)))
        .collect()
}

/// The counts of one digit of a bucket's histograms.
fn table(hist: &[u32], ((_, width), at): (Digit, usize)) -> &[u32] {
    &hist[at..][..1 << width]
}

/// The passes `moves` of `digits` (whose counts are in `hist`), back and
/// forth between the bucket and the buffers; whether the keys (and
/// values) end in the buffers.
///
/// # Safety
/// `hist` counts the digits of these very keys; the buffers are as long
/// as the keys, the values given on both sides or neither.
unsafe fn passes<K: RadixKey, V: Element>(
    (keys, mut vals): (&mut [K], Option<&mut [V]>),
    (bk, mut bv): (&mut [K], Option<&mut [V]>),
    digits: &[(Digit, usize)],
    hist: &[u32],
    moves: &[usize],
) -> bool {
    let mut in_buf = false;
    for &i in moves {
        let (dg, h) = (digits[i].0, table(hist, digits[i]));
        // SAFETY: `h` counts digit `dg` of these very keys (a pass
        // permutes them), buffer and bucket are both `len` long, and the
        // values ride along in both or neither.
        unsafe {
            if in_buf {
                scatter_local((bk, bv.as_deref()), (keys, vals.as_deref_mut()), dg, h);
            } else {
                scatter_local((keys, vals.as_deref()), (bk, bv.as_deref_mut()), dg, h);
            }
        }
        in_buf = !in_buf;
    }
    in_buf
}

/// Writes a sorted bucket to elements `lo..` of `out`.
///
/// # Safety
/// Those elements exist, nothing else touches them during the call, and
/// they do not overlap the bucket; `sv` is given when `ov` is.
unsafe fn deliver<K: Element, V: Element>(
    (ok, ov): (&Dst<K>, Option<&Dst<V>>),
    lo: usize,
    (sk, sv): (&[K], Option<&[V]>),
    stream: bool,
) {
    // SAFETY: the caller's contract.
    unsafe {
        ok.write(lo, sk, stream);
        if let (Some(ov), Some(sv)) = (ov, sv) {
            ov.write(lo, sv, stream);
        }
    }
    if stream {
        // Before the space's join publishes the bucket to the caller.
        stream::fence();
    }
}

/// Where each digit's elements start, given the digit's counts `h`
/// (at most [`TABLE`] of them): u32 offsets (a bucket's length fits, as
/// [`bucket_histograms`] checks where the counts are made) keep a 12-bit
/// digit's table at 16 KiB, in L1 beside the scatter's lines.
fn starts(h: &[u32]) -> [u32; TABLE] {
    let mut at = [0u32; TABLE];
    for d in 1..h.len() {
        at[d] = at[d - 1] + h[d - 1];
    }
    at
}

/// The first of two passes with values: keys and values ordered by digit
/// `dg` into one buffer of pairs.
///
/// # Safety
/// `h` is the histogram of `dg` over `sk`; `sv` and `dst` are as long as
/// `sk`.
unsafe fn pack_scatter<K: RadixKey, V: Element>(
    (sk, sv): (&[K], &[V]),
    dst: &mut [(K, V)],
    dg: Digit,
    h: &[u32],
) {
    let mut at = starts(h);
    debug_assert!(sv.len() == sk.len() && dst.len() == sk.len() && h.len() == 1 << dg.1);
    let p = dst.as_mut_ptr();
    for (&k, &v) in sk.iter().zip(sv) {
        let d = digit_of(k, dg);
        // SAFETY: as in `scatter_local`: digit d's pairs go to at[d]..,
        // below the next digit's start, so below the length of `dst`;
        // d < 1 << width <= TABLE.
        unsafe {
            let a = at.get_unchecked_mut(d);
            *p.add(*a as usize) = (k, v);
            *a += 1;
        }
    }
}

/// The second of two passes with values: the pairs ordered by digit `dg`
/// back into keys and values.
///
/// # Safety
/// `h` is the histogram of `dg` over the pairs' keys; `dk` and `dv` are
/// as long as `src`.
unsafe fn unpack_scatter<K: RadixKey, V: Element>(
    src: &[(K, V)],
    (dk, dv): (&mut [K], &mut [V]),
    dg: Digit,
    h: &[u32],
) {
    let mut at = starts(h);
    debug_assert!(dk.len() == src.len() && dv.len() == src.len() && h.len() == 1 << dg.1);
    let (kp, vp) = (dk.as_mut_ptr(), dv.as_mut_ptr());
    for &(k, v) in src {
        let d = digit_of(k, dg);
        // SAFETY: as in `pack_scatter`, for both destinations.
        unsafe {
            let a = at.get_unchecked_mut(d);
            *kp.add(*a as usize) = k;
            *vp.add(*a as usize) = v;
            *a += 1;
        }
    }
}

/// Moves `sk` (and `sv`) to `dk` (and `dv`) ordered by digit `dg`,
/// stably, with plain stores: both sides are in cache.
///
/// # Safety
/// `h` is the histogram of that digit over `sk` (`1 << width` counts);
/// `dk` is as long as `sk`; the values are given on both sides or
/// neither, as long as the keys.
unsafe fn scatter_local<K: RadixKey, V: Element>(
    (sk, sv): (&[K], Option<&[V]>),
    (dk, dv): (&mut [K], Option<&mut [V]>),
    dg: Digit,
    h: &[u32],
) {
    let mut at = starts(h);
    debug_assert!(h.len() == 1 << dg.1 && h.len() <= TABLE);
    let (kp, n) = (dk.as_mut_ptr(), sk.len());
    debug_assert!(dk.len() == n && at[h.len() - 1] as usize + h[h.len() - 1] as usize == n);
    match (sv, dv) {
        (Some(sv), Some(dv)) => {
            debug_assert!(sv.len() == n && dv.len() == n);
            let vp = dv.as_mut_ptr();
            for (&k, &v) in sk.iter().zip(sv) {
                let d = digit_of(k, dg);
                // SAFETY: digit d's keys go to at[d].., below the next
                // digit's start, since `h` counts them exactly; so every
                // index is below n, the length of both destinations; and
                // d < 1 << width <= TABLE.
                unsafe {
                    let a = at.get_unchecked_mut(d);
                    *kp.add(*a as usize) = k;
                    *vp.add(*a as usize) = v;
                    *a += 1;
                }
            }
        }
        _ => {
            for &k in sk {
                let d = digit_of(k, dg);
                // SAFETY: as above.
                unsafe {
                    let a = at.get_unchecked_mut(d);
                    *kp.add(*a as usize) = k;
                    *a += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::radix_host::tests::rng;

    /// Every shape of [`bucket_histograms`]' unrolled loops (two digits of
    /// up to 8 or 12 bits, three to eight bytes, narrower digits) and its
    /// loop over the list counts what a plain count does, and streams out
    /// the trickle it is given, a line per line counted.
    #[test]
    fn histograms_match_a_plain_count() {
        let mut r = rng(0x6A09_E667_F3BC_C908);
        let keys: Vec<u64> = (0..5000).map(|_| r()).collect();
        let earlier: Vec<u32> = (0..7001).map(|_| r() as u32).collect();
        for with_values in [false, true] {
            for bits in [1, 9, 16, 20, 21, 23, 24, 30, 32, 40, 44, 56, 64] {
                let digits = bucket_digits(bits, with_values);
                let mut want = vec![0u32; digits.last().map_or(0, |&((_, w), at)| at + (1 << w))];
                for &k in &keys {
                    for &(dg, at) in &digits {
                        want[at + digit_of(k, dg)] += 1;
                    }
                }
                let mut out = vec![0u32; earlier.len() + 1];
                // SAFETY: both vectors outlive the trickle, which is
                // finished below; nothing else touches `out`.
                let mut trickle = unsafe { Trickle::new(out.as_mut_ptr().add(1), &earlier) };
                let got = bucket_histograms(&keys, &digits, &mut trickle);
                assert!(got == want, "{bits} bits, values {with_values}");
                // The count reads 625 lines, more than the earlier bucket's
                // 437: it streamed them all; `finish` orders the stores.
                trickle.finish();
                assert!(out[1..] == earlier[..], "{bits} bits: the trickle");
            }
        }
    }

    #[test]
    fn bucket_digits_cover_the_bits_once() {
        for with_values in [false, true] {
            for bits in 0..=64 {
                let digits = bucket_digits(bits, with_values);
                let (mut bit, mut at) = (0, 0);
                for &((shift, width), start) in &digits {
                    assert_eq!((shift, start), (bit, at), "{bits} bits: {digits:?}");
                    let widest = match bits {
                        ..=12 => 12,
                        13..=20 => 10,
                        21..=24 if with_values => 12,
                        _ => 8,
                    };
                    assert!((1..=widest).contains(&width), "{bits} bits: {digits:?}");
                    (bit, at) = (bit + width, at + (1 << width));
                }
                assert_eq!(bit, bits, "{bits} bits: {digits:?}");
            }
        }
        assert_eq!(
            bucket_digits(24, false).len(),
            3,
            "three bytes alone: bytes"
        );
        assert_eq!(
            bucket_digits(24, true).len(),
            2,
            "three bytes, values: two passes"
        );
        assert_eq!(bucket_digits(32, true).len(), 4, "four bytes: bytes");
    }
}
