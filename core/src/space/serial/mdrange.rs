//! MDRange policies on Serial: the tiles of the parallel host spaces, run
//! in order.

use super::Serial;
use crate::exec::{host, Sequential};
use crate::functor::{ForFunctor, ReduceFunctor};
use crate::pattern::{ParallelForImpl, ParallelReduceImpl};
use crate::policy::MDRangePolicy;
use crate::reducer::Reducer;
use crate::write::WriteParts;

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
