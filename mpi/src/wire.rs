//! Values that may cross a process boundary as their bytes.

use granule_core::reducer::{MinMaxLocScalar, MinMaxScalar, ValLocScalar};
use mpi::datatype::UserDatatype;
use mpi::traits::Equivalence;

/// A value whose bytes, copied into another process of the same program,
/// are the same value there: no pointers, no references, no resources.
///
/// `all_reduce` moves reduction values (scalars, granule's `ValLocScalar`
/// and `MinMaxScalar`, tuples and arrays of them) as raw bytes, so it
/// needs this promise rather than rsmpi's `Equivalence`, which those types
/// lack.
///
/// # Safety
/// Implement only for `Copy` types made of plain numbers (and `bool`,
/// `char`, arrays and tuples of such): every byte pattern that a valid
/// value of the type has in one process must be a valid value of it in
/// another process running the same binary.
pub unsafe trait Wire: Copy + Send + Sync + 'static {}

macro_rules! wire {
    ($($t:ty),*) => { $(
        // SAFETY: a primitive number, bool or char: its bytes are its value.
        unsafe impl Wire for $t {}
    )* };
}
wire!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, bool, char);

// SAFETY: an array of plain values is plain.
unsafe impl<T: Wire, const N: usize> Wire for [T; N] {}
// SAFETY: two plain fields.
unsafe impl<T: Wire, I: Wire> Wire for ValLocScalar<T, I> {}
// SAFETY: two plain fields.
unsafe impl<T: Wire> Wire for MinMaxScalar<T> {}
// SAFETY: four plain fields.
unsafe impl<T: Wire, I: Wire> Wire for MinMaxLocScalar<T, I> {}

macro_rules! wire_tuple {
    ($($n:ident),+) => {
        // SAFETY: a tuple of plain fields; padding bytes are copied by MPI
        // as memory, never read as values.
        unsafe impl<$($n: Wire),+> Wire for ($($n,)+) {}
    };
}
wire_tuple!(A);
wire_tuple!(A, B);
wire_tuple!(A, B, C);
wire_tuple!(A, B, C, D);
wire_tuple!(A, B, C, D, E);
wire_tuple!(A, B, C, D, E, F);

/// The MPI datatype of one `T` as opaque bytes.
pub(crate) fn bytes_of<T: Wire>() -> UserDatatype {
    let size = i32::try_from(std::mem::size_of::<T>())
        .expect("a reduction value larger than 2 GiB cannot be one MPI element");
    UserDatatype::contiguous(size, &u8::equivalent_datatype())
}
