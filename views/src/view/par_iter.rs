//! rayon's parallel iterators over host Views (the `rayon` feature):
//! `view.par_iter()`, `view.par_iter_mut()`, `(&view).into_par_iter()`.
//!
//! They yield what [`Iter`] and [`IterMut`] yield, in the same index
//! order (last index fastest, whatever the layout), as indexed parallel
//! iterators: `collect` keeps that order, `zip` pairs elements of the
//! same index. Every host View has them, contiguous or not.
//!
//! The sequential iterators are rayon's producers: a slice splits as
//! slices do, a strided walk splits its range of linear indices
//! `front..back` in two. Halves never share an index, and distinct
//! indices have distinct offsets, so the `&mut` halves of [`IterMut`]
//! never alias. The impls live here, beside the View type, because the
//! orphan rule allows `IntoParallelIterator for &View` only in the crate
//! that defines `View`.
//!
//! ```
//! use granule_views::{View1, View2, ALL};
//! use rayon::prelude::*;
//!
//! let x = View1::<f64>::from_fn("x", 1000, |i| i as f64)?;
//! let sum: f64 = x.par_iter().sum();
//! assert_eq!(sum, 499_500.0);
//!
//! let mut a = View2::<u32>::zeros("a", [4, 3])?;
//! let mut column = a.subview_mut((ALL, 2))?; // strided
//! column.par_iter_mut().enumerate().for_each(|(i, x)| *x = i as u32 + 1);
//! assert_eq!(a.to_vec(), [0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4]);
//! # Ok::<(), granule_views::ViewError>(())
//! ```

use super::iter::{Iter, IterMut, Strided, Walk};
use super::ViewBase;
use crate::layout::Layout;
use crate::space::HostAccessible;
use crate::storage::{Storage, StorageMut};
use rayon::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// The elements of a host View in index order, in parallel, by shared
/// reference: `view.par_iter()` (see the [module](self)).
#[derive(Clone, Debug)]
pub struct ParIter<'a, T, const R: usize> {
    iter: Iter<'a, T, R>,
}

/// The elements of a host View in index order, in parallel, by unique
/// reference: `view.par_iter_mut()` (see the [module](self)).
#[derive(Debug)]
pub struct ParIterMut<'a, T, const R: usize> {
    iter: IterMut<'a, T, R>,
}

impl<'a, T: Sync, const R: usize> Producer for Iter<'a, T, R> {
    type Item = &'a T;
    type IntoIter = Self;

    fn into_iter(self) -> Self {
        self
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = match self.walk {
            Walk::Slice(s) => {
                let (a, b) = s.as_slice().split_at(mid);
                (Walk::Slice(a.iter()), Walk::Slice(b.iter()))
            }
            Walk::Strided(w) => split_strided(w, mid),
        };
        (Iter { walk: a }, Iter { walk: b })
    }
}

impl<'a, T: Send, const R: usize> Producer for IterMut<'a, T, R> {
    type Item = &'a mut T;
    type IntoIter = Self;

    fn into_iter(self) -> Self {
        self
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = match self.walk {
            Walk::Slice(s) => {
                let (a, b) = s.into_slice().split_at_mut(mid);
                (Walk::Slice(a.iter_mut()), Walk::Slice(b.iter_mut()))
            }
            Walk::Strided(w) => split_strided(w, mid),
        };
        (IterMut { walk: a }, IterMut { walk: b })
    }
}

/// The two halves of a strided walk, as walks.
fn split_strided<A, T, const R: usize>(
    w: Strided<'_, T, R>,
    mid: usize,
) -> (Walk<A, Strided<'_, T, R>>, Walk<A, Strided<'_, T, R>>) {
    let (a, b) = w.split_at(mid);
    (Walk::Strided(a), Walk::Strided(b))
}

impl<'a, T: Sync, const R: usize> ParallelIterator for ParIter<'a, T, R> {
    type Item = &'a T;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

impl<T: Sync, const R: usize> IndexedParallelIterator for ParIter<'_, T, R> {
    fn len(&self) -> usize {
        self.iter.len()
    }

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(self.iter)
    }
}

impl<'a, T: Send, const R: usize> ParallelIterator for ParIterMut<'a, T, R> {
    type Item = &'a mut T;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

impl<T: Send, const R: usize> IndexedParallelIterator for ParIterMut<'_, T, R> {
    fn len(&self) -> usize {
        self.iter.len()
    }

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge(self, consumer)
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(self.iter)
    }
}

impl<'a, S: Storage, const R: usize, L: Layout> IntoParallelIterator for &'a ViewBase<S, R, L>
where
    S::Space: HostAccessible,
{
    type Item = &'a S::Elem;
    type Iter = ParIter<'a, S::Elem, R>;

    fn into_par_iter(self) -> Self::Iter {
        ParIter { iter: self.iter() }
    }
}

impl<'a, S: StorageMut, const R: usize, L: Layout> IntoParallelIterator
    for &'a mut ViewBase<S, R, L>
where
    S::Space: HostAccessible,
{
    type Item = &'a mut S::Elem;
    type Iter = ParIterMut<'a, S::Elem, R>;

    fn into_par_iter(self) -> Self::Iter {
        ParIterMut {
            iter: self.iter_mut(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{LayoutLeft, LayoutStride, View2, View3, ViewRef, ALL};
    use rayon::prelude::*;

    #[test]
    fn parallel_order_is_the_sequential_order() {
        let a = View3::<u64, LayoutLeft>::from_fn("a", [17, 9, 33], |[i, j, k]| {
            (i * 10_000 + j * 100 + k) as u64
        })
        .unwrap();
        let par: Vec<u64> = a.par_iter().copied().collect();
        assert_eq!(par, a.to_vec());
        let right = View2::<u64>::from_fn("r", [300, 7], |[i, j]| (i * 7 + j) as u64).unwrap();
        let par: Vec<u64> = (&right).into_par_iter().copied().collect();
        assert_eq!(par, right.to_vec());
    }

    #[test]
    fn strided_views_split_without_overlap() {
        let data: Vec<u32> = (0..4000).collect();
        let s = ViewRef::<u32, 2, LayoutStride>::from_slice_strided("s", &data, [40, 33], [100, 3])
            .unwrap();
        let sum: u64 = s.par_iter().map(|&x| u64::from(x)).sum();
        assert_eq!(sum, s.iter().map(|&x| u64::from(x)).sum::<u64>());
        assert_eq!(s.par_iter().len(), 40 * 33);
    }

    #[test]
    fn par_iter_mut_writes_each_element_once() {
        let mut a = View2::<u32, LayoutLeft>::zeros("a", [64, 48]).unwrap();
        a.par_iter_mut().for_each(|x| *x += 1);
        a.subview_mut((ALL, 5))
            .unwrap()
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x += i as u32);
        assert_eq!(a.iter().filter(|&&x| x == 0).count(), 0);
        assert_eq!(
            a.iter().map(|&x| x as usize).sum::<usize>(),
            64 * 48 + 63 * 64 / 2
        );
        assert_eq!(a[[10, 5]], 11);
        let mut r = View2::<u8>::zeros("r", [100, 100]).unwrap();
        r.par_iter_mut()
            .zip(0..10_000usize)
            .for_each(|(x, k)| *x = (k % 251) as u8);
        assert_eq!(r[[99, 99]], (9_999 % 251) as u8);
    }
}
