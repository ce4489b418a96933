//! The host emulator device: runs the exact CUDA C++ a
//! [`TranslationUnit`] holds (device header, drivers, kernels) on the CPU.
//!
//! The source is compiled by the host C++ compiler after a shim header
//! (`shim.h`) that supplies the CUDA built-ins, and linked with a small
//! runtime (`runtime.cpp`): every CUDA thread is a fiber, the fibers of a
//! block take turns on one worker thread at barriers and warp collectives,
//! and blocks run concurrently on several workers, claimed in launch order.
//! `README.md` in this folder describes the design and its limits.
//!
//! It counts global-memory traffic per launch ([`EmuStats`]) and, in
//! checked mode (the default), stops a launch with
//! [`DeviceError::Race`] when two threads write the same bytes with no
//! barrier between them, or a thread reads what another thread of its
//! block wrote since the last barrier, or writes what another thread of
//! its block read since then. A barrier that not every thread of the block
//! reaches at the same `__syncthreads` is [`DeviceError::Deadlock`], and a
//! launch past the time limit [`DeviceError::Timeout`], even in a loop of
//! arithmetic alone.
//!
//! It keeps the stream order of a GPU (see [`Device`]'s "Stream order"
//! and "Failures"): a launch runs to completion inside [`Device::launch`],
//! but its failure is held, as a GPU's would be, until the
//! synchronizations it concerns report it, and launches issued before the
//! next synchronization are skipped (copies and zeroings run, as on a
//! GPU). The host's waits are counted ([`EmuStats::synchronizations`]), so
//! tests see how often a program would wait for a GPU.
//!
//! ```
//! use granule_cuda::device_api::{as_uninit, Device};
//! let dev = granule_cuda::emu::EmuDevice::new().unwrap();
//! let mut b = dev.alloc_zeroed(8).unwrap();
//! dev.copy_to_device(&mut b, 4, as_uninit(&[1, 2, 3, 4])).unwrap();
//! let mut out = [9u8; 8];
//! // SAFETY (of the example): zeroed, then written from initialized bytes.
//! unsafe { dev.read_bytes(&mut out, &b, 0) }.unwrap();
//! assert_eq!(out, [0, 0, 0, 0, 1, 2, 3, 4]);
//! dev.free(b).unwrap();
//! ```

mod arena;
mod compile;
mod ffi;
mod launch;

use crate::codegen::TranslationUnit;
use crate::device_api::{
    Device, DeviceBuffer, DeviceError, DeviceLimits, Failures, KernelArgs, LaunchConfig, LaunchId,
    Launches, Module,
};
use parking_lot::{Mutex, MutexGuard};
use std::collections::BTreeMap;
use std::mem::MaybeUninit;
use std::ops::AddAssign;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

pub use compile::SHIM;

/// How an emulator device runs launches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmuOptions {
    /// Worker threads that run blocks concurrently (at least 2 by default,
    /// so cross-block protocols really run side by side).
    pub workers: usize,
    /// Race checking (see the module docs); costs a shadow update per
    /// access.
    pub checked: bool,
    /// A launch still running after this long fails with
    /// [`DeviceError::Timeout`] instead of hanging; `None` waits forever.
    pub timeout: Option<Duration>,
    /// Count the 32-byte sectors of each warp-wide load and store
    /// instruction, as a GPU coalesces them ([`EmuStats::load_sectors`]);
    /// off by default: it costs a hash-map update per access.
    pub sectors: bool,
}

impl Default for EmuOptions {
    /// Checked, `max(2, cores)` workers, a 120 s limit per launch.
    fn default() -> Self {
        EmuOptions {
            workers: std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .max(2),
            checked: true,
            timeout: Some(Duration::from_secs(120)),
            sectors: false,
        }
    }
}

