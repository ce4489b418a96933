//! The traits that tie a `#[kernel]`'s functor type to its device side.

use super::{DeviceFn, DeviceKernel};

/// Implemented by the functor types that `#[kernel]` generates: where the
/// device side of the kernel is. Device spaces accept only functors that
/// implement it (and [`DeviceFunctor`](super::DeviceFunctor)); host spaces
/// accept any functor, closures included.
///
/// ```
/// use granule_core::kernel::{kernel, KernelPattern, KernelSource};
///
/// #[kernel(crate = granule_core)]
/// fn twice(i: usize, y: &mut f64, x: &granule_views::View1<f64>) {
///     *y = 2.0 * x[i];
/// }
///
/// let x = granule_views::View1::<f64>::from_fn("x", 4, |i| i as f64).unwrap();
/// fn source_of<K: KernelSource>(_: &K) -> &'static granule_core::kernel::DeviceKernel { K::KERNEL }
/// let k = source_of(&twice(&x));
/// assert_eq!((k.name, k.pattern), ("twice", KernelPattern::For));
/// ```
///
/// # Safety
/// `KERNEL` describes the device side of exactly this functor: its
/// parameters, in order, are the functor's work index, captures and
/// outputs as [`DeviceFunctor`](super::DeviceFunctor) describes them, and
/// its source is the translation of the functor's host body (see
/// [`DeviceKernel::new`]). `#[kernel]` implements it; a hand-written
/// implementation runs its own C++ on the device.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it is not a `#[kernel]` functor",
    label = "not a `#[kernel]` functor",
    note = "plain closures run only on host spaces (Serial, Rayon); write the kernel as a #[kernel] fn to run it on Cuda"
)]
pub unsafe trait KernelSource {
    /// The kernel's device description.
    const KERNEL: &'static DeviceKernel;
}

/// A custom reducer the device can run: `#[device] impl Reducer<T> for R`
/// implements it, pointing at the C++ struct translated from `init`,
/// `join` and `finalize` (which a device space wraps around the kernel,
/// as it does the built-in reducers).
///
/// ```
/// use granule_core::kernel::{device, DeviceReducer};
/// use granule_core::reducer::Reducer;
///
/// /// Σx and Σx² in one pass.
/// #[device(crate = granule_core)]
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// pub struct Moments {
///     pub sum: f64,
///     pub sum_sq: f64,
/// }
///
/// #[derive(Clone, Copy)]
/// pub struct AddMoments;
///
/// #[device(crate = granule_core)]
/// impl Reducer<Moments> for AddMoments {
///     fn init(&self) -> Moments {
///         Moments { sum: 0.0, sum_sq: 0.0 }
///     }
///     fn join(&self, dst: &mut Moments, src: &Moments) {
///         dst.sum += src.sum;
///         dst.sum_sq += src.sum_sq;
///     }
/// }
///
/// assert_eq!(<AddMoments as DeviceReducer>::DEVICE.name, "AddMoments");
/// assert!(<AddMoments as DeviceReducer>::DEVICE.source.contains("static __device__"));
/// ```
///
/// # Safety
/// `DEVICE` is the C++ struct of this reducer (`identity`, `join`,
/// `final_` over the C++ type of the reducer's value), translated from
/// its host `init`, `join` and `finalize`: `#[device]` implements it.
pub unsafe trait DeviceReducer {
    /// The reducer's C++ struct (`identity`, `join`, `final_`) and the
    /// `#[device]` items it uses.
    const DEVICE: &'static DeviceFn;
}

