//! The `Cuda` execution space and its memory space, [`CudaSpace`].
//!
//! A `Cuda` value owns a device ([`crate::device_api::Device`]): a real GPU
//! through cudarc ([`Cuda::new`]) or the CPU emulator ([`Cuda::emulated`]).
//! Views of its memory space live in device memory; host code reaches
//! them through `deep_copy` and mirrors. The emulator is never chosen
//! silently: [`Cuda::from_env`] picks it only when `GRANULE_CUDA=emulator`.
//!
//! Kernel dispatch (`parallel_for` and friends on `Cuda`, for `#[kernel]`
//! functors) is in `dispatch/`.

mod cached;
mod copy;
mod dispatch;
mod fence_all;
mod fill;
mod memory;
mod queue;

pub use cached::{GRANULE_CUDA_NO_CACHE, MAX_CACHED_BUFFERS};
pub use dispatch::{DriverLaunch, DriverWorkspace};
pub use fence_all::fence_all;
pub use memory::CudaSpace;
pub use queue::MAX_IN_FLIGHT;

use crate::device::{reserved_smem, STATIC_SMEM_ALLOWANCE};
use crate::device_api::{Device, DeviceError};
use crate::emu::EmuDevice;
use crate::gpu::GpuDevice;
use crate::nvrtc::FloatMode;
use granule_core::ExecutionSpace;
use std::sync::Arc;

/// The environment variable that picks the device of [`Cuda::from_env`].
pub const GRANULE_CUDA: &str = "GRANULE_CUDA";

/// What [`GRANULE_CUDA`] asks for.
///
/// ```
/// use granule_cuda::CudaSelection;
/// assert_eq!(CudaSelection::parse(None), Ok(CudaSelection::Gpu(0)));
/// assert_eq!(CudaSelection::parse(Some("emulator")), Ok(CudaSelection::Emulator));
/// assert_eq!(CudaSelection::parse(Some("gpu:1")), Ok(CudaSelection::Gpu(1)));
/// assert!(CudaSelection::parse(Some("emu")).unwrap_err().to_string().contains("GRANULE_CUDA=emulator"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CudaSelection {
    /// The GPU with this ordinal (unset, empty, `gpu` or `gpu:N`).
    Gpu(usize),
    /// The CPU emulator (`emulator`).
    Emulator,
}

impl CudaSelection {
    /// Reads a value of [`GRANULE_CUDA`] (`None` when it is unset).
    ///
    /// # Errors
    /// [`DeviceError::Unavailable`] for any other value, listing the
    /// accepted ones.
    pub fn parse(setting: Option<&str>) -> Result<Self, DeviceError> {
        let value = setting.map(str::trim).unwrap_or("");
        match value {
            "" | "gpu" => return Ok(CudaSelection::Gpu(0)),
            "emulator" => return Ok(CudaSelection::Emulator),
            _ => {}
        }
        if let Some(ordinal) = value.strip_prefix("gpu:").and_then(|n| n.parse().ok()) {
            return Ok(CudaSelection::Gpu(ordinal));
        }
        Err(DeviceError::Unavailable {
            device: "CUDA".into(),
            reason: format!(
                "{GRANULE_CUDA}={value:?} is not a setting granule knows: set \
                 {GRANULE_CUDA}=emulator for the CPU emulator, gpu:N for GPU N, or leave \
                 it unset for GPU 0"
            ),
        })
    }
}

