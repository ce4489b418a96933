//! What a reduce or scan launch needs besides the kernel's own arguments:
//! the zeroed buffers of the entry point's tail parameters, in their
//! order, and the scan's geometry. The tail parameters' C++ text is
//! written here too ([`scan_tail`], [`reduce_tail`]), so that the order
//! the entry declares and the order of the sizes are read side by side.

/// The CUDA limit on `gridDim.x`.
const MAX_GRID: u64 = (1 << 31) - 1;

/// Threads per block of the range scan driver. Its entry point's
/// `__launch_bounds__` name this count, so a launch with more threads
/// would fail on a GPU.
pub const CUDA_SCAN_TILE_THREADS: u32 = 256;

/// Items each thread scans per tile for elements of `elem_size` bytes:
/// 16 for elements of up to 4 bytes, 8 for 8-byte ones, else 32 bytes of
/// values per thread (at least 1). This is the device header's
/// `granule::scan_items`, which fixes the tile size the driver uses; the
/// emulator tests compare the two.
///
/// ```
/// use granule_cuda::codegen::scan_items;
/// assert_eq!([1, 4, 8, 16, 24, 64].map(scan_items), [16, 16, 8, 2, 1, 1]);
/// ```
pub fn scan_items(elem_size: usize) -> u32 {
    match elem_size {
        0..=4 => 16,
        8 => 8,
        // At most 2, so the cast is exact.
        _ => (32 / elem_size).max(1) as u32,
    }
}

/// The shared-memory slots a tile of `elems` elements takes at
/// `scan.cuh`'s `scan_slot` positions (one pad slot per 32, which
/// keeps a warp's threads on distinct banks): `scan_slot(elems)`. The
/// scan drivers and the compaction driver size their dynamic shared
/// memory with it.
///
/// ```
/// assert_eq!(granule_cuda::codegen::scan_slots(8192), 8448);
/// ```
pub fn scan_slots(elems: u64) -> u64 {
    elems + elems / 32
}

/// Whether the scan driver publishes a tile's value in the same 64-bit
/// word as its state (values of up to 4 bytes) rather than in the
/// separate `values` buffer.
fn packs_status(elem_size: usize) -> bool {
    elem_size <= 4
}

/// What a scan launch needs besides the kernel's own arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanWorkspace {
    /// Byte size of each zeroed tail buffer, in the entry point's
    /// tail-parameter order (`scan_tail`): the tile states (a u64 per
    /// tile), the tile values (two elements per tile, or 0 bytes when
    /// elements of up to 4 bytes travel in the state word: the driver does
    /// not touch it then, so any pointer, null included, will do), the tile
    /// counter (one u32) and the result (one element).
    pub buffers: Vec<usize>,
    /// Threads per block (1-D).
    pub block: u32,
    /// Blocks. Any grid works (blocks claim tiles until none are left);
    /// this one gives each tile its own block, up to CUDA's grid limit.
    pub grid: u32,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Tiles the range is cut into (`block * scan_items(elem_size)`
    /// indices each, or `block * items` from [`scan_workspace_with`]).
    pub tiles: u64,
}

/// The workspace of a scan of `n` indices of elements of `elem_size`
/// bytes aligned to `elem_align`, with blocks of `block` threads.
///
/// Errors: a block that is not a multiple of 32 in 32..=1024 (the
/// look-back uses whole warps), an element of 0 bytes or whose alignment
/// is not a power of two dividing its size and at most 16 (the tile
/// buffer in shared memory is 16-aligned), more tiles than the u32 tile
/// counter can hand out, and any size that overflows.
///
/// ```
/// use granule_cuda::codegen::scan_workspace;
/// let w = scan_workspace(1 << 20, 4, 4, 256).unwrap();
/// assert_eq!((w.tiles, w.grid, w.block), (256, 256, 256));
/// assert_eq!(w.buffers, [256 * 8, 0, 4, 4]);
/// assert_eq!(w.shared_bytes, (4096 + 128) * 4);
/// let w = scan_workspace(1000, 8, 8, 32).unwrap();
/// assert_eq!((w.tiles, w.buffers.clone()), (4, vec![4 * 8, 4 * 2 * 8, 4, 8]));
/// assert!(scan_workspace(10, 4, 4, 48).is_err());
/// ```
pub fn scan_workspace(
    n: u64,
    elem_size: usize,
    elem_align: usize,
    block: u32,
) -> Result<ScanWorkspace, String> {
    scan_workspace_with(n, elem_size, elem_align, block, scan_items(elem_size))
}

