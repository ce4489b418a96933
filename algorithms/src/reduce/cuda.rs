//! The reductions on Cuda: one launch of `reduce.cuh` (the header's
//! reduce driver) per call. Each adapter of [`super::adapt`] is a driver
//! here: its per-element value is a fixed C++ expression around the
//! user's `#[kernel]` element function, if any.

use super::adapt::{AllOf, AnyOf, CountIf, Elem, Equal, Loc, MinMaxOf, Unindexed};
use super::{ReduceImpl, ReducePairsImpl};
use crate::device::{config, element_use, grid_for, input_arg, instance, launch, DeviceElement};
use crate::io::Input;
use crate::sort::{InOrder, PartialLess};
use granule_core::kernel::DeviceReduction;
use granule_core::reducer::{MinMaxLocScalar, Reducer, ValLocScalar};
use granule_cuda::codegen::driver::ElementUse;
pub(crate) use granule_cuda::codegen::driver::{DeviceDriver, DriverParam, DriverParamKind as K};
use granule_cuda::codegen::reduce_workspace;
use granule_cuda::kernel::{DeviceElementFn, DeviceValue};
use granule_cuda::{Cuda, CudaSpace, DriverLaunch};

/// Threads per block.
const BLOCK: u32 = 256;

/// The reductions' source, shared by their drivers (and the searches').
pub(crate) const SOURCE: &str = include_str!("reduce.cuh");

/// A driver over one View (`reduce_view`) whose values are `$acc`s made
/// by the C++ lambda `$value(i, v)`; `[$extra]` are further parameters
/// the lambda reads (a value or a pattern searched for), bound by
/// [`CudaReduceMap::extra_args`].
macro_rules! reduce_driver {
    ($stat:ident, $name:literal, [$($g:literal),*], $acc:literal, $fns:expr,
     [$($extra:literal: $kind:ident $extra_cpp:literal),*], $value:expr) => {
        // SAFETY: `reduce_view` reads x(i) for i < n (the host passes the
        // input's length) through the bounds-checked accessor, the value
        // lambdas read the extra Inputs through it too, and it folds the
        // value into drive_reduce's tail, sized by `reduce_workspace` for
        // the launch's grid (`reduce_tail` below).
        static $stat: $crate::reduce::cuda::DeviceDriver = unsafe {
            $crate::reduce::cuda::DeviceDriver::new(
                $name,
                &[$($g),*],
                Some($acc),
                &[
                    $crate::reduce::cuda::param("n", $crate::reduce::cuda::K::Scalar, "granule::u64"),
                    $crate::reduce::cuda::param("x", $crate::reduce::cuda::K::Input, "T"),
                    $($crate::reduce::cuda::param($extra, $crate::reduce::cuda::K::$kind, $extra_cpp),)*
                    $crate::reduce::cuda::param("partials", $crate::reduce::cuda::K::Workspace, $acc),
                    $crate::reduce::cuda::param("counter", $crate::reduce::cuda::K::Workspace, "granule::u32"),
                    $crate::reduce::cuda::param("result", $crate::reduce::cuda::K::Workspace, $acc),
                ],
                $fns,
                $crate::reduce::cuda::SOURCE,
                concat!(
                    "granule_algo::reduce_view<Op, ", $acc, ">(n, x, partials, counter, result, ",
                    $value, ");"
                ),
            )
        };
    };
    ($stat:ident, $name:literal, [$($g:literal),*], $acc:literal, $fns:expr, $value:expr) => {
        reduce_driver!($stat, $name, [$($g),*], $acc, $fns, [], $value);
    };
}
pub(crate) use reduce_driver;

/// A driver parameter (shorter than the struct literal in the drivers'
/// tables).
pub(crate) const fn param(name: &'static str, kind: K, cpp: &'static str) -> DriverParam {
    DriverParam { name, kind, cpp }
}

reduce_driver!(
    REDUCE,
    "reduce",
    ["T"],
    "T",
    &[],
    "[&](granule::u64, const T& v) { return v; }"
);
reduce_driver!(
    REDUCE_MAP,
    "transform_reduce",
    ["T", "U"],
    "U",
    &[1],
    "[&](granule::u64, const T& v) { return (U)f0(v); }"
);
reduce_driver!(
    COUNT_IF,
    "count_if",
    ["T"],
    "granule::usize",
    &[1],
    "[&](granule::u64, const T& v) { return (granule::usize)(f0(v) ? 1u : 0u); }"
);
reduce_driver!(
    TEST_ALL,
    "test_elements",
    ["T"],
    "bool",
    &[1],
    "[&](granule::u64, const T& v) { return (bool)f0(v); }"
);
reduce_driver!(
    LOC,
    "element_loc",
    ["T"],
    "granule::ValLocScalar<T, granule::usize>",
    &[],
    "[&](granule::u64 i, const T& v) { return granule::ValLocScalar<T, granule::usize>{v, i}; }"
);
reduce_driver!(
    MINMAX_LOC,
    "minmax_loc",
    ["T"],
    "granule::MinMaxLocScalar<T, granule::usize>",
    &[],
    "[&](granule::u64 i, const T& v) { return granule::MinMaxLocScalar<T, granule::usize>{v, v, i, i}; }"
);

