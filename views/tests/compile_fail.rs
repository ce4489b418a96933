//! Misuse that must not compile: indexing, or atomic operations on,
//! memory the host cannot reach, and writing through a shared borrow.

#[test]
fn misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
