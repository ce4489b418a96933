#[cfg(target_os = "linux")]
use super::pool;
use super::{CopyToHost, HostAccessible, MemorySpace, SpaceFill, ALLOC_ALIGN};
#[cfg(target_os = "linux")]
use super::{HUGE_PAGES_VAR, HUGE_PAGE_THRESHOLD};
use crate::element::Element;
use crate::error::Result;
use crate::layout::Mapping;
use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// A type whose dangling pointer has the allocation alignment.
#[repr(align(64))]
struct CacheLine;
const _: () = assert!(std::mem::align_of::<CacheLine>() == ALLOC_ALIGN);

/// Ordinary host memory, 64-byte aligned: from the global allocator, or,
/// on Linux, from [`HUGE_PAGE_THRESHOLD`] bytes on, mapped straight from
/// the kernel on transparent huge pages (2 MiB aligned), which streams
/// through memory faster; a large `zeros` View is then faulted in as it is
/// first touched, not cleared when it is made. Freed large allocations are
/// kept by the host pool for the next one of their size (see
/// [`release_kept`](super::release_kept)). `GRANULE_HUGE_PAGES=0`
/// ([`HUGE_PAGES_VAR`](super::HUGE_PAGES_VAR)) sends those to the global
/// allocator too, and so turns the pool off.
///
/// ```
/// use granule_views::{HostSpace, MemorySpace};
/// assert_eq!(HostSpace::NAME, "Host");
/// assert!(HostSpace::IS_HOST_ACCESSIBLE);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostSpace;

// SAFETY: memory comes from the global allocator with the 64-byte alignment
// asked for, zeroed through `alloc_zeroed`, or from an anonymous mapping
// from the host pool (`pool::take`), 2 MiB aligned, zeroed when asked, and
// no longer in use when kept; host code may dereference either.
unsafe impl MemorySpace for HostSpace {
    const NAME: &'static str = "Host";
    const IS_HOST_ACCESSIBLE: bool = true;

