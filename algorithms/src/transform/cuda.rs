//! The element-wise algorithms on Cuda: one launch of `transform.cuh`'s
//! `map_view`, `update_view` or `swap_views` per call. Each adapter of
//! [`super::adapt`] (and the reductions' `Elem` and `Unindexed`) is a
//! driver here: its value is a fixed C++ expression around the user's
//! `#[kernel]` element function, if any.

use super::adapt::{Constant, Difference, Generated, Minus, ReplaceEq, ReplaceIf, Zip};
use super::{MapImpl, Source, SwapImpl, UpdateImpl};
use crate::device::DeviceElement;
use crate::device::{config, element_use, grid_for, input_arg, instance, launch, output_arg};
use crate::io::{Input, Output};
use crate::reduce::adapt::{Elem, Unindexed};
use crate::reduce::cuda::{param, K};
use granule_cuda::codegen::driver::{DeviceDriver, ElementUse};
use granule_cuda::kernel::DeviceElementFn;
use granule_cuda::{Cuda, CudaSpace, DriverLaunch};

/// Threads per block.
const BLOCK: u32 = 256;

/// The element-wise algorithms' source, shared by their drivers.
const SOURCE: &str = include_str!("transform.cuh");

/// A map driver: `y(i) = $value(i, v)` for `v` the source element, with
/// `[$extra]` further parameters the value reads.
macro_rules! map_driver {
    ($stat:ident, $name:literal, [$($g:literal),*], $fns:expr,
     [$($extra:literal: $kind:ident $cpp:literal),*], $value:expr) => {
        // SAFETY: `map_view` visits each i < n once (n is both Views'
        // length, checked by the host), reads x and the extra Inputs
        // through the bounds-checked accessor and writes y(i) only.
        static $stat: DeviceDriver = unsafe {
            DeviceDriver::new(
                $name,
                &[$($g),*],
                None,
                &[
                    param("n", K::Scalar, "granule::u64"),
                    param("x", K::Input, "T"),
                    param("y", K::Output, "U"),
                    param("order", K::Scalar, "granule::u32"),
                    param("shift", K::Scalar, "granule::u64"),
                    $(param($extra, K::$kind, $cpp),)*
                ],
                $fns,
                SOURCE,
                concat!("granule_algo::map_view(n, x, y, order, shift, ", $value, ");"),
            )
        };
    };
}

/// An update driver: `y(i) = $value(i, y(i))`, with `[$extra]` scalar
/// parameters.
macro_rules! update_driver {
    ($stat:ident, $name:literal, $fns:expr, [$($extra:literal: $cpp:literal),*], $value:expr) => {
        // SAFETY: `update_view` visits each i < n once (n is the View's
        // length) and reads and writes y(i) only.
        static $stat: DeviceDriver = unsafe {
            DeviceDriver::new(
                $name,
                &["T"],
                None,
                &[
                    param("n", K::Scalar, "granule::u64"),
                    param("y", K::Output, "T"),
                    $(param($extra, K::Scalar, $cpp),)*
                ],
                $fns,
                SOURCE,
                concat!("granule_algo::update_view(n, y, ", $value, ");"),
            )
        };
    };
}

map_driver!(
    COPY,
    "copy",
    ["T", "U"],
    &[],
    [],
    "[&](granule::u64, const T& v) { return (U)v; }"
);
map_driver!(
    TRANSFORM,
    "transform",
    ["T", "U"],
    &[1],
    [],
    "[&](granule::u64, const T& v) { return (U)f0(v); }"
);
map_driver!(
    TRANSFORM_BINARY,
    "transform_binary",
    ["T", "U", "B"],
    &[2],
    ["b": Input "B"],
    "[&](granule::u64 i, const T& v) { return (U)f0(v, b(i)); }"
);
map_driver!(
    REPLACE_COPY,
    "replace_copy",
    ["T", "U"],
    &[],
    ["old_value": Scalar "T", "new_value": Scalar "T"],
    "[&](granule::u64, const T& v) { return v == old_value ? new_value : v; }"
);
map_driver!(
    REPLACE_COPY_IF,
    "replace_copy_if",
    ["T", "U"],
    &[1],
    ["new_value": Scalar "T"],
    "[&](granule::u64, const T& v) { return f0(v) ? new_value : v; }"
);
map_driver!(
    DIFFERENCE,
    "adjacent_difference",
    ["T", "U"],
    &[],
    [],
    "[&](granule::u64 i, const T& v) { return i == 0ull ? v : (T)(v - x(i - 1ull)); }"
);
map_driver!(
    DIFFERENCE_BY,
    "adjacent_difference_by",
    ["T", "U"],
    &[2],
    [],
    "[&](granule::u64 i, const T& v) { return i == 0ull ? v : (T)f0(v, x(i - 1ull)); }"
);