/// Global-memory traffic counted by the emulator, per launch and summed.
/// Global memory is every buffer of [`Device::alloc_zeroed`]; shared
/// memory, the stack and kernel parameters are not counted.
///
/// Two views of the same accesses:
/// - accesses: each load or store instruction the compiled kernel executes
///   on global memory (`global_loads`, `global_stores`, and their bytes),
///   as GCC's ThreadSanitizer instrumentation sees them at `-O1`: one per
///   scalar access, volatile ones included, except that a spin (a thread
///   reloading the address of its previous volatile load) counts once;
///   atomic read-modify-writes are `global_atomics`;
/// - footprint: the distinct 4-byte words the launch read and wrote
///   (`footprint_*_bytes`, 4 per word, atomics in both), which is the DRAM
///   traffic of a device whose caches hold the launch's working set. The
///   Kokkos scan contract calls a kernel twice per element, so a scan
///   loads its input twice but reads it from memory once: the footprint is
///   the measure of "words per element".
///
/// It also counts the host's synchronizations with the device
/// (`synchronizations`): the waits a GPU would make the host do.
///
/// ```
/// use granule_cuda::emu::EmuStats;
/// let s = EmuStats { launches: 1, footprint_read_bytes: 40, footprint_written_bytes: 40, ..Default::default() };
/// assert_eq!(s.words_per_element(4, 10), 2.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmuStats {
    /// Launches that ran (a launch skipped after a failed one does not
    /// count).
    pub launches: u64,
    /// Times the host waited for the device, as it would for a GPU: each
    /// copy between host and device (which waits for itself and for what
    /// was queued before it), and each [`Device::synchronize`] and
    /// [`Device::free`] that found launches or device copies issued since
    /// the last wait (one with nothing to wait for returns at once and is
    /// not counted).
    pub synchronizations: u64,
    /// Buffers [`Device::alloc_zeroed`] handed out (memory a `CudaSpace`
    /// reuses from its cache is not allocated again, so it does not count).
    pub allocations: u64,
    /// Bytes the device zeroed: every fresh buffer, and every buffer a
    /// `CudaSpace` takes from its cache for memory that must start zeroed
    /// (a GPU's memset writes them).
    pub zeroed_bytes: u64,
    /// Load instructions on global memory.
    pub global_loads: u64,
    /// Store instructions on global memory.
    pub global_stores: u64,
    /// Bytes those loads moved.
    pub global_load_bytes: u64,
    /// Bytes those stores moved.
    pub global_store_bytes: u64,
    /// Atomic read-modify-writes on global memory.
    pub global_atomics: u64,
    /// Bytes they addressed.
    pub global_atomic_bytes: u64,
    /// Distinct global words read (loads and atomics), in bytes.
    pub footprint_read_bytes: u64,
    /// Distinct global words written (stores and atomics), in bytes.
    pub footprint_written_bytes: u64,
    /// With [`EmuOptions::sectors`]: the 32-byte sectors that the
    /// warp-wide plain load instructions touched. The n-th execution of
    /// one load site by each lane of a warp counts as one warp-wide
    /// instruction, which it is where the lanes run in step (the drivers'
    /// full tiles); volatile loads (flags) and atomics are not counted.
    pub load_sectors: u64,
    /// The fewest sectors that could hold the bytes those instructions
    /// read: per instruction, its distinct bytes over 32, rounded up.
    pub load_sectors_needed: u64,
    /// As `load_sectors`, for plain stores.
    pub store_sectors: u64,
    /// As `load_sectors_needed`, for plain stores.
    pub store_sectors_needed: u64,
}

impl EmuStats {
    /// The footprint in bytes: words read plus words written.
    pub fn footprint_bytes(&self) -> u64 {
        self.footprint_read_bytes + self.footprint_written_bytes
    }

    /// The loads' sector efficiency: the sectors their bytes need over the
    /// sectors they touched (1 for loads a GPU fully coalesces); `None`
    /// when no sectors were counted.
    ///
    /// ```
    /// use granule_cuda::emu::EmuStats;
    /// let s = EmuStats { load_sectors: 8, load_sectors_needed: 4, ..Default::default() };
    /// assert_eq!(s.load_efficiency(), Some(0.5));
    /// assert_eq!(EmuStats::default().load_efficiency(), None);
    /// ```
    pub fn load_efficiency(&self) -> Option<f64> {
        ratio(self.load_sectors_needed, self.load_sectors)
    }

    /// As [`EmuStats::load_efficiency`], for stores.
    pub fn store_efficiency(&self) -> Option<f64> {
        ratio(self.store_sectors_needed, self.store_sectors)
    }

    /// Every byte the load, store and atomic instructions moved.
    pub fn accessed_bytes(&self) -> u64 {
        self.global_load_bytes + self.global_store_bytes + self.global_atomic_bytes
    }

