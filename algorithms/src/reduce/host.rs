//! The reductions on the host spaces: the `parallel_reduce` pattern over
//! the indices (fixed blocks, four accumulators per block, a fixed combine
//! tree), reading contiguous Views as slices.

use super::{ReduceImpl, ReducePairsImpl};
use crate::host::raw::Src;
use crate::io::Input;
use granule_core::functor::BinaryFunctor;
use granule_core::reducer::Reducer;
use granule_core::{parallel_reduce, RangePolicy, Serial};
use granule_views::{Element, HostSpace};

/// The operator without its final step: the entry points finalize once,
/// after joining the init value.
struct Unfinalized<'r, R>(&'r R);

impl<U, R: Reducer<U>> Reducer<U> for Unfinalized<'_, R> {
    #[inline(always)]
    fn init(&self) -> U {
        self.0.init()
    }
    #[inline(always)]
    fn join(&self, dst: &mut U, src: &U) {
        self.0.join(dst, src)
    }
}

macro_rules! host_reductions {
    ($space:ty) => {
        impl<T, U, R, F> ReduceImpl<T, U, R, F> for $space
        where
            T: Element,
            U: Copy + Send,
            R: Reducer<U>,
            F: BinaryFunctor<usize, T, Output = U>,
        {
            fn transform_reduce_indexed(
                &self,
                label: &str,
                input: Input<'_, T, HostSpace>,
                op: &R,
                f: &F,
            ) -> U {
                let src = Src::of(&input);
                let policy = RangePolicy::new(self, 0..src.len);
                if src.contiguous() {
                    // SAFETY: `input` holds a shared borrow of the View: no
                    // thread writes it during the call.
                    let x = unsafe { src.slice(0, src.len) };
                    parallel_reduce(label, policy, Unfinalized(op), |i, acc: &mut U| {
                        op.join(acc, &f.call(i, x[i]))
                    })
                } else {
                    parallel_reduce(label, policy, Unfinalized(op), |i, acc: &mut U| {
                        // SAFETY: as above.
                        op.join(acc, &f.call(i, unsafe { src.get(i) }))
                    })
                }
            }
        }

        impl<A, B, U, R, F> ReducePairsImpl<A, B, U, R, F> for $space
        where
            A: Element,
            B: Element,
            U: Copy + Send,
            R: Reducer<U>,
            F: BinaryFunctor<usize, (A, B), Output = U>,
        {
            fn reduce_pairs(
                &self,
                label: &str,
                a: Input<'_, A, HostSpace>,
                b: Input<'_, B, HostSpace>,
                op: &R,
                f: &F,
            ) -> U {
                let (a, b) = (Src::of(&a), Src::of(&b));
                assert_eq!(a.len, b.len, "{label}: lengths differ");
                let policy = RangePolicy::new(self, 0..a.len);
                parallel_reduce(label, policy, Unfinalized(op), |i, acc: &mut U| {
                    // SAFETY: both Inputs hold shared borrows: no thread
                    // writes them during the call; `i < len` of both.
                    let (x, y) = unsafe { (a.get(i), b.get(i)) };
                    op.join(acc, &f.call(i, (x, y)))
                })
            }
        }
    };
}

host_reductions!(Serial);
#[cfg(feature = "rayon")]
host_reductions!(granule_rayon::Rayon);
