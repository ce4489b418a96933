//! What the algorithms must refuse at compile time: Views of another
//! memory space than the execution space's, and spaces without an
//! implementation (Cuda, until its device algorithms exist).

#[cfg(feature = "cuda")]
#[test]
fn wrong_memory_spaces_and_missing_device_algorithms_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_algorithms/*.rs");
}
