//! Functor traits: what a kernel is, for each pattern.
//!
//! Patterns accept any type implementing these traits. They are
//! blanket-implemented for closures, so host code passes a closure; the
//! `#[kernel]` macro implements them for the types it generates, which the
//! CUDA space also accepts. Plain closures run on host spaces only.
//!
//! ```
//! use granule_core::functor::ForFunctor;
//! // a hand-written functor type, as #[kernel] generates
//! struct Scale(f64);
//! impl<'a> ForFunctor<usize, &'a mut f64> for Scale {
//!     fn exec(&self, _i: usize, y: &'a mut f64) { *y *= self.0 }
//! }
//! let mut y = 2.0;
//! Scale(3.0).exec(0, &mut y);
//! assert_eq!(y, 6.0);
//! ```

/// A `parallel_for` kernel: called once per work item `index` with the
/// elements the item owns (`()` when the call writes nothing).
pub trait ForFunctor<I, W>: Sync {
    /// Runs the work item.
    fn exec(&self, index: I, owned: W);
}

impl<F, I, W> ForFunctor<I, W> for F
where
    F: Fn(I, W) + Sync,
{
    #[inline(always)]
    fn exec(&self, index: I, owned: W) {
        self(index, owned)
    }
}

/// A `parallel_reduce` kernel: contributes work item `index` to `acc`.
pub trait ReduceFunctor<I, T>: Sync {
    /// Adds the work item's contribution to `acc` (with the reducer's join
    /// semantics, e.g. `*acc += x[i]` for a sum).
    fn exec(&self, index: I, acc: &mut T);
}

impl<F, I, T> ReduceFunctor<I, T> for F
where
    F: Fn(I, &mut T) + Sync,
{
    #[inline(always)]
    fn exec(&self, index: I, acc: &mut T) {
        self(index, acc)
    }
}

/// A `parallel_scan` kernel, with the Kokkos contract: `partial` holds the
/// join of all earlier items' contributions; the kernel adds its own.
/// When `is_final` is true, `partial` is the exact exclusive prefix and the
/// kernel may write its outputs (`owned`); calls with `is_final == false`
/// must have no side effects. Each index gets exactly one final call.
pub trait ScanFunctor<I, W, T>: Sync {
    /// Runs the work item.
    fn exec(&self, index: I, owned: W, partial: &mut T, is_final: bool);
}

impl<F, I, W, T> ScanFunctor<I, W, T> for F
where
    F: Fn(I, W, &mut T, bool) + Sync,
{
    #[inline(always)]
    fn exec(&self, index: I, owned: W, partial: &mut T, is_final: bool) {
        self(index, owned, partial, is_final)
    }
}
