//! `fill` on device memory: a kernel of the space's own (`fill.cuh`),
//! queued like a dispatch, that sets every element of a View's mapping
//! to one value.

use super::memory::{address, CudaSpace};
use super::queue::Dispatched;
use crate::codegen::TranslationUnit;
use crate::device::{FILL, HEADER};
use crate::device_api::{DeviceError, KernelArgs, LaunchConfig};
use granule_core::kernel::DeviceValue;
use granule_views::{Element, HostSpace, LayoutRight, Mapping, SpaceCopy, SpaceFill};

/// Threads per block of the fill kernels.
const BLOCK: u32 = 256;
/// The largest element the kernels' value parameter holds.
const MAX_VALUE_BYTES: usize = 128;
/// The largest rank the kernels' shape parameter holds.
const MAX_RANK: usize = 8;

/// The fill kernels' unit: the header, then `fill.cuh`'s entries.
fn unit() -> TranslationUnit {
    let entries = ["u8", "u16", "u32", "u64"].map(|w| format!("granule_fill_{w}"));
    TranslationUnit::from_source(format!("{HEADER}{FILL}"), entries.to_vec())
}

/// The word the kernels store an element in: as wide as its alignment
/// (which divides its size), at most 8 bytes.
fn word_bytes<T>() -> usize {
    std::mem::align_of::<T>().min(8)
}

/// The kernels' `FillShape`: a contiguous mapping as rank 1 (no index
/// arithmetic), else its extents and strides.
fn shape_bytes<const R: usize>(map: &Mapping<R>) -> Vec<u8> {
    let (rank, ext, str): (usize, Vec<usize>, Vec<usize>) = if map.is_contiguous() {
        (1, vec![map.size()], vec![1])
    } else {
        (R, map.extents().to_vec(), map.strides().to_vec())
    };
    let word = |v: usize| (v as u64).to_ne_bytes();
    let mut out = Vec::with_capacity(8 * (1 + 2 * MAX_RANK));
    out.extend(word(rank));
    for list in [ext, str] {
        for r in 0..MAX_RANK {
            out.extend(word(list.get(r).copied().unwrap_or(1)));
        }
    }
    out
}

/// The kernels' `FillValue`: the value's device bytes, zero-padded.
fn value_bytes<T: DeviceValue>(value: &T) -> Vec<u8> {
    let mut out = vec![0u8; MAX_VALUE_BYTES];
    value.store(&mut out[..T::SIZE]);
    out
}

