//! What the types reject on Cuda, checked by compiling programs that must
//! fail (trybuild; the paths are relative to the crate's root):
//! - `ui_cuda_soundness/`: each program, in safe code only, would break
//!   the Cuda write model (each file's comment names the hole); the holes
//!   closed at run time are covered by `dispatch` and the conformance
//!   suite's `soundness.rs`;
//! - `ui_space/`: host access to device Views: indexing, writing, filling
//!   or slicing a `CudaSpace` View does not type-check, because
//!   `CudaSpace` is not `HostAccessible`. Neither does a safe
//!   implementation of the `Device` trait, whose word about device memory
//!   safe code trusts.

#[test]
fn unsound_cuda_programs_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_cuda_soundness/*.rs");
}

#[test]
fn host_access_to_device_views_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_space/*.rs");
}
