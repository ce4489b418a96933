//! What the element traits and the crate's privacy refuse: receiving into
//! a type that not every bit pattern is, sending padding, and forging a
//! packed message around memory the host cannot read.

#[test]
fn unsound_messages_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
