//! The device trait between the Cuda execution space and the hardware:
//! device memory, compiling a [`TranslationUnit`], launching its entry
//! points.
//!
//! Two implementations: the host emulator ([`crate::emu::EmuDevice`]),
//! which runs the generated CUDA C++ on the CPU, and the cudarc device
//! for real GPUs ([`crate::gpu::GpuDevice`]). The trait follows the shape
//! of the CUDA driver API, so the cudarc device is a thin layer: buffers
//! are `cuMemAlloc` allocations named by their device address, a
//! [`Module`] holds a loaded `CUmodule`, and [`KernelArgs`] is the `void**`
//! of `cuLaunchKernel`.
//!
//! Work is asynchronous, in the order of one stream per device: launches
//! and device copies are queued, and the host's copies and frees wait for
//! what was queued before them ([`Device`]'s "Stream order"). A launch's
//! failure is held by the device until every synchronization it concerns
//! has reported it ([`Device`]'s "Failures").
//!
//! The trait is object safe: a space holds an `Arc<dyn Device>` and does
//! not care which implementation it drives. It is `unsafe` to implement:
//! Views, copies and mirrors build Rust values from the bytes a device
//! returns, so a device must keep the promises of [`Device`]'s `# Safety`
//! section.
//!
//! ```
//! use granule_cuda::device_api::{Device, KernelArgs, LaunchConfig};
//! use granule_cuda::emu::EmuDevice;
//! # use granule_cuda::codegen::{Instance, Pattern, TranslationUnit};
//! # use granule_cuda::kernel::{DeviceKernel, KernelPattern, Param, ParamKind};
//! # // SAFETY: the source defines `fill` with the parameters listed.
//! # static FILL: DeviceKernel = unsafe { DeviceKernel::new(
//! #     "fill",
//! #     KernelPattern::For,
//! #     &[],
//! #     &[
//! #         Param { name: "i", kind: ParamKind::Index, cpp: "granule::usize" },
//! #         Param { name: "y", kind: ParamKind::Out, cpp: "granule::u32" },
//! #     ],
//! #     "__device__ void fill(granule::usize i, granule::u32& y) { y = (granule::u32)i * 3u; }\n",
//! #     &[],
//! # ) };
//! // `fill` is the `#[kernel] fn fill(i: usize, y: &mut u32)` of lib.rs's example.
//! let unit = TranslationUnit::new(&[Instance::new(&FILL, Pattern::For, &[])]).unwrap();
//! let dev = EmuDevice::new().unwrap();
//! let module = dev.compile(&unit, "fill").unwrap();
//! let mut y = dev.alloc_zeroed(10 * 4).unwrap();
//! let mut args = KernelArgs::new();
//! args.scalar(0u64).scalar(10u64).view(y.address(), &[10], &[1], 0);
//! let config = LaunchConfig { grid_dim: (2, 1, 1), block_dim: (4, 1, 1), shared_mem_bytes: 0 };
//! // SAFETY (of the example): the arguments are those of
//! // `granule_for_fill(u64 begin, u64 end, View<u32, 1, LayoutStride> y)`
//! // and `y` holds the 10 elements the View describes.
//! unsafe { dev.launch(&module, "granule_for_fill", &config, &args) }.unwrap();
//! let mut out = [0u8; 40];
//! // SAFETY (of the example): `y` was zeroed, then written only by the kernel.
//! unsafe { dev.read_bytes(&mut out, &y, 0) }.unwrap();
//! assert_eq!(u32::from_ne_bytes(out[36..40].try_into().unwrap()), 27);
//! dev.free(y).unwrap();
//! ```

mod args;
mod error;
mod stream;

pub use args::{ArgScalar, KernelArgs};
pub use error::{DeviceError, Fault, MemoryKind, Race, RaceKind, ThreadId};
pub(crate) use stream::Failures;
pub use stream::{LaunchId, Launches};

