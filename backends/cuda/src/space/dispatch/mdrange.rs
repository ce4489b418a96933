//! MDRangePolicy on Cuda: tiles become blocks, for `parallel_for` and
//! `parallel_reduce`.

use super::range::reduce_tail;
use super::{config, grid_for, written, Launch, BLOCK};
use crate::codegen::Pattern;
use crate::device_api::LaunchConfig;
use crate::kernel::{DeviceFunctor, DeviceReduction, DeviceValue, DeviceWrites, KernelSource};
use crate::space::{Cuda, CudaSpace};
use granule_core::pattern::{ParallelForImpl, ParallelReduceImpl};
use granule_core::policy::Iterate;
use granule_core::reducer::Reducer;
use granule_core::{MDRangePolicy, Policy};

/// The `MdRange<R>` head, and the launch: one block per tile (grid-stride
/// past what the device holds at once), threads striding over the tile.
fn md_head<const R: usize>(
    l: &mut Launch<'_>,
    cuda: &Cuda,
    policy: &MDRangePolicy<'_, Cuda, R>,
) -> LaunchConfig {
    let words = |a: [usize; R]| a.iter().map(|&x| x as u64).collect::<Vec<u64>>();
    let left = |i: Iterate| i == Iterate::Left;
    l.head().md_range(
        &words(policy.lower()),
        &words(policy.upper()),
        &words(policy.tile_extents()),
        left(policy.outer()),
        left(policy.inner()),
    );
    let (tiles, per_tile) = md_sizes(policy).unwrap_or_else(|what| l.fail(&what));
    // A multiple of the warp, at most BLOCK: small tiles get small blocks.
    let block = per_tile.div_ceil(32).clamp(1, u64::from(BLOCK / 32)) as u32 * 32;
    let grid = grid_for(cuda, tiles.saturating_mul(u64::from(block)), block);
    config(grid, block, 0)
}

/// The sizes `drive_md_for` computes on the device, checked here first:
/// the number of tiles and the indices of the largest tile clipped to the
/// box (the device walks clipped tiles, so a tile extent up to
/// `usize::MAX` costs nothing). Both are at most the box's size, which
/// `MDRangePolicy` checked fits; an overflow names the policy.
fn md_sizes<const R: usize>(policy: &MDRangePolicy<'_, Cuda, R>) -> Result<(u64, u64), String> {
    let (lo, hi, tile) = (policy.lower(), policy.upper(), policy.tile_extents());
    let fail = |what: &str| format!("MDRangePolicy {lo:?}..{hi:?} with tiles {tile:?}: {what}");
    let overflow = |what: &str| fail(&format!("the {what} overflows u64"));
    let (mut tiles, mut per_tile) = (1u64, 1u64);
    for r in 0..R {
        let e = hi[r].checked_sub(lo[r]).ok_or_else(|| {
            fail(&format!(
                "rank {r} has its lower bound above its upper bound"
            ))
        })? as u64;
        let t = tile[r] as u64;
        if t == 0 {
            return Err(fail(&format!("rank {r} has a tile of extent 0")));
        }
        let count = e.div_ceil(t);
        tiles = tiles
            .checked_mul(count)
            .ok_or_else(|| overflow("number of tiles"))?;
        per_tile = per_tile
            .checked_mul(t.min(e))
            .ok_or_else(|| overflow("size of a tile clipped to the box"))?;
    }
    Ok((tiles, per_tile))
}

impl<W, F, const R: usize> ParallelForImpl<MDRangePolicy<'_, Cuda, R>, W, F> for Cuda
where
    W: DeviceWrites<[usize; R], CudaSpace>,
    F: KernelSource
        + DeviceFunctor<CudaSpace, Index = [usize; R], Outputs = W::Outputs, Value = ()>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &MDRangePolicy<'_, Cuda, R>,
        writes: W,
        f: &F,
    ) {
        let out = written(label, &writes, &policy.write_bound());
        if policy.size() == 0 {
            return;
        }
        let mut l = Launch::new(self, label, F::KERNEL, Pattern::For, F::TYPES);
        let geometry = md_head(&mut l, self, policy);
        l.params(f.captures(), out);
        // SAFETY: (range, kernel parameters) is an MDRange for-entry's
        // argument list; its tile-stride driver runs any geometry.
        unsafe { l.run(&geometry) }
    }
}

impl<T, Rd, F, const R: usize> ParallelReduceImpl<MDRangePolicy<'_, Cuda, R>, T, Rd, F> for Cuda
where
    T: DeviceValue,
    Rd: Reducer<T> + DeviceReduction,
    F: KernelSource + DeviceFunctor<CudaSpace, Index = [usize; R], Outputs = (), Value = T>,
{
    fn parallel_reduce_impl(
        &self,
        label: &str,
        policy: &MDRangePolicy<'_, Cuda, R>,
        reducer: &Rd,
        f: &F,
    ) -> T {
        if policy.size() == 0 {
            return reducer.init();
        }
        let mut l = Launch::new(
            self,
            label,
            F::KERNEL,
            Pattern::Reduce(Rd::DEVICE),
            F::TYPES,
        );
        let geometry = md_head(&mut l, self, policy);
        l.params(f.captures(), Vec::new());
        let result = reduce_tail::<T>(&mut l, geometry.grid_dim.0);
        // SAFETY: (range, kernel parameters, partials, counter, result),
        // as for the range reduce.
        unsafe { l.run(&geometry) };
        l.read(result)
    }
}
