//! Copies between host memory and [`CudaSpace`], and within a device.
//!
//! Contiguous copies of equal mappings are one device copy. Copies between
//! different mappings (LayoutLeft to LayoutRight, strided subviews) stage
//! through host memory: the host side is gathered or scattered element by
//! element, and the device side moves in one bulk copy per contiguous run
//! of its mapping (one copy in all when the device View is contiguous).
//! Device-to-device copies between different mappings stage the same way,
//! down and up again; a packing kernel launched through the dispatch would
//! avoid the round trip (not written yet).
//!
//! A copy between host and device is a synchronization point: the device
//! waits for the dispatches queued before it (stream order), so the host
//! never reads memory a kernel is still writing, nor writes memory a
//! kernel still reads; a failure of one of them panics here, naming the
//! dispatch (see `dispatch/`'s "Asynchrony"). A contiguous device-to-device
//! copy is queued on the stream like a launch, and does not wait.

use super::memory::{address, CudaSpace};
use super::queue::report;
use crate::device_api::{Device, DeviceError};
use granule_views::{CopyToHost, Element, HostSpace, Mapping, SpaceCopy};
use std::mem::MaybeUninit;

fn byte_len<T>(count: usize) -> usize {
    // Views bound their spans' byte sizes below isize::MAX at allocation.
    count * std::mem::size_of::<T>()
}

/// The bytes of `s`, padding included, as the device copies take them.
fn as_bytes<T: Element>(s: &[T]) -> &[MaybeUninit<u8>] {
    // SAFETY: the bytes of `s` are readable for its whole length, and the
    // borrow ties their lifetime to `s`. Every byte of any `T`, padding
    // too, is a valid `MaybeUninit<u8>`, and the view is shared, so
    // nothing can be written through it.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), std::mem::size_of_val(s)) }
}

/// The bytes of `s` for the device to write into.
///
/// # Safety
/// Whatever is written through the result must leave every element of `s`
/// a valid `T`: the bytes of one value of `T` per element, at the
/// element's place.
unsafe fn as_bytes_mut<T: Element>(s: &mut [T]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: the bytes of `s` are writable for its whole length and
    // uniquely borrowed for the result's lifetime; `MaybeUninit<u8>` has
    // no validity requirement, so the view itself breaks nothing, and the
    // caller keeps the elements valid.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), std::mem::size_of_val(s)) }
}

fn zeroed_vec<T: Element>(len: usize) -> Vec<T> {
    vec![T::zeroed(); len]
}

/// A copy between host and device: `op`, which waits for the work queued
/// before it. A failure of that work panics, naming its dispatch; the
/// copy's own error is returned, described by `what`.
fn blocking(
    space: &CudaSpace,
    what: impl FnOnce() -> String,
    op: impl FnOnce(&dyn Device) -> Result<(), DeviceError>,
) -> Result<(), String> {
    match space.waiting(op) {
        Ok(()) => Ok(()),
        Err(e) if e.is_queued_failure() => report(&e, "a copy between host and device"),
        Err(e) => Err(format!("{} failed: {e}", what())),
    }
}

/// Host memory into the device, at device address `addr`. Moving no
/// bytes (no elements, or elements of size 0) is done at once: the address
/// of an empty device View lies in no allocation, so it is never located.
fn upload<T: Element>(space: &CudaSpace, addr: u64, src: &[T]) -> Result<(), String> {
    let bytes = as_bytes(src);
    if bytes.is_empty() {
        return Ok(());
    }
    let mut at = space.locate(addr, bytes.len())?;
    let what = || {
        format!(
            "copying {} bytes from the host to the {} device",
            bytes.len(),
            space.device().name()
        )
    };
    blocking(space, what, |device| {
        device.copy_to_device(&mut at.buffer, at.offset, bytes)
    })
}

/// Device memory at `addr` into host memory.
///
/// `addr` must be the address of `dst.len()` elements of a View of `T` in
/// `space` (the `src` of the `SpaceCopy` calls that use it). Moving no
/// bytes is done at once, without locating `addr` (see [`upload`]).
fn download<T: Element>(space: &CudaSpace, addr: u64, dst: &mut [T]) -> Result<(), String> {
    // SAFETY: the device writes into `dst` only the bytes of the range at
    // `addr`, which is `dst.len()` whole elements of a View of `T` at an
    // element's address, so each element of `dst` receives the bytes of
    // one device element. Each device element holds the bytes of a valid
    // `T`: a device View starts from `alloc_zeroed`, and the all-zero bit
    // pattern is a valid `T` (`Element: Zeroable`); after that its bytes change
    // only by uploads of host `T`s (valid, as values of a live slice), by
    // device copies between Views of `T` (this module, element for
    // element), and by kernel stores, which the generated C++ makes as
    // whole values of the element's device type, each the image of a
    // valid `T` (C++ `bool` is 0 or 1). `Element` does not promise that
    // every bit pattern is valid (`bool` and `char` are elements), so it is
    // this provenance, not the type, that makes the bytes valid: they are
    // the bytes of values that left the host, so even a `T` that holds a
    // reference gets back the same, still valid, one. Padding may arrive
    // uninitialized, as it left the host, and a
    // `T`'s padding may hold any byte. A failed copy writes nothing: both
    // devices check the range before copying, and the driver fails a copy
    // before it starts (short of a hardware fault, which no host code can
    // guard against). A copy behind a failed or skipped launch runs, and
    // moves the device's bytes as they are, valid by the same provenance:
    // a kernel that stopped stored whole values or nothing.
    // The copy waits for the launches before it (stream order), so no
    // kernel writes the source meanwhile, and nothing writes `dst` after
    // it returns.
    let bytes = unsafe { as_bytes_mut(dst) };
    if bytes.is_empty() {
        return Ok(());
    }
    let at = space.locate(addr, bytes.len())?;
    let len = bytes.len();
    let what = || {
        format!(
            "copying {len} bytes from the {} device to the host",
            space.device().name()
        )
    };
    blocking(space, what, |device| {
        device.copy_to_host(bytes, &at.buffer, at.offset)
    })
}