use crate::codegen::TranslationUnit;
use std::any::Any;
use std::fmt;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// A launch's geometry and dynamic shared memory, as cudarc's
/// `LaunchConfig`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid_dim: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block_dim: (u32, u32, u32),
    /// Bytes of dynamic shared memory (`extern __shared__`) per block.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// Threads per block.
    ///
    /// ```
    /// # use granule_cuda::device_api::LaunchConfig;
    /// let c = LaunchConfig { grid_dim: (4, 1, 1), block_dim: (32, 4, 2), shared_mem_bytes: 0 };
    /// assert_eq!((c.block_threads(), c.blocks()), (256, 4));
    /// ```
    pub fn block_threads(&self) -> u64 {
        let (x, y, z) = self.block_dim;
        u64::from(x) * u64::from(y) * u64::from(z)
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        let (x, y, z) = self.grid_dim;
        u64::from(x) * u64::from(y) * u64::from(z)
    }
}

/// What a device accepts, checked before a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Block extents in x, y, z.
    pub max_block_dim: (u32, u32, u32),
    /// Grid extents in x, y, z.
    pub max_grid_dim: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes: the most a launch may
    /// ask for (a GPU's opt-in maximum; an entry's static `__shared__`
    /// variables count against it too, which the device checks at launch).
    pub max_shared_mem_bytes: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// Streaming multiprocessors (SMs).
    pub multiprocessor_count: u32,
    /// Threads resident at once on one SM.
    pub max_threads_per_multiprocessor: u32,
    /// Bytes of global memory the device has.
    pub global_mem_bytes: u64,
}

impl DeviceLimits {
    /// `Ok` when `config` fits these limits, otherwise the reason, naming
    /// the limit.
    ///
    /// ```
    /// # use granule_cuda::device_api::{DeviceLimits, LaunchConfig};
    /// let l = granule_cuda::emu::EmuDevice::LIMITS;
    /// let c = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 33, 1), shared_mem_bytes: 0 };
    /// assert!(l.check(&c).unwrap_err().contains("1056 threads"));
    /// ```
    pub fn check(&self, config: &LaunchConfig) -> Result<(), String> {
        let (bx, by, bz) = config.block_dim;
        let (gx, gy, gz) = config.grid_dim;
        if [bx, by, bz, gx, gy, gz].contains(&0) {
            return Err(format!(
                "every grid and block extent must be at least 1 (grid {:?}, block {:?})",
                config.grid_dim, config.block_dim
            ));
        }
        let (mx, my, mz) = self.max_block_dim;
        if bx > mx || by > my || bz > mz {
            return Err(format!(
                "block {:?} exceeds the device's block extents {:?}",
                config.block_dim, self.max_block_dim
            ));
        }
        if config.block_threads() > u64::from(self.max_threads_per_block) {
            return Err(format!(
                "a block of {} threads exceeds the device's {} threads per block",
                config.block_threads(),
                self.max_threads_per_block
            ));
        }
        let (mx, my, mz) = self.max_grid_dim;
        if gx > mx || gy > my || gz > mz {
            return Err(format!(
                "grid {:?} exceeds the device's grid extents {:?}",
                config.grid_dim, self.max_grid_dim
            ));
        }
        if config.shared_mem_bytes > self.max_shared_mem_bytes {
            return Err(format!(
                "{} bytes of dynamic shared memory exceed the device's {} per block",
                config.shared_mem_bytes, self.max_shared_mem_bytes
            ));
        }
        Ok(())
    }
}

/// A device allocation, named by its device address. Only the device
/// that made it can use it; it is released by [`Device::free`] (dropping
/// it without freeing leaks the allocation, like a leaked `CudaSlice`).
#[derive(Debug, PartialEq, Eq)]
pub struct DeviceBuffer {
    addr: u64,
    bytes: usize,
}

