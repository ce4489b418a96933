//! Large host allocations mapped straight from Linux on transparent huge
//! pages.
//!
//! A View streamed through memory on 4 KiB pages takes a TLB miss every
//! 64 cache lines, and under a hypervisor each miss is a two-level page
//! walk. On the development VM (KVM, THP in its default `madvise` mode) a
//! 2-thread streaming copy of 1 GiB took 64–70 ms between 4 KiB pages and
//! 49–52 ms between huge pages, and `exclusive_scan` of 2^27 i64 and
//! `copy_if` gained 8–20% with them.
//!
//! The memory comes from `mmap` rather than the global allocator because
//! an anonymous mapping is zero already and faulted in lazily, as
//! `calloc`'s is: a zeroed View costs nothing until it is touched, where an
//! over-aligned `alloc_zeroed` would clear every byte at once. The mapping
//! is trimmed to start on a 2 MiB boundary, so that all of it but the tail
//! can be backed by huge pages, and is advised `MADV_HUGEPAGE`, which Linux
//! needs unless THP is set to `always`. Where THP is off the advice fails
//! and the View keeps small pages, which is only slower.

use std::ptr::NonNull;

/// A huge page on x86-64 and aarch64 Linux: the alignment of a mapping.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// `bytes` zeroed bytes, aligned to [`HUGE_PAGE`] and advised to live on
/// huge pages. Release them with [`unmap`].
pub(crate) fn map(bytes: usize) -> Result<NonNull<u8>, String> {
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

/// Releases what [`map`] returned.
///
/// # Safety
/// `ptr` and `bytes` are one earlier [`map`]'s address and size, not yet
/// released, and nothing uses the memory any more.
pub(crate) unsafe fn unmap(ptr: NonNull<u8>, bytes: usize) {
    // SAFETY: the caller's contract; `map` kept exactly these pages.
    unsafe { unmap_range(ptr.as_ptr() as usize, bytes) };
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

    #[test]
    fn mappings_are_aligned_zeroed_writable_and_released() {
        for bytes in [1, 4096, HUGE_PAGE - 1, HUGE_PAGE, 3 * HUGE_PAGE + 12345] {
            let p = map(bytes).expect("map");
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
    fn an_impossible_size_is_an_error_that_says_so() {
        let why = map(usize::MAX - 10).expect_err("too large");
        assert!(why.contains("address space"), "{why}");
        let why = map(1 << 62).expect_err("too large");
        assert!(why.contains("mmap of"), "{why}");
    }
}
