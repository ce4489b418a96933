//! `parallel_scan`.

use crate::policy::{Policy, RangePolicy};
use crate::profiling::{begin_kernel, KernelKind};
use crate::reducer::{Reducer, ReductionIdentity, Sum};
use crate::space::ExecutionSpace;
use crate::write::Writes;
use std::ops::AddAssign;

/// How an execution space runs `parallel_scan` over a range, with write
/// parts `W`, values `T` combined by `R`, and functor `F`.
///
/// # Implementing
/// As for [`ParallelForImpl`](super::ParallelForImpl): check that `writes`
/// [covers](crate::write::WriteParts::covers) the policy before handing out any item, give
/// each index its items from one thread at a time, keep nothing past the
/// return, and unwind a functor's panic only after every worker stopped
/// (a look-back must not wait forever on a block whose owner panicked).
pub trait ParallelScanImpl<W, T, R, F>: ExecutionSpace {
    /// Calls the functor with the Kokkos scan contract (exactly one final
    /// call per index, whose `partial` is the exclusive prefix) and
    /// returns the total: the value after the last index.
    ///
    /// # Safety
    /// Nothing else uses `writes` (or the memory it reaches) during the call.
    unsafe fn parallel_scan_impl(
        &self,
        label: &str,
        policy: &RangePolicy<'_, Self>,
        reducer: &R,
        writes: W,
        functor: &F,
    ) -> T;
}

/// A prefix sum with the Kokkos contract: `functor(i, owned, partial,
/// is_final)` adds index `i`'s contribution to `partial`; when `is_final`
/// is true, `partial` is the exclusive prefix (of every index before `i`,
/// joined in the space's fixed grouping, so float bits may differ between
/// spaces but not between runs) and the functor writes
/// its outputs. Inclusive or exclusive is the functor's choice (write
/// before or after adding). Calls with `is_final == false` must not have
/// side effects. Returns the total.
///
/// ```
/// use granule_core::prelude::*;
/// let a = View1::<i64>::from_fn("a", 5, |i| i as i64 + 1).unwrap();
/// let mut ex = View1::<i64>::zeros("ex", 5).unwrap();
/// let total = parallel_scan("prefix", RangePolicy::new(&Serial, 0..5), &mut ex,
///     |i, ex_i: &mut i64, partial: &mut i64, last: bool| {
///         let v = a[i];
///         if last { *ex_i = *partial; }
///         *partial += v;
///     });
/// assert_eq!(ex.to_vec(), vec![0, 1, 3, 6, 10]);
/// assert_eq!(total, 15);
/// ```
#[track_caller]
pub fn parallel_scan<'s, S, W, T, F>(
    label: &str,
    policy: RangePolicy<'s, S>,
    writes: W,
    functor: F,
) -> T
where
    S: ExecutionSpace + ParallelScanImpl<W::Parts, T, Sum, F>,
    W: Writes<usize>,
    T: Copy + Send + Sync + ReductionIdentity + AddAssign,
{
    parallel_scan_with(label, policy, Sum, writes, functor)
}

/// A scan combined by any reducer: `reducer.init()` starts it and
/// `reducer.join` combines (e.g. [`Prod`](crate::reducer::Prod) for a
/// product scan).
///
/// ```
/// use granule_core::prelude::*;
/// let mut fact = View1::<u64>::zeros("fact", 6).unwrap();
/// let total = parallel_scan_with("fact", RangePolicy::new(&Serial, 0..6), Prod, &mut fact,
///     |i, f: &mut u64, partial: &mut u64, last: bool| {
///         if last { *f = *partial; }
///         *partial *= i as u64 + 1;
///     });
/// assert_eq!(fact.to_vec(), vec![1, 1, 2, 6, 24, 120]);
/// assert_eq!(total, 720);
/// ```
#[track_caller]
pub fn parallel_scan_with<'s, S, W, T, R, F>(
    label: &str,
    policy: RangePolicy<'s, S>,
    reducer: R,
    writes: W,
    functor: F,
) -> T
where
    S: ExecutionSpace + ParallelScanImpl<W::Parts, T, R, F>,
    W: Writes<usize>,
    T: Copy + Send + Sync,
    R: Reducer<T>,
{
    let parts = writes.into_parts(label, policy.write_bound());
    let _kernel = begin_kernel(label, KernelKind::Scan, S::NAME, "Range");
    // SAFETY: `parts` was just made from the call's unique borrows of the
    // written Views, and is moved into the dispatch: nothing else uses it.
    unsafe {
        policy
            .space()
            .parallel_scan_impl(label, &policy, &reducer, parts, &functor)
    }
}
