//! Shared by the NVRTC tests (the skip-or-fail policy is
//! `granule_cuda::nvrtc::available_or_skip`):
//! compile a unit for every target the framework supports.

#![allow(dead_code)]

use granule_cuda::nvrtc::{self, Output, Target};

/// Every target a kernel must compile for.
pub const TARGETS: [Target; 4] = [
    Target::Ptx(80),
    Target::Ptx(90),
    Target::Cubin(80),
    Target::Cubin(90),
];

/// Compiles `source` for every target, panicking with the full error.
pub fn compile_everywhere(source: &str, program: &str) -> Vec<Output> {
    TARGETS
        .iter()
        .map(|&t| nvrtc::compile(source, program, t, &[]).unwrap_or_else(|e| panic!("{t:?}: {e}")))
        .collect()
}

/// Checks that PTX outputs name every entry point and CUBINs are ELF.
pub fn assert_outputs(outputs: &[Output], entries: &[String]) {
    for (t, out) in TARGETS.iter().zip(outputs) {
        match t {
            Target::Ptx(_) => {
                let ptx = std::str::from_utf8(&out.bytes).expect("PTX is text");
                for e in entries {
                    assert!(ptx.contains(&format!(".entry {e}(")), "{t:?}: no entry {e}");
                }
            }
            Target::Cubin(_) => assert_eq!(&out.bytes[..4], b"\x7fELF", "{t:?}: CUBIN is not ELF"),
        }
    }
}