    /// Memory traffic (the footprint) in words of `word_bytes` per element
    /// of `elements`: "global-memory words per element", the measure the
    /// drivers' launch-count tests bound.
    pub fn words_per_element(&self, word_bytes: u64, elements: u64) -> f64 {
        self.footprint_bytes() as f64 / word_bytes as f64 / elements as f64
    }
}

fn ratio(part: u64, whole: u64) -> Option<f64> {
    (whole != 0).then(|| part as f64 / whole as f64)
}

impl AddAssign for EmuStats {
    fn add_assign(&mut self, o: EmuStats) {
        self.launches += o.launches;
        self.synchronizations += o.synchronizations;
        self.allocations += o.allocations;
        self.zeroed_bytes += o.zeroed_bytes;
        self.global_loads += o.global_loads;
        self.global_stores += o.global_stores;
        self.global_load_bytes += o.global_load_bytes;
        self.global_store_bytes += o.global_store_bytes;
        self.global_atomics += o.global_atomics;
        self.global_atomic_bytes += o.global_atomic_bytes;
        self.footprint_read_bytes += o.footprint_read_bytes;
        self.footprint_written_bytes += o.footprint_written_bytes;
        self.load_sectors += o.load_sectors;
        self.load_sectors_needed += o.load_sectors_needed;
        self.store_sectors += o.store_sectors;
        self.store_sectors_needed += o.store_sectors_needed;
    }
}

/// The emulator device. Devices share the process's global memory arena
/// but each owns its allocations; counts are per device.
#[derive(Debug)]
pub struct EmuDevice {
    id: u64,
    options: EmuOptions,
    stats: Mutex<EmuStats>,
    by_entry: Mutex<BTreeMap<String, EmuStats>>,
    stream: Mutex<Stream>,
}

/// The emulator's model of a GPU stream. Work runs when it is issued, so
/// a wait has nothing to wait for; what it models is when the host learns
/// of a failure, and how often the host would wait.
#[derive(Debug, Default)]
struct Stream {
    /// The number of the last launch issued.
    issued: u64,
    /// Whether launches or device copies were issued since the last wait.
    busy: bool,
    /// The failures held for the synchronizations they concern.
    failures: Failures,
}

impl EmuDevice {
    /// What the emulator accepts: an H100's launch limits (with its 227
    /// KiB opt-in maximum of dynamic shared memory, and its 132 SMs of 2048
    /// resident threads), and grids below 2^30 blocks in all.
    /// `global_mem_bytes` here is the smallest arena the emulator reserves
    /// (1 GiB); [`Device::limits`] reports the arena actually reserved.
    pub const LIMITS: DeviceLimits = DeviceLimits {
        max_threads_per_block: 1024,
        max_block_dim: (1024, 1024, 64),
        max_grid_dim: (i32::MAX as u32, 65535, 65535),
        max_shared_mem_bytes: 232448,
        warp_size: 32,
        multiprocessor_count: 132,
        max_threads_per_multiprocessor: 2048,
        global_mem_bytes: 1 << 30,
    };

    /// A checked emulator with default options. Fails when the host C++
    /// compiler is missing or cannot build the runtime.
    pub fn new() -> Result<Self, DeviceError> {
        Self::with_options(EmuOptions::default())
    }

    /// An emulator with `options`.
    ///
    /// ```
    /// use granule_cuda::emu::{EmuDevice, EmuOptions};
    /// let fast = EmuDevice::with_options(EmuOptions { checked: false, ..Default::default() }).unwrap();
    /// assert!(!fast.options().checked);
    /// ```
    pub fn with_options(options: EmuOptions) -> Result<Self, DeviceError> {
        static IDS: AtomicU64 = AtomicU64::new(1);
        arena::arena()?;
        compile::check_toolchain()?;
        Ok(EmuDevice {
            id: IDS.fetch_add(1, Ordering::Relaxed),
            options,
            stats: Mutex::new(EmuStats::default()),
            by_entry: Mutex::new(BTreeMap::new()),
            stream: Mutex::new(Stream::default()),
        })
    }

    /// The options.
    pub fn options(&self) -> &EmuOptions {
        &self.options
    }

    /// Counts since creation or the last [`EmuDevice::take_stats`].
    pub fn stats(&self) -> EmuStats {
        *self.stats.lock()
    }

