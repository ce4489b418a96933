//! Kernel dispatch on [`Cuda`]: the pattern traits of granule-core for
//! every policy, over `#[kernel]` functors whose Views live in the space's
//! memory.
//!
//! One dispatch is one launch of a framework driver (see
//! [`crate::codegen`]) around the kernel's device function:
//! - the entry point is compiled once per (kernel, driver, types) and
//!   space, then cached;
//! - its arguments are the policy's, then the kernel's parameters in
//!   declaration order (captured values and Views from the functor,
//!   written Views from the call's write parts), then the driver's
//!   workspace;
//! - every View address is checked against the space's live allocations,
//!   and every size against the device's limits, before the launch.
//!
//! # Asynchrony
//! A dispatch is asynchronous, as in Kokkos: it issues its launch on the
//! device's stream and returns. `parallel_for` returns at once;
//! `parallel_reduce` and `parallel_scan` return a value the kernel
//! computes, so they wait for it (a reduction into a device View through
//! `parallel_reduce_into` waits too, as core's pattern hands the value
//! over on the host). What a refusal before the launch finds (a View of
//! another space, a size past the device's limits) still panics in the
//! dispatch, naming it.
//!
//! A failure while the kernel runs (a bounds check, an assertion, a race
//! the emulator finds) is reported at the space's next synchronization
//! point, as a [`DeviceError::Dispatch`] that names the dispatch's label,
//! its kernel and its Views, with the device's message: `Cuda::fence`
//! panics with it (`Cuda::try_fence` returns it), a reduction or scan
//! waiting for its result panics with it, and so does a copy between host
//! and device (`deep_copy`, the mirrors). Dispatches issued on the device
//! after a failed one, until its next synchronization, do not run (a
//! GPU's kernels find the failure word set; the emulator skips them), and
//! the report counts them; a space whose dispatch was skipped behind
//! another space's failure is told so at its own next synchronization
//! point ([`DeviceError::Skipped`]), whoever synchronized first.
//!
//! # Why the host cannot see a kernel's memory early
//! When a dispatch returns, the borrows it took of its Views end, though
//! the kernel may still run. Whatever safe code then does with those Views
//! waits for the kernel first:
//! - it can reach device memory only through the device: copies to and
//!   from the host (`deep_copy`, mirrors, a reduction's result) are
//!   [`Device::copy_to_device`](crate::device_api::Device::copy_to_device)
//!   and `copy_to_host`, which wait for every launch issued before them;
//! - dropping a View frees its memory through [`Device::free`](crate::device_api::Device::free),
//!   which waits for the launches issued before it, so the memory stays
//!   allocated while a kernel may use it;
//! - another dispatch, or a device-to-device copy, is queued after the
//!   kernel on the same stream, so it sees the kernel's writes;
//! - a View's host mirror is a separate allocation that the kernel never
//!   sees (kernels take only Views of the space's memory, checked here);
//!   captured scalars are copied into the launch's arguments when it is
//!   issued;
//! - a driver's workspace (reduction partials, scan status, level-1
//!   scratch) is freed only after a synchronization point, or at once
//!   when its own dispatch was waited for.
//!
//! The device makes these waits itself (the `Device` trait's "Stream
//! order"), so no path around the space skips them. A space keeps at most
//! [`MAX_IN_FLIGHT`](super::MAX_IN_FLIGHT) dispatches in flight, then the
//! next one waits (a synchronization point too).

mod driver;
mod mdrange;
mod range;
mod team;

pub use driver::{DriverLaunch, DriverWorkspace};

use super::queue::{report, Dispatched};
use super::Cuda;
use crate::codegen::driver::DriverInstance;
use crate::codegen::{CodegenError, Instance, Pattern, TranslationUnit};
use crate::device_api::{DeviceBuffer, DeviceError, KernelArgs, LaunchConfig, Module};
use crate::kernel::{
    DeviceArg, DeviceFn, DeviceKernel, DeviceValue, KernelPattern, ParamKind, ViewArg,
};
use parking_lot::Mutex;
use std::collections::HashMap;

/// Threads per block of the range and MDRange drivers.
const BLOCK: u32 = 256;

/// Compiled entry points of one space, by [`ModuleKey`].
#[derive(Debug, Default)]
pub(super) struct Modules(Mutex<HashMap<ModuleKey, Module>>);

