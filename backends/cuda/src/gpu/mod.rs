//! The cudarc device: real GPUs through the CUDA driver API.
//!
//! cudarc is built with `fallback-dynamic-loading`, so nothing links
//! libcuda: the library is opened on first use, and cudarc panics if it
//! is missing. [`GpuDevice::new`] therefore checks for the driver (and for
//! NVRTC, which compiles the kernels) before any cudarc call, and turns a
//! missing library or device into [`DeviceError::Unavailable`].
//!
//! Kernels are compiled by NVRTC to a CUBIN for the device's own
//! architecture (`sm_XY` from its compute capability). Modules are cached
//! for the process by the hash of their source, and CUBINs on disk by
//! source hash, architecture and NVRTC version (under the target folder), so a
//! second run of the same program compiles nothing.
//!
//! Operations are synchronous: each returns once the device has finished
//! it, as the emulator's do, so a launch's arguments and buffers are free
//! again when `launch` returns.

use crate::cache;
use crate::codegen::TranslationUnit;
use crate::device_api::{
    check_range, Device, DeviceBuffer, DeviceError, DeviceLimits, KernelArgs, LaunchConfig, Module,
};
use crate::nvrtc::{self, NvrtcError, Target};
use cudarc::driver::sys::{self, CUdevice_attribute, CUfunction, CUmodule};
use cudarc::driver::{result, CudaContext, DriverError};
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::fmt;
use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex, MutexGuard};

/// A CUDA GPU, driven through cudarc.
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
    /// Loaded modules by source key, for the process.
    modules: Mutex<HashMap<String, Module>>,
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

/// A loaded module and its entry points.
struct GpuModule {
    ctx: Arc<CudaContext>,
    module: CUmodule,
    functions: HashMap<String, CUfunction>,
}

// SAFETY: CUmodule and CUfunction are driver handles, valid from any
// thread once the owning context is made current there (every use below
// binds `ctx` first); the driver API is thread-safe.
unsafe impl Send for GpuModule {}
// SAFETY: as above; the handles are only read.
unsafe impl Sync for GpuModule {}

impl Drop for GpuModule {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: the module was loaded by `load_data` in this context
            // and is unloaded once, here; its functions die with it, and
            // nothing holds them (Module owns this value through an Arc).
            let _ = unsafe { result::module::unload(self.module) };
        }
    }
}

fn lock<V>(m: &Mutex<V>) -> MutexGuard<'_, V> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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

