//! Scatter targets a `#[kernel]` may capture (granule-containers'
//! `ScatterView`): what the glue passes for them, and the check that a
//! spelled `ScatterView` is one.

use super::check::SameType;
use super::device::DeviceArg;

/// A scatter target a device kernel contributes to with atomics: on the
/// device it is an atomic View of its shared copy
/// ([`ParamKind::Atomic`](super::ParamKind::Atomic)), whose operation
/// `Op` (granule's `Sum`, `Prod`, `Min` or `Max`) the translated body
/// applies.
///
/// # Safety
/// [`device_arg`](Self::device_arg) returns a [`DeviceArg::Atomic`] that
/// describes memory of `Elem`s (32 or 64 bits) with the target's rank
/// (`Rank` is [`Rank`](super::check::Rank)`<R>`), its true extents and
/// strides, which, for as long as `self` is borrowed shared, nothing
/// accesses but atomically, and which lives that long.
pub unsafe trait DeviceScatter {
    /// The element type.
    type Elem;
    /// The rank, as [`Rank`](super::check::Rank).
    type Rank;
    /// The operation: granule's `Sum`, `Prod`, `Min` or `Max`.
    type Op;
    /// The atomic View of the copy device kernels contribute to.
    fn device_arg(&self) -> DeviceArg<'_>;
}

/// A captured scatter target's argument (what `#[kernel]`'s glue passes
/// for a `&ScatterView` parameter).
pub fn scatter_arg_of<V: DeviceScatter + ?Sized>(v: &V) -> DeviceArg<'_> {
    v.device_arg()
}

/// Compiles only when `V` is a scatter target of `E`s, of rank `R`,
/// combined with `Op`: what `#[kernel]` checks for a parameter it
/// translated as a ScatterView.
#[allow(clippy::extra_unused_type_parameters)]
pub fn scatter_shape<V, E, R, Op>()
where
    V: DeviceScatter + ?Sized,
    V::Elem: SameType<E>,
    V::Rank: SameType<R>,
    V::Op: SameType<Op>,
{
}
