//! `CudaSpace`: device memory as a granule-views memory space.
//!
//! A View's base pointer in this space is a device address carried in a
//! `NonNull<u8>`. Host code never dereferences it: the space is not
//! [`HostAccessible`](granule_views::HostAccessible), so View indexing,
//! slices and fills do not compile for it, and only this crate turns the
//! address back into a [`DeviceBuffer`] for copies. Subviews point inside
//! an allocation, so the space keeps a registry of its live allocations
//! (base address -> bytes) to find the buffer and offset of any address.

use super::cached::{self, Cache};
use super::queue::Queue;
use crate::device_api::{Device, DeviceBuffer};
use granule_views::space::ALLOC_ALIGN;
use granule_views::MemorySpace;
use parking_lot::{Mutex, MutexGuard};
use std::collections::BTreeMap;
use std::fmt;
use std::ptr::NonNull;
use std::sync::Arc;

/// A type whose dangling pointer has the allocation alignment, for empty
/// Views (which allocate nothing on the device).
#[repr(align(64))]
struct CacheLine;
const _: () = assert!(std::mem::align_of::<CacheLine>() == ALLOC_ALIGN);

/// Device memory of one CUDA device (a GPU, or the CPU emulator).
///
/// Get one from [`Cuda::memory_space`](crate::Cuda::memory_space) and
/// allocate Views in it with `zeros_in`; move data in and out with
/// `deep_copy` and the mirror functions of granule-views. Clones share the
/// device, the registry of allocations and the cache below.
///
/// # Cached memory
/// Memory a space is done with (a dropped View, a launch's workspace) is
/// kept, up to the device's [`Device::cache_bytes`], and handed out again
/// for an allocation of the same size, zeroed in stream order: a loop that
/// sorts or scans every step allocates on the device once. So dropping a
/// View does not wait for the kernels that use it.
/// [`CudaSpace::release_cached`] frees what is kept; an allocation that
/// finds the device full frees it first, and
/// [`GRANULE_CUDA_NO_CACHE`](crate::space::GRANULE_CUDA_NO_CACHE)`=1`
/// turns the cache off.
///
/// ```
/// use granule_cuda::{Cuda, CudaSpace};
/// use granule_views::{create_mirror_view_and_copy, deep_copy, LayoutRight, View1};
///
/// let cuda = Cuda::emulated()?;
/// let host = View1::<f64>::from_fn("x", 4, |i| i as f64)?;
/// let mut dev = View1::<f64, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "x", 4)?;
/// deep_copy(&mut dev, &host)?;
/// // `dev[0]` would not compile: CudaSpace is not host-accessible.
/// let back = create_mirror_view_and_copy(&dev)?;
/// assert_eq!(back.as_view().to_vec(), [0.0, 1.0, 2.0, 3.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct CudaSpace {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    device: Arc<dyn Device>,
    /// Live allocations made through this space: base address -> bytes.
    live: Mutex<BTreeMap<u64, usize>>,
    /// What the space's dispatches have in flight (`queue.rs`).
    pub(super) queue: Mutex<Queue>,
    /// Released memory kept for reuse (`cached.rs`).
    pub(super) cache: Mutex<Cache>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // A failure of this space's dispatches that no synchronization
        // point reported is printed (one that met other spaces too stays
        // for them); then the kept memory is freed (each free waits for
        // the device, which is idle by then).
        let queue = self.queue.get_mut();
        queue.drain(&*self.device);
        for b in self.cache.get_mut().drain() {
            cached::free(&*self.device, b);
        }
    }
}

impl fmt::Debug for CudaSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CudaSpace")
            .field("device", &self.inner.device.name())
            .field("live_allocations", &self.live().len())
            .finish()
    }
}

/// Where an address lies: the allocation holding it and the byte offset
/// in that allocation.
pub(crate) struct Located {
    pub(crate) buffer: DeviceBuffer,
    pub(crate) offset: usize,
}

impl CudaSpace {
    /// The memory of `device`. Spaces made separately over one device
    /// each track their own allocations, and copy between each other.
    ///
    /// ```
    /// use granule_cuda::{emu::EmuDevice, CudaSpace};
    /// use std::sync::Arc;
    /// let space = CudaSpace::new(Arc::new(EmuDevice::new()?));
    /// assert_eq!(space.device().name(), "emulator");
    /// # Ok::<(), granule_cuda::device_api::DeviceError>(())
    /// ```
    pub fn new(device: Arc<dyn Device>) -> Self {
        let inner = Arc::new(Inner {
            cache: Mutex::new(Cache::new(&*device)),
            device,
            live: Mutex::new(BTreeMap::new()),
            queue: Mutex::default(),
        });
        super::fence_all::register(&inner);
        CudaSpace { inner }
    }

    /// The device the memory lives on.
    pub fn device(&self) -> &Arc<dyn Device> {
        &self.inner.device
    }

