//! What a device execution space reads from a dispatch: the values a
//! `#[kernel]` functor captured, the Views the call writes, and the
//! accumulator's bytes, each described in the layout the device header's
//! entry points take.
//!
//! A host space never looks at any of this; a device space (Cuda) turns
//! it into launch arguments, after checking every address against the
//! allocations of its own memory space.

use super::{DeviceChunkMap, KernelSource};
use crate::reducer::{MinMaxLocScalar, MinMaxScalar, ValLocScalar};
use crate::write::ViewParts;
use granule_views::storage::Storage;
use granule_views::{Atomic, AtomicView, Layout, MemorySpace, ViewBase};

/// A View as an entry point takes it: data address, extents and strides
/// (in elements), and the label errors name it by.
///
/// ```
/// use granule_core::kernel::{view_arg_of, DeviceArg};
/// let v = granule_views::View2::<f32>::zeros("a", [2, 3]).unwrap();
/// let DeviceArg::View(a) = view_arg_of(&v) else { unreachable!() };
/// assert_eq!((a.label, a.elem_size, a.extents, a.strides), ("a", 4, vec![2, 3], vec![3, 1]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewArg<'a> {
    /// The View's label.
    pub label: &'a str,
    /// Address of element 0 in the View's memory space (a device address
    /// for a device space: never dereferenced on the host).
    pub address: usize,
    /// Size of one element in bytes.
    pub elem_size: usize,
    /// Extent of each rank.
    pub extents: Vec<usize>,
    /// Stride of each rank, in elements.
    pub strides: Vec<usize>,
}

impl<'a> ViewArg<'a> {
    /// The argument of a View of `T`s at `address` with these extents and
    /// strides (in elements).
    ///
    /// ```
    /// use granule_core::kernel::ViewArg;
    /// let v = ViewArg::of::<u16>("v", 0x40, &[3], &[2]);
    /// assert_eq!((v.elem_size, v.span_bytes()), (2, Some(10)));
    /// ```
    pub fn of<T>(label: &'a str, address: usize, extents: &[usize], strides: &[usize]) -> Self {
        ViewArg {
            label,
            address,
            elem_size: std::mem::size_of::<T>(),
            extents: extents.to_vec(),
            strides: strides.to_vec(),
        }
    }

    /// The bytes from element 0 to one past the farthest element (0 for
    /// an empty View), or `None` if that overflows.
    ///
    /// ```
    /// use granule_core::kernel::ViewArg;
    /// let v = ViewArg { label: "a", address: 0, elem_size: 8, extents: vec![2, 3], strides: vec![4, 1] };
    /// assert_eq!(v.span_bytes(), Some((4 + 2 + 1) * 8));
    /// ```
    pub fn span_bytes(&self) -> Option<usize> {
        if self.extents.contains(&0) {
            return Some(0);
        }
        let mut last = 0usize;
        for (e, s) in self.extents.iter().zip(&self.strides) {
            last = last.checked_add((e - 1).checked_mul(*s)?)?;
        }
        last.checked_add(1)?.checked_mul(self.elem_size)
    }
}

/// A View divided among teams by a chunk map (`granule::Chunked`), as
/// the team chunks of a dispatch describe it.
///
/// ```
/// use granule_core::kernel::{DeviceArg, DeviceChunkMap, DeviceWrites};
/// use granule_core::team::LeagueIndex;
/// use granule_views::chunk::{GridToBlock, MapContinuousLinear};
/// use granule_views::HostSpace;
/// let mut y = granule_views::View1::<u32>::zeros("y", 12).unwrap();
/// let parts = y.chunked(MapContinuousLinear::new(4)).share::<GridToBlock>([3, 1, 1]).unwrap();
/// assert!(DeviceWrites::<LeagueIndex, HostSpace>::covers(&parts, &LeagueIndex { rank: 3, size: 3 }));
/// let mut args = Vec::new();
/// DeviceWrites::<LeagueIndex, HostSpace>::device_args(&parts, &mut args);
/// let DeviceArg::Chunked(c) = &args[0] else { unreachable!() };
/// assert_eq!((c.len, c.contiguous, c.map, c.map_words.clone()), (12, true, DeviceChunkMap::ContinuousLinear, vec![4]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkedArg<'a> {
    /// The View's label.
    pub label: &'a str,
    /// Address of element 0 (see [`ViewArg::address`]).
    pub address: usize,
    /// Size of one element in bytes.
    pub elem_size: usize,
    /// Number of elements.
    pub len: usize,
    /// Whether element `k` (row-major linear index) is at
    /// `address + k * elem_size`, which the device's chunks assume.
    pub contiguous: bool,
    /// The map.
    pub map: DeviceChunkMap,
    /// The map's fields, as the device struct holds them.
    pub map_words: Vec<u64>,
}

