//! TeamPolicy on Cuda: a team is a block of `vector_length` x `team_size`
//! threads (vector lanes on `threadIdx.x`, team threads on `threadIdx.y`);
//! the league is walked by the grid. Scratch level 0 is dynamic shared
//! memory, level 1 global memory, both zeroed per team by the driver.

use super::range::reduce_tail;
use super::{grid_for, written, Launch};
use crate::codegen::Pattern;
use crate::device::reserved_smem;
use crate::device_api::LaunchConfig;
use crate::kernel::{DeviceFunctor, DeviceReduction, DeviceValue, DeviceWrites, KernelSource};
use crate::space::{Cuda, CudaSpace};
use granule_core::pattern::{ParallelForImpl, ParallelReduceImpl};
use granule_core::reducer::Reducer;
use granule_core::team::{LeagueIndex, TeamMember};
use granule_core::{Policy, TeamPolicy};

/// `x` rounded up to 16 bytes, as the device header's `round16`.
fn round16(x: u64) -> Option<u64> {
    Some(x.checked_add(15)? / 16 * 16)
}

/// One block's scratch at `level`: the team's region, then one region per
/// team thread, each 16-aligned (the header's `scratch_block_bytes`).
fn block_scratch(policy: &TeamPolicy<'_, Cuda>, level: usize) -> Option<u64> {
    let team = round16(policy.team_scratch_size(level) as u64)?;
    let thread = round16(policy.thread_scratch_size(level) as u64)?;
    team.checked_add(thread.checked_mul(policy.team_size() as u64)?)
}

/// Pushes the team head (league size, `TeamScratch`), allocating level-1
/// scratch, and gives the launch geometry. Every size is checked against
/// the device before anything runs.
fn team_head(l: &mut Launch<'_>, cuda: &Cuda, policy: &TeamPolicy<'_, Cuda>) -> LaunchConfig {
    let limits = cuda.device().limits();
    let (team, lanes) = (policy.team_size() as u64, policy.vector_length() as u64);
    if let (Some(why), 2..) = (l.kernel().one_lane, lanes) {
        l.fail(&format!(
            "the kernel's writes are race-free only with one vector lane per team thread \
             ({why}), but the policy has vector_length {lanes}: use vector_length 1, or \
             write that memory inside `single(PerThread(team), ..)` or a ThreadVectorRange \
             at its index"
        ));
    }
    let threads = team * lanes;
    if threads > u64::from(limits.max_threads_per_block) {
        l.fail(&format!(
            "a team of {team} threads x {lanes} vector lanes is {threads} threads, above the \
             device's {} per block",
            limits.max_threads_per_block
        ));
    }
    let scratch = [block_scratch(policy, 0), block_scratch(policy, 1)];
    let [Some(level0), Some(level1)] = scratch else {
        l.fail("the team scratch sizes overflow u64")
    };
    let shared = reserved_smem(threads) + level0;
    if shared > u64::from(limits.max_shared_mem_bytes) {
        l.fail(&format!(
            "scratch level 0 needs {level0} bytes per team ({} per team, {} per thread, for \
             {team} threads) plus {} reserved by the driver: {shared} bytes, above the \
             device's {} bytes of shared memory per block; move some to level 1",
            policy.team_scratch_size(0),
            policy.thread_scratch_size(0),
            reserved_smem(threads),
            limits.max_shared_mem_bytes
        ));
    }
    let league = policy.league_size() as u64;
    // One block per team, as a grid-stride driver over the league sees it.
    let grid = u64::from(grid_for(
        cuda,
        league.saturating_mul(threads),
        threads as u32,
    ));
    let level1_addr = if level1 == 0 {
        0
    } else {
        let Some(bytes) = grid
            .checked_mul(level1)
            .and_then(|b| usize::try_from(b).ok())
        else {
            l.fail("scratch level 1 for the whole grid overflows usize")
        };
        l.alloc_work(bytes)
    };
    l.head().scalar(league).team_scratch(
        [
            policy.team_scratch_size(0) as u64,
            policy.team_scratch_size(1) as u64,
        ],
        [
            policy.thread_scratch_size(0) as u64,
            policy.thread_scratch_size(1) as u64,
        ],
        level1_addr,
    );
    LaunchConfig {
        grid_dim: (grid as u32, 1, 1),
        block_dim: (lanes as u32, team as u32, 1),
        shared_mem_bytes: shared as u32,
    }
}

impl<W, F> ParallelForImpl<TeamPolicy<'_, Cuda>, W, F> for Cuda
where
    W: DeviceWrites<LeagueIndex, CudaSpace>,
    F: KernelSource
        + DeviceFunctor<CudaSpace, Index = TeamMember, Outputs = W::Outputs, Value = ()>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &TeamPolicy<'_, Cuda>,
        writes: W,
        f: &F,
    ) {
        let out = written(label, &writes, &policy.write_bound());
        if policy.league_size() == 0 {
            return;
        }
        let mut l = Launch::new(self, label, F::KERNEL, Pattern::Team, F::TYPES);
        let geometry = team_head(&mut l, self, policy);
        l.params(f.captures(), out);
        // SAFETY: (league, scratch, kernel parameters) is a team entry's
        // argument list; the shared memory is the reserved words plus one
        // team's level 0, and level 1 has grid x its block bytes.
        unsafe { l.run(&geometry) }
    }
}

impl<T, R, F> ParallelReduceImpl<TeamPolicy<'_, Cuda>, T, R, F> for Cuda
where
    T: DeviceValue,
    R: Reducer<T> + DeviceReduction,
    F: KernelSource + DeviceFunctor<CudaSpace, Index = TeamMember, Outputs = (), Value = T>,
{
    fn parallel_reduce_impl(
        &self,
        label: &str,
        policy: &TeamPolicy<'_, Cuda>,
        reducer: &R,
        f: &F,
    ) -> T {
        if policy.league_size() == 0 {
            return reducer.init();
        }
        let mut l = Launch::new(self, label, F::KERNEL, Pattern::Reduce(R::DEVICE), F::TYPES);
        let geometry = team_head(&mut l, self, policy);
        l.params(f.captures(), Vec::new());
        let result = reduce_tail::<T>(&mut l, geometry.grid_dim.0);
        // SAFETY: as for the team for, plus (partials, counter, result):
        // one T per block, a zero counter, one T.
        unsafe { l.run(&geometry) };
        l.read(result)
    }
}
