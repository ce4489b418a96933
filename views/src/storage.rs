//! Who owns a View's memory: the View itself, or a borrow.
//!
//! A [`View`](crate::View) owns its allocation and frees it on drop. A
//! subview, or a View wrapping a user slice (Kokkos's Unmanaged), borrows
//! instead, with a Rust lifetime: sharing is borrowing, never reference
//! counting, so the borrow checker proves no write races a read.

use crate::element::Element;
use crate::error::{Result, ViewError};
use crate::space::{HostSpace, MemorySpace};
use std::borrow::Cow;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// Where a View's elements are and who may touch them.
///
/// # Safety
/// `ptr()` must be valid for reads of every offset of the View's mapping
/// for as long as the storage lives, in the memory space `Self::Space`, and
/// nothing may write there while the storage is shared.
pub unsafe trait Storage {
    /// The element type.
    type Elem: Element;
    /// The memory space the elements live in.
    type Space: MemorySpace;
    /// Base pointer (offset 0 of the mapping).
    fn ptr(&self) -> NonNull<Self::Elem>;
    /// The View's label.
    fn label(&self) -> &str;
    /// The memory space instance.
    fn space(&self) -> &Self::Space;
}

/// Storage through which the elements may be written.
///
/// # Safety
/// While `&mut self` is held, nothing else may access the elements: the
/// storage is the unique owner or a unique borrow.
pub unsafe trait StorageMut: Storage {}

/// An allocation owned by its View.
#[derive(Debug)]
pub struct Owned<T: Element, M: MemorySpace = HostSpace> {
    ptr: NonNull<T>,
    bytes: usize,
    space: M,
    label: Box<str>,
}

impl<T: Element, M: MemorySpace> Owned<T, M> {
    /// Bytes `len` elements take, if an allocation of that size is possible.
    pub(crate) fn byte_size(label: &str, len: usize, extents: &[usize]) -> Result<usize> {
        let elem = std::mem::size_of::<T>();
        len.checked_mul(elem)
            .filter(|&b| b <= isize::MAX as usize - crate::space::ALLOC_ALIGN)
            .ok_or_else(|| ViewError::SizeOverflow {
                label: label.into(),
                extents: extents.to_vec(),
                elem_bytes: elem,
            })
    }

    /// Allocates room for `len` elements in `space`, zeroed if asked.
    pub(crate) fn allocate(
        space: M,
        label: &str,
        len: usize,
        zeroed: bool,
        extents: &[usize],
    ) -> Result<Self> {
        let bytes = Self::byte_size(label, len, extents)?;
        if std::mem::align_of::<T>() > crate::space::ALLOC_ALIGN {
            return Err(ViewError::Overaligned {
                label: label.into(),
                elem_type: std::any::type_name::<T>(),
                align: std::mem::align_of::<T>(),
                max: crate::space::ALLOC_ALIGN,
            });
        }
        let raw = space
            .allocate(bytes, zeroed)
            .map_err(|reason| ViewError::Allocation {
                label: label.into(),
                bytes,
                space: M::NAME,
                reason,
            })?;
        Ok(Owned {
            ptr: raw.cast(),
            bytes,
            space,
            label: label.into(),
        })
    }
}

impl<T: Element, M: MemorySpace> Drop for Owned<T, M> {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `bytes` are exactly what `allocate` returned and
        // were never released before: Owned is not Clone.
        unsafe { self.space.deallocate(self.ptr.cast(), self.bytes) };
    }
}

// SAFETY: Owned is a unique owner of plain data, like a Box<[T]>.
unsafe impl<T: Element, M: MemorySpace> Send for Owned<T, M> {}
// SAFETY: shared access only reads; writes need &mut.
unsafe impl<T: Element, M: MemorySpace> Sync for Owned<T, M> {}

// SAFETY: `&mut Owned` is the only path to the allocation.
unsafe impl<T: Element, M: MemorySpace> StorageMut for Owned<T, M> {}

/// A shared borrow of elements owned elsewhere (a subview, or a user slice).
#[derive(Debug, Clone)]
pub struct Borrowed<'a, T: Element, M: MemorySpace = HostSpace> {
    ptr: NonNull<T>,
    space: M,
    label: Cow<'a, str>,
    _borrow: PhantomData<&'a [T]>,
}

/// A unique borrow of elements owned elsewhere (a mutable subview, or a user slice).
#[derive(Debug)]
pub struct BorrowedMut<'a, T: Element, M: MemorySpace = HostSpace> {
    ptr: NonNull<T>,
    space: M,
    label: Cow<'a, str>,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<'a, T: Element, M: MemorySpace> Borrowed<'a, T, M> {
    /// # Safety
    /// `ptr` must be valid for reads of the mapping it will be used with, for `'a`,
    /// with no writer during `'a`.
    pub(crate) unsafe fn new(ptr: NonNull<T>, space: M, label: Cow<'a, str>) -> Self {
        Borrowed {
            ptr,
            space,
            label,
            _borrow: PhantomData,
        }
    }
}

impl<'a, T: Element, M: MemorySpace> BorrowedMut<'a, T, M> {
    /// # Safety
    /// `ptr` must be valid for reads and writes of the mapping it will be used
    /// with, for `'a`, with no other access during `'a`.
    pub(crate) unsafe fn new(ptr: NonNull<T>, space: M, label: Cow<'a, str>) -> Self {
        BorrowedMut {
            ptr,
            space,
            label,
            _borrow: PhantomData,
        }
    }
}

// SAFETY: behaves like `&'a [T]` with T: Sync.
unsafe impl<T: Element, M: MemorySpace> Send for Borrowed<'_, T, M> {}
// SAFETY: behaves like `&'a [T]` with T: Sync.
unsafe impl<T: Element, M: MemorySpace> Sync for Borrowed<'_, T, M> {}
// SAFETY: behaves like `&'a mut [T]` with T: Send.
unsafe impl<T: Element, M: MemorySpace> Send for BorrowedMut<'_, T, M> {}
// SAFETY: behaves like `&'a mut [T]` with T: Sync; shared access only reads.
unsafe impl<T: Element, M: MemorySpace> Sync for BorrowedMut<'_, T, M> {}

/// The `Storage` impl shared by the three storages, which keep their
/// pointer, label and space in fields of the same names.
macro_rules! storage_impl {
    ($($ty:ty),*) => { $(
        // SAFETY: `ptr` is valid for reads of the mapping while the storage
        // lives: an `Owned` allocated it for the mapping and frees it only on
        // drop; a borrow got it under its constructor's contract for `'a`,
        // which outlives the storage.
        unsafe impl<T: Element, M: MemorySpace> Storage for $ty {
            type Elem = T;
            type Space = M;
            #[inline(always)]
            fn ptr(&self) -> NonNull<T> {
                self.ptr
            }
            fn label(&self) -> &str {
                &self.label
            }
            fn space(&self) -> &M {
                &self.space
            }
        }
    )* };
}
storage_impl!(Owned<T, M>, Borrowed<'_, T, M>, BorrowedMut<'_, T, M>);

// SAFETY: the borrow is unique for `'a` (constructor contract).
unsafe impl<T: Element, M: MemorySpace> StorageMut for BorrowedMut<'_, T, M> {}
