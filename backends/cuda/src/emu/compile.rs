//! Compiling a translation unit with the host C++ compiler, caching the
//! result on disk (`crate::cache`: the cargo target directory, else the
//! user's cache directory), and loading it.
//!
//! A module is two objects linked into one shared library:
//! - the translation unit, written after `shim.h` and followed by one
//!   thunk per entry point, compiled with `-fsanitize=thread` so that every
//!   load and store calls a hook (compile-time instrumentation only: the
//!   link does not pull in libtsan, runtime.cpp defines the hooks);
//! - runtime.cpp, compiled once per compiler and flags, uninstrumented.
//!
//! Files are keyed by a hash of everything that goes into them and are
//! written as temporary files and renamed, so parallel tests that compile
//! the same unit share one result and never see a partial file.

use super::ffi;
use super::launch::{LaunchFn, Params, ThunkFn};
use crate::cache::{key as hash, publish, temp_path};
use crate::codegen::{params_symbol, TranslationUnit};
use crate::device::ErrorRecord;
use crate::device_api::DeviceError;
use crate::nvrtc::Excerpt;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock, Weak};

/// The text of `shim.h`, the CUDA built-ins the emulator writes before
/// every translation unit.
///
/// ```
/// assert!(granule_cuda::emu::SHIM.contains("#define __shared__ thread_local"));
/// ```
pub const SHIM: &str = include_str!("shim.h");
/// The runtime: scheduler, fibers, hooks, atomics, as one translation
/// unit (written out as `runtime.cpp`) joined from its parts in order.
const RUNTIME: &str = concat!(
    include_str!("runtime/state.cpp"),
    "\n",
    include_str!("runtime/sectors.cpp"),
    "\n",
    include_str!("runtime/fibers.cpp"),
    "\n",
    include_str!("runtime/schedule.cpp"),
    "\n",
    include_str!("runtime/memory.cpp"),
    "\n",
    include_str!("runtime/entry.cpp"),
);

/// Flags of the instrumented translation unit. `-fno-strict-aliasing`
/// because CUDA code reinterprets shared memory freely; `-w` because the
/// header is written for NVRTC and only errors matter here;
/// `-fno-thread-jumps` because jump threading copies a `__syncthreads`
/// call into the paths of a thread-dependent branch (`if (t == 0) ..;
/// __syncthreads(); if (t == 0) ..`), and the runtime tells barriers apart
/// by call site, so the copies would read as a divergent barrier;
/// `-ffp-contract=off` (GCC's default for ISO C++, stated so that no
/// target or mode changes it) because a kernel computes exactly on the
/// emulator in every `FloatMode`.
const UNIT_FLAGS: &[&str] = &[
    "-std=c++20",
    "-O1",
    "-fno-thread-jumps",
    "-ffp-contract=off",
    "-fPIC",
    "-pthread",
    "-fno-strict-aliasing",
    "-w",
    "-fsanitize=thread",
    "--param=tsan-distinguish-volatile=1",
    "--param=tsan-instrument-func-entry-exit=0",
];
const RUNTIME_FLAGS: &[&str] = &["-std=c++20", "-O2", "-fPIC", "-pthread", "-w"];
const LINK_FLAGS: &[&str] = &["-shared", "-pthread", "-Wl,-z,defs"];

/// The host compiler, its version, and the cache directory holding the
/// compiled runtime.
struct Toolchain {
    cxx: String,
    version: String,
    dir: PathBuf,
    runtime: PathBuf,
}

static TOOLCHAIN: OnceLock<Result<Toolchain, DeviceError>> = OnceLock::new();

fn unavailable(reason: String) -> DeviceError {
    DeviceError::Unavailable {
        device: "emulator".into(),
        reason,
    }
}

