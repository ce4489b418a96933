//! The containers keep the write model: what safe code must not be able
//! to do with them does not compile. Each case in `tests/ui_containers/`
//! is a way a ScatterView or a UniqueToken's per-id rows could be
//! written outside their rules.

#[test]
fn containers_cannot_be_written_outside_their_rules() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_containers/*.rs");
}
