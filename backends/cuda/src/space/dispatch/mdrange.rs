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
    let per_tile = policy
        .tile_extents()
        .iter()
        .try_fold(1u64, |a, &t| a.checked_mul(t as u64))
        .unwrap_or_else(|| {
            l.fail(&format!(
                "tiles of {:?} indices overflow u64",
                policy.tile_extents()
            ))
        });
    // A multiple of the warp, at most BLOCK: small tiles get small blocks.
    let block = per_tile.div_ceil(32).clamp(1, u64::from(BLOCK / 32)) as u32 * 32;
    let threads = (policy.num_tiles() as u64).saturating_mul(u64::from(block));
    let grid = grid_for(cuda, threads, block);
    config(grid, block, 0)
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
