//! The element types a View may hold, and what moving them as bytes
//! needs.
//!
//! Each use of an element's bytes asks for one promise, and each promise
//! is one of bytemuck's traits, whose derives check it field by field:
//!
//! | use | trait | what it promises |
//! |---|---|---|
//! | a View holds it (zero-filled at allocation) | [`Element`] (= [`Zeroable`] + `Copy`) | all-zero bytes are a valid value |
//! | its bytes are sent or moved as bytes (MPI messages, vector copies in the algorithms) | [`NoUninit`] | no padding, no uninitialised bytes |
//! | bytes from outside become values (an MPI receive, a reduction across ranks) | [`AnyBitPattern`] | every bit pattern is a valid value |
//!
//! A `bool` is an element and may be sent, but cannot be received as
//! bytes (only 0 and 1 are `bool`s); a tuple such as `(u8, u32)` is an
//! element, but has padding, so it is neither sent nor received as bytes.

pub use bytemuck::{AnyBitPattern, NoUninit, Pod, Zeroable};

/// A value a View can hold: zero-filled at allocation, copied by value.
///
/// Implemented for every `Copy + Send + Sync + 'static` type that is
/// [`Zeroable`]: the primitive numbers, `bool`, `char`, arrays and tuples
/// of those, and your own structs with `#[derive(Zeroable)]` (bytemuck's
/// derive checks that every field is zeroable; enable bytemuck's `derive`
/// feature, or name granule's copy with `#[bytemuck(crate = ..)]`).
///
/// What the alignment does:
/// - owned Views allocate with [`ALLOC_ALIGN`](crate::space::ALLOC_ALIGN)
///   (64) bytes of alignment, so making one of a type aligned above 64
///   fails with [`ViewError::Overaligned`](crate::ViewError::Overaligned);
/// - Views wrapping a slice (`from_slice`, `from_slice_mut`) take the
///   slice's own, correct, alignment;
/// - team and thread scratch (granule-core) honour any alignment, padding
///   each scratch View by up to `align - 64` extra bytes when the type is
///   aligned above 64.
///
/// ```
/// use granule_views::{View1, Zeroable};
/// #[derive(Clone, Copy, Debug, PartialEq, Default, Zeroable)]
/// #[bytemuck(crate = "granule_views::bytemuck")]
/// #[repr(C)]
/// struct Particle { x: f64, v: f64 }
///
/// let p = View1::<Particle>::zeros("p", 4).unwrap();
/// assert_eq!(p[3], Particle::default());
/// ```
pub trait Element: Zeroable + Copy + Send + Sync + 'static {}

impl<T: Zeroable + Copy + Send + Sync + 'static> Element for T {}
