//! Every `#[kernel]` of the conformance suite and of the examples, wrapped
//! by the framework driver of its pattern (reductions and scans with every
//! reducer that applies to their type), compiles under NVRTC to PTX and to
//! CUBIN for sm_80 and sm_90. Without NVRTC the test is skipped with a
//! printed reason, unless CI=true, where it fails.
//!
//! Install NVRTC with `scripts/install-nvrtc.sh` and put the directory it
//! prints on LD_LIBRARY_PATH.

use granule::kernel::{DeviceFn, DeviceKernel, DeviceReducer, KernelPattern, ParamKind};
use granule_cuda::codegen::{Instance, Pattern, Reducer, TranslationUnit};
use granule_cuda::nvrtc::{self, available_or_skip as nvrtc_or_skip};
use std::path::Path;

#[allow(dead_code)]
#[path = "../../examples/kernels.rs"]
mod example_kernels;

#[allow(dead_code)]
#[path = "../../examples/stream_compaction.rs"]
mod stream_compaction;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/random_number.rs"]
mod random_number;

// The tutorials share `examples/tutorial/common.rs`, so it is loaded once
// per tutorial here.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/scatter_view.rs"]
mod scatter_view;
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_01_04_yax.rs"]
mod tutorial_yax;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_mdrange.rs"]
mod tutorial_mdrange;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_subview.rs"]
mod tutorial_subview;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_team_policy.rs"]
mod tutorial_team_policy;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_team_vector_loop.rs"]
mod tutorial_team_vector_loop;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_team_scratch_memory.rs"]
mod tutorial_team_scratch_memory;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_parallel_scan.rs"]
mod tutorial_parallel_scan;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_advanced_reductions.rs"]
mod tutorial_advanced_reductions;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_histogram.rs"]
mod tutorial_histogram;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tour.rs"]
mod tour;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_heat3d.rs"]
mod tutorial_heat3d;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/tutorial_stream.rs"]
mod tutorial_stream;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/dualview.rs"]
mod dualview;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/unordered_map.rs"]
mod unordered_map_example;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../examples/unique_token.rs"]
mod unique_token_example;

/// The kernels of `examples/`.
const EXAMPLE_KERNELS: &[&DeviceKernel] = kernel_list![
    example_kernels::axpy,
    example_kernels::dot,
    example_kernels::prefix_squares,
    example_kernels::smooth,
    stream_compaction::naive_level,
    stream_compaction::shift_right,
    stream_compaction::pad,
    stream_compaction::unpad,
    stream_compaction::up_sweep,
    stream_compaction::clear_root,
    stream_compaction::down_sweep,
    stream_compaction::keep_flag,
    stream_compaction::scatter,
    tutorial_yax::yax_row_right,
    tutorial_yax::yax_row_left,
    tutorial_mdrange::mdrange_fill_a,
    tutorial_mdrange::mdrange_fill_y,
    tutorial_mdrange::mdrange_fill_x,
    tutorial_mdrange::mdrange_yax,
    tutorial_subview::subview_block_yax,
    tutorial_team_policy::team_policy_yax,
    tutorial_team_vector_loop::team_vector_yax,
    tutorial_team_scratch_memory::team_scratch_yax,
    tutorial_parallel_scan::factorial_scan,
    tutorial_advanced_reductions::reductions_fill,
    tutorial_advanced_reductions::geometric_mean_term,
    tutorial_advanced_reductions::sum_min_max,
    tutorial_histogram::histogram_fill,
    tutorial_histogram::histogram_count,
    tutorial_heat3d::heat_inner,
    tutorial_heat3d::heat_surface,
    tutorial_heat3d::heat_update,
    tutorial_heat3d::heat_total,
    tutorial_stream::stream_init,
    tutorial_stream::stream_copy,
    tutorial_stream::stream_scale,
    tutorial_stream::stream_add,
    tutorial_stream::stream_triad,
    tour::tour_axpy,
    tour::tour_dot,
    tour::tour_yax,
    tour::tour_stencil,
    dualview::gas_state,
    unordered_map_example::global_id,
    unordered_map_example::insert_global,
    unordered_map_example::to_local,
    unordered_map_example::count_foreign,
    random_number::random_inside,
    scatter_view::scatter_example_fill,
    scatter_view::scatter_example_atomic,
    scatter_view::scatter_example_scatter,
    unique_token_example::token_example_count,
    unique_token_example::token_example_combine,
];

/// The element functions of `examples/`: algorithms' drivers call them
/// (granule-algorithms compiles its drivers, with element functions, under
/// NVRTC), so they are counted here but wrapped in no pattern.
fn example_element_functions() -> [&'static DeviceKernel; 2] {
    use granule::kernel::DeviceElementFn;
    use granule::views::HostSpace;
    [
        <stream_compaction::nonzero as DeviceElementFn<HostSpace>>::FUNCTION,
        <tour::tour_positive as DeviceElementFn<HostSpace>>::FUNCTION,
    ]
}

