//! `parallel_for` on Rayon, for every policy.

use crate::space::{Rayon, RayonFork};
use granule_core::exec::{block_count, host, range_block, Sequential};
use granule_core::functor::ForFunctor;
use granule_core::pattern::ParallelForImpl;
use granule_core::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
use granule_core::team::{LeagueIndex, TeamMember};
use granule_core::write::WriteParts;

impl<W, F> ParallelForImpl<RangePolicy<'_, Rayon>, W, F> for Rayon
where
    W: WriteParts<usize>,
    F: for<'a> ForFunctor<usize, W::Item<'a>>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &RangePolicy<'_, Rayon>,
        writes: W,
        f: &F,
    ) {
        let writes = &writes;
        if self.inline(block_count(
            policy.len(),
            policy.chunk_or(range_block(policy.len())),
        )) {
            // SAFETY: forwarded contract; `writes` is owned by this call.
            return unsafe { host::range_for(Sequential, 1, label, policy, writes, f) };
        }
        let threads = self.inner.threads;
        // SAFETY: as above.
        self.install(|| unsafe { host::range_for(RayonFork, threads, label, policy, writes, f) })
    }
}

impl<W, F, const R: usize> ParallelForImpl<MDRangePolicy<'_, Rayon, R>, W, F> for Rayon
where
    W: WriteParts<[usize; R]>,
    F: for<'a> ForFunctor<[usize; R], W::Item<'a>>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &MDRangePolicy<'_, Rayon, R>,
        writes: W,
        f: &F,
    ) {
        let writes = &writes;
        if self.inline(policy.num_tiles()) {
            // SAFETY: forwarded contract; `writes` is owned by this call.
            return unsafe { host::mdrange_for(Sequential, label, policy, writes, f) };
        }
        // SAFETY: as above.
        self.install(|| unsafe { host::mdrange_for(RayonFork, label, policy, writes, f) })
    }
}

impl<W, F> ParallelForImpl<TeamPolicy<'_, Rayon>, W, F> for Rayon
where
    W: WriteParts<LeagueIndex>,
    F: for<'a> ForFunctor<&'a TeamMember, W::Item<'a>>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &TeamPolicy<'_, Rayon>,
        writes: W,
        f: &F,
    ) {
        let writes = &writes;
        if self.inline(policy.league_size()) {
            // SAFETY: forwarded contract; `writes` is owned by this call.
            return unsafe { host::team_for(Sequential, label, policy, writes, f) };
        }
        // SAFETY: as above.
        self.install(|| unsafe { host::team_for(RayonFork, label, policy, writes, f) })
    }
}
