//! Atomic access to View elements, for scatter writes.
//!
//! [`AtomicView`] borrows a View uniquely, so while it lives every access
//! to the elements is atomic: copies of it may be shared by any number of
//! threads without a data race. As in Kokkos, the operations use relaxed
//! ordering; the end of a parallel dispatch (a join) orders them against
//! later reads.

use crate::element::Element;
use crate::error::{Result, ViewError};
use crate::layout::{Layout, Mapping};
use crate::space::{HostAccessible, HostSpace, MemorySpace};
use crate::storage::StorageMut;
use crate::view::{IntoIndex, ViewBase};
use std::marker::PhantomData;
use std::sync::atomic::{self as sa, Ordering::Relaxed};

/// Element types with atomic operations.
///
/// Integers use the hardware's native instructions (wrapping add/sub).
/// `f32` and `f64` use compare-and-swap loops on their bits; their
/// `compare_exchange` compares bits, so `-0.0` differs from `0.0`.
///
/// # Safety
/// `Atom` must have the same size as `Self`, and `as_atom` must only
/// reinterpret memory (no copy), so that all threads operate on one word.
pub unsafe trait Atomic: Element + PartialOrd {
    /// The standard atomic type operated on.
    type Atom: Sync;
    /// Reinterprets an element as its atomic type.
    ///
    /// # Safety
    /// `ptr` must be valid and aligned for `Self::Atom` for `'a`, and only
    /// accessed atomically during `'a`.
    unsafe fn as_atom<'a>(ptr: *mut Self) -> &'a Self::Atom;
    /// Reads the value.
    fn load(a: &Self::Atom) -> Self;
    /// Writes the value.
    fn store(a: &Self::Atom, v: Self);
    /// Writes `v` and returns the previous value.
    fn exchange(a: &Self::Atom, v: Self) -> Self;
    /// Writes `new` if the value is `current`; returns the previous value,
    /// `Ok` when it was replaced.
    fn compare_exchange(a: &Self::Atom, current: Self, new: Self) -> Result<Self, Self>;
    /// Adds `v` and returns the previous value.
    fn fetch_add(a: &Self::Atom, v: Self) -> Self;
    /// Subtracts `v` and returns the previous value.
    fn fetch_sub(a: &Self::Atom, v: Self) -> Self;
    /// Stores the minimum of the value and `v`; returns the previous value.
    fn fetch_min(a: &Self::Atom, v: Self) -> Self;
    /// Stores the maximum of the value and `v`; returns the previous value.
    fn fetch_max(a: &Self::Atom, v: Self) -> Self;
}

macro_rules! atomic_int {
    ($($t:ty => $a:ty),*) => { $(
        // SAFETY: the std atomic integer has the size of the integer, and
        // `from_ptr` reinterprets in place.
        unsafe impl Atomic for $t {
            type Atom = $a;
            unsafe fn as_atom<'a>(ptr: *mut $t) -> &'a $a {
                // SAFETY: the caller guarantees validity, alignment and
                // atomic-only access for 'a.
                unsafe { <$a>::from_ptr(ptr) }
            }
            #[inline] fn load(a: &$a) -> $t { a.load(Relaxed) }
            #[inline] fn store(a: &$a, v: $t) { a.store(v, Relaxed) }
            #[inline] fn exchange(a: &$a, v: $t) -> $t { a.swap(v, Relaxed) }
            #[inline] fn compare_exchange(a: &$a, c: $t, n: $t) -> Result<$t, $t> {
                a.compare_exchange(c, n, Relaxed, Relaxed)
            }
            #[inline] fn fetch_add(a: &$a, v: $t) -> $t { a.fetch_add(v, Relaxed) }
            #[inline] fn fetch_sub(a: &$a, v: $t) -> $t { a.fetch_sub(v, Relaxed) }
            #[inline] fn fetch_min(a: &$a, v: $t) -> $t { a.fetch_min(v, Relaxed) }
            #[inline] fn fetch_max(a: &$a, v: $t) -> $t { a.fetch_max(v, Relaxed) }
        }
    )* };
}
atomic_int!(
    i8 => sa::AtomicI8, i16 => sa::AtomicI16, i32 => sa::AtomicI32, i64 => sa::AtomicI64, isize => sa::AtomicIsize,
    u8 => sa::AtomicU8, u16 => sa::AtomicU16, u32 => sa::AtomicU32, u64 => sa::AtomicU64, usize => sa::AtomicUsize
);

