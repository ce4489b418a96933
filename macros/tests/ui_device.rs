//! A plain closure given where a device space's functor bound applies is a
//! compile error that says to write a `#[kernel]`.

#[test]
fn closures_are_rejected_on_device_spaces() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_device/*.rs");
}
