//! Stream compaction on Cuda: one launch of `compact.cuh` per call, which
//! fuses the predicate, the look-back scan of the tiles' counts and the
//! coalesced scatter of the kept elements staged in shared memory.

use super::{CompactByFlagsImpl, CompactImpl, UniqueImpl};
use crate::device::{
    bytes, config, element_use, input_arg, instance, launch, output_arg, tiles, DeviceElement,
};
use crate::io::{Input, Output};
use granule_core::functor::UnaryFunctor;
use granule_core::reducer::Logical;
use granule_cuda::codegen::driver::{
    DeviceDriver, DriverInstance, DriverParam, DriverParamKind as K,
};
use granule_cuda::codegen::scan_slots;
use granule_cuda::kernel::{DeviceElementFn, ViewArg};
use granule_cuda::{Cuda, CudaSpace, DriverLaunch};

/// Threads per block: `COMPACT_BLOCK` of compact.cuh.
const BLOCK: u32 = 256;

/// Elements per thread of a tile: `compact_items` of compact.cuh.
fn items(elem_bytes: usize) -> u64 {
    if elem_bytes <= 4 {
        32
    } else {
        128 / elem_bytes as u64
    }
}

/// Dynamic shared memory of a launch: `compact_smem` of compact.cuh (the
/// tile's staged elements at `scan_slot`'s padded slots).
fn shared_bytes(elem_bytes: usize, in_place: bool) -> u64 {
    let slots = scan_slots(u64::from(BLOCK) * items(elem_bytes));
    slots * (elem_bytes as u64 + if in_place { 4 } else { 0 })
}

const SOURCE: &str = include_str!("compact.cuh");

/// The drivers' `__launch_bounds__`: blocks of `BLOCK` threads, and the
/// fewest blocks a multiprocessor should hold (compact.cuh's
/// `compact_min_blocks`), which caps a thread's registers.
const LAUNCH_BOUNDS: &str = "256, granule_algo::compact_min_blocks()";

/// The drivers' common parameters after their Views: the length, the
/// shared memory, then the tail (status, values, tile counter, count).
macro_rules! compact_driver {
    ($stat:ident, $name:literal, [$($g:literal),*], $fns:expr, [$($view:expr),*], $call:literal) => {
        // SAFETY: `compact` reads x(i) for i < n (the host passes the
        // input's length; the accessors, and `span` for a whole tile, check
        // bounds) and writes each kept
        // element once below the output's extent (the host checked it is
        // at least n, or that the counts fit), in place too (see
        // compact.cuh); the tail is sized by `tail` below, with a block of
        // COMPACT_BLOCK threads and `compact_smem` bytes of shared memory,
        // both checked on the device.
        static $stat: DeviceDriver = unsafe {
            DeviceDriver::new(
                $name,
                &[$($g),*],
                None,
                &[
                    $($view,)*
                    DriverParam { name: "n", kind: K::Scalar, cpp: "granule::u64" },
                    DriverParam { name: "smem", kind: K::Scalar, cpp: "granule::u64" },
                    DriverParam { name: "status", kind: K::Workspace, cpp: "granule::u64" },
                    DriverParam { name: "values", kind: K::Workspace, cpp: "granule::u64" },
                    DriverParam { name: "tiles", kind: K::Workspace, cpp: "granule::u32" },
                    DriverParam { name: "result", kind: K::Workspace, cpp: "granule::u64" },
                ],
                $fns,
                SOURCE,
                $call,
            )
            .with_launch_bounds(LAUNCH_BOUNDS)
        };
    };
}

const X: DriverParam = DriverParam {
    name: "x",
    kind: K::Input,
    cpp: "T",
};
const OUT: DriverParam = DriverParam {
    name: "out",
    kind: K::Output,
    cpp: "T",
};

