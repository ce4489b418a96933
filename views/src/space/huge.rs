//! Large host allocations mapped straight from Linux on transparent huge
//! pages.
//!
//! A View streamed through memory on 4 KiB pages takes a TLB miss every
//! 64 cache lines, and under a hypervisor each miss is a two-level page
//! walk. On the development VM (KVM, THP in its default `madvise` mode) a
//! 2-thread streaming copy of 1 GiB took 64–70 ms between 4 KiB pages and
//! 49–52 ms between huge pages. In criterion, a sequential `f64` scan
//! loop over 8 MiB took 0.65 against 0.88 ms, and `copy_if` of 2^27 i64
//! 57–62 against 67–69 ms (granule's scans, which read eight streams at
//! once, gained at most 3%).
//!
//! The memory comes from `mmap` rather than the global allocator because
//! an anonymous mapping is zero already and faulted in lazily, as
//! `calloc`'s is: a zeroed View costs nothing until it is touched, where an
//! over-aligned `alloc_zeroed` would clear every byte at once. The mapping
//! is trimmed to start on a 2 MiB boundary, so that all of it but the tail
//! can be backed by huge pages, and is advised `MADV_HUGEPAGE`, which Linux
//! needs unless THP is set to `always`. Where THP is off the advice fails
//! and the View keeps small pages, which is only slower. A program run
//! with `GRANULE_HUGE_PAGES=0` never comes here (`HostSpace` reads the
//! switch), for a heap profiler or a custom allocator to see every View.
//!
//! A fresh mapping is faulted in and cleared by the kernel, so freed
//! mappings of up to [`KEEP_MAX`] bytes, at most [`KEEP`] of them and
//! [`KEEP_BYTES`] in all (as much as glibc's heap may keep before it
//! trims), are kept and handed out again for the same size: a loop that
//! allocates a temporary View then costs no page faults. On the
//! development VM a loop making one `from_fn` and one `zeros` View of
//! 8 MiB took 7.3 ms an iteration from the global allocator (glibc, small
//! pages), 2.2 ms from fresh huge mappings and 2.0 ms with the kept ones;
//! of 64 MiB, 79 ms and 21 ms.

use std::ptr::NonNull;
use std::sync::Mutex;

/// A huge page on x86-64 and aarch64 Linux: the alignment of a mapping.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// The largest freed mapping kept for reuse.
const KEEP_MAX: usize = 32 << 20;

/// How many freed mappings are kept.
const KEEP: usize = 4;

/// The most bytes the kept mappings may hold in all.
const KEEP_BYTES: usize = 64 << 20;

