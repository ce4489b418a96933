//! MDRangePolicy on Cuda: the box is linearized (last index fastest) and
//! walked by a grid-stride loop, for `parallel_for` and `parallel_reduce`.

use super::range::reduce_tail;
use super::{config, grid_for, written, Launch, BLOCK};
use crate::codegen::Pattern;
use crate::kernel::{DeviceFunctor, DeviceReduction, DeviceValue, DeviceWrites, KernelSource};
use crate::space::{Cuda, CudaSpace};
use granule_core::pattern::{ParallelForImpl, ParallelReduceImpl};
use granule_core::reducer::Reducer;
use granule_core::{MDRangePolicy, Policy};

/// The `MdRange<R>` head.
fn md_head<const R: usize>(l: &mut Launch<'_>, policy: &MDRangePolicy<'_, Cuda, R>) {
    let lo: Vec<u64> = policy.lower().iter().map(|&x| x as u64).collect();
    let hi: Vec<u64> = policy.upper().iter().map(|&x| x as u64).collect();
    l.head().md_range(&lo, &hi);
}

impl<W, F, const R: usize> ParallelForImpl<MDRangePolicy<'_, Cuda, R>, W, F> for Cuda
where
    W: DeviceWrites<[usize; R], CudaSpace>,
    F: KernelSource + DeviceFunctor<CudaSpace>,
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
        md_head(&mut l, policy);
        l.params(f.captures(), out);
        let grid = grid_for(self, policy.size() as u64, BLOCK);
        // SAFETY: (range, kernel parameters) is an MDRange for-entry's
        // argument list; its grid-stride driver runs any geometry.
        unsafe { l.run(&config(grid, BLOCK, 0)) }
    }
}

impl<T, Rd, F, const R: usize> ParallelReduceImpl<MDRangePolicy<'_, Cuda, R>, T, Rd, F> for Cuda
where
    T: DeviceValue,
    Rd: Reducer<T> + DeviceReduction,
    F: KernelSource + DeviceFunctor<CudaSpace, Value = T>,
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
        md_head(&mut l, policy);
        l.params(f.captures(), Vec::new());
        let grid = grid_for(self, policy.size() as u64, BLOCK);
        let result = reduce_tail::<T>(&mut l, grid);
        // SAFETY: (range, kernel parameters, partials, counter, result),
        // as for the range reduce.
        unsafe { l.run(&config(grid, BLOCK, 0)) };
        l.read(result)
    }
}
