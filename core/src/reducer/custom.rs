//! Reducers made from closures: init, join and an optional final.

use super::Reducer;

/// A final step applied to the result: a closure `Fn(&mut T)`, or
/// [`NoFinal`].
pub trait Finalizer<T>: Sync + Send {
    /// Transforms the reduced value in place.
    fn apply(&self, value: &mut T);
}

/// No final step.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFinal;

impl<T> Finalizer<T> for NoFinal {
    #[inline(always)]
    fn apply(&self, _value: &mut T) {}
}

impl<T, F: Fn(&mut T) + Sync + Send> Finalizer<T> for F {
    #[inline(always)]
    fn apply(&self, value: &mut T) {
        self(value)
    }
}

/// A reducer from an `init` closure (the identity), a `join` closure and a
/// final step. Build it with [`custom`].
#[derive(Clone, Copy, Debug)]
pub struct Custom<I, J, Fi = NoFinal> {
    init: I,
    join: J,
    fin: Fi,
}

/// A custom reducer: `init()` is the identity, `join(dst, src)` combines.
///
/// ```
/// use granule_core::prelude::*;
/// // the mean of 1..=4, through a (sum, count) pair and a final division
/// let mean = reducer::custom(|| (0.0, 0.0), |a: &mut (f64, f64), b: &(f64, f64)| { a.0 += b.0; a.1 += b.1 })
///     .with_final(|a: &mut (f64, f64)| *a = (a.0 / a.1, a.1));
/// let r = parallel_reduce("mean", RangePolicy::new(&Serial, 1..5), mean, |i, acc: &mut (f64, f64)| { acc.0 += i as f64; acc.1 += 1.0 });
/// assert_eq!(r.0, 2.5);
/// ```
pub fn custom<T, I, J>(init: I, join: J) -> Custom<I, J, NoFinal>
where
    I: Fn() -> T + Sync + Send,
    J: Fn(&mut T, &T) + Sync + Send,
{
    Custom {
        init,
        join,
        fin: NoFinal,
    }
}

impl<I, J> Custom<I, J, NoFinal> {
    /// Adds a final step.
    pub fn with_final<Fi>(self, fin: Fi) -> Custom<I, J, Fi> {
        Custom {
            init: self.init,
            join: self.join,
            fin,
        }
    }
}

impl<T, I, J, Fi> Reducer<T> for Custom<I, J, Fi>
where
    I: Fn() -> T + Sync + Send,
    J: Fn(&mut T, &T) + Sync + Send,
    Fi: Finalizer<T>,
{
    #[inline(always)]
    fn init(&self) -> T {
        (self.init)()
    }
    #[inline(always)]
    fn join(&self, dst: &mut T, src: &T) {
        (self.join)(dst, src)
    }
    #[inline(always)]
    fn finalize(&self, value: &mut T) {
        self.fin.apply(value)
    }
}
