//! What a `#[kernel]` or `#[device]` function carries for the device: its
//! CUDA C++ source and the description of its parameters.
//!
//! granule-macros generates these values; [`crate::codegen`] reads them to
//! write the `extern "C"` entry points. They are plain `'static` data, so a
//! kernel costs nothing at run time until a CUDA space compiles it.

/// The layout of a View parameter, as named in the device header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceLayout {
    /// Row-major (`granule::LayoutRight`).
    Right,
    /// Column-major (`granule::LayoutLeft`).
    Left,
    /// Arbitrary strides (`granule::LayoutStride`).
    Stride,
}

impl DeviceLayout {
    /// The device header's tag type.
    ///
    /// ```
    /// assert_eq!(granule_cuda::kernel::DeviceLayout::Left.cpp(), "granule::LayoutLeft");
    /// ```
    pub fn cpp(self) -> &'static str {
        match self {
            DeviceLayout::Right => "granule::LayoutRight",
            DeviceLayout::Left => "granule::LayoutLeft",
            DeviceLayout::Stride => "granule::LayoutStride",
        }
    }
}

/// The role of a kernel parameter, which decides how a driver binds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// The work index of a range policy (`usize`).
    Index,
    /// The team member of a team policy.
    Team,
    /// A scalar passed by value.
    Scalar,
    /// A View read by the kernel.
    View {
        /// Rank, 1..=8.
        rank: u8,
        /// Layout of the View.
        layout: DeviceLayout,
    },
    /// An owned output (`&mut T`): the work item's element of a written
    /// View for `parallel_for`, the accumulator for `parallel_reduce`.
    Out,
    /// An atomic View.
    Atomic {
        /// Rank, 1..=8.
        rank: u8,
    },
}

/// One parameter of a device kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// The Rust (and C++) name.
    pub name: &'static str,
    /// How a driver binds it.
    pub kind: ParamKind,
    /// The C++ element or scalar type (`granule::f64`, or a template
    /// parameter name such as `T`).
    pub cpp: &'static str,
}

/// A `#[device]` helper function: C++ source plus the helpers it calls.
#[derive(Debug)]
pub struct DeviceFn {
    /// The function's name.
    pub name: &'static str,
    /// The `__device__` definition.
    pub source: &'static str,
    /// Helpers it calls, emitted before it.
    pub deps: &'static [&'static DeviceFn],
}

/// A `#[kernel]` function as the device sees it.
#[derive(Debug)]
pub struct DeviceKernel {
    /// The kernel's name (the C++ function's name).
    pub name: &'static str,
    /// Template parameter names, in order (generic element types).
    pub generics: &'static [&'static str],
    /// The parameters, in declaration order.
    pub params: &'static [Param],
    /// The `__device__` definition (a template when `generics` is not empty).
    pub source: &'static str,
    /// `#[device]` helpers it calls.
    pub deps: &'static [&'static DeviceFn],
}

/// Implemented by the functor types that `#[kernel]` generates.
///
/// ```
/// use granule_cuda::kernel::{DeviceKernel, KernelSource};
/// struct Nop;
/// impl KernelSource for Nop {
///     const KERNEL: &'static DeviceKernel = &DeviceKernel {
///         name: "nop", generics: &[], params: &[],
///         source: "__device__ void nop() {}\n", deps: &[],
///     };
/// }
/// assert_eq!(Nop::KERNEL.name, "nop");
/// ```
pub trait KernelSource {
    /// The kernel's device description.
    const KERNEL: &'static DeviceKernel;
}

/// Scalar types with a device spelling, for instantiating generic kernels.
///
/// ```
/// use granule_cuda::kernel::DeviceScalar;
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
    f32 => "granule::f32", f64 => "granule::f64", i32 => "granule::i32", i64 => "granule::i64",
    u32 => "granule::u32", u64 => "granule::u64", usize => "granule::usize",
    isize => "granule::isize", bool => "bool"
);
