//! The cudarc device: real GPUs through the CUDA driver API.
//!
//! cudarc is built with `fallback-dynamic-loading`, so nothing links
//! libcuda: the library is opened on first use, and cudarc panics if it
//! is missing. [`GpuDevice::new`] therefore checks for the driver (and for
//! NVRTC, which compiles the kernels) before any cudarc call, and turns a
//! missing library or device into [`DeviceError::Unavailable`].
//!
//! Kernels are compiled by NVRTC to a CUBIN for the device's own
//! architecture (`sm_XY` from its compute capability), in the unit's
//! [`FloatMode`]. Modules are cached for the
//! process by source, architecture and options, and CUBINs on disk by the
//! same and the NVRTC version (`crate::cache`: the target folder, else
//! the user's cache directory), so a second run of the same program
//! compiles nothing.
//!
//! Work is asynchronous, in the order of one non-blocking stream the device
//! owns (`stream.rs`): launches, device copies and the zeroing of new
//! buffers are queued and return; copies between host and device are
//! queued and then waited for (the host buffer is borrowed only for the
//! call), and `free` and `synchronize` wait for the stream, so the host
//! never touches or releases memory that queued work may use (the
//! [`Device`] trait's "Stream order"). A failure is traced to its launch
//! at the next wait, and held for the synchronizations it concerns (the
//! trait's "Failures"); copies and zeroings queued behind it run, as the
//! emulator's do. Before a launch the device checks what
//! the emulator checks: the arguments against the entry's parameter table
//! (`codegen::params_symbol`), the geometry against the limits, and the
//! shared memory against the opt-in maximum with the entry's static
//! shared memory counted (raising the entry's dynamic limit past the
//! default 48 KiB once, when a launch needs it).
//!
//! A failing kernel's record is read from mapped pinned host memory, so a
//! device assertion gives the emulator's message. The failing thread
//! exits without a trap, and the device goes on after the report (see
//! `record.rs`); a real fault (a sticky error) loses the context for
//! good, which every later operation reports.

mod module;
mod record;
mod stream;

use crate::cache;
use crate::codegen::TranslationUnit;
use crate::device_api::{
    check_range, Device, DeviceBuffer, DeviceError, DeviceLimits, KernelArgs, LaunchConfig,
    LaunchId, Launches, Module,
};
use crate::nvrtc::{self, FloatMode, NvrtcError, Target};
use cudarc::driver::sys::{self, CUctx_flags, CUdevice_attribute};
use cudarc::driver::{result, CudaContext, CudaStream, DriverError};
use module::GpuModule;
use parking_lot::Mutex;
use record::{is_sticky, lost_reason, HostRecord};
use std::collections::HashMap;
use std::ffi::c_void;
use std::fmt;
use std::mem::MaybeUninit;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use stream::Queue;

/// A CUDA GPU, driven through cudarc, in a CUDA context of its own.
///
/// ```
/// use granule_cuda::gpu::GpuDevice;
/// match GpuDevice::new(0) {
///     Ok(gpu) => println!("running on {}", granule_cuda::device_api::Device::name(&gpu)),
///     // No driver (or no device) is a typed error, never a panic.
///     Err(e) => assert!(e.to_string().contains("unavailable")),
/// }
/// ```
pub struct GpuDevice {
    ctx: Arc<CudaContext>,
    name: String,
    arch: u32,
    limits: DeviceLimits,
    /// Live allocations: device address -> bytes asked for.
    buffers: Mutex<HashMap<u64, usize>>,
    /// Loaded modules by source key, for the process: the first one
    /// loaded for a key stays, so every launch of that source uses it.
    modules: Mutex<HashMap<String, Module>>,
    /// The error record every module of this device writes, and the
    /// progress word the stream writes.
    record: HostRecord,
    /// The stream every launch and copy is queued on.
    stream: Arc<CudaStream>,
    /// What is queued on the stream; held while anything is issued or
    /// waited for, so issue order is stream order.
    queue: Mutex<Queue>,
    /// Whether the driver has stream writes (`cuStreamWriteValue32_v2`)
    /// to mark each launch's completion; without, each launch waits.
    marks: AtomicBool,
    /// Why the context was lost, once it was.
    lost: Mutex<Option<String>>,
}