/// The CUDA execution space: a device and the memory space of its Views.
///
/// Clones share the device (and its cache of compiled kernels). The space
/// allocates, copies, reports its limits, fences, and runs `#[kernel]`s
/// for every policy and pattern (see `dispatch/`).
///
/// # Asynchronous dispatch
/// As in Kokkos, dispatches are asynchronous: each is queued on the
/// device's stream (one per device, shared by clones of the space) and
/// returns, so a chain of kernels runs back to back with no round trip to
/// the host. The host waits only at a synchronization point:
/// - [`ExecutionSpace::fence`] (or [`Cuda::try_fence`]);
/// - a `parallel_reduce` or `parallel_scan`, which returns what the kernel
///   computed;
/// - a copy between host and device (`deep_copy`, the mirrors);
/// - the 1025th dispatch in flight ([`MAX_IN_FLIGHT`]).
///
/// Dropping a View does not wait: its memory goes to the space's cache
/// (see [`CudaSpace`]'s "Cached memory"), and its next owner's zeroing
/// and work are queued behind the kernels that still use it.
///
/// Safe code cannot see a race through this: the host reaches device
/// memory only through the device, whose copies and frees wait for the
/// work queued before them, and whose zeroing of reused memory is queued
/// after it (the reasons are in `dispatch/`'s docs).
///
/// A kernel that fails while it runs (a bounds check, an assertion) is
/// reported at the next synchronization point, naming the dispatch, its
/// kernel and its Views ([`DeviceError::Dispatch`]): there a reduction,
/// a scan, a copy or `fence` panics with that report, as the dispatch
/// itself would have panicked on a host space, and `try_fence` returns
/// it. The emulator reports at the same points as a GPU. Spaces that
/// share a device share its stream: dispatches issued on it after a
/// failed one, by any space, do not run until the device's next
/// synchronization, and every space whose dispatch did not run is told at
/// its own next synchronization point ([`DeviceError::Skipped`]), however
/// many others synchronized first. A space whose dispatches all completed
/// is not told of another's failure, and dropping a space takes nothing
/// from the others.
///
/// ```
/// use granule_core::ExecutionSpace;
/// use granule_cuda::{Cuda, CudaSpace};
/// use granule_views::{LayoutLeft, View2};
///
/// let cuda = Cuda::emulated()?;
/// assert_eq!(cuda.name(), "Cuda");
/// assert_eq!(cuda.vector_length_max(), 32);
/// let a = View2::<f32, LayoutLeft, CudaSpace>::zeros_in(cuda.memory_space(), "a", [3, 4])?;
/// assert_eq!(a.extents(), [3, 4]);
/// cuda.fence();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Cuda {
    space: CudaSpace,
    /// Compiled entry points, shared by clones.
    modules: Arc<dispatch::Modules>,
    /// How kernels are compiled for a GPU.
    float_mode: FloatMode,
}

impl Cuda {
    /// The GPU with this ordinal, through cudarc.
    ///
    /// # Errors
    /// [`DeviceError::Unavailable`] when there is no NVIDIA driver, no
    /// NVRTC or no such device (never a panic); the message says how to
    /// run on the CPU emulator instead.
    ///
    /// ```
    /// use granule_cuda::Cuda;
    /// match Cuda::new(0) {
    ///     Ok(cuda) => println!("on {}", cuda.device().name()),
    ///     Err(e) => assert!(e.to_string().contains("GRANULE_CUDA=emulator")),
    /// }
    /// ```
    pub fn new(ordinal: usize) -> Result<Self, DeviceError> {
        match GpuDevice::new(ordinal) {
            Ok(gpu) => Ok(Cuda::with_device(Arc::new(gpu))),
            Err(DeviceError::Unavailable { device, reason })
                if !reason.contains("GRANULE_CUDA=emulator") =>
            {
                Err(DeviceError::Unavailable {
                    device,
                    reason: format!(
                        "{reason}. To run on the CPU emulator instead, set \
                         {GRANULE_CUDA}=emulator or use Cuda::emulated()"
                    ),
                })
            }
            Err(e) => Err(e),
        }
    }

    /// The same space over the CPU emulator, which runs the generated CUDA
    /// C++ with the host C++ compiler.
    ///
    /// # Errors
    /// [`DeviceError::Unavailable`] when the host C++ compiler is missing
    /// or the emulator cannot reserve its memory.
    ///
    /// ```
    /// let cuda = granule_cuda::Cuda::emulated()?;
    /// assert_eq!(cuda.device().name(), "emulator");
    /// # Ok::<(), granule_cuda::device_api::DeviceError>(())
    /// ```
    pub fn emulated() -> Result<Self, DeviceError> {
        Ok(Cuda::with_device(Arc::new(EmuDevice::new()?)))
    }

    /// The space `GRANULE_CUDA` selects: the emulator for `emulator`, GPU
    /// N for `gpu:N`, GPU 0 when unset.
    ///
    /// # Errors
    /// As [`Cuda::new`] or [`Cuda::emulated`], or an unknown setting.
    ///
    /// ```
    /// match granule_cuda::Cuda::from_env() {
    ///     Ok(cuda) => println!("on {}", cuda.device().name()),
    ///     Err(e) => println!("{e}"),
    /// }
    /// ```
    pub fn from_env() -> Result<Self, DeviceError> {
        let setting = std::env::var_os(GRANULE_CUDA).map(|v| v.to_string_lossy().into_owned());
        Cuda::from_setting(setting.as_deref())
    }

