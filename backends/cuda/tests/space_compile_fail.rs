//! Host access to device Views is a compile error: indexing, writing,
//! filling or slicing a `CudaSpace` View does not type-check, because
//! `CudaSpace` is not `HostAccessible`. Neither does a safe implementation
//! of the `Device` trait, whose word about device memory safe code trusts.

#[test]
fn host_access_to_device_views_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_space/*.rs");
}
