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
    /// Row `i` of a written View of rank `rank` (2..=8) under a range
    /// policy ([`Row<T, rank>`](crate::write::Row)): the driver binds the
    /// work index's row.
    Row {
        /// The written View's rank.
        rank: u8,
    },
    /// Segment `i` of a written rank-1 View under a range policy
    /// ([`Segment<T>`](crate::write::Segment)): two entry parameters, the
    /// View and its offsets, from which the driver binds the work index's
    /// segment.
    Segment,
    /// The `is_final` flag of a scan kernel (`bool`).
    Final,
    /// An element an algorithm hands to an element function
    /// ([`KernelPattern::Element`]): its leading parameters, by value.
    Element,
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
    /// A hash map (`UnorderedMap` to read it, `MapInserter` to insert);
    /// the parameter's C++ type is `Key, Value`.
    Map {
        /// Whether the kernel inserts.
        insert: bool,
        /// Whether it is the set form (`SetInserter`, `UnorderedSet`),
        /// whose C++ type is `Key` alone.
        set: bool,
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
/// `#[kernel(scan)]`), or that it is an element function (`#[kernel]` on a
/// function that returns a value); the policy follows from the first
/// parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelPattern {
    /// `parallel_for`: the `&mut` parameters are the work item's elements.
    For,
    /// `parallel_reduce`: the single `&mut` parameter is the accumulator.
    Reduce,
    /// `parallel_scan`: the `&mut` parameters are the elements, then the
    /// running partial, then the `bool` final flag.
    Scan,
    /// An element function (`#[kernel] fn f(x: T, ..) -> U`): not a
    /// kernel of a pattern but per-element user code an algorithm calls
    /// (a predicate, a transform, a comparator). Its leading
    /// [`ParamKind::Element`] parameters are the elements, the others its
    /// captures (scalars and read Views); it returns a value.
    Element,
}

/// A `#[device]` item (helper function, constant, struct or custom
/// reducer): C++ source plus the items it uses.
///
/// Its C++ text is pasted into every translation unit that uses it, so
/// only `#[device]` (and granule's own tests, through the `unsafe`
/// [`DeviceFn::new`]) make one: the fields are readable, but a private
/// field keeps safe code from building the struct.
#[derive(Debug, PartialEq, Eq)]
pub struct DeviceFn {
    /// The function's name.
    pub name: &'static str,
    /// The `__device__` definition.
    pub source: &'static str,
    /// Helpers it calls, emitted before it.
    pub deps: &'static [&'static DeviceFn],
    _trusted: Trusted,
}

impl DeviceFn {
    /// A device item from its parts.
    ///
    /// # Safety
    /// `source` is trusted device code: it is compiled into translation
    /// units that run with the process's (or the GPU's) full access. It
    /// must be the translation of a Rust item that safe Rust could run on
    /// the host with the same effects (as `#[device]` makes it): it
    /// defines `name` (and nothing another item defines), reads and
    /// writes only through its parameters as the subset allows, and every
    /// type it names is the one the Rust item has. `deps` are the items it
    /// uses.
    ///
    /// ```
    /// use granule_core::kernel::DeviceFn;
    /// // SAFETY: a pure function of its argument, defining only `twice`.
    /// static TWICE: DeviceFn = unsafe {
    ///     DeviceFn::new("twice", "__device__ granule::f64 twice(granule::f64 x) { return 2.0 * x; }\n", &[])
    /// };
    /// assert_eq!(TWICE.name, "twice");
    /// ```
    pub const unsafe fn new(
        name: &'static str,
        source: &'static str,
        deps: &'static [&'static DeviceFn],
    ) -> Self {
        DeviceFn {
            name,
            source,
            deps,
            _trusted: Trusted(()),
        }
    }
}

/// What a team kernel's writes need of its launch on a device, decided by
/// the translator (`#[kernel]`'s team write model): `None` when the
/// kernel is race-free for every team size and vector length.
pub type LaneNeed = Option<&'static str>;

/// A `#[kernel]` function as the device sees it.
///
/// Only `#[kernel]` (and granule's own tests, through the `unsafe`
/// [`DeviceKernel::new`]) make one: its `source` is pasted into a
/// translation unit and run, so a private field keeps safe code from
/// building the struct or changing a copy.
///
/// ```
/// use granule_core::kernel::{DeviceKernel, KernelPattern};
/// // SAFETY: an empty function that touches nothing.
/// static NOP: DeviceKernel = unsafe {
///     DeviceKernel::new("nop", KernelPattern::For, &[], &[], "__device__ void nop() {}\n", &[])
/// };
/// assert_eq!(NOP.name, "nop");
/// assert_eq!(NOP.one_lane, None);
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
    /// For a team kernel that writes memory its thread's vector lanes
    /// share outside a construct that divides it among them: why (the
    /// first such write, with its line), so that a device runs it only
    /// with `vector_length == 1`.
    pub one_lane: LaneNeed,
    _trusted: Trusted,
}

impl DeviceKernel {
    /// A kernel description with no launch need (see
    /// [`DeviceKernel::with_one_lane`]).
    ///
    /// # Safety
    /// `source` is trusted device code (see [`DeviceFn::new`]): the
    /// translation of a Rust kernel that safe Rust could run on the host,
    /// defining the `__device__` function `name` whose parameters are
    /// exactly `params` (roles, C++ types, order) and which writes only
    /// what the write model gives it (its `&mut` elements, the parts its
    /// chunk maps give its thread, scratch in the ways the translator
    /// checks, atomic Views). Every type the text names is the Rust type
    /// the kernel's signature has. `generics` are its template parameters
    /// and `deps` the items it uses.
    pub const unsafe fn new(
        name: &'static str,
        pattern: KernelPattern,
        generics: &'static [&'static str],
        params: &'static [Param],
        source: &'static str,
        deps: &'static [&'static DeviceFn],
    ) -> Self {
        DeviceKernel {
            name,
            pattern,
            generics,
            params,
            source,
            deps,
            one_lane: None,
            _trusted: Trusted(()),
        }
    }

    /// The same kernel, whose writes are race-free only with one vector
    /// lane per team thread, for `reason`.
    ///
    /// ```
    /// use granule_core::kernel::{DeviceKernel, KernelPattern};
    /// // SAFETY: an empty function that touches nothing.
    /// static K: DeviceKernel = unsafe {
    ///     DeviceKernel::new("k", KernelPattern::For, &[], &[], "__device__ void k() {}\n", &[])
    /// }
    /// .with_one_lane("line 3 writes thread scratch");
    /// assert_eq!(K.one_lane, Some("line 3 writes thread scratch"));
    /// ```
    pub const fn with_one_lane(self, reason: &'static str) -> Self {
        DeviceKernel {
            one_lane: Some(reason),
            ..self
        }
    }
}

/// The private field of trusted descriptions: it makes their struct
/// literals (and functional updates) impossible outside this module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Trusted(());