impl DeviceBuffer {
    /// A handle on `bytes` bytes at device address `addr`. Devices make
    /// these; a handle is exclusive (not `Clone`), so copies into a buffer
    /// need `&mut`.
    pub(crate) fn new(addr: u64, bytes: usize) -> Self {
        DeviceBuffer { addr, bytes }
    }

    /// The device address, as kernel arguments carry it.
    pub fn address(&self) -> u64 {
        self.addr
    }

    /// The size in bytes that was requested.
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// Whether the buffer holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }
}

/// A compiled translation unit, loaded on one device.
#[derive(Clone)]
pub struct Module {
    label: String,
    entries: Vec<String>,
    inner: Arc<dyn Any + Send + Sync>,
}

impl Module {
    /// A module with the device's own representation `inner`.
    pub(crate) fn new(label: &str, entries: &[String], inner: Arc<dyn Any + Send + Sync>) -> Self {
        Module {
            label: label.to_string(),
            entries: entries.to_vec(),
            inner,
        }
    }

    /// The label given at compilation (the kernel or algorithm's name).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The entry points, as [`TranslationUnit::entries`].
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// The device's representation, if the module is of type `T`.
    pub(crate) fn inner<T: Any>(&self) -> Option<&T> {
        self.inner.downcast_ref()
    }

    /// How many handles share the device's representation (it is unloaded
    /// when the last goes).
    #[cfg(test)]
    pub(crate) fn holders(&self) -> usize {
        Arc::strong_count(&self.inner)
    }
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module")
            .field("label", &self.label)
            .field("entries", &self.entries)
            .finish_non_exhaustive()
    }
}