/// What decides an instance's translation unit: the kernel (its source and
/// `#[device]` dependencies) or the driver and its element functions, the
/// entry name (driver, reducer name and template arguments, which are
/// scalar C++ names) and a custom reducer's definition. Definitions are
/// told apart by address, not by name: two kernels, or two `#[device] impl
/// Reducer<T> for R` with the same `R`, may share a name in different Rust
/// modules, never an address.
#[derive(Debug, PartialEq, Eq, Hash)]
struct ModuleKey {
    code: Vec<usize>,
    entry: String,
    reducer: Option<usize>,
}

/// What a launch runs: a `#[kernel]` in a pattern's driver, or an
/// instance of a driver brought by a crate above (see `driver.rs`).
#[derive(Clone, Debug)]
pub(super) enum Code {
    Kernel(Instance),
    Driver(DriverInstance),
}

impl Code {
    fn entry(&self) -> String {
        match self {
            Code::Kernel(i) => i.entry(),
            Code::Driver(d) => d.entry(),
        }
    }

    fn key(&self) -> ModuleKey {
        let addr = |k: &'static DeviceKernel| k as *const DeviceKernel as usize;
        let custom = |r: Option<crate::codegen::Reducer>| match r {
            Some(crate::codegen::Reducer::Custom(f)) => Some(f as *const DeviceFn as usize),
            _ => None,
        };
        match self {
            Code::Kernel(i) => ModuleKey {
                code: vec![addr(i.kernel)],
                entry: i.entry(),
                reducer: i
                    .pattern
                    .custom_reducer()
                    .map(|f| f as *const DeviceFn as usize),
            },
            Code::Driver(d) => ModuleKey {
                code: std::iter::once(d.driver as *const _ as usize)
                    .chain(d.functions.iter().map(|f| addr(f.function)))
                    .collect(),
                entry: d.entry(),
                reducer: custom(d.reducer),
            },
        }
    }

    fn unit(&self) -> Result<TranslationUnit, CodegenError> {
        match self {
            Code::Kernel(i) => TranslationUnit::new(std::slice::from_ref(i)),
            Code::Driver(d) => TranslationUnit::for_driver(d),
        }
    }

    /// How failures name it: "kernel `axpy`", "driver `copy_if` with `odd`".
    fn what(&self) -> String {
        match self {
            Code::Kernel(i) => format!("kernel `{}`", i.kernel.name),
            Code::Driver(d) => {
                let fns: Vec<String> = d
                    .functions
                    .iter()
                    .map(|f| format!("`{}`", f.function.name))
                    .collect();
                match fns.is_empty() {
                    true => format!("driver `{}`", d.driver.name),
                    false => format!("driver `{}` with {}", d.driver.name, fns.join(", ")),
                }
            }
        }
    }
}

/// One launch being assembled.
pub(super) struct Launch<'a> {
    cuda: &'a Cuda,
    label: &'a str,
    code: Code,
    args: KernelArgs,
    /// View labels by the id their arguments carry, for error messages.
    ids: Vec<String>,
    /// Driver workspace, released to the space's cache when the launch is
    /// dropped.
    work: Vec<DeviceBuffer>,
}