impl fmt::Debug for GpuDevice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuDevice")
            .field("name", &self.name)
            .field("ordinal", &self.ctx.ordinal())
            .field("arch", &self.arch)
            .finish_non_exhaustive()
    }
}

impl Drop for GpuDevice {
    fn drop(&mut self) {
        // Queued kernels may still write the record and the progress word:
        // wait for them before freeing those.
        let mut q = self.queue.lock();
        self.wait(&mut q);
        drop(q);
        // The record belongs to the context, which the last module drops.
        if self.ctx.bind_to_thread().is_ok() {
            self.record.free();
        }
    }
}

fn unavailable(ordinal: usize, reason: String) -> DeviceError {
    DeviceError::Unavailable {
        device: format!("CUDA GPU {ordinal}"),
        reason,
    }
}

/// The driver's name and description of an error.
fn describe(e: DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned());
    let text = e.error_string().map(|s| s.to_string_lossy().into_owned());
    match (name, text) {
        (Ok(n), Ok(t)) => format!("{n}: {t}"),
        _ => format!("{e:?}"),
    }
}

/// The device's launch limits. Dynamic shared memory is the opt-in
/// maximum (227 KiB on an H100, not the 48 KiB a function gets without
/// opting in): launches above 48 KiB raise the entry's limit first.
fn read_limits(ctx: &CudaContext) -> Result<DeviceLimits, DriverError> {
    let attr = |a| ctx.attribute(a).map(|v| v.max(0) as u32);
    use CUdevice_attribute::*;
    Ok(DeviceLimits {
        max_threads_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_block_dim: (
            attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
        ),
        max_grid_dim: (
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
        ),
        max_shared_mem_bytes: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
        warp_size: attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        multiprocessor_count: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        max_threads_per_multiprocessor: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
        global_mem_bytes: ctx.total_mem()? as u64,
    })
}

