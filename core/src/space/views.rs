//! Views allocated for an execution space, named by the space itself: the
//! portable short form of Kokkos's `View<double*>("x", n)`, which lives
//! in the default space's memory.
//!
//! `View1::zeros_on(&space, "x", n)` allocates a `LayoutRight` View in
//! `space.memory_space()`: host memory on a host space, device memory on
//! Cuda. Write no type arguments: the element type comes from the use and
//! the memory space from the execution space. (A View type written out,
//! as `View1::<f64>` is, takes the alias's default `HostSpace`; on a
//! device space that is a compile error at the allocation rather than a
//! refusal at the dispatch.) Other layouts use the `_in` constructors with
//! `space.memory_space()`.

use super::ExecutionSpace;
use granule_views::view::{IntoIndex, Rank, ValidRank};
use granule_views::{Element, HostSpace, LayoutRight, SpaceCopy, View, ViewError};

/// Constructors of `LayoutRight` Views of rank `R` in the memory of the
/// execution space `S` (in the prelude). Each is the `_in` constructor of
/// the same name given `space.memory_space()`.
///
/// ```
/// use granule_core::prelude::*;
/// let space = Serial;
/// let x = View1::from_fn_on(&space, "x", 4, |i| i as f64)?;
/// let mut y = View1::zeros_on(&space, "y", 4)?;
/// parallel_for("axpy", RangePolicy::new(&space, 0..4), &mut y, |i, y: &mut f64| *y += 2.0 * x[i]);
/// assert_eq!(y.to_vec(), [0.0, 2.0, 4.0, 6.0]);
/// let a = View2::full_on(&space, "a", [2, 3], 1.5f32)?;
/// let b = View2::from_vec_on(&space, "b", [2, 2], vec![1u8, 2, 3, 4])?;
/// assert_eq!((a[[1, 2]], b[[1, 0]]), (1.5, 3));
/// # Ok::<(), ViewError>(())
/// ```
pub trait ViewOn<S: ExecutionSpace, const R: usize>: Sized {
    /// The element type.
    type Elem;

    /// A View of zeros (every byte zero).
    fn zeros_on(space: &S, label: &str, extents: impl IntoIndex<R>) -> Result<Self, ViewError>;

    /// A View with every element `value`.
    fn full_on(
        space: &S,
        label: &str,
        extents: impl IntoIndex<R>,
        value: Self::Elem,
    ) -> Result<Self, ViewError>;

    /// A View whose element at each index is `f(index)`, computed on the
    /// host (`usize` indices for rank 1, `[usize; R]` otherwise).
    fn from_fn_on<F>(
        space: &S,
        label: &str,
        extents: impl IntoIndex<R>,
        f: F,
    ) -> Result<Self, ViewError>
    where
        Rank<R>: ValidRank<R>,
        F: FnMut(<Rank<R> as ValidRank<R>>::Idx) -> Self::Elem;

    /// A View holding `data`, in row-major order.
    fn from_vec_on(
        space: &S,
        label: &str,
        extents: impl IntoIndex<R>,
        data: Vec<Self::Elem>,
    ) -> Result<Self, ViewError>;
}

impl<S, T, const R: usize> ViewOn<S, R> for View<T, R, LayoutRight, S::MemorySpace>
where
    S: ExecutionSpace,
    S::MemorySpace: SpaceCopy<HostSpace>,
    T: Element,
{
    type Elem = T;

    fn zeros_on(space: &S, label: &str, extents: impl IntoIndex<R>) -> Result<Self, ViewError> {
        View::zeros_in(space.memory_space(), label, extents)
    }

    fn full_on(
        space: &S,
        label: &str,
        extents: impl IntoIndex<R>,
        value: T,
    ) -> Result<Self, ViewError> {
        View::full_in(space.memory_space(), label, extents, value)
    }

    fn from_fn_on<F>(
        space: &S,
        label: &str,
        extents: impl IntoIndex<R>,
        f: F,
    ) -> Result<Self, ViewError>
    where
        Rank<R>: ValidRank<R>,
        F: FnMut(<Rank<R> as ValidRank<R>>::Idx) -> T,
    {
        View::from_fn_in(space.memory_space(), label, extents, f)
    }

    fn from_vec_on(
        space: &S,
        label: &str,
        extents: impl IntoIndex<R>,
        data: Vec<T>,
    ) -> Result<Self, ViewError> {
        View::from_vec_in(space.memory_space(), label, extents, data)
    }
}
