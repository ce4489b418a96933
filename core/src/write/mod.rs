//! The write model: a pattern call names the Views it writes, and each
//! work item receives exactly the elements it owns.
//!
//! - [`RangePolicy`](crate::RangePolicy): element `i` of each written
//!   rank-1 View;
//! - [`MDRangePolicy`](crate::MDRangePolicy): element `(i, j, ..)` of each
//!   written View of the policy's rank;
//! - [`TeamPolicy`](crate::TeamPolicy): the team's chunk under a chunk
//!   map (see [`crate::team::TeamChunk`]).
//!
//! Several Views are written by passing a tuple of `&mut` Views; the work
//! item then gets a tuple of elements. `()` writes nothing. Because the
//! call borrows written Views uniquely, a kernel cannot even name an
//! element it does not own:
//!
//! ```compile_fail,E0499
//! use granule_core::prelude::*;
//! let mut y = View1::<f64>::zeros("y", 4).unwrap();
//! // y is borrowed by the call: writing y[i + 1] inside does not compile
//! parallel_for("bad", RangePolicy::new(&Serial, 0..3), &mut y, |i, yi: &mut f64| { *yi = 1.0; y[i + 1] = 2.0; });
//! ```
//!
//! ```
//! use granule_core::prelude::*;
//! let x = View1::<f64>::from_fn("x", 4, |i| i as f64).unwrap();
//! let (mut y, mut z) = (View1::<f64>::zeros("y", 4).unwrap(), View1::<f64>::zeros("z", 4).unwrap());
//! parallel_for("two", RangePolicy::new(&Serial, 0..4), (&mut y, &mut z),
//!     |i, (yi, zi): (&mut f64, &mut f64)| { *yi = 2.0 * x[i]; *zi = x[i] + 1.0 });
//! assert_eq!((y[3], z[3]), (6.0, 4.0));
//! ```

use granule_views::storage::StorageMut;
use granule_views::{HostAccessible, Layout, Pod, ViewBase};

/// Raw access to the elements a pattern hands to work items, shared by
/// every worker thread.
///
/// # Safety
/// Implementations promise that for indices inside the bound checked by
/// [`Writes::into_parts`], `item(a)` and `item(b)` with `a != b` reach
/// disjoint memory, and that this memory stays valid and otherwise
/// unaccessed for the whole dispatch (the `Writes` value holds a unique
/// borrow of it).
pub unsafe trait WriteParts<I>: Sync {
    /// What a work item receives.
    type Item<'a>;
    /// The elements of work item `idx`.
    ///
    /// # Safety
    /// `idx` must be inside the checked bound, the dispatch must still be
    /// running, and no other item for the same `idx` may be alive (each
    /// index is handed out once at a time).
    unsafe fn item<'a>(&self, idx: I) -> Self::Item<'a>;

    /// Whether every written View has unit stride, so that
    /// [`item_unit`](Self::item_unit) may be used (leaf loops then index
    /// with plain pointer offsets the compiler can vectorize).
    #[inline(always)]
    fn unit_stride(&self) -> bool {
        false
    }

    /// Like [`item`](Self::item), for parts whose `unit_stride()` is true.
    ///
    /// # Safety
    /// As for `item`, and `unit_stride()` must have returned true.
    #[inline(always)]
    unsafe fn item_unit<'a>(&self, idx: I) -> Self::Item<'a> {
        // SAFETY: forwarded contract.
        unsafe { self.item(idx) }
    }

    /// Calls `body(i, item(i))` for every `i` in `lo..hi`, in order: the
    /// leaf loop of range patterns.
    ///
    /// A written rank-1 View of unit stride overrides it to hand the loop
    /// its elements as one `&mut [T]` (a `noalias` borrow): the compiler
    /// then knows that stores to the outputs do not change anything else
    /// the body reads (such as the pointer and extents of a captured View),
    /// so it hoists those loads and the bounds checks out of the loop and
    /// vectorizes it.
    ///
    /// # Safety
    /// Every index of `lo..hi` must satisfy the contract of
    /// [`item`](Self::item) for the whole call.
    #[inline(always)]
    unsafe fn for_each_item<'a, B>(&self, lo: usize, hi: usize, mut body: B)
    where
        I: From<usize>,
        B: FnMut(usize, Self::Item<'a>),
    {
        if self.unit_stride() {
            for i in lo..hi {
                // SAFETY: forwarded contract; unit stride was checked.
                body(i, unsafe { self.item_unit(I::from(i)) })
            }
        } else {
            for i in lo..hi {
                // SAFETY: forwarded contract.
                body(i, unsafe { self.item(I::from(i)) })
            }
        }
    }
}

/// The leaf loop over one unit-stride output, taken as a `&mut [T]`
/// argument so that its `noalias` scope covers the whole loop (see
/// [`WriteParts::for_each_item`]).
#[inline(always)]
fn slice_loop<'a, T, B: FnMut(usize, &'a mut T)>(lo: usize, out: &'a mut [T], mut body: B) {
    for (k, x) in out.iter_mut().enumerate() {
        body(lo + k, x)
    }
}