impl GpuDevice {
    /// The GPU with this ordinal, in a new CUDA context (not the device's
    /// primary context: a kernel fault loses only this device's context,
    /// and a new `GpuDevice` gets a working one).
    ///
    /// # Errors
    /// [`DeviceError::Unavailable`] when the NVIDIA driver (libcuda) or
    /// NVRTC cannot be loaded, when there is no such device, or when the
    /// driver fails to start; the message says which and what to do.
    pub fn new(ordinal: usize) -> Result<Self, DeviceError> {
        // SAFETY: only tries to dlopen the candidate names; no CUDA call.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(unavailable(
                ordinal,
                "the NVIDIA driver library (libcuda.so) cannot be loaded: this machine has \
                 no NVIDIA driver. Run on the CPU emulator instead (Cuda::emulated(), or \
                 GRANULE_CUDA=emulator)"
                    .into(),
            ));
        }
        if !nvrtc::available() {
            return Err(unavailable(ordinal, NvrtcError::Missing.to_string()));
        }
        let driver = |e: DriverError| unavailable(ordinal, describe(e));
        result::init().map_err(driver)?;
        let count = CudaContext::device_count().map_err(driver)?;
        if ordinal >= count.max(0) as usize {
            return Err(unavailable(
                ordinal,
                format!("there is no device {ordinal}: the driver reports {count} CUDA devices"),
            ));
        }
        // MAP_HOST: the error record is mapped pinned memory, which a
        // context made through the driver API supports only when asked.
        let ctx = CudaContext::new_non_primary(ordinal, CUctx_flags::CU_CTX_MAP_HOST as u32)
            .map_err(driver)?;
        let (major, minor) = ctx.compute_capability().map_err(driver)?;
        let limits = read_limits(&ctx).map_err(driver)?;
        let name = ctx.name().map_err(driver)?;
        let stream = ctx.new_stream().map_err(driver)?;
        let record = HostRecord::new().map_err(|e| {
            unavailable(
                ordinal,
                format!(
                    "cannot map the error record into the GPU's address space \
                     (cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP): {}",
                    describe(e)
                ),
            )
        })?;
        Ok(GpuDevice {
            name,
            arch: (major * 10 + minor) as u32,
            limits,
            ctx,
            buffers: Mutex::new(HashMap::new()),
            modules: Mutex::new(HashMap::new()),
            record,
            stream,
            queue: Mutex::new(Queue::default()),
            marks: AtomicBool::new(has_stream_writes()),
            lost: Mutex::new(None),
        })
    }

    /// The architecture kernels are compiled for (90 for an H100).
    pub fn arch(&self) -> u32 {
        self.arch
    }

    /// The parameter sizes `module`'s parameter table gives for `entry`,
    /// which every launch's arguments must match; `None` for another
    /// device's module or an unknown entry.
    ///
    /// ```
    /// use granule_cuda::device_api::Device;
    /// let emu = granule_cuda::emu::EmuDevice::new().unwrap();
    /// let module = emu.compile(&granule_cuda::codegen::TranslationUnit::new(&[]).unwrap(), "none").unwrap();
    /// if let Some(gpu) = granule_cuda::gpu::device_or_skip(0, "doc example") {
    ///     // Another device's module has no table here.
    ///     assert_eq!(gpu.entry_params(&module, "granule_for_fill"), None);
    /// }
    /// ```
    pub fn entry_params<'m>(&self, module: &'m Module, entry: &str) -> Option<&'m [usize]> {
        let m = module.inner::<GpuModule>()?;
        m.functions.get(entry).map(|f| f.params.as_slice())
    }

    /// `Err` with the cause once the context was lost.
    fn alive(&self) -> Result<(), DeviceError> {
        match &*self.lost.lock() {
            Some(cause) => Err(self.lost_error(cause)),
            None => Ok(()),
        }
    }

    fn lost_error(&self, cause: &str) -> DeviceError {
        unavailable(self.ctx.ordinal(), lost_reason(cause))
    }

    /// Records that the context was lost (the first cause stays).
    fn lose(&self, cause: String) -> String {
        self.lost.lock().get_or_insert(cause).clone()
    }

    /// The error for the driver's failure `e` of `what`: the context's loss
    /// when `e` is sticky, otherwise `other` of the driver's description.
    fn failure(
        &self,
        what: &str,
        e: DriverError,
        other: impl FnOnce(String) -> DeviceError,
    ) -> DeviceError {
        if is_sticky(e) {
            let cause = self.lose(format!("{what} failed with {}", describe(e)));
            self.lost_error(&cause)
        } else {
            other(describe(e))
        }
    }

    /// Makes the context current on the calling thread, once it is known
    /// to be alive.
    fn bind(&self, what: &str) -> Result<(), DeviceError> {
        self.alive()?;
        self.ctx.bind_to_thread().map_err(|e| {
            self.failure(what, e, |r| DeviceError::Launch {
                label: what.into(),
                entry: String::new(),
                reason: format!("cannot make the CUDA context current: {r}"),
            })
        })
    }

    /// The size of live buffer `addr`.
    fn live(&self, addr: u64) -> Result<usize, DeviceError> {
        self.buffers
            .lock()
            .get(&addr)
            .copied()
            .ok_or(DeviceError::UnknownBuffer { address: addr })
    }

    /// A CUBIN of `unit` for this device: from the disk cache, or from
    /// NVRTC (and then stored there).
    fn cubin(&self, unit: &TranslationUnit, label: &str) -> Result<Vec<u8>, DeviceError> {
        let (source, mode) = (unit.source(), unit.float_mode());
        let (major, minor) =
            nvrtc::version().map_err(|e| unavailable(self.ctx.ordinal(), e.to_string()))?;
        let key = cubin_key(source, self.arch, mode, (major, minor));
        let path = cache::dir("granule-cuda")
            .map_err(|e| unavailable(self.ctx.ordinal(), e))?
            .join(format!("{key}.cubin"));
        if let Ok(bytes) = std::fs::read(&path) {
            tracing::debug!("{label}: CUBIN from the cache, {}", path.display());
            return Ok(bytes);
        }
        tracing::info!(
            "{label}: compiling {} kernels with NVRTC for sm_{}",
            unit.entries().len(),
            self.arch
        );
        let program = format!("{label}.cu");
        let out = nvrtc::compile_with(source, &program, Target::Cubin(self.arch), mode, &[])
            .map_err(|e| compile_error(e, label, (major, minor)))?;
        // A cache that cannot be written only costs a recompilation.
        let _ = cache::store(&path, &out.bytes);
        Ok(out.bytes)
    }
}