/// One argument of a kernel, in the kernel's parameter order: what
/// [`DeviceFunctor::captures`] and [`DeviceWrites::device_args`] give.
///
/// ```
/// use granule_core::kernel::{scalar_arg_of, DeviceArg};
/// assert_eq!(scalar_arg_of(&7u16), DeviceArg::Scalar(7u16.to_ne_bytes().to_vec()));
/// assert_eq!(scalar_arg_of(&true), DeviceArg::Scalar(vec![1]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceArg<'a> {
    /// A value parameter: its bytes in the device's layout.
    Scalar(Vec<u8>),
    /// A View the kernel reads.
    View(ViewArg<'a>),
    /// An atomic View.
    Atomic(ViewArg<'a>),
    /// A View the call writes, one element per work index.
    Written(ViewArg<'a>),
    /// A View the call writes, divided among teams.
    Chunked(ChunkedArg<'a>),
    /// A hash map (granule-containers' `UnorderedMap` or its inserter).
    Map(Box<super::map::MapArg<'a>>),
}

/// A value that crosses between host and device as bytes: scalars, the
/// location reducers' values, arrays, tuples (as `granule::Tuple`) and
/// `#[device] struct`s (for which `#[device]` implements it).
///
/// ```
/// use granule_core::kernel::DeviceValue;
/// use granule_core::reducer::ValLocScalar;
/// let v = ValLocScalar { val: 2.5f32, loc: 7usize };
/// let mut bytes = vec![0; <ValLocScalar<f32, usize>>::SIZE];
/// v.store(&mut bytes);
/// assert_eq!(bytes.len(), 16);
/// assert_eq!(<ValLocScalar<f32, usize>>::load(&bytes), v);
/// ```
///
/// # Safety
/// `SIZE` and `ALIGN` are `sizeof` and `alignof` of the type the device
/// header uses for `Self` (drivers size device buffers by them, and the
/// device writes that many bytes).
pub unsafe trait DeviceValue: Copy + Send + Sync + 'static {
    /// `sizeof` on the device.
    const SIZE: usize;
    /// `alignof` on the device.
    const ALIGN: usize;
    /// Writes the value's device bytes into `out` (`SIZE` bytes long);
    /// padding is left as it is.
    fn store(&self, out: &mut [u8]);
    /// Reads a value from its device bytes (`SIZE` bytes long).
    fn load(bytes: &[u8]) -> Self;
}

macro_rules! device_value_num {
    ($($t:ty),*) => { $(
        // SAFETY: the device header's fixed-width type of the same size
        // and alignment (`usize`/`isize` are 64-bit on both sides).
        unsafe impl DeviceValue for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            const ALIGN: usize = std::mem::align_of::<$t>();
            fn store(&self, out: &mut [u8]) {
                out[..Self::SIZE].copy_from_slice(&self.to_ne_bytes());
            }
            fn load(bytes: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(&bytes[..Self::SIZE]);
                <$t>::from_ne_bytes(b)
            }
        }
    )* };
}
device_value_num!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, usize, isize);

// SAFETY: C++ `bool` is one byte holding 0 or 1.
unsafe impl DeviceValue for bool {
    const SIZE: usize = 1;
    const ALIGN: usize = 1;
    fn store(&self, out: &mut [u8]) {
        out[0] = u8::from(*self);
    }
    fn load(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

// SAFETY: `granule::Array<T, N>` holds a C array of N elements (no
// padding between them); `Array<T, 0>` is an empty C++ struct, of size 1.
unsafe impl<T: DeviceValue, const N: usize> DeviceValue for [T; N] {
    const SIZE: usize = if N == 0 { 1 } else { T::SIZE * N };
    const ALIGN: usize = if N == 0 { 1 } else { T::ALIGN };
    fn store(&self, out: &mut [u8]) {
        for (k, x) in self.iter().enumerate() {
            x.store(&mut out[k * T::SIZE..]);
        }
    }
    fn load(bytes: &[u8]) -> Self {
        std::array::from_fn(|k| T::load(&bytes[k * T::SIZE..]))
    }
}

/// A value whose device type has its host layout, so that the device
/// reads and writes a View of it in place: the element of a View a kernel
/// reads or writes (scalars, arrays of them, `#[device] struct`s, for which
/// `#[device]` implements it; not tuples, whose `granule::Tuple` is laid
/// out otherwise).
///
/// [`SAME_LAYOUT`](Self::SAME_LAYOUT) fails to compile for a type whose
/// sizes differ (an array of length 0, which C++ cannot lay out in zero
/// bytes): the kernel glue evaluates it for every such element type.
///
/// ```
/// use granule_core::kernel::DeviceElement;
/// let () = <[f64; 3] as DeviceElement>::SAME_LAYOUT;
/// ```
///
/// ```compile_fail
/// use granule_core::kernel::DeviceElement;
/// const _: () = <[f64; 0] as DeviceElement>::SAME_LAYOUT;
/// ```
///
/// # Safety
/// Where `SAME_LAYOUT` evaluates, the device type of `Self` has the host's
/// size, alignment and byte offsets of every field and element.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a scalar, a `#[device] struct` or an array of them, so kernels cannot use it",
    label = "used in a `#[kernel]` or `#[device]` item",
    note = "add `#[device]` to the struct's definition (its fields must be scalars, `#[device] struct`s or arrays of them)"
)]
pub unsafe trait DeviceElement: DeviceValue {
    /// `()`, or a compile error when the device and host sizes or
    /// alignments differ.
    const SAME_LAYOUT: () = assert!(
        Self::SIZE == std::mem::size_of::<Self>() && Self::ALIGN == std::mem::align_of::<Self>(),
        "this type has no device layout equal to the host's (an array of length 0?)"
    );
}

macro_rules! device_element_num {
    ($($t:ty),*) => { $(
        // SAFETY: a scalar: the header's fixed-width type (see DeviceValue).
        unsafe impl DeviceElement for $t {}
    )* };
}
device_element_num!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, usize, isize, bool);