    /// The space a value of `GRANULE_CUDA` selects (`None`: unset), for
    /// callers that read their configuration elsewhere.
    ///
    /// ```
    /// let cuda = granule_cuda::Cuda::from_setting(Some("emulator"))?;
    /// assert_eq!(cuda.device().name(), "emulator");
    /// # Ok::<(), granule_cuda::device_api::DeviceError>(())
    /// ```
    pub fn from_setting(setting: Option<&str>) -> Result<Self, DeviceError> {
        Cuda::from_selection(CudaSelection::parse(setting)?)
    }

    /// The space `GRANULE_CUDA` selects, or `fallback` when it is unset:
    /// for programs that name their own choice for machines without a GPU
    /// (the test suites and benches pick the emulator, and a GPU run sets
    /// `GRANULE_CUDA=gpu`). `Cuda::default()` has no fallback: it never
    /// picks the emulator unasked.
    ///
    /// ```
    /// use granule_cuda::{Cuda, CudaSelection};
    /// let cuda = Cuda::from_env_or(CudaSelection::Emulator)?;
    /// if std::env::var_os("GRANULE_CUDA").is_none() {
    ///     assert_eq!(cuda.device().name(), "emulator");
    /// }
    /// # Ok::<(), granule_cuda::device_api::DeviceError>(())
    /// ```
    pub fn from_env_or(fallback: CudaSelection) -> Result<Self, DeviceError> {
        match std::env::var_os(GRANULE_CUDA) {
            Some(v) => Cuda::from_setting(Some(&v.to_string_lossy())),
            None => Cuda::from_selection(fallback),
        }
    }

    fn from_selection(selection: CudaSelection) -> Result<Self, DeviceError> {
        match selection {
            CudaSelection::Gpu(ordinal) => Cuda::new(ordinal),
            CudaSelection::Emulator => Cuda::emulated(),
        }
    }

    /// The space over any device.
    pub fn with_device(device: Arc<dyn Device>) -> Self {
        Cuda {
            space: CudaSpace::new(device),
            modules: Arc::default(),
            float_mode: FloatMode::Exact,
        }
    }

    /// The same space (device, memory) whose kernels a GPU compiles in
    /// `mode`. **This changes results**: the default,
    /// [`FloatMode::Exact`], gives the host's bits; `Contract` lets
    /// `a * b + c` round once (an FMA), and `Fast` also flushes f32
    /// denormals and approximates f32 division, `sqrt` and the
    /// transcendental functions (see [`FloatMode`] for exactly what). The
    /// emulator computes exactly in every mode. The space gets a cache of
    /// compiled kernels of its own; clones of it share that one.
    ///
    /// ```
    /// use granule_cuda::nvrtc::FloatMode;
    /// let exact = granule_cuda::Cuda::emulated()?;
    /// let fast = exact.clone().with_float_mode(FloatMode::Fast);
    /// assert_eq!((exact.float_mode(), fast.float_mode()), (FloatMode::Exact, FloatMode::Fast));
    /// # Ok::<(), granule_cuda::device_api::DeviceError>(())
    /// ```
    pub fn with_float_mode(self, mode: FloatMode) -> Self {
        Cuda {
            space: self.space,
            modules: Arc::default(),
            float_mode: mode,
        }
    }

    /// How kernels are compiled for a GPU (see [`Cuda::with_float_mode`]).
    ///
    /// ```
    /// let cuda = granule_cuda::Cuda::emulated()?;
    /// assert_eq!(cuda.float_mode(), granule_cuda::nvrtc::FloatMode::Exact);
    /// # Ok::<(), granule_cuda::device_api::DeviceError>(())
    /// ```
    pub fn float_mode(&self) -> FloatMode {
        self.float_mode
    }

    /// The device kernels run on.
    pub fn device(&self) -> &Arc<dyn Device> {
        self.space.device()
    }

    /// The memory space of this space's Views, to allocate them with
    /// `zeros_in`. Allocations through clones of it share the device.
    pub fn memory_space(&self) -> CudaSpace {
        self.space.clone()
    }