/// Whether the driver library has `cuStreamWriteValue32_v2` (CUDA 11.7
/// and later), which cudarc would panic without.
fn has_stream_writes() -> bool {
    // SAFETY: looks a symbol up in the driver library, which `new` found
    // present; nothing is called.
    unsafe { sys::culib().get::<unsafe extern "C" fn()>(b"cuStreamWriteValue32_v2\0") }.is_ok()
}

/// The key of a loaded module in the device's cache: what NVRTC was given.
fn module_key(source: &str, arch: u32, mode: FloatMode) -> String {
    cache::key(&[source, &format!("sm_{arch}"), &mode.options().join(" ")])
}

/// The name of a CUBIN in the disk cache: what NVRTC was given, and
/// which NVRTC.
fn cubin_key(source: &str, arch: u32, mode: FloatMode, (major, minor): (i32, i32)) -> String {
    cache::key(&[
        source,
        &format!("sm_{arch}"),
        &format!("nvrtc {major}.{minor}"),
        &mode.options().join(" "),
    ])
}

/// NVRTC's failure to compile `label`, as a device error.
fn compile_error(e: NvrtcError, label: &str, (major, minor): (i32, i32)) -> DeviceError {
    match e {
        NvrtcError::Compile {
            options,
            log,
            excerpts,
            ..
        } => DeviceError::Compile {
            label: label.into(),
            command: format!("NVRTC {major}.{minor} {}", options.join(" ")),
            log,
            excerpts,
        },
        other => DeviceError::Compile {
            label: label.into(),
            command: format!("NVRTC {major}.{minor}"),
            log: other.to_string(),
            excerpts: Vec::new(),
        },
    }
}

// SAFETY: memory, copies and launches are the CUDA driver's (cuMemAlloc,
// cuMemsetD8Async zeroing, cuMemcpy*Async, cuLaunchKernel of the module
// loaded from the unit's CUBIN), whose contracts are the trait's; every
// copy and free is checked against this device's registry of live buffers
// and their sizes first, and limits are the device's own attributes.
// Stream order: everything is queued on the device's one stream under the
// queue lock, so in issue order; copies between host and device wait for
// the stream (which holds them) before returning, so the host buffer is
// used only during the call and the copy follows every launch before it;
// `free` waits for the stream before cuMemFree, so no queued work uses
// released memory. The waits wait behind a held failure too (a granule
// failure stops no copy or memset), and a wait that fails loses the
// context, after which nothing runs. A launch in flight holds its module,
// so no module is unloaded under a queued kernel.
unsafe impl Device for GpuDevice {
    fn name(&self) -> String {
        format!("{} (sm_{})", self.name, self.arch)
    }

    fn limits(&self) -> DeviceLimits {
        self.limits
    }

    fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer, DeviceError> {
        let alloc = |reason: String| DeviceError::Alloc { bytes, reason };
        self.alive()?;
        let mut q = self.queue();
        self.ctx
            .bind_to_thread()
            .map_err(|e| self.driver_error(&mut q, "allocation", e, alloc))?;
        // cuMemAlloc refuses 0 bytes; an empty buffer still gets an address.
        let size = bytes.max(1);
        // SAFETY: the context is current; the allocation is owned by the
        // returned buffer until `free`.
        let addr = unsafe { result::malloc_sync(size) }
            .map_err(|e| self.driver_error(&mut q, "cuMemAlloc", e, alloc))?;
        // SAFETY: `addr` holds `size` bytes, just allocated; the zeroing is
        // queued before anything that can use the buffer (the stream's
        // order), and `free` waits for it.
        let zeroed = unsafe { self.queue_zeroing(addr, size) };
        if let Err(e) = zeroed {
            // SAFETY: allocated above, released once; nothing was queued.
            let _ = unsafe { result::free_sync(addr) };
            return Err(self.driver_error(&mut q, "cuMemsetD8Async", e, alloc));
        }
        q.queued();
        self.buffers.lock().insert(addr, bytes);
        Ok(DeviceBuffer::new(addr, bytes))
    }