macro_rules! atomic_float {
    ($($t:ty => $a:ty),*) => { $(
        // SAFETY: the atomic integer of the float's width has its size; the
        // float's bits are reinterpreted in place.
        unsafe impl Atomic for $t {
            type Atom = $a;
            unsafe fn as_atom<'a>(ptr: *mut $t) -> &'a $a {
                // SAFETY: as for integers; the bits are the same memory.
                unsafe { <$a>::from_ptr(ptr.cast()) }
            }
            #[inline] fn load(a: &$a) -> $t { <$t>::from_bits(a.load(Relaxed)) }
            #[inline] fn store(a: &$a, v: $t) { a.store(v.to_bits(), Relaxed) }
            #[inline] fn exchange(a: &$a, v: $t) -> $t { <$t>::from_bits(a.swap(v.to_bits(), Relaxed)) }
            #[inline] fn compare_exchange(a: &$a, c: $t, n: $t) -> Result<$t, $t> {
                a.compare_exchange(c.to_bits(), n.to_bits(), Relaxed, Relaxed)
                    .map(<$t>::from_bits)
                    .map_err(<$t>::from_bits)
            }
            #[inline] fn fetch_add(a: &$a, v: $t) -> $t { cas_loop(a, |x: $t| Some(x + v)) }
            #[inline] fn fetch_sub(a: &$a, v: $t) -> $t { cas_loop(a, |x: $t| Some(x - v)) }
            #[inline] fn fetch_min(a: &$a, v: $t) -> $t { cas_loop(a, |x: $t| (v < x).then_some(v)) }
            #[inline] fn fetch_max(a: &$a, v: $t) -> $t { cas_loop(a, |x: $t| (v > x).then_some(v)) }
        }
    )* };
}
atomic_float!(f32 => sa::AtomicU32, f64 => sa::AtomicU64);

/// Applies `f` with compare-and-swap until no other thread interferes;
/// `f` returning `None` leaves the value alone. Returns the previous value.
#[inline]
fn cas_loop<T: Atomic>(a: &T::Atom, f: impl Fn(T) -> Option<T>) -> T {
    let mut cur = T::load(a);
    loop {
        let Some(new) = f(cur) else { return cur };
        match T::compare_exchange(a, cur, new) {
            Ok(prev) => return prev,
            Err(actual) => cur = actual,
        }
    }
}

/// Atomic access to every element of a View, shareable across threads.
///
/// ```
/// use granule_views::View1;
/// let mut hist = View1::<u64>::zeros("hist", 4).unwrap();
/// let h = hist.atomic().unwrap();
/// std::thread::scope(|s| {
///     for t in 0..2 {
///         s.spawn(move || for i in 0..100 { h.add((i + t) % 4, 1); });
///     }
/// });
/// assert_eq!(hist.to_vec(), vec![50, 50, 50, 50]);
/// ```
///
/// # Memory spaces
///
/// A View of any memory space `M` gives an `AtomicView`, so a kernel's
/// scatter target can live in a device's memory; the host operations
/// (`add`, `load`, `compare_exchange`, ...) exist only where
/// `M: HostAccessible`. For every space the handle tells a backend what to
/// pass to the device: [`label`](Self::label), [`mapping`](Self::mapping),
/// [`data_address`](Self::data_address), [`space`](Self::space).
///
/// ```
/// # use granule_views::{HostSpace, MemorySpace};
/// # use std::ptr::NonNull;
/// # /// Memory host code may not touch (here host memory in disguise).
/// # #[derive(Clone, Debug)]
/// # struct Device;
/// # // SAFETY: delegates to HostSpace; claims not to be host-accessible.
/// # unsafe impl MemorySpace for Device {
/// #     const NAME: &'static str = "Device";
/// #     const IS_HOST_ACCESSIBLE: bool = false;
/// #     fn allocate(&self, bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String> {
/// #         HostSpace.allocate(bytes, zeroed)
/// #     }
/// #     unsafe fn deallocate(&self, ptr: NonNull<u8>, bytes: usize) {
/// #         unsafe { HostSpace.deallocate(ptr, bytes) }
/// #     }
/// # }
/// use granule_views::{LayoutRight, View1};
/// let mut v = View1::<u32, LayoutRight, Device>::zeros_in(Device, "counts", 4)?;
/// let base = v.as_ptr() as usize;
/// let a = v.atomic()?;
/// assert_eq!((a.label(), a.extents(), a.data_address()), ("counts", [4], base));
/// # Ok::<(), granule_views::ViewError>(())
/// ```
///
/// Host operations on device memory do not compile:
///
/// ```compile_fail,E0599
/// # use granule_views::{HostSpace, MemorySpace};
/// # use std::ptr::NonNull;
/// # #[derive(Clone, Debug)]
/// # struct Device;
/// # // SAFETY: delegates to HostSpace; claims not to be host-accessible.
/// # unsafe impl MemorySpace for Device {
/// #     const NAME: &'static str = "Device";
/// #     const IS_HOST_ACCESSIBLE: bool = false;
/// #     fn allocate(&self, bytes: usize, zeroed: bool) -> Result<NonNull<u8>, String> {
/// #         HostSpace.allocate(bytes, zeroed)
/// #     }
/// #     unsafe fn deallocate(&self, ptr: NonNull<u8>, bytes: usize) {
/// #         unsafe { HostSpace.deallocate(ptr, bytes) }
/// #     }
/// # }
/// use granule_views::{LayoutRight, View1};
/// let mut v = View1::<u32, LayoutRight, Device>::zeros_in(Device, "counts", 4)?;
/// let a = v.atomic()?;
/// a.add(0, 1); // `Device: HostAccessible` is not satisfied
/// # Ok::<(), granule_views::ViewError>(())
/// ```
pub struct AtomicView<'a, T: Atomic, const R: usize, M: MemorySpace = HostSpace> {
    /// Element 0; an address in `M`, dereferenced only where `M: HostAccessible`.
    ptr: *mut T,
    map: Mapping<R>,
    label: &'a str,
    space: &'a M,
    offset: fn(&Mapping<R>, &[usize; R]) -> usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<T: Atomic, const R: usize, M: MemorySpace> Clone for AtomicView<'_, T, R, M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Atomic, const R: usize, M: MemorySpace> Copy for AtomicView<'_, T, R, M> {}