    /// Counts since creation or the last call, and starts counting afresh
    /// (take before and after a dispatch to count the dispatch).
    pub fn take_stats(&self) -> EmuStats {
        std::mem::take(&mut *self.stats.lock())
    }

    /// The parameter sizes `module`'s parameter table gives for `entry`
    /// (checked at load against the entry's own signature), which every
    /// launch's arguments must match; `None` for another device's module
    /// or an unknown entry.
    ///
    /// ```
    /// # use granule_cuda::codegen::{Instance, Pattern, TranslationUnit};
    /// # use granule_cuda::kernel::{DeviceKernel, KernelPattern, Param, ParamKind};
    /// # // SAFETY: the source defines `fill` with the parameters listed.
    /// # static FILL: DeviceKernel = unsafe { DeviceKernel::new(
    /// #     "fill", KernelPattern::For, &[],
    /// #     &[
    /// #         Param { name: "i", kind: ParamKind::Index, cpp: "granule::usize" },
    /// #         Param { name: "y", kind: ParamKind::Out, cpp: "granule::u32" },
    /// #     ],
    /// #     "__device__ void fill(granule::usize i, granule::u32& y) { y = 1u; }\n",
    /// #     &[],
    /// # ) };
    /// use granule_cuda::device_api::Device;
    /// let dev = granule_cuda::emu::EmuDevice::new().unwrap();
    /// let unit = TranslationUnit::new(&[Instance::new(&FILL, Pattern::For, &[])]).unwrap();
    /// let module = dev.compile(&unit, "fill").unwrap();
    /// // begin, end, and the written View of rank 1 (data, extent, stride, id).
    /// assert_eq!(dev.entry_params(&module, "granule_for_fill"), Some(&[8, 8, 32][..]));
    /// ```
    pub fn entry_params<'m>(&self, module: &'m Module, entry: &str) -> Option<&'m [usize]> {
        let lib = module.inner::<compile::Library>()?;
        lib.entries.get(entry).map(|e| e.sizes.as_slice())
    }

    /// The launches' counts since creation or the last call, summed by
    /// entry point (synchronizations and allocations belong to no entry:
    /// they are in [`EmuDevice::take_stats`] alone), and starts afresh.
    ///
    /// ```
    /// use granule_core::kernel::kernel;
    /// use granule_core::prelude::*;
    /// use granule_cuda::emu::{EmuDevice, EmuOptions};
    /// use granule_cuda::{Cuda, CudaSpace};
    ///
    /// #[kernel(crate = granule_core)]
    /// fn neighbour(i: usize, y: &mut f64, x: &View1<f64>) {
    ///     *y = x[i];
    /// }
    /// #[kernel(crate = granule_core)]
    /// fn strided(i: usize, y: &mut f64, x: &View1<f64>) {
    ///     *y = x[(i * 4) % 4096];
    /// }
    ///
    /// let options = EmuOptions { sectors: true, ..Default::default() };
    /// let emu = std::sync::Arc::new(EmuDevice::with_options(options)?);
    /// let cuda = Cuda::with_device(emu.clone());
    /// let x = View1::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "x", 4096)?;
    /// let mut y = View1::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "y", 4096)?;
    /// parallel_for("neighbour", RangePolicy::new(&cuda, 0..4096), &mut y, neighbour(&x));
    /// parallel_for("strided", RangePolicy::new(&cuda, 0..4096), &mut y, strided(&x));
    /// cuda.fence();
    /// let by_entry = emu.take_entry_stats();
    /// // Neighbouring lanes read neighbouring elements: whole sectors.
    /// assert_eq!(by_entry["granule_for_neighbour"].load_efficiency(), Some(1.0));
    /// // Lanes 32 bytes apart read 8 bytes of a sector each.
    /// assert_eq!(by_entry["granule_for_strided"].load_efficiency(), Some(0.25));
    /// // Both write whole sectors of y.
    /// assert_eq!(by_entry["granule_for_strided"].store_efficiency(), Some(1.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn take_entry_stats(&self) -> BTreeMap<String, EmuStats> {
        std::mem::take(&mut *self.by_entry.lock())
    }

    fn arena(&self) -> &'static arena::Arena {
        arena::arena().expect("the arena was reserved when the device was made")
    }

    fn stream(&self) -> MutexGuard<'_, Stream> {
        // Every change to the stream state is one assignment, so a panic
        // elsewhere cannot have left it half-updated.
        self.stream.lock()
    }

    fn count(&self, update: impl FnOnce(&mut EmuStats)) {
        update(&mut self.stats.lock());
    }

    /// The host waits for what it issued (nothing is running: the work
    /// ran when issued), counted when there was something to wait for.
    fn wait(&self, stream: &mut Stream) {
        if std::mem::take(&mut stream.busy) {
            self.count(|s| s.synchronizations += 1);
        }
    }

    /// A synchronization: waits, resumes after a failure, then reports
    /// the failure that concerns `launches`.
    fn sync(&self, stream: &mut Stream, launches: Launches<'_>) -> Result<(), DeviceError> {
        self.wait(stream);
        stream.failures.resume();
        stream.failures.answer(launches).map_or(Ok(()), Err)
    }

    /// Runs a launch now, as a GPU would run it later: its failure is held
    /// for the synchronizations it concerns. A refusal (found before
    /// anything runs) is returned at once, as a GPU's.
    ///
    /// # Safety
    /// As [`Device::launch`].
    unsafe fn run(
        &self,
        lib: &compile::Library,
        module: &Module,
        entry: &str,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<LaunchId, DeviceError> {
        let label = module.label();
        let e = launch::check(lib, label, entry, config, args)?;
        let mut stream = self.stream();
        stream.issued += 1;
        let id = LaunchId(stream.issued);
        if stream.failures.skip(id) {
            // A GPU's kernels do nothing behind a failed one until the
            // host has synchronized: skip it.
            return Ok(id);
        }
        stream.busy = true;
        // SAFETY: the caller upholds Device::launch's contract, which is
        // launch::launch's, and `e` is the checked entry; the launch is
        // over when it returns.
        match unsafe { launch::launch(self, lib, e, label, entry, config, args) } {
            Ok(stats) => {
                self.count(|s| *s += stats);
                let mut by_entry = self.by_entry.lock();
                match by_entry.get_mut(entry) {
                    Some(s) => *s += stats,
                    None => {
                        by_entry.insert(entry.to_string(), stats);
                    }
                }
            }
            Err(error) => {
                self.count(|s| s.launches += 1);
                stream.failures.hold(Some(id), id.0, id.0, error);
            }
        }
        Ok(id)
    }
}

