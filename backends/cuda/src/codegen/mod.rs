//! Assembling a translation unit: the device header, the `#[device]`
//! helpers, the kernels' `__device__` functions, and one `extern "C"`
//! `__global__` entry point per instantiation that hands the kernel to a
//! framework driver.
//!
//! Entry points are plain C names, `granule_<pattern>_<kernel>[__<types>]`,
//! so no NVRTC name expressions are needed to find template instances.

pub mod driver;
mod workspace;
mod wrapper;

use crate::device::HEADER;
use crate::kernel::{DeviceFn, DeviceKernel, KernelPattern};
use crate::nvrtc::FloatMode;

/// A built-in, tuple or custom reducer as a driver names it (defined in
/// granule-core, beside the other device descriptions).
pub use crate::kernel::ReducerOp as Reducer;
use std::fmt;

pub use workspace::{
    reduce_workspace, scan_items, scan_slots, scan_workspace, scan_workspace_with, ReduceWorkspace,
    ScanWorkspace, CUDA_SCAN_TILE_THREADS,
};
pub use wrapper::{entry_name, params_symbol};

/// Which driver runs the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `parallel_for` over a range: outputs are element `i` of their View.
    For,
    /// `parallel_reduce` over a range with a built-in reducer: the kernel's
    /// single output is the accumulator.
    Reduce(Reducer),
    /// `parallel_for` over a team policy: a team is a block (`For` on a
    /// team kernel means the same).
    Team,
    /// `parallel_scan` over a range combined by a built-in reducer: the
    /// kernel's last `&mut` is the partial, followed by the final flag.
    Scan(Reducer),
}

impl Pattern {
    /// The patterns a `#[kernel]` written for `pattern` can be wrapped in
    /// with accumulator C++ type `acc` (the type of its last `&mut`): every
    /// reducer that applies to the type (reducers are the call's choice).
    /// None for an element function, which algorithms' drivers call.
    ///
    /// ```
    /// use granule_cuda::codegen::{Pattern, Reducer};
    /// use granule_cuda::kernel::KernelPattern;
    /// assert_eq!(Pattern::all_for(KernelPattern::Reduce, "bool"), [Pattern::Reduce(Reducer::LAnd), Pattern::Reduce(Reducer::LOr)]);
    /// ```
    pub fn all_for(pattern: KernelPattern, acc: &str) -> Vec<Pattern> {
        let reducers = Reducer::for_type(acc);
        match pattern {
            KernelPattern::For => vec![Pattern::For],
            KernelPattern::Reduce => reducers.into_iter().map(Pattern::Reduce).collect(),
            KernelPattern::Scan => reducers.into_iter().map(Pattern::Scan).collect(),
            KernelPattern::Element => Vec::new(),
        }
    }
}

impl Pattern {
    /// The custom reducer's definition, if the pattern uses one.
    pub(crate) fn custom_reducer(self) -> Option<&'static DeviceFn> {
        match self {
            Pattern::Reduce(Reducer::Custom(f)) | Pattern::Scan(Reducer::Custom(f)) => Some(f),
            _ => None,
        }
    }
}

/// One kernel, one pattern, one choice of template arguments.
#[derive(Clone, Copy, Debug)]
pub struct Instance {
    /// The kernel.
    pub kernel: &'static DeviceKernel,
    /// The driver.
    pub pattern: Pattern,
    /// C++ types for the kernel's generics, in order
    /// (see [`crate::kernel::DeviceScalar::CPP`]).
    pub types: &'static [&'static str],
}

