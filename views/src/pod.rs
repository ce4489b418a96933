//! The element types a View may hold.

/// Plain data that a View can store, copy byte-for-byte and zero-fill.
///
/// # Safety
/// An implementor promises that:
/// - the all-zero bit pattern is a valid value of the type (Views are
///   zero-initialized by allocating zeroed memory);
/// - the type holds no pointers, references or handles, so a byte copy to
///   another memory space (a GPU, a mirror) is a faithful copy;
/// - it is `Copy`, so copying never needs a destructor.
///
/// Any alignment is allowed by this contract. What each container does with
/// it:
/// - owned Views allocate with [`ALLOC_ALIGN`](crate::space::ALLOC_ALIGN)
///   (64) bytes of alignment, so making one of a type aligned above 64
///   fails with [`ViewError::Overaligned`](crate::ViewError::Overaligned);
/// - Views wrapping a slice (`from_slice`, `from_slice_mut`) take the
///   slice's own, correct, alignment;
/// - team and thread scratch (granule-core) honour any alignment, padding
///   each scratch View by up to `align - 64` extra bytes when the type is
///   aligned above 64.
///
/// All primitive numbers, `bool`, `char` (zero is `'\0'`), arrays and small
/// tuples of `Pod` qualify. For your own
/// `#[repr(C)]` structs of `Pod` fields, write `unsafe impl Pod for S {}`.
///
/// ```
/// use granule_views::{Pod, View1};
/// #[derive(Clone, Copy, Debug, PartialEq, Default)]
/// #[repr(C)]
/// struct Particle { x: f64, v: f64 }
/// // SAFETY: two f64 fields: zero is valid and nothing points anywhere.
/// unsafe impl Pod for Particle {}
///
/// let p = View1::<Particle>::zeros("p", 4).unwrap();
/// assert_eq!(p[3], Particle::default());
/// ```
pub unsafe trait Pod: Copy + Send + Sync + 'static {}

macro_rules! pod {
    ($($t:ty),*) => { $(
        // SAFETY: a primitive: zero is a valid value and it owns no resources.
        unsafe impl Pod for $t {}
    )* };
}
pod!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, bool, char);

// SAFETY: an array of Pod is Pod: zero bytes are zero elements, nothing points anywhere.
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

macro_rules! pod_tuple {
    ($($n:ident),+) => {
        // SAFETY: a tuple of Pod fields: zero bytes are zero fields, padding is never read as a value.
        unsafe impl<$($n: Pod),+> Pod for ($($n,)+) {}
    };
}
pod_tuple!(A);
pod_tuple!(A, B);
pod_tuple!(A, B, C);
pod_tuple!(A, B, C, D);