// SAFETY: buffers are whole pages of the arena, made accessible (and so
// zeroed, as fresh anonymous memory or pages dropped with MADV_DONTNEED)
// per allocation and owned by this device's id; the arena hands each page
// to one allocation at a time and lies outside any host allocation. Every
// copy checks its range against the live allocation's requested size
// (`Arena::range`) before touching memory and copies exactly that range.
// `launch` runs the named entry of a library compiled from the unit's
// source with exactly the given arguments, checked against the entry's
// parameter sizes, and returns once every block has finished or the launch
// has stopped (or skips it after a failure), so stream order holds as it
// is issued: launches, copies and frees take the stream lock, and none
// starts before the one before it has finished. `limits` are the ones
// `launch` checks and runs.
unsafe impl Device for EmuDevice {
    fn name(&self) -> String {
        "emulator".into()
    }

    fn limits(&self) -> DeviceLimits {
        DeviceLimits {
            global_mem_bytes: self.arena().bytes() as u64,
            ..Self::LIMITS
        }
    }

    fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer, DeviceError> {
        let addr = self.arena().alloc(bytes, self.id)?;
        self.count(|s| {
            s.allocations += 1;
            s.zeroed_bytes += bytes as u64;
        });
        Ok(DeviceBuffer::new(addr as u64, bytes))
    }

    fn free(&self, buffer: DeviceBuffer) -> Result<(), DeviceError> {
        let mut stream = self.stream();
        self.wait(&mut stream);
        self.arena().free(buffer.address() as usize, self.id)
    }