impl Instance {
    /// An instance.
    ///
    /// ```
    /// # use granule_cuda::codegen::{Instance, Pattern};
    /// # use granule_cuda::kernel::DeviceKernel;
    /// // SAFETY: a kernel with no parameters and no code.
    /// static K: DeviceKernel = unsafe { DeviceKernel::new("k", granule_cuda::kernel::KernelPattern::For, &[], &[], "", &[]) };
    /// assert_eq!(Instance::new(&K, Pattern::Team, &[]).entry(), "granule_team_k");
    /// ```
    pub fn new(
        kernel: &'static DeviceKernel,
        pattern: Pattern,
        types: &'static [&'static str],
    ) -> Self {
        Instance {
            kernel,
            pattern,
            types,
        }
    }

    /// The `extern "C"` name of the entry point.
    pub fn entry(&self) -> String {
        entry_name(self.kernel.name, self.pattern, self.types)
    }
}

/// Why an instance cannot be wrapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenError {
    /// The kernel.
    pub kernel: &'static str,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`: {}", self.kernel, self.message)
    }
}

impl std::error::Error for CodegenError {}

/// A complete CUDA C++ source with its entry points, and the
/// floating-point mode a GPU compiles it in.
#[derive(Clone, Debug)]
pub struct TranslationUnit {
    source: String,
    entries: Vec<String>,
    float_mode: FloatMode,
}

impl TranslationUnit {
    /// Header, helpers (each once, callees first), kernels (each once) and
    /// one entry point per instance.
    pub fn new(instances: &[Instance]) -> Result<Self, CodegenError> {
        let mut source = String::from(HEADER);
        let mut seen_fns: Vec<*const DeviceFn> = Vec::new();
        let mut seen_kernels: Vec<*const DeviceKernel> = Vec::new();
        for inst in instances {
            for dep in inst
                .kernel
                .deps
                .iter()
                .copied()
                .chain(inst.pattern.custom_reducer())
            {
                push_fn(&mut source, dep, &mut seen_fns, &mut Vec::new()).map_err(|message| {
                    CodegenError {
                        kernel: inst.kernel.name,
                        message,
                    }
                })?;
            }
            if !seen_kernels.contains(&(inst.kernel as *const _)) {
                seen_kernels.push(inst.kernel);
                source.push_str("\n// ---- kernel ");
                source.push_str(inst.kernel.name);
                source.push('\n');
                source.push_str(inst.kernel.source);
            }
        }
        let mut entries = Vec::new();
        for inst in instances {
            let (name, text) = wrapper::entry_point(inst)?;
            if !entries.contains(&name) {
                source.push('\n');
                source.push_str(&text);
                entries.push(name);
            }
        }
        Ok(TranslationUnit {
            source,
            entries,
            float_mode: FloatMode::Exact,
        })
    }

    /// The unit of one driver instance (see [`driver`]): the header, the
    /// instance's custom reducer and element functions, the driver's
    /// source and its entry point.
    ///
    /// ```
    /// use granule_cuda::codegen::driver::{DeviceDriver, DriverInstance, DriverParam, DriverParamKind};
    /// use granule_cuda::codegen::TranslationUnit;
    /// // SAFETY: fills y(i) with 1 below its extent, one thread per index.
    /// static ONES: DeviceDriver = unsafe {
    ///     DeviceDriver::new("ones", &["T"], None,
    ///         &[DriverParam { name: "y", kind: DriverParamKind::Output, cpp: "T" }],
    ///         &[], "", "granule::drive_for(0, y.extent(0), [&](granule::u64 i) { y(i) = (T)1; });")
    /// };
    /// let inst = DriverInstance { driver: &ONES, types: vec!["granule::u8"], reducer: None, functions: vec![] };
    /// let unit = TranslationUnit::for_driver(&inst).unwrap();
    /// assert_eq!(unit.entries(), ["granule_drv_ones__u8"]);
    /// assert!(unit.source().contains("granule::View<granule::u8, 1, granule::LayoutStride> y"));
    /// ```
    pub fn for_driver(inst: &driver::DriverInstance) -> Result<Self, CodegenError> {
        Self::for_drivers(std::slice::from_ref(inst))
    }

