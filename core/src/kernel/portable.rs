//! The host form of a `#[kernel]` whose Views are in any memory space.

use granule_views::{HostSpace, MemorySpace};

mod sealed {
    pub trait Sealed {}
    impl Sealed for granule_views::HostSpace {}
}

/// The memory space `HostSpace` itself, as a bound: implemented by
/// `HostSpace` alone (sealed), so a type generic over a space `M` with
/// `M: IsHostSpace` is the same type with `HostSpace` in its place.
///
/// # Safety
/// Only `HostSpace` implements it; [`PortableKernel::into_host`] relies on
/// that to treat a functor over `M` as the functor over `HostSpace`.
pub unsafe trait IsHostSpace: MemorySpace + sealed::Sealed {}

// SAFETY: it is HostSpace.
unsafe impl IsHostSpace for HostSpace {}

/// A `#[kernel]` functor whose captured Views are in memory space `M`,
/// with its host form: the same functor over host Views, which the host
/// spaces run. `#[kernel]` implements it for every memory space, so code
/// generic over a space can name a kernel's host functor
/// (`<F as PortableKernel<M>>::Host: ForFunctor<..>` is provable for any
/// `M`), while only host memory turns the functor into it.
///
/// ```
/// use granule_core::kernel::PortableKernel;
/// use granule_core::prelude::*;
///
/// #[granule_macros::kernel(crate = granule_core)]
/// fn scale(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
///     *y = a * x[i];
/// }
///
/// let x = View1::<f64>::from_fn("x", 3, |i| i as f64).unwrap();
/// let mut y = View1::<f64>::zeros("y", 3).unwrap();
/// let host = PortableKernel::<HostSpace>::into_host(scale(2.0, &x));
/// parallel_for("scale", RangePolicy::new(&Serial, 0..3), &mut y, host);
/// assert_eq!(y.to_vec(), [0.0, 2.0, 4.0]);
/// ```
///
/// # Safety
/// `Host` is `Self` with `M` replaced by `HostSpace` (the hidden memory
/// space parameter of a `#[kernel]` struct), or `Self` when the functor
/// captures no View: the two types are then identical whenever `M` is
/// `HostSpace`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[kernel]` functor, which code generic over the space needs",
    label = "not a `#[kernel]` functor",
    note = "a function generic over `S: PortableSpace` may run on Cuda, so its patterns (granule::portable) take `#[kernel]` fns; closures run only on a named host space"
)]
pub unsafe trait PortableKernel<M: MemorySpace>: Sized {
    /// The functor over host Views.
    type Host;

    /// The functor itself, typed over host Views: a no-op, because `M`
    /// is `HostSpace`.
    #[inline(always)]
    fn into_host(self) -> Self::Host
    where
        M: IsHostSpace,
    {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: `M` is HostSpace (the only IsHostSpace), so `Self::Host`
        // is `Self` (the trait's contract); the value is read once and the
        // original is not dropped.
        unsafe { std::ptr::read(&*me as *const Self as *const Self::Host) }
    }
}
