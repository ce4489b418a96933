//! Misuse that must not compile: indexing memory the host cannot reach,
//! and writing through a shared borrow.

#[test]
fn misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
