//! The write path is sound by its types: what safe code must not be able
//! to do does not compile (issue 9). Each case in `tests/ui_soundness/`
//! was a working exploit before write parts carried their borrow's
//! lifetime, stopped being `Copy`, and the backend entry points became
//! `unsafe`.

#[test]
fn unsound_uses_of_the_write_path_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_soundness/*.rs");
}
