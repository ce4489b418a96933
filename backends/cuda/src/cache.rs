//! Compiled modules cached on disk, shared by the emulator (shared
//! libraries) and the GPU device (CUBINs).
//!
//! Files live under the cargo target directory, are named by a hash of
//! everything that went into them, and are written under a temporary name
//! and renamed, so processes that build the same module at once share one
//! result and never see a partial file.
//!
//! Cached files are loaded as code (the emulator `dlopen`s its libraries,
//! the GPU loads its CUBINs), and their names are predictable, so outside
//! a target directory the cache is a directory of the system's temporary
//! folder that only this user can write into, checked before every use: a
//! file planted by another local user would run as this user's code.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// `<target>/<name>`: the target directory from `CARGO_TARGET_DIR` (when
/// absolute) or from the running executable (the ancestor holding cargo's
/// `CACHEDIR.TAG`); otherwise `<temp>/granule-<uid>/<name>`, in a private
/// directory of the effective user (see [`private_temp_dir`]).
///
/// Errors: the private directory cannot be made or fails its check; the
/// message names the directory and what is wrong with it.
pub(crate) fn dir(name: &str) -> Result<PathBuf, String> {
    let from_env = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let from_exe = || {
        let exe = std::env::current_exe().ok()?;
        exe.ancestors()
            .find(|d| d.join("CACHEDIR.TAG").is_file())
            .map(Path::to_path_buf)
    };
    match from_env.or_else(from_exe) {
        Some(target) => Ok(target.join(name)),
        None => private_temp_dir(&std::env::temp_dir()).map(|d| d.join(name)),
    }
}

/// `<temp>/granule-<euid>`, created with mode 0700 when missing, then
/// checked with [`check_private`] (whoever created it).
fn private_temp_dir(temp: &Path) -> Result<PathBuf, String> {
    let uid = effective_uid()?;
    let dir = temp.join(format!("granule-{uid}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(format!(
                "cannot create the cache directory {}: {e}",
                dir.display()
            ))
        }
    }
    check_private(&dir, uid).map_err(|why| {
        format!(
            "the cache directory {} {why}, so files in it could have been planted by another \
             user; remove it, or set CARGO_TARGET_DIR (absolute) or TMPDIR to a private directory",
            dir.display()
        )
    })?;
    Ok(dir)
}

/// Whether only `uid` can add or replace entries of `dir`: a directory
/// (not a symbolic link to one), owned by `uid`, writable by neither group
/// nor others, in a parent that others cannot rename it in (not writable
/// by group or others, or sticky, as `/tmp` is). `Err` says what fails.
fn check_private(dir: &Path, uid: u32) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("cannot be examined ({e})"))?;
    if meta.file_type().is_symlink() {
        return Err("is a symbolic link".into());
    }
    if !meta.is_dir() {
        return Err("is not a directory".into());
    }
    if meta.uid() != uid {
        return Err(format!(
            "is owned by uid {}, not by this process's effective uid {uid}",
            meta.uid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!(
            "is writable by its group or others (mode {:o})",
            meta.mode() & 0o7777
        ));
    }
    let parent = dir.parent().unwrap_or(Path::new("/"));
    let up = std::fs::metadata(parent)
        .map_err(|e| format!("has a parent that cannot be examined ({e})"))?;
    if up.mode() & 0o022 != 0 && up.mode() & 0o1000 == 0 {
        return Err(format!(
            "is in {}, which others can write into without the sticky bit (mode {:o})",
            parent.display(),
            up.mode() & 0o7777
        ));
    }
    Ok(())
}

/// The effective uid, from `/proc/self/status` (`Uid:` real, effective,
/// saved, filesystem).
fn effective_uid() -> Result<u32, String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("cannot read /proc/self/status for the effective uid: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .and_then(|euid| euid.parse().ok())
        .ok_or_else(|| "/proc/self/status has no readable effective uid".to_string())
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

    /// A fresh directory for one test, removed by the caller.
    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("granule-cache-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::DirBuilder::new().mode(0o700).create(&d).unwrap();
        d
    }

    fn chmod(p: &Path, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn the_private_temp_dir_is_made_private_and_reused() {
        let temp = scratch("made");
        let uid = effective_uid().unwrap();
        let d = private_temp_dir(&temp).unwrap();
        assert_eq!(d, temp.join(format!("granule-{uid}")));
        let meta = std::fs::symlink_metadata(&d).unwrap();
        assert_eq!((meta.uid(), meta.mode() & 0o777), (uid, 0o700));
        assert_eq!(private_temp_dir(&temp).unwrap(), d);
        std::fs::remove_dir_all(&temp).unwrap();
    }

    #[test]
    fn directories_others_could_plant_files_in_are_refused() {
        let temp = scratch("refused");
        let uid = effective_uid().unwrap();
        let d = temp.join(format!("granule-{uid}"));
        std::fs::create_dir(&d).unwrap();
        chmod(&d, 0o777);
        let err = private_temp_dir(&temp).unwrap_err();
        assert!(
            err.contains("writable by its group or others (mode 777)"),
            "{err}"
        );
        assert!(err.contains(&d.display().to_string()), "{err}");
        chmod(&d, 0o700);
        assert!(private_temp_dir(&temp).is_ok());
        // Owned by someone else (another uid, since a test cannot chown).
        let err = check_private(&d, uid.wrapping_add(1)).unwrap_err();
        assert!(err.contains(&format!("owned by uid {uid}")), "{err}");
        // A symbolic link to a private directory is not one.
        std::fs::remove_dir(&d).unwrap();
        let real = temp.join("real");
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&real)
            .unwrap();
        std::os::unix::fs::symlink(&real, &d).unwrap();
        let err = private_temp_dir(&temp).unwrap_err();
        assert!(err.contains("is a symbolic link"), "{err}");
        std::fs::remove_file(&d).unwrap();
        // A file is not a directory.
        std::fs::write(&d, b"").unwrap();
        assert!(private_temp_dir(&temp)
            .unwrap_err()
            .contains("is not a directory"));
        std::fs::remove_file(&d).unwrap();
        // A parent anyone can rename entries in.
        chmod(&temp, 0o777);
        let err = private_temp_dir(&temp).unwrap_err();
        assert!(err.contains("without the sticky bit"), "{err}");
        chmod(&temp, 0o1777);
        assert!(private_temp_dir(&temp).is_ok());
        chmod(&temp, 0o700);
        std::fs::remove_dir_all(&temp).unwrap();
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