    fn free(&self, buffer: DeviceBuffer) -> Result<(), DeviceError> {
        let addr = buffer.address();
        self.live(addr)?;
        let mut q = self.queue();
        // Queued work may use the buffer: wait for it (a failure stays
        // held for the synchronizations it concerns).
        self.wait(&mut q);
        self.bind("free")?;
        // SAFETY: `addr` is a live allocation of this context (checked
        // above), no queued work uses it (the stream is idle), and the
        // handle is consumed, so it is freed once.
        unsafe { result::free_sync(addr) }.map_err(|e| {
            self.driver_error(&mut q, "cuMemFree", e, |r| DeviceError::Alloc {
                bytes: buffer.len(),
                reason: format!("cuMemFree failed: {r}"),
            })
        })?;
        self.buffers.lock().remove(&addr);
        Ok(())
    }

    fn copy_to_device(
        &self,
        dst: &mut DeviceBuffer,
        offset: usize,
        src: &[MaybeUninit<u8>],
    ) -> Result<(), DeviceError> {
        check_range(
            "copy to device (destination)",
            self.live(dst.address())?,
            offset,
            src.len(),
        )?;
        if src.is_empty() {
            return Ok(());
        }
        let mut q = self.queue();
        // Behind a failed launch too, as the emulator's: the copy engine
        // runs it whether or not the host has seen the failure yet.
        self.bind("copy to device")?;
        // SAFETY: the destination range lies in a live buffer (checked
        // above) that `&mut` keeps from any other use; the copy is queued
        // after every launch before it and waited for below, before `src`'s
        // borrow ends (a wait that fails loses the context, which stops
        // the copy if it has not run). The driver reads `src` as raw memory
        // (a `*const c_void`), so uninitialized bytes in it are never read
        // as Rust values.
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                dst.address() + offset as u64,
                src.as_ptr().cast::<c_void>(),
                src.len(),
                self.stream.cu_stream(),
            )
        }
        .result()
        .map_err(|e| self.copy_err(&mut q, "copy to device", e))?;
        q.queued();
        self.wait(&mut q);
        self.alive()
    }

    fn copy_to_host(
        &self,
        dst: &mut [MaybeUninit<u8>],
        src: &DeviceBuffer,
        offset: usize,
    ) -> Result<(), DeviceError> {
        check_range(
            "copy to host (source)",
            self.live(src.address())?,
            offset,
            dst.len(),
        )?;
        if dst.is_empty() {
            return Ok(());
        }
        let mut q = self.queue();
        // Behind a failed launch too, as copy_to_device.
        self.bind("copy to host")?;
        // SAFETY: the source range lies in a live buffer (checked above);
        // the copy is queued after every launch before it and waited for
        // below, before `dst`'s unique borrow of `dst.len()` writable
        // bytes ends (a wait that fails loses the context, which stops the
        // copy if it has not run, so nothing writes `dst` later); `dst`
        // may take any bytes.
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                dst.as_mut_ptr().cast::<c_void>(),
                src.address() + offset as u64,
                dst.len(),
                self.stream.cu_stream(),
            )
        }
        .result()
        .map_err(|e| self.copy_err(&mut q, "copy to host", e))?;
        q.queued();
        self.wait(&mut q);
        self.alive()
    }

    fn copy_on_device(
        &self,
        dst: &mut DeviceBuffer,
        dst_offset: usize,
        src: &DeviceBuffer,
        src_offset: usize,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        check_range(
            "device copy (destination)",
            self.live(dst.address())?,
            dst_offset,
            bytes,
        )?;
        check_range(
            "device copy (source)",
            self.live(src.address())?,
            src_offset,
            bytes,
        )?;
        if bytes == 0 {
            return Ok(());
        }
        // Behind a failed launch too, as the emulator's.
        let mut q = self.queue();
        self.bind("device copy")?;
        // SAFETY: both ranges lie in live buffers (checked above), which
        // stay live until the copy has run (`free` waits for the stream);
        // `dst` is a unique handle, so the two buffers are distinct
        // allocations and the ranges cannot overlap.
        unsafe {
            result::memcpy_dtod_async(
                dst.address() + dst_offset as u64,
                src.address() + src_offset as u64,
                bytes,
                self.stream.cu_stream(),
            )
        }
        .map_err(|e| self.copy_err(&mut q, "device copy", e))?;
        q.queued();
        Ok(())
    }

    fn zero(&self, buffer: &mut DeviceBuffer) -> Result<(), DeviceError> {
        let size = self.live(buffer.address())?;
        let mut q = self.queue();
        // Queued behind a failed launch too, as alloc_zeroed's memset is:
        // the buffer's next owner reads it after the failure is reported.
        self.bind("zeroing")?;
        // SAFETY: the buffer is a live allocation of `size` bytes (checked
        // above) that `&mut` keeps from every other handle; the memset is
        // queued on the one stream, after the work that may still use the
        // old bytes and before any work issued later.
        unsafe { self.queue_zeroing(buffer.address(), size) }
            .map_err(|e| self.copy_err(&mut q, "zeroing", e))?;
        q.queued();
        Ok(())
    }

    fn compile(&self, unit: &TranslationUnit, label: &str) -> Result<Module, DeviceError> {
        self.alive()?;
        let (source, mode) = (unit.source(), unit.float_mode());
        let key = module_key(source, self.arch, mode);
        if let Some(m) = self.modules.lock().get(&key) {
            return Ok(m.clone());
        }
        let cubin = self.cubin(unit, label)?;
        let entries: Vec<String> = unit.entries().to_vec();
        self.bind(label)?;
        let loaded = GpuModule::load(
            &self.ctx,
            &cubin,
            &entries,
            (self.record.device_address(), self.record.failure_address()),
        )
        .map_err(|reason| DeviceError::Load {
            label: label.into(),
            reason,
        })?;
        let module = Module::new(label, &entries, Arc::new(loaded));
        // Another thread may have loaded the same source meanwhile: its
        // module stays, and this one, which nothing launched, is unloaded
        // here. Replacing it would leave the first held only by the caches
        // that compiled it, though kernels of it may be queued.
        Ok(self.modules.lock().entry(key).or_insert(module).clone())
    }

    unsafe fn launch(
        &self,
        module: &Module,
        entry: &str,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<LaunchId, DeviceError> {
        let refuse = |reason: String| DeviceError::InvalidLaunch {
            label: module.label().into(),
            entry: entry.into(),
            reason,
        };
        self.limits.check(config).map_err(refuse)?;
        let m = module
            .inner::<GpuModule>()
            .filter(|m| Arc::ptr_eq(&m.ctx, &self.ctx))
            .ok_or_else(|| refuse("the module was compiled for another device".into()))?;
        let f = m
            .functions
            .get(entry)
            .ok_or_else(|| DeviceError::UnknownEntry {
                label: module.label().into(),
                entry: entry.into(),
                entries: module.entries().to_vec(),
            })?;
        args.check_params(&f.params).map_err(refuse)?;
        let mut q = self.queue();
        if let Some(skipped) = q.skip() {
            return Ok(skipped);
        }
        self.bind(module.label())?;
        f.fit_shared_memory(config.shared_mem_bytes, self.limits.max_shared_mem_bytes)
            .map_err(refuse)?;
        let mut params = args.pointers();
        // SAFETY: `f` belongs to a module loaded in this (current) context;
        // the arguments match the entry's parameter table (checked above)
        // and the caller guarantees every address in them lies in a live
        // buffer the kernel may use, which stays live until the kernel has
        // run (`free` waits for the stream); cuLaunchKernel copies the
        // parameter values `params` points to before it returns.
        let launched = unsafe {
            result::launch_kernel(
                f.f,
                config.grid_dim,
                config.block_dim,
                config.shared_mem_bytes,
                self.stream.cu_stream(),
                &mut params,
            )
        };
        self.launched(&mut q, launched, module, entry)
    }

    fn synchronize_for(&self, launches: Launches<'_>) -> Result<(), DeviceError> {
        let mut q = self.queue();
        self.sync(&mut q, launches)
    }
}

