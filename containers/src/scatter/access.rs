//! The handle a work item writes a ScatterView through.

use super::op::{ScatterOp, ScatterValue};
use granule_core::reducer::{Prod, Sum};
use granule_views::view::IntoIndex;
use std::marker::PhantomData;

/// One thread's way into a [`ScatterView`](super::ScatterView), from
/// [`access`](super::ScatterView::access): the only way to write it.
///
/// It writes the copy its thread owns (plain stores) or, where the
/// strategy or the pool's size says so, the shared copy (atomics). It can
/// neither leave its thread (it is neither `Send` nor `Sync`) nor lend an
/// element: its only writes are the ScatterView's operation
/// ([`update`](Self::update), and its spellings [`add`](Self::add) for
/// [`Sum`] and [`mul`](Self::mul) for [`Prod`]), so no other write can
/// reach the copies.
///
/// ```
/// use granule::prelude::*;
/// use granule::containers::scatter::ScatterView;
/// let mut counts = View1::<u32>::zeros("counts", 3)?;
/// let mut sv = ScatterView::<u32, 1>::for_view(&Serial, &counts)?;
/// let a = sv.access();
/// a.add(2, 5);
/// a.update(2, 1); // the view's operation (here Sum), for any operation
/// sv.contribute_into(&mut counts)?;
/// assert_eq!(counts.to_vec(), vec![0, 0, 6]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ScatterAccess<'a, T: ScatterValue, const R: usize, Op: ScatterOp<T> = Sum> {
    /// Element 0 of the copy this handle writes.
    base: *mut T,
    atomic: bool,
    extents: [usize; R],
    label: &'a str,
    /// Tied to the ScatterView's shared borrow; the raw pointer type keeps
    /// the handle on its thread (the claim is the thread's, not the
    /// handle's).
    _borrow: PhantomData<(&'a (), *mut T, Op)>,
}

impl<'a, T: ScatterValue, const R: usize, Op: ScatterOp<T>> ScatterAccess<'a, T, R, Op> {
    /// # Safety
    /// `base` is element 0 of a LayoutRight copy of `extents` that lives
    /// for `'a`, which, when `atomic` is false, only the calling thread
    /// accesses for `'a`, and otherwise is accessed only atomically.
    pub(super) unsafe fn new(
        base: *mut T,
        atomic: bool,
        extents: [usize; R],
        label: &'a str,
    ) -> Self {
        ScatterAccess {
            base,
            atomic,
            extents,
            label,
            _borrow: PhantomData,
        }
    }

    /// The same handle with any lifetime (the written-argument dispatch
    /// chooses it).
    ///
    /// # Safety
    /// The handle must not outlive the ScatterView's borrow it came from.
    #[inline(always)]
    pub(super) unsafe fn extend<'b>(self) -> ScatterAccess<'b, T, R, Op> {
        // SAFETY: the caller keeps the label borrowed no longer than the
        // ScatterView that owns it lives.
        let label: &'b str = unsafe { &*(self.label as *const str) };
        ScatterAccess {
            base: self.base,
            atomic: self.atomic,
            extents: self.extents,
            label,
            _borrow: PhantomData,
        }
    }

    /// A second handle to the same copy, for the next work item on this
    /// thread (not `Clone`: users take handles from `access`).
    #[inline(always)]
    pub(super) fn again(&self) -> Self {
        ScatterAccess { ..*self }
    }

    /// Combines `v` into the element at `idx` with the ScatterView's
    /// operation (Kokkos's `access(i).update(v)`; the form for [`Min`]
    /// and [`Max`]).
    ///
    /// # Panics
    /// Outside the extents, naming the ScatterView's label, the index and
    /// the extents.
    ///
    /// [`Min`]: granule_core::reducer::Min
    /// [`Max`]: granule_core::reducer::Max
    #[inline(always)]
    pub fn update(&self, idx: impl IntoIndex<R>, v: T) {
        let ptr = self.element(idx.into_index());
        // SAFETY: `ptr` is an element of this handle's copy (checked), and
        // `atomic` says how the copy is accessed (the handle's contract).
        unsafe { combine::<T, Op>(ptr, self.atomic, v) }
    }

    /// The element at `idx`, bounds-checked.
    #[inline(always)]
    fn element(&self, idx: [usize; R]) -> *mut T {
        let mut off = 0usize;
        for r in 0..R {
            if idx[r] >= self.extents[r] {
                out_of_bounds(self.label, idx, self.extents);
            }
            off = off * self.extents[r] + idx[r];
        }
        // SAFETY: in bounds, so inside the copy (LayoutRight offsets of
        // indices within the extents are below their product).
        unsafe { self.base.add(off) }
    }

    /// Whether this handle writes the shared copy with atomics (`false`:
    /// its thread's own copy, with plain stores).
    pub fn is_atomic(&self) -> bool {
        self.atomic
    }
}