impl GpuDevice {
    /// The GPU with this ordinal.
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
        let ctx = CudaContext::new(ordinal).map_err(driver)?;
        let (major, minor) = ctx.compute_capability().map_err(driver)?;
        let attr = |a| ctx.attribute(a).map(|v| v.max(0) as u32).map_err(driver);
        use CUdevice_attribute::*;
        let limits = DeviceLimits {
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
            // Without opting in per function, a block gets the classic
            // 48 KiB of dynamic shared memory.
            max_shared_mem_bytes: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            warp_size: attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            multiprocessor_count: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_threads_per_multiprocessor: attr(
                CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
            )?,
            global_mem_bytes: ctx.total_mem().map_err(driver)? as u64,
        };
        Ok(GpuDevice {
            name: ctx.name().map_err(driver)?,
            arch: (major * 10 + minor) as u32,
            limits,
            ctx,
            buffers: Mutex::new(HashMap::new()),
            modules: Mutex::new(HashMap::new()),
        })
    }

    /// The architecture kernels are compiled for (90 for an H100).
    pub fn arch(&self) -> u32 {
        self.arch
    }

    /// Makes the context current on the calling thread.
    fn bind(&self, what: &str) -> Result<(), DeviceError> {
        self.ctx.bind_to_thread().map_err(|e| DeviceError::Launch {
            label: what.into(),
            entry: String::new(),
            reason: format!("cannot make the CUDA context current: {}", describe(e)),
        })
    }

    /// The size of live buffer `addr`.
    fn live(&self, addr: u64) -> Result<usize, DeviceError> {
        lock(&self.buffers)
            .get(&addr)
            .copied()
            .ok_or(DeviceError::UnknownBuffer { address: addr })
    }

    /// A CUBIN of `source` for this device: from the disk cache, or from
    /// NVRTC (and then stored there).
    fn cubin(&self, source: &str, label: &str) -> Result<Vec<u8>, DeviceError> {
        let (major, minor) =
            nvrtc::version().map_err(|e| unavailable(self.ctx.ordinal(), e.to_string()))?;
        let key = cache::key(&[
            source,
            &format!("sm_{}", self.arch),
            &format!("nvrtc {major}.{minor}"),
        ]);
        let path = cache::dir("granule-cuda")
            .map_err(|e| unavailable(self.ctx.ordinal(), e))?
            .join(format!("{key}.cubin"));
        if let Ok(bytes) = std::fs::read(&path) {
            return Ok(bytes);
        }
        let program = format!("{label}.cu");
        let out =
            nvrtc::compile(source, &program, Target::Cubin(self.arch), &[]).map_err(
                |e| match e {
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
                },
            )?;
        // A cache that cannot be written only costs a recompilation.
        let _ = cache::store(&path, &out.bytes);
        Ok(out.bytes)
    }

    fn load(
        &self,
        cubin: &[u8],
        label: &str,
        entries: &[String],
    ) -> Result<GpuModule, DeviceError> {
        let load_err = |reason: String| DeviceError::Load {
            label: label.into(),
            reason,
        };
        self.bind(label)?;
        // SAFETY: `cubin` is a complete CUBIN image from NVRTC (or the cache
        // NVRTC filled), alive for the call; the driver copies it.
        let module = unsafe { result::module::load_data(cubin.as_ptr().cast()) }
            .map_err(|e| load_err(describe(e)))?;
        let mut m = GpuModule {
            ctx: self.ctx.clone(),
            module,
            functions: HashMap::new(),
        };
        for entry in entries {
            let name = CString::new(entry.as_str())
                .map_err(|_| load_err(format!("entry `{entry}` has a NUL byte")))?;
            // SAFETY: `module` was just loaded and is not unloaded before
            // `m` drops.
            let f = unsafe { result::module::get_function(m.module, name) }
                .map_err(|e| load_err(format!("entry `{entry}`: {}", describe(e))))?;
            m.functions.insert(entry.clone(), f);
        }
        Ok(m)
    }
}

// SAFETY: memory, copies and launches are the CUDA driver's (cuMemAlloc,
// cuMemsetD8 zeroing, cuMemcpy*, cuLaunchKernel of the module loaded from
// the unit's CUBIN), whose contracts are the trait's; every copy and free
// is checked against this device's registry of live buffers and their
// sizes first, and limits are the device's own attributes.
unsafe impl Device for GpuDevice {
    fn name(&self) -> String {
        format!("{} (sm_{})", self.name, self.arch)
    }

    fn limits(&self) -> DeviceLimits {
        self.limits
    }

    fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer, DeviceError> {
        let alloc = |reason: String| DeviceError::Alloc { bytes, reason };
        self.ctx.bind_to_thread().map_err(|e| alloc(describe(e)))?;
        // cuMemAlloc refuses 0 bytes; an empty buffer still gets an address.
        let size = bytes.max(1);
        // SAFETY: the context is current; the allocation is owned by the
        // returned buffer until `free`.
        let addr = unsafe { result::malloc_sync(size) }.map_err(|e| alloc(describe(e)))?;
        // SAFETY: `addr` holds `size` bytes, just allocated.
        if let Err(e) = unsafe { result::memset_d8_sync(addr, 0, size) } {
            // SAFETY: allocated above, released once.
            let _ = unsafe { result::free_sync(addr) };
            return Err(alloc(describe(e)));
        }
        lock(&self.buffers).insert(addr, bytes);
        Ok(DeviceBuffer::new(addr, bytes))
    }

