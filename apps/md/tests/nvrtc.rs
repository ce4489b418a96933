//! Every kernel of the app, wrapped by the driver of its pattern (the
//! reductions with every reducer that applies to `f64`), compiles under
//! NVRTC to PTX and to CUBIN for sm_80 and sm_90: what a GPU would load.
//! Without NVRTC the test is skipped with a printed reason, unless
//! CI=true, where it fails.

use granule::kernel::ParamKind;
use granule_cuda::codegen::{Instance, Pattern, TranslationUnit};
use granule_cuda::nvrtc::{self, available_or_skip};
use granule_md::kernels::KERNELS;

#[test]
fn every_md_kernel_compiles_to_ptx_and_cubin_for_sm80_and_sm90() {
    if !available_or_skip("every_md_kernel_compiles_to_ptx_and_cubin_for_sm80_and_sm90") {
        return;
    }
    let instances: Vec<Instance> = KERNELS
        .iter()
        .flat_map(|k| {
            let acc = k
                .params
                .iter()
                .rev()
                .find(|p| p.kind == ParamKind::Out)
                .map_or("", |p| p.cpp);
            Pattern::all_for(k.pattern, acc)
                .into_iter()
                .map(move |p| Instance::new(k, p, &[]))
        })
        .collect();
    assert!(instances.len() >= KERNELS.len());
    let unit = TranslationUnit::new(&instances).unwrap_or_else(|e| panic!("md.cu: {e}"));
    nvrtc::check_everywhere(unit.source(), "md.cu", unit.entries())
        .unwrap_or_else(|e| panic!("{e}"));
}
