//! The host pool: large host allocations kept for the next allocation of
//! their size.
//!
//! A fresh mapping is faulted in and cleared by the kernel page by page,
//! so a loop that makes a temporary View, or a sort that needs scratch as
//! large as its keys, would pay for that on every call. Freed mappings are
//! kept instead, at most [`POOL_BUFFERS`] of them and [`POOL_BYTES`] in
//! all (the oldest go first), and handed out again for the same span
//! (whole huge pages), cleared only when a zeroed allocation asks, as
//! Kokkos keeps its spaces' scratch. Views and the algorithms' temporaries
//! share this one pool; [`release_kept`] empties it, and
//! `GRANULE_HUGE_PAGES=0` ([`HUGE_PAGES_VAR`](super::HUGE_PAGES_VAR))
//! turns it off with the huge pages, sending every allocation to the
//! global allocator.

use super::huge;
use std::ptr::NonNull;
use std::sync::Mutex;

/// The most freed host allocations the pool keeps.
///
/// ```
/// assert_eq!(granule_views::space::POOL_BUFFERS, 4);
/// ```
pub const POOL_BUFFERS: usize = 4;

/// The most bytes the pool keeps in all; a larger allocation goes back to
/// the kernel when it is freed.
///
/// ```
/// assert_eq!(granule_views::space::POOL_BYTES, 256 << 20);
/// ```
pub const POOL_BYTES: usize = 256 << 20;

/// Kept mappings (address, span), oldest first.
static KEPT: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

fn kept() -> std::sync::MutexGuard<'static, Vec<(usize, usize)>> {
    KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

/// `bytes` bytes, zeroed when `zeroed`, aligned to a huge page and advised
/// to live on huge pages: a kept mapping of the same span, or a fresh one.
/// Give them back with [`give_back`].
pub(crate) fn take(bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String> {
    let span = huge::span(bytes)
        .ok_or_else(|| format!("{bytes} bytes do not fit in the address space"))?;
    let reused = {
        let mut kept = kept();
        let k = kept.iter().rposition(|&(_, s)| s == span);
        k.map(|k| kept.remove(k).0)
    };
    match reused.and_then(|at| NonNull::new(at as *mut u8)) {
        Some(at) => {
            if zeroed {
                // SAFETY: the kept mapping spans at least `bytes` bytes and
                // is ours alone now.
                unsafe { std::ptr::write_bytes(at.as_ptr(), 0, bytes) };
            }
            Ok(at)
        }
        None => huge::map_fresh(span),
    }
}

/// Keeps what [`take`] returned for a later [`take`] of its span, dropping
/// the oldest kept ones beyond [`POOL_BUFFERS`] or [`POOL_BYTES`], or
/// returns it to the kernel when it alone is larger than `POOL_BYTES`.
///
/// # Safety
/// `ptr` and `bytes` are one earlier [`take`]'s address and size, not yet
/// given back, and nothing uses the memory any more.
pub(crate) unsafe fn give_back(ptr: NonNull<u8>, bytes: usize) {
    let span = huge::span(bytes).expect("take computed this span");
    let mut free = vec![(ptr.as_ptr() as usize, span)];
    if span <= POOL_BYTES {
        let mut kept = kept();
        kept.push(free.remove(0));
        while kept.len() > POOL_BUFFERS || kept.iter().map(|&(_, s)| s).sum::<usize>() > POOL_BYTES
        {
            free.push(kept.remove(0));
        }
    }
    for (at, span) in free {
        // SAFETY: the caller's contract for the one given, and the kept
        // ones were given so before; `take` mapped exactly these spans.
        unsafe { huge::unmap(at, span) };
    }
}

/// Returns every allocation the host pool keeps to the kernel, and their
/// bytes. Call it once no more large temporaries follow and the memory is
/// wanted back; the next large allocation maps fresh memory again.
///
/// ```
/// use granule_views::{space::release_kept, View1};
/// drop(View1::<u8>::zeros("temporary", 8 << 20)?);
/// let off = std::env::var_os("GRANULE_HUGE_PAGES").is_some_and(|v| v == "0");
/// if cfg!(target_os = "linux") && !off {
///     assert!(release_kept() >= 8 << 20, "the View's memory was kept");
/// }
/// assert_eq!(release_kept(), 0);
/// # Ok::<(), granule_views::ViewError>(())
/// ```
pub fn release_kept() -> usize {
    let all = std::mem::take(&mut *kept());
    for &(at, span) in &all {
        // SAFETY: kept mappings are unused, and each is unmapped once.
        unsafe { huge::unmap(at, span) };
    }
    all.iter().map(|&(_, s)| s).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use huge::HUGE_PAGE;

    /// The pool is process-wide: the tests that use it run one at a time,
    /// with spans no other unit test of this crate allocates.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[test]
    fn freed_memory_of_a_span_comes_back_zeroed_when_asked() {
        let _one = one_at_a_time();
        let bytes = 37 * HUGE_PAGE + 777;
        let p = take(bytes, true).expect("take");
        // SAFETY: the mapping holds `bytes` bytes; given back just after.
        unsafe {
            std::ptr::write_bytes(p.as_ptr(), 0xA5, bytes);
            give_back(p, bytes);
        }
        let again = take(bytes - 500, false).expect("take");
        assert_eq!(again, p, "the kept mapping is handed out for its span");
        // SAFETY: the mapping holds `bytes` bytes, written above.
        let last = unsafe { *again.as_ptr().add(bytes - 501) };
        assert_eq!(last, 0xA5, "not cleared");
        // SAFETY: given back once.
        unsafe { give_back(again, bytes - 500) };
        let zeroed = take(bytes, true).expect("take");
        assert_eq!(zeroed, p);
        // SAFETY: the mapping holds `bytes` bytes.
        let all = unsafe { std::slice::from_raw_parts(zeroed.as_ptr(), bytes) };
        assert!(all.iter().all(|&b| b == 0), "cleared when zeroed is asked");
        let other = take(bytes + HUGE_PAGE, false).expect("take");
        assert_ne!(other, p, "only the same span is reused");
        // SAFETY: both given back once.
        unsafe {
            give_back(zeroed, bytes);
            give_back(other, bytes + HUGE_PAGE);
        }
    }

    #[test]
    fn keeping_stays_within_its_bounds_and_release_empties_it() {
        let _one = one_at_a_time();
        let spans = [41, 43, 47, 53, 59, 3].map(|pages| pages * HUGE_PAGE);
        let taken: Vec<_> = spans
            .iter()
            .map(|&b| (take(b, false).expect("take"), b))
            .collect();
        for &(p, b) in &taken {
            // SAFETY: each given back once.
            unsafe { give_back(p, b) };
        }
        {
            let kept = kept();
            assert!(kept.len() <= POOL_BUFFERS, "{kept:?}");
            assert!(kept.iter().map(|&(_, s)| s).sum::<usize>() <= POOL_BYTES);
            assert_eq!(
                kept.last().map(|&(_, s)| s),
                Some(3 * HUGE_PAGE),
                "newest kept"
            );
        }
        let big = POOL_BYTES + HUGE_PAGE;
        let p = take(big, false).expect("take");
        // SAFETY: given back once.
        unsafe { give_back(p, big) };
        assert!(
            kept().iter().all(|&(_, s)| s <= POOL_BYTES),
            "too large to keep"
        );
        assert!(release_kept() >= 3 * HUGE_PAGE);
    }

    #[test]
    fn an_impossible_size_is_an_error_that_says_so() {
        let why = take(usize::MAX - 10, true).expect_err("too large");
        assert!(why.contains("address space"), "{why}");
    }
}
