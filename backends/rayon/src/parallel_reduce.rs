//! `parallel_reduce` on Rayon, for every policy: fixed blocks joined in a
//! fixed tree (the same as Serial's), so results are bitwise identical
//! for any thread count.

use crate::space::{Rayon, RayonFork};
use granule_core::exec::{block_count, host, range_block, Sequential};
use granule_core::functor::ReduceFunctor;
use granule_core::pattern::ParallelReduceImpl;
use granule_core::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
use granule_core::reducer::Reducer;
use granule_core::team::TeamMember;

impl<T: Send, R: Reducer<T>, F> ParallelReduceImpl<RangePolicy<'_, Rayon>, T, R, F> for Rayon
where
    F: ReduceFunctor<usize, T>,
{
    fn parallel_reduce_impl(
        &self,
        _label: &str,
        policy: &RangePolicy<'_, Rayon>,
        reducer: &R,
        f: &F,
    ) -> T {
        if self.inline(block_count(
            policy.len(),
            policy.chunk_or(range_block(policy.len())),
        )) {
            return host::range_reduce(Sequential, policy, reducer, f);
        }
        self.install(|| host::range_reduce(RayonFork, policy, reducer, f))
    }
}

impl<T: Send, R: Reducer<T>, F, const N: usize>
    ParallelReduceImpl<MDRangePolicy<'_, Rayon, N>, T, R, F> for Rayon
where
    F: ReduceFunctor<[usize; N], T>,
{
    fn parallel_reduce_impl(
        &self,
        _label: &str,
        policy: &MDRangePolicy<'_, Rayon, N>,
        reducer: &R,
        f: &F,
    ) -> T {
        if self.inline(policy.num_tiles()) {
            return host::mdrange_reduce(Sequential, policy, reducer, f);
        }
        self.install(|| host::mdrange_reduce(RayonFork, policy, reducer, f))
    }
}

impl<T: Send, R: Reducer<T>, F> ParallelReduceImpl<TeamPolicy<'_, Rayon>, T, R, F> for Rayon
where
    F: for<'a> ReduceFunctor<&'a TeamMember, T>,
{
    fn parallel_reduce_impl(
        &self,
        _label: &str,
        policy: &TeamPolicy<'_, Rayon>,
        reducer: &R,
        f: &F,
    ) -> T {
        if self.inline(policy.league_size()) {
            return host::team_reduce(Sequential, policy, reducer, f);
        }
        self.install(|| host::team_reduce(RayonFork, policy, reducer, f))
    }
}