/// A typed error unless both spaces allocate on one device instance:
/// device copies cannot reach another device's memory.
fn check_same_device(dst: &CudaSpace, src: &CudaSpace) -> Result<(), String> {
    if dst.same_device(src) {
        return Ok(());
    }
    Err(format!(
        "cannot copy between two device instances (from a {} device to a {} device): \
         a device copy reaches only its own device's memory; copy through a host \
         mirror instead",
        src.device().name(),
        dst.device().name()
    ))
}

/// How a mapping's elements sit in memory, for staging: the position of
/// each offset in a packed buffer, and the contiguous runs of offsets.
struct Packing {
    /// The mapping's offsets in increasing order; `None` when they are
    /// exactly `0..size`, so positions are offsets.
    sorted: Option<Vec<usize>>,
    size: usize,
}

impl Packing {
    fn new<const R: usize>(map: &Mapping<R>) -> Self {
        let sorted = (!map.is_contiguous()).then(|| {
            let mut offsets = Vec::with_capacity(map.size());
            map.for_each_index(|idx| offsets.push(map.offset(idx)));
            offsets.sort_unstable();
            offsets
        });
        Packing {
            sorted,
            size: map.size(),
        }
    }

    /// Where the element at memory `offset` sits in the packed buffer.
    fn position(&self, offset: usize) -> usize {
        match &self.sorted {
            None => offset,
            Some(sorted) => sorted
                .binary_search(&offset)
                .expect("the offset of an index of the packed mapping"),
        }
    }

    /// Maximal runs of consecutive offsets, as (first offset, length), in
    /// packed order; the runs' positions follow each other from 0.
    fn runs(&self) -> Vec<(usize, usize)> {
        let Some(sorted) = &self.sorted else {
            return vec![(0, self.size)];
        };
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &off in sorted {
            match runs.last_mut() {
                Some((start, len)) if *start + *len == off => *len += 1,
                _ => runs.push((off, 1)),
            }
        }
        runs
    }
}

/// Uploads `packed` (elements in `packing`'s order) into the mapping at `addr`.
fn upload_packed<T: Element>(
    space: &CudaSpace,
    addr: u64,
    packing: &Packing,
    packed: &[T],
) -> Result<(), String> {
    let mut pos = 0;
    for (off, len) in packing.runs() {
        upload(
            space,
            addr + byte_len::<T>(off) as u64,
            &packed[pos..pos + len],
        )?;
        pos += len;
    }
    Ok(())
}

/// Downloads the mapping at `addr` into a buffer in `packing`'s order.
fn download_packed<T: Element>(
    space: &CudaSpace,
    addr: u64,
    packing: &Packing,
) -> Result<Vec<T>, String> {
    let mut packed = zeroed_vec::<T>(packing.size);
    let mut pos = 0;
    for (off, len) in packing.runs() {
        download(
            space,
            addr + byte_len::<T>(off) as u64,
            &mut packed[pos..pos + len],
        )?;
        pos += len;
    }
    Ok(packed)
}

// SAFETY: the device side touches exactly the bytes of the described
// elements: a contiguous copy moves `count` elements, and a mapped copy
// moves only runs of offsets of the destination mapping; every device range
// is checked against a live allocation of this space first. The host side
// reads exactly the elements of `src_map`. No host pointer outlives the
// call: a copy from the host reads its source before it returns (the
// Device contract), after the launches queued before it (stream order).
unsafe impl SpaceCopy<HostSpace> for CudaSpace {
    unsafe fn copy_contiguous<T: Element>(
        &self,
        dst: *mut T,
        _src_space: &HostSpace,
        src: *const T,
        count: usize,
    ) -> Result<(), String> {
        if byte_len::<T>(count) == 0 {
            return Ok(());
        }
        // SAFETY: the caller guarantees `src` is valid host memory for
        // reading `count` elements, not written during the call.
        let src = unsafe { std::slice::from_raw_parts(src, count) };
        upload(self, address(dst), src)
    }

