//! Team policies on Rayon: a team runs on one worker (as in
//! Kokkos::Serial, the team size is 1); teams are spread over the workers
//! by work stealing, and each worker lends its reusable scratch arena to
//! the teams it runs.

use crate::space::Rayon;
use granule_core::exec::{host, Sequential};
use granule_core::functor::{ForFunctor, ReduceFunctor};
use granule_core::pattern::{ParallelForImpl, ParallelReduceImpl};
use granule_core::policy::TeamPolicy;
use granule_core::reducer::Reducer;
use granule_core::team::{LeagueIndex, TeamMember};
use granule_core::write::WriteParts;

/// The largest (and recommended) team size on Rayon.
pub(crate) const TEAM_SIZE_MAX: usize = 1;

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
        self.dispatch(|| unsafe { host::team_for(self.fork(), label, policy, writes, f) })
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
        self.dispatch(|| host::team_reduce(self.fork(), policy, reducer, f))
    }
}