impl<'a> Launch<'a> {
    /// A launch of `kernel` wrapped in driver `pattern`.
    pub fn new(
        cuda: &'a Cuda,
        label: &'a str,
        kernel: &'static DeviceKernel,
        pattern: Pattern,
        types: &'static [&'static str],
    ) -> Self {
        let launch = Launch {
            cuda,
            label,
            code: Code::Kernel(Instance::new(kernel, pattern, types)),
            args: KernelArgs::new(),
            ids: Vec::new(),
            work: Vec::new(),
        };
        let wanted = match pattern {
            Pattern::For | Pattern::Team => KernelPattern::For,
            Pattern::Reduce(_) => KernelPattern::Reduce,
            Pattern::Scan(_) => KernelPattern::Scan,
        };
        if kernel.pattern != wanted {
            launch.fail(&format!(
                "the kernel is written for {:?}, not for this pattern ({wanted:?}); write it as \
                 #[kernel{}]",
                kernel.pattern,
                match pattern {
                    Pattern::For | Pattern::Team => "",
                    Pattern::Reduce(_) => "(reduce)",
                    Pattern::Scan(_) => "(scan)",
                }
            ));
        }
        launch
    }

    /// A launch of a driver instance (see `driver.rs`).
    pub fn driver(cuda: &'a Cuda, label: &'a str, inst: DriverInstance) -> Self {
        Launch {
            cuda,
            label,
            code: Code::Driver(inst),
            args: KernelArgs::new(),
            ids: Vec::new(),
            work: Vec::new(),
        }
    }

    /// The pattern instance being launched (made by [`Launch::new`]).
    fn instance(&self) -> &Instance {
        match &self.code {
            Code::Kernel(i) => i,
            Code::Driver(_) => unreachable!("only pattern dispatch binds kernel parameters"),
        }
    }

    /// The kernel being launched.
    pub fn kernel(&self) -> &'static DeviceKernel {
        self.instance().kernel
    }

    /// The policy's arguments (`begin, end`, an `MdRange`, ..).
    pub fn head(&mut self) -> &mut KernelArgs {
        &mut self.args
    }

    /// The kernel's parameters, in declaration order: `captures` for
    /// values, read and atomic Views; `written` for `&mut` elements and
    /// team chunks, except the accumulator a reduce or scan driver binds.
    pub fn params(&mut self, captures: Vec<DeviceArg<'_>>, written: Vec<DeviceArg<'_>>) {
        let kernel = self.instance().kernel;
        let outs = kernel
            .params
            .iter()
            .filter(|p| p.kind == ParamKind::Out)
            .count();
        let driver_binds_last = matches!(
            self.instance().pattern,
            Pattern::Reduce(_) | Pattern::Scan(_)
        );
        let (mut caps, mut writes) = (captures.into_iter(), written.into_iter());
        let mut out_k = 0;
        for p in kernel.params {
            let arg = match p.kind {
                ParamKind::Index
                | ParamKind::MdIndex { .. }
                | ParamKind::Team
                | ParamKind::Final
                | ParamKind::Element => continue,
                ParamKind::Scalar
                | ParamKind::View { .. }
                | ParamKind::Atomic { .. }
                | ParamKind::Map { .. } => caps.next(),
                ParamKind::Out => {
                    out_k += 1;
                    if driver_binds_last && out_k == outs {
                        continue;
                    }
                    writes.next()
                }
                ParamKind::Chunk { .. } | ParamKind::Row { .. } => writes.next(),
                // The View, then its offsets.
                ParamKind::Segment => match writes.next() {
                    Some(view) => {
                        self.push(view);
                        writes.next()
                    }
                    None => None,
                },
            };
            let Some(arg) = arg else {
                self.fail(&format!(
                    "kernel `{}` has more parameters than the functor and the written Views \
                     give (at `{}`)",
                    kernel.name, p.name
                ));
            };
            self.push(arg);
        }
        if caps.next().is_some() || writes.next().is_some() {
            self.fail(&format!(
                "kernel `{}` was given more arguments than it has parameters (does the \
                 number of written Views match its `&mut` parameters?)",
                kernel.name
            ));
        }
    }

    fn push(&mut self, arg: DeviceArg<'_>) {
        match arg {
            DeviceArg::Scalar(bytes) => {
                self.args.raw(&bytes);
            }
            DeviceArg::View(v) | DeviceArg::Atomic(v) | DeviceArg::Written(v) => {
                let id = self.view_id(&v);
                let ext: Vec<u64> = v.extents.iter().map(|&e| e as u64).collect();
                let str_: Vec<u64> = v.strides.iter().map(|&s| s as u64).collect();
                self.args.view(v.address as u64, &ext, &str_, id);
            }
            DeviceArg::Map(m) => {
                // One `granule::UnorderedMap`: its four Views back to back,
                // each checked to lie in this space's memory.
                let views = [&m.states, &m.keys, &m.values, &m.counters]
                    .map(|v| (v.address as u64, v.extents[0] as u64, self.view_id(v)));
                self.args.map(views);
            }
            DeviceArg::Chunked(c) => {
                let view = ViewArg {
                    label: c.label,
                    address: c.address,
                    elem_size: c.elem_size,
                    extents: vec![c.len],
                    strides: vec![1],
                };
                if !c.contiguous {
                    self.fail(&format!(
                        "View \"{}\" is divided among teams, but its elements are not \
                         contiguous in row-major order, which the device's chunks need; \
                         write through a contiguous View (LayoutRight, or a rank-1 View of \
                         stride 1)",
                        c.label
                    ));
                }
                let id = self.view_id(&view);
                self.args
                    .chunked(c.address as u64, c.len as u64, id, &c.map_words);
            }
        }
    }

    /// Checks that the View lies in a live allocation of the space, and
    /// gives it an id for the device's error records.
    fn view_id(&mut self, v: &ViewArg<'_>) -> u32 {
        let Some(bytes) = v.span_bytes() else {
            self.fail(&format!(
                "View \"{}\" (extents {:?}, strides {:?}) spans more bytes than the host can count",
                v.label, v.extents, v.strides
            ));
        };
        if bytes > 0 {
            if let Err(e) = self.cuda.space.locate(v.address as u64, bytes) {
                self.fail(&format!(
                    "View \"{}\" is not in this Cuda space's memory: {e}",
                    v.label
                ));
            }
        }
        self.ids.push(v.label.to_string());
        self.ids.len() as u32
    }

    /// A zeroed workspace buffer of `bytes` (at least one byte), whose
    /// address becomes the next argument.
    pub fn workspace(&mut self, bytes: usize) -> u64 {
        let addr = self.alloc_work(bytes);
        self.args.pointer(addr);
        addr
    }

    /// One zeroed workspace buffer per size, in order, each the next
    /// argument (a driver's tail); returns the last one's address, which
    /// the drivers use for the result.
    pub fn workspaces(&mut self, sizes: &[usize]) -> u64 {
        sizes.iter().map(|&b| self.workspace(b)).last().unwrap_or(0)
    }

    /// A zeroed workspace buffer of `bytes` (at least one byte), which
    /// goes back to the space's cache once the launch is issued (its next
    /// use is queued behind the kernel).
    pub fn alloc_work(&mut self, bytes: usize) -> u64 {
        let buffer = match self.cuda.space.alloc_zeroed(bytes.max(1)) {
            Ok(b) => b,
            Err(e) => self.fail_device("the driver's workspace", &e),
        };
        let addr = buffer.address();
        self.work.push(buffer);
        addr
    }

    /// Compiles (once per space) and issues the launch on the device's
    /// stream; it runs asynchronously (see the module's "Asynchrony").
    ///
    /// # Safety
    /// The arguments are the entry point's, in order, and the workspace
    /// and `config` are what its driver needs (the callers in this module
    /// state which).
    pub unsafe fn run(&mut self, config: &LaunchConfig) {
        if let Err(reason) = self.cuda.device().limits().check(config) {
            self.fail(&format!("the launch does not fit the device: {reason}"));
        }
        let module = match self.cuda.module(&self.code, self.label) {
            Ok(m) => m,
            Err(e) => self.fail_device("compiling the kernel", &e),
        };
        let space = &self.cuda.space;
        if let Err(e) = space.make_room() {
            report(
                &e,
                &format!("dispatch \"{}\", which waited for room", self.label),
            );
        }
        let entry = self.code.entry();
        let (args, label, kernel, views) = (&self.args, self.label, self.code.what(), &self.ids);
        let issued = space.issue(
            // SAFETY: forwarded from the caller: the entry's arguments, its
            // workspace and a configuration its driver accepts; every View
            // argument was checked to lie in a live allocation of this
            // device, and no other work touches the workspace before the
            // kernel has run (`Drop` releases it to the space's cache, whose
            // next use is queued behind the kernel, and whose free waits
            // for it).
            |device| unsafe { device.launch(&module, &entry, config, args) },
            |launch| Dispatched {
                launch,
                label: label.to_string(),
                kernel: kernel.clone(),
                views: views.clone(),
            },
        );
        if let Err(e) = issued {
            self.fail_device("the launch", &e);
        }
    }

    /// Reads a `T` from a workspace buffer: a synchronization point, which
    /// waits for the launch (and reports a failure of the space's
    /// dispatches).
    pub fn read<T: DeviceValue>(&self, address: u64) -> T {
        let buffer = self
            .work
            .iter()
            .find(|b| b.address() == address)
            .expect("a workspace buffer of this launch");
        let mut bytes = vec![0u8; T::SIZE];
        let read = self.cuda.space.waiting(|device| {
            // SAFETY: workspace buffers are made by `alloc_zeroed` and
            // written only by this launch's kernels, so every byte is
            // initialized (see `Device::read_bytes`); the padding of a `T`
            // the kernel stored is the machine's bytes, not uninitialized
            // host padding. The read waits for the kernel (stream order).
            unsafe { device.read_bytes(&mut bytes, buffer, 0) }
        });
        match read {
            Ok(()) => T::load(&bytes),
            Err(e) if e.is_queued_failure() => {
                report(&e, &format!("the result of \"{}\"", self.label))
            }
            Err(e) => self.fail_device("reading the result back", &e),
        }
    }

    fn with_ids(&self, e: &DeviceError) -> String {
        let names: Vec<String> = self
            .ids
            .iter()
            .enumerate()
            .map(|(k, l)| format!("{} = \"{l}\"", k + 1))
            .collect();
        format!("{e} (View ids: {})", names.join(", "))
    }

    /// Panics for the device's error `e` in `what`. A lost context (a GPU
    /// refuses everything after a kernel faulted) first reports the
    /// failure that lost it, when the space's next synchronization holds
    /// one: where the emulator, which goes on, would have reported it.
    fn fail_device(&self, what: &str, e: &DeviceError) -> ! {
        if matches!(e, DeviceError::Unavailable { .. }) {
            if let Err(f) = self.cuda.space.synchronize() {
                if f.is_queued_failure() {
                    report(&f, &format!("dispatch \"{}\"", self.label));
                }
            }
        }
        self.fail(&format!("{what}: {}", self.with_ids(e)))
    }

    /// Panics, naming the dispatch, the kernel (or driver) and the device.
    #[track_caller]
    pub fn fail(&self, what: &str) -> ! {
        panic!(
            "parallel dispatch \"{}\" of {} on Cuda ({}): {what}",
            self.label,
            self.code.what(),
            self.cuda.device().name()
        )
    }
}

