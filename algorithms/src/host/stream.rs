//! Non-temporal copies: large outputs leave through the write-combining
//! buffers instead of the cache. An ordinary store first reads the
//! destination line (read for ownership), so a streamed output moves two
//! thirds of the bytes of a scan's plain-store output.

/// Copies `src` to `dst` with non-temporal stores where `dst` is 16-byte
/// aligned (plain stores for the unaligned head and the tail). Streaming
/// stores are weakly ordered: call [`fence`] before publishing the data to
/// another thread. Without SSE2 (not x86-64) it is a plain copy.
///
/// # Safety
/// `dst` is valid for writes of `src.len()` elements and does not overlap
/// `src`, and nothing else accesses it during the call.
pub(crate) unsafe fn copy_nt<T: Copy>(dst: *mut T, src: &[T]) {
    let bytes = std::mem::size_of_val(src);
    let (d, s) = (dst.cast::<u8>(), src.as_ptr().cast::<u8>());
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: forwarded contract; the region is `bytes` long on both sides.
        unsafe { copy_nt_x86(d, s, bytes) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: forwarded contract.
        unsafe { std::ptr::copy_nonoverlapping(s, d, bytes) }
    }
}

/// # Safety
/// As for [`copy_nt`], with byte pointers to `n` bytes.
#[cfg(target_arch = "x86_64")]
#[inline]
unsafe fn copy_nt_x86(d: *mut u8, s: *const u8, n: usize) {
    let head = d.align_offset(16).min(n);
    // SAFETY: `head <= n` bytes of both regions (the caller's contract).
    unsafe { std::ptr::copy_nonoverlapping(s, d, head) };
    let mut k = head;
    while k + 64 <= n {
        // SAFETY: `k + 64 <= n`, so the line is in bounds of both regions;
        // `d + k` is 16-byte aligned (`head` made it so, and k grows by 64).
        unsafe { line_nt(d.add(k), s.add(k)) };
        k += 64;
    }
    while k + 16 <= n {
        // SAFETY: as above, 16 bytes.
        unsafe { vector_nt(d.add(k), s.add(k)) };
        k += 16;
    }
    // SAFETY: the remaining `n - k` bytes are in bounds of both regions.
    unsafe { std::ptr::copy_nonoverlapping(s.add(k), d.add(k), n - k) };
}

/// Streams 16 bytes from `s` to `d` (16-byte aligned) through an `xmm`
/// register, in assembly: like `memcpy`, it moves bytes without reading
/// them as values, so an element's padding (uninitialised bytes) may be
/// among them, which a load through an intrinsic would make a value.
///
/// # Safety
/// `s` is valid for 16 bytes of reads, `d` for 16 bytes of writes and
/// 16-byte aligned.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn vector_nt(d: *mut u8, s: *const u8) {
    // SAFETY: the caller's contract covers both accesses; SSE2 is in the
    // x86-64 baseline; the block touches no stack and no flags.
    unsafe {
        std::arch::asm!(
            "movdqu {v}, [{s}]",
            "movntdq [{d}], {v}",
            s = in(reg) s,
            d = in(reg) d,
            v = out(xmm_reg) _,
            options(nostack, preserves_flags),
        )
    };
}