/// The kernels, by translation unit: the suite's and the examples' are
/// compiled apart, since an example may reuse a suite kernel's name.
fn groups() -> [(&'static str, &'static [&'static DeviceKernel]); 9] {
    [
        ("random.cu", granule::containers::random::kernels::KERNELS),
        ("suite.cu", crate::kernels::KERNELS),
        ("examples.cu", EXAMPLE_KERNELS),
        ("semantics.cu", crate::semantics::KERNELS),
        ("containers.cu", crate::container_kernels::KERNELS),
        ("scatter.cu", crate::scatter::SCATTER_KERNELS),
        ("unique_token.cu", crate::unique_token::TOKEN_KERNELS),
        ("aggregates.cu", crate::aggregates::KERNELS),
        ("spmv.cu", granule::algorithms::sparse::SPMV_KERNELS),
    ]
}

/// `#[kernel` attributes at the start of a line, in the `.rs` files of `dir`
/// (not its folders: `semantics/` generates its kernels with macros, and
/// checks its list against their invocations).
fn count_kernel_attributes(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a readable source");
            text.lines()
                .filter(|l| l.trim_start().starts_with("#[kernel"))
                .count()
        })
        .sum()
}

#[test]
fn every_kernel_of_the_suite_and_examples_is_listed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let written = count_kernel_attributes(&root.join("tests/conformance"))
        + count_kernel_attributes(&root.join("examples"));
    let elements = example_element_functions();
    assert!(elements.iter().all(|k| k.pattern == KernelPattern::Element));
    let listed: usize = groups().iter().map(|(_, ks)| ks.len()).sum::<usize>()
        - crate::semantics::KERNELS.len()
        - granule::containers::random::kernels::KERNELS.len()
        - granule::algorithms::sparse::SPMV_KERNELS.len()
        + elements.len();
    assert_eq!(
        listed, written,
        "a #[kernel] is missing from kernels::KERNELS or EXAMPLE_KERNELS"
    );
    for (unit, kernels) in groups() {
        let mut names: Vec<&str> = kernels.iter().map(|k| k.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(
            names.len(),
            kernels.len(),
            "{unit}: a kernel is listed twice"
        );
    }
}

/// The C++ type of a kernel's last `&mut` (accumulator or scan partial).
fn acc_type(k: &DeviceKernel) -> &'static str {
    k.params
        .iter()
        .rev()
        .find(|p| p.kind == ParamKind::Out)
        .map_or("", |p| p.cpp)
}

/// The custom reducers of the suite and of the examples, by the C++ type
/// of the value they reduce.
fn custom_reducers() -> [(&'static str, &'static DeviceFn); 3] {
    use crate::kernels::{MeanOf, TripleSum};
    use tutorial_advanced_reductions::GeometricMeanOf;
    [
        ("Triple", <TripleSum as DeviceReducer>::DEVICE),
        ("Mean", <MeanOf as DeviceReducer>::DEVICE),
        ("GeometricMean", <GeometricMeanOf as DeviceReducer>::DEVICE),
    ]
}

/// The custom reducers of scans over built-in types, by kernel: such a
/// reducer cannot be found from the partial's type, which built-in
/// reducers share.
fn custom_scan_reducer(k: &DeviceKernel) -> Option<&'static DeviceFn> {
    use granule::kernel::KernelSource;
    use tutorial_parallel_scan::{factorial_scan, ModularProduct};
    std::ptr::eq(k, <factorial_scan as KernelSource>::KERNEL)
        .then_some(<ModularProduct as DeviceReducer>::DEVICE)
}

/// The patterns a kernel is wrapped in: every reducer that applies to its
/// accumulator (its custom reducer for a `#[device] struct`); for a tuple
/// accumulator, choices of tuples of reducers that together use every
/// reducer that applies to each field.
fn patterns(k: &DeviceKernel) -> Vec<Pattern> {
    let acc = acc_type(k);
    if let Some(r) = custom_scan_reducer(k) {
        return vec![Pattern::Scan(Reducer::Custom(r))];
    }
    if let Some((_, r)) = custom_reducers().into_iter().find(|(t, _)| *t == acc) {
        return vec![Pattern::Reduce(Reducer::Custom(r))];
    }
    let choices = Reducer::for_tuple(acc);
    if k.pattern != KernelPattern::Reduce || choices.is_empty() {
        return Pattern::all_for(k.pattern, acc);
    }
    choices
        .into_iter()
        // A `Reducer::Tuple` borrows its reducers for `'static`: the test
        // process keeps these few small lists to its end.
        .map(|rs| Pattern::Reduce(Reducer::Tuple(Vec::leak(rs))))
        .collect()
}

fn instances(kernels: &'static [&'static DeviceKernel]) -> Vec<Instance> {
    kernels
        .iter()
        .copied()
        .flat_map(|k| {
            patterns(k)
                .into_iter()
                .map(move |p| Instance::new(k, p, &[]))
        })
        .collect()
}