    /// The unit of several driver instances (each entry once), as
    /// [`TranslationUnit::for_driver`] makes for one: to compile a
    /// family of drivers at once.
    ///
    /// ```
    /// use granule_cuda::codegen::driver::{DeviceDriver, DriverInstance, DriverParam, DriverParamKind};
    /// use granule_cuda::codegen::TranslationUnit;
    /// // SAFETY: fills y(i) with 0 below its extent, one thread per index.
    /// static ZERO: DeviceDriver = unsafe {
    ///     DeviceDriver::new("zero", &["T"], None,
    ///         &[DriverParam { name: "y", kind: DriverParamKind::Output, cpp: "T" }],
    ///         &[], "", "granule::drive_for(0, y.extent(0), [&](granule::u64 i) { y(i) = (T)0; });")
    /// };
    /// let of = |t| DriverInstance { driver: &ZERO, types: vec![t], reducer: None, functions: vec![] };
    /// let unit = TranslationUnit::for_drivers(&[of("granule::f32"), of("bool"), of("granule::f32")]).unwrap();
    /// assert_eq!(unit.entries(), ["granule_drv_zero__f32", "granule_drv_zero__bool"]);
    /// ```
    pub fn for_drivers(insts: &[driver::DriverInstance]) -> Result<Self, CodegenError> {
        let (entries, source) = driver::unit_source(insts)?;
        Ok(TranslationUnit {
            source,
            entries,
            float_mode: FloatMode::Exact,
        })
    }

    /// A unit of hand-written device code with these entry points (each
    /// defining its parameter table), compiled exactly.
    pub(crate) fn from_source(source: String, entries: Vec<String>) -> Self {
        TranslationUnit {
            source,
            entries,
            float_mode: FloatMode::Exact,
        }
    }

    /// The same unit, compiled for a GPU in `mode` (the emulator computes
    /// exactly in every mode). Devices key their compiled-module caches on
    /// it.
    ///
    /// ```
    /// use granule_cuda::codegen::TranslationUnit;
    /// use granule_cuda::nvrtc::FloatMode;
    /// let unit = TranslationUnit::new(&[]).unwrap();
    /// assert_eq!(unit.float_mode(), FloatMode::Exact);
    /// assert_eq!(unit.with_float_mode(FloatMode::Fast).float_mode(), FloatMode::Fast);
    /// ```
    pub fn with_float_mode(mut self, mode: FloatMode) -> Self {
        self.float_mode = mode;
        self
    }

    /// The floating-point mode (see [`FloatMode`]).
    ///
    /// ```
    /// let unit = granule_cuda::codegen::TranslationUnit::new(&[]).unwrap();
    /// assert_eq!(unit.float_mode(), granule_cuda::nvrtc::FloatMode::Exact);
    /// ```
    pub fn float_mode(&self) -> FloatMode {
        self.float_mode
    }

    /// The full CUDA C++ text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The `extern "C"` entry points, in instance order.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }
}

/// Emits `f` after its callees, each once. `path` is the chain of callers
/// being emitted: a callee already on it is recursion, which the unit
/// rejects (the translator rejects a function calling itself; calls that
/// come back through others are found here). The unit declares nothing
/// ahead, so such code could not compile anyway, and a GPU thread's stack
/// is sized for the calls the compiler sees, not for recursion.
fn push_fn(
    source: &mut String,
    f: &'static DeviceFn,
    seen: &mut Vec<*const DeviceFn>,
    path: &mut Vec<&'static str>,
) -> Result<(), String> {
    if path.contains(&f.name) {
        path.push(f.name);
        return Err(format!(
            "the `#[device]` functions call each other ({}): recursion is not supported on the device; write it as a loop",
            path.join(" -> ")
        ));
    }
    if seen.contains(&(f as *const _)) {
        return Ok(());
    }
    path.push(f.name);
    for dep in f.deps {
        push_fn(source, dep, seen, path)?;
    }
    path.pop();
    seen.push(f);
    source.push_str("\n// ---- device fn ");
    source.push_str(f.name);
    source.push('\n');
    source.push_str(f.source);
    Ok(())
}
