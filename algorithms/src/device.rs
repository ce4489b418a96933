//! What the Cuda implementations of every family share: the element
//! types a driver takes, an algorithm's Views as driver arguments, and
//! launch geometry. Each family's `cuda.rs` (or `*_cuda.rs`) describes its
//! drivers, whose device code is in the family's `.cuh`.

use crate::io::{Input, Output};
use granule_cuda::codegen::driver::{DeviceDriver, DriverInstance, ElementUse};
use granule_cuda::device_api::LaunchConfig;
use granule_cuda::kernel::{DeviceElementFn, DeviceScalar, DeviceValue, ViewArg};
use granule_cuda::{Cuda, CudaSpace, DriverLaunch};
use granule_views::Element;

/// An element type the device drivers take: a number or `bool` (a device
/// scalar, with the same bytes on both sides).
///
/// ```
/// fn on_device<T: granule::algorithms::DeviceElement>() {}
/// on_device::<f32>();
/// on_device::<bool>();
/// ```
pub trait DeviceElement: DeviceScalar + DeviceValue + Element {}

impl<T: DeviceScalar + DeviceValue + Element> DeviceElement for T {}

/// The most blocks a launch has (CUDA's `gridDim.x` limit); the drivers
/// loop over their tiles when there are more.
const MAX_GRID: u64 = (1 << 31) - 1;

/// A View an algorithm reads, as a driver argument.
pub(crate) fn input_arg<'a, T>(x: &Input<'a, T, CudaSpace>) -> ViewArg<'a> {
    ViewArg::of::<T>(x.label, x.ptr as usize, &[x.len], &[x.stride])
}

/// A View an algorithm writes, as a driver argument (also its input
/// when the driver works in place).
pub(crate) fn output_arg<'a, T>(x: &Output<'a, T, CudaSpace>) -> ViewArg<'a> {
    ViewArg::of::<T>(x.label, x.ptr as usize, &[x.len], &[x.stride])
}

/// A launch of `grid` blocks of `block` threads with `shared` bytes of
/// dynamic shared memory (the launch checks them against the device).
pub(crate) fn config(grid: u64, block: u32, shared: u64) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid.clamp(1, MAX_GRID) as u32, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: u32::try_from(shared).unwrap_or(u32::MAX),
    }
}

/// Blocks of `block` threads for a grid-stride loop over `n` elements:
/// enough to fill the device twice over, no more than the elements need.
pub(crate) fn grid_for(cuda: &Cuda, n: usize, block: u32) -> u32 {
    let l = cuda.device().limits();
    let resident = u64::from(l.multiprocessor_count)
        * u64::from((l.max_threads_per_multiprocessor / block).max(1));
    let wanted = (n as u64)
        .div_ceil(u64::from(block))
        .clamp(1, 2 * resident.max(1));
    u32::try_from(wanted.min(u64::from(l.max_grid_dim.0))).unwrap_or(u32::MAX)
}

/// Tiles of `per_tile` elements covering `n`. The drivers hand tiles out
/// from a u32 counter, one number more per block when they run out, so
/// the tiles and a full grid must fit in it.
///
/// # Panics
/// When they do not (2^32 tiles of at least 1024 elements: more memory
/// than a device has).
pub(crate) fn tiles(n: usize, per_tile: u64) -> u64 {
    let tiles = (n as u64).div_ceil(per_tile);
    assert!(
        tiles.saturating_add(MAX_GRID) <= u64::from(u32::MAX),
        "{n} elements make {tiles} tiles, more than a u32 tile counter hands out"
    );
    tiles
}

/// `count` elements of `size` bytes, or a panic naming `what` (a
/// workspace larger than the host can count cannot be allocated anyway).
pub(crate) fn bytes(label: &str, what: &str, count: u64, size: usize) -> usize {
    count
        .checked_mul(size as u64)
        .and_then(|b| usize::try_from(b).ok())
        .unwrap_or_else(|| panic!("{label}: the {what} of {count} x {size} bytes overflows"))
}