impl GpuDevice {
    /// Queues a memset of `size` bytes at `addr` to zero on the stream, by
    /// words where the size allows (the device's buffers are 256-byte
    /// aligned).
    ///
    /// # Safety
    /// `[addr, addr + size)` lies in a live allocation of the context, and
    /// nothing the stream runs before the memset needs its old bytes kept.
    unsafe fn queue_zeroing(&self, addr: u64, size: usize) -> Result<(), DriverError> {
        let stream = self.stream.cu_stream();
        if size.is_multiple_of(4) {
            // SAFETY: forwarded; `size / 4` words cover the same bytes.
            unsafe { sys::cuMemsetD32Async(addr, 0, size / 4, stream) }.result()
        } else {
            // SAFETY: forwarded.
            unsafe { result::memset_d8_async(addr, 0, size, stream) }
        }
    }

    fn copy_err(&self, q: &mut Queue, what: &str, e: DriverError) -> DeviceError {
        self.driver_error(q, what, e, |reason| DeviceError::Launch {
            label: what.into(),
            entry: String::new(),
            reason,
        })
    }
}

/// The policy of every live GPU test: GPU `ordinal`, or `None` after
/// printing why `test` is skipped (no driver, no device). With
/// `GRANULE_REQUIRE_GPU=1`, which runs on the GPU machine set, a missing
/// GPU panics instead, so such a run cannot pass without touching it.
///
/// ```
/// if let Some(gpu) = granule_cuda::gpu::device_or_skip(0, "doc example") {
///     assert!(gpu.arch() >= 50);
/// }
/// ```
pub fn device_or_skip(ordinal: usize, test: &str) -> Option<GpuDevice> {
    match GpuDevice::new(ordinal) {
        Ok(gpu) => Some(gpu),
        Err(e) => {
            if std::env::var("GRANULE_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("GRANULE_REQUIRE_GPU=1 but {e}");
            }
            // The test's own output, which the harness shows with the
            // test's: not a diagnostic of the library.
            eprintln!("skipped {test}: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_keep_float_modes_apart() {
        let modes = [FloatMode::Exact, FloatMode::Contract, FloatMode::Fast];
        for (k, a) in modes.iter().enumerate() {
            for b in &modes[k + 1..] {
                assert_ne!(module_key("s", 90, *a), module_key("s", 90, *b));
                assert_ne!(
                    cubin_key("s", 90, *a, (12, 9)),
                    cubin_key("s", 90, *b, (12, 9))
                );
            }
        }
        assert_ne!(
            module_key("s", 80, FloatMode::Exact),
            module_key("s", 90, FloatMode::Exact)
        );
        assert_ne!(
            cubin_key("s", 90, FloatMode::Exact, (12, 9)),
            cubin_key("s", 90, FloatMode::Exact, (13, 0))
        );
    }

    /// Two spaces with dispatch caches of their own compile the same source
    /// at once: both get the module loaded first, which the device keeps,
    /// so none is left held only by a cache that may be dropped while its
    /// kernels are queued.
    #[test]
    fn concurrent_compiles_of_a_source_share_its_module() {
        let Some(gpu) = device_or_skip(0, "concurrent_compiles_of_a_source_share_its_module")
        else {
            return;
        };
        let unit = TranslationUnit::new(&[]).unwrap();
        let modules: Vec<Module> = std::thread::scope(|s| {
            let compiling: Vec<_> = (0..4)
                .map(|_| s.spawn(|| gpu.compile(&unit, "none").unwrap()))
                .collect();
            compiling.into_iter().map(|c| c.join().unwrap()).collect()
        });
        let first = modules[0].inner::<GpuModule>().unwrap();
        for m in &modules {
            assert!(std::ptr::eq(m.inner::<GpuModule>().unwrap(), first));
        }
    }

    #[test]
    fn no_driver_is_a_typed_error_not_a_panic() {
        // On a machine with a GPU this opens it; without a driver it must
        // say so (and never panic inside cudarc).
        match GpuDevice::new(0) {
            Ok(gpu) => assert!(gpu.arch() >= 50),
            Err(e) => {
                let text = e.to_string();
                assert!(matches!(e, DeviceError::Unavailable { .. }), "{text}");
                assert!(text.contains("CUDA GPU 0"), "{text}");
            }
        }
        match GpuDevice::new(4096) {
            Ok(_) => panic!("no machine has 4097 GPUs"),
            Err(e) => assert!(matches!(e, DeviceError::Unavailable { .. }), "{e}"),
        }
    }
}
