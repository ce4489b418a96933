//! Iterators over host Views: [`ViewBase::iter`], [`ViewBase::iter_mut`],
//! and `for x in &view` / `for x in &mut view`.
//!
//! Every host View iterates in index order, last index fastest
//! (row-major), whatever its layout: the order of `to_vec`, `from_vec`
//! and `for_each`, so `view.iter().copied().collect::<Vec<_>>()` equals
//! `view.to_vec()`. Non-contiguous Views (strided subviews, padded
//! strides) iterate too, in that same order.
//!
//! A contiguous View whose memory order is index order (LayoutRight, or
//! any stride-1 rank-1 View) walks its slice, at slice speed. Any other
//! View walks its linear indices `front..back` and turns each into a
//! multi-index and an offset (`R - 1` divisions per element): every
//! linear index below the size is one in-bounds index, and distinct
//! indices have distinct offsets (a [`Mapping`] invariant), which is what
//! lets [`IterMut`] lend each element once. The same ranges split in two
//! for rayon (the `rayon` feature, `super::par_iter`).

use super::ViewBase;
use crate::layout::{Layout, LayoutRight, Mapping};
use crate::space::HostAccessible;
use crate::storage::{Storage, StorageMut};
use std::iter::FusedIterator;
use std::marker::PhantomData;

/// The elements of a host View in index order, by shared reference; see
/// [`ViewBase::iter`].
#[derive(Debug)]
pub struct Iter<'a, T, const R: usize> {
    pub(super) walk: Walk<std::slice::Iter<'a, T>, Strided<'a, T, R>>,
}

/// The elements of a host View in index order, by unique reference; see
/// [`ViewBase::iter_mut`].
#[derive(Debug)]
pub struct IterMut<'a, T, const R: usize> {
    pub(super) walk: Walk<std::slice::IterMut<'a, T>, Strided<'a, T, R>>,
}

/// A slice's iterator when memory order is index order, else the
/// linear-index walk.
#[derive(Clone, Debug)]
pub(super) enum Walk<A, B> {
    Slice(A),
    Strided(B),
}

/// The linear indices `front..back` of a View whose elements start at
/// `base`; the lifetime and mutability are the iterator's.
#[derive(Debug)]
pub(super) struct Strided<'a, T, const R: usize> {
    base: *mut T,
    map: Mapping<R>,
    front: usize,
    back: usize,
    _borrow: PhantomData<&'a T>,
}

impl<T, const R: usize> Clone for Strided<'_, T, R> {
    fn clone(&self) -> Self {
        Strided { ..*self }
    }
}

impl<'a, T, const R: usize> Strided<'a, T, R> {
    fn new(base: *mut T, map: Mapping<R>) -> Self {
        Strided {
            base,
            map,
            front: 0,
            back: map.size(),
            _borrow: PhantomData,
        }
    }

    fn len(&self) -> usize {
        self.back - self.front
    }

    /// The pointer to the element of linear index `k`.
    fn at(&self, k: usize) -> *mut T {
        debug_assert!(k < self.map.size());
        let mut idx = [0usize; R];
        let mut rest = k;
        for r in (0..R).rev() {
            // `k < size` makes every extent nonzero.
            let e = self.map.extents()[r];
            idx[r] = rest % e;
            rest /= e;
        }
        // SAFETY: `idx` is in bounds (each component is a remainder by its
        // extent), so its offset lies inside the View's span.
        unsafe { self.base.add(self.map.offset(&idx)) }
    }

    fn next_ptr(&mut self) -> Option<*mut T> {
        (self.front < self.back).then(|| {
            self.front += 1;
            self.at(self.front - 1)
        })
    }

    fn next_back_ptr(&mut self) -> Option<*mut T> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            self.at(self.back)
        })
    }

    /// `front..front + mid` and the rest: rayon's split.
    #[cfg(feature = "rayon")]
    pub(super) fn split_at(self, mid: usize) -> (Self, Self) {
        assert!(mid <= self.len(), "split at {mid} of {}", self.len());
        let cut = self.front + mid;
        (
            Strided { back: cut, ..self },
            Strided { front: cut, ..self },
        )
    }
}

/// Whether memory order equals index order, so a contiguous View's slice
/// is its elements in index order.
fn slice_in_index_order<const R: usize>(map: &Mapping<R>) -> bool {
    map.is_contiguous() && LayoutRight::accepts(map)
}

