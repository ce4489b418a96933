//! Every kernel of the app, wrapped by the driver of its pattern (the
//! reductions with every reducer that applies to `f64`), compiles under
//! NVRTC to PTX and to CUBIN for sm_80 and sm_90: what a GPU would load.
//! Without NVRTC the test is skipped with a printed reason, unless
//! CI=true, where it fails.

use granule_cg::kernels::KERNELS;
use granule_cuda::nvrtc::{available_or_skip, check_kernels_everywhere};

#[test]
fn every_cg_kernel_compiles_to_ptx_and_cubin_for_sm80_and_sm90() {
    if !available_or_skip("every_cg_kernel_compiles_to_ptx_and_cubin_for_sm80_and_sm90") {
        return;
    }
    let compiled = check_kernels_everywhere(KERNELS, "cg.cu").unwrap_or_else(|e| panic!("{e}"));
    assert!(compiled >= KERNELS.len());
}
