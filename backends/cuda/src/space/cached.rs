//! Cached memory: buffers a [`CudaSpace`] is done with, kept to be handed
//! out again (the user's side is `CudaSpace`'s "Cached memory").
//!
//! A GPU's cuMemAlloc and cuMemFree are slow (cuMemFree also waits for the
//! whole device), and a loop that calls a scan or a sort asks for the same
//! sizes on every pass: the Views it makes (the sort's temporary keys) and
//! every launch's driver workspace. So a space keeps what it releases, up
//! to [`Device::cache_bytes`] and [`MAX_CACHED_BUFFERS`], and hands a kept
//! buffer of exactly the size asked for out again, zeroed.
//!
//! Reuse does not wait for the kernels that used the buffer: the zeroing
//! is queued on the device's stream ([`Device::zero`]), so it runs after
//! them, and so does every launch and copy of the buffer's next owner (the
//! `Device` contract's stream order). The host never touches device memory
//! itself.
//!
//! Kept memory is freed when the cache is full (the oldest buffer first),
//! when an allocation fails (all of it, then the allocation is tried
//! again), by [`CudaSpace::release_cached`], and when the space is dropped.
//! [`GRANULE_CUDA_NO_CACHE`]`=1` turns the cache off, for tools such as
//! compute-sanitizer's memcheck, which only see a use after free of memory
//! that was freed.

use super::memory::CudaSpace;
use crate::device_api::{Device, DeviceBuffer, DeviceError};
use std::collections::VecDeque;

/// The environment variable that turns a space's cache off when it is
/// `1`: every buffer a space releases is freed at once (as a free does,
/// that waits for the device).
///
/// ```
/// assert_eq!(granule_cuda::space::GRANULE_CUDA_NO_CACHE, "GRANULE_CUDA_NO_CACHE");
/// ```
pub const GRANULE_CUDA_NO_CACHE: &str = "GRANULE_CUDA_NO_CACHE";

/// Buffers a space keeps at most, whatever their size (the search for a
/// size is a scan of them).
///
/// ```
/// assert_eq!(granule_cuda::space::MAX_CACHED_BUFFERS, 64);
/// ```
pub const MAX_CACHED_BUFFERS: usize = 64;

/// The buffers a space keeps, oldest first.
pub(crate) struct Cache {
    kept: VecDeque<DeviceBuffer>,
    bytes: usize,
    limit: usize,
}

impl Cache {
    /// An empty cache that keeps up to `device`'s [`Device::cache_bytes`],
    /// or nothing under [`GRANULE_CUDA_NO_CACHE`]`=1`.
    pub(crate) fn new(device: &dyn Device) -> Self {
        let setting = std::env::var(GRANULE_CUDA_NO_CACHE).ok();
        Cache::with_limit(limit(setting.as_deref(), device))
    }

    fn with_limit(limit: usize) -> Self {
        Cache {
            kept: VecDeque::new(),
            bytes: 0,
            limit,
        }
    }

    /// The most recently kept buffer of exactly `bytes` bytes.
    fn take(&mut self, bytes: usize) -> Option<DeviceBuffer> {
        let at = self.kept.iter().rposition(|b| b.len() == bytes)?;
        let buffer = self.kept.remove(at)?;
        self.bytes -= bytes;
        Some(buffer)
    }

    /// Keeps `buffer`, and returns what no longer fits, oldest first (the
    /// buffer itself when it is larger than the whole cache), for the
    /// caller to free outside the cache's lock.
    fn keep(&mut self, buffer: DeviceBuffer) -> Vec<DeviceBuffer> {
        if buffer.len() > self.limit {
            return vec![buffer];
        }
        self.bytes += buffer.len();
        self.kept.push_back(buffer);
        let mut out = Vec::new();
        while self.bytes > self.limit || self.kept.len() > MAX_CACHED_BUFFERS {
            let old = self
                .kept
                .pop_front()
                .expect("a cache over its limit holds a buffer");
            self.bytes -= old.len();
            out.push(old);
        }
        out
    }

    /// Everything kept, for freeing.
    pub(crate) fn drain(&mut self) -> Vec<DeviceBuffer> {
        self.bytes = 0;
        self.kept.drain(..).collect()
    }