/// Combines `v` into `*ptr` with `Op`: atomically, or with a plain read
/// and write.
///
/// # Safety
/// `ptr` is a valid, aligned element of a copy that, when `atomic` is
/// false, only the calling thread accesses (and no reference to the
/// element exists), and otherwise is accessed only atomically.
#[inline(always)]
unsafe fn combine<T: ScatterValue, Op: ScatterOp<T>>(ptr: *mut T, atomic: bool, v: T) {
    if atomic {
        // SAFETY: the shared copy is only ever accessed atomically while
        // handles exist, and the element is valid and aligned
        // (`Atomic::as_atom`'s contract; the copy is a View of T).
        Op::atomic(unsafe { T::as_atom(ptr) }, v)
    } else {
        // SAFETY: this thread alone accesses its private copy while the
        // handle lives (the claim), and no reference to the element
        // exists: read, combine and write are one step here.
        unsafe { ptr.write(Op::combine(ptr.read(), v)) }
    }
}

impl<'a, T: ScatterValue, Op: ScatterOp<T>> ScatterAccess<'a, T, 1, Op> {
    /// This handle as one over exactly `N` elements, a constant: the
    /// extent is checked here, once, and each update's index against `N`,
    /// a check the compiler drops where it can prove the index below `N`
    /// (`v % N`, a loop bound). In a tight loop that check is what the
    /// copy's runtime extent costs: about half again the time of a
    /// histogram's update (`benches/scatter_view.rs`). Host spaces only.
    ///
    /// # Panics
    /// When the ScatterView's extent is not `N`, naming its label and both
    /// lengths.
    ///
    /// ```
    /// use granule::prelude::*;
    /// use granule::containers::scatter::ScatterView;
    /// const BINS: usize = 10;
    /// let mut counts = View1::<u32>::zeros("counts", BINS)?;
    /// let mut sv = ScatterView::<u32, 1>::for_view(&Serial, &counts)?;
    /// let a = sv.access().fixed::<BINS>();
    /// for v in 0..95u32 {
    ///     a.add(v as usize % BINS, 1);
    /// }
    /// sv.contribute_into(&mut counts)?;
    /// assert_eq!(counts.to_vec(), [10, 10, 10, 10, 10, 9, 9, 9, 9, 9]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    pub fn fixed<const N: usize>(self) -> FixedAccess<'a, T, N, Op> {
        if self.extents[0] != N {
            wrong_length(self.label, self.extents[0], N);
        }
        FixedAccess { inner: self }
    }
}

#[cold]
#[inline(never)]
fn wrong_length(label: &str, extent: usize, n: usize) -> ! {
    panic!("ScatterView \"{label}\": fixed::<{n}>() on a ScatterView of extent {extent}")
}

/// A rank-1 [`ScatterAccess`] whose extent is the constant `N`, from
/// [`ScatterAccess::fixed`]: the same writes, with the index checked
/// against `N`.
pub struct FixedAccess<'a, T: ScatterValue, const N: usize, Op: ScatterOp<T> = Sum> {
    inner: ScatterAccess<'a, T, 1, Op>,
}

impl<T: ScatterValue, const N: usize, Op: ScatterOp<T>> FixedAccess<'_, T, N, Op> {
    /// Combines `v` into element `idx` with the ScatterView's operation,
    /// as [`ScatterAccess::update`] does.
    ///
    /// # Panics
    /// When `idx >= N`, naming the label, the index and the extent.
    #[inline(always)]
    pub fn update(&self, idx: usize, v: T) {
        if idx >= N {
            out_of_bounds(self.inner.label, [idx], [N]);
        }
        // SAFETY: `idx < N`, the copy's extent (checked by `fixed`), so the
        // element is in the copy; `atomic` comes with the handle.
        unsafe { combine::<T, Op>(self.inner.base.add(idx), self.inner.atomic, v) }
    }
}

impl<T: ScatterValue, const N: usize> FixedAccess<'_, T, N, Sum> {
    /// Adds `v` to element `idx`, as [`ScatterAccess::add`] does.
    #[inline(always)]
    pub fn add(&self, idx: usize, v: T) {
        self.update(idx, v)
    }
}

impl<T: ScatterValue, const N: usize> FixedAccess<'_, T, N, Prod> {
    /// Multiplies element `idx` by `v`, as [`ScatterAccess::mul`] does.
    #[inline(always)]
    pub fn mul(&self, idx: usize, v: T) {
        self.update(idx, v)
    }
}

#[cold]
#[inline(never)]
// The index and extents by value: taking their addresses would make the
// hot path keep them on the stack.
fn out_of_bounds<const R: usize>(label: &str, idx: [usize; R], ext: [usize; R]) -> ! {
    panic!("ScatterView \"{label}\": index {idx:?} is out of bounds for extents {ext:?}")
}

impl<T: ScatterValue, const R: usize> ScatterAccess<'_, T, R, Sum> {
    /// Adds `v` to the element at `idx` (Kokkos's `access(i) += v`;
    /// integers wrap, as their atomics do). A ScatterView of [`Sum`] only.
    #[inline(always)]
    pub fn add(&self, idx: impl IntoIndex<R>, v: T) {
        self.update(idx, v)
    }
}

impl<T: ScatterValue, const R: usize> ScatterAccess<'_, T, R, Prod> {
    /// Multiplies the element at `idx` by `v` (Kokkos's `access(i) *= v`;
    /// integers wrap). A ScatterView of [`Prod`] only.
    #[inline(always)]
    pub fn mul(&self, idx: impl IntoIndex<R>, v: T) {
        self.update(idx, v)
    }
}