// SAFETY: an `Iter` lends `&T` only, like `slice::Iter`: sending or sharing
// it shares `T`s, which `T: Sync` allows.
unsafe impl<T: Sync, const R: usize> Send for Iter<'_, T, R> {}
// SAFETY: as for `Send`.
unsafe impl<T: Sync, const R: usize> Sync for Iter<'_, T, R> {}
// SAFETY: an `IterMut` lends each `&mut T` once, like `slice::IterMut`:
// sending it moves that access to another thread, which `T: Send` allows.
unsafe impl<T: Send, const R: usize> Send for IterMut<'_, T, R> {}
// SAFETY: a shared `IterMut` lends nothing (`next` takes `&mut self`).
unsafe impl<T: Sync, const R: usize> Sync for IterMut<'_, T, R> {}

impl<T, const R: usize> Clone for Iter<'_, T, R> {
    fn clone(&self) -> Self {
        Iter {
            walk: self.walk.clone(),
        }
    }
}

impl<'a, T, const R: usize> Iterator for Iter<'a, T, R> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        match &mut self.walk {
            Walk::Slice(s) => s.next(),
            // SAFETY: an in-bounds element of a View borrowed shared for
            // `'a`, readable on the host (`HostAccessible`).
            Walk::Strided(w) => w.next_ptr().map(|p| unsafe { &*p }),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
}

impl<'a, T, const R: usize> DoubleEndedIterator for Iter<'a, T, R> {
    fn next_back(&mut self) -> Option<&'a T> {
        match &mut self.walk {
            Walk::Slice(s) => s.next_back(),
            // SAFETY: as in `next`.
            Walk::Strided(w) => w.next_back_ptr().map(|p| unsafe { &*p }),
        }
    }
}

impl<T, const R: usize> ExactSizeIterator for Iter<'_, T, R> {
    fn len(&self) -> usize {
        match &self.walk {
            Walk::Slice(s) => s.len(),
            Walk::Strided(w) => w.len(),
        }
    }
}

impl<T, const R: usize> FusedIterator for Iter<'_, T, R> {}

impl<'a, T, const R: usize> Iterator for IterMut<'a, T, R> {
    type Item = &'a mut T;

    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        match &mut self.walk {
            Walk::Slice(s) => s.next(),
            // SAFETY: an in-bounds element of a View borrowed unique for
            // `'a`; each linear index leaves `front..back` once and distinct
            // indices have distinct offsets, so no element is lent twice.
            Walk::Strided(w) => w.next_ptr().map(|p| unsafe { &mut *p }),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
}

impl<'a, T, const R: usize> DoubleEndedIterator for IterMut<'a, T, R> {
    fn next_back(&mut self) -> Option<&'a mut T> {
        match &mut self.walk {
            Walk::Slice(s) => s.next_back(),
            // SAFETY: as in `next`.
            Walk::Strided(w) => w.next_back_ptr().map(|p| unsafe { &mut *p }),
        }
    }
}

impl<T, const R: usize> ExactSizeIterator for IterMut<'_, T, R> {
    fn len(&self) -> usize {
        match &self.walk {
            Walk::Slice(s) => s.len(),
            Walk::Strided(w) => w.len(),
        }
    }
}

impl<T, const R: usize> FusedIterator for IterMut<'_, T, R> {}

impl<S: Storage, const R: usize, L: Layout> ViewBase<S, R, L>
where
    S::Space: HostAccessible,
{
    /// The elements in index order, last index fastest, whatever the
    /// layout (the order of [`to_vec`](Self::to_vec)); `for x in &view`
    /// does the same.
    ///
    /// ```
    /// use granule_views::{LayoutLeft, View2};
    /// let a = View2::<i32, LayoutLeft>::from_fn("a", [2, 3], |[i, j]| (10 * i + j) as i32)?;
    /// let row_major: Vec<i32> = a.iter().copied().collect();
    /// assert_eq!(row_major, [0, 1, 2, 10, 11, 12]);
    /// assert_eq!(row_major, a.to_vec());
    /// let mut total = 0;
    /// for x in &a {
    ///     total += x;
    /// }
    /// assert_eq!(total, 36);
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    pub fn iter(&self) -> Iter<'_, S::Elem, R> {
        let walk = match self.as_slice() {
            Some(s) if slice_in_index_order(&self.map) => Walk::Slice(s.iter()),
            _ => Walk::Strided(Strided::new(self.storage.ptr().as_ptr(), self.map)),
        };
        Iter { walk }
    }
}

