//! The few libc functions the emulator needs, declared by hand (the crate
//! takes no libc dependency): the dynamic loader for compiled modules and
//! the memory mapping calls for the global-memory arena. Values are
//! Linux's (the same on x86-64 and aarch64).

use std::ffi::{c_char, c_int, c_void};

pub(crate) const RTLD_NOW: c_int = 2;
pub(crate) const RTLD_LOCAL: c_int = 0;

pub(crate) const PROT_NONE: c_int = 0;
pub(crate) const PROT_READ: c_int = 1;
pub(crate) const PROT_WRITE: c_int = 2;
pub(crate) const MAP_PRIVATE: c_int = 0x02;
pub(crate) const MAP_ANONYMOUS: c_int = 0x20;
pub(crate) const MAP_NORESERVE: c_int = 0x4000;
pub(crate) const MADV_DONTNEED: c_int = 4;

extern "C" {
    pub(crate) fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    pub(crate) fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    pub(crate) fn dlerror() -> *mut c_char;
    pub(crate) fn dlclose(handle: *mut c_void) -> c_int;
    pub(crate) fn mmap(
        addr: *mut c_void,
        len: usize,
        prot: c_int,
        flags: c_int,
        fd: c_int,
        offset: i64,
    ) -> *mut c_void;
    pub(crate) fn mprotect(addr: *mut c_void, len: usize, prot: c_int) -> c_int;
    pub(crate) fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
}

/// The calling thread's last dynamic loader error, as text.
pub(crate) fn last_dl_error() -> String {
    // SAFETY: dlerror takes no arguments and returns null or a
    // NUL-terminated string owned by the loader, valid until the next
    // dl* call on this thread; it is copied at once.
    unsafe {
        let e = dlerror();
        if e.is_null() {
            "unknown dynamic loader error".to_string()
        } else {
            std::ffi::CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}