impl CudaSpace {
    /// Queues the fill of `map` at `dst` with `value`, `label` naming the
    /// View in a report.
    ///
    /// # Safety
    /// As [`SpaceFill::fill_mapped`]; `T`'s device size is its host size
    /// and at most [`MAX_VALUE_BYTES`], and `R <= MAX_RANK`.
    unsafe fn queue_fill<T: DeviceValue, const R: usize>(
        &self,
        label: &str,
        dst: *mut T,
        map: &Mapping<R>,
        value: &T,
    ) -> Result<(), DeviceError> {
        let size = std::mem::size_of::<T>();
        let word = word_bytes::<T>();
        let span_bytes = map.span() * size;
        // Checked here so the kernel's View may span exactly these bytes.
        self.locate(address(dst), span_bytes)
            .map_err(|reason| self.refused(label, reason))?;
        let words = (size / word) as u64;
        let mut args = KernelArgs::new();
        let span_words = (span_bytes / word) as u64;
        args.view(address(dst), &[span_words], &[1], 0)
            .scalar(map.size() as u64)
            .scalar(words)
            .raw(&shape_bytes(map))
            .raw(&value_bytes(value));
        let entry = format!("granule_fill_u{}", 8 * word);
        let device = self.device();
        let module = device.compile(&unit(), "fill")?;
        let threads = (map.size() as u64).saturating_mul(words);
        let config = LaunchConfig {
            grid_dim: (grid(self, threads), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        self.make_room()?;
        self.issue(
            // SAFETY: the View argument spans the mapping's bytes, checked
            // above to lie in a live allocation of this space; the kernel
            // stores only at the mapping's offsets, through that View's
            // bounds checks, and the caller lends those elements uniquely.
            // The arguments are the entry's parameter types (`fill.cuh`),
            // which the device checks against the entry's table.
            |device| unsafe { device.launch(&module, &entry, &config, &args) },
            |launch| Dispatched {
                launch,
                label: label.to_string(),
                kernel: format!("fill kernel `{entry}`"),
                views: vec![label.to_string()],
            },
        )
    }

    fn refused(&self, label: &str, reason: String) -> DeviceError {
        DeviceError::InvalidLaunch {
            label: label.to_string(),
            entry: "granule_fill".into(),
            reason,
        }
    }
}

/// Blocks for `threads` threads of the fill's grid-stride loop: enough to
/// fill the device a few times over, at least one.
fn grid(space: &CudaSpace, threads: u64) -> u32 {
    let l = space.device().limits();
    let resident = u64::from(l.multiprocessor_count)
        * u64::from((l.max_threads_per_multiprocessor / BLOCK).max(1));
    let wanted = threads
        .div_ceil(u64::from(BLOCK))
        .clamp(1, 2 * resident.max(1));
    u32::try_from(wanted.min(u64::from(l.max_grid_dim.0))).unwrap_or(u32::MAX)
}

// SAFETY: the fill kernel stores `value`'s device bytes at exactly the
// mapping's offsets from `dst` (its View argument spans the mapping and is
// checked to lie in a live allocation of this space), queued on the
// device's stream like a dispatch: every later launch, copy and free of
// that memory through the space runs after it (the Device contract). An
// element too large for the kernel's value parameter is written through a
// host copy of the value instead, which writes the same elements.
unsafe impl<T: Element + DeviceValue> SpaceFill<T> for CudaSpace {
    unsafe fn fill_mapped<const R: usize>(
        &self,
        label: &str,
        dst: *mut T,
        map: &Mapping<R>,
        value: T,
    ) -> Result<(), String> {
        let size = std::mem::size_of::<T>();
        if size == 0 || map.size() == 0 {
            return Ok(());
        }
        if T::SIZE != size {
            return Err(format!(
                "its elements are {size} bytes on the host but {} on the device",
                T::SIZE
            ));
        }
        if size > MAX_VALUE_BYTES || R > MAX_RANK {
            // SAFETY: forwarded contract.
            return unsafe { fill_through_host(self, dst, map, value) };
        }
        // SAFETY: forwarded contract; sizes and rank checked above.
        unsafe { self.queue_fill(label, dst, map, &value) }.map_err(|e| e.to_string())
    }
}

/// Copies a host buffer of `value`s into the mapping: for elements the
/// kernel's value parameter cannot hold.
///
/// # Safety
/// As [`SpaceFill::fill_mapped`].
unsafe fn fill_through_host<T: Element, const R: usize>(
    space: &CudaSpace,
    dst: *mut T,
    map: &Mapping<R>,
    value: T,
) -> Result<(), String> {
    let from =
        Mapping::compact::<LayoutRight>("fill", *map.extents()).map_err(|e| e.to_string())?;
    let values = vec![value; from.size()];
    // SAFETY: `values` holds every offset of `from`, whose extents are
    // `map`'s; `dst` is valid for `map` (the caller's contract), and host
    // memory cannot overlap device memory.
    unsafe { space.copy_mapped(dst, map, &HostSpace, values.as_ptr(), &from) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shape_of_a_contiguous_mapping_is_rank_1() {
        let map = Mapping::compact::<LayoutRight>("m", [3, 4]).unwrap();
        let b = shape_bytes(&map);
        assert_eq!(b.len(), 8 * 17);
        let word = |k: usize| u64::from_ne_bytes(b[8 * k..8 * k + 8].try_into().unwrap());
        assert_eq!((word(0), word(1), word(9)), (1, 12, 1));
        let strided = Mapping::with_strides("s", [3, 4], [8, 2]).unwrap();
        let b = shape_bytes(&strided);
        let word = |k: usize| u64::from_ne_bytes(b[8 * k..8 * k + 8].try_into().unwrap());
        assert_eq!(
            (word(0), word(1), word(2), word(3), word(9), word(10)),
            (2, 3, 4, 1, 8, 2)
        );
    }

    #[test]
    fn words_follow_the_alignment() {
        assert_eq!(
            (word_bytes::<u8>(), word_bytes::<u16>(), word_bytes::<f32>()),
            (1, 2, 4)
        );
        assert_eq!((word_bytes::<f64>(), word_bytes::<u128>()), (8, 8));
    }

    #[test]
    fn the_unit_compiles_for_every_architecture() {
        if !crate::nvrtc::available_or_skip("the_unit_compiles_for_every_architecture") {
            return;
        }
        let u = unit();
        crate::nvrtc::check_everywhere(u.source(), "fill.cu", u.entries()).unwrap();
    }

    #[test]
    fn the_unit_compiles_its_four_entries_on_the_emulator() {
        let dev = crate::emu::EmuDevice::new().unwrap();
        let m = crate::device_api::Device::compile(&dev, &unit(), "fill").unwrap();
        assert_eq!(m.entries().len(), 4);
    }
}