impl<S: StorageMut, const R: usize, L: Layout> ViewBase<S, R, L>
where
    S::Space: HostAccessible,
{
    /// The elements in index order for writing, last index fastest,
    /// whatever the layout; `for x in &mut view` does the same.
    ///
    /// ```
    /// use granule_views::{View2, ALL};
    /// let mut a = View2::<u32>::zeros("a", [3, 4])?;
    /// for (k, x) in a.iter_mut().enumerate() {
    ///     *x = k as u32;
    /// }
    /// assert_eq!(a[[2, 3]], 11);
    /// let mut column = a.subview_mut((ALL, 1))?; // strided: every 4th element
    /// for x in &mut column {
    ///     *x *= 100;
    /// }
    /// assert_eq!(a.subview((ALL, 1))?.to_vec(), [100, 500, 900]);
    /// # Ok::<(), granule_views::ViewError>(())
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, S::Elem, R> {
        let (ptr, map) = (self.storage.ptr().as_ptr(), self.map);
        let walk = match self.as_mut_slice() {
            Some(s) if slice_in_index_order(&map) => Walk::Slice(s.iter_mut()),
            _ => Walk::Strided(Strided::new(ptr, map)),
        };
        IterMut { walk }
    }
}

impl<'a, S: Storage, const R: usize, L: Layout> IntoIterator for &'a ViewBase<S, R, L>
where
    S::Space: HostAccessible,
{
    type Item = &'a S::Elem;
    type IntoIter = Iter<'a, S::Elem, R>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, S: StorageMut, const R: usize, L: Layout> IntoIterator for &'a mut ViewBase<S, R, L>
where
    S::Space: HostAccessible,
{
    type Item = &'a mut S::Elem;
    type IntoIter = IterMut<'a, S::Elem, R>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use crate::{LayoutLeft, LayoutStride, View1, View2, View3, ViewRef, ALL};

    #[test]
    fn every_layout_iterates_in_index_order() {
        let right =
            View3::<u32>::from_fn("r", [2, 3, 4], |[i, j, k]| (100 * i + 10 * j + k) as u32)
                .unwrap();
        let left = View3::<u32, LayoutLeft>::from_fn("l", [2, 3, 4], |[i, j, k]| {
            (100 * i + 10 * j + k) as u32
        })
        .unwrap();
        let expected = right.to_vec();
        assert_eq!(right.iter().copied().collect::<Vec<_>>(), expected);
        assert_eq!(left.iter().copied().collect::<Vec<_>>(), expected);
        assert_eq!(left.to_vec(), expected);
        assert_eq!(left.iter().len(), 24);
    }

    #[test]
    fn non_contiguous_views_iterate_their_elements_only() {
        let data: Vec<i32> = (0..20).collect();
        // Every other element of a 2 x 5 block with a row stride of 10.
        let s = ViewRef::<i32, 2, LayoutStride>::from_slice_strided("s", &data, [2, 5], [10, 2])
            .unwrap();
        assert!(!s.is_contiguous());
        assert_eq!(
            s.iter().copied().collect::<Vec<_>>(),
            [0, 2, 4, 6, 8, 10, 12, 14, 16, 18]
        );
        assert_eq!(s.iter().next_back(), Some(&18));
    }

    #[test]
    fn both_ends_meet_once() {
        let a = View2::<u8, LayoutLeft>::from_fn("a", [3, 3], |[i, j]| (3 * i + j) as u8).unwrap();
        let mut it = a.iter();
        let (mut front, mut back) = (vec![], vec![]);
        while let Some(&x) = it.next() {
            front.push(x);
            if let Some(&y) = it.next_back() {
                back.push(y);
            }
        }
        assert_eq!((front, back), (vec![0, 1, 2, 3, 4], vec![8, 7, 6, 5]));
        assert_eq!((it.len(), it.next(), it.next_back()), (0, None, None));
    }

    #[test]
    fn iter_mut_writes_each_element_once() {
        let mut a = View2::<u32>::zeros("a", [4, 5]).unwrap();
        for x in &mut a.subview_mut((1..3, ALL)).unwrap() {
            *x += 1;
        }
        for x in a.subview_mut((ALL, 2)).unwrap().iter_mut().rev() {
            *x += 10;
        }
        let mut b = View2::<u32, LayoutLeft>::zeros("b", [4, 5]).unwrap();
        for (k, x) in b.iter_mut().enumerate() {
            *x = k as u32;
        }
        assert_eq!(a.iter().sum::<u32>(), 10 + 4 * 10);
        assert_eq!((a[[1, 2]], a[[0, 2]], a[[1, 0]]), (11, 10, 1));
        assert_eq!(b.to_vec(), (0..20).collect::<Vec<u32>>());
    }

    #[test]
    fn empty_views_yield_nothing() {
        let e = View2::<f64>::zeros("e", [0, 3]).unwrap();
        assert_eq!(e.iter().next(), None);
        let mut s = View2::<f64>::zeros("s", [3, 4]).unwrap();
        assert_eq!(s.subview_mut((ALL, 1..1)).unwrap().iter_mut().len(), 0);
        assert_eq!((&View1::<u8>::zeros("z", 0).unwrap()).into_iter().len(), 0);
    }
}