// SAFETY: elements of the host's layout, back to back on both sides; the
// one case whose sizes differ (N = 0) fails `SAME_LAYOUT`.
unsafe impl<T: DeviceElement, const N: usize> DeviceElement for [T; N] {}

/// `(offsets, size, align)` of a C struct with fields of these
/// `(size, align)`s, in order.
const fn c_struct<const N: usize>(fields: [(usize, usize); N]) -> ([usize; N], usize, usize) {
    let mut offsets = [0; N];
    let (mut end, mut align, mut k): (usize, usize, usize) = (0, 1, 0);
    while k < N {
        let (s, a) = fields[k];
        offsets[k] = end.div_ceil(a) * a;
        end = offsets[k] + s;
        if a > align {
            align = a;
        }
        k += 1;
    }
    (offsets, end.div_ceil(align) * align, align)
}

/// Implements `DeviceValue` for a generic struct that the device header
/// declares with the same fields in the same order.
macro_rules! device_value_struct {
    ($ty:ident < $($g:ident),+ > { $($f:ident : $ft:ident),+ }) => {
        // SAFETY: the header's struct of the same name has these fields in
        // this order, so C layout rules give its size and alignment.
        unsafe impl<$($g: DeviceValue),+> DeviceValue for $ty<$($g),+> {
            const SIZE: usize = c_struct([$(($ft::SIZE, $ft::ALIGN)),+]).1;
            const ALIGN: usize = c_struct([$(($ft::SIZE, $ft::ALIGN)),+]).2;
            fn store(&self, out: &mut [u8]) {
                let offs = const { c_struct([$(($ft::SIZE, $ft::ALIGN)),+]).0 };
                let mut k = 0;
                $( self.$f.store(&mut out[offs[k]..]); k += 1; )+
                let _ = k;
            }
            fn load(bytes: &[u8]) -> Self {
                let offs = const { c_struct([$(($ft::SIZE, $ft::ALIGN)),+]).0 };
                let mut k = 0;
                $( let $f = $ft::load(&bytes[offs[k]..]); k += 1; )+
                let _ = k;
                $ty { $($f),+ }
            }
        }
    };
}
device_value_struct!(ValLocScalar<T, L> { val: T, loc: L });
device_value_struct!(MinMaxLocScalar<T, L> { min_val: T, max_val: T, min_loc: L, max_loc: L });
device_value_struct!(MinMaxScalar<T> { min_val: T, max_val: T });