    fn copy_to_device(
        &self,
        dst: &mut DeviceBuffer,
        offset: usize,
        src: &[MaybeUninit<u8>],
    ) -> Result<(), DeviceError> {
        let to = self.arena().range(
            "copy to device (destination)",
            dst.address() as usize,
            self.id,
            offset,
            src.len(),
        )?;
        if src.is_empty() {
            return Ok(());
        }
        let mut stream = self.stream();
        // As a GPU's: queued after what is in flight, then waited for; a
        // failed launch before it is a synchronization's to report.
        stream.busy = true;
        self.wait(&mut stream);
        // SAFETY: `to` starts a checked range of src.len() bytes inside a
        // live, writable allocation; `dst` is borrowed mutably, so no other
        // copy uses the buffer, and no kernel runs (they run inside
        // `launch`, which holds the stream as this does); host memory
        // never overlaps the arena. The arena is untyped memory, so it may
        // take uninitialized bytes (padding) as they are.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), to.cast(), src.len()) };
        Ok(())
    }

    fn copy_to_host(
        &self,
        dst: &mut [MaybeUninit<u8>],
        src: &DeviceBuffer,
        offset: usize,
    ) -> Result<(), DeviceError> {
        let from = self.arena().range(
            "copy to host (source)",
            src.address() as usize,
            self.id,
            offset,
            dst.len(),
        )?;
        if dst.is_empty() {
            return Ok(());
        }
        let mut stream = self.stream();
        stream.busy = true;
        self.wait(&mut stream);
        // SAFETY: `from` starts a checked range of dst.len() bytes inside a
        // live allocation that no one writes meanwhile (no `&mut` to `src`
        // exists, and no kernel runs while the stream is held). `dst` is
        // `MaybeUninit<u8>`, so the range's uninitialized bytes, if any,
        // stay uninitialized rather than become `u8`s.
        unsafe { std::ptr::copy_nonoverlapping(from.cast(), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    fn copy_on_device(
        &self,
        dst: &mut DeviceBuffer,
        dst_offset: usize,
        src: &DeviceBuffer,
        src_offset: usize,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        let arena = self.arena();
        let from = arena.range(
            "device copy (source)",
            src.address() as usize,
            self.id,
            src_offset,
            bytes,
        )?;
        let to = arena.range(
            "device copy (destination)",
            dst.address() as usize,
            self.id,
            dst_offset,
            bytes,
        )?;
        // Behind a failed launch too, as a GPU's copy engine runs it.
        let mut stream = self.stream();
        stream.busy = true;
        // SAFETY: both ranges are checked and lie in distinct live
        // allocations (`dst` is exclusive, so it is not `src`), and no
        // kernel runs while the stream is held.
        unsafe { std::ptr::copy_nonoverlapping(from, to, bytes) };
        Ok(())
    }

    fn zero(&self, buffer: &mut DeviceBuffer) -> Result<(), DeviceError> {
        let len = buffer.len();
        let to = self
            .arena()
            .range("zeroing", buffer.address() as usize, self.id, 0, len)?;
        // Unlike a launch, it runs behind a failed launch, as a copy does:
        // the buffer's next owner must find zeros, not the bytes of a View
        // of another type.
        let mut stream = self.stream();
        stream.busy = true;
        // SAFETY: `to` starts a checked range of `len` bytes inside a live
        // allocation that `&mut` keeps from every other handle, and no
        // kernel runs while the stream is held.
        unsafe { std::ptr::write_bytes(to, 0, len) };
        self.count(|s| s.zeroed_bytes += len as u64);
        Ok(())
    }

    fn cache_bytes(&self) -> usize {
        // Each byte kept also keeps its race-detection shadow (8 more), and
        // the emulator's frees cost little: keep little.
        64 << 20
    }

    fn compile(&self, unit: &TranslationUnit, label: &str) -> Result<Module, DeviceError> {
        let lib = compile::compile(unit, label)?;
        Ok(Module::new(label, unit.entries(), lib))
    }

    unsafe fn launch(
        &self,
        module: &Module,
        entry: &str,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<LaunchId, DeviceError> {
        let Some(lib) = module.inner::<compile::Library>() else {
            return Err(DeviceError::InvalidLaunch {
                label: module.label().to_string(),
                entry: entry.to_string(),
                reason: "the module was compiled by another kind of device".into(),
            });
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.run(lib, module, entry, config, args) }
    }

    fn synchronize_for(&self, launches: Launches<'_>) -> Result<(), DeviceError> {
        let mut stream = self.stream();
        self.sync(&mut stream, launches)
    }
}