    /// Whether `other` allocates on the same device instance as `self`.
    pub fn same_device(&self, other: &CudaSpace) -> bool {
        // Compare data pointers only: vtable pointers of one type may differ
        // between codegen units.
        std::ptr::addr_eq(
            Arc::as_ptr(&self.inner.device),
            Arc::as_ptr(&other.inner.device),
        )
    }

    fn live(&self) -> MutexGuard<'_, BTreeMap<u64, usize>> {
        // The map is consistent after every statement that changes it, so
        // a panic elsewhere cannot have left it half-updated.
        self.inner.live.lock()
    }

    /// The allocation of this space holding `[addr, addr + bytes)`, as a
    /// buffer handle of the device, and the offset of `addr` in it.
    ///
    /// `bytes` must not be 0: an empty View (no elements, or elements of
    /// size 0) has a dangling address that lies in no allocation, so the
    /// callers treat a range of 0 bytes as done before locating it.
    pub(crate) fn locate(&self, addr: u64, bytes: usize) -> Result<Located, String> {
        debug_assert!(
            bytes > 0,
            "locating 0 bytes at {addr:#x}: callers skip empty ranges"
        );
        let live = self.live();
        let found = live.range(..=addr).next_back();
        match found {
            Some((&base, &len))
                if (addr - base)
                    .checked_add(bytes as u64)
                    .is_some_and(|end| end <= len as u64) =>
            {
                Ok(Located {
                    buffer: DeviceBuffer::new(base, len),
                    offset: (addr - base) as usize,
                })
            }
            _ => Err(format!(
                "{bytes} bytes at device address {addr:#x} are not inside a live allocation \
                 of this CudaSpace (on the {} device)",
                self.inner.device.name()
            )),
        }
    }
}

/// The device address a space pointer carries.
pub(crate) fn address<T>(ptr: *const T) -> u64 {
    ptr.addr() as u64
}

// SAFETY: every non-empty allocation is a `Device::alloc_zeroed` buffer of
// exactly `bytes` bytes, either fresh or one the space released and, when
// `zeroed` is asked, now zeroes again (`Device::zero`, in stream order);
// it is zeroed for every operation issued after when asked (an unzeroed
// one holds its last owner's bytes, device memory that the host never
// reads as values), distinct from every other live buffer (the
// cache holds only buffers no View or launch owns any more), and at least
// 256-byte aligned (the Device contract; checked against ALLOC_ALIGN
// below before it is handed out). Empty
// allocations are an aligned dangling pointer, as HostSpace's. The memory
// is valid on the device, not on the host: IS_HOST_ACCESSIBLE is false
// and the space does not implement HostAccessible, so views never
// dereference it, and only this crate's copies read or write it, through
// the device. `deallocate` releases exactly the buffer `allocate`
// registered: to the cache, whose next owner's zeroing and work are queued
// after every kernel still using it, or to `Device::free`, which waits for
// them (the Device contract's stream order).
unsafe impl MemorySpace for CudaSpace {
    const NAME: &'static str = "Cuda";
    const IS_HOST_ACCESSIBLE: bool = false;

    fn allocate(&self, bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String> {
        if bytes == 0 {
            return Ok(NonNull::<CacheLine>::dangling().cast());
        }
        let device = &self.inner.device;
        let buffer = self.alloc(bytes, zeroed).map_err(|e| {
            format!(
                "the {} device could not allocate {bytes} bytes: {e}",
                device.name()
            )
        })?;
        let addr = buffer.address();
        let ptr = usize::try_from(addr)
            .ok()
            .filter(|a| a % ALLOC_ALIGN == 0)
            .and_then(|a| NonNull::new(std::ptr::without_provenance_mut::<u8>(a)));
        let Some(ptr) = ptr else {
            let reason = format!(
                "the {} device returned address {addr:#x} for {bytes} bytes, which is null, \
                 not {ALLOC_ALIGN}-byte aligned or beyond the host's pointer width",
                device.name()
            );
            if let Err(e) = device.free(buffer) {
                return Err(format!("{reason}; freeing it again failed too: {e}"));
            }
            return Err(reason);
        };
        self.live().insert(addr, bytes);
        Ok(ptr)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, bytes: usize) {
        if bytes == 0 {
            return;
        }
        let addr = address(ptr.as_ptr());
        // Queued kernels may still use the memory: the cache hands it out
        // again only behind them, in stream order (`cached.rs`).
        match self.live().remove(&addr) {
            Some(len) => self.release(DeviceBuffer::new(addr, len)),
            // Deallocation runs in Drop, which cannot return an error, and
            // a panic there could abort an unwinding program: report and go
            // on.
            None => tracing::warn!(
                "deallocating {bytes} bytes at {addr:#x}, which this space did not allocate, \
                 on the {} device",
                self.inner.device.name()
            ),
        }
    }
}