/// A driver with its types, and optionally a reducer, with no element
/// function.
pub(crate) fn instance(
    driver: &'static DeviceDriver,
    types: Vec<&'static str>,
    reducer: Option<granule_cuda::codegen::Reducer>,
) -> DriverInstance {
    DriverInstance {
        driver,
        types,
        reducer,
        functions: Vec::new(),
    }
}

/// An element function of a driver instance: how the instance names it
/// and how the launch binds its captures.
pub(crate) fn element_use<F: DeviceElementFn<CudaSpace>>() -> ElementUse {
    ElementUse::of::<F, CudaSpace>()
}

/// Starts the launch of `inst` on `cuda`.
pub(crate) fn launch<'a>(cuda: &'a Cuda, label: &'a str, inst: DriverInstance) -> DriverLaunch<'a> {
    cuda.driver_launch(label, inst)
}

/// Compiling the drivers under NVRTC, as a GPU would: element functions
/// to instantiate them with, and the check.
#[cfg(test)]
pub(crate) mod nvrtc_check {
    use granule_core::kernel::kernel;
    use granule_cuda::codegen::driver::DriverInstance;
    use granule_cuda::codegen::TranslationUnit;
    use granule_cuda::nvrtc;

    #[kernel(crate = granule_core)]
    pub fn positive(x: i64) -> bool {
        x > 0
    }

    #[kernel(crate = granule_core)]
    pub fn scaled(x: i32, by: f64) -> f64 {
        x as f64 * by
    }

    #[kernel(binary, crate = granule_core)]
    pub fn before<T: PartialOrd>(a: T, b: T) -> bool {
        a < b
    }

    /// Compiles `insts` as one unit to PTX and CUBIN for sm_80 and sm_90
    /// (skipped, with a message, without NVRTC, unless CI=true).
    pub fn compiles_everywhere(name: &str, insts: &[DriverInstance]) {
        if !nvrtc::available_or_skip(name) {
            return;
        }
        let unit = TranslationUnit::for_drivers(insts).unwrap_or_else(|e| panic!("{name}: {e}"));
        nvrtc::check_everywhere(unit.source(), name, unit.entries())
            .unwrap_or_else(|e| panic!("{e}"));
    }

    /// A driver instance as a launch runs it: its block and dynamic
    /// shared memory.
    pub struct Launched {
        pub inst: DriverInstance,
        pub threads: u32,
        pub shared: u64,
    }

    /// Compiles `rows` as one unit for sm_90 with ptxas's report and
    /// prints each entry's registers, spills, stack, shared memory and the
    /// H100 occupancy its launch allows (`cargo test -p granule-algorithms
    /// --features cuda gpu_resources -- --nocapture` prints every family's).
    /// When `no_spills`, an entry that spills fails the test: the budget
    /// that keeps a driver's registers from silently overflowing into
    /// local memory.
    pub fn resource_table(name: &str, rows: &[Launched], no_spills: bool) {
        if !nvrtc::available_or_skip(name) {
            return;
        }
        let insts: Vec<DriverInstance> = rows.iter().map(|r| r.inst.clone()).collect();
        let unit = TranslationUnit::for_drivers(&insts).unwrap_or_else(|e| panic!("{name}: {e}"));
        let report = nvrtc::resources(unit.source(), name, 90).unwrap_or_else(|e| panic!("{e}"));
        let mut table = format!("{name}, sm_90: {}\n", nvrtc::TABLE_COLUMNS);
        for (row, entry) in rows.iter().zip(unit.entries()) {
            let r = report
                .iter()
                .find(|r| &r.entry == entry)
                .unwrap_or_else(|| panic!("{name}: ptxas reported nothing for {entry}"));
            let shared = u32::try_from(row.shared).expect("dynamic shared memory fits a u32");
            table.push_str(&r.table_row(row.threads, shared));
            table.push('\n');
            assert!(
                !(no_spills && r.spills()),
                "{name}: {entry} spills ({} bytes stored, {} loaded); its budget is none\n{table}",
                r.spill_stores,
                r.spill_loads
            );
        }
        println!("{table}");
    }
}