update_driver!(FILL, "fill", &[], ["value": "T"], "[&](granule::u64, const T&) { return value; }");
update_driver!(
    GENERATE,
    "generate",
    &[1],
    [],
    "[&](granule::u64 i, const T&) { return (T)f0((granule::usize)i); }"
);
update_driver!(
    FOR_EACH,
    "for_each",
    &[1],
    [],
    "[&](granule::u64, const T& v) { return (T)f0(v); }"
);
update_driver!(
    REPLACE,
    "replace",
    &[],
    ["old_value": "T", "new_value": "T"],
    "[&](granule::u64, const T& v) { return v == old_value ? new_value : v; }"
);
update_driver!(
    REPLACE_IF,
    "replace_if",
    &[1],
    ["new_value": "T"],
    "[&](granule::u64, const T& v) { return f0(v) ? new_value : v; }"
);

// SAFETY: `swap_views` visits each i < n once and touches a(i) and its
// partner b(k) only; k runs over 0..n as i does, and the host passes two
// Views of length n that share no element.
static SWAP: DeviceDriver = unsafe {
    DeviceDriver::new(
        "swap_ranges",
        &["T"],
        None,
        &[
            param("n", K::Scalar, "granule::u64"),
            param("a", K::Output, "T"),
            param("b", K::Output, "T"),
            param("reversed", K::Scalar, "granule::u32"),
        ],
        &[],
        SOURCE,
        "granule_algo::swap_views<T>(n, a, b, reversed);",
    )
};

mod sealed {
    pub trait Sealed {}
}

/// How an adapter runs as a map on Cuda: its driver, generic types and
/// element function (closures are host-only).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{reduce::adapt::{Elem, Unindexed}, transform::CudaMap};
///
/// #[kernel]
/// fn half(v: i32) -> f32 {
///     v as f32 / 2.0
/// }
///
/// fn on_cuda<T, U, F: CudaMap<T, U>>(_: &F) {}
/// on_cuda::<i32, f32, _>(&Unindexed(half()));
/// on_cuda::<u8, u8, _>(&Elem);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it does not wrap a `#[kernel]` element function",
    note = "closures run only on host spaces (Serial, Rayon); for Cuda write the function as `#[kernel] fn name(x: T, captured: C, ..) -> U {{ .. }}` and pass `name(captured, ..)`"
)]
pub trait CudaMap<T, U>: sealed::Sealed {
    #[doc(hidden)]
    fn driver() -> &'static DeviceDriver;
    #[doc(hidden)]
    fn types() -> Vec<&'static str>;
    #[doc(hidden)]
    fn uses() -> Vec<ElementUse>;
    #[doc(hidden)]
    fn bind(&self, _: &mut DriverLaunch<'_>) {}
}

/// How an adapter runs as an update in place on Cuda.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::transform::{adapt::Generated, CudaUpdate};
///
/// #[kernel]
/// fn ramp(i: usize, step: f64) -> f64 {
///     i as f64 * step
/// }
///
/// fn on_cuda<T, F: CudaUpdate<T>>(_: &F) {}
/// on_cuda::<f64, _>(&Generated(ramp(0.5)));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it does not wrap a `#[kernel]` element function",
    note = "closures run only on host spaces (Serial, Rayon); for Cuda write the function as `#[kernel] fn name(x: T, captured: C, ..) -> T {{ .. }}` and pass `name(captured, ..)`"
)]
pub trait CudaUpdate<T>: sealed::Sealed {
    #[doc(hidden)]
    fn driver() -> &'static DeviceDriver;
    #[doc(hidden)]
    fn uses() -> Vec<ElementUse>;
    #[doc(hidden)]
    fn bind(&self, _: &mut DriverLaunch<'_>) {}
}

impl sealed::Sealed for Elem {}
impl<T: DeviceElement> CudaMap<T, T> for Elem {
    fn driver() -> &'static DeviceDriver {
        &COPY
    }
    fn types() -> Vec<&'static str> {
        vec![T::CPP, T::CPP]
    }
    fn uses() -> Vec<ElementUse> {
        Vec::new()
    }
}

impl<F> sealed::Sealed for Unindexed<F> {}
impl<T, U, F> CudaMap<T, U> for Unindexed<F>
where
    T: DeviceElement,
    U: DeviceElement,
    F: DeviceElementFn<CudaSpace, Args = (T,), Output = U>,
{
    fn driver() -> &'static DeviceDriver {
        &TRANSFORM
    }
    fn types() -> Vec<&'static str> {
        vec![T::CPP, U::CPP]
    }
    fn uses() -> Vec<ElementUse> {
        vec![element_use::<F>()]
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.function(&self.0);
    }
}
impl<T, F> CudaUpdate<T> for Unindexed<F>
where
    T: DeviceElement,
    F: DeviceElementFn<CudaSpace, Args = (T,), Output = T>,
{
    fn driver() -> &'static DeviceDriver {
        &FOR_EACH
    }
    fn uses() -> Vec<ElementUse> {
        vec![element_use::<F>()]
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.function(&self.0);
    }
}