    /// [`ExecutionSpace::fence`] that returns the failure instead of
    /// panicking: waits for every dispatch and copy issued on the device,
    /// and reports the oldest failure that met one of this space's
    /// dispatches since its last synchronization point: a dispatch that
    /// failed ([`DeviceError::Dispatch`], with its label, kernel and Views,
    /// and the device's message), or one that did not run because an
    /// earlier launch on the device failed, another space's
    /// ([`DeviceError::Skipped`]). Each such failure is reported once to
    /// each space it met, whichever synchronizes first; a failure that met
    /// only other spaces is theirs, and this fence returns `Ok`. After the
    /// report the device goes on (a GPU too: a failing thread stops
    /// without a trap); a fault that loses a GPU's context is reported by
    /// every later use.
    ///
    /// ```
    /// use granule_core::kernel::kernel;
    /// use granule_core::prelude::*;
    /// use granule_cuda::{device_api::DeviceError, Cuda, CudaSpace};
    ///
    /// #[kernel(crate = granule_core)]
    /// fn shift(i: usize, y: &mut f64, x: &View1<f64>) {
    ///     *y = x[i + 1]; // reads past the end at the last index
    /// }
    ///
    /// let cuda = Cuda::emulated()?;
    /// let x = View1::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "x", 4)?;
    /// let mut y = View1::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "y", 4)?;
    /// // Returns at once: the kernel's failure is reported at the next
    /// // synchronization point.
    /// parallel_for("shift", RangePolicy::new(&cuda, 0..4), &mut y, shift(&x));
    /// let e = cuda.try_fence().unwrap_err();
    /// assert!(matches!(&e, DeviceError::Dispatch { label, .. } if label == "shift"), "{e}");
    /// assert!(e.to_string().contains("out of bounds"), "{e}");
    /// cuda.try_fence()?; // reported once
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_fence(&self) -> Result<(), DeviceError> {
        self.space.synchronize()
    }
}

impl Default for Cuda {
    /// [`Cuda::from_env`].
    ///
    /// # Panics
    /// When it fails, with its message (which says to set
    /// `GRANULE_CUDA=emulator` when there is no GPU). Use `from_env` to
    /// handle the error.
    fn default() -> Self {
        Cuda::from_env().unwrap_or_else(|e| panic!("cannot create the default Cuda space: {e}"))
    }
}

/// The team size `AUTO` picks: eight warps, so several blocks stay
/// resident on an SM and hide each other's latency.
const RECOMMENDED_TEAM_WARPS: u32 = 8;

impl ExecutionSpace for Cuda {
    type MemorySpace = CudaSpace;
    const NAME: &'static str = "Cuda";

    /// The inherent [`Cuda::memory_space`], which callers reach without
    /// importing the trait.
    fn memory_space(&self) -> CudaSpace {
        Cuda::memory_space(self)
    }

    /// Threads the device holds resident at once (SMs times threads per SM).
    fn concurrency(&self) -> usize {
        let l = self.device().limits();
        l.multiprocessor_count as usize * l.max_threads_per_multiprocessor as usize
    }

    /// Waits until every dispatch and copy issued on the space's device
    /// has finished (dispatches are asynchronous: see [`Cuda`]).
    ///
    /// # Panics
    /// When one of this space's dispatches since its last synchronization
    /// point failed or did not run behind a failure, with the report that
    /// names the dispatch ([`DeviceError::Dispatch`],
    /// [`DeviceError::Skipped`]), as the dispatch itself would have
    /// panicked on a host space; or when the device is lost. The trait's
    /// fence is infallible: [`Cuda::try_fence`] returns the error instead.
    fn fence(&self) {
        if let Err(e) = self.try_fence() {
            panic!("Cuda::fence on the {} device: {e}", self.device().name());
        }
    }

    /// A block's thread limit (a team is a block, with vector length 1).
    fn team_size_max(&self) -> usize {
        self.device().limits().max_threads_per_block as usize
    }

    fn team_size_recommended(&self) -> usize {
        let l = self.device().limits();
        (RECOMMENDED_TEAM_WARPS * l.warp_size).min(l.max_threads_per_block) as usize
    }

    /// A warp: vector lanes are the threads of one warp.
    fn vector_length_max(&self) -> usize {
        self.device().limits().warp_size as usize
    }

    /// Level 0 is a block's dynamic shared memory: the device's maximum
    /// per block (the opt-in maximum on a GPU, 227 KiB on an H100) less
    /// the words the drivers reserve for the largest block and
    /// [`STATIC_SMEM_ALLOWANCE`] for their static `__shared__` variables,
    /// so a request that passes this check fits any team size, up to the
    /// 16-byte rounding of each team and thread region (which the dispatch
    /// checks with the actual team size) and a kernel whose reductions
    /// keep more static memory (which a GPU checks at launch). Level 1 is
    /// global memory, bounded by the device's total.
    fn scratch_size_max(&self, level: usize) -> usize {
        let l = self.device().limits();
        let reserved = reserved_smem(u64::from(l.max_threads_per_block)) + STATIC_SMEM_ALLOWANCE;
        match level {
            0 => u64::from(l.max_shared_mem_bytes).saturating_sub(reserved) as usize,
            1 => usize::try_from(l.global_mem_bytes).unwrap_or(usize::MAX),
            _ => 0,
        }
    }
}
