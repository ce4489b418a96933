//! Chunk misuse that must not compile: taking parts of memory the host
//! cannot reach, chaining scopes whose ends do not meet, and writing
//! through a part that is not thread level.

#[test]
fn chunk_misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/chunk_ui/*.rs");
}