/// `(size, align)` of `granule::Tuple<F_k, .., F_last>` (fields `k..`):
/// a head and the tuple of the rest, ending in the empty tuple, whose C++
/// size is 1.
const fn tuple_layout(fields: &[(usize, usize)], k: usize) -> (usize, usize) {
    if k == fields.len() {
        return (1, 1);
    }
    let (tail_size, tail_align) = tuple_layout(fields, k + 1);
    let (s, a) = fields[k];
    let tail_at = s.div_ceil(tail_align) * tail_align;
    let align = if a > tail_align { a } else { tail_align };
    ((tail_at + tail_size).div_ceil(align) * align, align)
}

/// The offset of every field in `granule::Tuple<F_0, ..>`.
const fn tuple_offsets<const N: usize>(fields: [(usize, usize); N]) -> [usize; N] {
    let mut offs = [0; N];
    let mut j = 0;
    while j + 1 < N {
        let tail_align = tuple_layout(&fields, j + 1).1;
        offs[j + 1] = offs[j] + fields[j].0.div_ceil(tail_align) * tail_align;
        j += 1;
    }
    offs
}

macro_rules! device_value_tuple {
    ($(($t:ident, $i:tt)),+) => {
        // SAFETY: the layout of the header's recursive `Tuple`, computed
        // by the C++ rules (`tuple_layout`).
        unsafe impl<$($t: DeviceValue),+> DeviceValue for ($($t,)+) {
            const SIZE: usize = tuple_layout(&[$(($t::SIZE, $t::ALIGN)),+], 0).0;
            const ALIGN: usize = tuple_layout(&[$(($t::SIZE, $t::ALIGN)),+], 0).1;
            fn store(&self, out: &mut [u8]) {
                let offs = const { tuple_offsets([$(($t::SIZE, $t::ALIGN)),+]) };
                $( self.$i.store(&mut out[offs[$i]..]); )+
            }
            fn load(bytes: &[u8]) -> Self {
                let offs = const { tuple_offsets([$(($t::SIZE, $t::ALIGN)),+]) };
                ($($t::load(&bytes[offs[$i]..]),)+)
            }
        }
    };
}
device_value_tuple!((A, 0));
device_value_tuple!((A, 0), (B, 1));
device_value_tuple!((A, 0), (B, 1), (C, 2));
device_value_tuple!((A, 0), (B, 1), (C, 2), (D, 3));
device_value_tuple!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4));
device_value_tuple!((A, 0), (B, 1), (C, 2), (D, 3), (E, 4), (F, 5));