/// A CUDA device: memory, compilation and launches, in the order of one
/// stream.
///
/// # Stream order
/// Launches and device-to-device copies are queued: [`Device::launch`]
/// returns once the launch is issued, possibly before it runs, with its
/// [`LaunchId`]. Whatever lets the host read, write or release device
/// memory waits for the queue first: [`Device::copy_to_device`],
/// [`Device::copy_to_host`] (so [`Device::read_bytes`]) and
/// [`Device::free`] act only once every launch and device copy issued
/// before them has completed, and [`Device::synchronize`] returns only
/// then. So no kernel runs while the host touches its memory, and a
/// launch's buffers stay allocated until it is done, whatever the caller
/// does after `launch` returns. (The emulator runs each launch to
/// completion inside `launch`, and waits only in name; it counts those
/// waits, [`EmuStats::synchronizations`](crate::emu::EmuStats::synchronizations).)
///
/// # Failures
/// A launch that fails while it runs (a fault, a trap, a race the
/// emulator's checked mode finds, a timeout) is reported by a later
/// synchronization, not by `launch`, exactly as a GPU reports it: as
/// [`DeviceError::Queued`], which names the launch and counts the
/// launches skipped after it. Every launch issued after the failed one,
/// until the device's next synchronization (by anyone), does not run (a
/// GPU's kernels find the failure word set and do nothing; the emulator
/// skips them); then the device resumes. Copies and zeroings do run
/// behind a failed launch, on both devices alike: they depend on no
/// kernel's success, and the data they leave is the same whether or not
/// a GPU has seen the failure yet.
///
/// A device has several users (every `Cuda` space over it), so a failure
/// is not handed to whichever synchronizes first: the device holds it,
/// and a synchronization names the launches its caller answers for
/// ([`Device::synchronize_for`] with [`Launches`]). A failure *concerns*
/// the launch that failed and the launches skipped after it; a
/// synchronization is told of the oldest failure held that concerns one
/// of its launches, and the device forgets a failure once every launch it
/// concerns has been answered for. So each user whose work failed or did
/// not run is told once, at its next synchronization, and a user whose
/// launches all completed (before the failure, or after the device
/// resumed) is not told: its launches ran, and telling it would take
/// keeping every failure for any user that might launch later.
/// [`Device::synchronize`] answers for every launch, for a caller that
/// owns the device. Copies between host and device and [`Device::free`]
/// wait, but report no launch's failure and do not let the device resume:
/// both are a synchronization's. `launch` itself fails only for what it checks
/// before anything is queued: a configuration or argument list it
/// refuses, a context lost by a failure already seen.
///
/// # Safety
/// Safe code trusts what a device says about its memory: `CudaSpace`
/// hands its buffers out as View allocations, and the copies and mirrors
/// turn the bytes a device returns into values of any `Element` type (a
/// `bool` must be 0 or 1). So an implementation promises, for every
/// method, even when it returns `Err`:
/// - [`Device::alloc_zeroed`] returns a buffer of exactly `bytes` bytes,
///   zeroed (in stream order: before any launch or copy issued after it),
///   at least 256-byte aligned, that does not overlap any other live
///   buffer of the device or any host memory, and stays allocated until
///   [`Device::free`] of it (which releases nothing else);
/// - [`Device::copy_to_device`] writes exactly `src.len()` bytes of `src`
///   at `offset` of `dst` and nothing else, and reads `src` only before it
///   returns; [`Device::copy_on_device`] copies exactly `bytes` bytes from
///   `src_offset` of `src` to `dst_offset` of `dst` and nothing else; a
///   copy whose range does not fit its buffer, or a buffer that is not a
///   live one of this device, is refused (`Err`) before anything is
///   touched;
/// - [`Device::copy_to_host`] writes into `dst` only the bytes of
///   `src[offset..offset + dst.len()]`, each as the device holds it
///   (a byte it never had initialized stays uninitialized), touches no
///   other host memory, and writes nothing after it returns;
///   [`Device::read_bytes`], if overridden, keeps the same promise, so
///   that a range of initialized device bytes gives initialized host bytes;
/// - [`Device::zero`] writes zeros to exactly its buffer, a live one of
///   this device, in stream order like a launch, and also behind a launch
///   that failed (the buffer's next owner reads it after the report);
/// - device bytes change only through these copies, zeroings and the
///   kernels of [`Device::launch`], which runs exactly the entry `entry` of
///   `module` (compiled by this device from the [`TranslationUnit`] given to
///   [`Device::compile`], unchanged) on `config`'s geometry with exactly
///   `args` (read before it returns), at most once, after every launch
///   and copy issued before it;
/// - stream order, as above: `copy_to_device`, `copy_to_host`,
///   `read_bytes` and `free` act only once every launch and device copy
///   issued before them has completed or can no longer run, and
///   `synchronize_for` (so `synchronize`) returns only then;
/// - [`Device::limits`] is true: a launch within it runs as configured.
pub unsafe trait Device: Send + Sync + fmt::Debug {
    /// A name for messages (`"emulator"`, or the GPU's name).
    fn name(&self) -> String;

    /// The launch limits.
    fn limits(&self) -> DeviceLimits;

    /// `bytes` bytes of zeroed device memory (at least 256-byte aligned).
    fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer, DeviceError>;

    /// Releases a buffer of this device, once every launch and copy issued
    /// before has completed (a failure among them stays for the
    /// synchronizations it concerns to report).
    fn free(&self, buffer: DeviceBuffer) -> Result<(), DeviceError>;

    /// Copies `src` into `dst` at byte `offset`, after every launch and
    /// copy issued before, and waits for it. It copies behind a failed
    /// launch too, and leaves the report of that failure to the
    /// synchronizations it concerns (see "Failures").
    ///
    /// The bytes may be uninitialized (the padding of a struct), which is
    /// why they are `MaybeUninit<u8>`: a `&[u8]` over a padded value would
    /// read its padding as initialized. [`as_uninit`] views plain bytes so.
    fn copy_to_device(
        &self,
        dst: &mut DeviceBuffer,
        offset: usize,
        src: &[MaybeUninit<u8>],
    ) -> Result<(), DeviceError>;