/// Freed mappings (address, bytes asked for), oldest first.
static KEPT: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// `bytes` bytes, zeroed when `zeroed`, aligned to [`HUGE_PAGE`] and
/// advised to live on huge pages: a kept mapping of the same size, or a
/// fresh one. Release them with [`unmap`].
pub(crate) fn map(bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String> {
    if let Some(at) = take_kept(bytes) {
        if zeroed {
            // SAFETY: the kept mapping holds `bytes` bytes, ours alone.
            unsafe { std::ptr::write_bytes(at.as_ptr(), 0, bytes) };
        }
        return Ok(at);
    }
    map_fresh(bytes)
}

/// A kept mapping of exactly `bytes` bytes (so that [`unmap`] later frees
/// all of it), taken out of the list.
fn take_kept(bytes: usize) -> Option<NonNull<u8>> {
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let k = kept.iter().rposition(|&(_, b)| b == bytes)?;
    NonNull::new(kept.remove(k).0 as *mut u8)
}

/// A fresh mapping of `bytes` zero bytes: see [`map`].
fn map_fresh(bytes: usize) -> Result<NonNull<u8>, String> {
    let span = bytes
        .checked_add(HUGE_PAGE)
        .ok_or_else(|| format!("{bytes} bytes do not fit in the address space"))?;
    // SAFETY: an anonymous private mapping at an address of the kernel's
    // choosing touches no existing memory.
    let at = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if at == libc::MAP_FAILED {
        let why = std::io::Error::last_os_error();
        return Err(format!("mmap of {span} bytes failed: {why}"));
    }
    let (start, end) = (at as usize, at as usize + span);
    let first = start.next_multiple_of(HUGE_PAGE);
    let last = first + bytes.next_multiple_of(page_size());
    // SAFETY: both ranges lie inside the mapping just made, outside the
    // part kept, and start on page boundaries (`mmap` returns one, and
    // `first` and `last` are that plus whole pages).
    unsafe {
        unmap_range(start, first - start);
        unmap_range(last, end - last);
    }
    // SAFETY: the kept range is mapped and ours; the advice changes how it
    // is paged in, never its contents. A refusal (THP off) is not an error.
    let _ = unsafe { libc::madvise(first as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE) };
    NonNull::new(first as *mut u8).ok_or_else(|| "mmap returned address 0".into())
}

/// Releases what [`map`] returned: keeps it for the next [`map`] of its
/// size when it is small enough, dropping the oldest kept ones beyond
/// [`KEEP`] or [`KEEP_BYTES`], or unmaps it.
///
/// # Safety
/// `ptr` and `bytes` are one earlier [`map`]'s address and size, not yet
/// released, and nothing uses the memory any more.
pub(crate) unsafe fn unmap(ptr: NonNull<u8>, bytes: usize) {
    let mut free = vec![(ptr.as_ptr() as usize, bytes)];
    if bytes <= KEEP_MAX {
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        kept.push(free.remove(0));
        while kept.len() > KEEP || kept.iter().map(|&(_, b)| b).sum::<usize>() > KEEP_BYTES {
            free.push(kept.remove(0));
        }
    }
    for (at, bytes) in free {
        // SAFETY: the caller's contract for the one given, and the kept
        // ones were given so before; `map` kept exactly these pages.
        unsafe { unmap_range(at, bytes) };
    }
}

/// # Safety
/// `start..start + len` is mapped by this module and unused; `start` is
/// on a page boundary.
unsafe fn unmap_range(start: usize, len: usize) {
    if len == 0 {
        return;
    }
    // SAFETY: the caller's contract.
    let done = unsafe { libc::munmap(start as *mut libc::c_void, len) };
    debug_assert_eq!(done, 0, "munmap of {len} bytes at {start:#x}");
}

fn page_size() -> usize {
    // SAFETY: sysconf reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page).unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept mappings are process-wide: the tests that map run one at
    /// a time, with sizes no other unit test of this crate allocates.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[test]
    fn mappings_are_aligned_zeroed_writable_and_released() {
        let _one = one_at_a_time();
        for bytes in [1, 4096, HUGE_PAGE - 1, HUGE_PAGE, 3 * HUGE_PAGE + 12345] {
            let p = map(bytes, true).expect("map");
            assert_eq!(p.as_ptr() as usize % HUGE_PAGE, 0, "{bytes} bytes");
            // SAFETY: the mapping holds `bytes` bytes and is ours alone.
            let all = unsafe { std::slice::from_raw_parts_mut(p.as_ptr(), bytes) };
            assert!(all.iter().all(|&b| b == 0), "{bytes} bytes start zeroed");
            all.fill(0x5A);
            assert_eq!(all[bytes - 1], 0x5A);
            // SAFETY: mapped just above; the slice is not used after.
            unsafe { unmap(p, bytes) };
        }
    }

    #[test]
    fn freed_mappings_of_a_size_come_back_zeroed_when_asked() {
        let _one = one_at_a_time();
        let bytes = 5 * HUGE_PAGE + 777;
        let p = map(bytes, true).expect("map");
        // SAFETY: the mapping holds `bytes` bytes; released just after.
        unsafe {
            std::ptr::write_bytes(p.as_ptr(), 0xA5, bytes);
            unmap(p, bytes);
        }
        let again = map(bytes, false).expect("map");
        assert_eq!(again, p, "the kept mapping is handed out again");
        // SAFETY: the mapping holds `bytes` bytes, written above.
        let last = unsafe { *again.as_ptr().add(bytes - 1) };
        assert_eq!(last, 0xA5, "not cleared");
        // SAFETY: released once.
        unsafe { unmap(again, bytes) };
        let zeroed = map(bytes, true).expect("map");
        assert_eq!(zeroed, p);
        // SAFETY: the mapping holds `bytes` bytes.
        let all = unsafe { std::slice::from_raw_parts(zeroed.as_ptr(), bytes) };
        assert!(all.iter().all(|&b| b == 0), "cleared when zeroed is asked");
        let other = map(bytes + 4096, false).expect("map");
        assert_ne!(other, p, "only the same size is reused");
        // SAFETY: both released once.
        unsafe {
            unmap(zeroed, bytes);
            unmap(other, bytes + 4096);
        }
    }

    #[test]
    fn keeping_stays_within_its_bounds() {
        let _one = one_at_a_time();
        let sizes = [
            KEEP_MAX,
            KEEP_MAX - 4096,
            HUGE_PAGE,
            HUGE_PAGE + 1,
            7 * 4096,
        ];
        let maps: Vec<_> = sizes
            .iter()
            .map(|&b| (map(b, false).expect("map"), b))
            .collect();
        for &(p, b) in &maps {
            // SAFETY: each released once.
            unsafe { unmap(p, b) };
        }
        let kept = KEPT.lock().unwrap().clone();
        assert!(kept.len() <= KEEP, "{kept:?}");
        assert!(kept.iter().map(|&(_, b)| b).sum::<usize>() <= KEEP_BYTES);
        assert_eq!(kept.last().map(|&(_, b)| b), Some(7 * 4096), "newest kept");
        let big = 2 * KEEP_MAX;
        let p = map(big, false).expect("map");
        // SAFETY: released once.
        unsafe { unmap(p, big) };
        assert!(KEPT.lock().unwrap().iter().all(|&(_, b)| b <= KEEP_MAX));
    }

    #[test]
    fn an_impossible_size_is_an_error_that_says_so() {
        let why = map(usize::MAX - 10, true).expect_err("too large");
        assert!(why.contains("address space"), "{why}");
        let why = map(1 << 62, true).expect_err("too large");
        assert!(why.contains("mmap of"), "{why}");
    }
}
