//! Team policies on Serial: one team of one thread at a time, in league
//! order.

use super::Serial;
use crate::exec::{host, Sequential};
use crate::functor::{ForFunctor, ReduceFunctor};
use crate::pattern::{ParallelForImpl, ParallelReduceImpl};
use crate::policy::TeamPolicy;
use crate::reducer::Reducer;
use crate::team::{LeagueIndex, TeamMember};
use crate::write::WriteParts;

impl<W, F> ParallelForImpl<TeamPolicy<'_, Serial>, W, F> for Serial
where
    W: WriteParts<LeagueIndex>,
    F: for<'a> ForFunctor<&'a TeamMember, W::Item<'a>>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &TeamPolicy<'_, Serial>,
        writes: W,
        f: &F,
    ) {
        // SAFETY: forwarded contract; `writes` is owned by this call.
        unsafe { host::team_for(Sequential, label, policy, &writes, f) }
    }
}

impl<T: Send, R: Reducer<T>, F> ParallelReduceImpl<TeamPolicy<'_, Serial>, T, R, F> for Serial
where
    F: for<'a> ReduceFunctor<&'a TeamMember, T>,
{
    fn parallel_reduce_impl(
        &self,
        _label: &str,
        policy: &TeamPolicy<'_, Serial>,
        reducer: &R,
        f: &F,
    ) -> T {
        host::team_reduce(Sequential, policy, reducer, f)
    }
}
