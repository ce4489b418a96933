//! The write model: a pattern call names the Views it writes, and each
//! work item receives exactly the elements it owns.
//!
//! - [`RangePolicy`](crate::RangePolicy): element `i` of each written
//!   rank-1 View, and row `i` ([`Row`]) of each written View of rank 2
//!   or more; or, given checked [`Offsets`], segment `i` ([`Segment`],
//!   the elements `offsets[i]..offsets[i + 1]`) of a written rank-1 View;
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

mod row;
mod segment;

pub use row::Row;
pub use segment::{Offsets, Segment, Segments};

use crate::kernel::SameMemorySpace;
use granule_views::storage::StorageMut;
use granule_views::{Element, HostAccessible, HostSpace, Layout, MemorySpace, ViewBase};
use std::marker::PhantomData;

/// Raw access to the elements a pattern hands to work items, shared by
/// every worker thread.
///
/// `M` is the memory space the parts are taken for: the parts of a View
/// implement it for the View's own space. The host drivers ask for
/// `WriteParts<I>` (`M = HostSpace`), and the item methods exist only
/// where `M` is [`HostAccessible`], so device memory is never handed to
/// host code; the trait holds for every space so that code generic over
/// one (`granule_core::portable`) can name a work item's type.
///
/// # Safety
/// Implementations promise that:
/// - for every index `idx` with [`covers`](Self::covers)`(r)` true for
///   some `r` above `idx` (componentwise), `item(idx)` reaches only memory
///   the parts hold, and `item(a)`, `item(b)` with `a != b` reach disjoint
///   memory; or else (the one exception) the items are handles that lend
///   no reference, are neither `Send` nor `Sync`, and write only in ways
///   that cannot race whichever threads the dispatch runs them on: plain
///   stores only to memory that the thread running the item owns for the
///   parts' life, atomics elsewhere (a ScatterView's per-thread copies,
///   granule-containers' `ScatterParts`);
/// - that memory stays valid and is accessed by nothing but the parts for
///   as long as the parts live (they hold a unique borrow of it, whose
///   lifetime is part of their type, or a shared borrow of a container
///   that writes it only through such handles);
/// - `covers` never answers true for a reach beyond what the parts hold.
pub unsafe trait WriteParts<I, M: MemorySpace = HostSpace>: Sync {
    /// What a work item receives.
    type Item<'a>;

    /// Whether every write index below `reach` (componentwise) has elements
    /// in these parts. Drivers check it once per dispatch, against the
    /// policy's [`write_bound`](crate::Policy::write_bound), before they
    /// hand out any item.
    fn covers(&self, reach: &I) -> bool;

    /// The elements of work item `idx`.
    ///
    /// # Safety
    /// `idx` must be below a reach the parts [cover](Self::covers), the
    /// item must not outlive the parts, and no other item for the same
    /// `idx` may be alive (each index is handed out once at a time).
    unsafe fn item<'a>(&self, idx: I) -> Self::Item<'a>
    where
        M: HostAccessible;

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
    unsafe fn item_unit<'a>(&self, idx: I) -> Self::Item<'a>
    where
        M: HostAccessible,
    {
        // SAFETY: forwarded contract.
        unsafe { self.item(idx) }
    }

    /// Asks the memory system for the lines of items `lo..hi`, to be
    /// written soon, without waiting for them. A hint: parts that cannot
    /// name their memory ask for nothing, and indices past the parts'
    /// elements are not asked for. See [`for_each_item_fetching`].
    #[inline(always)]
    fn fetch_for_write(&self, lo: usize, hi: usize) {
        let _ = (lo, hi);
    }

