//! The scans on Cuda: one launch of `scan.cuh`'s single-pass decoupled
//! look-back driver for arrays (`drive_scan_runs`), in place or not, for
//! every operator with a device counterpart and every device scalar type.
//!
//! The device groups float joins by a fixed tree per tile and a fixed
//! order across tiles (see the header's `drive_scan` and
//! `drive_scan_runs`), so a float scan has the same bits on every run of a
//! given length, but not the host's bits.

use super::{Identity, ScanImpl, ScanKind, ScanSpec};
use crate::device::{config, element_use, input_arg, instance, launch, output_arg, DeviceElement};
use crate::io::{Input, Output};
use granule_core::functor::UnaryFunctor;
use granule_core::kernel::DeviceReduction;
use granule_core::reducer::Reducer;
use granule_cuda::codegen::driver::{DeviceDriver, DriverParam, DriverParamKind as K};
use granule_cuda::codegen::scan_workspace_with;
use granule_cuda::kernel::{DeviceElementFn, ViewArg};
use granule_cuda::{Cuda, CudaSpace, DriverLaunch};

/// Threads per block (a multiple of 32; the look-back uses warp 0).
const BLOCK: u32 = 256;

/// The drivers' `__launch_bounds__`: blocks of `BLOCK` threads, and the
/// register cap of `scan.cuh`'s `scan_run_min_blocks`.
const LAUNCH_BOUNDS: &str = "256, granule_algo::scan_run_min_blocks<T>()";

/// Items each thread scans per tile for elements of `elem_size` bytes:
/// `scan_run_items` of scan.cuh, whose `scan_view` traps unless the
/// launch passes the same number.
fn scan_run_items(elem_size: usize) -> u32 {
    // At most 32, so the cast is exact.
    (128 / elem_size.max(1)).clamp(1, 32) as u32
}

/// The scan source, shared by its drivers.
const SOURCE: &str = include_str!("scan.cuh");

/// The parameters of both scan drivers: length, kind, init, the items per
/// thread, input, output, then `drive_scan`'s tail
/// (`codegen::scan_workspace` order).
const PARAMS: &[DriverParam] = &[
    DriverParam {
        name: "n",
        kind: K::Scalar,
        cpp: "granule::u64",
    },
    DriverParam {
        name: "inclusive",
        kind: K::Scalar,
        cpp: "bool",
    },
    DriverParam {
        name: "init",
        kind: K::Scalar,
        cpp: "T",
    },
    DriverParam {
        name: "items",
        kind: K::Scalar,
        cpp: "granule::u32",
    },
    DriverParam {
        name: "x",
        kind: K::Input,
        cpp: "U",
    },
    DriverParam {
        name: "out",
        kind: K::Output,
        cpp: "T",
    },
    DriverParam {
        name: "status",
        kind: K::Workspace,
        cpp: "granule::u64",
    },
    DriverParam {
        name: "values",
        kind: K::Workspace,
        cpp: "T",
    },
    DriverParam {
        name: "tiles",
        kind: K::Workspace,
        cpp: "granule::u32",
    },
    DriverParam {
        name: "result",
        kind: K::Workspace,
        cpp: "T",
    },
];

// SAFETY: `scan_view` reads x(i) and writes out(i) for i < n through the
// bounds-checked View accessors, or a whole tile of x through `span`, which
// checks the tile's bounds (the host passes n = the input's length, at most
// the output's), and runs in place (see scan.cuh); the tail is
// drive_scan_runs' workspace, sized by `scan_workspace_with` with its
// launch geometry and `scan_run_items`, which `scan` below uses and passes
// (the device traps if its own tile size differs). LAUNCH_BOUNDS is two
// constant expressions, the first BLOCK.
static SCAN: DeviceDriver = unsafe {
    DeviceDriver::new(
        "scan",
        &["U", "T"],
        Some("T"),
        PARAMS,
        &[],
        SOURCE,
        "granule_algo::scan_view<Op, T>(n, inclusive, init, items, x, out, status, values, tiles, result, \
         [&](const U& v) { return (T)v; });",
    )
    .with_launch_bounds(LAUNCH_BOUNDS)
};

// SAFETY: as SCAN, with the element function applied to each element.
static SCAN_MAP: DeviceDriver = unsafe {
    DeviceDriver::new(
        "transform_scan",
        &["U", "T"],
        Some("T"),
        PARAMS,
        &[1],
        SOURCE,
        "granule_algo::scan_view<Op, T>(n, inclusive, init, items, x, out, status, values, tiles, result, \
         [&](const U& v) { return f0(v); });",
    )
    .with_launch_bounds(LAUNCH_BOUNDS)
};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Identity {}
    impl<F: granule_cuda::kernel::DeviceElementFn<granule_cuda::CudaSpace>> Sealed for F {}
}