#[test]
fn every_kernel_compiles_to_ptx_and_cubin_for_sm80_and_sm90() {
    if !nvrtc_or_skip("every_kernel_compiles_to_ptx_and_cubin_for_sm80_and_sm90") {
        return;
    }
    for (name, kernels) in groups() {
        compile_unit(name, kernels);
    }
}

/// Wraps every kernel of a group and compiles the unit for every target.
fn compile_unit(name: &str, kernels: &'static [&'static DeviceKernel]) {
    let instances = instances(kernels);
    for k in kernels {
        assert!(
            instances.iter().any(|i| std::ptr::eq(i.kernel, *k)),
            "no instance of {}",
            k.name
        );
    }
    let unit = TranslationUnit::new(&instances).unwrap_or_else(|e| panic!("{name}: {e}"));
    nvrtc::check_everywhere(unit.source(), name, unit.entries()).unwrap_or_else(|e| panic!("{e}"));
}

/// BinSort's kernels compile for every target, its gathers instantiated
/// for every device scalar (a GPU permutes Views of any of them).
#[test]
fn the_bin_sort_kernels_compile_for_every_target() {
    if !nvrtc_or_skip("the_bin_sort_kernels_compile_for_every_target") {
        return;
    }
    let kernels = granule::algorithms::sort::BIN_SORT_KERNELS;
    let (plain, generic) = kernels.split_at(kernels.len() - 2);
    let mut instances: Vec<Instance> = plain
        .iter()
        .map(|k| Instance::new(k, Pattern::For, &[]))
        .collect();
    for k in generic {
        for t in granule::kernel::DEVICE_SCALARS.chunks(1) {
            instances.push(Instance::new(k, Pattern::For, t));
        }
    }
    let unit = TranslationUnit::new(&instances).unwrap_or_else(|e| panic!("bin_sort.cu: {e}"));
    nvrtc::check_everywhere(unit.source(), "bin_sort.cu", unit.entries())
        .unwrap_or_else(|e| panic!("{e}"));
}

/// granule-mpi's packing kernels (generic over the element), instantiated
/// for every device scalar, compile for every target: on a GPU they pack
/// and unpack the strided Views that travel between ranks.
#[cfg(feature = "mpi")]
#[test]
fn the_mpi_packing_kernels_compile_for_every_device_scalar() {
    if !nvrtc_or_skip("the_mpi_packing_kernels_compile_for_every_device_scalar") {
        return;
    }
    let instances: Vec<Instance> = granule::mpi::pack::KERNELS
        .iter()
        .flat_map(|k| {
            granule::kernel::DEVICE_SCALARS
                .chunks(1)
                .map(move |t| Instance::new(k, Pattern::For, t))
        })
        .collect();
    assert_eq!(instances.len(), 6 * granule::kernel::DEVICE_SCALARS.len());
    let unit = TranslationUnit::new(&instances).unwrap_or_else(|e| panic!("mpi_pack.cu: {e}"));
    nvrtc::check_everywhere(unit.source(), "mpi_pack.cu", unit.entries())
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Kernels of every pattern and policy as the examples write them: the
/// representative set whose ptxas resources the table below reports.
const REPRESENTATIVE_KERNELS: &[&DeviceKernel] = kernel_list![
    example_kernels::axpy,
    example_kernels::dot,
    example_kernels::prefix_squares,
    example_kernels::smooth,
    tutorial_stream::stream_triad,
    tutorial_mdrange::mdrange_yax,
    tutorial_heat3d::heat_inner,
    tutorial_team_policy::team_policy_yax,
    tutorial_team_vector_loop::team_vector_yax,
    tutorial_team_scratch_memory::team_scratch_yax,
    tutorial_histogram::histogram_count,
];

/// ptxas's registers, spills, stack and static shared memory for sm_90 of
/// each representative kernel in its pattern's driver (the first reducer
/// that applies), with the H100 occupancy of the range drivers' 256-thread
/// block, printed
/// with `--nocapture`; none may spill.
#[test]
fn gpu_resources_of_representative_kernels() {
    if !nvrtc_or_skip("gpu_resources_of_representative_kernels") {
        return;
    }
    let kernels = REPRESENTATIVE_KERNELS
        .iter()
        .chain(granule::algorithms::sparse::SPMV_KERNELS);
    let instances: Vec<Instance> = kernels
        .map(|k| Instance::new(k, patterns(k).swap_remove(0), &[]))
        .collect();
    let unit = TranslationUnit::new(&instances).unwrap_or_else(|e| panic!("kernels.cu: {e}"));
    let report =
        nvrtc::resources(unit.source(), "kernels.cu", 90).unwrap_or_else(|e| panic!("{e}"));
    println!("kernels.cu, sm_90: {}", nvrtc::TABLE_COLUMNS);
    for entry in unit.entries() {
        let r = report
            .iter()
            .find(|r| &r.entry == entry)
            .unwrap_or_else(|| panic!("ptxas reported nothing for {entry}"));
        println!("{}", r.table_row(256, 0));
        assert!(!r.spills(), "{entry} spills: {r:?}");
    }
}
