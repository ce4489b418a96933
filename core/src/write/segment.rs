//! Segment writes: under a [`RangePolicy`](crate::RangePolicy), work item
//! `i` owns the elements `offsets[i]..offsets[i + 1]` of a written rank-1
//! View, as a row of a CRS matrix or an atom's neighbour list is filled.
//!
//! The offsets are checked once, on the host, by [`Offsets::new`]: they
//! never decrease, so the segments are disjoint. [`Offsets::segments`]
//! then checks that the last offset lies within the written View. The
//! [`Offsets`] keep the offsets View borrowed, so nothing can change them
//! while they are in use; one check serves every View with that structure
//! and every dispatch.
//!
//! ```
//! use granule_core::prelude::*;
//! // Row i holds i + 1 entries: offsets 0, 1, 3, 6.
//! let starts = View1::<usize>::from_vec("starts", 4, vec![0, 1, 3, 6]).unwrap();
//! let offsets = Offsets::new(&starts).unwrap();
//! let mut cols = View1::<u32>::zeros("cols", 6).unwrap();
//! let mut vals = View1::<f64>::zeros("vals", 6).unwrap();
//! parallel_for(
//!     "fill",
//!     RangePolicy::new(&Serial, 0..offsets.count()),
//!     (offsets.segments(&mut cols).unwrap(), offsets.segments(&mut vals).unwrap()),
//!     |i, (mut c, mut v): (Segment<u32>, Segment<f64>)| {
//!         for k in 0..c.len() {
//!             c[k] = k as u32;
//!             v[k] = (10 * i + k) as f64;
//!         }
//!     },
//! );
//! assert_eq!(cols.to_vec(), [0, 0, 1, 0, 1, 2]);
//! assert_eq!(vals[5], 22.0);
//! ```
//!
//! While the `Offsets` are in use, their View cannot be written:
//!
//! ```compile_fail,E0502
//! use granule_core::prelude::*;
//! let mut starts = View1::<usize>::from_vec("starts", 3, vec![0, 1, 2]).unwrap();
//! let offsets = Offsets::new(&starts).unwrap();
//! starts[1] = 5; // the checked offsets are borrowed
//! assert_eq!(offsets.count(), 2);
//! ```
//!
//! Offsets that decrease, or that reach past the View, are errors naming
//! both:
//!
//! ```
//! use granule_core::prelude::*;
//! let starts = View1::<usize>::from_vec("starts", 3, vec![0, 4, 2]).unwrap();
//! let err = Offsets::new(&starts).unwrap_err();
//! assert_eq!(err, SegmentError::Decreasing { offsets: "starts".into(), index: 1, value: 4, next: 2 });
//! ```

use super::{view_parts, ViewParts, WriteParts, Writes};
use crate::error::SegmentError;
use crate::kernel::{DeviceArg, DeviceValue, DeviceWrites, SameMemorySpace, ViewArg};
use granule_views::storage::{Storage, StorageMut};
use granule_views::{
    create_mirror_view_and_copy, Element, HostAccessible, HostSpace, Layout, MemorySpace,
    SpaceCopy, ViewBase,
};
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A checked offsets View: `count() + 1` entries that never decrease.
/// Segment `i` is `offsets[i]..offsets[i + 1]`. Made by [`Offsets::new`];
/// it borrows the View, whose entries therefore stay as checked.
#[derive(Debug)]
pub struct Offsets<'o, M = HostSpace> {
    ptr: *const usize,
    stride: usize,
    entries: usize,
    last: usize,
    label: &'o str,
    _borrow: PhantomData<(&'o [usize], M)>,
}

impl<M> Clone for Offsets<'_, M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M> Copy for Offsets<'_, M> {}

// SAFETY: Offsets stand for a shared borrow of `usize`s, like `&[usize]`.
unsafe impl<M: MemorySpace> Send for Offsets<'_, M> {}
// SAFETY: as above; nothing writes through them.
unsafe impl<M: MemorySpace> Sync for Offsets<'_, M> {}

