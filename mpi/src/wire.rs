//! Values that cross a process boundary in a reduction: each is written
//! into a form with no padding whose every bit pattern is valid
//! ([`Wire::Bytes`], a bytemuck `Pod`), and read back from it.
//!
//! A reduction value is joined by a user operation that MPI calls on
//! buffers it received from other ranks. Reading those bytes as a `T`
//! directly would trust every rank to have sent a valid `T` of the same
//! layout, and would send the padding of a struct such as
//! `ValLocScalar<f32, usize>` as uninitialised bytes. Through `Bytes`
//! nothing uninitialised leaves a rank, and whatever arrives is a valid
//! `Bytes`, which [`Wire::from_wire`] turns into a valid `T`.

use bytemuck::{Pod, Zeroable};
use granule_core::reducer::{MinMaxLocScalar, MinMaxScalar, ValLocScalar};
use mpi::datatype::UserDatatype;
use mpi::traits::Equivalence;

/// A reduction value that `all_reduce` can move between ranks.
///
/// Implemented for the primitive numbers, `bool`, `char`, arrays and
/// tuples (up to six) of such, and granule's `ValLocScalar`,
/// `MinMaxScalar` and `MinMaxLocScalar`. For a type of your own, pick a
/// padding-free `Bytes` (often the type itself, with bytemuck's `Pod`
/// derive):
///
/// ```
/// use granule_mpi::Wire;
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(C)]
/// struct Moments { sum: f64, sum_sq: f64 }
/// impl Wire for Moments {
///     type Bytes = Moments;
///     fn to_wire(self) -> Moments { self }
///     fn from_wire(bytes: Moments) -> Moments { bytes }
/// }
/// assert_eq!(Moments::from_wire(Moments { sum: 1.0, sum_sq: 2.0 }.to_wire()).sum_sq, 2.0);
/// ```
pub trait Wire: Copy + Send + Sync + 'static {
    /// The value as it travels: no padding, and any bit pattern valid.
    type Bytes: Pod;
    /// The value in its travelling form.
    fn to_wire(self) -> Self::Bytes;
    /// A value from its travelling form; every `Bytes` gives a valid
    /// value (bytes that no `to_wire` made come only from a rank that
    /// reduced another type).
    fn from_wire(bytes: Self::Bytes) -> Self;
}

macro_rules! wire_as_itself {
    ($($t:ty),*) => { $(
        impl Wire for $t {
            type Bytes = $t;
            #[inline]
            fn to_wire(self) -> $t {
                self
            }
            #[inline]
            fn from_wire(bytes: $t) -> $t {
                bytes
            }
        }
    )* };
}
wire_as_itself!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

impl Wire for bool {
    type Bytes = u8;
    fn to_wire(self) -> u8 {
        u8::from(self)
    }
    fn from_wire(bytes: u8) -> bool {
        bytes != 0
    }
}

impl Wire for char {
    type Bytes = u32;
    fn to_wire(self) -> u32 {
        u32::from(self)
    }
    /// A code point that is not a `char` becomes U+FFFD.
    fn from_wire(bytes: u32) -> char {
        char::from_u32(bytes).unwrap_or(char::REPLACEMENT_CHARACTER)
    }
}

impl<T: Wire, const N: usize> Wire for [T; N] {
    type Bytes = [T::Bytes; N];
    fn to_wire(self) -> Self::Bytes {
        self.map(T::to_wire)
    }
    fn from_wire(bytes: Self::Bytes) -> Self {
        bytes.map(T::from_wire)
    }
}

/// Two travelling values side by side, with no padding between or after
/// them (`packed`), so any two `Pod`s make a `Pod`. Its fields may be
/// unaligned: they are only ever read and written by value.
#[derive(Clone, Copy)]
#[repr(C, packed)]
pub struct Pair<A, B>(A, B);

// SAFETY: the fields are Zeroable, and a packed struct has no bytes
// besides its fields', so all-zero bytes are two zeroed fields.
unsafe impl<A: Zeroable, B: Zeroable> Zeroable for Pair<A, B> {}
// SAFETY: `repr(C, packed)` leaves no padding, so every byte belongs to a
// field; both fields are Pod (any bit pattern valid, no uninitialised
// bytes), and `Pair` is Copy, 'static and without interior mutability
// because they are.
unsafe impl<A: Pod, B: Pod> Pod for Pair<A, B> {}

impl<A: Wire, B: Wire> Wire for ValLocScalar<A, B> {
    type Bytes = Pair<A::Bytes, B::Bytes>;
    fn to_wire(self) -> Self::Bytes {
        Pair(self.val.to_wire(), self.loc.to_wire())
    }
    fn from_wire(bytes: Self::Bytes) -> Self {
        let Pair(val, loc) = bytes;
        ValLocScalar {
            val: A::from_wire(val),
            loc: B::from_wire(loc),
        }
    }
}

