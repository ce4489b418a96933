//! The traits that tie a `#[kernel]`'s functor type to its device side.

use super::DeviceKernel;

/// Implemented by the functor types that `#[kernel]` generates: where the
/// device side of the kernel is.
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
pub trait KernelSource {
    /// The kernel's device description.
    const KERNEL: &'static DeviceKernel;
}

/// The functors a device execution space accepts: only `#[kernel]`
/// functor types implement it, since only they carry a translation.
///
/// No device space exists yet (a later CUDA issue adds `Cuda`, whose
/// pattern implementations require `F: DeviceFunctor`); host spaces accept
/// any functor, closures included.
///
/// ```
/// use granule_core::kernel::{kernel, DeviceFunctor};
///
/// #[kernel(crate = granule_core)]
/// fn fill(i: usize, y: &mut u32) {
///     *y = i as u32;
/// }
///
/// fn device_only<F: DeviceFunctor>(f: F) -> F { f }
/// let _ = device_only(fill());
/// ```
///
/// A closure is rejected with a message pointing to `#[kernel]`:
///
/// ```compile_fail
/// fn device_only<F: granule_core::kernel::DeviceFunctor>(f: F) -> F { f }
/// device_only(|i: usize, y: &mut u32| *y = i as u32);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it is not a `#[kernel]` functor",
    label = "not a `#[kernel]` functor",
    note = "plain closures run only on host spaces (Serial, Rayon); write the kernel as a #[kernel] fn to run it on Cuda"
)]
pub trait DeviceFunctor: KernelSource {}

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
