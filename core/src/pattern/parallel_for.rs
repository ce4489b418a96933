//! `parallel_for`.

use crate::policy::Policy;
use crate::profiling::{begin_kernel, KernelKind};
use crate::space::ExecutionSpace;
use crate::write::Writes;

/// How an execution space runs `parallel_for` under policy `P`, with write
/// parts `W` and functor `F`. Backends implement it for each policy.
///
/// # Implementing
/// The method is a trust boundary of the write path (see
/// [`crate::write`]). An implementation must check, before handing out any
/// item, that `writes` [covers](crate::write::WriteParts::covers) `policy.write_bound()`
/// (the host drivers of [`crate::exec::host`] do), hand each write index of
/// the policy to exactly one work item, never keep `writes` or an item past
/// its return, and, if the functor panics, return by unwinding only after
/// every worker has stopped using `writes`.
pub trait ParallelForImpl<P: Policy, W, F>: ExecutionSpace {
    /// Calls the functor once per work item of `policy`, with the item's
    /// elements from `writes`.
    ///
    /// # Safety
    /// Nothing else uses `writes` (or the memory it reaches) during the
    /// call. [`parallel_for`] guarantees this by making `writes` from a
    /// unique borrow, in the same call.
    unsafe fn parallel_for_impl(&self, label: &str, policy: &P, writes: W, functor: &F);
}

/// Runs `functor` once for every work item of `policy`, handing each item
/// the elements of `writes` it owns (`()` for none).
///
/// The kernel reads any View it captures; it writes only through what it
/// is handed. With a [`RangePolicy`](crate::RangePolicy) that is element
/// `i` of each written View, so axpy stays a one-liner:
///
/// ```
/// use granule_core::prelude::*;
/// let space = Serial;
/// let n = 1000;
/// let a = 2.0;
/// let x = View1::<f64>::from_fn("x", n, |i| i as f64).unwrap();
/// let mut y = View1::<f64>::from_fn("y", n, |_| 1.0).unwrap();
/// parallel_for("axpy", RangePolicy::new(&space, 0..n), &mut y, |i, yi: &mut f64| *yi = a * x[i] + *yi);
/// assert_eq!(y[10], 21.0);
/// ```
///
/// Scatter writes go through an [`AtomicView`](granule_views::AtomicView):
///
/// ```
/// use granule_core::prelude::*;
/// let mut hist = View1::<u32>::zeros("hist", 4).unwrap();
/// let h = hist.atomic().unwrap();
/// parallel_for("hist", RangePolicy::new(&Serial, 0..100), (), |i, ()| h.add(i % 4, 1));
/// assert_eq!(hist.to_vec(), vec![25; 4]);
/// ```
///
/// # Panics
/// If a written View is smaller than the policy's range (naming the label
/// and the View), or if the functor panics.
#[track_caller]
pub fn parallel_for<P, W, F>(label: &str, policy: P, writes: W, functor: F)
where
    P: Policy,
    W: Writes<P::WriteIndex>,
    P::Space: ParallelForImpl<P, W::Parts, F>,
{
    let parts = writes.into_parts(label, policy.write_bound());
    let _kernel = begin_kernel(label, KernelKind::For, P::Space::NAME, P::KIND);
    // SAFETY: `parts` was just made from the call's unique borrows of the
    // written Views, and is moved into the dispatch: nothing else uses it.
    unsafe {
        policy
            .space()
            .parallel_for_impl(label, &policy, parts, &functor)
    };
}