impl<T: Wire> Wire for MinMaxScalar<T> {
    type Bytes = [T::Bytes; 2];
    fn to_wire(self) -> Self::Bytes {
        [self.min_val.to_wire(), self.max_val.to_wire()]
    }
    fn from_wire([min, max]: Self::Bytes) -> Self {
        MinMaxScalar {
            min_val: T::from_wire(min),
            max_val: T::from_wire(max),
        }
    }
}

impl<T: Wire, I: Wire> Wire for MinMaxLocScalar<T, I> {
    type Bytes = Pair<[T::Bytes; 2], [I::Bytes; 2]>;
    fn to_wire(self) -> Self::Bytes {
        Pair(
            [self.min_val.to_wire(), self.max_val.to_wire()],
            [self.min_loc.to_wire(), self.max_loc.to_wire()],
        )
    }
    fn from_wire(bytes: Self::Bytes) -> Self {
        let Pair([min_val, max_val], [min_loc, max_loc]) = bytes;
        MinMaxLocScalar {
            min_val: T::from_wire(min_val),
            max_val: T::from_wire(max_val),
            min_loc: I::from_wire(min_loc),
            max_loc: I::from_wire(max_loc),
        }
    }
}

impl<A: Wire> Wire for (A,) {
    type Bytes = A::Bytes;
    fn to_wire(self) -> Self::Bytes {
        self.0.to_wire()
    }
    fn from_wire(bytes: Self::Bytes) -> Self {
        (A::from_wire(bytes),)
    }
}

/// Tuples travel as nested pairs: `(A, B, C)` as `Pair<A, Pair<B, C>>`.
macro_rules! wire_tuple {
    ($first:ident $($rest:ident)+) => {
        impl<$first: Wire, $($rest: Wire),+> Wire for ($first, $($rest),+) {
            type Bytes = Pair<$first::Bytes, <($($rest,)+) as Wire>::Bytes>;
            #[allow(non_snake_case)]
            fn to_wire(self) -> Self::Bytes {
                let ($first, $($rest),+) = self;
                Pair($first.to_wire(), ($($rest,)+).to_wire())
            }
            #[allow(non_snake_case)]
            fn from_wire(bytes: Self::Bytes) -> Self {
                let Pair($first, rest) = bytes;
                let ($($rest,)+) = <($($rest,)+) as Wire>::from_wire(rest);
                ($first::from_wire($first), $($rest),+)
            }
        }
    };
}
wire_tuple!(A B);
wire_tuple!(A B C);
wire_tuple!(A B C D);
wire_tuple!(A B C D E);
wire_tuple!(A B C D E F);

/// The MPI datatype of one `T` in its travelling form, as opaque bytes.
pub(crate) fn bytes_of<T: Wire>() -> UserDatatype {
    let size = i32::try_from(std::mem::size_of::<T::Bytes>())
        .expect("a reduction value larger than 2 GiB cannot be one MPI element");
    UserDatatype::contiguous(size, &u8::equivalent_datatype())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Wire + PartialEq + std::fmt::Debug>(v: T) {
        assert_eq!(T::from_wire(v.to_wire()), v);
    }

    #[test]
    fn values_survive_the_trip_and_padding_is_left_behind() {
        round_trip(3.5f64);
        round_trip(true);
        round_trip('λ');
        round_trip([1u16, 2, 3]);
        round_trip((1u8, 2.5f32, -3i64));
        round_trip(ValLocScalar {
            val: 1.5f32,
            loc: 7usize,
        });
        round_trip(MinMaxLocScalar {
            min_val: -1i8,
            min_loc: 3u64,
            max_val: 9i8,
            max_loc: 4u64,
        });
        // ValLocScalar<f32, usize> has 4 bytes of padding; its travelling
        // form has none.
        assert_eq!(std::mem::size_of::<ValLocScalar<f32, usize>>(), 16);
        assert_eq!(
            std::mem::size_of::<<ValLocScalar<f32, usize> as Wire>::Bytes>(),
            12
        );
        assert_eq!(std::mem::size_of::<<(u8, u32, u8) as Wire>::Bytes>(), 6);
    }

    #[test]
    fn any_bytes_from_another_rank_are_valid_values() {
        assert!(bool::from_wire(2));
        assert_eq!(char::from_wire(0xD800), char::REPLACEMENT_CHARACTER);
        assert_eq!(char::from_wire(0x41), 'A');
    }
}