    /// Copies `dst.len()` bytes of `src` from byte `offset` into `dst`,
    /// after every launch and copy issued before, and waits for it; behind
    /// a failed launch too, as [`Device::copy_to_device`]: `dst` gets what
    /// the device holds, and a synchronization reports the failure.
    ///
    /// The device may hold uninitialized bytes (copied from the padding of
    /// host values), so the destination is `MaybeUninit<u8>`;
    /// [`Device::read_bytes`] reads into plain bytes where the range is
    /// known to be initialized.
    fn copy_to_host(
        &self,
        dst: &mut [MaybeUninit<u8>],
        src: &DeviceBuffer,
        offset: usize,
    ) -> Result<(), DeviceError>;

    /// [`Device::copy_to_host`] into plain bytes.
    ///
    /// ```
    /// use granule_cuda::device_api::{as_uninit, Device};
    /// let dev = granule_cuda::emu::EmuDevice::new().unwrap();
    /// let mut b = dev.alloc_zeroed(4).unwrap();
    /// dev.copy_to_device(&mut b, 1, as_uninit(&[7, 8])).unwrap();
    /// let mut out = [9u8; 4];
    /// // SAFETY (of the example): zeroed, then written from initialized bytes.
    /// unsafe { dev.read_bytes(&mut out, &b, 0) }.unwrap();
    /// assert_eq!(out, [0, 7, 8, 0]);
    /// dev.free(b).unwrap();
    /// ```
    ///
    /// # Safety
    /// Every byte of `src[offset..offset + dst.len()]` must be initialized:
    /// zeroed by [`Device::alloc_zeroed`], or last written by
    /// [`Device::copy_to_device`] from initialized bytes (such as
    /// [`as_uninit`] of a `&[u8]`), by [`Device::copy_on_device`] from bytes
    /// that were, or by a kernel (device code is foreign to Rust, and what
    /// it stores are the machine's bytes). Bytes copied from the padding of
    /// host values are not: reading them as `u8` is undefined behaviour.
    unsafe fn read_bytes(
        &self,
        dst: &mut [u8],
        src: &DeviceBuffer,
        offset: usize,
    ) -> Result<(), DeviceError> {
        // SAFETY: `MaybeUninit<u8>` has the layout of `u8` and the view is
        // unique for the call. Through it the copy may store only bytes of
        // the device range, which the caller promises are initialized, so
        // `dst` holds initialized bytes afterwards (on an error too: then
        // it holds a part of them, or its old bytes).
        let dst = unsafe {
            std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<MaybeUninit<u8>>(), dst.len())
        };
        self.copy_to_host(dst, src, offset)
    }

    /// Queues a copy of `bytes` bytes of `src` from `src_offset` into `dst`
    /// at `dst_offset`, in stream order (it does not wait). It runs behind
    /// a failed launch too (see "Failures").
    fn copy_on_device(
        &self,
        dst: &mut DeviceBuffer,
        dst_offset: usize,
        src: &DeviceBuffer,
        src_offset: usize,
        bytes: usize,
    ) -> Result<(), DeviceError>;

    /// Queues the zeroing of all of `buffer`, in stream order (it does not
    /// wait): work issued before may still use the old bytes, and work
    /// issued after sees zeros. This is what lets a space hand a buffer it
    /// was given back to a new View or workspace without waiting for the
    /// kernels that used it (see `CudaSpace`'s "Cached memory").
    ///
    /// The default copies zeros from the host, which waits for the stream;
    /// devices override it with a queued memset.
    ///
    /// ```
    /// use granule_cuda::device_api::{as_uninit, Device};
    /// let dev = granule_cuda::emu::EmuDevice::new().unwrap();
    /// let mut b = dev.alloc_zeroed(6).unwrap();
    /// dev.copy_to_device(&mut b, 0, as_uninit(&[1, 2, 3, 4, 5, 6])).unwrap();
    /// dev.zero(&mut b).unwrap();
    /// let mut out = [9u8; 6];
    /// // SAFETY (of the example): zeroed just before.
    /// unsafe { dev.read_bytes(&mut out, &b, 0) }.unwrap();
    /// assert_eq!(out, [0; 6]);
    /// dev.free(b).unwrap();
    /// ```
    fn zero(&self, buffer: &mut DeviceBuffer) -> Result<(), DeviceError> {
        const CHUNK: usize = 1 << 20;
        let zeros = vec![0u8; CHUNK.min(buffer.len())];
        let mut at = 0;
        while at < buffer.len() {
            let n = CHUNK.min(buffer.len() - at);
            self.copy_to_device(buffer, at, as_uninit(&zeros[..n]))?;
            at += n;
        }
        Ok(())
    }

    /// How many bytes of released memory a [`CudaSpace`](crate::CudaSpace)
    /// of this device keeps for reuse, instead of freeing them (see its
    /// "Cached memory"). The default is a quarter of the device's memory.
    ///
    /// ```
    /// use granule_cuda::device_api::Device;
    /// let dev = granule_cuda::emu::EmuDevice::new().unwrap();
    /// assert_eq!(dev.cache_bytes(), 64 << 20);
    /// ```
    fn cache_bytes(&self) -> usize {
        usize::try_from(self.limits().global_mem_bytes / 4).unwrap_or(usize::MAX)
    }

    /// Compiles and loads `unit`; `label` names it in errors.
    fn compile(&self, unit: &TranslationUnit, label: &str) -> Result<Module, DeviceError>;

    /// Queues entry point `entry` of `module` on `config`'s grid with
    /// `args`, and returns its number; it may run after this returns (see
    /// "Stream order"). `args` may be dropped at once: the device copies
    /// them.
    ///
    /// # Errors
    /// Only what is found before anything is queued: a configuration or
    /// argument list the device refuses, an unknown entry, a module of
    /// another device, a context lost earlier. A failure while the kernel
    /// runs is reported by the synchronizations it concerns (see
    /// "Failures").
    ///
    /// # Safety
    /// `args` must be the entry's parameters in order, each laid out as the
    /// C++ parameter type (see [`KernelArgs`]), and every device address
    /// they carry (View data, reduction and scan buffers) must lie in a
    /// live buffer of this device, large enough for every element the
    /// kernel may touch. (The buffer stays live and untouched by the host
    /// until the kernel is done: `free` and the copies wait for it.)
    unsafe fn launch(
        &self,
        module: &Module,
        entry: &str,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<LaunchId, DeviceError>;

    /// [`Device::launch`], then [`Device::synchronize_for`] that launch:
    /// runs it to completion and reports its own failure as the error it
    /// made (a [`DeviceError::Fault`], a [`DeviceError::Race`], ..); the
    /// failure of an earlier launch that kept it from running stays a
    /// [`DeviceError::Queued`] naming that launch, and a failure that did
    /// not concern it is left to those it concerns.
    ///
    /// ```
    /// # use granule_cuda::codegen::{Instance, Pattern, TranslationUnit};
    /// # use granule_cuda::kernel::{DeviceKernel, KernelPattern, Param, ParamKind};
    /// # // SAFETY: the source defines `half` with the parameters listed.
    /// # static HALF: DeviceKernel = unsafe { DeviceKernel::new(
    /// #     "half", KernelPattern::For, &[],
    /// #     &[
    /// #         Param { name: "i", kind: ParamKind::Index, cpp: "granule::usize" },
    /// #         Param { name: "y", kind: ParamKind::Out, cpp: "granule::u32" },
    /// #     ],
    /// #     "__device__ void half(granule::usize i, granule::u32& y) { y = granule::div(10u, (granule::u32)i); }\n",
    /// #     &[],
    /// # ) };
    /// use granule_cuda::device_api::{Device, DeviceError, Fault, KernelArgs, LaunchConfig};
    /// // `half` stores 10 / i (Rust's checked division), which divides by
    /// // zero at i = 0.
    /// let unit = TranslationUnit::new(&[Instance::new(&HALF, Pattern::For, &[])]).unwrap();
    /// let dev = granule_cuda::emu::EmuDevice::new().unwrap();
    /// let module = dev.compile(&unit, "half").unwrap();
    /// let y = dev.alloc_zeroed(4 * 4).unwrap();
    /// let mut args = KernelArgs::new();
    /// args.scalar(0u64).scalar(4u64).view(y.address(), &[4], &[1], 1);
    /// let config = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
    /// // SAFETY (of the example): the arguments are `granule_for_half`'s,
    /// // and `y` holds the 4 elements its View describes.
    /// let e = unsafe { dev.launch_and_wait(&module, "granule_for_half", &config, &args) }.unwrap_err();
    /// assert!(matches!(e, DeviceError::Fault { fault: Fault::DivisionByZero, .. }), "{e}");
    /// dev.free(y).unwrap();
    /// ```
    ///
    /// # Safety
    /// As [`Device::launch`].
    unsafe fn launch_and_wait(
        &self,
        module: &Module,
        entry: &str,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<(), DeviceError> {
        // SAFETY: forwarded from the caller.
        let id = unsafe { self.launch(module, entry, config, args) }?;
        match self.synchronize_for(Launches::These(&[id])) {
            Err(DeviceError::Queued { launch, error, .. }) if launch == id => Err(*error),
            other => other,
        }
    }

    /// Waits until every launch and copy issued so far has completed, lets
    /// the device resume after a failure (launches issued from now on
    /// run), and reports the oldest failure held that concerns one of
    /// `launches` (see "Failures"): [`DeviceError::Queued`] naming the
    /// failed launch, whose `skipped` launches after it are the others
    /// the failure concerns. The launches of that range are then answered
    /// for; a later failure among `launches` (one after the range) is
    /// reported by the next call that names it. A failure of the stream
    /// that no launch is known to have caused is reported to the next
    /// call, as the device's own error; a lost context, to every call.
    ///
    /// ```
    /// use granule_cuda::device_api::{Device, LaunchId, Launches};
    /// let dev = granule_cuda::emu::EmuDevice::new().unwrap();
    /// // Nothing failed: no launch of any caller is told of anything.
    /// dev.synchronize_for(Launches::These(&[LaunchId(1)])).unwrap();
    /// dev.synchronize().unwrap();
    /// ```
    fn synchronize_for(&self, launches: Launches<'_>) -> Result<(), DeviceError>;

    /// [`Device::synchronize_for`] every launch, for a caller that owns the
    /// device: it is told of the oldest failure held, which is then
    /// forgotten (once: the next call reports the next one, or nothing).
    /// A `Cuda` space answers only for its own launches, so that each
    /// space over a device is told of the failures its work met.
    fn synchronize(&self) -> Result<(), DeviceError> {
        self.synchronize_for(Launches::All)
    }
}

/// Plain bytes as the possibly-uninitialized bytes that
/// [`Device::copy_to_device`] takes.
///
/// ```
/// # use granule_cuda::device_api::as_uninit;
/// assert_eq!(as_uninit(&[1, 2, 3]).len(), 3);
/// ```
pub fn as_uninit(bytes: &[u8]) -> &[MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the size and alignment of `u8` and
    // every initialized byte is a valid one. The view is shared, so it
    // cannot be used to write an uninitialized byte into `bytes`.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len()) }
}

/// Checks that `[offset, offset + bytes)` lies within `buffer_bytes`.
pub(crate) fn check_range(
    what: &'static str,
    buffer_bytes: usize,
    offset: usize,
    bytes: usize,
) -> Result<(), DeviceError> {
    match offset.checked_add(bytes) {
        Some(end) if end <= buffer_bytes => Ok(()),
        _ => Err(DeviceError::OutOfRange {
            what,
            offset,
            bytes,
            buffer_bytes,
        }),
    }
}
