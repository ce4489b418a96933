//! Misuse of the containers that must not compile: inserting into a map
//! through a shared borrow, reading values while inserts may add to them,
//! an inserter outliving its map or its map being cleared under it,
//! atomic adds to values without atomics, inserting into device memory
//! from the host, and writing a DualView side without marking it.

#[test]
fn container_misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
