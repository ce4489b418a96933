//! MDRange policies on Rayon: tiles cut by the shared host algorithms of
//! `granule_core::exec::host`, forked with rayon's `join`; reductions join
//! in the same fixed tree as Serial's.

use crate::space::Rayon;
use granule_core::exec::{host, Sequential};
use granule_core::functor::{ForFunctor, ReduceFunctor};
use granule_core::pattern::{ParallelForImpl, ParallelReduceImpl};
use granule_core::policy::MDRangePolicy;
use granule_core::reducer::Reducer;
use granule_core::write::WriteParts;

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
        self.dispatch(|| unsafe { host::mdrange_for(self.fork(), label, policy, writes, f) })
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
        self.dispatch(|| host::mdrange_reduce(self.fork(), policy, reducer, f))
    }
}