/// Asks for the 64-byte lines of `bytes` bytes from `from` in L2, without
/// waiting for them: a block's input arrives while the thread streams the
/// previous block's output, so reads and writes overlap as in a copy. A
/// prefetch never faults, so any address is allowed.
#[inline(always)]
pub(crate) fn prefetch(from: *const u8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    for k in (0..bytes).step_by(64) {
        // SAFETY: a prefetch is a hint with no memory access semantics: it
        // cannot fault or change a value, whatever the address (so the
        // wrapping offset may even leave the allocation). SSE is in the
        // x86-64 baseline.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
            _mm_prefetch::<_MM_HINT_T1>(from.wrapping_add(k).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (from, bytes);
}

/// How far ahead of a read from memory [`fetch_ahead`] asks for lines.
///
/// The radix sort's reads of keys from memory (its survey, its global
/// pass, each bucket's first read) and compaction's packing loop spend a
/// few instructions per element, and their loads reach only a few lines
/// past the one in use: the hardware prefetchers then leave a core
/// reading at a fraction of the rate of a plain fold, which keeps many
/// lines in flight. Asking for each line 2 KiB early gives those loops
/// the lines in flight they lack (1 KiB gains nearly as much, 4 KiB no
/// more); the sorts and compactions depend on it for the figures in
/// benches/RESULTS.md.
pub(crate) const AHEAD: usize = 2048;

/// Asks for the lines of elements `at..at + count` of `xs`, [`AHEAD`]
/// bytes further on, in L1 without waiting for them: called once per
/// line read, it keeps a read's lines arriving ahead of its loop. A
/// prefetch never faults, so the lines may lie past the slice's end.
#[inline(always)]
pub(crate) fn fetch_ahead<T>(xs: &[T], at: usize, count: usize) {
    let size = std::mem::size_of::<T>();
    let from = xs.as_ptr().cast::<u8>().wrapping_add(at * size + AHEAD);
    #[cfg(target_arch = "x86_64")]
    for k in (0..count * size).step_by(64) {
        // SAFETY: as in `prefetch`: a hint that cannot fault, whatever the
        // (wrapping) address.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(from.wrapping_add(k).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (from, count);
}

/// Calls `f(at, run)` for `xs` in order, in runs of one 64-byte line's
/// elements starting at element `at`, each after asking for the lines
/// [`AHEAD`] bytes further on ([`fetch_ahead`]): the shape of a read from
/// memory that does a few instructions per element.
#[inline(always)]
pub(crate) fn by_lines<T>(xs: &[T], mut f: impl FnMut(usize, &[T])) {
    let line = (64 / std::mem::size_of::<T>().max(1)).max(1);
    for (c, run) in xs.chunks(line).enumerate() {
        fetch_ahead(xs, c * line, run.len());
        f(c * line, run);
    }
}

/// Whether a block's reads may overlap the previous block's streaming
/// stores through prefetches of its lines (the scans prefetch their next
/// block into L2 while they stream a block out).
///
/// On AMD's cores that makes the scans of large arrays markedly faster.
/// Intel's cores hold streaming stores in the line fill buffers that
/// their prefetches and misses wait for, and there the same prefetches
/// stall both: a scan runs slower with them than without, and fastest
/// when each block instead asks for its own lines [`AHEAD`] bytes ahead
/// of its first pass. So on Intel the
/// scans take the latter, and run the next block's first pass between
/// their streaming stores with real loads instead (`scan::host::aggregate::Pass1`).
pub(crate) fn reads_overlap_streams() -> bool {
    static OVERLAP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OVERLAP.get_or_init(|| !intel())
}

/// Whether the CPU's vendor is Intel.
fn intel() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let id = std::arch::x86_64::__cpuid(0);
        // "GenuineIntel", split over EBX, EDX and ECX.
        (id.ebx, id.edx, id.ecx) == (0x756e_6547, 0x4965_6e69, 0x6c65_746e)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Copies one 64-byte line with non-temporal stores, in assembly, as
/// [`vector_nt`] does 16 bytes (the bytes may include padding).
///
/// # Safety
/// `dst` is 16-byte aligned and valid for 64 bytes of writes, `src` for 64
/// bytes of reads, they do not overlap, and nothing else accesses `dst`.
#[inline(always)]
pub(crate) unsafe fn line_nt(dst: *mut u8, src: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract covers the 64 bytes on both sides;
    // SSE2 is in the x86-64 baseline; the block touches no stack or flags.
    unsafe {
        std::arch::asm!(
            "movdqu {a}, [{s}]",
            "movdqu {b}, [{s} + 16]",
            "movdqu {c}, [{s} + 32]",
            "movdqu {e}, [{s} + 48]",
            "movntdq [{d}], {a}",
            "movntdq [{d} + 16], {b}",
            "movntdq [{d} + 32], {c}",
            "movntdq [{d} + 48], {e}",
            s = in(reg) src,
            d = in(reg) dst,
            a = out(xmm_reg) _,
            b = out(xmm_reg) _,
            c = out(xmm_reg) _,
            e = out(xmm_reg) _,
            options(nostack, preserves_flags),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, 64)
    };
}

/// A copy with streaming stores made a line at a time between the lines
/// of other work ([`step`](Self::step)), so that its stores overlap that
/// work instead of waiting on the write-combining buffers in a loop of
/// their own. The radix sort streams each sorted bucket out this way
/// while it counts the next one.
pub(crate) struct Trickle {
    src: *const u8,
    dst: *mut u8,
    len: usize,
    /// Bytes copied so far.
    at: usize,
}

impl Trickle {
    /// Nothing to copy.
    pub(crate) fn none() -> Trickle {
        Trickle {
            src: std::ptr::null(),
            dst: std::ptr::null_mut(),
            len: 0,
            at: 0,
        }
    }

    /// A copy of `src` to `dst`. The bytes up to `dst`'s first line
    /// boundary are copied now, so that every step writes a whole line.
    ///
    /// # Safety
    /// Until [`finish`](Self::finish) returns, `src` stays valid and
    /// unwritten, `dst` is valid for `src.len()` elements of writes, and
    /// nothing else accesses `dst`; the two do not overlap.
    pub(crate) unsafe fn new<T: Copy>(dst: *mut T, src: &[T]) -> Trickle {
        let len = std::mem::size_of_val(src);
        let (src, dst) = (src.as_ptr().cast::<u8>(), dst.cast::<u8>());
        let at = dst.align_offset(64).min(len);
        // SAFETY: `at <= len` bytes of both (the contract).
        unsafe { std::ptr::copy_nonoverlapping(src, dst, at) };
        Trickle { src, dst, len, at }
    }

    /// Copies the next line, if a whole one is left.
    #[inline(always)]
    pub(crate) fn step(&mut self) {
        if self.at + 64 <= self.len {
            // SAFETY: `at + 64 <= len`, inside both regions (`new`'s
            // contract); `dst + at` starts a line, so it is 16-byte aligned.
            unsafe { line_nt(self.dst.add(self.at), self.src.add(self.at)) };
            self.at += 64;
        }
    }

    /// Copies what is left and orders the streaming stores before this
    /// thread's later stores ([`fence`]).
    pub(crate) fn finish(&mut self) {
        if self.len == 0 {
            return;
        }
        let rest = self.len - self.at;
        // SAFETY: the rest of both regions (`new`'s contract).
        unsafe {
            copy_nt(
                self.dst.add(self.at),
                std::slice::from_raw_parts(self.src.add(self.at), rest),
            )
        };
        self.at = self.len;
        fence();
    }
}

/// Orders this thread's streaming stores before its later stores (and so
/// before the release that publishes them): once per block, not per copy,
/// since a fence waits for the write-combining buffers to drain.
#[inline]
pub(crate) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a store fence has no preconditions.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offset_and_length_copies_exactly() {
        let src: Vec<u8> = (0..300u32).map(|i| (i * 7) as u8).collect();
        for off in 0..20 {
            for len in [0, 1, 15, 16, 17, 63, 64, 65, 200, 280] {
                let mut dst = vec![0xAAu8; 300];
                // SAFETY: `off + len <= 300`, disjoint vectors.
                unsafe { copy_nt(dst.as_mut_ptr().add(off), &src[..len]) };
                fence();
                assert_eq!(&dst[off..off + len], &src[..len]);
                assert!(dst[..off]
                    .iter()
                    .chain(&dst[off + len..])
                    .all(|&b| b == 0xAA));
            }
        }
    }

    /// A trickled copy writes exactly its bytes, however many steps it
    /// took before it finished, at every offset from a line.
    #[test]
    fn a_trickle_copies_exactly() {
        let src: Vec<u8> = (0..400u32).map(|i| (i * 13 + 5) as u8).collect();
        for off in 0..70 {
            for len in [0, 1, 63, 64, 65, 130, 300] {
                for steps in [0, 1, 2, 10] {
                    let mut dst = vec![0xAAu8; 400];
                    // SAFETY: `off + len <= 400`, disjoint vectors, both
                    // alive and otherwise untouched until `finish`.
                    let mut t = unsafe { Trickle::new(dst.as_mut_ptr().add(off), &src[..len]) };
                    for _ in 0..steps {
                        t.step();
                    }
                    t.finish();
                    assert_eq!(&dst[off..off + len], &src[..len], "{off} {len} {steps}");
                    assert!(dst[..off]
                        .iter()
                        .chain(&dst[off + len..])
                        .all(|&b| b == 0xAA));
                }
            }
        }
    }

    /// The vendor read from CPUID is the one the kernel reports.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    #[test]
    fn the_cpu_vendor_matches_the_kernels() {
        let info = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo");
        let vendor = (info.lines())
            .find_map(|l| l.strip_prefix("vendor_id"))
            .map(|v| v.trim_start_matches([' ', '\t', ':']).trim())
            .expect("a vendor_id line");
        assert_eq!(intel(), vendor == "GenuineIntel", "vendor {vendor}");
        assert_eq!(reads_overlap_streams(), !intel());
    }
}
