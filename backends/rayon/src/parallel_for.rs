//! `parallel_for` on Rayon, for every policy.

use crate::space::{Rayon, RayonFork};
use granule_core::exec::{block_count, host, Sequential, RANGE_BLOCK};
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
    fn parallel_for_impl(&self, _label: &str, policy: &RangePolicy<'_, Rayon>, writes: W, f: &F) {
        if self.inline(block_count(policy.len(), policy.chunk_or(RANGE_BLOCK))) {
            return host::range_for_leaf(policy.begin(), policy.end(), &writes, f);
        }
        let threads = self.inner.threads;
        self.install(|| host::range_for(RayonFork, threads, policy, &writes, f))
    }
}

impl<W, F, const R: usize> ParallelForImpl<MDRangePolicy<'_, Rayon, R>, W, F> for Rayon
where
    W: WriteParts<[usize; R]>,
    F: for<'a> ForFunctor<[usize; R], W::Item<'a>>,
{
    fn parallel_for_impl(
        &self,
        _label: &str,
        policy: &MDRangePolicy<'_, Rayon, R>,
        writes: W,
        f: &F,
    ) {
        if self.inline(policy.num_tiles()) {
            return host::mdrange_for(Sequential, policy, &writes, f);
        }
        self.install(|| host::mdrange_for(RayonFork, policy, &writes, f))
    }
}

impl<W, F> ParallelForImpl<TeamPolicy<'_, Rayon>, W, F> for Rayon
where
    W: WriteParts<LeagueIndex>,
    F: for<'a> ForFunctor<&'a TeamMember, W::Item<'a>>,
{
    fn parallel_for_impl(&self, _label: &str, policy: &TeamPolicy<'_, Rayon>, writes: W, f: &F) {
        if self.inline(policy.league_size()) {
            return host::team_for(Sequential, policy, &writes, f);
        }
        self.install(|| host::team_for(RayonFork, policy, &writes, f))
    }
}