/// A driver over two Views of the same length (`reduce_pairs`), whose
/// `$acc`s are made by the C++ lambda `$value(i, a, b)`.
macro_rules! pairs_driver {
    ($stat:ident, $name:literal, $acc:literal, $fns:expr, $value:expr) => {
        // SAFETY: `reduce_pairs` reads a(i) and b(i) for i < n (the host
        // passes their common length) and folds the value into
        // drive_reduce's tail, sized by `reduce_workspace`.
        static $stat: $crate::reduce::cuda::DeviceDriver = unsafe {
            $crate::reduce::cuda::DeviceDriver::new(
                $name,
                &["T"],
                Some($acc),
                &[
                    $crate::reduce::cuda::param(
                        "n",
                        $crate::reduce::cuda::K::Scalar,
                        "granule::u64",
                    ),
                    $crate::reduce::cuda::param("a", $crate::reduce::cuda::K::Input, "T"),
                    $crate::reduce::cuda::param("b", $crate::reduce::cuda::K::Input, "T"),
                    $crate::reduce::cuda::param(
                        "partials",
                        $crate::reduce::cuda::K::Workspace,
                        $acc,
                    ),
                    $crate::reduce::cuda::param(
                        "counter",
                        $crate::reduce::cuda::K::Workspace,
                        "granule::u32",
                    ),
                    $crate::reduce::cuda::param("result", $crate::reduce::cuda::K::Workspace, $acc),
                ],
                $fns,
                $crate::reduce::cuda::SOURCE,
                concat!(
                    "granule_algo::reduce_pairs<Op, ",
                    $acc,
                    ">(n, a, b, partials, counter, result, ",
                    $value,
                    ");"
                ),
            )
        };
    };
}
pub(crate) use pairs_driver;

pairs_driver!(
    EQUAL,
    "equal",
    "bool",
    &[],
    "[&](granule::u64, const T& a, const T& b) { return a == b; }"
);
pairs_driver!(
    IN_ORDER,
    "in_order",
    "bool",
    &[],
    "[&](granule::u64, const T& a, const T& b) { return !(b < a); }"
);
pairs_driver!(
    IN_ORDER_BY,
    "in_order_by",
    "bool",
    &[2],
    "[&](granule::u64, const T& a, const T& b) { return !f0(b, a); }"
);

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// How an adapter of [`super::adapt`] runs on Cuda: its driver, its
/// generic types and its element function (when it wraps a `#[kernel]`
/// one; closures are host-only).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::reduce::{adapt::{CountIf, Elem}, CudaReduceMap};
///
/// #[kernel]
/// fn odd(v: i32) -> bool {
///     v % 2 != 0
/// }
///
/// fn on_cuda<T, U, F: CudaReduceMap<T, U>>(_: &F) {}
/// on_cuda::<i32, usize, _>(&CountIf(odd()));
/// on_cuda::<f64, f64, _>(&Elem);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it does not wrap a `#[kernel]` element function",
    note = "closures run only on host spaces (Serial, Rayon); for Cuda write the function as `#[kernel] fn name(x: T, captured: C, ..) -> U {{ .. }}` and pass `name(captured, ..)`"
)]
pub trait CudaReduceMap<T, U>: sealed::Sealed {
    #[doc(hidden)]
    fn driver() -> &'static DeviceDriver;
    #[doc(hidden)]
    fn types() -> Vec<&'static str>;
    #[doc(hidden)]
    fn uses() -> Vec<ElementUse>;
    #[doc(hidden)]
    fn bind(&self, _: &mut DriverLaunch<'_>) {}
    /// Binds the driver's parameters after the input (a value or a
    /// pattern searched for); most drivers have none.
    #[doc(hidden)]
    fn extra_args(&self, _: &mut DriverLaunch<'_>) {}
}

/// The adapters that wrap no user function: a fixed driver over `[T]`.
macro_rules! plain_map {
    ($adapter:ty, $u:ty, $driver:ident) => {
        impl sealed::Sealed for $adapter {}
        impl<T: DeviceElement> CudaReduceMap<T, $u> for $adapter {
            fn driver() -> &'static DeviceDriver {
                &$driver
            }
            fn types() -> Vec<&'static str> {
                vec![T::CPP]
            }
            fn uses() -> Vec<ElementUse> {
                Vec::new()
            }
        }
    };
}
plain_map!(Elem, T, REDUCE);
plain_map!(Loc, ValLocScalar<T, usize>, LOC);
plain_map!(MinMaxOf, MinMaxLocScalar<T, usize>, MINMAX_LOC);

