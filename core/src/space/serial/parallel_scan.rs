//! `parallel_scan` on Serial: one pass, every call final.

use super::Serial;
use crate::functor::ScanFunctor;
use crate::pattern::ParallelScanImpl;
use crate::policy::{Policy, RangePolicy};
use crate::reducer::Reducer;
use crate::write::{assert_covers, WriteParts};

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
