//! What code generic over a memory space needs of it, in one bound.

use super::{CopyToHost, HostSpace, MemorySpace, SpaceCopy, SpaceFill};

/// A memory space that portable code can use without naming it: Views in
/// it copy to and from host memory and within the space
/// ([`deep_copy`](crate::deep_copy), mirrors, `resize`), and
/// [`fill`](crate::fill) writes every device scalar type.
///
/// Every space with those abilities has it (a blanket impl): `HostSpace`,
/// and a device space such as `CudaSpace`. A function bounded by
/// `M: PortableMemory` may call each of those operations on Views in `M`,
/// because the bound is a bundle of supertraits, which Rust elaborates.
///
/// ```
/// use granule_views::{create_mirror_view_and_copy, deep_copy, fill, HostSpace, LayoutRight};
/// use granule_views::{PortableMemory, View1};
/// fn ramp_plus<M: PortableMemory>(space: M, n: usize, add: f64) -> Vec<f64> {
///     let mut d = View1::<f64, LayoutRight, M>::zeros_in(space, "d", n).unwrap();
///     fill(&mut d, add).unwrap();
///     let mut h = create_mirror_view_and_copy(&d).unwrap().as_view().to_vec();
///     h.iter_mut().enumerate().for_each(|(i, x)| *x += i as f64);
///     let back = View1::<f64>::from_vec("h", n, h).unwrap();
///     deep_copy(&mut d, &back).unwrap();
///     create_mirror_view_and_copy(&d).unwrap().as_view().to_vec()
/// }
/// assert_eq!(ramp_plus(HostSpace, 3, 0.5), [0.5, 1.5, 2.5]);
/// ```
pub trait PortableMemory:
    MemorySpace
    + SpaceCopy<HostSpace>
    + SpaceCopy<Self>
    + CopyToHost
    + SpaceFill<f32>
    + SpaceFill<f64>
    + SpaceFill<i8>
    + SpaceFill<i16>
    + SpaceFill<i32>
    + SpaceFill<i64>
    + SpaceFill<isize>
    + SpaceFill<u8>
    + SpaceFill<u16>
    + SpaceFill<u32>
    + SpaceFill<u64>
    + SpaceFill<usize>
{
}

impl<M> PortableMemory for M where
    M: MemorySpace
        + SpaceCopy<HostSpace>
        + SpaceCopy<M>
        + CopyToHost
        + SpaceFill<f32>
        + SpaceFill<f64>
        + SpaceFill<i8>
        + SpaceFill<i16>
        + SpaceFill<i32>
        + SpaceFill<i64>
        + SpaceFill<isize>
        + SpaceFill<u8>
        + SpaceFill<u16>
        + SpaceFill<u32>
        + SpaceFill<u64>
        + SpaceFill<usize>
{
}