impl<M> Offsets<'_, M> {
    /// The number of segments: one less than the offsets' entries.
    pub fn count(&self) -> usize {
        self.entries - 1
    }

    /// The last offset: the end of the last segment.
    pub fn end(&self) -> usize {
        self.last
    }
}

impl<'o, M: MemorySpace> Offsets<'o, M> {
    /// Checks `offsets`: at least one entry, none less than the one before.
    /// A View of a memory space the host cannot read is copied to the host
    /// for the check (a synchronization with its device).
    ///
    /// # Errors
    /// [`SegmentError::NoEntries`] for an empty View,
    /// [`SegmentError::Decreasing`] naming the first entry greater than
    /// its successor, [`SegmentError::Copy`] if the copy to the host fails.
    pub fn new<S, L>(offsets: &'o ViewBase<S, 1, L>) -> Result<Self, SegmentError>
    where
        S: Storage<Elem = usize, Space = M>,
        L: Layout,
        HostSpace: SpaceCopy<M>,
    {
        let label = offsets.label();
        let host = create_mirror_view_and_copy(offsets).map_err(SegmentError::Copy)?;
        let host = host.as_view();
        let entries = offsets.extent(0);
        if entries == 0 {
            return Err(SegmentError::NoEntries {
                offsets: label.to_string(),
            });
        }
        let mut last = host[0];
        for index in 1..entries {
            let next = host[index];
            if next < last {
                return Err(SegmentError::Decreasing {
                    offsets: label.to_string(),
                    index: index - 1,
                    value: last,
                    next,
                });
            }
            last = next;
        }
        Ok(Offsets {
            ptr: offsets.as_ptr(),
            stride: offsets.strides()[0],
            entries,
            last,
            label,
            _borrow: PhantomData,
        })
    }

    /// The segments of `view` these offsets give, for a pattern to hand
    /// out, segment `i` to work item `i`.
    ///
    /// # Errors
    /// [`SegmentError::PastView`] if the last offset is past the View's
    /// extent.
    pub fn segments<'v, S, L>(
        &self,
        view: &'v mut ViewBase<S, 1, L>,
    ) -> Result<Segments<'v, 'o, S::Elem, M>, SegmentError>
    where
        S: StorageMut<Space = M>,
        L: Layout,
    {
        if self.last > view.extent(0) {
            return Err(SegmentError::PastView {
                offsets: self.label.to_string(),
                view: view.label().to_string(),
                end: self.last,
                extent: view.extent(0),
            });
        }
        Ok(Segments {
            // The extent was checked above, with a typed error; the parts'
            // own check (a panic) has nothing left to check.
            view: view_parts(view, "segments", [0]),
            offsets: *self,
        })
    }

    fn arg(&self) -> ViewArg<'o> {
        ViewArg::of::<usize>(
            self.label,
            self.ptr as usize,
            &[self.entries],
            &[self.stride],
        )
    }
}

impl<M: HostAccessible> Offsets<'_, M> {
    /// Entry `k`, for `k` below the entries.
    #[inline(always)]
    fn at(&self, k: usize) -> usize {
        debug_assert!(k < self.entries);
        // SAFETY: `k` is below the View's extent, so the entry lies in its
        // span, which the host may read (`HostAccessible`) and which the
        // borrow keeps alive and unwritten.
        unsafe { *self.ptr.add(k * self.stride) }
    }
}

/// The segments of a written rank-1 View, one per work item: pass them
/// (or a tuple with them) as a range pattern's written object, and work
/// item `i` receives its [`Segment`]. Made by [`Offsets::segments`].
#[derive(Debug)]
pub struct Segments<'v, 'o, T, M = HostSpace> {
    view: ViewParts<'v, T, 1, M>,
    offsets: Offsets<'o, M>,
}

#[cold]
#[inline(never)]
#[track_caller]
fn too_few(label: &str, offsets: &str, view: &str, count: usize, bound: usize) -> ! {
    panic!(
        "parallel dispatch \"{label}\": offsets \"{offsets}\" give {count} segments of View \"{view}\" but the policy reaches indices up to (excluding) {bound}"
    )
}

