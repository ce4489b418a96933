//! The scalar gathering loop of the host compactions: the elements a
//! block keeps go in order to one buffer (and the others to a second),
//! branch-free (`ks[k] = x; k += keep`), so that a predicate that keeps
//! elements at random costs no mispredicted branches. A buffer that
//! reaches its limit is drained, so a block of any length can gather
//! through L1-sized chunks.

use super::{Part, CHUNK};
use granule_views::Element;

/// The scalar gathering loop: the elements of the part that `keep`
/// selects go in order to `ks` (and the others to `rs`), branch-free
/// (`ks[k] = x; k += keep`). A buffer that reaches its limit is drained
/// (its first `limit` elements handed to its drain) and starts over, with
/// a limit of [`CHUNK`] from then on. Returns how many each buffer holds
/// at the end.
///
/// # Panics
/// If a buffer is shorter than the part and than its limits + 1.
#[inline(always)]
pub(super) fn gather<T: Element, K>(
    (x, lo, mut before): Part<'_, T>,
    keep: &K,
    ks: &mut [T],
    mut rs: Option<&mut [T]>,
    (mut limit_k, mut drain_k): (usize, impl FnMut(&[T])),
    (mut limit_r, mut drain_r): (usize, impl FnMut(&[T])),
) -> (usize, usize)
where
    K: Fn(usize, T, Option<T>) -> bool,
{
    let roomy = |buf: &[T], limit: usize| buf.len() >= x.len() || buf.len() > limit.max(CHUNK);
    assert!(roomy(ks, limit_k) && rs.as_deref().is_none_or(|rs| roomy(rs, limit_r)));
    let (mut k, mut r) = (0, 0);
    for (j, &v) in x.iter().enumerate() {
        let yes = keep(lo + j, v, before);
        before = Some(v);
        // k < limit (drained on reaching it) and k <= j < len.
        ks[k] = v;
        k += usize::from(yes);
        if let Some(rs) = rs.as_deref_mut() {
            rs[r] = v;
            r += usize::from(!yes);
            if r == limit_r {
                drain_r(&rs[..r]);
                (r, limit_r) = (0, CHUNK);
            }
        }
        if k == limit_k {
            drain_k(&ks[..k]);
            (k, limit_k) = (0, CHUNK);
        }
    }
    (k, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scalar loop gathers the kept and the rejected elements in
    /// order, whole or drained in chunks from any first limit.
    #[test]
    fn gather_splits_in_order_whole_or_drained() {
        let keep = |i: usize, _: u64, _: Option<u64>| i % 3 != 1 && !i.is_multiple_of(7);
        for n in [0, 1, 7, 600, 1500] {
            let x: Vec<u64> = (0..n as u64).map(|i| i * 11).collect();
            let pick = |yes: bool| -> Vec<u64> {
                (0..n)
                    .filter(|&i| keep(i, 0, None) == yes)
                    .map(|i| x[i])
                    .collect()
            };
            let (want_k, want_r) = (pick(true), pick(false));
            let (mut ks, mut rs) = (vec![0u64; n], vec![0u64; n]);
            let none = |_: &[u64]| panic!("drained a whole-block gather");
            let (k, r) = gather(
                (&x, 0, None),
                &keep,
                &mut ks,
                Some(&mut rs),
                (usize::MAX, none),
                (usize::MAX, none),
            );
            assert_eq!(
                (&ks[..k], &rs[..r]),
                (&want_k[..], &want_r[..]),
                "whole, n {n}"
            );
            for first in [1, 5, CHUNK] {
                let (mut got_k, mut got_r) = (Vec::new(), Vec::new());
                let (mut ks, mut rs) = (vec![0u64; CHUNK + 1], vec![0u64; CHUNK + 1]);
                let (k, r) = gather(
                    (&x, 0, None),
                    &keep,
                    &mut ks,
                    Some(&mut rs),
                    (first, |s: &[u64]| got_k.extend_from_slice(s)),
                    (first, |s: &[u64]| got_r.extend_from_slice(s)),
                );
                got_k.extend_from_slice(&ks[..k]);
                got_r.extend_from_slice(&rs[..r]);
                assert_eq!(
                    (got_k, got_r),
                    (want_k.clone(), want_r.clone()),
                    "n {n}, first {first}"
                );
            }
        }
    }
}