/// The adapters around a unary `#[kernel]` element function (the
/// searches' predicates too).
macro_rules! fn_map {
    ($adapter:ident, $u:ty, $out:ty, $driver:ident) => {
        impl<P> sealed::Sealed for $adapter<P> {}
        impl<T, P> CudaReduceMap<T, $u> for $adapter<P>
        where
            T: DeviceElement,
            P: DeviceElementFn<CudaSpace, Args = (T,), Output = $out>,
        {
            fn driver() -> &'static DeviceDriver {
                &$driver
            }
            fn types() -> Vec<&'static str> {
                vec![T::CPP]
            }
            fn uses() -> Vec<ElementUse> {
                vec![element_use::<P>()]
            }
            fn bind(&self, l: &mut DriverLaunch<'_>) {
                l.function(&self.0);
            }
        }
    };
}
pub(crate) use fn_map;
fn_map!(CountIf, usize, bool, COUNT_IF);
fn_map!(AllOf, bool, bool, TEST_ALL);
fn_map!(AnyOf, bool, bool, TEST_ALL);

impl<F> sealed::Sealed for Unindexed<F> {}
impl<T, U, F> CudaReduceMap<T, U> for Unindexed<F>
where
    T: DeviceElement,
    U: DeviceElement,
    F: DeviceElementFn<CudaSpace, Args = (T,), Output = U>,
{
    fn driver() -> &'static DeviceDriver {
        &REDUCE_MAP
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

impl<T, U, R, F> ReduceImpl<T, U, R, F> for Cuda
where
    T: DeviceElement,
    U: DeviceValue,
    R: Reducer<U> + DeviceReduction,
    F: CudaReduceMap<T, U>,
{
    fn transform_reduce_indexed(
        &self,
        label: &str,
        input: Input<'_, T, CudaSpace>,
        op: &R,
        f: &F,
    ) -> U {
        let n = input.len();
        if n == 0 {
            return op.init();
        }
        let mut inst = instance(F::driver(), F::types(), Some(R::DEVICE));
        inst.functions = F::uses();
        let mut l = launch(self, label, inst);
        l.scalar(n as u64);
        // SAFETY: `input` holds the call's shared borrow of an n-element
        // View of `T`s.
        unsafe { l.input(input_arg(&input)) };
        f.extra_args(&mut l);
        let grid = grid_for(self, n, BLOCK);
        reduce_tail::<U>(&mut l, label, grid, |l| f.bind(l))
    }
}

/// Binds drive_reduce's tail (`reduce_workspace`) and then the element
/// functions (`bind`), launches `grid` blocks and reads the result.
fn reduce_tail<U: DeviceValue>(
    l: &mut DriverLaunch<'_>,
    label: &str,
    grid: u32,
    bind: impl FnOnce(&mut DriverLaunch<'_>),
) -> U {
    let ws = reduce_workspace(grid, U::SIZE)
        .unwrap_or_else(|e| panic!("{label}: the reduction's workspace: {e}"));
    let mut result = None;
    for &bytes in &ws.buffers {
        result = Some(l.workspace(bytes));
    }
    bind(l);
    // SAFETY: the tail is `reduce_workspace(grid, sizeof(U))`'s buffers
    // in order (one partial per block, the zero counter, the result), and
    // drive_reduce runs any 1-D geometry.
    unsafe { l.run(&config(u64::from(grid), BLOCK, 0)) };
    l.read(result.expect("the reduction's workspace has a result buffer"))
}

/// How a pair adapter ([`Equal`], [`InOrder`]) runs on Cuda: its driver
/// and its element function (a `#[kernel(binary)]` comparator for
/// `is_sorted_by`; closures are host-only).
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::reduce::{adapt::Equal, CudaPairMap};
/// use granule::algorithms::sort::InOrder;
///
/// #[kernel(binary)]
/// fn descending(a: u16, b: u16) -> bool {
///     a > b
/// }
///
/// fn on_cuda<T, F: CudaPairMap<T, bool>>(_: &F) {}
/// on_cuda::<u16, _>(&InOrder(descending()));
/// on_cuda::<f32, _>(&Equal);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it does not wrap a `#[kernel]` element function",
    note = "closures run only on host spaces (Serial, Rayon); for Cuda write the comparator as `#[kernel(binary)] fn name(a: T, b: T) -> bool {{ .. }}` and pass `name()`"
)]
pub trait CudaPairMap<T, U>: sealed::Sealed {
    #[doc(hidden)]
    fn driver() -> &'static DeviceDriver;
    #[doc(hidden)]
    fn uses() -> Vec<ElementUse>;
    #[doc(hidden)]
    fn bind(&self, _: &mut DriverLaunch<'_>) {}
}

impl sealed::Sealed for Equal {}
impl<T: DeviceElement> CudaPairMap<T, bool> for Equal {
    fn driver() -> &'static DeviceDriver {
        &EQUAL
    }
    fn uses() -> Vec<ElementUse> {
        Vec::new()
    }
}

