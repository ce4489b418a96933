//! RangePolicy on Cuda: `parallel_for` (a grid-stride loop),
//! `parallel_reduce` (block trees, then the last block folds the block
//! partials) and `parallel_scan` (one pass, decoupled look-back).

use super::{config, grid_for, written, Launch, BLOCK};
use crate::codegen::{reduce_workspace, scan_workspace, Pattern, CUDA_SCAN_TILE_THREADS};
use crate::kernel::{DeviceFunctor, DeviceReduction, DeviceValue, DeviceWrites, KernelSource};
use crate::space::{Cuda, CudaSpace};
use granule_core::pattern::{ParallelForImpl, ParallelReduceImpl, ParallelScanImpl};
use granule_core::reducer::Reducer;
use granule_core::{Policy, RangePolicy};

/// `begin, end`: the head of every range entry point. The drivers use
/// no other size of the range than `end - begin` (the policy has
/// `begin <= end`), and iterate offsets below it without wrapping, so a
/// range may end at `usize::MAX`.
fn range_head(l: &mut Launch<'_>, policy: &RangePolicy<'_, Cuda>) {
    l.head()
        .scalar(policy.begin() as u64)
        .scalar(policy.end() as u64);
}

impl<W, F> ParallelForImpl<RangePolicy<'_, Cuda>, W, F> for Cuda
where
    W: DeviceWrites<usize, CudaSpace>,
    F: KernelSource + DeviceFunctor<CudaSpace, Index = usize, Outputs = W::Outputs, Value = ()>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &RangePolicy<'_, Cuda>,
        writes: W,
        f: &F,
    ) {
        let out = written(label, &writes, &policy.write_bound());
        if policy.is_empty() {
            return;
        }
        let mut l = Launch::new(self, label, F::KERNEL, Pattern::For, F::TYPES);
        range_head(&mut l, policy);
        l.params(f.captures(), out);
        let grid = grid_for(self, policy.len() as u64, BLOCK);
        // SAFETY: (begin, end, kernel parameters) is a range for-entry's
        // argument list, and the grid-stride driver runs any geometry.
        unsafe { l.run(&config(grid, BLOCK, 0)) }
    }
}

impl<T, R, F> ParallelReduceImpl<RangePolicy<'_, Cuda>, T, R, F> for Cuda
where
    T: DeviceValue,
    R: Reducer<T> + DeviceReduction,
    F: KernelSource + DeviceFunctor<CudaSpace, Index = usize, Outputs = (), Value = T>,
{
    fn parallel_reduce_impl(
        &self,
        label: &str,
        policy: &RangePolicy<'_, Cuda>,
        reducer: &R,
        f: &F,
    ) -> T {
        if policy.is_empty() {
            return reducer.init();
        }
        let mut l = Launch::new(self, label, F::KERNEL, Pattern::Reduce(R::DEVICE), F::TYPES);
        range_head(&mut l, policy);
        l.params(f.captures(), Vec::new());
        let grid = grid_for(self, policy.len() as u64, BLOCK);
        let result = reduce_tail::<T>(&mut l, grid);
        // SAFETY: (begin, end, kernel parameters, partials, counter,
        // result): one T per block, a zero counter, one T.
        unsafe { l.run(&config(grid, BLOCK, 0)) };
        l.read(result)
    }
}

/// The reduce drivers' tail ([`reduce_workspace`]: one partial per block,
/// the zero counter of finished blocks, the result, whose address it
/// returns), sized by the device's `sizeof(T)`.
pub(super) fn reduce_tail<T: DeviceValue>(l: &mut Launch<'_>, grid: u32) -> u64 {
    let ws = reduce_workspace(grid, T::SIZE).unwrap_or_else(|e| l.fail(&e));
    l.workspaces(&ws.buffers)
}

impl<W, T, R, F> ParallelScanImpl<W, T, R, F> for Cuda
where
    W: DeviceWrites<usize, CudaSpace>,
    T: DeviceValue,
    R: Reducer<T> + DeviceReduction,
    F: KernelSource + DeviceFunctor<CudaSpace, Index = usize, Outputs = W::Outputs, Value = T>,
{
    unsafe fn parallel_scan_impl(
        &self,
        label: &str,
        policy: &RangePolicy<'_, Self>,
        reducer: &R,
        writes: W,
        f: &F,
    ) -> T {
        let out = written(label, &writes, &policy.write_bound());
        if policy.is_empty() {
            return reducer.init();
        }
        let mut l = Launch::new(self, label, F::KERNEL, Pattern::Scan(R::DEVICE), F::TYPES);
        range_head(&mut l, policy);
        l.params(f.captures(), out);
        // CUDA_SCAN_TILE_THREADS: the block the entry's launch bounds name.
        let ws = scan_workspace(
            policy.len() as u64,
            T::SIZE,
            T::ALIGN,
            CUDA_SCAN_TILE_THREADS,
        )
        .unwrap_or_else(|e| l.fail(&format!("the scan's workspace: {e}")));
        let result = l.workspaces(&ws.buffers);
        // SAFETY: (begin, end, kernel parameters, then the tail buffers of
        // `scan_workspace`, zeroed, the last being the result) and its
        // grid, block and dynamic shared memory, as drive_scan requires.
        unsafe { l.run(&config(ws.grid, ws.block, ws.shared_bytes)) };
        l.read(result)
    }
}