    /// The bytes per item whose lines [`fetch_for_write`](Self::fetch_for_write)
    /// asks for (0 when it asks for none): how drivers tell a write that
    /// runs from memory from one that stays in cache.
    #[inline(always)]
    fn fetched_bytes_per_item(&self) -> usize {
        0
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
        M: HostAccessible,
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

/// Written bytes beyond which a range's outputs are taken to come from
/// memory rather than cache (the L2 and L3 of the machines we measure
/// hold less); below it, asking for lines only costs instructions.
pub const FETCH_WRITES_BYTES: usize = 16 << 20;

/// Bytes of written elements per ask of [`for_each_item_fetching`]: few
/// enough lines for the core's fill buffers to take in one go.
const FETCH_RUN_BYTES: usize = 2048;

/// Whether `items` items of `writes` write more than [`FETCH_WRITES_BYTES`]
/// of lines that [`WriteParts::fetch_for_write`] can ask for.
///
/// ```
/// use granule_core::prelude::*;
/// use granule_core::write::{fetches_writes, Writes};
/// let (mut a, mut b) = (View1::<i64>::zeros("a", 4).unwrap(), View1::<i64>::zeros("b", 4).unwrap());
/// let parts = (&mut a, &mut b).into_parts("pair", 4);
/// // 16 bytes per item: 2^20 items write exactly 16 MiB, one more is past it.
/// assert!(!fetches_writes(&parts, 1 << 20));
/// assert!(fetches_writes(&parts, (1 << 20) + 1));
/// ```
#[inline]
pub fn fetches_writes<W: WriteParts<usize>>(writes: &W, items: usize) -> bool {
    items.saturating_mul(writes.fetched_bytes_per_item()) > FETCH_WRITES_BYTES
}

/// [`WriteParts::for_each_item`] over `lo..hi` in runs of about 2 KiB of
/// written elements, asking for each run's written lines before making
/// its calls: for a pass that reads a block from memory before another
/// pass writes it, so that the written lines arrive while the core waits
/// for the reads anyway.
///
/// An ordinary store first reads its line from memory, and a pass that
/// writes one element per few instructions otherwise waits for each line
/// in turn: the hardware prefetchers of the VMs we measure did not keep
/// such writes fed.
///
/// # Safety
/// As for [`WriteParts::for_each_item`].
///
/// ```
/// use granule_core::prelude::*;
/// use granule_core::write::{for_each_item_fetching, Writes};
/// let mut y = View1::<u64>::zeros("y", 1000).unwrap();
/// let parts = (&mut y).into_parts("fill", 1000);
/// // SAFETY: 0..1000 is within the View, and each item is handed out once.
/// unsafe { for_each_item_fetching(&parts, 0, 1000, |i, yi: &mut u64| *yi = 2 * i as u64) };
/// drop(parts);
/// assert_eq!((y[0], y[999]), (0, 1998));
/// ```
#[inline(always)]
pub unsafe fn for_each_item_fetching<'a, W, B>(writes: &W, lo: usize, hi: usize, mut body: B)
where
    W: WriteParts<usize>,
    B: FnMut(usize, W::Item<'a>),
{
    let run = (FETCH_RUN_BYTES / writes.fetched_bytes_per_item().max(1)).max(1);
    let mut at = lo;
    while at < hi {
        let end = at.saturating_add(run).min(hi);
        writes.fetch_for_write(at, end);
        // SAFETY: `at..end` lies in `lo..hi`, which the caller vouches for.
        unsafe { writes.for_each_item(at, end, &mut body) };
        at = end;
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
///
/// # Safety
/// An implementation (a backend crate adding a kind of written object)
/// promises that the parts `into_parts` returns hold a unique borrow of
/// the elements they reach, for no longer than `self` lent it (the parts
/// type carries that lifetime), and that they [cover](WriteParts::covers)
/// `bound` or `into_parts` panics. Drivers check `covers` again, so a
/// broken promise about the bound is caught; one about the borrow is not.
pub unsafe trait Writes<I> {
    /// The raw form shared with worker threads ([`WriteParts`] for host
    /// spaces, [`DeviceWrites`](crate::kernel::DeviceWrites) for device ones).
    type Parts;
    /// Checks that every index below `bound` has elements, and gives the
    /// raw form.
    ///
    /// # Panics
    /// If a written View is too small for the policy, naming the pattern's
    /// label, the View's label, its extents and the bound.
    fn into_parts(self, label: &str, bound: I) -> Self::Parts;
}

/// Panics, naming the dispatch, unless `writes` covers `reach`: the check
/// every driver makes before it hands out an item.
#[inline]
#[track_caller]
pub fn assert_covers<I: std::fmt::Debug, W: WriteParts<I>>(label: &str, writes: &W, reach: &I) {
    if !writes.covers(reach) {
        uncovered(label, reach)
    }
}

/// [`assert_covers`] for the description a device space launches with:
/// the same check, the same panic.
///
/// ```should_panic
/// use granule_core::write::{assert_device_covers, Writes};
/// let mut y = granule_views::View1::<f64>::zeros("y", 4).unwrap();
/// let parts = (&mut y).into_parts("short", 4);
/// assert_device_covers::<_, granule_views::HostSpace, _>("short", &parts, &8);
/// ```
#[inline]
#[track_caller]
pub fn assert_device_covers<I, M, W>(label: &str, writes: &W, reach: &I)
where
    I: std::fmt::Debug,
    M: MemorySpace,
    W: crate::kernel::DeviceWrites<I, M>,
{
    if !writes.covers(reach) {
        uncovered(label, reach)
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn uncovered(label: &str, reach: &dyn std::fmt::Debug) -> ! {
    panic!(
        "parallel dispatch \"{label}\": the written parts do not cover the policy's indices (up to, excluding, {reach:?}); they were checked for a smaller bound"
    )
}

/// The item a work item receives for writes `W` under write index `I`.
pub type WriteItem<'a, W, I> = <<W as Writes<I>>::Parts as WriteParts<I>>::Item<'a>;

// SAFETY: `()` hands out nothing, so it covers any reach.
unsafe impl<I, M: MemorySpace> WriteParts<I, M> for () {
    type Item<'a> = ();
    #[inline(always)]
    fn covers(&self, _reach: &I) -> bool {
        true
    }
    #[inline(always)]
    unsafe fn item<'a>(&self, _idx: I) -> Self::Item<'a>
    where
        M: HostAccessible,
    {
    }
    #[inline(always)]
    fn unit_stride(&self) -> bool {
        true
    }
}

// SAFETY: `()` parts reach no memory.
unsafe impl<I> Writes<I> for () {
    type Parts = ();
    #[inline(always)]
    fn into_parts(self, _label: &str, _bound: I) {}
}

/// The raw parts of a written View: base pointer, strides and extents,
/// holding the View's unique borrow for `'v`. `M` is the View's memory
/// space: host spaces reach the elements only when `M` is
/// [`HostAccessible`]; a device space reads the description instead.
///
/// Only [`Writes::into_parts`] makes them; they are neither `Copy` nor
/// `Clone`, so one borrow gives one set of parts.
#[derive(Debug)]
pub struct ViewParts<'v, T, const R: usize, M = HostSpace> {
    ptr: *mut T,
    strides: [usize; R],
    extents: [usize; R],
    label: &'v str,
    _borrow: PhantomData<(&'v mut [T], M)>,
}

impl<T, const R: usize, M> ViewParts<'_, T, R, M> {
    /// The extents of the View: the bound the parts hold.
    pub fn extents(&self) -> [usize; R] {
        self.extents
    }

    #[inline(always)]
    pub(crate) fn holds(&self, reach: &[usize; R]) -> bool {
        (0..R).all(|r| reach[r] <= self.extents[r])
    }

    /// The View as a device entry point takes it.
    pub(crate) fn view_arg(&self) -> crate::kernel::ViewArg<'_> {
        crate::kernel::ViewArg::of::<T>(self.label, self.ptr as usize, &self.extents, &self.strides)
    }
}

// SAFETY: the parts stand for a unique borrow of `Send` elements; moving them
// moves that borrow, like `&mut [T]`.
unsafe impl<T: Element, const R: usize, M: MemorySpace> Send for ViewParts<'_, T, R, M> {}
// SAFETY: through `&ViewParts` elements are reached only by the unsafe
// `item`, whose contract gives each index to one work item at a time.
unsafe impl<T: Element, const R: usize, M: MemorySpace> Sync for ViewParts<'_, T, R, M> {}

// SAFETY: distinct in-bounds indices have distinct offsets (a Mapping
// invariant of granule-views); `covers` admits only reaches within the
// extents, which `into_parts` read while taking the View's `&mut` for 'v.
unsafe impl<T, V, M> WriteParts<usize, M> for ViewParts<'_, T, 1, V>
where
    T: Element,
    V: MemorySpace + SameMemorySpace<M>,
    M: MemorySpace,
{
    type Item<'a> = &'a mut T;
    #[inline(always)]
    fn covers(&self, reach: &usize) -> bool {
        self.holds(&[*reach])
    }
    #[inline(always)]
    unsafe fn item<'a>(&self, i: usize) -> &'a mut T
    where
        M: HostAccessible,
    {
        // SAFETY: the caller keeps `i` below the checked bound and hands it
        // out once; the offset is inside the View's span.
        unsafe { &mut *self.ptr.add(i * self.strides[0]) }
    }
    #[inline(always)]
    fn unit_stride(&self) -> bool {
        self.strides[0] == 1
    }
    #[inline(always)]
    unsafe fn item_unit<'a>(&self, i: usize) -> &'a mut T
    where
        M: HostAccessible,
    {
        // SAFETY: as for `item`, with stride 1 (the caller checked it).
        unsafe { &mut *self.ptr.add(i) }
    }
    #[inline(always)]
    fn fetch_for_write(&self, lo: usize, hi: usize) {
        // Only the View's own elements: any `lo..hi` a caller passes (the
        // method is safe) then asks for a bounded number of lines, and the
        // byte counts below cannot overflow.
        let hi = hi.min(self.extents()[0]);
        if self.strides[0] != 1 || lo >= hi {
            return;
        }
        let size = std::mem::size_of::<T>();
        let from = self.ptr.cast::<u8>().wrapping_add(lo * size);
        #[cfg(target_arch = "x86_64")]
        for k in (0..(hi - lo) * size).step_by(64) {
            // SAFETY: a prefetch is a hint that cannot fault, whatever the
            // address.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0};
                _mm_prefetch::<_MM_HINT_ET0>(from.wrapping_add(k).cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = from;
    }
    #[inline(always)]
    fn fetched_bytes_per_item(&self) -> usize {
        if self.strides[0] == 1 {
            std::mem::size_of::<T>()
        } else {
            0
        }
    }
    #[inline(always)]
    unsafe fn for_each_item<'a, B>(&self, lo: usize, hi: usize, mut body: B)
    where
        M: HostAccessible,
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
unsafe impl<T, const R: usize, V, M> WriteParts<[usize; R], M> for ViewParts<'_, T, R, V>
where
    T: Element,
    V: MemorySpace + SameMemorySpace<M>,
    M: MemorySpace,
{
    type Item<'a> = &'a mut T;
    #[inline(always)]
    fn covers(&self, reach: &[usize; R]) -> bool {
        self.holds(reach)
    }
    #[inline(always)]
    unsafe fn item<'a>(&self, idx: [usize; R]) -> &'a mut T
    where
        M: HostAccessible,
    {
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

/// The parts of `view` for writes below `bound`, or the panic naming both.
#[track_caller]
fn view_parts<'v, S, L, const R: usize>(
    view: &'v mut ViewBase<S, R, L>,
    label: &str,
    bound: [usize; R],
) -> ViewParts<'v, S::Elem, R, S::Space>
where
    S: StorageMut,
    L: Layout,
{
    let extents = view.extents();
    if (0..R).any(|r| extents[r] < bound[r]) {
        too_small(label, view.label(), &extents, &bound);
    }
    let ptr = view.as_mut_ptr();
    // The unique borrow becomes a shared one for the label: the parts
    // still hold it for 'v, and reach the elements only through `ptr`.
    let view: &'v ViewBase<S, R, L> = view;
    ViewParts {
        strides: view.strides(),
        extents,
        label: view.label(),
        ptr,
        _borrow: PhantomData,
    }
}

// SAFETY: the parts take the View's `&mut` for 'v and hold its extents,
// which `view_parts` checked against the bound.
unsafe impl<'v, S, L> Writes<usize> for &'v mut ViewBase<S, 1, L>
where
    S: StorageMut,
    L: Layout,
{
    type Parts = ViewParts<'v, S::Elem, 1, S::Space>;
    #[track_caller]
    fn into_parts(self, label: &str, bound: usize) -> Self::Parts {
        view_parts(self, label, [bound])
    }
}

// SAFETY: as for rank 1.
unsafe impl<'v, S, L, const R: usize> Writes<[usize; R]> for &'v mut ViewBase<S, R, L>
where
    S: StorageMut,
    L: Layout,
{
    type Parts = ViewParts<'v, S::Elem, R, S::Space>;
    #[track_caller]
    fn into_parts(self, label: &str, bound: [usize; R]) -> Self::Parts {
        view_parts(self, label, bound)
    }
}

macro_rules! tuple_writes {
    ($(($w:ident, $i:tt)),+) => {
        // SAFETY: each component upholds the contract for its own memory;
        // the components are distinct `&mut` borrows, hence disjoint.
        unsafe impl<I: Copy, M: MemorySpace, $($w: WriteParts<I, M>),+> WriteParts<I, M> for ($($w,)+) {
            type Item<'a> = ($($w::Item<'a>,)+);
            #[inline(always)]
            fn covers(&self, reach: &I) -> bool {
                $(self.$i.covers(reach))&&+
            }
            #[inline(always)]
            unsafe fn item<'a>(&self, idx: I) -> Self::Item<'a>
            where
                M: HostAccessible,
            {
                // SAFETY: forwarded contract.
                unsafe { ($(self.$i.item(idx),)+) }
            }
            #[inline(always)]
            fn unit_stride(&self) -> bool {
                $(self.$i.unit_stride())&&+
            }
            #[inline(always)]
            fn fetch_for_write(&self, lo: usize, hi: usize) {
                $(self.$i.fetch_for_write(lo, hi);)+
            }
            #[inline(always)]
            fn fetched_bytes_per_item(&self) -> usize {
                0 $(+ self.$i.fetched_bytes_per_item())+
            }
            #[inline(always)]
            unsafe fn item_unit<'a>(&self, idx: I) -> Self::Item<'a>
            where
                M: HostAccessible,
            {
                // SAFETY: forwarded contract; all components have unit stride.
                unsafe { ($(self.$i.item_unit(idx),)+) }
            }
        }
        // SAFETY: each component keeps its own promise; the tuple moves
        // the components' borrows into its parts.
        unsafe impl<I: Copy, $($w: Writes<I>),+> Writes<I> for ($($w,)+) {
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
    use granule_views::{LayoutLeft, LayoutStride, View1, View2};

    #[test]
    #[should_panic(expected = "\"axpy\": written View \"y\" has extents [3]")]
    fn too_small_view_names_labels() {
        let mut y = View1::<f64>::zeros("y", 3).unwrap();
        let _ = (&mut y).into_parts("axpy", 4usize);
    }

    fn bytes<W: WriteParts<usize>>(w: &W) -> usize {
        w.fetched_bytes_per_item()
    }

    #[test]
    fn fetched_bytes_count_unit_stride_views_only() {
        let mut a = View1::<i64>::zeros("a", 8).unwrap();
        let mut b = View1::<u16>::zeros("b", 8).unwrap();
        let mut c = View1::<f32, LayoutStride>::with_strides("c", [8], [2]).unwrap();
        assert_eq!(bytes(&(&mut a).into_parts("t", 8usize)), 8);
        assert_eq!(bytes(&(&mut a, &mut b).into_parts("t", 8usize)), 10);
        assert_eq!(bytes(&(&mut a, &mut c).into_parts("t", 8usize)), 8);
        assert_eq!(bytes(&()), 0);
        let parts = (&mut a).into_parts("t", 8usize);
        assert!(!fetches_writes(&parts, 8));
        assert!(fetches_writes(&parts, (FETCH_WRITES_BYTES / 8) + 1));
        assert!(!fetches_writes(&parts, FETCH_WRITES_BYTES / 8));
    }

    #[test]
    fn fetches_past_a_views_end_ask_for_nothing() {
        let mut a = View1::<i64>::zeros("a", 8).unwrap();
        let parts = (&mut a).into_parts("t", 8usize);
        // Unclamped, these would walk 2^64 bytes of prefetches (or wrap).
        WriteParts::<usize>::fetch_for_write(&parts, 0, usize::MAX);
        WriteParts::<usize>::fetch_for_write(&parts, usize::MAX - 1, usize::MAX);
        WriteParts::<usize>::fetch_for_write(&parts, 5, 2);
    }

    #[test]
    fn fetching_runs_visit_every_item_once_in_order() {
        // 2 KiB runs of 1-byte items: cuts at 2048, 4096, ..
        let n = 5000 + 3;
        let mut a = View1::<u8>::zeros("a", n).unwrap();
        let parts = (&mut a).into_parts("t", n);
        let mut seen = Vec::new();
        // SAFETY: every index is below the bound, one item at a time.
        unsafe {
            for_each_item_fetching(&parts, 3, n, |i, x: &mut u8| {
                *x += 1;
                seen.push(i);
            })
        };
        assert_eq!(seen, (3..n).collect::<Vec<_>>());
        assert_eq!(a.to_vec()[..3], [0, 0, 0]);
        assert!(a.to_vec()[3..].iter().all(|&x| x == 1));
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