/// The transform of a scan on Cuda: [`Identity`] for the plain scans, or
/// a `#[kernel]` element function from `U` to `T`. Closures are host-only.
///
/// ```
/// use granule::prelude::*;
/// use granule::algorithms::{scan::CudaTransform, Identity};
///
/// #[kernel]
/// fn flag(v: u8) -> u64 {
///     (v != 0) as u64
/// }
///
/// fn on_cuda<U, T, F: CudaTransform<U, T>>(_: &F) {}
/// on_cuda::<u8, u64, _>(&flag());
/// on_cuda::<f32, f32, _>(&Identity);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot run on a device execution space: it is not a `#[kernel]` element function",
    label = "not a `#[kernel]` element function",
    note = "closures run only on host spaces (Serial, Rayon); for Cuda write the transform as `#[kernel] fn name(x: U, captured: C, ..) -> T {{ .. }}` and pass `name(captured, ..)`"
)]
pub trait CudaTransform<U, T>: sealed::Sealed {
    /// The driver that applies it.
    #[doc(hidden)]
    fn driver() -> &'static DeviceDriver;
    /// Its element functions, and their captures for a launch.
    #[doc(hidden)]
    fn uses() -> Vec<granule_cuda::codegen::driver::ElementUse>;
    #[doc(hidden)]
    fn bind(&self, l: &mut DriverLaunch<'_>);
}

impl<U: DeviceElement> CudaTransform<U, U> for Identity {
    fn driver() -> &'static DeviceDriver {
        &SCAN
    }
    fn uses() -> Vec<granule_cuda::codegen::driver::ElementUse> {
        Vec::new()
    }
    fn bind(&self, _: &mut DriverLaunch<'_>) {}
}

impl<U, T, F> CudaTransform<U, T> for F
where
    F: DeviceElementFn<CudaSpace, Args = (U,), Output = T>,
{
    fn driver() -> &'static DeviceDriver {
        &SCAN_MAP
    }
    fn uses() -> Vec<granule_cuda::codegen::driver::ElementUse> {
        vec![element_use::<F>()]
    }
    fn bind(&self, l: &mut DriverLaunch<'_>) {
        l.function(self);
    }
}

/// One launch of the scan of `n` elements of `x` into `out`; the total.
fn scan<U, T, R, F>(
    cuda: &Cuda,
    label: &str,
    (n, x, out): (usize, ViewArg<'_>, ViewArg<'_>),
    spec: &ScanSpec<'_, T, R, F>,
) -> T
where
    U: DeviceElement,
    T: DeviceElement,
    R: Reducer<T> + DeviceReduction,
    F: CudaTransform<U, T>,
{
    let init = spec.init.unwrap_or_else(|| spec.op.init());
    if n == 0 {
        return init;
    }
    let mut inst = instance(F::driver(), vec![U::CPP, T::CPP], Some(R::DEVICE));
    inst.functions = F::uses();
    let mut l = launch(cuda, label, inst);
    let items = scan_run_items(T::SIZE);
    let ws = scan_workspace_with(n as u64, T::SIZE, T::ALIGN, BLOCK, items)
        .unwrap_or_else(|e| panic!("{label}: the scan's workspace: {e}"));
    l.scalar(n as u64)
        .scalar(spec.kind == ScanKind::Inclusive)
        .scalar(init)
        .scalar(items);
    // SAFETY: `x` and `out` describe the call's Views (an Input borrowed
    // shared, an Output borrowed uniquely, or the same memory in place,
    // which `scan_view` supports), both at least `n` long.
    unsafe { l.input(x).output(out) };
    let mut result = None;
    for &bytes in &ws.buffers {
        result = Some(l.workspace(bytes));
    }
    spec.transform.bind(&mut l);
    // SAFETY: the tail is `scan_workspace_with`'s buffers in order, and
    // the geometry its grid, block and shared memory, for the tiles of
    // `scan_run_items` per thread that drive_scan_runs uses.
    unsafe {
        l.run(&config(
            u64::from(ws.grid),
            ws.block,
            u64::from(ws.shared_bytes),
        ))
    };
    // The driver's total has init joined on its left, as its outputs do.
    l.read(result.expect("the scan's workspace has a result buffer"))
}