/// Something a pattern call may write: `&mut` View, a tuple of them, `()`,
/// or team chunks.
pub trait Writes<I> {
    /// The raw form shared with worker threads.
    type Parts: WriteParts<I>;
    /// Checks that every index below `bound` has elements, and gives the
    /// raw form.
    ///
    /// # Panics
    /// If a written View is too small for the policy, naming the pattern's
    /// label, the View's label, its extents and the bound.
    fn into_parts(self, label: &str, bound: I) -> Self::Parts;
}

/// The item a work item receives for writes `W` under write index `I`.
pub type WriteItem<'a, W, I> = <<W as Writes<I>>::Parts as WriteParts<I>>::Item<'a>;

// SAFETY: `()` hands out nothing.
unsafe impl<I> WriteParts<I> for () {
    type Item<'a> = ();
    #[inline(always)]
    unsafe fn item<'a>(&self, _idx: I) -> Self::Item<'a> {}
    #[inline(always)]
    fn unit_stride(&self) -> bool {
        true
    }
}

impl<I> Writes<I> for () {
    type Parts = ();
    #[inline(always)]
    fn into_parts(self, _label: &str, _bound: I) {}
}

/// The raw parts of a written View: base pointer and strides.
#[derive(Debug)]
pub struct ViewParts<T, const R: usize> {
    ptr: *mut T,
    strides: [usize; R],
}

impl<T, const R: usize> Clone for ViewParts<T, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const R: usize> Copy for ViewParts<T, R> {}

// SAFETY: the parts stand for a unique borrow of Pod elements held by the
// pattern call; each element goes to one work item only (WriteParts contract).
unsafe impl<T: Pod, const R: usize> Send for ViewParts<T, R> {}
// SAFETY: as above.
unsafe impl<T: Pod, const R: usize> Sync for ViewParts<T, R> {}