impl<T> sealed::Sealed for ReplaceEq<T> {}
impl<T: DeviceElement> CudaMap<T, T> for ReplaceEq<T> {
    fn driver() -> &'static DeviceDriver {
        &REPLACE_COPY
    }
    fn types() -> Vec<&'static str> {
        vec![T::CPP, T::CPP]
    }
    fn uses() -> Vec<ElementUse> {
        Vec::new()
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.scalar(self.old).scalar(self.new);
    }
}
impl<T: DeviceElement> CudaUpdate<T> for ReplaceEq<T> {
    fn driver() -> &'static DeviceDriver {
        &REPLACE
    }
    fn uses() -> Vec<ElementUse> {
        Vec::new()
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.scalar(self.old).scalar(self.new);
    }
}

impl<P, T> sealed::Sealed for ReplaceIf<P, T> {}
impl<T, P> CudaMap<T, T> for ReplaceIf<P, T>
where
    T: DeviceElement,
    P: DeviceElementFn<CudaSpace, Args = (T,), Output = bool>,
{
    fn driver() -> &'static DeviceDriver {
        &REPLACE_COPY_IF
    }
    fn types() -> Vec<&'static str> {
        vec![T::CPP, T::CPP]
    }
    fn uses() -> Vec<ElementUse> {
        vec![element_use::<P>()]
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.scalar(self.new).function(&self.pred);
    }
}
impl<T, P> CudaUpdate<T> for ReplaceIf<P, T>
where
    T: DeviceElement,
    P: DeviceElementFn<CudaSpace, Args = (T,), Output = bool>,
{
    fn driver() -> &'static DeviceDriver {
        &REPLACE_IF
    }
    fn uses() -> Vec<ElementUse> {
        vec![element_use::<P>()]
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.scalar(self.new).function(&self.pred);
    }
}

impl<T> sealed::Sealed for Constant<T> {}
impl<T: DeviceElement> CudaUpdate<T> for Constant<T> {
    fn driver() -> &'static DeviceDriver {
        &FILL
    }
    fn uses() -> Vec<ElementUse> {
        Vec::new()
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.scalar(self.0);
    }
}

impl<G> sealed::Sealed for Generated<G> {}
impl<T, G> CudaUpdate<T> for Generated<G>
where
    T: DeviceElement,
    G: DeviceElementFn<CudaSpace, Args = (usize,), Output = T>,
{
    fn driver() -> &'static DeviceDriver {
        &GENERATE
    }
    fn uses() -> Vec<ElementUse> {
        vec![element_use::<G>()]
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.function(&self.0);
    }
}

impl<B, F> sealed::Sealed for Zip<'_, B, CudaSpace, F> {}
impl<T, U, B, F> CudaMap<T, U> for Zip<'_, B, CudaSpace, F>
where
    T: DeviceElement,
    U: DeviceElement,
    B: DeviceElement,
    F: DeviceElementFn<CudaSpace, Args = (T, B), Output = U>,
{
    fn driver() -> &'static DeviceDriver {
        &TRANSFORM_BINARY
    }
    fn types() -> Vec<&'static str> {
        vec![T::CPP, U::CPP, B::CPP]
    }
    fn uses() -> Vec<ElementUse> {
        vec![element_use::<F>()]
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        // SAFETY: the adapter's Input holds the algorithm's shared borrow
        // of `b` for the call.
        unsafe { l.input(input_arg(&self.b)) };
        l.function(&self.op);
    }
}

impl<T, F> sealed::Sealed for Difference<'_, T, CudaSpace, F> {}
impl<T: DeviceElement> CudaMap<T, T> for Difference<'_, T, CudaSpace, Minus> {
    fn driver() -> &'static DeviceDriver {
        &DIFFERENCE
    }
    fn types() -> Vec<&'static str> {
        vec![T::CPP, T::CPP]
    }
    fn uses() -> Vec<ElementUse> {
        Vec::new()
    }
}
impl<T, F> CudaMap<T, T> for Difference<'_, T, CudaSpace, F>
where
    T: DeviceElement,
    F: DeviceElementFn<CudaSpace, Args = (T, T), Output = T>,
{
    fn driver() -> &'static DeviceDriver {
        &DIFFERENCE_BY
    }
    fn types() -> Vec<&'static str> {
        vec![T::CPP, T::CPP]
    }
    fn uses() -> Vec<ElementUse> {
        vec![element_use::<F>()]
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.function(&self.op);
    }
}

