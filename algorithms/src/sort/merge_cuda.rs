//! The comparison sort on Cuda (`merge.cuh`): one launch sorts each tile
//! in shared memory, then one launch per doubling of the sorted runs
//! merges them pairwise, between two temporary buffers of its own; the
//! keys are copied into the first at the start and back into the View at
//! the end, so the View is written once, after every comparison.
//! Stable, with the user's `#[kernel(binary)]` comparator.

use super::MergeSortImpl;
use crate::device::{
    config, element_use, grid_for, instance, launch, output_arg, tiles, DeviceElement,
};
use crate::io::Output;
use crate::AlgorithmError;
use granule_cuda::codegen::driver::{DeviceDriver, DriverParam, DriverParamKind as K};
use granule_cuda::kernel::{DeviceElementFn, ViewArg};
use granule_cuda::{Cuda, CudaSpace};
use granule_views::{LayoutRight, View1};

/// Threads per block and elements per thread of the tile sort:
/// MERGE_BLOCK, MERGE_ITEMS of merge.cuh.
const BLOCK: u32 = 256;
const ITEMS: u64 = 4;

/// Threads per block of the merge passes.
const MERGE_BLOCK: u32 = 256;

/// Output places per thread of the merge passes: MERGE_RUN_ITEMS of
/// merge.cuh (any grid is correct; this one has a thread per chunk).
const RUN_ITEMS: usize = 8;

const SOURCE: &str = include_str!("merge.cuh");

// SAFETY: `merge_tiles` reads and writes data(i) for i < n (the View's
// length) within each block's own tiles, through shared memory of
// 2 * MERGE_TILE elements (`smem`, checked on the device) with
// MERGE_BLOCK threads (checked); the comparator only reads.
static SORT_TILES: DeviceDriver = unsafe {
    DeviceDriver::new(
        "merge_sort_tiles",
        &["T"],
        None,
        &[
            DriverParam {
                name: "n",
                kind: K::Scalar,
                cpp: "granule::u64",
            },
            DriverParam {
                name: "smem",
                kind: K::Scalar,
                cpp: "granule::u64",
            },
            DriverParam {
                name: "data",
                kind: K::Output,
                cpp: "T",
            },
        ],
        &[2],
        SOURCE,
        "granule_algo::merge_tiles<T>(n, smem, data, f0);",
    )
};

// SAFETY: `merge_runs` reads src(i) for i < n and writes each place of
// dst below n once, by one thread (both Views of n elements, distinct
// memory); any 1-D geometry.
static MERGE_RUNS: DeviceDriver = unsafe {
    DeviceDriver::new(
        "merge_runs",
        &["T"],
        None,
        &[
            DriverParam {
                name: "n",
                kind: K::Scalar,
                cpp: "granule::u64",
            },
            DriverParam {
                name: "width",
                kind: K::Scalar,
                cpp: "granule::u64",
            },
            DriverParam {
                name: "src",
                kind: K::Input,
                cpp: "T",
            },
            DriverParam {
                name: "dst",
                kind: K::Output,
                cpp: "T",
            },
        ],
        &[2],
        SOURCE,
        "granule_algo::merge_runs<T>(n, width, src, dst, f0);",
    )
};

impl<T, C> MergeSortImpl<T, C> for Cuda
where
    T: DeviceElement,
    C: DeviceElementFn<CudaSpace, Args = (T, T), Output = bool>,
{
    fn merge_sort(
        &self,
        label: &str,
        data: Output<'_, T, CudaSpace>,
        less: &C,
    ) -> Result<(), AlgorithmError> {
        let n = data.len();
        if n < 2 {
            return Ok(());
        }
        let data = output_arg(&data);
        // The sort works in two buffers of its own and writes the View
        // once, at the end: a comparator that fails on the device (a
        // panic is a trap there) stops the launches after it, the last
        // copy among them, so the View keeps its elements, as on the host.
        let buffer = || {
            View1::<T, LayoutRight, CudaSpace>::zeros_in(
                self.memory_space(),
                "merge sort (temporary)",
                n,
            )
        };
        // Both live to the end of the call, past the launches queued on them
        // (a dropped device View's memory is reused behind them).
        let (mut first, mut second) = (buffer()?, buffer()?);
        let arg = |v: &mut View1<T, LayoutRight, CudaSpace>| {
            let (address, len) = (v.as_mut_ptr() as usize, v.extent(0));
            ViewArg::of::<T>("merge sort (temporary)", address, &[len], &[1])
        };
        let (a, b) = (arg(&mut first), arg(&mut second));
        // A merge of runs as long as the View is a copy.
        let copy = n as u64;
        merge_runs::<T, C>(self, label, (n, copy), (data.clone(), a.clone()), less);
        sort_tiles::<T, C>(self, label, n, a.clone(), less);
        // Runs double from one tile until one run holds every element.
        let (mut from, mut to) = (a, b);
        let mut width = u64::from(BLOCK) * ITEMS;
        while width < n as u64 {
            merge_runs::<T, C>(self, label, (n, width), (from.clone(), to.clone()), less);
            std::mem::swap(&mut from, &mut to);
            width = width.saturating_mul(2);
        }
        merge_runs::<T, C>(self, label, (n, copy), (from, data), less);
        Ok(())
    }
}