compact_driver!(
    COPY_IF,
    "copy_if",
    ["T"],
    &[1],
    [X, OUT],
    "granule_algo::compact<T>(n, smem, false, false, status, values, tiles, result, \
     x, [&](granule::u64, const T& v) { return (bool)f0(v); }, \
     [&](granule::u64 at, const T& v) { out(at) = v; }, [&](granule::u64, const T&) {});"
);
compact_driver!(
    REMOVE_IF,
    "remove_if",
    ["T"],
    &[1],
    [X, OUT],
    "granule_algo::compact<T>(n, smem, false, true, status, values, tiles, result, \
     x, [&](granule::u64, const T& v) { return !f0(v); }, \
     [&](granule::u64 at, const T& v) { out(at) = v; }, [&](granule::u64, const T&) {});"
);
compact_driver!(
    REMOVE_COPY_IF,
    "remove_copy_if",
    ["T"],
    &[1],
    [X, OUT],
    "granule_algo::compact<T>(n, smem, false, false, status, values, tiles, result, \
     x, [&](granule::u64, const T& v) { return !f0(v); }, \
     [&](granule::u64 at, const T& v) { out(at) = v; }, [&](granule::u64, const T&) {});"
);
compact_driver!(
    PARTITION,
    "partition_copy",
    ["T"],
    &[1],
    [
        X,
        DriverParam { name: "yes", kind: K::Output, cpp: "T" },
        DriverParam { name: "no", kind: K::Output, cpp: "T" }
    ],
    "granule_algo::compact<T>(n, smem, true, false, status, values, tiles, result, \
     x, [&](granule::u64, const T& v) { return (bool)f0(v); }, \
     [&](granule::u64 at, const T& v) { yes(at) = v; }, [&](granule::u64 at, const T& v) { no(at) = v; });"
);
compact_driver!(
    BY_FLAGS,
    "compact_by_flags",
    ["T", "G"],
    &[],
    [
        X,
        DriverParam {
            name: "flags",
            kind: K::Input,
            cpp: "G"
        },
        OUT
    ],
    "granule_algo::compact<T>(n, smem, false, false, status, values, tiles, result, \
     x, [&](granule::u64 i, const T&) { return flags(i) != (G)0; }, \
     [&](granule::u64 at, const T& v) { out(at) = v; }, [&](granule::u64, const T&) {});"
);
compact_driver!(
    UNIQUE,
    "unique",
    ["T"],
    &[],
    [X, OUT],
    "granule_algo::compact<T>(n, smem, false, true, status, values, tiles, result, \
     x, \
     [&](granule::u64 i, const T& v) { return i == 0ull || !(v == x(i - 1ull)); }, \
     [&](granule::u64 at, const T& v) { out(at) = v; }, [&](granule::u64, const T&) {});"
);
compact_driver!(
    UNIQUE_COPY,
    "unique_copy",
    ["T"],
    &[],
    [X, OUT],
    "granule_algo::compact<T>(n, smem, false, false, status, values, tiles, result, \
     x, \
     [&](granule::u64 i, const T& v) { return i == 0ull || !(v == x(i - 1ull)); }, \
     [&](granule::u64 at, const T& v) { out(at) = v; }, [&](granule::u64, const T&) {});"
);

/// One compaction launch: `views` (inputs, then outputs, in the driver's
/// order, the flags after the input), then the tail and `bind`'s element
/// function. Returns the count kept.
fn compact<T: DeviceElement>(
    cuda: &Cuda,
    label: &str,
    inst: DriverInstance,
    (n, in_place): (usize, bool),
    views: &[(ViewArg<'_>, bool)],
    bind: impl FnOnce(&mut DriverLaunch<'_>),
) -> usize {
    if n == 0 {
        return 0;
    }
    let mut l = launch(cuda, label, inst);
    for (v, written) in views {
        // SAFETY: the entry points describe their Views: inputs borrowed
        // shared, outputs uniquely, or in place (remove_if, unique: both
        // the same memory, which `compact` supports) with their true
        // element types and lengths.
        unsafe {
            if *written {
                l.output(v.clone());
            } else {
                l.input(v.clone());
            }
        }
    }
    let per_tile = u64::from(BLOCK) * items(T::SIZE);
    let ntiles = tiles(n, per_tile);
    let shared = shared_bytes(T::SIZE, in_place);
    l.scalar(n as u64).scalar(shared);
    l.workspace(bytes(label, "tile states", ntiles, 8));
    l.workspace(bytes(label, "tile values", ntiles, 16));
    l.workspace(4);
    let result = l.workspace(8);
    bind(&mut l);
    // SAFETY: the tail is compact.cuh's (one zeroed u64 state and two u64
    // values per tile, the tile counter, the count), with COMPACT_BLOCK
    // threads and compact_smem bytes of shared memory.
    unsafe { l.run(&config(ntiles, BLOCK, shared)) };
    let kept: u64 = l.read(result);
    usize::try_from(kept).expect("the count kept is at most the input's length")
}

/// `driver` over `T` with the predicate `P`.
fn with_pred<T: DeviceElement, P>(driver: &'static DeviceDriver) -> DriverInstance
where
    P: DeviceElementFn<CudaSpace, Args = (T,), Output = bool>,
{
    let mut inst = instance(driver, vec![T::CPP], None);
    inst.functions = vec![element_use::<P>()];
    inst
}

impl<T, P> CompactImpl<T, P> for Cuda
where
    T: DeviceElement,
    P: UnaryFunctor<T, Output = bool> + DeviceElementFn<CudaSpace, Args = (T,), Output = bool>,
{
    fn copy_if(
        &self,
        label: &str,
        input: Input<'_, T, CudaSpace>,
        output: Output<'_, T, CudaSpace>,
        pred: &P,
    ) -> usize {
        let n = input.len();
        let views = [(input_arg(&input), false), (output_arg(&output), true)];
        let bind = |l: &mut DriverLaunch<'_>| {
            l.function(pred);
        };
        compact::<T>(
            self,
            label,
            with_pred::<T, P>(&COPY_IF),
            (n, false),
            &views,
            bind,
        )
    }

    fn remove_copy_if(
        &self,
        label: &str,
        input: Input<'_, T, CudaSpace>,
        output: Output<'_, T, CudaSpace>,
        pred: &P,
    ) -> usize {
        let n = input.len();
        let views = [(input_arg(&input), false), (output_arg(&output), true)];
        let bind = |l: &mut DriverLaunch<'_>| {
            l.function(pred);
        };
        let inst = with_pred::<T, P>(&REMOVE_COPY_IF);
        compact::<T>(self, label, inst, (n, false), &views, bind)
    }

    fn remove_if(&self, label: &str, data: Output<'_, T, CudaSpace>, pred: &P) -> usize {
        let n = data.len();
        let views = [(output_arg(&data), false), (output_arg(&data), true)];
        let bind = |l: &mut DriverLaunch<'_>| {
            l.function(pred);
        };
        compact::<T>(
            self,
            label,
            with_pred::<T, P>(&REMOVE_IF),
            (n, true),
            &views,
            bind,
        )
    }

    fn partition_copy(
        &self,
        label: &str,
        input: Input<'_, T, CudaSpace>,
        out_true: Output<'_, T, CudaSpace>,
        out_false: Output<'_, T, CudaSpace>,
        pred: &P,
    ) -> (usize, usize) {
        let n = input.len();
        let views = [
            (input_arg(&input), false),
            (output_arg(&out_true), true),
            (output_arg(&out_false), true),
        ];
        let bind = |l: &mut DriverLaunch<'_>| {
            l.function(pred);
        };
        let inst = with_pred::<T, P>(&PARTITION);
        let yes = compact::<T>(self, label, inst, (n, false), &views, bind);
        (yes, n - yes)
    }
}

