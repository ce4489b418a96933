//! # granule-macros
//!
//! Procedural macros for granule. Use them through the crates that re-export
//! them: `granule::reshape_map!` or `granule_views::reshape_map!`. Those are
//! thin declarative wrappers that pass their own crate path in, so the
//! expansion names `granule_views::chunk` items correctly from any crate
//! without this crate depending on granule-views.
//!
//! ```
//! use granule_views::chunk::owner_table;
//! let map = granule_views::reshape_map!([3] | [4] => layout: [t0, i0])?;
//! let owners: Vec<_> = owner_table(map, 4, 3, 12).into_iter().flatten().collect();
//! assert_eq!(owners, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]);
//! # Ok::<(), granule_views::chunk::ChunkError>(())
//! ```

mod expand;
mod kernel;
mod layout;
mod parse;

use proc_macro::TokenStream;

/// The engine behind `granule_views::reshape_map!`; call that instead.
///
/// Input: `<crate path> ; <reshape_map! syntax>`. The crate path (normally
/// `$crate` of granule-views) prefixes every path in the expansion.
#[doc(hidden)]
#[proc_macro]
pub fn reshape_map_with_crate(input: TokenStream) -> TokenStream {
    match parse::parse(input.into()).and_then(|spec| expand::expand(&spec)) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

/// Marks a portable kernel: the Rust body runs on host spaces, and a CUDA
/// C++ translation of it is generated for the CUDA space. Use it as
/// `granule::kernel` (or from `granule::prelude`).
///
/// Parameters, in order: the work index (`usize`, `[i, j, ..]: [usize; R]`
/// for MDRange) or team member (`&TeamMember`), scalars, `&View`s read,
/// `&mut T` outputs, atomic Views. The pattern is named by the attribute:
/// `#[kernel]` for `parallel_for` (the `&mut`s are the work item's
/// elements), `#[kernel(reduce)]` (the one `&mut` is the accumulator),
/// `#[kernel(scan)]` (elements, then the partial `&mut T`, then
/// `last: bool`). Anything outside the supported subset is a compile error
/// at its span (see `src/kernel/README.md`).
///
/// A `#[kernel]` function that returns a value is an *element function*,
/// the per-element user code the algorithms take (a predicate, a
/// transform, a comparator): its first parameter is the element (its
/// first two with `#[kernel(binary)]`), the others are captured; the
/// constructor gives a `UnaryFunctor` (`BinaryFunctor`) that also runs on
/// Cuda:
///
/// ```
/// use granule::prelude::*;
/// use granule::base::functor::UnaryFunctor;
///
/// #[kernel]
/// fn above(x: i64, threshold: i64) -> bool {
///     x > threshold
/// }
///
/// assert!(above(10).call(11));
/// let x = View1::<i64>::from_fn("x", 20, |i| i as i64)?;
/// assert_eq!(granule::algorithms::count_if(&Serial, &x, above(10)), 9);
/// # Ok::<(), ViewError>(())
/// ```
///
/// The kernel's name becomes a constructor taking the captured parameters
/// (scalars, read Views, atomic Views) and returning a functor for the
/// pattern; `name::body(..)` calls the body directly. A hidden
/// `static __GRANULE_KERNEL_<name>` holds the device side, also reachable
/// as `<name as KernelSource>::KERNEL`. `#[kernel(crate = path)]` names
/// where `kernel::{..}` live (default `::granule`).
///
/// ```
/// use granule::prelude::*;
///
/// #[kernel]
/// fn axpy(i: usize, y: &mut f32, a: f32, x: &View1<f32>) {
///     *y = a * x[i] + *y;
/// }
///
/// let x = View1::<f32>::from_fn("x", 4, |i| i as f32).unwrap();
/// let mut y = View1::<f32>::from_fn("y", 4, |_| 1.0).unwrap();
/// parallel_for("axpy", RangePolicy::new(&Serial, 0..4), &mut y, axpy(2.0, &x));
/// assert_eq!(y[3], 7.0);
/// let mut one = 1.0;
/// axpy::body(3, &mut one, 2.0, &x);
/// assert_eq!(one, 7.0);
/// // The device side: f32 math only.
/// assert!(__GRANULE_KERNEL_axpy.source.contains("y = ((a * x(i)) + y);"));
/// ```
///
/// On the host the body is inlined into the loop that runs it, unless
/// the kernel has an `#[inline]` attribute of its own, which it keeps
/// (the device side has no use for it). `#[inline(never)]` helps a body
/// whose loop reads Views while it writes: as a function of its own, the
/// compiler knows its `&View` parameters stay as they are through the
/// call and keeps their fields in registers, instead of reading them
/// again after every write.
///
/// ```
/// use granule::prelude::*;
///
/// #[kernel]
/// #[inline(never)]
/// fn below(i: usize, n: &mut u32, x: &View1<f64>) {
///     for j in 0..x.extent(0) {
///         if x[j] < x[i] {
///             *n += 1;
///         }
///     }
/// }
///
/// let x = View1::<f64>::from_fn("x", 4, |i| [3.0, 1.0, 2.0, 0.0][i]).unwrap();
/// let mut n = View1::<u32>::zeros("n", 4).unwrap();
/// parallel_for("below", RangePolicy::new(&Serial, 0..4), &mut n, below(&x));
/// assert_eq!(n.to_vec(), vec![3, 1, 2, 0]);
/// ```
///
/// One body, one semantics: integer arithmetic wraps as in Rust's release
/// profile (without C++ undefined behaviour), casts, shifts, division and
/// IEEE float arithmetic give the host's bits, and so do the `core`
/// methods the subset accepts: the `wrapping_*`, `overflowing_*`,
/// `saturating_*` and `checked_*` families, bit counts, rotations,
/// Euclidean division, float rounding, signs and bits. An `overflowing_*`
/// pair is read by field or destructured; a `checked_*` Option is consumed
/// at once (`unwrap`, `expect`, `unwrap_or`, `is_some`, ..), and a `None`
/// unwrapped on the device fails the kernel with Rust's message.
/// Transcendental functions (`exp`, `sin`, `powf`, ..) and `powi` are
/// within documented ulp bounds of the host's results on a GPU
/// (`src/kernel/README.md`, "Bounded functions").
///
/// ```
/// use granule::prelude::*;
///
/// #[kernel]
/// fn mix(i: usize, y: &mut u32, x: &View1<u32>) {
///     let (p, wrapped) = x[i].overflowing_mul(0x9e37_79b9);
///     let step = x[i].checked_add(1).unwrap_or(0);
///     *y = (p ^ step).rotate_left(5) + u32::from(wrapped);
/// }
///
/// let x = View1::<u32>::from_fn("x", 3, |i| [7, u32::MAX, 1 << 31][i]).unwrap();
/// let mut y = View1::<u32>::zeros("y", 3).unwrap();
/// parallel_for("mix", RangePolicy::new(&Serial, 0..3), &mut y, mix(&x));
/// let want = |v: u32| {
///     let (p, o) = v.overflowing_mul(0x9e37_79b9);
///     (p ^ v.checked_add(1).unwrap_or(0)).rotate_left(5) + o as u32
/// };
/// assert_eq!(y.to_vec(), vec![want(7), want(u32::MAX), want(1 << 31)]);
/// // Each method is the device header's function of the same name.
/// let src = __GRANULE_KERNEL_mix.source;
/// assert!(src.contains("granule::overflowing_mul(x(i), 2654435769u)"));
/// assert!(src.contains("granule::unwrap_or(granule::checked_add(x(i), 1u), 0u)"));
/// ```
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand_kernel(attr.into(), item.into()).into()
}

/// Marks a helper function or constant that `#[kernel]`s may use; it is
/// translated like a kernel body and emitted before the kernels that use it.
/// A helper may not call itself (a GPU thread has no stack sized for
/// recursion): write it as a loop.
///
/// ```
/// use granule::prelude::*;
///
/// #[device]
/// const HALF: f64 = 0.5;
///
/// #[device]
/// fn smooth(x: f64) -> f64 {
///     if x < 1.0 { HALF * x * x } else { x - HALF }
/// }
///
/// assert_eq!(smooth(3.0), 2.5);
/// assert!(__GRANULE_DEVICE_smooth.source.contains("granule::f64 smooth(granule::f64 x)"));
/// assert_eq!(__GRANULE_DEVICE_HALF.source, "constexpr granule::f64 HALF = 0.5;\n");
/// ```
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand_device(attr.into(), item.into()).into()
}
