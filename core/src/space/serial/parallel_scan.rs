//! `parallel_scan` on Serial: one pass, every call final.

use super::Serial;
use crate::functor::ScanFunctor;
use crate::pattern::ParallelScanImpl;
use crate::policy::RangePolicy;
use crate::reducer::Reducer;
use crate::write::WriteParts;

impl<W, T, R, F> ParallelScanImpl<W, T, R, F> for Serial
where
    W: WriteParts<usize>,
    R: Reducer<T>,
    F: for<'a> ScanFunctor<usize, W::Item<'a>, T>,
{
    fn parallel_scan_impl(
        &self,
        _label: &str,
        policy: &RangePolicy<'_, Serial>,
        reducer: &R,
        writes: W,
        f: &F,
    ) -> T {
        let mut partial = reducer.init();
        // SAFETY: every `i` is below the checked bound and handed out once.
        unsafe {
            writes.for_each_item(policy.begin(), policy.end(), |i, item| {
                f.exec(i, item, &mut partial, true)
            })
        };
        partial
    }
}
