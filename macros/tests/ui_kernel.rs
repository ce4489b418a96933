//! Code outside the kernel subset is a compile error at its span, with a
//! message naming what is unsupported.

#[test]
fn unsupported_kernel_code_is_rejected() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_kernel/*.rs");
}
