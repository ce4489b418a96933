//! Unique tokens a `#[kernel]` may capture (granule-containers'
//! `UniqueToken`): what the glue passes for them, and the check that a
//! spelled `UniqueToken` is one.

use super::device::{DeviceArg, ViewArg};

/// A token whose ids a device kernel acquires and releases: on the device
/// it is an atomic View of `u32` locks, one per id
/// ([`ParamKind::Atomic`](super::ParamKind::Atomic) of rank 1, wrapped by
/// the header's `granule::UniqueToken`).
///
/// # Safety
/// [`lock_arg`](Self::lock_arg) describes `u32` memory of rank 1 whose
/// extent is the token's size, with its true stride, valid while `self`
/// is borrowed, which nothing accesses but atomically (0 free, 1 held)
/// for as long as `self` is borrowed shared.
pub unsafe trait DeviceToken {
    /// The token's locks.
    fn lock_arg(&self) -> ViewArg<'_>;
}

/// A captured token's argument (what `#[kernel]`'s glue passes for a
/// `&UniqueToken` parameter).
pub fn token_arg_of<T: DeviceToken + ?Sized>(t: &T) -> DeviceArg<'_> {
    DeviceArg::Atomic(t.lock_arg())
}

/// Compiles only when `T` is a token a kernel may capture: what
/// `#[kernel]` checks for a parameter it translated as a `UniqueToken`.
#[allow(clippy::extra_unused_type_parameters)]
pub fn token_shape<T: DeviceToken + ?Sized>() {}
