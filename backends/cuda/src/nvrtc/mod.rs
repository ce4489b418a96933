//! Compiling CUDA C++ with NVRTC, loaded at run time through cudarc.
//!
//! cudarc panics on its first call when `libnvrtc.so.12` cannot be loaded,
//! so every entry point here first asks [`available`], which only tries to
//! open the library, and turns a missing library into
//! [`NvrtcError::Missing`]. `scripts/install-nvrtc.sh` installs the pinned
//! PyPI wheel under `target/nvrtc/` and prints the directory to put on
//! `LD_LIBRARY_PATH`.

mod error;
mod everywhere;
mod program;
mod resources;

pub use error::{Excerpt, NvrtcError};
pub use everywhere::{check_everywhere, check_kernels_everywhere, EVERY_ARCH};
pub use program::{compile, compile_with, version, FloatMode, Output, Target};
pub use resources::{resources, Resources, TABLE_COLUMNS};

/// Whether `libnvrtc` can be loaded (looked up by cudarc's candidate names,
/// `libnvrtc.so.12` among them, on the dynamic loader's path).
///
/// ```
/// // Never panics, whether NVRTC is installed or not.
/// let _ = granule_cuda::nvrtc::available();
/// ```
pub fn available() -> bool {
    // SAFETY: only dlopens the candidate names and closes them again; no
    // NVRTC function is called.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// The policy of every NVRTC test: `true` when NVRTC can be used. Without
/// it, panics when the environment has `CI=true` (CI must prove the CUDA
/// path, so a missing NVRTC is a failure there), otherwise prints why `test`
/// is skipped and returns `false`.
///
/// ```
/// if granule_cuda::nvrtc::available_or_skip("doc example") {
///     assert!(granule_cuda::nvrtc::available());
/// }
/// ```
pub fn available_or_skip(test: &str) -> bool {
    if available() {
        return true;
    }
    let msg = format!("{test}: {}", NvrtcError::Missing);
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true and NVRTC is missing; {msg}");
    }
    // The test's own output, which the harness shows with the test's:
    // not a diagnostic of the library.
    eprintln!("skipped: {msg}");
    false
}

/// `Ok` when NVRTC can be loaded, else [`NvrtcError::Missing`].
fn require() -> Result<(), NvrtcError> {
    if available() {
        Ok(())
    } else {
        Err(NvrtcError::Missing)
    }
}