/// A `#[device] struct`: a struct of scalars with the same layout on the
/// host (`#[repr(C)]`, which `#[device]` adds) and the device, usable as
/// the value of a custom reducer ([`DeviceReducer`]).
///
/// ```
/// use granule_core::kernel::{device, DeviceStruct};
///
/// #[device(crate = granule_core)]
/// #[derive(Clone, Copy)]
/// struct Pair {
///     a: f64,
///     n: u32,
/// }
///
/// let def = <Pair as DeviceStruct>::DEVICE;
/// assert_eq!(def.source, "struct Pair {\n  granule::f64 a;\n  granule::u32 n;\n};\n");
/// assert_eq!(std::mem::size_of::<Pair>(), 16);
/// ```
///
/// # Safety
/// `DEVICE` is the C++ definition of this struct, with the same fields,
/// of the same types, in the same order, and `Self` is `#[repr(C)]`, so
/// the two layouts agree byte for byte: `#[device]` implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[device] struct`, so kernels cannot use it",
    label = "used in a `#[kernel]` or `#[device]` item",
    note = "add `#[device]` to the struct's definition (its fields must be scalars, `#[device] struct`s or arrays of them)"
)]
pub unsafe trait DeviceStruct: Copy {
    /// The struct's C++ definition.
    const DEVICE: &'static DeviceFn;
}

/// Scalar types with a device spelling, for instantiating generic kernels:
/// the primitive numbers and `bool`, and nothing else (the trait is
/// sealed, since the spelling is pasted into device code).
///
/// ```
/// use granule_core::kernel::DeviceScalar;
/// assert_eq!(<f32 as DeviceScalar>::CPP, "granule::f32");
/// ```
pub trait DeviceScalar: Copy + Send + Sync + 'static + sealed::Scalar {
    /// The device header's name of the type.
    const CPP: &'static str;
}

/// Scalars with device atomics (32- and 64-bit integers, `f32`, `f64`):
/// a generic kernel with an atomic View of `T` requires `T: DeviceAtomic`,
/// since the device has no 8- or 16-bit atomics.
///
/// ```compile_fail
/// use granule_core::kernel::DeviceAtomic;
/// fn atomic<T: DeviceAtomic>() {}
/// atomic::<u8>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no device atomics: the device's atomics are 32 and 64 bits wide",
    label = "an atomic View of `{Self}` in a kernel that runs on a device",
    note = "use an atomic View of i32, u32, i64, u64, usize, isize, f32 or f64"
)]
pub trait DeviceAtomic: DeviceScalar + sealed::Atomic {}

/// Every spelling [`DeviceScalar::CPP`] gives: the only template
/// arguments a translation unit accepts.
///
/// ```
/// assert!(granule_core::kernel::DEVICE_SCALARS.contains(&"granule::u16"));
/// ```
pub const DEVICE_SCALARS: &[&str] = &[
    "granule::f32",
    "granule::f64",
    "granule::i8",
    "granule::i16",
    "granule::i32",
    "granule::i64",
    "granule::u8",
    "granule::u16",
    "granule::u32",
    "granule::u64",
    "granule::usize",
    "granule::isize",
    "bool",
];

mod sealed {
    pub trait Scalar {}
    pub trait Atomic {}
}

macro_rules! device_scalar {
    ($($t:ty => $c:literal),*) => { $(
        impl sealed::Scalar for $t {}
        impl DeviceScalar for $t { const CPP: &'static str = $c; }
    )* };
}
device_scalar!(
    f32 => "granule::f32", f64 => "granule::f64", i8 => "granule::i8", i16 => "granule::i16",
    i32 => "granule::i32", i64 => "granule::i64", u8 => "granule::u8", u16 => "granule::u16",
    u32 => "granule::u32", u64 => "granule::u64", usize => "granule::usize",
    isize => "granule::isize", bool => "bool"
);

macro_rules! device_atomic {
    ($($t:ty),*) => { $(
        impl sealed::Atomic for $t {}
        impl DeviceAtomic for $t {}
    )* };
}
device_atomic!(i32, u32, i64, u64, usize, isize, f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scalar_spelling_is_listed() {
        fn cpp<T: DeviceScalar>() -> &'static str {
            T::CPP
        }
        let all = [
            cpp::<f32>(),
            cpp::<f64>(),
            cpp::<i8>(),
            cpp::<i16>(),
            cpp::<i32>(),
            cpp::<i64>(),
            cpp::<u8>(),
            cpp::<u16>(),
            cpp::<u32>(),
            cpp::<u64>(),
            cpp::<usize>(),
            cpp::<isize>(),
            cpp::<bool>(),
        ];
        assert_eq!(all.as_slice(), DEVICE_SCALARS);
    }
}
