//! `reshape_map!` input that must not compile, each with a clear message
//! pointing at the offending tokens.

#[test]
fn reshape_map_rejects_bad_layouts() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