/// The source element as `map_view` codes it: the order and the shift.
fn order(from: Source) -> (u32, u64) {
    match from {
        Source::Same => (0, 0),
        Source::Reversed => (1, 0),
        Source::Rotated(shift) => (2, shift as u64),
    }
}

impl<T, U, F> MapImpl<T, U, F> for Cuda
where
    T: DeviceElement,
    U: DeviceElement,
    F: CudaMap<T, U>,
{
    fn map(
        &self,
        label: &str,
        x: Input<'_, T, CudaSpace>,
        y: Output<'_, U, CudaSpace>,
        from: Source,
        f: &F,
    ) {
        let n = y.len();
        assert_eq!(x.len(), n, "{label}: lengths differ");
        let mut inst = instance(F::driver(), F::types(), None);
        inst.functions = F::uses();
        let mut l = launch(self, label, inst);
        let (code, shift) = order(from);
        l.scalar(n as u64);
        // SAFETY: `x` holds the call's shared borrow and `y` its unique
        // borrow of n-element Views.
        unsafe { l.input(input_arg(&x)).output(output_arg(&y)) };
        l.scalar(code).scalar(shift);
        f.bind(&mut l);
        // SAFETY: the map drivers run any 1-D geometry and take no
        // workspace.
        unsafe { l.run(&config(u64::from(grid_for(self, n, BLOCK)), BLOCK, 0)) };
    }
}

impl<T, F> UpdateImpl<T, F> for Cuda
where
    T: DeviceElement,
    F: CudaUpdate<T>,
{
    fn update(&self, label: &str, y: Output<'_, T, CudaSpace>, f: &F) {
        let n = y.len();
        let mut inst = instance(F::driver(), vec![T::CPP], None);
        inst.functions = F::uses();
        let mut l = launch(self, label, inst);
        l.scalar(n as u64);
        // SAFETY: `y` holds the call's unique borrow of an n-element View.
        unsafe { l.output(output_arg(&y)) };
        f.bind(&mut l);
        // SAFETY: the update drivers run any 1-D geometry and take no
        // workspace.
        unsafe { l.run(&config(u64::from(grid_for(self, n, BLOCK)), BLOCK, 0)) };
    }
}

impl<T: DeviceElement> SwapImpl<T> for Cuda {
    fn swap(
        &self,
        label: &str,
        a: Output<'_, T, CudaSpace>,
        b: Output<'_, T, CudaSpace>,
        reversed: bool,
    ) {
        let n = a.len();
        assert_eq!(b.len(), n, "{label}: lengths differ");
        let mut l = launch(self, label, instance(&SWAP, vec![T::CPP], None));
        l.scalar(n as u64);
        // SAFETY: `a` and `b` hold disjoint unique borrows of n-element
        // Views for the call.
        unsafe { l.output(output_arg(&a)).output(output_arg(&b)) };
        l.scalar(u32::from(reversed));
        // SAFETY: `swap_views` runs any 1-D geometry, no workspace.
        unsafe { l.run(&config(u64::from(grid_for(self, n, BLOCK)), BLOCK, 0)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::nvrtc_check::{before, compiles_everywhere, positive, scaled};
    use granule_cuda::codegen::driver::DriverInstance;

    fn with(mut inst: DriverInstance, f: ElementUse) -> DriverInstance {
        inst.functions = vec![f];
        inst
    }

    #[test]
    fn the_elementwise_drivers_compile_for_gpus() {
        let pair = vec!["granule::f32", "granule::f32"];
        let insts = vec![
            instance(&COPY, vec!["granule::u8", "granule::u8"], None),
            with(
                instance(&TRANSFORM, vec!["granule::i32", "granule::f64"], None),
                element_use::<scaled<'static>>(),
            ),
            instance(&REPLACE_COPY, vec!["granule::i64", "granule::i64"], None),
            with(
                instance(&REPLACE_COPY_IF, vec!["granule::i64", "granule::i64"], None),
                element_use::<positive<'static>>(),
            ),
            instance(&DIFFERENCE, vec!["granule::i64", "granule::i64"], None),
            instance(&FILL, vec!["granule::f64"], None),
            instance(&REPLACE, vec!["granule::u16"], None),
            with(
                instance(&REPLACE_IF, vec!["granule::i64"], None),
                element_use::<positive<'static>>(),
            ),
            instance(&SWAP, vec!["granule::f64"], None),
            instance(&COPY, pair.clone(), None),
        ];
        let _ = before::<f32>;
        compiles_everywhere("transform.cu", &insts);
    }
}
