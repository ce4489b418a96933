//! One NVRTC program: create, compile, fetch the output, destroy.

use super::{require, NvrtcError};
use cudarc::nvrtc::sys::{self, nvrtcProgram, nvrtcResult};
use std::ffi::{c_char, c_int, CString};

/// What to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// PTX for a virtual architecture (`-arch=compute_XY`), e.g. 80 or 90.
    Ptx(u32),
    /// A CUBIN for a real architecture (`-arch=sm_XY`), which also runs
    /// ptxas and so checks register and shared-memory limits.
    Cubin(u32),
}

impl Target {
    fn arch_option(self) -> String {
        match self {
            Target::Ptx(a) => format!("-arch=compute_{a}"),
            Target::Cubin(a) => format!("-arch=sm_{a}"),
        }
    }
}

/// How NVRTC may compile floating-point arithmetic. The default,
/// [`FloatMode::Exact`], gives the bits the host gives: every `+ - * /`
/// and `sqrt` rounds once, as IEEE 754 and Rust define them, and
/// `mul_add` (the header's `fma`/`fmaf`) is the only fused multiply-add.
/// The other modes trade those bits for speed on a GPU; the emulator
/// always computes exactly, whatever the mode.
///
/// ```
/// use granule_cuda::nvrtc::FloatMode;
/// assert_eq!(FloatMode::default().options(), ["--fmad=false"]);
/// assert_eq!(FloatMode::Fast.options(), ["--use_fast_math"]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FloatMode {
    /// `--fmad=false`: no multiply-add contraction, so `a * x + y` rounds
    /// twice on the GPU as on the host. NVRTC's own default contracts it
    /// into one `fma` instruction, which rounds once: faster, usually
    /// more accurate, but different bits.
    #[default]
    Exact,
    /// `--fmad=true`: a multiply feeding an add or subtract may become one
    /// fused multiply-add (f32 and f64), so results may differ from the
    /// host's in the last bits. Division, square roots, denormals and the
    /// math functions stay IEEE-exact or as accurate as in `Exact`.
    Contract,
    /// `--use_fast_math`, which NVRTC defines as `--ftz=true
    /// --prec-div=false --prec-sqrt=false --fmad=true` plus the fast
    /// intrinsics: contraction as in `Contract`, and for **f32 only**
    /// denormal inputs and results flushed to zero, division and `sqrt`
    /// by approximations (`div.approx`, `sqrt.approx`: a few ulp), and
    /// `sin`, `cos`, `tan`, `exp`, `ln`, `log2`, `log10` and `powf` by the
    /// hardware intrinsics (`__sinf`, `__expf`, ..) whose error grows with
    /// the argument (the CUDA Programming Guide's intrinsic-function
    /// tables give the bounds). f64 arithmetic changes only by
    /// contraction.
    Fast,
}

impl FloatMode {
    /// The NVRTC options of this mode.
    pub fn options(self) -> &'static [&'static str] {
        match self {
            FloatMode::Exact => &["--fmad=false"],
            FloatMode::Contract => &["--fmad=true"],
            FloatMode::Fast => &["--use_fast_math"],
        }
    }
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Output {
    /// PTX text (without the trailing NUL) or CUBIN bytes (an ELF image).
    pub bytes: Vec<u8>,
    /// NVRTC's log, warnings included; often empty.
    pub log: String,
}

/// NVRTC's version, `(major, minor)`.
///
/// ```
/// if granule_cuda::nvrtc::available() {
///     assert_eq!(granule_cuda::nvrtc::version().unwrap().0, 12);
/// }
/// ```
pub fn version() -> Result<(i32, i32), NvrtcError> {
    require()?;
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: NVRTC is loadable (checked above); both pointers are valid.
    check("nvrtcVersion", unsafe {
        sys::nvrtcVersion(&mut major, &mut minor)
    })?;
    Ok((major, minor))
}

/// Compiles `source` (named `program` in the log) with `-std=c++17`,
/// [`FloatMode::Exact`]'s `--fmad=false`, and `extra` options, to `target`.
///
/// ```
/// use granule_cuda::nvrtc::{compile, NvrtcError, Target};
/// let src = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }";
/// match compile(src, "k.cu", Target::Ptx(80), &[]) {
///     Ok(out) => assert!(String::from_utf8(out.bytes).unwrap().contains(".entry k")),
///     Err(NvrtcError::Missing) => eprintln!("NVRTC not installed"),
///     Err(e) => panic!("{e}"),
/// }
/// ```
pub fn compile(
    source: &str,
    program: &str,
    target: Target,
    extra: &[&str],
) -> Result<Output, NvrtcError> {
    compile_with(source, program, target, FloatMode::Exact, extra)
}

/// [`compile`] with the floating-point options of `mode` instead of
/// `Exact`'s.
///
/// ```
/// use granule_cuda::nvrtc::{compile_with, FloatMode, Target};
/// let src = "extern \"C\" __global__ void k(float* y, float a) { y[0] = a * y[1] + y[2]; }";
/// if granule_cuda::nvrtc::available() {
///     let out = compile_with(src, "k.cu", Target::Ptx(80), FloatMode::Contract, &[]).unwrap();
///     assert!(String::from_utf8(out.bytes).unwrap().contains("fma.rn.f32"));
/// }
/// ```
pub fn compile_with(
    source: &str,
    program: &str,
    target: Target,
    mode: FloatMode,
    extra: &[&str],
) -> Result<Output, NvrtcError> {
    let (prog, log) = compiled(source, program, target, mode, extra)?;
    let bytes = match target {
        Target::Ptx(_) => prog.ptx()?,
        Target::Cubin(_) => prog.cubin()?,
    };
    Ok(Output { bytes, log })
}