/// A `#[kernel]` functor that can run in memory space `M`: `#[kernel]`
/// implements it for every `M` its captured Views live in (every `M` when
/// it captures no View), so a kernel given host Views cannot be launched
/// on a device space.
///
/// ```
/// use granule_core::kernel::{kernel, DeviceArg, DeviceFunctor};
/// use granule_core::prelude::*;
///
/// #[kernel(crate = granule_core)]
/// fn scale(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
///     *y = a * x[i];
/// }
///
/// let x = View1::<f64>::zeros("x", 3).unwrap();
/// let f = scale(2.0, &x);
/// let args = DeviceFunctor::<HostSpace>::captures(&f);
/// assert_eq!(args[0], DeviceArg::Scalar(2.0f64.to_ne_bytes().to_vec()));
/// assert!(matches!(&args[1], DeviceArg::View(v) if v.label == "x" && v.extents == [3]));
/// ```
///
/// A kernel whose Views live in the host's memory cannot name another
/// memory space:
///
/// ```compile_fail
/// use granule_core::kernel::{kernel, DeviceFunctor};
/// use granule_core::prelude::*;
/// #[derive(Clone, Debug)]
/// struct Elsewhere;
/// # unsafe impl granule_views::MemorySpace for Elsewhere {
/// #     const NAME: &'static str = "Elsewhere";
/// #     const IS_HOST_ACCESSIBLE: bool = false;
/// #     fn allocate(&self, _: usize, _: bool) -> Result<std::ptr::NonNull<u8>, String> { Err("none".into()) }
/// #     unsafe fn deallocate(&self, _: std::ptr::NonNull<u8>, _: usize) {}
/// # }
/// #[kernel(crate = granule_core)]
/// fn copy(i: usize, y: &mut f64, x: &View1<f64>) { *y = x[i]; }
/// fn on_device<F: DeviceFunctor<Elsewhere>>(_: &F) {}
/// let x = View1::<f64>::zeros("x", 3).unwrap();
/// on_device(&copy(&x));
/// ```
///
/// # Safety
/// - `captures` describes exactly the values and Views the functor holds
///   for the kernel's captured parameters, in the order of
///   `KERNEL.params`: each View argument names memory the functor borrows
///   (shared for read Views, through an [`AtomicView`] for atomic ones)
///   for as long as the functor lives, with its true element size,
///   extents and strides;
/// - `TYPES` are the [`DeviceScalar::CPP`](super::DeviceScalar::CPP)
///   spellings of the kernel's generic arguments, in order;
/// - `Index` is the kernel's work index as the host functor traits take
///   it (`usize`, `[usize; R]`, [`TeamMember`](crate::team::TeamMember)),
///   `Outputs` what its `&mut` and `TeamChunk` parameters take, as
///   [`DeviceWrites::Outputs`] says it, and `Value` the accumulator (a
///   reduction's) or partial (a scan's) type, `()` for a for kernel.
///
/// `#[kernel]` implements it; the dispatch of a device space trusts it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it is not a `#[kernel]` functor",
    label = "not a `#[kernel]` functor",
    note = "plain closures run only on host spaces (Serial, Rayon); write the kernel as a #[kernel] fn to run it on Cuda"
)]
pub unsafe trait DeviceFunctor<M: MemorySpace>: KernelSource {
    /// The work index: `usize` for a range kernel, `[usize; R]` for an
    /// MDRange kernel, [`TeamMember`](crate::team::TeamMember) for a team
    /// kernel. A device space dispatches a kernel only with its policy.
    type Index;
    /// What one work item writes: `()`, `&'static mut T` per `&mut T`
    /// element, `TeamChunk<'static, T, M>` per team chunk, a tuple when
    /// there are several (as the host functor traits receive them). A
    /// device space dispatches the kernel only over written objects with
    /// the same [`DeviceWrites::Outputs`], so a kernel for `&mut f64`
    /// never writes a View of `u8`.
    type Outputs;
    /// The accumulator of a reduce kernel, the partial of a scan kernel,
    /// `()` for a for kernel.
    type Value;
    /// The device spelling of the kernel's generic arguments, in order.
    const TYPES: &'static [&'static str];
    /// The captured arguments (values, read Views, atomic Views) in the
    /// kernel's parameter order.
    fn captures(&self) -> Vec<DeviceArg<'_>>;
}

/// The bound through which a kernel's Views must be in the memory space
/// of the execution space it runs on: implemented only for `M: SameMemorySpace<M>`,
/// so a kernel given host Views and dispatched on a device space is a
/// compile error that names both spaces.
///
/// ```
/// use granule_core::kernel::SameMemorySpace;
/// use granule_views::HostSpace;
/// fn same<A: SameMemorySpace<B>, B>() {}
/// same::<HostSpace, HostSpace>();
/// ```
#[diagnostic::on_unimplemented(
    message = "the kernel's Views are in memory space `{Self}`, but this execution space runs kernels on Views in `{M}`",
    label = "the Views given to the kernel are in `{Self}`",
    note = "allocate the kernel's Views in the execution space's memory (`View1::from_fn_in(space.memory_space(), ..)`, `zeros_in`), or copy them there with `deep_copy`"
)]
pub trait SameMemorySpace<M> {}