    /// The bytes kept.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

impl CudaSpace {
    /// `bytes` (not 0) zeroed bytes of device memory, in stream order: a
    /// kept buffer of that size when the cache has one, else a new one
    /// (after freeing the cache, when the device has no room).
    pub(crate) fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer, DeviceError> {
        self.alloc(bytes, true)
    }

    /// [`CudaSpace::alloc_zeroed`], except that a kept buffer is handed out
    /// as it is (holding what its last owner left) unless `zeroed`: the
    /// memset is skipped for memory the next owner writes whole before it
    /// reads any. A new buffer is zeroed either way.
    pub(crate) fn alloc(&self, bytes: usize, zeroed: bool) -> Result<DeviceBuffer, DeviceError> {
        let device = &**self.device();
        let kept = self.inner.cache.lock().take(bytes);
        if let Some(mut buffer) = kept {
            if !zeroed {
                return Ok(buffer);
            }
            return match device.zero(&mut buffer) {
                Ok(()) => Ok(buffer),
                Err(e) => {
                    free(device, buffer);
                    Err(e)
                }
            };
        }
        device.alloc_zeroed(bytes).or_else(|e| {
            if self.release_cached() == 0 {
                return Err(e);
            }
            device.alloc_zeroed(bytes)
        })
    }

    /// Hands a buffer the space is done with to its cache: the kernels
    /// queued before may still use it, and the next owner's work is
    /// queued after them.
    pub(crate) fn release(&self, buffer: DeviceBuffer) {
        let evicted = self.inner.cache.lock().keep(buffer);
        for b in evicted {
            free(&**self.device(), b);
        }
    }

    /// Frees the memory the space keeps for reuse (its "Cached memory"),
    /// and returns how many bytes that was. Each free waits for the
    /// kernels queued before. Views stay as they are; later allocations
    /// start afresh.
    ///
    /// ```
    /// use granule_cuda::{Cuda, CudaSpace};
    /// use granule_views::{LayoutRight, View1};
    ///
    /// let cuda = Cuda::emulated()?;
    /// let space = cuda.memory_space();
    /// let v = View1::<f64, LayoutRight, CudaSpace>::zeros_in(space.clone(), "v", 1000)?;
    /// drop(v); // kept by the space, not freed
    /// assert_eq!(space.cached_bytes(), 8000);
    /// assert_eq!(space.release_cached(), 8000);
    /// assert_eq!(space.cached_bytes(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn release_cached(&self) -> usize {
        let mut cache = self.inner.cache.lock();
        let bytes = cache.bytes();
        let kept = cache.drain();
        drop(cache);
        for b in kept {
            free(&**self.device(), b);
        }
        bytes
    }

    /// The bytes of released memory the space keeps for reuse (see
    /// [`CudaSpace::release_cached`]).
    ///
    /// ```
    /// let cuda = granule_cuda::Cuda::emulated()?;
    /// assert_eq!(cuda.memory_space().cached_bytes(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cached_bytes(&self) -> usize {
        self.inner.cache.lock().bytes()
    }
}

/// The bytes a cache of `device` keeps, given [`GRANULE_CUDA_NO_CACHE`]'s
/// value.
fn limit(no_cache: Option<&str>, device: &dyn Device) -> usize {
    match no_cache {
        Some("1") => 0,
        _ => device.cache_bytes(),
    }
}