/// The compiler (`GRANULE_EMU_CXX`, default `g++`), checked and with the
/// runtime built, once per process.
fn toolchain() -> Result<&'static Toolchain, DeviceError> {
    TOOLCHAIN
        .get_or_init(|| {
            let cxx = std::env::var("GRANULE_EMU_CXX").unwrap_or_else(|_| "g++".into());
            let out = Command::new(&cxx)
                .arg("-dumpfullversion")
                .output()
                .map_err(|e| {
                    unavailable(format!(
                        "the host C++ compiler `{cxx}` could not be run ({e}); \
                         install g++ (12 or later) or set GRANULE_EMU_CXX"
                    ))
                })?;
            let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let dir = crate::cache::dir("granule-emu").map_err(unavailable)?;
            std::fs::create_dir_all(&dir).map_err(|e| {
                unavailable(format!(
                    "cannot create the cache directory {}: {e}",
                    dir.display()
                ))
            })?;
            let key = hash(&[&cxx, &version, SHIM, RUNTIME, &RUNTIME_FLAGS.join(" ")]);
            let runtime = dir.join(format!("runtime-{key}.o"));
            if !runtime.exists() {
                tracing::info!(
                    "emulator runtime: {cxx} {}, cached at {}",
                    RUNTIME_FLAGS.join(" "),
                    runtime.display()
                );
                let src = dir.join(format!("runtime-{key}"));
                std::fs::create_dir_all(&src)
                    .and_then(|()| std::fs::write(src.join("shim.h"), SHIM))
                    .and_then(|()| std::fs::write(src.join("runtime.cpp"), RUNTIME))
                    .map_err(|e| unavailable(format!("cannot write the runtime's source: {e}")))?;
                let tmp = temp_path(&runtime)
                    .map_err(|e| unavailable(format!("cannot store the runtime: {e}")))?;
                let mut cmd = Command::new(&cxx);
                cmd.args(RUNTIME_FLAGS)
                    .arg("-c")
                    .arg(src.join("runtime.cpp"))
                    .arg("-o")
                    .arg(&tmp);
                run(&mut cmd).map_err(|log| {
                    unavailable(format!(
                        "`{cxx}` ({version}) cannot compile the emulator's runtime:\n{log}"
                    ))
                })?;
                publish(tmp, &runtime)
                    .map_err(|e| unavailable(format!("cannot store the runtime: {e}")))?;
            }
            Ok(Toolchain {
                cxx,
                version,
                dir,
                runtime,
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Checks that the compiler works (for device construction).
pub(crate) fn check_toolchain() -> Result<(), DeviceError> {
    toolchain().map(|_| ())
}

/// Runs a compiler command; `Err` is its output.
fn run(cmd: &mut Command) -> Result<(), String> {
    match cmd.output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        )),
        Err(e) => Err(format!("could not run the compiler: {e}")),
    }
}

/// The file name the unit's source has in compiler messages.
fn program_name(label: &str) -> String {
    let clean: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{clean}.cu")
}

/// The emulator's whole source for `unit`: the shim, the unit (its lines
/// numbered from 1 in messages), and the entry thunks.
pub(crate) fn emulator_source(unit: &TranslationUnit, program: &str) -> String {
    let mut s = String::with_capacity(SHIM.len() + unit.source().len() + 4096);
    s.push_str(SHIM);
    s.push_str(&format!("\n#line 1 \"{program}\"\n"));
    s.push_str(unit.source());
    s.push_str("\n#line 1 \"granule-emu-entries.cpp\"\n");
    for e in unit.entries() {
        s.push_str(&format!(
            "extern \"C\" void granule_emu_thunk_{e}(void** a) {{ ::granule_emu::call_entry(&{e}, a); }}\n\
             extern \"C\" uint64_t granule_emu_sig_{e}(uint64_t* s, uint64_t n) {{ return ::granule_emu::entry_signature(&{e}, s, n); }}\n"
        ));
    }
    s
}

/// The distinct lines of `program` that the log reports errors on.
fn error_lines(program: &str, log: &str) -> Vec<usize> {
    let prefix = format!("{program}:");
    let mut lines = Vec::new();
    for l in log.lines() {
        let Some(rest) = l.trim_start().strip_prefix(&prefix) else {
            continue;
        };
        let mut parts = rest.splitn(3, ':');
        let (Some(line), Some(_col), Some(tail)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if !tail.trim_start().starts_with("error") {
            continue;
        }
        if let Ok(n) = line.parse::<usize>() {
            if !lines.contains(&n) {
                lines.push(n);
            }
        }
    }
    lines
}

/// At most this much of a compiler log goes into an error.
const LOG_LIMIT: usize = 16 * 1024;

fn truncate_log(mut log: String) -> String {
    if log.len() > LOG_LIMIT {
        let mut cut = LOG_LIMIT;
        while !log.is_char_boundary(cut) {
            cut -= 1;
        }
        log.truncate(cut);
        log.push_str("\n[... log truncated]");
    }
    log
}

/// One entry point of a loaded module.
pub(crate) struct Entry {
    pub(crate) thunk: ThunkFn,
    /// `sizeof` of each parameter: the entry's parameter table, checked
    /// at load against the thunk's own signature.
    pub(crate) sizes: Vec<usize>,
}

/// A loaded module.
pub(crate) struct Library {
    handle: *mut c_void,
    pub(crate) launch: LaunchFn,
    /// Where the library's `granule_error_at` points (its own
    /// `granule_error`).
    pub(crate) error: *mut ErrorRecord,
    pub(crate) entries: HashMap<String, Entry>,
    /// Launches of one library take turns: `granule_error` is one per
    /// library, and a process loads a path once however many modules name it.
    pub(crate) lock: Mutex<()>,
}

// SAFETY: the handle and symbol addresses are process-wide and immutable
// while the library is loaded; launches, the only users of the mutable
// state behind them (granule_error), are serialized by `lock`.
unsafe impl Send for Library {}
// SAFETY: as for Send.
unsafe impl Sync for Library {}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the handle came from dlopen and this is its only owner
        // (the registry holds weak references); no launch is running,
        // since launches borrow the library.
        unsafe { ffi::dlclose(self.handle) };
    }
}