impl<M: MemorySpace> SameMemorySpace<M> for M {}

/// Written objects a device space with memory `M` can hand to its
/// drivers: `()`, the parts of written Views of `M` and team chunks, and
/// tuples of those. Written Views of another memory space do not compile
/// (see [`SameMemorySpace`]).
///
/// ```
/// use granule_core::kernel::{DeviceArg, DeviceWrites};
/// use granule_core::write::Writes;
/// use granule_views::HostSpace;
/// let (mut y, mut z) = (granule_views::View1::<f64>::zeros("y", 8).unwrap(), granule_views::View1::<i32>::zeros("z", 8).unwrap());
/// let parts = (&mut y, &mut z).into_parts("two", 8);
/// assert!(DeviceWrites::<usize, HostSpace>::covers(&parts, &8));
/// assert!(!DeviceWrites::<usize, HostSpace>::covers(&parts, &9));
/// let mut args = Vec::new();
/// DeviceWrites::<usize, HostSpace>::device_args(&parts, &mut args);
/// assert!(matches!(&args[1], DeviceArg::Written(v) if v.label == "z" && v.elem_size == 4));
/// ```
///
/// # Safety
/// Every [`DeviceArg::Written`] or [`DeviceArg::Chunked`] that
/// [`device_args`](Self::device_args) describes is memory the parts hold a
/// unique borrow of, for as long as they live, with its true element
/// type (`Outputs` names it), and `covers` never answers true for a reach
/// beyond what the parts hold (as for
/// [`WriteParts`](crate::write::WriteParts)).
pub unsafe trait DeviceWrites<I, M: MemorySpace> {
    /// What a work item receives of these parts, with `'static` for the
    /// borrow: `()`, `&'static mut T` for a View of `T`, `TeamChunk<'static,
    /// T, M>` for team chunks, tuples of those. A kernel's
    /// [`DeviceFunctor::Outputs`] must be the same type.
    type Outputs;
    /// Whether every write index below `reach` has elements.
    fn covers(&self, reach: &I) -> bool;
    /// The written arguments, in order.
    fn device_args<'s>(&'s self, out: &mut Vec<DeviceArg<'s>>);
}

// SAFETY: describes nothing.
unsafe impl<I, M: MemorySpace> DeviceWrites<I, M> for () {
    type Outputs = ();
    fn covers(&self, _reach: &I) -> bool {
        true
    }
    fn device_args<'s>(&'s self, _out: &mut Vec<DeviceArg<'s>>) {}
}

// SAFETY: the parts hold the View's unique borrow; `covers` is the
// parts' own bound check.
unsafe impl<T, const R: usize, V, M> DeviceWrites<[usize; R], M> for ViewParts<'_, T, R, V>
where
    T: DeviceValue,
    V: MemorySpace + SameMemorySpace<M>,
    M: MemorySpace,
{
    type Outputs = &'static mut T;
    fn covers(&self, reach: &[usize; R]) -> bool {
        self.holds(reach)
    }
    fn device_args<'s>(&'s self, out: &mut Vec<DeviceArg<'s>>) {
        out.push(DeviceArg::Written(self.view_arg()));
    }
}

// SAFETY: as above, for the rank-1 write index.
unsafe impl<T, V, M> DeviceWrites<usize, M> for ViewParts<'_, T, 1, V>
where
    T: DeviceValue,
    V: MemorySpace + SameMemorySpace<M>,
    M: MemorySpace,
{
    type Outputs = &'static mut T;
    fn covers(&self, reach: &usize) -> bool {
        self.holds(&[*reach])
    }
    fn device_args<'s>(&'s self, out: &mut Vec<DeviceArg<'s>>) {
        out.push(DeviceArg::Written(self.view_arg()));
    }
}