    fn allocate(&self, bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String> {
        if bytes == 0 {
            // An aligned, non-null address that is never dereferenced.
            return Ok(NonNull::<CacheLine>::dangling().cast());
        }
        #[cfg(target_os = "linux")]
        if on_huge_pages(bytes)? {
            return pool::take(bytes, zeroed);
        }
        let layout = Layout::from_size_align(bytes, ALLOC_ALIGN).map_err(|e| e.to_string())?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe {
            if zeroed {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        NonNull::new(ptr).ok_or_else(|| "the global allocator returned null (out of memory)".into())
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, bytes: usize) {
        if bytes == 0 {
            return;
        }
        #[cfg(target_os = "linux")]
        if on_huge_pages(bytes) == Ok(true) {
            // SAFETY: `allocate` mapped these very bytes (same size, same
            // rule, read once per process), and the caller releases them
            // once. (With an `Err` here, `allocate` failed for this size,
            // so nothing of it is released.)
            unsafe { pool::give_back(ptr, bytes) };
            return;
        }
        // SAFETY: the caller passes what `allocate` returned for `bytes`,
        // which used exactly this layout (it was valid then, so it is now).
        unsafe {
            alloc::dealloc(
                ptr.as_ptr(),
                Layout::from_size_align_unchecked(bytes, ALLOC_ALIGN),
            );
        }
    }
}

/// Whether an allocation of `bytes` bytes is mapped on huge pages; the
/// same answer for `allocate` and `deallocate`, which is what pairs them,
/// since the switch is read once per process. An `Err` says why the switch
/// could not be read.
#[cfg(target_os = "linux")]
fn on_huge_pages(bytes: usize) -> Result<bool, String> {
    static SWITCH: std::sync::OnceLock<Result<bool, String>> = std::sync::OnceLock::new();
    if bytes < HUGE_PAGE_THRESHOLD {
        return Ok(false);
    }
    SWITCH
        .get_or_init(|| huge_pages_on(std::env::var_os(HUGE_PAGES_VAR).as_deref()))
        .clone()
}

/// What the huge-page switch says, given the variable's value.
#[cfg(target_os = "linux")]
fn huge_pages_on(value: Option<&std::ffi::OsStr>) -> Result<bool, String> {
    let Some(value) = value else {
        return Ok(true);
    };
    match value
        .to_str()
        .map(|v| v.trim().to_ascii_lowercase())
        .as_deref()
    {
        Some("1" | "on" | "true" | "yes") => Ok(true),
        Some("0" | "off" | "false" | "no") => Ok(false),
        _ => Err(format!(
            "{HUGE_PAGES_VAR}={value:?} is not a switch: set it to 0, off, false or no \
             to turn huge pages off, to 1, on, true or yes (or unset it) to keep them"
        )),
    }
}

// SAFETY: `IS_HOST_ACCESSIBLE` is true for HostSpace.
unsafe impl HostAccessible for HostSpace {}

// SAFETY: both sides are host memory; the copies touch exactly the given elements.
unsafe impl CopyToHost for HostSpace {
    unsafe fn copy_contiguous_to_host<T: Element>(
        &self,
        dst: *mut T,
        src: *const T,
        count: usize,
    ) -> Result<(), String> {
        // SAFETY: the caller guarantees both ranges are valid and disjoint.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, count) };
        Ok(())
    }

    unsafe fn copy_mapped_to_host<T: Element, const R: usize>(
        &self,
        dst: *mut T,
        dst_map: &Mapping<R>,
        src: *const T,
        src_map: &Mapping<R>,
    ) -> Result<(), String> {
        dst_map.for_each_index(|idx| {
            // SAFETY: `idx` is within the shared extents, so both offsets are
            // inside their mappings, which the caller guarantees are valid.
            unsafe { *dst.add(dst_map.offset(idx)) = *src.add(src_map.offset(idx)) };
        });
        Ok(())
    }
}

// SAFETY: host memory; the loops write exactly the mapping's elements.
unsafe impl<T: Element> SpaceFill<T> for HostSpace {
    unsafe fn fill_mapped<const R: usize>(
        &self,
        _label: &str,
        dst: *mut T,
        map: &Mapping<R>,
        value: T,
    ) -> Result<(), String> {
        if map.is_contiguous() {
            // SAFETY: a contiguous mapping's elements are its `size`
            // offsets from `dst`, which the caller lends uniquely.
            unsafe { std::slice::from_raw_parts_mut(dst, map.size()) }.fill(value);
        } else {
            map.for_each_index(|idx| {
                // SAFETY: `idx` is inside the mapping, whose offsets the
                // caller lends uniquely.
                unsafe { dst.add(map.offset(idx)).write(value) };
            });
        }
        Ok(())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn the_huge_page_switch_reads_its_words_and_names_a_bad_one() {
        assert_eq!(huge_pages_on(None), Ok(true), "unset: on");
        for on in ["1", "on", "TRUE", " yes "] {
            assert_eq!(huge_pages_on(Some(OsStr::new(on))), Ok(true), "{on}");
        }
        for off in ["0", "off", "False", "no"] {
            assert_eq!(huge_pages_on(Some(OsStr::new(off))), Ok(false), "{off}");
        }
        for bad in ["", "2", "maybe"] {
            let err = huge_pages_on(Some(OsStr::new(bad))).expect_err(bad);
            assert!(err.contains(HUGE_PAGES_VAR) && err.contains("off"), "{err}");
        }
    }

    /// Runs [`what_the_switch_does_here`] in a child process with the
    /// variable set to `value`: the switch is read once per process.
    fn child_with(value: &str) -> String {
        let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args(["--exact", "space::host::tests::what_the_switch_does_here"])
            .args(["--ignored", "--nocapture", "--test-threads=1"])
            .env(HUGE_PAGES_VAR, value)
            .output()
            .expect("child test");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "child with {value:?} failed:\n{text}");
        text
    }

    #[test]
    fn the_switch_turns_huge_pages_off_and_a_bad_value_fails_allocations() {
        assert!(child_with("0").contains("huge pages: off"));
        assert!(child_with("on").contains("huge pages: on"));
        assert!(child_with("maybe").contains("huge pages: error"));
    }

    #[test]
    #[ignore = "run in a child process by the test above"]
    fn what_the_switch_does_here() {
        let want = huge_pages_on(std::env::var_os(HUGE_PAGES_VAR).as_deref());
        let bytes = 2 * HUGE_PAGE_THRESHOLD;
        match HostSpace.allocate(bytes, true) {
            Ok(ptr) => {
                let on = on_huge_pages(bytes).expect("allocated, so the switch read");
                assert_eq!(Ok(on), want);
                if on {
                    assert_eq!(ptr.as_ptr() as usize % (2 << 20), 0, "a huge mapping");
                }
                // SAFETY: allocated just above with this size, released once.
                unsafe { HostSpace.deallocate(ptr, bytes) };
                println!("huge pages: {}", if on { "on" } else { "off" });
            }
            Err(e) => {
                assert_eq!(Err(e.clone()), want, "only a bad switch fails here");
                assert!(e.contains(HUGE_PAGES_VAR), "{e}");
                println!("huge pages: error: {e}");
            }
        }
    }

    #[test]
    fn small_allocations_never_ask_the_switch() {
        assert_eq!(on_huge_pages(HUGE_PAGE_THRESHOLD - 1), Ok(false));
    }
}