// SAFETY: every host access through the view is atomic (and a space that is
// not host-accessible gets no host access at all), and the unique borrow it
// holds keeps non-atomic access away for 'a.
unsafe impl<T: Atomic, const R: usize, M: MemorySpace> Send for AtomicView<'_, T, R, M> {}
// SAFETY: as above.
unsafe impl<T: Atomic, const R: usize, M: MemorySpace> Sync for AtomicView<'_, T, R, M> {}

impl<S, const R: usize, L> ViewBase<S, R, L>
where
    S: StorageMut,
    S::Elem: Atomic,
    L: Layout,
{
    /// Borrows the View for atomic access, in whatever memory space it
    /// lives (host operations need a host-accessible one). Fails only for
    /// wrapped user memory that is not aligned for the atomic type.
    pub fn atomic(&mut self) -> Result<AtomicView<'_, S::Elem, R, S::Space>> {
        let align = std::mem::align_of::<<S::Elem as Atomic>::Atom>();
        let ptr = self.as_mut_ptr();
        // A device address is aligned or not just as a host one is: the
        // check holds for every space.
        if !(ptr as usize).is_multiple_of(align) {
            return Err(ViewError::Misaligned {
                label: self.label().into(),
                needed: align,
            });
        }
        Ok(AtomicView {
            ptr,
            map: *self.mapping(),
            label: self.label(),
            space: self.space(),
            offset: L::offset::<R>,
            _borrow: PhantomData,
        })
    }
}

impl<'a, T: Atomic, const R: usize, M: MemorySpace> AtomicView<'a, T, R, M> {
    /// The label of the underlying View.
    pub fn label(&self) -> &'a str {
        self.label
    }
    /// The extents of the underlying View.
    pub fn extents(&self) -> [usize; R] {
        *self.map.extents()
    }
    /// The extent of rank `r`, as [`View::extent`](crate::View) gives it
    /// (kernels call it on the device too).
    ///
    /// ```
    /// use granule_views::View2;
    /// let mut v = View2::<u32>::zeros("counts", [3, 5]).unwrap();
    /// let a = v.atomic().unwrap();
    /// assert_eq!((a.extent(0), a.extent(1)), (3, 5));
    /// ```
    ///
    /// # Panics
    /// If `r >= R`, naming the label.
    pub fn extent(&self, r: usize) -> usize {
        assert!(
            r < R,
            "atomic View `{}`: rank {r} asked of a View of rank {R}",
            self.label
        );
        self.map.extents()[r]
    }
    /// The extents and strides of the underlying View (any layout: its
    /// element at `idx` is at `data_address() + mapping().offset(idx)`
    /// elements).
    pub fn mapping(&self) -> &Mapping<R> {
        &self.map
    }
    /// The address of element 0, as an integer, for a backend to pass to
    /// the device. It is an address in `M`: for a device space a device
    /// address, which must never be dereferenced on the host.
    pub fn data_address(&self) -> usize {
        self.ptr as usize
    }
    /// The memory space instance holding the elements.
    pub fn space(&self) -> &'a M {
        self.space
    }
}

