//! Large host allocations mapped straight from Linux on transparent huge
//! pages.
//!
//! A View streamed through memory on 4 KiB pages takes a TLB miss every
//! 64 cache lines, and under a hypervisor each miss is a two-level page
//! walk; on 2 MiB pages a streaming pass takes one miss per 32768 lines.
//!
//! The memory comes from `mmap` rather than the global allocator because
//! an anonymous mapping is zero already and faulted in lazily, as
//! `calloc`'s is: a zeroed View costs nothing until it is touched, where an
//! over-aligned `alloc_zeroed` would clear every byte at once. The mapping
//! is trimmed to start on a 2 MiB boundary and to span whole huge pages,
//! so that all of it can be backed by huge pages, and is advised
//! `MADV_HUGEPAGE`, which Linux needs unless THP is set to `always`. Where
//! THP is off the advice fails and the View keeps small pages, which is
//! only slower. Freed mappings go back to the host pool
//! ([`super::pool`]), not straight to the kernel.

use rustix::mm::{self, Advice, MapFlags, ProtFlags};
use std::ptr::NonNull;

/// A huge page on x86-64 and aarch64 Linux: the alignment of a mapping
/// and the unit its length is rounded up to.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// The bytes a mapping for `bytes` bytes spans: whole huge pages, so that
/// any request of the same span can reuse it. `None` past the address
/// space.
pub(crate) fn span(bytes: usize) -> Option<usize> {
    bytes.checked_next_multiple_of(HUGE_PAGE)
}

/// A fresh zeroed mapping of `span` bytes (a multiple of [`HUGE_PAGE`]),
/// aligned to [`HUGE_PAGE`] and advised to live on huge pages.
pub(crate) fn map_fresh(span: usize) -> Result<NonNull<u8>, String> {
    let room = span
        .checked_add(HUGE_PAGE)
        .ok_or_else(|| format!("{span} bytes do not fit in the address space"))?;
    // SAFETY: an anonymous private mapping at an address of the kernel's
    // choosing touches no existing memory.
    let at = unsafe {
        mm::mmap_anonymous(
            std::ptr::null_mut(),
            room,
            ProtFlags::READ | ProtFlags::WRITE,
            MapFlags::PRIVATE,
        )
    }
    .map_err(|why| format!("mmap of {room} bytes failed: {why}"))?;
    let (start, end) = (at as usize, at as usize + room);
    let first = start.next_multiple_of(HUGE_PAGE);
    let last = first + span;
    // SAFETY: both ranges lie inside the mapping just made, outside the
    // part kept, and start on page boundaries (`mmap` returns one, and
    // `first` and `last` are that plus whole pages).
    unsafe {
        unmap(start, first - start);
        unmap(last, end - last);
    }
    // SAFETY: the kept range is mapped and ours; the advice changes how it
    // is paged in, never its contents. A refusal (THP off) is not an error.
    let _ = unsafe { mm::madvise(first as *mut _, span, Advice::LinuxHugepage) };
    NonNull::new(first as *mut u8).ok_or_else(|| "mmap returned address 0".into())
}

/// Returns `start..start + len` to the kernel.
///
/// # Safety
/// The range is mapped by this module and unused; `start` is on a page
/// boundary.
pub(crate) unsafe fn unmap(start: usize, len: usize) {
    if len == 0 {
        return;
    }
    // SAFETY: the caller's contract.
    let done = unsafe { mm::munmap(start as *mut _, len) };
    debug_assert!(
        done.is_ok(),
        "munmap of {len} bytes at {start:#x}: {done:?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mappings_are_aligned_zeroed_writable_and_released() {
        for bytes in [1, 4096, HUGE_PAGE - 1, HUGE_PAGE, 3 * HUGE_PAGE + 12345] {
            let span = span(bytes).unwrap();
            assert_eq!(span % HUGE_PAGE, 0);
            let p = map_fresh(span).expect("map");
            assert_eq!(p.as_ptr() as usize % HUGE_PAGE, 0, "{bytes} bytes");
            // SAFETY: the mapping holds `span` bytes and is ours alone.
            let all = unsafe { std::slice::from_raw_parts_mut(p.as_ptr(), span) };
            assert!(all.iter().all(|&b| b == 0), "{bytes} bytes start zeroed");
            all.fill(0x5A);
            assert_eq!(all[span - 1], 0x5A);
            // SAFETY: mapped just above; the slice is not used after.
            unsafe { unmap(p.as_ptr() as usize, span) };
        }
    }

    #[test]
    fn an_impossible_size_is_an_error_that_says_so() {
        assert_eq!(span(usize::MAX - 10), None);
        let why = map_fresh(usize::MAX - HUGE_PAGE + 1).expect_err("too large");
        assert!(why.contains("address space"), "{why}");
        let why = map_fresh(1 << 62).expect_err("too large");
        assert!(why.contains("mmap of"), "{why}");
    }
}