/// Frees `buffer`, where no error can be returned (a release, a drop): a
/// failure is a warning event and the memory stays allocated on the device.
pub(crate) fn free(device: &dyn Device, buffer: DeviceBuffer) {
    let (addr, bytes) = (buffer.address(), buffer.len());
    if let Err(e) = device.free(buffer) {
        tracing::warn!(
            "freeing {bytes} bytes at {addr:#x} on the {} device failed: {e}",
            device.name()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::TranslationUnit;
    use crate::device_api::{DeviceLimits, KernelArgs, LaunchConfig, LaunchId, Launches, Module};
    use crate::emu::EmuDevice;
    use granule_views::{create_mirror_view_and_copy, deep_copy, LayoutRight, View1};
    use parking_lot::Mutex;
    use std::mem::MaybeUninit;
    use std::sync::Arc;

    fn cache(limit: usize) -> (EmuDevice, Cache) {
        (EmuDevice::new().unwrap(), Cache::with_limit(limit))
    }

    #[test]
    fn no_cache_1_keeps_nothing() {
        let dev = EmuDevice::new().unwrap();
        assert_eq!(limit(Some("1"), &dev), 0);
        assert_eq!(limit(Some("0"), &dev), dev.cache_bytes());
        assert_eq!(limit(None, &dev), dev.cache_bytes());
        let mut c = Cache::with_limit(0);
        let out = c.keep(dev.alloc_zeroed(8).unwrap());
        assert_eq!((out.len(), c.bytes()), (1, 0));
        give_back(&dev, out);
    }

    fn give_back(dev: &EmuDevice, bufs: Vec<DeviceBuffer>) {
        for b in bufs {
            dev.free(b).unwrap();
        }
    }

    #[test]
    fn a_buffer_is_handed_out_again_only_for_its_exact_size() {
        let (dev, mut c) = cache(1 << 20);
        let a = dev.alloc_zeroed(4096).unwrap();
        let addr = a.address();
        assert!(c.keep(a).is_empty());
        assert!(c.take(4095).is_none());
        assert!(c.take(4097).is_none());
        let b = c.take(4096).unwrap();
        assert_eq!(b.address(), addr);
        assert_eq!(c.bytes(), 0);
        give_back(&dev, vec![b]);
    }

    #[test]
    fn the_oldest_buffers_leave_first_when_the_cache_is_full() {
        let (dev, mut c) = cache(3000);
        let bufs: Vec<_> = (0..3).map(|_| dev.alloc_zeroed(1000).unwrap()).collect();
        let addrs: Vec<u64> = bufs.iter().map(DeviceBuffer::address).collect();
        let mut out = Vec::new();
        for b in bufs {
            out.extend(c.keep(b));
        }
        assert!(out.is_empty());
        let big = dev.alloc_zeroed(2000).unwrap();
        let out = c.keep(big);
        let gone: Vec<u64> = out.iter().map(DeviceBuffer::address).collect();
        assert_eq!(gone, addrs[..2], "the two oldest make room");
        assert_eq!(c.bytes(), 3000);
        give_back(&dev, out);
        // Too large for the cache at all: handed straight back.
        let huge = dev.alloc_zeroed(3001).unwrap();
        let out = c.keep(huge);
        assert_eq!(out.len(), 1);
        assert_eq!(c.bytes(), 3000);
        give_back(&dev, out);
        let rest = c.drain();
        assert_eq!((rest.len(), c.bytes()), (2, 0));
        give_back(&dev, rest);
    }

    #[test]
    fn the_cache_keeps_a_bounded_number_of_buffers() {
        let (dev, mut c) = cache(1 << 30);
        let mut out = Vec::new();
        for _ in 0..MAX_CACHED_BUFFERS + 3 {
            out.extend(c.keep(dev.alloc_zeroed(8).unwrap()));
        }
        assert_eq!(out.len(), 3);
        assert_eq!(c.bytes(), 8 * MAX_CACHED_BUFFERS);
        give_back(&dev, out);
        give_back(&dev, c.drain());
    }

    /// The emulator with room for `budget` bytes only.
    #[derive(Debug)]
    struct Tight {
        emu: EmuDevice,
        budget: usize,
        used: Mutex<usize>,
    }

    // SAFETY: every method is the emulator's, which keeps the contract;
    // `alloc_zeroed` only refuses more often.
    unsafe impl Device for Tight {
        fn name(&self) -> String {
            "tight emulator".into()
        }
        fn limits(&self) -> DeviceLimits {
            self.emu.limits()
        }
        fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer, DeviceError> {
            let mut used = self.used.lock();
            if *used + bytes > self.budget {
                let reason = format!("{} of {} bytes in use", *used, self.budget);
                return Err(DeviceError::Alloc { bytes, reason });
            }
            let b = self.emu.alloc_zeroed(bytes)?;
            *used += bytes;
            Ok(b)
        }
        fn free(&self, buffer: DeviceBuffer) -> Result<(), DeviceError> {
            let bytes = buffer.len();
            self.emu.free(buffer)?;
            *self.used.lock() -= bytes;
            Ok(())
        }
        fn copy_to_device(
            &self,
            dst: &mut DeviceBuffer,
            offset: usize,
            src: &[MaybeUninit<u8>],
        ) -> Result<(), DeviceError> {
            self.emu.copy_to_device(dst, offset, src)
        }
        fn copy_to_host(
            &self,
            dst: &mut [MaybeUninit<u8>],
            src: &DeviceBuffer,
            offset: usize,
        ) -> Result<(), DeviceError> {
            self.emu.copy_to_host(dst, src, offset)
        }
        fn copy_on_device(
            &self,
            dst: &mut DeviceBuffer,
            dst_offset: usize,
            src: &DeviceBuffer,
            src_offset: usize,
            bytes: usize,
        ) -> Result<(), DeviceError> {
            self.emu
                .copy_on_device(dst, dst_offset, src, src_offset, bytes)
        }
        fn zero(&self, buffer: &mut DeviceBuffer) -> Result<(), DeviceError> {
            self.emu.zero(buffer)
        }
        fn compile(&self, unit: &TranslationUnit, label: &str) -> Result<Module, DeviceError> {
            self.emu.compile(unit, label)
        }
        unsafe fn launch(
            &self,
            module: &Module,
            entry: &str,
            config: &LaunchConfig,
            args: &KernelArgs,
        ) -> Result<LaunchId, DeviceError> {
            // SAFETY: forwarded from the caller.
            unsafe { self.emu.launch(module, entry, config, args) }
        }
        fn synchronize_for(&self, launches: Launches<'_>) -> Result<(), DeviceError> {
            self.emu.synchronize_for(launches)
        }
    }

    #[test]
    fn a_full_device_frees_the_cache_and_tries_again() {
        let tight = Arc::new(Tight {
            emu: EmuDevice::new().unwrap(),
            budget: 3000,
            used: Mutex::new(0),
        });
        let space = CudaSpace::new(tight.clone());
        let view = |n| View1::<u8, LayoutRight, CudaSpace>::zeros_in(space.clone(), "v", n);
        drop(view(2000).unwrap());
        assert_eq!(space.cached_bytes(), 2000);
        let b = view(1500).expect("the cache's 2000 bytes were freed to make room");
        assert_eq!((space.cached_bytes(), *tight.used.lock()), (0, 1500));
        // Without a cache to free, the device's refusal is the error.
        let e = view(1600).unwrap_err().to_string();
        assert!(e.contains("1500 of 3000 bytes in use"), "{e}");
        drop(b);
    }

    #[test]
    fn a_reused_buffer_comes_back_zeroed() {
        let space = CudaSpace::new(Arc::new(EmuDevice::new().unwrap()));
        let view = || View1::<u8, LayoutRight, CudaSpace>::zeros_in(space.clone(), "v", 1500);
        let mut a = view().unwrap();
        let ones = View1::<u8>::from_fn("ones", 1500, |_| 1).unwrap();
        deep_copy(&mut a, &ones).unwrap();
        let address = a.as_ptr().addr();
        drop(a);
        let b = view().unwrap();
        assert_eq!(b.as_ptr().addr(), address, "the kept buffer");
        let back = create_mirror_view_and_copy(&b).unwrap();
        assert!(back.as_view().to_vec().iter().all(|&v| v == 0));
    }

    #[test]
    fn the_most_recent_buffer_of_a_size_is_taken() {
        let (dev, mut c) = cache(1 << 20);
        let first = dev.alloc_zeroed(64).unwrap();
        let second = dev.alloc_zeroed(64).unwrap();
        let addr = second.address();
        assert!(c.keep(first).is_empty() && c.keep(second).is_empty());
        let got = c.take(64).unwrap();
        assert_eq!(got.address(), addr);
        give_back(&dev, vec![got]);
        give_back(&dev, c.drain());
    }
}
