//! The element-wise algorithms on the host spaces: blocks of indices run
//! through [`HostExec`], each writing only its own output elements;
//! contiguous Views go through slices, strided ones element by element.

use super::{MapImpl, Source, SwapImpl, UpdateImpl};
use crate::host::raw::{Dst, Src};
use crate::host::HostExec;
use crate::io::{Input, Output};
use granule_core::functor::BinaryFunctor;
use granule_core::Serial;
use granule_views::{Element, HostSpace};

/// Indices per block: enough work per hand-out to hide its cost, and
/// small enough to balance two threads on a short View.
const BLOCK: usize = 8 * 1024;

/// Calls `body(lo, hi)` for the blocks of `0..n`, possibly in parallel.
fn blocks(exec: &impl HostExec, label: &str, n: usize, body: &(dyn Fn(usize, usize) + Sync)) {
    exec.run(label, n.div_ceil(BLOCK), &|k| {
        let lo = k * BLOCK;
        body(lo, (lo + BLOCK).min(n));
    });
}

fn map<T, U, F>(exec: &impl HostExec, label: &str, x: Src<T>, y: Dst<U>, from: Source, f: &F)
where
    T: Element,
    U: Element,
    F: BinaryFunctor<usize, T, Output = U>,
{
    let n = y.len;
    assert_eq!(x.len, n, "{label}: lengths differ");
    let slices = from == Source::Same && x.contiguous() && y.contiguous();
    blocks(exec, label, n, &|lo, hi| {
        if slices {
            // SAFETY: `x` is borrowed shared for the call and `y` uniquely
            // (they cannot overlap); this block alone touches `y[lo..hi]`.
            let (xs, ys) = unsafe { (x.slice(lo, hi), y.slice_mut(lo, hi)) };
            for (k, (o, &v)) in ys.iter_mut().zip(xs).enumerate() {
                *o = f.call(lo + k, v);
            }
            return;
        }
        for i in lo..hi {
            // SAFETY: as above, element by element (`get` and `set` check
            // the indices).
            unsafe { y.set(i, f.call(i, x.get(from.index(i, n)))) };
        }
    });
}

fn update<T, F>(exec: &impl HostExec, label: &str, y: &Output<'_, T, HostSpace>, f: &F)
where
    T: Element,
    F: BinaryFunctor<usize, T, Output = T>,
{
    let (y, src) = (Dst::of(y), Src::of_output(y));
    let slices = y.contiguous();
    blocks(exec, label, y.len, &|lo, hi| {
        if slices {
            // SAFETY: `y` is borrowed uniquely for the call; this block
            // alone touches `y[lo..hi]`.
            let ys = unsafe { y.slice_mut(lo, hi) };
            for (k, o) in ys.iter_mut().enumerate() {
                *o = f.call(lo + k, *o);
            }
            return;
        }
        for i in lo..hi {
            // SAFETY: as above, element by element.
            unsafe { y.set(i, f.call(i, src.get(i))) };
        }
    });
}

fn swap<T: Element>(
    exec: &impl HostExec,
    label: &str,
    (a, b): (&Output<'_, T, HostSpace>, &Output<'_, T, HostSpace>),
    reversed: bool,
) {
    let (ra, rb) = (Src::of_output(a), Src::of_output(b));
    let (a, b) = (Dst::of(a), Dst::of(b));
    let n = a.len;
    assert_eq!(b.len, n, "{label}: lengths differ");
    blocks(exec, label, n, &|lo, hi| {
        for i in lo..hi {
            let k = if reversed { n - 1 - i } else { i };
            // SAFETY: `a` and `b` are disjoint unique borrows; this block
            // alone touches `a[lo..hi]` and their partners in `b`.
            unsafe {
                let (va, vb) = (ra.get(i), rb.get(k));
                a.set(i, vb);
                b.set(k, va);
            }
        }
    });
}

macro_rules! host_elementwise {
    ($space:ty) => {
        impl<T, U, F> MapImpl<T, U, F> for $space
        where
            T: Element,
            U: Element,
            F: BinaryFunctor<usize, T, Output = U>,
        {
            fn map(
                &self,
                label: &str,
                x: Input<'_, T, HostSpace>,
                y: Output<'_, U, HostSpace>,
                from: Source,
                f: &F,
            ) {
                map(self, label, Src::of(&x), Dst::of(&y), from, f);
            }
        }

        impl<T, F> UpdateImpl<T, F> for $space
        where
            T: Element,
            F: BinaryFunctor<usize, T, Output = T>,
        {
            fn update(&self, label: &str, y: Output<'_, T, HostSpace>, f: &F) {
                update(self, label, &y, f);
            }
        }

        impl<T: Element> SwapImpl<T> for $space {
            fn swap(
                &self,
                label: &str,
                a: Output<'_, T, HostSpace>,
                b: Output<'_, T, HostSpace>,
                reversed: bool,
            ) {
                swap(self, label, (&a, &b), reversed);
            }
        }
    };
}

host_elementwise!(Serial);
#[cfg(feature = "rayon")]
host_elementwise!(granule_rayon::Rayon);
