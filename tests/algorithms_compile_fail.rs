//! What the algorithms must refuse at compile time: Views of another
//! memory space than the execution space's (given to the algorithm or
//! captured by its element function), closures on Cuda (host code), and
//! element functions of other element types than the Views'; and an
//! element function whose body is rejected reports that alone at its
//! call sites.

#[cfg(feature = "cuda")]
#[test]
fn wrong_memory_spaces_and_closures_on_cuda_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_algorithms/*.rs");
}
