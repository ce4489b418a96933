//! Issue 14: what the types now reject on Cuda. Each case was a working
//! exploit on the emulator with safe code only (the file's comment names
//! the hole); the run-time holes are covered by `dispatch.rs` and the
//! conformance suite's `soundness.rs`.

#[test]
fn unsound_cuda_programs_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_cuda_soundness/*.rs");
}