macro_rules! device_writes_tuple {
    ($(($w:ident, $i:tt)),+) => {
        // SAFETY: each component keeps the promise for its own, disjoint,
        // borrow.
        unsafe impl<I, M: MemorySpace, $($w: DeviceWrites<I, M>),+> DeviceWrites<I, M> for ($($w,)+) {
            type Outputs = ($($w::Outputs,)+);
            fn covers(&self, reach: &I) -> bool {
                $(self.$i.covers(reach))&&+
            }
            fn device_args<'s>(&'s self, out: &mut Vec<DeviceArg<'s>>) {
                $(self.$i.device_args(out);)+
            }
        }
    };
}
device_writes_tuple!((W0, 0));
device_writes_tuple!((W0, 0), (W1, 1));
device_writes_tuple!((W0, 0), (W1, 1), (W2, 2));
device_writes_tuple!((W0, 0), (W1, 1), (W2, 2), (W3, 3));
device_writes_tuple!((W0, 0), (W1, 1), (W2, 2), (W3, 3), (W4, 4));
device_writes_tuple!((W0, 0), (W1, 1), (W2, 2), (W3, 3), (W4, 4), (W5, 5));

/// A captured value's argument (what `#[kernel]`'s glue passes for a
/// scalar parameter).
pub fn scalar_arg_of<T: DeviceValue>(v: &T) -> DeviceArg<'static> {
    let mut b = vec![0; T::SIZE];
    v.store(&mut b);
    DeviceArg::Scalar(b)
}

/// A captured View's argument (what `#[kernel]`'s glue passes for a
/// read View).
pub fn view_arg_of<S: Storage, const R: usize, L: Layout>(v: &ViewBase<S, R, L>) -> DeviceArg<'_> {
    DeviceArg::View(ViewArg::of::<S::Elem>(
        v.label(),
        v.as_ptr() as usize,
        &v.extents(),
        &v.strides(),
    ))
}

/// A captured atomic View's argument (what `#[kernel]`'s glue passes for
/// an atomic View).
///
/// ```
/// use granule_core::kernel::{atomic_arg_of, DeviceArg};
/// let mut h = granule_views::View1::<u32>::zeros("h", 4).unwrap();
/// let a = h.atomic().unwrap();
/// assert!(matches!(atomic_arg_of(&a), DeviceArg::Atomic(v) if v.label == "h" && v.extents == [4]));
/// ```
pub fn atomic_arg_of<'a, T: Atomic + super::DeviceAtomic, const R: usize, M: MemorySpace>(
    v: &'a AtomicView<'_, T, R, M>,
) -> DeviceArg<'a> {
    let map = v.mapping();
    DeviceArg::Atomic(ViewArg::of::<T>(
        v.label(),
        v.data_address(),
        map.extents(),
        map.strides(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_follow_the_recursive_cpp_layout() {
        // Tuple<f64> = { f64 head; Tuple<> tail; } -> 16 bytes
        assert_eq!(<(f64,)>::SIZE, 16);
        // Tuple<f64, usize> = { f64; { u64; {} } } -> 8 + 16
        assert_eq!(<(f64, usize)>::SIZE, 24);
        // Tuple<bool, i32> = { bool; (pad 3) { i32; {} (pad 3) } } -> 4 + 8
        assert_eq!(<(bool, i32)>::SIZE, 12);
        let v = (1.5f64, -3i32, true);
        let mut b = vec![0u8; <(f64, i32, bool)>::SIZE];
        v.store(&mut b);
        assert_eq!(<(f64, i32, bool)>::load(&b), v);
        assert_eq!(&b[8..12], &(-3i32).to_ne_bytes());
    }

    #[test]
    fn location_values_follow_c_struct_layout() {
        assert_eq!(<ValLocScalar<f32, usize>>::SIZE, 16);
        assert_eq!(<MinMaxLocScalar<i32, [usize; 2]>>::SIZE, 8 + 32);
        let m = MinMaxScalar {
            min_val: -1i16,
            max_val: 9,
        };
        let mut b = vec![0u8; 4];
        m.store(&mut b);
        assert_eq!(<MinMaxScalar<i16>>::load(&b), m);
    }

    #[test]
    fn span_bytes_is_checked() {
        let v = ViewArg {
            label: "v",
            address: 0,
            elem_size: 8,
            extents: vec![usize::MAX, 2],
            strides: vec![2, 1],
        };
        assert_eq!(v.span_bytes(), None);
    }
}
