//! `parallel_for` on Serial, for every policy.

use super::Serial;
use crate::exec::{host, Sequential};
use crate::functor::ForFunctor;
use crate::pattern::ParallelForImpl;
use crate::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
use crate::team::{LeagueIndex, TeamMember};
use crate::write::WriteParts;

impl<W, F> ParallelForImpl<RangePolicy<'_, Serial>, W, F> for Serial
where
    W: WriteParts<usize>,
    F: for<'a> ForFunctor<usize, W::Item<'a>>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &RangePolicy<'_, Serial>,
        writes: W,
        f: &F,
    ) {
        // SAFETY: forwarded contract; `writes` is owned by this call.
        unsafe { host::range_for(Sequential, 1, label, policy, &writes, f) }
    }
}

impl<W, F, const R: usize> ParallelForImpl<MDRangePolicy<'_, Serial, R>, W, F> for Serial
where
    W: WriteParts<[usize; R]>,
    F: for<'a> ForFunctor<[usize; R], W::Item<'a>>,
{
    unsafe fn parallel_for_impl(
        &self,
        label: &str,
        policy: &MDRangePolicy<'_, Serial, R>,
        writes: W,
        f: &F,
    ) {
        // SAFETY: forwarded contract; `writes` is owned by this call.
        unsafe { host::mdrange_for(Sequential, label, policy, &writes, f) }
    }
}

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
