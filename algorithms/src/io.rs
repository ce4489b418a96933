//! How an algorithm hands its Views to a space's implementation: the
//! rank-1 Views it reads ([`Input`]) and writes ([`Output`]), as base
//! pointer, length, stride and label, holding the call's borrow.
//!
//! Only the algorithm entry points make them, from `&View` and `&mut
//! View` arguments, after checking lengths; an implementation trait
//! ([`ScanImpl`](crate::scan::ScanImpl) and its siblings) receives them.
//! The memory space `M` is part of the type, so a host implementation can
//! reach the elements only when `M` is host-accessible, and a device one
//! reads the description.

use granule_views::storage::{Storage, StorageMut};
use granule_views::{Element, Layout, MemorySpace, ViewBase};
use std::marker::PhantomData;

/// A rank-1 View an algorithm reads, borrowed shared for `'a`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{reduce, io::Input};
/// // Input is what ScanImpl and its siblings receive; user code passes Views.
/// let x = View1::<i64>::from_fn("x", 4, |i| i as i64)?;
/// assert_eq!(reduce(&Serial, &x, Sum, None), 6);
/// # let _ = std::marker::PhantomData::<Input<'static, i64, HostSpace>>;
/// # Ok::<(), ViewError>(())
/// ```
#[derive(Debug)]
pub struct Input<'a, T, M> {
    pub(crate) ptr: *const T,
    pub(crate) len: usize,
    pub(crate) stride: usize,
    pub(crate) label: &'a str,
    _borrow: PhantomData<(&'a [T], M)>,
}

/// A rank-1 View an algorithm writes, borrowed uniquely for `'a`.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{inclusive_scan_in_place, io::Output};
/// let mut x = View1::<i64>::from_fn("x", 4, |i| i as i64)?;
/// assert_eq!(inclusive_scan_in_place(&Serial, &mut x, Sum, None), 6);
/// assert_eq!(x.to_vec(), [0, 1, 3, 6]);
/// # let _ = std::marker::PhantomData::<Output<'static, i64, HostSpace>>;
/// # Ok::<(), ViewError>(())
/// ```
#[derive(Debug)]
pub struct Output<'a, T, M> {
    pub(crate) ptr: *mut T,
    pub(crate) len: usize,
    pub(crate) stride: usize,
    pub(crate) label: &'a str,
    _borrow: PhantomData<(&'a mut [T], M)>,
}

// SAFETY: an Input stands for a shared borrow of elements (`&[T]`), which
// are `Send + Sync` (`Element`).
unsafe impl<T: Element, M: MemorySpace> Send for Input<'_, T, M> {}
// SAFETY: as above; shared access only reads.
unsafe impl<T: Element, M: MemorySpace> Sync for Input<'_, T, M> {}
// SAFETY: an Output stands for a unique borrow of `Send` elements
// (`&mut [T]`); implementations hand its elements to one thread at a time.
unsafe impl<T: Element, M: MemorySpace> Send for Output<'_, T, M> {}
// SAFETY: as above.
unsafe impl<T: Element, M: MemorySpace> Sync for Output<'_, T, M> {}

impl<'a, T: Element, M: MemorySpace> Input<'a, T, M> {
    /// Describes `view` (any storage and layout of rank 1).
    pub(crate) fn of<S, L>(view: &'a ViewBase<S, 1, L>) -> Self
    where
        S: Storage<Elem = T, Space = M>,
        L: Layout,
    {
        Input {
            ptr: view.as_ptr(),
            len: view.extent(0),
            stride: view.stride(0),
            label: view.label(),
            _borrow: PhantomData,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The distance between consecutive elements, in elements.
    pub fn stride(&self) -> usize {
        self.stride
    }
    /// The View's label.
    pub fn label(&self) -> &'a str {
        self.label
    }
    /// The base pointer (element 0), in memory space `M`.
    pub fn as_ptr(&self) -> *const T {
        self.ptr
    }
}

impl<'a, T: Element, M: MemorySpace> Output<'a, T, M> {
    /// Describes `view` (any storage and layout of rank 1).
    pub(crate) fn of<S, L>(view: &'a mut ViewBase<S, 1, L>) -> Self
    where
        S: StorageMut<Elem = T, Space = M>,
        L: Layout,
    {
        let ptr = view.as_mut_ptr();
        let view: &'a ViewBase<S, 1, L> = view;
        Output {
            ptr,
            len: view.extent(0),
            stride: view.stride(0),
            label: view.label(),
            _borrow: PhantomData,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The distance between consecutive elements, in elements.
    pub fn stride(&self) -> usize {
        self.stride
    }
    /// The View's label.
    pub fn label(&self) -> &'a str {
        self.label
    }
    /// The base pointer (element 0), in memory space `M`.
    pub fn as_mut_ptr(&self) -> *mut T {
        self.ptr
    }
}

/// A length-checked pair for algorithms whose two Views must match.
pub(crate) fn same_len(
    algorithm: &'static str,
    a: (&str, usize),
    b: (&str, usize),
) -> Result<(), crate::AlgorithmError> {
    if a.1 == b.1 {
        Ok(())
    } else {
        Err(crate::AlgorithmError::length_mismatch(algorithm, a, b))
    }
}

impl<'a, T: Element, M: MemorySpace> Input<'a, T, M> {
    /// Elements `0..n-1` and `1..n` (for `n >= 1`): each element beside
    /// the next.
    pub(crate) fn neighbours(&self) -> (Self, Self) {
        assert!(self.len >= 1);
        let first = Input {
            len: self.len - 1,
            ..*self
        };
        // Element 1 is one stride on; with len == 1 the second has length
        // 0 and is never read, so it may start anywhere (wrapping: no
        // pointer past the allocation is made).
        let step = if self.len >= 2 { self.stride } else { 0 };
        let second = Input {
            ptr: self.ptr.wrapping_add(step),
            len: self.len - 1,
            ..*self
        };
        (first, second)
    }
}

impl<T, M> Output<'_, T, M> {
    /// The same elements, borrowed from this Output for a shorter time.
    pub(crate) fn reborrow(&mut self) -> Output<'_, T, M> {
        Output {
            ptr: self.ptr,
            len: self.len,
            stride: self.stride,
            label: self.label,
            _borrow: PhantomData,
        }
    }

    /// Elements `0..mid` and `mid..len`: two Outputs that share no
    /// element, each holding its part of the unique borrow.
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        assert!(
            mid <= self.len,
            "{}: a split at {mid} of {} elements",
            self.label,
            self.len
        );
        // With mid == len the second part is empty and never read, so it
        // may start anywhere (wrapping: no pointer past the allocation).
        let step = if mid < self.len { mid * self.stride } else { 0 };
        let second = Output {
            ptr: self.ptr.wrapping_add(step),
            len: self.len - mid,
            stride: self.stride,
            label: self.label,
            _borrow: PhantomData,
        };
        (Output { len: mid, ..self }, second)
    }
}

impl<T, M> Input<'_, T, M> {
    /// Elements `0..n` (`n` at most the length).
    pub(crate) fn prefix(&self, n: usize) -> Self {
        assert!(
            n <= self.len,
            "{}: a prefix of {n} of {} elements",
            self.label,
            self.len
        );
        Input { len: n, ..*self }
    }
}

impl<T, M> Clone for Input<'_, T, M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, M> Copy for Input<'_, T, M> {}
