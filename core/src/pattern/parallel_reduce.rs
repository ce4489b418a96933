//! `parallel_reduce`.

use crate::policy::Policy;
use crate::profiling::{begin_kernel, KernelKind};
use crate::reducer::{ReduceTarget, Reducer};
use crate::space::ExecutionSpace;

/// How an execution space runs `parallel_reduce` under policy `P` with
/// reducer `R` over values `T` and functor `F`.
pub trait ParallelReduceImpl<P: Policy, T, R, F>: ExecutionSpace {
    /// The join of every work item's contribution, each accumulated from
    /// `reducer.init()`; `init()` when there is no work item. Not finalized.
    fn parallel_reduce_impl(&self, label: &str, policy: &P, reducer: &R, functor: &F) -> T;
}

/// Reduces the contributions of every work item of `policy` with
/// `reducer` and returns the (finalized) result; an empty policy gives the
/// reducer's identity.
///
/// Host spaces cut a range into fixed blocks, reduce each with several
/// independent accumulators and join the blocks in a fixed tree, so the
/// result is bitwise the same for any thread count.
///
/// ```
/// use granule_core::prelude::*;
/// let x = View1::<f64>::from_fn("x", 100, |i| i as f64).unwrap();
/// let policy = RangePolicy::new(&Serial, 0..100);
/// let sum: f64 = parallel_reduce("sum", policy, Sum, |i, acc: &mut f64| *acc += x[i]);
/// assert_eq!(sum, 4950.0);
/// let empty: f64 = parallel_reduce("none", RangePolicy::new(&Serial, 5..5), Min, |i, acc: &mut f64| *acc = acc.min(x[i]));
/// assert_eq!(empty, f64::INFINITY);
/// ```
#[track_caller]
pub fn parallel_reduce<P, T, R, F>(label: &str, policy: P, reducer: R, functor: F) -> T
where
    P: Policy,
    T: Copy + Send,
    R: Reducer<T>,
    P::Space: ParallelReduceImpl<P, T, R, F>,
{
    let _kernel = begin_kernel(label, KernelKind::Reduce, P::Space::NAME, P::KIND);
    let mut value = policy
        .space()
        .parallel_reduce_impl(label, &policy, &reducer, &functor);
    reducer.finalize(&mut value);
    value
}

/// Like [`parallel_reduce`], storing the result into `target`: a `&mut`
/// scalar, a rank-1 View (element 0), or a tuple of those. An empty
/// policy overwrites the target with the identity.
///
/// ```
/// use granule_core::prelude::*;
/// let mut out = View1::<i64>::from_fn("out", 1, |_| 99).unwrap();
/// parallel_reduce_into("empty", RangePolicy::new(&Serial, 0..0), Sum, |i, acc: &mut i64| *acc += i as i64, &mut out);
/// assert_eq!(out[0], 0);
/// ```
#[track_caller]
pub fn parallel_reduce_into<P, T, R, F, D>(
    label: &str,
    policy: P,
    reducer: R,
    functor: F,
    target: D,
) where
    P: Policy,
    T: Copy + Send,
    R: Reducer<T>,
    P::Space: ParallelReduceImpl<P, T, R, F>,
    D: ReduceTarget<T>,
{
    target.store(parallel_reduce(label, policy, reducer, functor));
}
