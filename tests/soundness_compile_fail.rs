//! The write path is sound by its types: what safe code must not be able
//! to do does not compile. Each case in `tests/ui_soundness/` would be a
//! working exploit if write parts did not carry their borrow's lifetime,
//! were `Copy`, or if the backend entry points were not `unsafe`.

#[test]
fn unsound_uses_of_the_write_path_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_soundness/*.rs");
}