/// Sorts each tile of `data` in place.
fn sort_tiles<T: DeviceElement, C>(cuda: &Cuda, label: &str, n: usize, data: ViewArg<'_>, less: &C)
where
    C: DeviceElementFn<CudaSpace, Args = (T, T), Output = bool>,
{
    let mut inst = instance(&SORT_TILES, vec![T::CPP], None);
    inst.functions = vec![element_use::<C>()];
    let mut l = launch(cuda, label, inst);
    let tile = u64::from(BLOCK) * ITEMS;
    let shared = 2 * tile * T::SIZE as u64;
    l.scalar(n as u64).scalar(shared);
    // SAFETY: `data` is the call's uniquely borrowed View of n `T`s.
    unsafe { l.output(data) };
    l.function(less);
    // SAFETY: MERGE_BLOCK threads and two tiles of shared memory, as
    // merge_tiles checks; no workspace.
    unsafe { l.run(&config(tiles(n, tile), BLOCK, shared)) };
}

/// Merges the sorted runs of `width` of `src` pairwise into `dst`.
fn merge_runs<T: DeviceElement, C>(
    cuda: &Cuda,
    label: &str,
    (n, width): (usize, u64),
    (src, dst): (ViewArg<'_>, ViewArg<'_>),
    less: &C,
) where
    C: DeviceElementFn<CudaSpace, Args = (T, T), Output = bool>,
{
    let mut inst = instance(&MERGE_RUNS, vec![T::CPP], None);
    inst.functions = vec![element_use::<C>()];
    let mut l = launch(cuda, label, inst);
    l.scalar(n as u64).scalar(width);
    // SAFETY: the caller's uniquely borrowed View and this sort's
    // temporary one: distinct memory of n `T`s each.
    unsafe { l.input(src).output(dst) };
    l.function(less);
    // SAFETY: no workspace, any geometry.
    unsafe {
        l.run(&config(
            u64::from(grid_for(cuda, n.div_ceil(RUN_ITEMS), MERGE_BLOCK)),
            MERGE_BLOCK,
            0,
        ))
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::nvrtc_check::{before, compiles_everywhere, resource_table, Launched};
    use granule_cuda::codegen::driver::DriverInstance;

    fn merge_instances() -> Vec<DriverInstance> {
        [&SORT_TILES, &MERGE_RUNS]
            .into_iter()
            .flat_map(|d| {
                [
                    (vec!["granule::u64"], element_use::<before<'static, u64>>()),
                    (vec!["granule::f32"], element_use::<before<'static, f32>>()),
                ]
                .map(|(types, f)| {
                    let mut inst = instance(d, types, None);
                    inst.functions = vec![f];
                    inst
                })
            })
            .collect()
    }

    #[test]
    fn the_merge_sort_drivers_compile_for_gpus() {
        compiles_everywhere("merge.cu", &merge_instances());
    }

    /// No spill budget: a comparison sort is the fallback for keys the
    /// radix sort does not take, not one of the drivers tuned for speed.
    #[test]
    fn gpu_resources_of_the_merge_sort_drivers() {
        let tile = u64::from(BLOCK) * ITEMS;
        let rows: Vec<Launched> = merge_instances()
            .into_iter()
            .zip([8, 4, 8, 4])
            .enumerate()
            .map(|(k, (inst, size))| Launched {
                inst,
                threads: if k < 2 { BLOCK } else { MERGE_BLOCK },
                shared: if k < 2 { 2 * tile * size } else { 0 },
            })
            .collect();
        resource_table("merge.cu", &rows, false);
    }
}