// SAFETY: distinct in-bounds indices have distinct offsets (a Mapping
// invariant of granule-views), and `into_parts` checked the bound against
// the extents while holding `&mut` to the View.
unsafe impl<T: Pod> WriteParts<usize> for ViewParts<T, 1> {
    type Item<'a> = &'a mut T;
    #[inline(always)]
    unsafe fn item<'a>(&self, i: usize) -> &'a mut T {
        // SAFETY: the caller keeps `i` below the checked bound and hands it
        // out once; the offset is inside the View's span.
        unsafe { &mut *self.ptr.add(i * self.strides[0]) }
    }
    #[inline(always)]
    fn unit_stride(&self) -> bool {
        self.strides[0] == 1
    }
    #[inline(always)]
    unsafe fn item_unit<'a>(&self, i: usize) -> &'a mut T {
        // SAFETY: as for `item`, with stride 1 (the caller checked it).
        unsafe { &mut *self.ptr.add(i) }
    }
    #[inline(always)]
    unsafe fn for_each_item<'a, B>(&self, lo: usize, hi: usize, mut body: B)
    where
        B: FnMut(usize, &'a mut T),
    {
        if self.strides[0] == 1 {
            // SAFETY: the caller guarantees that every index of `lo..hi` is
            // below the checked bound (so `lo..hi` lies inside the View's
            // span, which is contiguous with stride 1) and that nothing else
            // reaches these elements during the call, so a unique slice of
            // them is sound.
            let out =
                unsafe { std::slice::from_raw_parts_mut(self.ptr.add(lo), hi.saturating_sub(lo)) };
            slice_loop(lo, out, body)
        } else {
            for i in lo..hi {
                // SAFETY: forwarded contract.
                body(i, unsafe { self.item(i) })
            }
        }
    }
}

// SAFETY: as for rank 1: offsets of distinct in-bounds multi-indices differ.
unsafe impl<T: Pod, const R: usize> WriteParts<[usize; R]> for ViewParts<T, R> {
    type Item<'a> = &'a mut T;
    #[inline(always)]
    unsafe fn item<'a>(&self, idx: [usize; R]) -> &'a mut T {
        let off: usize = (0..R).map(|r| idx[r] * self.strides[r]).sum();
        // SAFETY: as for rank 1.
        unsafe { &mut *self.ptr.add(off) }
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn too_small(label: &str, view: &str, extents: &[usize], bound: &[usize]) -> ! {
    panic!(
        "parallel dispatch \"{label}\": written View \"{view}\" has extents {extents:?} but the policy reaches indices up to (excluding) {bound:?}"
    )
}

impl<S, L> Writes<usize> for &mut ViewBase<S, 1, L>
where
    S: StorageMut,
    S::Space: HostAccessible,
    L: Layout,
{
    type Parts = ViewParts<S::Elem, 1>;
    #[track_caller]
    fn into_parts(self, label: &str, bound: usize) -> Self::Parts {
        if self.extent(0) < bound {
            too_small(label, self.label(), &self.extents(), &[bound]);
        }
        let strides = self.strides();
        ViewParts {
            ptr: self.as_mut_ptr(),
            strides,
        }
    }
}

impl<S, L, const R: usize> Writes<[usize; R]> for &mut ViewBase<S, R, L>
where
    S: StorageMut,
    S::Space: HostAccessible,
    L: Layout,
{
    type Parts = ViewParts<S::Elem, R>;
    #[track_caller]
    fn into_parts(self, label: &str, bound: [usize; R]) -> Self::Parts {
        if (0..R).any(|r| self.extent(r) < bound[r]) {
            too_small(label, self.label(), &self.extents(), &bound);
        }
        let strides = self.strides();
        ViewParts {
            ptr: self.as_mut_ptr(),
            strides,
        }
    }
}

macro_rules! tuple_writes {
    ($(($w:ident, $i:tt)),+) => {
        // SAFETY: each component upholds the contract for its own memory;
        // the components are distinct `&mut` borrows, hence disjoint.
        unsafe impl<I: Copy, $($w: WriteParts<I>),+> WriteParts<I> for ($($w,)+) {
            type Item<'a> = ($($w::Item<'a>,)+);
            #[inline(always)]
            unsafe fn item<'a>(&self, idx: I) -> Self::Item<'a> {
                // SAFETY: forwarded contract.
                unsafe { ($(self.$i.item(idx),)+) }
            }
            #[inline(always)]
            fn unit_stride(&self) -> bool {
                $(self.$i.unit_stride())&&+
            }
            #[inline(always)]
            unsafe fn item_unit<'a>(&self, idx: I) -> Self::Item<'a> {
                // SAFETY: forwarded contract; all components have unit stride.
                unsafe { ($(self.$i.item_unit(idx),)+) }
            }
        }
        impl<I: Copy, $($w: Writes<I>),+> Writes<I> for ($($w,)+) {
            type Parts = ($($w::Parts,)+);
            #[track_caller]
            fn into_parts(self, label: &str, bound: I) -> Self::Parts {
                ($(self.$i.into_parts(label, bound),)+)
            }
        }
    };
}
tuple_writes!((W0, 0));
tuple_writes!((W0, 0), (W1, 1));
tuple_writes!((W0, 0), (W1, 1), (W2, 2));
tuple_writes!((W0, 0), (W1, 1), (W2, 2), (W3, 3));
tuple_writes!((W0, 0), (W1, 1), (W2, 2), (W3, 3), (W4, 4));
tuple_writes!((W0, 0), (W1, 1), (W2, 2), (W3, 3), (W4, 4), (W5, 5));

#[cfg(test)]
mod tests {
    use super::*;
    use granule_views::{LayoutLeft, View1, View2};

    #[test]
    #[should_panic(expected = "\"axpy\": written View \"y\" has extents [3]")]
    fn too_small_view_names_labels() {
        let mut y = View1::<f64>::zeros("y", 3).unwrap();
        let _ = (&mut y).into_parts("axpy", 4usize);
    }

    #[test]
    fn items_follow_the_layout() {
        let mut a = View2::<i32, LayoutLeft>::zeros("a", [2, 3]).unwrap();
        let p = (&mut a).into_parts("t", [2, 3]);
        // SAFETY: in bounds, one item at a time.
        unsafe { *p.item([1, 2]) = 7 };
        assert_eq!(a[[1, 2]], 7);
    }
}