/// Libraries loaded by path, so a path is opened once.
static LOADED: OnceLock<Mutex<HashMap<PathBuf, Weak<Library>>>> = OnceLock::new();

/// Compiles (or finds in the cache) and loads `unit`.
pub(crate) fn compile(unit: &TranslationUnit, label: &str) -> Result<Arc<Library>, DeviceError> {
    let tc = toolchain()?;
    let program = program_name(label);
    let source = emulator_source(unit, &program);
    let rt = tc.runtime.to_string_lossy();
    let key = hash(&[
        &tc.cxx,
        &tc.version,
        &rt,
        &UNIT_FLAGS.join(" "),
        &LINK_FLAGS.join(" "),
        &source,
    ]);
    let lib = tc.dir.join(format!("{key}.so"));
    if lib.exists() {
        tracing::debug!("{label}: emulator module from the cache, {}", lib.display());
    } else {
        let command = format!("{} {}", tc.cxx, UNIT_FLAGS.join(" "));
        tracing::info!("{label}: emulator: {command}, cached at {}", lib.display());
        let compile_err = |log: String| DeviceError::Compile {
            label: label.to_string(),
            command: command.clone(),
            excerpts: error_lines(&program, &log)
                .into_iter()
                .map(|line| Excerpt::around(unit.source(), line))
                .collect(),
            log: truncate_log(log),
        };
        let cpp = tc.dir.join(format!("{key}.cpp"));
        temp_path(&cpp)
            .and_then(|tmp| std::fs::write(&tmp, &source).map(|()| tmp))
            .and_then(|tmp| publish(tmp, &cpp))
            .map_err(|e| compile_err(format!("cannot write {}: {e}", cpp.display())))?;
        let store_err = |e: std::io::Error| compile_err(format!("cannot store the module: {e}"));
        // The object is only the link's input: its temporary file is
        // removed when it goes out of scope.
        let obj = temp_path(&tc.dir.join(format!("{key}.o"))).map_err(store_err)?;
        let mut cc = Command::new(&tc.cxx);
        cc.args(UNIT_FLAGS).arg("-c").arg(&cpp).arg("-o").arg(&obj);
        run(&mut cc).map_err(compile_err)?;
        let tmp = temp_path(&lib).map_err(store_err)?;
        let mut link = Command::new(&tc.cxx);
        link.args(LINK_FLAGS)
            .arg(&obj)
            .arg(&tc.runtime)
            .arg("-o")
            .arg(&tmp);
        run(&mut link).map_err(compile_err)?;
        publish(tmp, &lib).map_err(store_err)?;
    }
    load(&lib, label, unit.entries())
}

fn load(path: &Path, label: &str, entries: &[String]) -> Result<Arc<Library>, DeviceError> {
    let load_err = |reason: String| DeviceError::Load {
        label: label.to_string(),
        reason,
    };
    let registry = LOADED.get_or_init(Default::default);
    let mut loaded = registry.lock();
    if let Some(lib) = loaded.get(path).and_then(Weak::upgrade) {
        if entries.iter().all(|e| lib.entries.contains_key(e)) {
            return Ok(lib);
        }
    }
    let cpath = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| load_err(format!("the path {} contains a NUL byte", path.display())))?;
    // SAFETY: dlopen of a library this module built from the shim, the
    // runtime and generated code; its only initializers are the C++
    // runtime's (no user constructors run).
    let handle = unsafe { ffi::dlopen(cpath.as_ptr(), ffi::RTLD_NOW | ffi::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(load_err(ffi::last_dl_error()));
    }
    let sym = |name: &str| -> Result<*mut c_void, DeviceError> {
        let c = CString::new(name).map_err(|_| load_err(format!("bad symbol name {name:?}")))?;
        // SAFETY: handle is a live dlopen handle; c is NUL-terminated.
        let p = unsafe { ffi::dlsym(handle, c.as_ptr()) };
        if p.is_null() {
            Err(load_err(format!(
                "{} has no symbol `{name}`",
                path.display()
            )))
        } else {
            Ok(p)
        }
    };
    let made = (|| {
        let size_fn = sym("granule_emu_params_size")?;
        // SAFETY: the runtime defines `uint64_t granule_emu_params_size()`.
        let size_fn: extern "C" fn() -> u64 = unsafe { std::mem::transmute(size_fn) };
        let size = size_fn();
        if size != std::mem::size_of::<Params>() as u64 {
            return Err(load_err(format!(
                "runtime ABI mismatch: Params is {size} bytes in C++, {} in Rust",
                std::mem::size_of::<Params>()
            )));
        }
        // SAFETY: the runtime defines `void granule_emu_launch(Params*)`.
        let launch: LaunchFn = unsafe { std::mem::transmute(sym("granule_emu_launch")?) };
        let at = sym("granule_error_at")?.cast::<*mut ErrorRecord>();
        // SAFETY: the header defines `ErrorRecord* granule_error_at`,
        // statically initialized to the library's own record; nothing
        // runs in the library yet.
        let error = unsafe { at.read() };
        let mut table = HashMap::new();
        for e in entries {
            // SAFETY: the thunk section defines
            // `void granule_emu_thunk_<e>(void**)` for every entry.
            let thunk: ThunkFn =
                unsafe { std::mem::transmute(sym(&format!("granule_emu_thunk_{e}"))?) };
            let sizes = entry_sizes(e, &sym, &load_err)?;
            table.insert(e.clone(), Entry { thunk, sizes });
        }
        Ok(Library {
            handle,
            launch,
            error,
            entries: table,
            lock: Mutex::new(()),
        })
    })();
    match made {
        Ok(lib) => {
            let lib = Arc::new(lib);
            loaded.insert(path.to_path_buf(), Arc::downgrade(&lib));
            Ok(lib)
        }
        Err(e) => {
            // SAFETY: the handle came from dlopen above and nothing else
            // holds it.
            unsafe { ffi::dlclose(handle) };
            Err(e)
        }
    }
}

