//! Functor traits: what a kernel is, for each pattern, and the
//! per-element user code the algorithms take ([`UnaryFunctor`],
//! [`BinaryFunctor`]).
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

/// Per-element user code with one argument: a predicate (`Output =
/// bool`), a transform, a key extractor. The algorithms of
/// `granule-algorithms` take it.
///
/// Closures implement it (`F: Fn(T) -> U + Sync`), so host code passes a
/// closure; a device space needs a type the `#[kernel]` machinery
/// translates.
///
/// ```
/// use granule_core::functor::UnaryFunctor;
/// fn apply<F: UnaryFunctor<i32>>(f: &F, x: i32) -> F::Output {
///     f.call(x)
/// }
/// assert_eq!(apply(&|x: i32| x * 2, 21), 42);
/// assert!(apply(&|x: i32| x > 0, 1));
///
/// // a hand-written functor type
/// struct Scale(f64);
/// impl UnaryFunctor<f64> for Scale {
///     type Output = f64;
///     fn call(&self, x: f64) -> f64 { self.0 * x }
/// }
/// assert_eq!(Scale(3.0).call(2.0), 6.0);
/// ```
pub trait UnaryFunctor<T>: Sync {
    /// What the call returns.
    type Output;
    /// Applies the function to `x`.
    fn call(&self, x: T) -> Self::Output;
}

impl<F, T, U> UnaryFunctor<T> for F
where
    F: Fn(T) -> U + Sync,
{
    type Output = U;
    #[inline(always)]
    fn call(&self, x: T) -> U {
        self(x)
    }
}

/// Per-element user code with two arguments: a comparator ("less",
/// `Output = bool`), an equality, a binary transform.
///
/// Closures implement it (`F: Fn(A, B) -> U + Sync`).
///
/// ```
/// use granule_core::functor::BinaryFunctor;
/// fn less<F: BinaryFunctor<u32, u32, Output = bool>>(f: &F, a: u32, b: u32) -> bool {
///     f.call(a, b)
/// }
/// // order by the low byte only
/// assert!(less(&|a: u32, b: u32| (a & 0xff) < (b & 0xff), 0x1_02, 0x03));
/// ```
pub trait BinaryFunctor<A, B>: Sync {
    /// What the call returns.
    type Output;
    /// Applies the function to `a` and `b`.
    fn call(&self, a: A, b: B) -> Self::Output;
}

impl<F, A, B, U> BinaryFunctor<A, B> for F
where
    F: Fn(A, B) -> U + Sync,
{
    type Output = U;
    #[inline(always)]
    fn call(&self, a: A, b: B) -> U {
        self(a, b)
    }
}