impl<'a, T: Atomic, const R: usize, M: HostAccessible> AtomicView<'a, T, R, M> {
    #[inline]
    #[track_caller]
    fn at(&self, idx: impl IntoIndex<R>) -> &T::Atom {
        let idx = idx.into_index();
        if !self.map.contains(&idx) {
            crate::view::out_of_bounds(
                self.label,
                idx,
                *self.map.extents(),
                self.ptr.cast_const().cast(),
            );
        }
        // SAFETY: in bounds, so inside the borrowed span, in memory the host
        // may dereference (M: HostAccessible); the base is aligned (checked
        // in `atomic`) and offsets are whole elements, whose size is a
        // multiple of the atom's alignment; the borrow keeps other access away.
        unsafe { T::as_atom(self.ptr.add((self.offset)(&self.map, &idx))) }
    }

    /// Reads the element.
    #[track_caller]
    pub fn load(&self, idx: impl IntoIndex<R>) -> T {
        T::load(self.at(idx))
    }
    /// Writes the element.
    #[track_caller]
    pub fn store(&self, idx: impl IntoIndex<R>, v: T) {
        T::store(self.at(idx), v)
    }
    /// Adds `v`.
    #[track_caller]
    pub fn add(&self, idx: impl IntoIndex<R>, v: T) {
        T::fetch_add(self.at(idx), v);
    }
    /// Adds `v`, returning the previous value.
    #[track_caller]
    pub fn fetch_add(&self, idx: impl IntoIndex<R>, v: T) -> T {
        T::fetch_add(self.at(idx), v)
    }
    /// Subtracts `v`.
    #[track_caller]
    pub fn sub(&self, idx: impl IntoIndex<R>, v: T) {
        T::fetch_sub(self.at(idx), v);
    }
    /// Subtracts `v`, returning the previous value.
    #[track_caller]
    pub fn fetch_sub(&self, idx: impl IntoIndex<R>, v: T) -> T {
        T::fetch_sub(self.at(idx), v)
    }
    /// Lowers the element to `v` if `v` is smaller.
    #[track_caller]
    pub fn min(&self, idx: impl IntoIndex<R>, v: T) {
        T::fetch_min(self.at(idx), v);
    }
    /// Lowers the element to `v` if smaller, returning the previous value.
    #[track_caller]
    pub fn fetch_min(&self, idx: impl IntoIndex<R>, v: T) -> T {
        T::fetch_min(self.at(idx), v)
    }
    /// Raises the element to `v` if `v` is larger.
    #[track_caller]
    pub fn max(&self, idx: impl IntoIndex<R>, v: T) {
        T::fetch_max(self.at(idx), v);
    }
    /// Raises the element to `v` if larger, returning the previous value.
    #[track_caller]
    pub fn fetch_max(&self, idx: impl IntoIndex<R>, v: T) -> T {
        T::fetch_max(self.at(idx), v)
    }
    /// Writes `v`, returning the previous value.
    #[track_caller]
    pub fn exchange(&self, idx: impl IntoIndex<R>, v: T) -> T {
        T::exchange(self.at(idx), v)
    }
    /// Writes `new` if the element equals `current`. Returns `Ok(previous)`
    /// on success and `Err(actual)` otherwise.
    #[track_caller]
    pub fn compare_exchange(&self, idx: impl IntoIndex<R>, current: T, new: T) -> Result<T, T> {
        T::compare_exchange(self.at(idx), current, new)
    }
}

#[cfg(test)]
mod tests {
    use crate::space::foreign::Foreign;
    use crate::{LayoutLeft, MemorySpace, View1, View2, ALL};
    use std::thread;

    #[test]
    fn device_space_views_give_handles_with_their_addresses() {
        let mut v = View2::<f64, LayoutLeft, Foreign>::zeros_in(Foreign, "dev", [3, 4]).unwrap();
        let base = v.as_ptr() as usize;
        {
            let a = v.atomic().unwrap();
            assert_eq!((a.label(), a.extents()), ("dev", [3, 4]));
            assert_eq!(a.mapping().strides(), &[1, 3]);
            assert_eq!(a.data_address(), base);
            assert_eq!(<Foreign as MemorySpace>::NAME, "Foreign");
            let copy = a;
            assert_eq!(copy.data_address(), a.data_address());
        }
        // Row 2 of a column-major 3x4: element (2, 0) is 2 elements in.
        let mut row = v.subview_mut((2, ALL)).unwrap();
        let r = row.atomic().unwrap();
        assert_eq!(r.data_address(), base + 2 * std::mem::size_of::<f64>());
        assert_eq!((r.extents(), r.mapping().strides()), ([4], &[3]));
    }

