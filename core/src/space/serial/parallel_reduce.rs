//! `parallel_reduce` on Serial, for every policy: the same blocks and
//! combine tree as the parallel host spaces, run in order.

use super::Serial;
use crate::exec::{host, Sequential};
use crate::functor::ReduceFunctor;
use crate::pattern::ParallelReduceImpl;
use crate::policy::{MDRangePolicy, RangePolicy, TeamPolicy};
use crate::reducer::Reducer;
use crate::team::TeamMember;

impl<T: Send, R: Reducer<T>, F> ParallelReduceImpl<RangePolicy<'_, Serial>, T, R, F> for Serial
where
    F: ReduceFunctor<usize, T>,
{
    fn parallel_reduce_impl(
        &self,
        _label: &str,
        policy: &RangePolicy<'_, Serial>,
        reducer: &R,
        f: &F,
    ) -> T {
        host::range_reduce(Sequential, policy, reducer, f)
    }
}

impl<T: Send, R: Reducer<T>, F, const N: usize>
    ParallelReduceImpl<MDRangePolicy<'_, Serial, N>, T, R, F> for Serial
where
    F: ReduceFunctor<[usize; N], T>,
{
    fn parallel_reduce_impl(
        &self,
        _label: &str,
        policy: &MDRangePolicy<'_, Serial, N>,
        reducer: &R,
        f: &F,
    ) -> T {
        host::mdrange_reduce(Sequential, policy, reducer, f)
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
