//! Compiled modules cached on disk, shared by the emulator (shared
//! libraries) and the GPU device (CUBINs).
//!
//! Files live under the cargo target directory, are named by a hash of
//! everything that went into them, and are written under a temporary name
//! and renamed, so processes that build the same module at once share one
//! result and never see a partial file.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// `<target>/<name>`: the target directory from `CARGO_TARGET_DIR` (when
/// absolute) or from the running executable (the ancestor holding cargo's
/// `CACHEDIR.TAG`); otherwise the system's temporary directory.
pub(crate) fn dir(name: &str) -> PathBuf {
    let from_env = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let from_exe = || {
        let exe = std::env::current_exe().ok()?;
        exe.ancestors()
            .find(|d| d.join("CACHEDIR.TAG").is_file())
            .map(Path::to_path_buf)
    };
    from_env
        .or_else(from_exe)
        .unwrap_or_else(std::env::temp_dir)
        .join(name)
}

/// A 128-bit hex digest of `parts` (two SipHash passes with different
/// prefixes; the key is a cache name, not a security boundary).
pub(crate) fn key(parts: &[&str]) -> String {
    let digest = |salt: u8| {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        parts.hash(&mut h);
        h.finish()
    };
    format!("{:016x}{:016x}", digest(1), digest(2))
}

/// A unique sibling of `path` to write before renaming onto it.
pub(crate) fn temp_name(path: &Path) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned());
    path.with_file_name(format!(
        ".{}.{}.{n}.tmp",
        name.unwrap_or_default(),
        std::process::id()
    ))
}

/// Renames a finished temporary file onto its cache name.
pub(crate) fn publish(tmp: &Path, path: &Path) -> std::io::Result<()> {
    std::fs::rename(tmp, path)
}

/// Writes `bytes` to `path` through a temporary file, creating the folder.
pub(crate) fn store(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = temp_name(path);
    std::fs::write(&tmp, bytes).and_then(|()| publish(&tmp, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_content_and_are_stable() {
        assert_eq!(key(&["a", "b"]), key(&["a", "b"]));
        assert_ne!(key(&["a", "b"]), key(&["ab", ""]));
        assert_eq!(key(&["a"]).len(), 32);
    }

    #[test]
    fn stored_files_appear_whole() {
        let path = std::env::temp_dir()
            .join(format!("granule-cache-test-{}", std::process::id()))
            .join("x.bin");
        store(&path, b"abc").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abc");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}
