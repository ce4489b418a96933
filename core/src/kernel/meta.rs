//! The device description of kernels and helpers: plain `'static` data.

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
    /// assert_eq!(granule_core::kernel::DeviceLayout::Left.cpp(), "granule::LayoutLeft");
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
    /// The work index of a rank-`rank` MDRange policy (`[usize; rank]`).
    MdIndex {
        /// Rank, 2..=6.
        rank: u8,
    },
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
    /// View for `parallel_for`, the accumulator for `parallel_reduce`, the
    /// running partial for `parallel_scan`.
    Out,
    /// The `is_final` flag of a scan kernel (`bool`).
    Final,
    /// An atomic View.
    Atomic {
        /// Rank, 1..=8.
        rank: u8,
    },
    /// A team's part of a chunked View (`TeamChunk<T, M>`): the driver
    /// binds the part of the current team (league rank) under `map`.
    Chunk {
        /// The outer (Grid -> Block) map.
        map: DeviceChunkMap,
    },
}

/// The chunk maps the device mirrors (`granule_views::chunk`).
///
/// ```
/// use granule_core::kernel::DeviceChunkMap;
/// assert_eq!(DeviceChunkMap::ContinuousLinear.cpp(), "granule::MapContinuousLinear");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChunkMap {
    /// `MapContinuousLinear`: thread g owns `[g*width, (g+1)*width)`.
    ContinuousLinear,
    /// `MapIdentity`: one thread owns the whole part.
    Identity,
}

impl DeviceChunkMap {
    /// The device header's name of the map.
    pub fn cpp(self) -> &'static str {
        match self {
            DeviceChunkMap::ContinuousLinear => "granule::MapContinuousLinear",
            DeviceChunkMap::Identity => "granule::MapIdentity",
        }
    }
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

/// Which pattern a kernel is written for (`#[kernel]`, `#[kernel(reduce)]`,
/// `#[kernel(scan)]`); the policy follows from the first parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelPattern {
    /// `parallel_for`: the `&mut` parameters are the work item's elements.
    For,
    /// `parallel_reduce`: the single `&mut` parameter is the accumulator.
    Reduce,
    /// `parallel_scan`: the `&mut` parameters are the elements, then the
    /// running partial, then the `bool` final flag.
    Scan,
}

/// A `#[device]` item (helper function, constant, struct or custom
/// reducer): C++ source plus the items it uses.
#[derive(Debug, PartialEq, Eq)]
pub struct DeviceFn {
    /// The function's name.
    pub name: &'static str,
    /// The `__device__` definition.
    pub source: &'static str,
    /// Helpers it calls, emitted before it.
    pub deps: &'static [&'static DeviceFn],
}

/// A `#[kernel]` function as the device sees it.
///
/// ```
/// use granule_core::kernel::{DeviceKernel, KernelPattern};
/// static NOP: DeviceKernel = DeviceKernel {
///     name: "nop", pattern: KernelPattern::For, generics: &[], params: &[],
///     source: "__device__ void nop() {}\n", deps: &[],
/// };
/// assert_eq!(NOP.name, "nop");
/// ```
#[derive(Debug)]
pub struct DeviceKernel {
    /// The kernel's name (the C++ function's name).
    pub name: &'static str,
    /// The pattern it is written for.
    pub pattern: KernelPattern,
    /// Template parameter names, in order (generic element types).
    pub generics: &'static [&'static str],
    /// The parameters, in declaration order.
    pub params: &'static [Param],
    /// The `__device__` definition (a template when `generics` is not empty).
    pub source: &'static str,
    /// `#[device]` helpers it calls.
    pub deps: &'static [&'static DeviceFn],
}
