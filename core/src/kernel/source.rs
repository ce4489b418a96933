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
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it is not a `#[kernel]` functor",
    label = "not a `#[kernel]` functor",
    note = "plain closures run only on host spaces (Serial, Rayon); write the kernel as a #[kernel] fn to run it on Cuda"
)]
pub trait KernelSource {
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
pub trait DeviceReducer {
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
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[device] struct`, so kernels cannot use it",
    label = "used in a `#[kernel]` or `#[device]` item",
    note = "add `#[device]` to the struct's definition (its fields must be scalars)"
)]
pub trait DeviceStruct: Copy {
    /// The struct's C++ definition.
    const DEVICE: &'static DeviceFn;
}

/// Scalar types with a device spelling, for instantiating generic kernels.
///
/// ```
/// use granule_core::kernel::DeviceScalar;
/// assert_eq!(<f32 as DeviceScalar>::CPP, "granule::f32");
/// ```
pub trait DeviceScalar: Copy {
    /// The device header's name of the type.
    const CPP: &'static str;
}

macro_rules! device_scalar {
    ($($t:ty => $c:literal),*) => { $(
        impl DeviceScalar for $t { const CPP: &'static str = $c; }
    )* };
}
device_scalar!(
    f32 => "granule::f32", f64 => "granule::f64", i8 => "granule::i8", i16 => "granule::i16",
    i32 => "granule::i32", i64 => "granule::i64", u8 => "granule::u8", u16 => "granule::u16",
    u32 => "granule::u32", u64 => "granule::u64", usize => "granule::usize",
    isize => "granule::isize", bool => "bool"
);