impl<T, G> CompactByFlagsImpl<T, G> for Cuda
where
    T: DeviceElement,
    G: DeviceElement + Logical,
{
    fn compact_by_flags(
        &self,
        label: &str,
        input: Input<'_, T, CudaSpace>,
        flags: Input<'_, G, CudaSpace>,
        output: Output<'_, T, CudaSpace>,
    ) -> usize {
        let n = input.len();
        assert_eq!(flags.len(), n, "{label}: flags and input lengths differ");
        let views = [
            (input_arg(&input), false),
            (input_arg(&flags), false),
            (output_arg(&output), true),
        ];
        let inst = instance(&BY_FLAGS, vec![T::CPP, G::CPP], None);
        compact::<T>(self, label, inst, (n, false), &views, |_| {})
    }
}

impl<T: DeviceElement + PartialEq> UniqueImpl<T> for Cuda {
    fn unique(&self, label: &str, data: Output<'_, T, CudaSpace>) -> usize {
        let n = data.len();
        let views = [(output_arg(&data), false), (output_arg(&data), true)];
        let inst = instance(&UNIQUE, vec![T::CPP], None);
        compact::<T>(self, label, inst, (n, true), &views, |_| {})
    }

    fn unique_copy(
        &self,
        label: &str,
        input: Input<'_, T, CudaSpace>,
        output: Output<'_, T, CudaSpace>,
    ) -> usize {
        let n = input.len();
        let views = [(input_arg(&input), false), (output_arg(&output), true)];
        let inst = instance(&UNIQUE_COPY, vec![T::CPP], None);
        compact::<T>(self, label, inst, (n, false), &views, |_| {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::nvrtc_check::{compiles_everywhere, positive, resource_table, Launched};

    #[test]
    fn the_compaction_drivers_compile_for_gpus() {
        let insts = vec![
            with_pred::<i64, positive<'static>>(&COPY_IF),
            with_pred::<i64, positive<'static>>(&REMOVE_IF),
            with_pred::<i64, positive<'static>>(&REMOVE_COPY_IF),
            with_pred::<f32, super::super::equal_to<'static, f32>>(&REMOVE_IF),
            with_pred::<i64, positive<'static>>(&PARTITION),
            instance(&BY_FLAGS, vec!["granule::f32", "bool"], None),
            instance(&BY_FLAGS, vec!["granule::u8", "granule::u32"], None),
            instance(&UNIQUE, vec!["granule::f64"], None),
            instance(&UNIQUE_COPY, vec!["granule::u16"], None),
        ];
        compiles_everywhere("compact.cu", &insts);
    }

    #[test]
    fn gpu_resources_of_the_compaction_drivers() {
        let row = |inst, size, in_place| Launched {
            inst,
            threads: BLOCK,
            shared: shared_bytes(size, in_place),
        };
        let rows = [
            row(with_pred::<i64, positive<'static>>(&COPY_IF), 8, false),
            row(with_pred::<i64, positive<'static>>(&REMOVE_IF), 8, true),
            row(with_pred::<i64, positive<'static>>(&PARTITION), 8, false),
            row(
                instance(&BY_FLAGS, vec!["granule::f32", "bool"], None),
                4,
                false,
            ),
            row(
                instance(&BY_FLAGS, vec!["granule::i32", "bool"], None),
                4,
                false,
            ),
            row(instance(&UNIQUE, vec!["granule::f64"], None), 8, true),
        ];
        resource_table("compact.cu", &rows, true);
    }
}