/// Compiles `source` for the real architecture `arch` (`-arch=sm_XY`)
/// once, and returns both outputs of that one compilation: its PTX
/// (which NVRTC keeps beside the CUBIN) and its CUBIN, with the log.
pub(crate) fn compile_ptx_and_cubin(
    source: &str,
    program: &str,
    arch: u32,
) -> Result<(Output, Output), NvrtcError> {
    let (prog, log) = compiled(source, program, Target::Cubin(arch), FloatMode::Exact, &[])?;
    let ptx = Output {
        bytes: prog.ptx()?,
        log: log.clone(),
    };
    let cubin = Output {
        bytes: prog.cubin()?,
        log,
    };
    Ok((ptx, cubin))
}

/// The log of compiling `source` to a CUBIN for `sm_<arch>` with
/// [`FloatMode::Exact`] and `extra` options (ptxas's report, when `extra`
/// asks for it).
pub(crate) fn compiled_log(
    source: &str,
    program: &str,
    arch: u32,
    extra: &[&str],
) -> Result<String, NvrtcError> {
    compiled(
        source,
        program,
        Target::Cubin(arch),
        FloatMode::Exact,
        extra,
    )
    .map(|(_, log)| log)
}

/// A program compiled for `target` with `mode`'s and `extra` options, and
/// its log; a compilation error carries the log and the source line.
fn compiled(
    source: &str,
    program: &str,
    target: Target,
    mode: FloatMode,
    extra: &[&str],
) -> Result<(Program, String), NvrtcError> {
    require()?;
    let mut options = vec!["-std=c++17".to_string(), target.arch_option()];
    options.extend(mode.options().iter().map(|s| s.to_string()));
    options.extend(extra.iter().map(|s| s.to_string()));
    let prog = Program::new(source, program)?;
    let ok = prog.compile(&options)?;
    let log = prog.log()?;
    if !ok {
        return Err(NvrtcError::compile(program, &options, log, source));
    }
    Ok((prog, log))
}

fn check(call: &'static str, r: nvrtcResult) -> Result<(), NvrtcError> {
    if r == nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(NvrtcError::Api {
            call,
            code: format!("{r:?}"),
        })
    }
}

fn c_string(call: &'static str, s: &str) -> Result<CString, NvrtcError> {
    CString::new(s).map_err(|_| NvrtcError::Api {
        call,
        code: "string contains a NUL byte".into(),
    })
}

/// An NVRTC program handle, destroyed on drop. Only built after
/// [`require`] succeeded, so every call below has a loaded library.
struct Program {
    handle: nvrtcProgram,
}

type SizeFn = unsafe fn(nvrtcProgram, *mut usize) -> nvrtcResult;
type GetFn = unsafe fn(nvrtcProgram, *mut c_char) -> nvrtcResult;

impl Program {
    fn new(source: &str, name: &str) -> Result<Self, NvrtcError> {
        let src = c_string("nvrtcCreateProgram", source)?;
        let name = c_string("nvrtcCreateProgram", name)?;
        let mut handle: nvrtcProgram = std::ptr::null_mut();
        // SAFETY: the strings are NUL-terminated and outlive the call
        // (NVRTC copies them); zero headers with null arrays is allowed.
        let r = unsafe {
            sys::nvrtcCreateProgram(
                &mut handle,
                src.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        check("nvrtcCreateProgram", r)?;
        Ok(Program { handle })
    }

    /// `Ok(false)` on a compilation error (the log explains it).
    fn compile(&self, options: &[String]) -> Result<bool, NvrtcError> {
        let owned: Vec<CString> = options
            .iter()
            .map(|o| c_string("nvrtcCompileProgram", o))
            .collect::<Result<_, _>>()?;
        let ptrs: Vec<*const c_char> = owned.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: `handle` is a live program; `ptrs` holds `len` valid
        // C strings that outlive the call.
        let r =
            unsafe { sys::nvrtcCompileProgram(self.handle, ptrs.len() as c_int, ptrs.as_ptr()) };
        match r {
            nvrtcResult::NVRTC_ERROR_COMPILATION => Ok(false),
            r => check("nvrtcCompileProgram", r).map(|()| true),
        }
    }

    fn ptx(&self) -> Result<Vec<u8>, NvrtcError> {
        self.fetch("nvrtcGetPTX", sys::nvrtcGetPTXSize, sys::nvrtcGetPTX)
    }

    fn cubin(&self) -> Result<Vec<u8>, NvrtcError> {
        self.fetch("nvrtcGetCUBIN", sys::nvrtcGetCUBINSize, sys::nvrtcGetCUBIN)
    }

    fn log(&self) -> Result<String, NvrtcError> {
        let bytes = self.fetch(
            "nvrtcGetProgramLog",
            sys::nvrtcGetProgramLogSize,
            sys::nvrtcGetProgramLog,
        )?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Reads a size-then-bytes output; a trailing NUL (text outputs) is cut.
    fn fetch(&self, call: &'static str, size: SizeFn, get: GetFn) -> Result<Vec<u8>, NvrtcError> {
        let mut n = 0usize;
        // SAFETY: `handle` is live and `n` is a valid out-pointer.
        check(call, unsafe { size(self.handle, &mut n) })?;
        let mut buf = vec![0u8; n.max(1)];
        // SAFETY: `buf` has room for the `n` bytes NVRTC reported.
        check(call, unsafe { get(self.handle, buf.as_mut_ptr().cast()) })?;
        buf.truncate(n);
        if call != "nvrtcGetCUBIN" && buf.last() == Some(&0) {
            buf.pop();
        }
        Ok(buf)
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: `handle` was created by nvrtcCreateProgram and is
        // destroyed exactly once; a failure leaves nothing to do.
        let _ = unsafe { sys::nvrtcDestroyProgram(&mut self.handle) };
    }
}