impl<C> sealed::Sealed for InOrder<C> {}
impl<T: DeviceElement> CudaPairMap<T, bool> for InOrder<PartialLess> {
    fn driver() -> &'static DeviceDriver {
        &IN_ORDER
    }
    fn uses() -> Vec<ElementUse> {
        Vec::new()
    }
}

impl<T, C> CudaPairMap<T, bool> for InOrder<C>
where
    T: DeviceElement,
    C: DeviceElementFn<CudaSpace, Args = (T, T), Output = bool>,
{
    fn driver() -> &'static DeviceDriver {
        &IN_ORDER_BY
    }
    fn uses() -> Vec<ElementUse> {
        vec![element_use::<C>()]
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.function(&self.0);
    }
}

impl<T, U, R, F> ReducePairsImpl<T, T, U, R, F> for Cuda
where
    T: DeviceElement,
    U: DeviceValue,
    R: Reducer<U> + DeviceReduction,
    F: CudaPairMap<T, U>,
{
    fn reduce_pairs(
        &self,
        label: &str,
        a: Input<'_, T, CudaSpace>,
        b: Input<'_, T, CudaSpace>,
        op: &R,
        f: &F,
    ) -> U {
        let n = a.len();
        assert_eq!(n, b.len(), "{label}: lengths differ");
        if n == 0 {
            return op.init();
        }
        let mut inst = instance(F::driver(), vec![T::CPP], Some(R::DEVICE));
        inst.functions = F::uses();
        let mut l = launch(self, label, inst);
        l.scalar(n as u64);
        // SAFETY: `a` and `b` hold the call's shared borrows of n-element
        // Views of `T`s.
        unsafe { l.input(input_arg(&a)).input(input_arg(&b)) };
        let grid = grid_for(self, n, BLOCK);
        reduce_tail::<U>(&mut l, label, grid, |l| f.bind(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::nvrtc_check::{
        before, compiles_everywhere, positive, resource_table, scaled, Launched,
    };
    use granule_cuda::codegen::Reducer;

    fn with(
        mut inst: granule_cuda::codegen::driver::DriverInstance,
        f: ElementUse,
    ) -> granule_cuda::codegen::driver::DriverInstance {
        inst.functions = vec![f];
        inst
    }

    fn reduction_instances() -> Vec<granule_cuda::codegen::driver::DriverInstance> {
        vec![
            instance(&REDUCE, vec!["granule::f32"], Some(Reducer::Sum)),
            with(
                instance(
                    &REDUCE_MAP,
                    vec!["granule::i32", "granule::f64"],
                    Some(Reducer::Max),
                ),
                element_use::<scaled<'static>>(),
            ),
            with(
                instance(&COUNT_IF, vec!["granule::i64"], Some(Reducer::Sum)),
                element_use::<positive<'static>>(),
            ),
            with(
                instance(&TEST_ALL, vec!["granule::i64"], Some(Reducer::LOr)),
                element_use::<positive<'static>>(),
            ),
            instance(&LOC, vec!["granule::u16"], Some(Reducer::MinLoc)),
            instance(
                &MINMAX_LOC,
                vec!["granule::f64"],
                Some(Reducer::MinMaxFirstLastLoc),
            ),
            instance(&EQUAL, vec!["granule::f64"], Some(Reducer::LAnd)),
            instance(&IN_ORDER, vec!["granule::i8"], Some(Reducer::LAnd)),
            with(
                instance(&IN_ORDER_BY, vec!["granule::f32"], Some(Reducer::LAnd)),
                element_use::<before<'static, f32>>(),
            ),
        ]
    }

    #[test]
    fn the_reduction_drivers_compile_for_gpus() {
        compiles_everywhere("reduce.cu", &reduction_instances());
    }

    #[test]
    fn gpu_resources_of_the_reduction_drivers() {
        let mut rows: Vec<Launched> = reduction_instances()
            .into_iter()
            .map(|inst| Launched {
                inst,
                threads: BLOCK,
                shared: 0,
            })
            .collect();
        for t in ["granule::i32", "granule::f64"] {
            rows.push(Launched {
                inst: instance(&REDUCE, vec![t], Some(Reducer::Sum)),
                threads: BLOCK,
                shared: 0,
            });
        }
        resource_table("reduce.cu", &rows, true);
    }
}