    /// Gathers the host elements in the device mapping's memory order,
    /// then uploads them in one copy per contiguous run of the device
    /// mapping (one copy when it is contiguous).
    unsafe fn copy_mapped<T: Element, const R: usize>(
        &self,
        dst: *mut T,
        dst_map: &Mapping<R>,
        _src_space: &HostSpace,
        src: *const T,
        src_map: &Mapping<R>,
    ) -> Result<(), String> {
        if byte_len::<T>(dst_map.size()) == 0 {
            return Ok(());
        }
        let packing = Packing::new(dst_map);
        let mut packed = zeroed_vec::<T>(packing.size);
        dst_map.for_each_index(|idx| {
            // SAFETY: `idx` is within the shared extents, so the source
            // offset is one of `src_map`'s, readable (caller's contract).
            let value = unsafe { *src.add(src_map.offset(idx)) };
            packed[packing.position(dst_map.offset(idx))] = value;
        });
        upload_packed(self, address(dst), &packing, &packed)
    }
}

// SAFETY: as for the upload direction: the device side reads only the
// described elements' bytes from a live allocation of `src_space`, and
// the host side writes exactly the elements of `dst_map` (or `count`
// contiguous ones); nothing is kept past the call.
unsafe impl CopyToHost for CudaSpace {
    unsafe fn copy_contiguous_to_host<T: Element>(
        &self,
        dst: *mut T,
        src: *const T,
        count: usize,
    ) -> Result<(), String> {
        if byte_len::<T>(count) == 0 {
            return Ok(());
        }
        // SAFETY: the caller guarantees `dst` is valid host memory for
        // writing `count` elements, accessed by nothing else meanwhile.
        let dst = unsafe { std::slice::from_raw_parts_mut(dst, count) };
        download(self, address(src), dst)
    }

    /// Downloads the device elements in one copy per contiguous run of the
    /// device mapping, then scatters them into the host mapping.
    unsafe fn copy_mapped_to_host<T: Element, const R: usize>(
        &self,
        dst: *mut T,
        dst_map: &Mapping<R>,
        src: *const T,
        src_map: &Mapping<R>,
    ) -> Result<(), String> {
        if byte_len::<T>(src_map.size()) == 0 {
            return Ok(());
        }
        let packing = Packing::new(src_map);
        let packed = download_packed::<T>(self, address(src), &packing)?;
        dst_map.for_each_index(|idx| {
            let value = packed[packing.position(src_map.offset(idx))];
            // SAFETY: `idx` is within the extents, so the offset is one of
            // `dst_map`'s, writable (caller's contract).
            unsafe { *dst.add(dst_map.offset(idx)) = value };
        });
        Ok(())
    }
}

// SAFETY: both sides are checked to be on one device instance and every
// range against a live allocation of its space; only the described
// elements' bytes are read and written (runs of the two mappings). A
// contiguous copy is queued on the device's stream and may run after the
// call: in stream order, after every launch before it and before every
// launch after it, while freeing either buffer and every host access to
// them wait for it (the Device contract), so using the device addresses
// past the call races with nothing. A mapped copy stages through host
// memory, with copies that wait.
unsafe impl SpaceCopy<CudaSpace> for CudaSpace {
    unsafe fn copy_contiguous<T: Element>(
        &self,
        dst: *mut T,
        src_space: &CudaSpace,
        src: *const T,
        count: usize,
    ) -> Result<(), String> {
        check_same_device(self, src_space)?;
        let bytes = byte_len::<T>(count);
        // No bytes to move (no elements, or elements of size 0): an empty
        // View's address lies in no allocation, so it is not located.
        if bytes == 0 {
            return Ok(());
        }
        let mut to = self.locate(address(dst), bytes)?;
        let from = src_space.locate(address(src), bytes)?;
        self.device()
            .copy_on_device(&mut to.buffer, to.offset, &from.buffer, from.offset, bytes)
            .map_err(|e| {
                format!(
                    "copying {bytes} bytes within the {} device failed: {e}",
                    self.device().name()
                )
            })
    }

    /// Stages through host memory: downloads the source's runs, reorders
    /// them into the destination's memory order, and uploads its runs.
    unsafe fn copy_mapped<T: Element, const R: usize>(
        &self,
        dst: *mut T,
        dst_map: &Mapping<R>,
        src_space: &CudaSpace,
        src: *const T,
        src_map: &Mapping<R>,
    ) -> Result<(), String> {
        check_same_device(self, src_space)?;
        if byte_len::<T>(dst_map.size()) == 0 {
            return Ok(());
        }
        let from = Packing::new(src_map);
        let staged = download_packed::<T>(src_space, address(src), &from)?;
        let to = Packing::new(dst_map);
        let mut packed = zeroed_vec::<T>(to.size);
        dst_map.for_each_index(|idx| {
            packed[to.position(dst_map.offset(idx))] = staged[from.position(src_map.offset(idx))];
        });
        upload_packed(self, address(dst), &to, &packed)
    }
}