    #[test]
    fn concurrent_fetch_add_is_exact() {
        let mut v = View1::<i64>::zeros("counter", 1).unwrap();
        let a = v.atomic().unwrap();
        thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(move || {
                    for _ in 0..100_000 {
                        a.fetch_add(0, 1);
                    }
                });
            }
        });
        assert_eq!(v[0], 200_000);

        let mut f = View1::<f64>::zeros("fsum", 1).unwrap();
        let fa = f.atomic().unwrap();
        thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(move || (0..100_000).for_each(|_| fa.add(0, 1.0)));
            }
        });
        assert_eq!(f[0], 200_000.0);

        let mut g = View1::<f32>::zeros("f32sum", 1).unwrap();
        let ga = g.atomic().unwrap();
        thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(move || (0..1000).for_each(|_| ga.add(0, 0.5)));
            }
        });
        assert_eq!(g[0], 1000.0);
    }

    #[test]
    fn exchange_conserves_every_value() {
        let mut x = View1::<u64>::zeros("x", 1).unwrap();
        let mut y = View1::<u64>::zeros("y", 1).unwrap();
        let (xa, ya) = (x.atomic().unwrap(), y.atomic().unwrap());
        thread::scope(|s| {
            for t in 0..2u64 {
                s.spawn(move || {
                    for i in (t..10_000).step_by(2) {
                        let old = xa.exchange(0, i);
                        ya.fetch_add(0, old);
                    }
                });
            }
        });
        assert_eq!(x[0] + y[0], 49_995_000);
    }

    #[test]
    fn min_max_sub_and_compare_exchange_under_threads() {
        let mut v = View2::<i32>::zeros("mm", [1, 3]).unwrap();
        v[[0, 0]] = i32::MAX;
        v[[0, 1]] = i32::MIN;
        let a = v.atomic().unwrap();
        thread::scope(|s| {
            for t in 0..2 {
                s.spawn(move || {
                    for i in 0..5000 {
                        let x = (i * 7919 + t * 13) % 10007 - 5000;
                        a.min([0, 0], x);
                        a.max([0, 1], x);
                        a.sub([0, 2], 1);
                    }
                });
            }
        });
        let xs: Vec<i32> = (0..2)
            .flat_map(|t| (0..5000).map(move |i| (i * 7919 + t * 13) % 10007 - 5000))
            .collect();
        assert_eq!(v[[0, 0]], *xs.iter().min().unwrap());
        assert_eq!(v[[0, 1]], *xs.iter().max().unwrap());
        assert_eq!(v[[0, 2]], -10_000);

        // A CAS spin-increment from two threads loses nothing.
        let mut c = View1::<u32>::zeros("cas", 1).unwrap();
        let ca = c.atomic().unwrap();
        thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(move || {
                    for _ in 0..10_000 {
                        let mut cur = ca.load(0);
                        while let Err(actual) = ca.compare_exchange(0, cur, cur + 1) {
                            cur = actual;
                        }
                    }
                });
            }
        });
        assert_eq!(c[0], 20_000);
    }

    #[test]
    fn float_min_max_and_fetch_results() {
        let mut v = View1::<f64>::from_vec("f", 2, vec![1.5, -1.0]).unwrap();
        let a = v.atomic().unwrap();
        assert_eq!(a.fetch_min(0, 0.25), 1.5);
        assert_eq!(a.fetch_min(0, 3.0), 0.25);
        assert_eq!(a.fetch_max(1, -2.0), -1.0);
        assert_eq!(a.fetch_max(1, 4.0), -1.0);
        assert_eq!(a.fetch_sub(1, 1.5), 4.0);
        assert_eq!(a.compare_exchange(0, 0.5, 9.0), Err(0.25));
        assert_eq!(a.compare_exchange(0, 0.25, 9.0), Ok(0.25));
        a.store(1, 7.0);
        assert_eq!((a.load(0), a.load(1)), (9.0, 7.0));
        assert_eq!(v.to_vec(), vec![9.0, 7.0]);
    }

    #[test]
    #[should_panic(expected = "View \"h\": index [4] is out of bounds for extents [4]")]
    fn atomic_index_is_bounds_checked() {
        let mut v = View1::<u8>::zeros("h", 4).unwrap();
        v.atomic().unwrap().add(4, 1);
    }
}