    fn free(&self, buffer: DeviceBuffer) -> Result<(), DeviceError> {
        let addr = buffer.address();
        self.live(addr)?;
        self.bind("free")?;
        // SAFETY: `addr` is a live allocation of this context (checked
        // above) and the handle is consumed, so it is freed once.
        unsafe { result::free_sync(addr) }.map_err(|e| DeviceError::Alloc {
            bytes: buffer.len(),
            reason: format!("cuMemFree failed: {}", describe(e)),
        })?;
        lock(&self.buffers).remove(&addr);
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
        self.bind("copy to device")?;
        // SAFETY: the destination range lies in a live buffer (checked
        // above) that `&mut` keeps from any other use; the copy is
        // synchronous, so `src` outlives it. The driver reads `src` as raw
        // memory (a `*const c_void`), so uninitialized bytes in it are
        // never read as Rust values.
        unsafe {
            sys::cuMemcpyHtoD_v2(
                dst.address() + offset as u64,
                src.as_ptr().cast::<c_void>(),
                src.len(),
            )
        }
        .result()
        .map_err(|e| copy_err("copy to device", e))
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
        self.bind("copy to host")?;
        // SAFETY: the source range lies in a live buffer (checked above);
        // the copy is synchronous and `dst` is a unique borrow of
        // `dst.len()` writable bytes, which may take any bytes.
        unsafe {
            sys::cuMemcpyDtoH_v2(
                dst.as_mut_ptr().cast::<c_void>(),
                src.address() + offset as u64,
                dst.len(),
            )
        }
        .result()
        .map_err(|e| copy_err("copy to host", e))
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
        self.bind("device copy")?;
        // SAFETY: both ranges lie in live buffers (checked above); `dst`
        // is a unique handle, so the two buffers are distinct allocations
        // and the ranges cannot overlap.
        unsafe {
            result::memcpy_dtod_sync(
                dst.address() + dst_offset as u64,
                src.address() + src_offset as u64,
                bytes,
            )
        }
        .map_err(|e| copy_err("device copy", e))
    }

    fn compile(&self, unit: &TranslationUnit, label: &str) -> Result<Module, DeviceError> {
        let source = unit.source();
        let key = cache::key(&[source, &self.arch.to_string()]);
        if let Some(m) = lock(&self.modules).get(&key) {
            return Ok(m.clone());
        }
        let cubin = self.cubin(source, label)?;
        let entries: Vec<String> = unit.entries().iter().map(|e| e.to_string()).collect();
        let loaded = self.load(&cubin, label, &entries)?;
        let module = Module::new(label, &entries, Arc::new(loaded));
        lock(&self.modules).insert(key, module.clone());
        Ok(module)
    }

    unsafe fn launch(
        &self,
        module: &Module,
        entry: &str,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<(), DeviceError> {
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
        let f = *m
            .functions
            .get(entry)
            .ok_or_else(|| DeviceError::UnknownEntry {
                label: module.label().into(),
                entry: entry.into(),
                entries: module.entries().to_vec(),
            })?;
        let failed = |e: DriverError| {
            DeviceError::Launch {
            label: module.label().into(),
            entry: entry.into(),
            reason: format!(
                "{} (after a fault inside a kernel the CUDA context is unusable; restart the process)",
                describe(e)
            ),
        }
        };
        self.bind(module.label())?;
        let mut params = args.pointers();
        // SAFETY: `f` belongs to a module loaded in this (current) context;
        // the caller guarantees the arguments match the entry's parameters
        // and that every address in them lies in a live buffer the kernel
        // may use; `params` and `args` outlive the launch, which is
        // synchronized before returning.
        unsafe {
            result::launch_kernel(
                f,
                config.grid_dim,
                config.block_dim,
                config.shared_mem_bytes,
                std::ptr::null_mut(),
                &mut params,
            )
        }
        .map_err(failed)?;
        self.ctx.synchronize().map_err(failed)
    }

    fn synchronize(&self) -> Result<(), DeviceError> {
        self.ctx.synchronize().map_err(|e| DeviceError::Launch {
            label: "synchronize".into(),
            entry: String::new(),
            reason: describe(e),
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
            eprintln!("skipped {test}: {e}");
            None
        }
    }
}

fn copy_err(what: &str, e: DriverError) -> DeviceError {
    DeviceError::Launch {
        label: what.into(),
        entry: String::new(),
        reason: describe(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