/// Entry `e`'s parameter sizes from its table (codegen's
/// `params_symbol`), which must agree with the thunk's signature: the
/// table is what a GPU checks launches against, so the emulator proves it
/// on every module it loads.
fn entry_sizes(
    e: &str,
    sym: &dyn Fn(&str) -> Result<*mut c_void, DeviceError>,
    bad: &dyn Fn(String) -> DeviceError,
) -> Result<Vec<usize>, DeviceError> {
    const MAX: usize = 64;
    // SAFETY: the thunk section defines
    // `uint64_t granule_emu_sig_<e>(uint64_t*, uint64_t)` for every entry.
    let sig: extern "C" fn(*mut u64, u64) -> u64 =
        unsafe { std::mem::transmute(sym(&format!("granule_emu_sig_{e}"))?) };
    let mut sizes = [0u64; MAX];
    let n = sig(sizes.as_mut_ptr(), MAX as u64) as usize;
    if n > MAX {
        return Err(bad(format!(
            "entry {e} has {n} parameters, more than {MAX}"
        )));
    }
    let table = sym(&params_symbol(e))?.cast::<u64>();
    // SAFETY: codegen defines `granule::ParamTable<decltype(e)>` under
    // this name: the count, then at least max(count, 1) sizes; the count
    // is the entry's n (checked before reading further).
    let count = unsafe { table.read() } as usize;
    if count != n {
        return Err(bad(format!(
            "the parameter table of {e} has {count} parameters, its signature {n}"
        )));
    }
    // SAFETY: as above, `n` sizes follow the count.
    let listed = unsafe { std::slice::from_raw_parts(table.add(1), n) };
    if listed != &sizes[..n] {
        return Err(bad(format!(
            "the parameter table of {e} gives sizes {listed:?}, its signature {:?}",
            &sizes[..n]
        )));
    }
    Ok(listed.iter().map(|&s| s as usize).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_take_errors_of_the_program_only() {
        let log = "k.cu:12:5: error: 'x' was not declared\n\
                   k.cu:3:1: warning: unused\n\
                   /tmp/a.cpp:9:1: error: in the shim\n\
                   k.cu:12:9: error: again\n\
                   k.cu:40:2: error: last\n";
        assert_eq!(error_lines("k.cu", log), vec![12, 40]);
    }

    /// The shim defines CUDA's keywords (`__noinline__`, `__shared__`,
    /// ...) as macros, and system headers may spell attributes with those
    /// names (libstdc++ 13's `__attribute__((__noinline__))`, which broke
    /// the emulator under g++ 13): no system header may follow them.
    #[test]
    fn system_headers_come_before_the_shims_macros() {
        let first_define = SHIM.find("#define").unwrap();
        assert!(
            !SHIM[first_define..].contains("#include"),
            "shim.h includes after its macros"
        );
        let include = "#include \"shim.h\"";
        let after = RUNTIME.find(include).unwrap() + include.len();
        assert!(
            !RUNTIME[after..].contains("#include"),
            "runtime.cpp includes after shim.h"
        );
    }

    #[test]
    fn program_names_are_file_names() {
        assert_eq!(program_name("scan i32 \"x\""), "scan_i32__x_.cu");
    }
}