// SAFETY: the parts hold the View's unique borrow for 'v (from
// `Offsets::segments`) and the offsets' shared one; `into_parts` checks
// the bound against the number of segments.
unsafe impl<'v, 'o, T, M> Writes<usize> for Segments<'v, 'o, T, M> {
    type Parts = Segments<'v, 'o, T, M>;
    #[track_caller]
    fn into_parts(self, label: &str, bound: usize) -> Self::Parts {
        let count = self.offsets.count();
        if bound > count {
            too_few(label, self.offsets.label, self.view.label, count, bound);
        }
        self
    }
}

// SAFETY: `Offsets::new` checked that the offsets never decrease and
// `Offsets::segments` that the last is within the View, so the segments
// `offsets[i]..offsets[i + 1]` of distinct `i` are disjoint ranges of the
// View's indices, whose elements are distinct (a Mapping invariant); the
// offsets cannot change while borrowed. `covers` admits only indices that
// have a segment.
unsafe impl<T: Element, M: MemorySpace> WriteParts<usize, M> for Segments<'_, '_, T, M> {
    type Item<'a> = Segment<'a, T>;
    #[inline(always)]
    fn covers(&self, reach: &usize) -> bool {
        *reach <= self.offsets.count()
    }
    #[inline(always)]
    unsafe fn item<'a>(&self, i: usize) -> Segment<'a, T>
    where
        M: HostAccessible,
    {
        let (start, end) = (self.offsets.at(i), self.offsets.at(i + 1));
        // SAFETY: the caller keeps the item within the parts' life, which
        // is the View's borrow, so the label outlives it.
        let label: &'a str = unsafe { &*(self.view.label as *const str) };
        Segment {
            // SAFETY: `start` is at most the last offset, which is within
            // the View's extent, so the address is in (or one past) its span.
            ptr: unsafe { self.view.ptr.add(start * self.view.strides[0]) },
            stride: self.view.strides[0],
            len: end - start,
            start,
            index: i,
            label,
            _borrow: PhantomData,
        }
    }
}

// SAFETY: as for the host parts: the device driver hands work item `i`
// the segment `offsets[i]..offsets[i + 1]` read from the same checked,
// borrowed offsets, and checks each index against the segment's length.
unsafe impl<T, V, M> DeviceWrites<usize, M> for Segments<'_, '_, T, V>
where
    T: DeviceValue,
    V: MemorySpace + SameMemorySpace<M>,
    M: MemorySpace,
{
    type Outputs = Segment<'static, T>;
    fn covers(&self, reach: &usize) -> bool {
        *reach <= self.offsets.count()
    }
    fn device_args<'s>(&'s self, out: &mut Vec<DeviceArg<'s>>) {
        out.push(DeviceArg::Written(self.view.view_arg()));
        out.push(DeviceArg::View(self.offsets.arg()));
    }
}

/// Segment `i` of a written View: its elements `offsets[i]..offsets[i +
/// 1]`, indexed from 0. Only a pattern hands one out, to work item `i`.
pub struct Segment<'a, T> {
    /// Element `offsets[i]` of the View.
    ptr: *mut T,
    stride: usize,
    len: usize,
    start: usize,
    index: usize,
    label: &'a str,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a Segment is a unique borrow of its elements, like `&mut [T]`.
unsafe impl<T: Send> Send for Segment<'_, T> {}
// SAFETY: shared access only reads, like `&[T]`.
unsafe impl<T: Sync> Sync for Segment<'_, T> {}

