//! Compiled modules cached on disk, shared by the emulator (shared
//! libraries) and the GPU device (CUBINs).
//!
//! Files are named by a BLAKE3 hash of everything that went into them and
//! of [`FORMAT`], so a change to what a file holds, or to how it is named,
//! never reads an old entry. A file is written as a temporary file in its
//! final directory and renamed onto its name (tempfile's `persist`), so
//! processes that build the same module at once share one result and
//! never see a partial file.
//!
//! Where: the cargo target directory when the program is built there (so
//! `cargo clean` removes the cache with the build, and two checkouts keep
//! theirs apart), else the user's cache directory (`dirs::cache_dir()`,
//! `~/.cache/granule` on Linux), else, with no home to find it in, a
//! directory of the system's temporary folder. Cached files are loaded as
//! code (the emulator `dlopen`s its libraries, the GPU loads its CUBINs)
//! and their names are predictable, so the last two are directories that
//! only this user can write into, checked before every use: a file
//! planted by another local user would run as this user's code.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The version of the cache's layout, hashed into every key: raising it
/// retires every file written before.
pub(crate) const FORMAT: &str = "granule cache 2";

/// `<target>/<name>`: the target directory from `CARGO_TARGET_DIR` (when
/// absolute) or from the running executable (the ancestor holding cargo's
/// `CACHEDIR.TAG`); otherwise `<user cache>/granule/<name>`, otherwise
/// `<temp>/granule-<euid>/<name>`, in a private directory of the effective
/// user (see [`private_dir`]).
///
/// Errors: the temporary folder's private directory cannot be made or
/// fails its check; the message names the directory and what is wrong
/// with it.
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
    if let Some(target) = from_env.or_else(from_exe) {
        return Ok(target.join(name));
    }
    let uid = rustix::process::geteuid().as_raw();
    if let Some(user) = user_cache_dir(uid) {
        return Ok(user.join(name));
    }
    let temp = std::env::temp_dir().join(format!("granule-{uid}"));
    private_dir(&temp, uid).map(|d| d.join(name))
}

/// `<user cache>/granule` when the platform has a user cache directory
/// and it passes [`private_dir`]'s check; `None` otherwise (a warning
/// says why), for the temporary folder to be used instead.
fn user_cache_dir(uid: u32) -> Option<PathBuf> {
    let dir = dirs::cache_dir()?.join("granule");
    private_dir(&dir, uid)
        .inspect_err(|why| tracing::warn!("{why}; caching in the temporary folder instead"))
        .ok()
}

/// `dir`, created (with its missing parents) with mode 0700 when
/// missing, then checked with [`check_private`] (whoever created it).
fn private_dir(dir: &Path, uid: u32) -> Result<PathBuf, String> {
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        // Something else is there: the check says what.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(format!(
                "cannot create the cache directory {}: {e}",
                dir.display()
            ))
        }
    }
    check_private(dir, uid).map_err(|why| {
        format!(
            "the cache directory {} {why}, so files in it could have been planted by another \
             user; remove it, or set CARGO_TARGET_DIR (absolute) or TMPDIR to a private directory",
            dir.display()
        )
    })?;
    Ok(dir.to_path_buf())
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

/// A 128-bit hex digest of [`FORMAT`] and `parts`, each part preceded by
/// its length so that no two lists of parts hash alike.
pub(crate) fn key(parts: &[&str]) -> String {
    let mut h = blake3::Hasher::new();
    for part in std::iter::once(&FORMAT).chain(parts) {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().to_hex()[..32].to_string()
}

/// A temporary file beside `path`, to write (or to have a compiler write)
/// and then [`publish`]; it is removed if dropped unpublished.
pub(crate) fn temp_path(path: &Path) -> std::io::Result<tempfile::TempPath> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned());
    let extension = path.extension().map(|s| s.to_string_lossy().into_owned());
    tempfile::Builder::new()
        .prefix(&format!(".{}.", name.unwrap_or_default()))
        .suffix(&extension.map(|e| format!(".{e}")).unwrap_or_default())
        .tempfile_in(dir)
        .map(tempfile::NamedTempFile::into_temp_path)
}

/// Renames a finished temporary file onto its cache name.
pub(crate) fn publish(tmp: tempfile::TempPath, path: &Path) -> std::io::Result<()> {
    tmp.persist(path).map_err(|e| e.error)
}

/// Writes `bytes` to `path` through a temporary file, creating the folder.
pub(crate) fn store(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = temp_path(path)?;
    std::fs::write(&tmp, bytes)?;
    publish(tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_content_and_are_stable() {
        assert_eq!(key(&["a", "b"]), key(&["a", "b"]));
        assert_ne!(key(&["a", "b"]), key(&["ab", ""]));
        assert_eq!(key(&["a"]).len(), 32);
        assert_ne!(key(&[]), key(&[""]));
    }

    fn euid() -> u32 {
        rustix::process::geteuid().as_raw()
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
    fn private_dirs_are_made_private_and_reused() {
        let temp = scratch("made");
        let uid = euid();
        // Missing parents are made too, private as well (a user cache
        // directory that does not exist yet).
        let d = temp.join("cache").join("granule");
        assert_eq!(private_dir(&d, uid).unwrap(), d);
        for made in [&d, &temp.join("cache")] {
            let meta = std::fs::symlink_metadata(made).unwrap();
            assert_eq!((meta.uid(), meta.mode() & 0o777), (uid, 0o700));
        }
        assert_eq!(private_dir(&d, uid).unwrap(), d);
        std::fs::remove_dir_all(&temp).unwrap();
    }

    #[test]
    fn directories_others_could_plant_files_in_are_refused() {
        let temp = scratch("refused");
        let uid = euid();
        let d = temp.join(format!("granule-{uid}"));
        std::fs::create_dir(&d).unwrap();
        chmod(&d, 0o777);
        let err = private_dir(&d, uid).unwrap_err();
        assert!(
            err.contains("writable by its group or others (mode 777)"),
            "{err}"
        );
        assert!(err.contains(&d.display().to_string()), "{err}");
        chmod(&d, 0o700);
        assert!(private_dir(&d, uid).is_ok());
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
        let err = private_dir(&d, uid).unwrap_err();
        assert!(err.contains("is a symbolic link"), "{err}");
        std::fs::remove_file(&d).unwrap();
        // A file is not a directory.
        std::fs::write(&d, b"").unwrap();
        assert!(private_dir(&d, uid)
            .unwrap_err()
            .contains("is not a directory"));
        std::fs::remove_file(&d).unwrap();
        // A parent anyone can rename entries in.
        chmod(&temp, 0o777);
        let err = private_dir(&d, uid).unwrap_err();
        assert!(err.contains("without the sticky bit"), "{err}");
        chmod(&temp, 0o1777);
        assert!(private_dir(&d, uid).is_ok());
        chmod(&temp, 0o700);
        std::fs::remove_dir_all(&temp).unwrap();
    }

    #[test]
    fn stored_files_appear_whole() {
        let path = std::env::temp_dir()
            .join(format!("granule-cache-test-{}", std::process::id()))
            .join("x.bin");
        store(&path, b"abc").unwrap();
        store(&path, b"abcd").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abcd");
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["x.bin"], "no temporary file is left behind");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}