impl<U, T, R, F> ScanImpl<U, T, R, F> for Cuda
where
    U: DeviceElement,
    T: DeviceElement,
    R: Reducer<T> + DeviceReduction,
    F: UnaryFunctor<U, Output = T> + CudaTransform<U, T>,
{
    fn scan(
        &self,
        label: &str,
        input: Input<'_, U, CudaSpace>,
        output: Output<'_, T, CudaSpace>,
        spec: ScanSpec<'_, T, R, F>,
    ) -> T {
        let n = input.len();
        assert!(output.len() >= n, "{label}: output shorter than input");
        scan(
            self,
            label,
            (n, input_arg(&input), output_arg(&output)),
            &spec,
        )
    }

    fn scan_in_place(
        &self,
        label: &str,
        data: Output<'_, T, CudaSpace>,
        spec: ScanSpec<'_, T, R, F>,
    ) -> T
    where
        F: UnaryFunctor<T, Output = T>,
    {
        // In place, the input is the output: the elements are `T`s (the
        // in-place entry points scan with `Identity`, so `U` is `T`).
        assert_eq!(
            std::any::TypeId::of::<U>(),
            std::any::TypeId::of::<T>(),
            "{label}: an in-place scan reads and writes one element type"
        );
        let n = data.len();
        let (x, out) = (output_arg(&data), output_arg(&data));
        scan::<U, T, R, F>(self, label, (n, x, out), &spec)
    }
}

#[cfg(test)]
mod tests {
    use super::{CudaTransform, SCAN, SCAN_MAP};
    use crate::device::nvrtc_check::{compiles_everywhere, resource_table, scaled, Launched};
    use crate::device::{element_use, instance};
    use granule_cuda::codegen::scan_workspace_with;
    use granule_cuda::codegen::Reducer;

    #[test]
    fn runs_are_128_bytes_of_at_most_32_items() {
        let items = [1, 2, 4, 8, 16, 24, 128, 256].map(super::scan_run_items);
        assert_eq!(items, [32, 32, 32, 16, 8, 5, 1, 1]);
    }

    #[test]
    fn the_launch_bounds_allow_the_block() {
        let threads = super::LAUNCH_BOUNDS.split(',').next().unwrap();
        assert_eq!(threads.trim().parse::<u32>(), Ok(super::BLOCK));
        assert_eq!(SCAN.launch_bounds, Some(super::LAUNCH_BOUNDS));
        assert_eq!(SCAN_MAP.launch_bounds, Some(super::LAUNCH_BOUNDS));
    }

    #[test]
    fn the_scan_drivers_compile_for_gpus() {
        let mut insts = vec![
            instance(
                &SCAN,
                vec!["granule::i32", "granule::i32"],
                Some(Reducer::Sum),
            ),
            instance(
                &SCAN,
                vec!["granule::f64", "granule::f64"],
                Some(Reducer::Max),
            ),
            instance(&SCAN, vec!["bool", "bool"], Some(Reducer::LAnd)),
            instance(
                &SCAN,
                vec!["granule::u8", "granule::u8"],
                Some(Reducer::BOr),
            ),
        ];
        let mut map = instance(
            &SCAN_MAP,
            vec!["granule::i32", "granule::f64"],
            Some(Reducer::Sum),
        );
        map.functions = vec![element_use::<scaled<'static>>()];
        insts.push(map);
        assert!(std::ptr::eq(
            <scaled<'static> as CudaTransform<i32, f64>>::driver(),
            &SCAN_MAP
        ));
        compiles_everywhere("scan.cu", &insts);
    }

    #[test]
    fn gpu_resources_of_the_scan_drivers() {
        let row = |inst, size: usize| {
            let items = super::scan_run_items(size);
            let ws = scan_workspace_with(1 << 24, size, size, super::BLOCK, items).unwrap();
            Launched {
                inst,
                threads: ws.block,
                shared: u64::from(ws.shared_bytes),
            }
        };
        let scan = |t| instance(&SCAN, vec![t, t], Some(Reducer::Sum));
        let mut map = instance(
            &SCAN_MAP,
            vec!["granule::i32", "granule::f64"],
            Some(Reducer::Sum),
        );
        map.functions = vec![element_use::<scaled<'static>>()];
        let rows = [
            row(scan("granule::i32"), 4),
            row(scan("granule::f32"), 4),
            row(scan("granule::i64"), 8),
            row(scan("granule::f64"), 8),
            row(map, 8),
        ];
        resource_table("scan.cu", &rows, true);
    }
}
