//! Element functions: per-element user code (a predicate, a transform, a
//! comparator) that an algorithm calls, written as `#[kernel]` functions
//! that return a value, so that a device space can run them too.

use super::{DeviceArg, DeviceKernel};
use granule_views::MemorySpace;

/// An element function a device space with memory `M` can call: the
/// functor that `#[kernel] fn f(x: T, captured: C, ..) -> U` (one element,
/// or two with `#[kernel(binary)]`) makes, whose device side is the
/// translated function ([`DeviceElementFn::FUNCTION`]) and its captured
/// values and Views ([`DeviceElementFn::captures`]).
///
/// The same functor implements
/// [`UnaryFunctor`](crate::functor::UnaryFunctor) (or
/// [`BinaryFunctor`](crate::functor::BinaryFunctor)) for the host spaces.
/// A closure implements those but not this trait, so an algorithm given a
/// closure on a device space does not compile, with a message that says
/// what to write instead.
///
/// ```
/// use granule_core::kernel::{kernel, DeviceArg, DeviceElementFn, KernelPattern, ParamKind};
/// use granule_core::functor::UnaryFunctor;
/// use granule_views::HostSpace;
///
/// #[kernel(crate = granule_core)]
/// fn above(x: i64, threshold: i64) -> bool {
///     x > threshold
/// }
///
/// let f = above(10);
/// assert!(f.call(11) && !f.call(10));                       // the host function
/// let def = <above as DeviceElementFn<HostSpace>>::FUNCTION; // the device one
/// assert_eq!((def.name, def.pattern), ("above", KernelPattern::Element));
/// assert_eq!(def.params[0].kind, ParamKind::Element);
/// let args = DeviceElementFn::<HostSpace>::captures(&f);
/// assert_eq!(args, [DeviceArg::Scalar(10i64.to_ne_bytes().to_vec())]);
/// ```
///
/// # Safety
/// - `FUNCTION` is the translation of the functor's host function (see
///   [`DeviceKernel::new`]), of pattern
///   [`KernelPattern::Element`](super::KernelPattern::Element): a
///   `__device__` function whose leading
///   [`ParamKind::Element`](super::ParamKind::Element) parameters have the
///   C++ types of `Args`, in order, followed by the captured parameters,
///   and which returns the C++ type of `Output`; it writes no memory;
/// - `captures` describes exactly the values and Views the functor holds
///   for the captured parameters, in order, each View naming memory the
///   functor borrows (shared) for as long as it lives, with its true
///   element size, extents and strides;
/// - `TYPES` are the [`DeviceScalar::CPP`](super::DeviceScalar::CPP)
///   spellings of the function's generic arguments, in order;
/// - `Args` is the tuple of the element types (`(T,)` or `(A, B)`) and
///   `Output` the return type, as the functor's host impl takes and
///   returns them.
///
/// `#[kernel]` implements it; a device space's algorithms trust it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it is not a `#[kernel]` element function",
    label = "not a `#[kernel]` element function",
    note = "closures run only on host spaces (Serial, Rayon); for Cuda write the function as `#[kernel] fn name(x: T, captured: C, ..) -> U {{ .. }}` (`#[kernel(binary)]` when it takes two elements, as a comparator does) and pass `name(captured, ..)`"
)]
pub unsafe trait DeviceElementFn<M: MemorySpace> {
    /// The element types, as a tuple: `(T,)` for one, `(A, B)` for two.
    type Args;
    /// What the function returns.
    type Output;
    /// The function's device description.
    const FUNCTION: &'static DeviceKernel;
    /// The device spelling of the function's generic arguments, in order.
    const TYPES: &'static [&'static str];
    /// The captured arguments (values, read Views), in parameter order.
    fn captures(&self) -> Vec<DeviceArg<'_>>;
}
