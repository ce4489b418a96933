//! Range policies on Serial: the same blocks and combine tree as the
//! parallel host spaces, run in order; `parallel_scan` in one pass, every
//! call final.

use super::Serial;
use crate::exec::{host, Sequential};
use crate::functor::{ForFunctor, ReduceFunctor, ScanFunctor};
use crate::pattern::{ParallelForImpl, ParallelReduceImpl, ParallelScanImpl};
use crate::policy::{Policy, RangePolicy};
use crate::reducer::Reducer;
use crate::write::{assert_covers, WriteParts};

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
        unsafe { host::range_for(Sequential, label, policy, &writes, f) }
    }
}

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

impl<W, T, R, F> ParallelScanImpl<W, T, R, F> for Serial
where
    W: WriteParts<usize>,
    R: Reducer<T>,
    F: for<'a> ScanFunctor<usize, W::Item<'a>, T>,
{
    unsafe fn parallel_scan_impl(
        &self,
        label: &str,
        policy: &RangePolicy<'_, Serial>,
        reducer: &R,
        writes: W,
        f: &F,
    ) -> T {
        assert_covers(label, &writes, &policy.write_bound());
        let mut partial = reducer.init();
        // SAFETY: `writes` covers every `i` (checked above), each is handed
        // out once, and the caller lets nothing else use `writes`.
        unsafe {
            writes.for_each_item(policy.begin(), policy.end(), |i, item| {
                f.exec(i, item, &mut partial, true)
            })
        };
        partial
    }
}