/// [`scan_workspace`] for a driver whose threads take `items` indices of
/// each tile (granule-algorithms' array scan driver takes 32 of 4-byte
/// values, for example), with the same buffers and the same shared
/// memory per tile index.
///
/// ```
/// use granule_cuda::codegen::scan_workspace_with;
/// let w = scan_workspace_with(1 << 20, 4, 4, 256, 32).unwrap();
/// assert_eq!((w.tiles, w.grid), (128, 128));
/// assert_eq!(w.shared_bytes, (8192 + 256) * 4);
/// assert!(scan_workspace_with(1 << 20, 4, 4, 256, 0).is_err());
/// ```
pub fn scan_workspace_with(
    n: u64,
    elem_size: usize,
    elem_align: usize,
    block: u32,
    items: u32,
) -> Result<ScanWorkspace, String> {
    if items == 0 {
        return Err("a scan tile of 0 items per thread".into());
    }
    if block == 0 || !block.is_multiple_of(32) || block > 1024 {
        return Err(format!(
            "a scan block has a multiple of 32 threads up to 1024, not {block}"
        ));
    }
    if elem_size == 0 {
        return Err("a scan of zero-sized elements".into());
    }
    if !elem_align.is_power_of_two() || !elem_size.is_multiple_of(elem_align) || elem_align > 16 {
        return Err(format!(
            "a scan element of {elem_size} bytes aligned to {elem_align}: the alignment must be a power of two dividing the size, at most 16"
        ));
    }
    let overflow =
        |what: &str| format!("a scan of {n} elements of {elem_size} bytes: the {what} overflows");
    let per_tile = u64::from(block) * u64::from(items);
    let tiles = n.div_ceil(per_tile);
    let grid = tiles.clamp(1, MAX_GRID);
    // Blocks that run out of tiles take one more number each.
    if tiles
        .checked_add(grid)
        .is_none_or(|top| top > u64::from(u32::MAX))
    {
        return Err(format!(
            "a scan of {n} elements needs {tiles} tiles, which overflows its u32 tile counter"
        ));
    }
    let tiles_usize = usize::try_from(tiles).map_err(|_| overflow("tile count"))?;
    let states = tiles_usize
        .checked_mul(8)
        .ok_or_else(|| overflow("tile state buffer"))?;
    let values = if packs_status(elem_size) {
        0
    } else {
        tiles_usize
            .checked_mul(2)
            .and_then(|v| v.checked_mul(elem_size))
            .ok_or_else(|| overflow("tile value buffer"))?
    };
    let shared = scan_slots(per_tile)
        .checked_mul(elem_size as u64)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| overflow("shared tile buffer"))?;
    Ok(ScanWorkspace {
        buffers: vec![states, values, 4, elem_size],
        block,
        grid: grid as u32,
        shared_bytes: shared,
        tiles,
    })
}

/// The scan entry's tail parameters over accumulator C++ type `t`, in the
/// order of [`ScanWorkspace::buffers`].
pub(super) fn scan_tail(t: &str) -> String {
    format!("granule::u64* status__, {t}* values__, granule::u32* tiles__, {t}* result__")
}

/// What a reduction launch needs besides the kernel's own arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceWorkspace {
    /// Byte size of each zeroed tail buffer, in the entry point's
    /// tail-parameter order (`reduce_tail`): one partial per block, the
    /// counter of finished blocks (one u32, back to 0 after the launch)
    /// and the result (one element).
    pub buffers: Vec<usize>,
}

/// The workspace of a reduction over `grid` blocks of elements of
/// `elem_size` bytes (`granule::finish_reduce`).
///
/// ```
/// use granule_cuda::codegen::reduce_workspace;
/// assert_eq!(reduce_workspace(64, 8).unwrap().buffers, [512, 4, 8]);
/// assert!(reduce_workspace(0, 8).is_err());
/// ```
pub fn reduce_workspace(grid: u32, elem_size: usize) -> Result<ReduceWorkspace, String> {
    if grid == 0 || elem_size == 0 {
        return Err(format!(
            "a reduction over {grid} blocks of {elem_size}-byte elements"
        ));
    }
    let partials = (grid as usize)
        .checked_mul(elem_size)
        .ok_or_else(|| format!("{grid} partials of {elem_size} bytes overflow"))?;
    Ok(ReduceWorkspace {
        buffers: vec![partials, 4, elem_size],
    })
}

/// The reduce entry's tail parameters over accumulator C++ type `t`, in
/// the order of [`ReduceWorkspace::buffers`].
pub(super) fn reduce_tail(t: &str) -> String {
    format!("{t}* partials__, granule::u32* counter__, {t}* result__")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_sizes_follow_the_tiles() {
        for (n, size, block, tiles) in [
            (0u64, 4usize, 32u32, 0u64),
            (1, 4, 32, 1),
            (512, 4, 32, 1),
            (513, 4, 32, 2),
            (1000, 16, 64, 8),
            (1000, 48, 64, 16),
        ] {
            let w = scan_workspace(n, size, size.min(8), block).unwrap();
            assert_eq!(w.tiles, tiles, "n {n}, size {size}");
            assert_eq!(w.grid as u64, tiles.max(1));
            assert_eq!(w.buffers[0], 8 * tiles as usize);
            assert_eq!(
                w.buffers[1],
                if size <= 4 {
                    0
                } else {
                    2 * size * tiles as usize
                }
            );
            assert_eq!(&w.buffers[2..], &[4, size]);
        }
    }

    #[test]
    fn scan_refuses_what_the_driver_cannot_run() {
        assert!(scan_workspace(1, 4, 4, 0).is_err());
        assert!(scan_workspace(1, 4, 4, 2048).is_err());
        assert!(scan_workspace(1, 0, 1, 32).is_err());
        assert!(scan_workspace(1, 12, 8, 32).is_err());
        assert!(scan_workspace(1, 64, 32, 32).is_err());
        // 2^32 tiles of 512 u32s: the tile counter would wrap.
        let e = scan_workspace(1 << 41, 4, 4, 32).unwrap_err();
        assert!(e.contains("tile counter"), "{e}");
        assert!(scan_workspace(u64::MAX, 4, 4, 32).is_err());
        // The largest count that fits still works, with a capped grid.
        let w = scan_workspace(512 * ((1u64 << 31) - 1), 4, 4, 32).unwrap();
        assert_eq!(w.grid, (1 << 31) - 1);
    }

    #[test]
    fn reduce_sizes_overflow_into_errors() {
        assert!(reduce_workspace(u32::MAX, usize::MAX / 2).is_err());
        assert_eq!(reduce_workspace(3, 24).unwrap().buffers, [72, 4, 24]);
    }
}
