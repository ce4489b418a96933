//! Compiling CUDA C++ with NVRTC, loaded at run time through cudarc.
//!
//! cudarc panics on its first call when `libnvrtc.so.12` cannot be loaded,
//! so every entry point here first asks [`available`], which only tries to
//! open the library, and turns a missing library into
//! [`NvrtcError::Missing`]. `scripts/install-nvrtc.sh` installs the pinned
//! PyPI wheel under `target/nvrtc/` and prints the directory to put on
//! `LD_LIBRARY_PATH`.

mod error;
mod program;

pub use error::{Excerpt, NvrtcError};
pub use program::{compile, version, Output, Target};

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

/// `Ok` when NVRTC can be loaded, else [`NvrtcError::Missing`].
fn require() -> Result<(), NvrtcError> {
    if available() {
        Ok(())
    } else {
        Err(NvrtcError::Missing)
    }
}