impl Drop for Launch<'_> {
    fn drop(&mut self) {
        // The kernel may still run: the cache hands the workspace out again
        // only behind it, in stream order.
        self.cuda.space.retire(std::mem::take(&mut self.work));
    }
}

impl Cuda {
    /// The instance's compiled module, compiling it on first use.
    fn module(&self, code: &Code, label: &str) -> Result<Module, DeviceError> {
        let key = code.key();
        let mut cache = self.modules.0.lock();
        if let Some(m) = cache.get(&key) {
            return Ok(m.clone());
        }
        let unit = code
            .unit()
            .map_err(|e| DeviceError::Launch {
                label: label.to_string(),
                entry: code.entry(),
                reason: e.to_string(),
            })?
            .with_float_mode(self.float_mode);
        let module = self.device().compile(&unit, label)?;
        cache.insert(key, module.clone());
        Ok(module)
    }
}

/// Blocks for `n` indices of a grid-stride driver: enough to fill the
/// device a few times over, at least 1.
fn grid_for(cuda: &Cuda, n: u64, block: u32) -> u32 {
    let l = cuda.device().limits();
    let resident = u64::from(l.multiprocessor_count)
        * u64::from((l.max_threads_per_multiprocessor / block).max(1));
    let wanted = n.div_ceil(u64::from(block)).clamp(1, 2 * resident.max(1));
    u32::try_from(wanted.min(u64::from(l.max_grid_dim.0))).unwrap_or(u32::MAX)
}

/// A 1-D launch of `grid` blocks of `block` threads.
fn config(grid: u32, block: u32, shared: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: shared,
    }
}

/// The written Views' arguments, checked to cover `reach`.
fn written<'w, I: std::fmt::Debug, W: crate::kernel::DeviceWrites<I, super::CudaSpace>>(
    label: &str,
    writes: &'w W,
    reach: &I,
) -> Vec<DeviceArg<'w>> {
    granule_core::write::assert_device_covers(label, writes, reach);
    let mut out = Vec::new();
    writes.device_args(&mut out);
    out
}

// Cuda launches the device form of every `#[kernel]` (see
// granule_core::portable).
granule_core::impl_portable_space!(crate::Cuda, crate::CudaSpace, device);