impl<T> Segment<'_, T> {
    /// The number of elements of the segment.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the segment has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The segment's index `i` (its work item's).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The View index of the segment's first element, `offsets[i]`.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The segment as a slice when its elements are contiguous (a View of
    /// stride 1), else `None`.
    pub fn as_mut_slice(&mut self) -> Option<&mut [T]> {
        (self.stride == 1 || self.len <= 1).then(|| {
            // SAFETY: the segment's `len` elements follow each other from
            // `ptr`, and the Segment borrows them uniquely.
            unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
        })
    }

    #[inline(always)]
    #[track_caller]
    fn offset(&self, k: usize) -> usize {
        if k >= self.len {
            out_of_segment(self.label, self.index, k, self.start, self.len);
        }
        k * self.stride
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_segment(label: &str, index: usize, k: usize, start: usize, len: usize) -> ! {
    panic!(
        "segment {index} of View \"{label}\": index {k} is past its {len} elements (the View's {start}..{})",
        start + len
    )
}

impl<T> Index<usize> for Segment<'_, T> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, k: usize) -> &T {
        let off = self.offset(k);
        // SAFETY: `offset` checked `k` against the segment's length, so the
        // element is one of the segment's.
        unsafe { &*self.ptr.add(off) }
    }
}

impl<T> IndexMut<usize> for Segment<'_, T> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, k: usize) -> &mut T {
        let off = self.offset(k);
        // SAFETY: as for `index`; `&mut self` lends it uniquely.
        unsafe { &mut *self.ptr.add(off) }
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[test]
    fn each_item_writes_its_segment_of_a_strided_view() {
        let starts = View1::<usize>::from_vec("starts", 5, vec![2, 2, 5, 6, 9]).unwrap();
        let offsets = Offsets::new(&starts).unwrap();
        assert_eq!((offsets.count(), offsets.end()), (4, 9));
        let mut v = View1::<i32, LayoutStride>::with_strides("v", [10], [3]).unwrap();
        parallel_for(
            "fill",
            RangePolicy::new(&Serial, 0..4),
            offsets.segments(&mut v).unwrap(),
            |i, mut s: Segment<i32>| {
                assert!(s.as_mut_slice().is_none() || s.len() <= 1);
                for k in 0..s.len() {
                    s[k] = (10 * i + k) as i32 + 1;
                }
                assert_eq!((s.index(), s.is_empty()), (i, i == 0));
            },
        );
        assert_eq!(v.to_vec(), [0, 0, 11, 12, 13, 21, 31, 32, 33, 0]);
    }

    #[test]
    fn offsets_past_the_view_name_both() {
        let starts = View1::<usize>::from_vec("starts", 3, vec![0, 3, 7]).unwrap();
        let mut v = View1::<u8>::zeros("v", 6).unwrap();
        let err = Offsets::new(&starts).unwrap().segments(&mut v).unwrap_err();
        assert_eq!(
            err,
            SegmentError::PastView {
                offsets: "starts".into(),
                view: "v".into(),
                end: 7,
                extent: 6
            }
        );
        let empty = View1::<usize>::zeros("none", 0).unwrap();
        assert!(matches!(
            Offsets::new(&empty),
            Err(SegmentError::NoEntries { .. })
        ));
    }

    #[test]
    #[should_panic(
        expected = "segment 1 of View \"v\": index 2 is past its 2 elements (the View's 1..3)"
    )]
    fn an_index_past_the_segment_names_the_view_and_the_segment() {
        let starts = View1::<usize>::from_vec("starts", 3, vec![0, 1, 3]).unwrap();
        let offsets = Offsets::new(&starts).unwrap();
        let mut v = View1::<f64>::zeros("v", 3).unwrap();
        parallel_for(
            "past",
            RangePolicy::new(&Serial, 1..2),
            offsets.segments(&mut v).unwrap(),
            |_, mut s: Segment<f64>| s[2] = 1.0,
        );
    }

    #[test]
    #[should_panic(expected = "offsets \"starts\" give 2 segments of View \"v\"")]
    fn a_range_past_the_segments_is_refused_before_any_item() {
        let starts = View1::<usize>::from_vec("starts", 3, vec![0, 1, 3]).unwrap();
        let offsets = Offsets::new(&starts).unwrap();
        let mut v = View1::<f64>::zeros("v", 3).unwrap();
        parallel_for(
            "short",
            RangePolicy::new(&Serial, 0..3),
            offsets.segments(&mut v).unwrap(),
            |_, _: Segment<f64>| {},
        );
    }
}
