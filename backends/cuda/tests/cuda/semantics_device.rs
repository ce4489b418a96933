//! Device-side semantics that need no GPU, checked where the device code
//! is made:
//! - recursion: a `#[device]` function calling itself is a compile error
//!   (the macros' `ui_device` test); functions that call each other are
//!   refused when the translation unit is assembled, and could not compile
//!   anyway, since the unit declares nothing ahead of its definitions;
//! - the PTX NVRTC makes of float negation, `abs` and `copysign` changes
//!   only the sign bit (integer instructions), so NaN payloads survive as
//!   Rust guarantees, where PTX's `neg.f32`/`abs.f32` leave a NaN's bits
//!   unspecified;
//! - 8- and 16-bit arithmetic is computed in 32 bits and truncated.

// The kernels are used through their generated statics.
#![allow(dead_code)]

use granule::prelude::*;
use granule_cuda::codegen::{Instance, Pattern, TranslationUnit};
use granule_cuda::nvrtc::{self, available_or_skip as nvrtc_or_skip, Target};

#[device]
fn ping(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        pong(n - 1)
    }
}

#[device]
fn pong(n: u32) -> u32 {
    if n == 0 {
        1
    } else {
        ping(n - 1)
    }
}

#[kernel]
fn bounce(i: usize, y: &mut u32) {
    *y = ping(i as u32);
}

#[test]
fn functions_that_call_each_other_are_refused() {
    // The host runs them (Rust has a stack for it).
    let mut y = 7;
    bounce::body(3, &mut y);
    assert_eq!(y, 1);
    let e = TranslationUnit::new(&[Instance::new(&__GRANULE_KERNEL_bounce, Pattern::For, &[])])
        .expect_err("mutual recursion is refused");
    assert_eq!(e.kernel, "bounce");
    assert!(
        e.message.contains("ping -> pong -> ping") && e.message.contains("recursion"),
        "{e}"
    );
}

#[test]
fn functions_that_call_each_other_could_not_compile_anyway() {
    if !nvrtc_or_skip("functions_that_call_each_other_could_not_compile_anyway") {
        return;
    }
    // The unit as it would be without the check: callees first, so one of
    // the two calls names a function not declared yet.
    let source = format!(
        "{}\n{}\n{}",
        granule_cuda::device::HEADER,
        __GRANULE_DEVICE_pong.source,
        __GRANULE_DEVICE_ping.source
    );
    let e = nvrtc::compile(&source, "recursion.cu", Target::Ptx(90), &[])
        .expect_err("an undeclared function");
    let log = e.to_string();
    assert!(log.contains("identifier \"ping\" is undefined"), "{log}");
}

#[kernel]
fn signs(i: usize, y: &mut f32, z: &mut f64, x: &View1<f32>, w: &View1<f64>) {
    *y = -x[i] + x[i].abs().copysign(x[i + 1]);
    *z = -w[i] + w[i].abs().copysign(w[i + 1]);
}

#[kernel]
fn narrow_mul(i: usize, y: &mut u16, x: &View1<u16>) {
    *y = x[i] * x[i + 1];
}

/// The instructions of entry `name`.
fn entry<'p>(ptx: &'p str, name: &str) -> &'p str {
    let start = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("no entry {name}"));
    let rest = &ptx[start..];
    &rest[..rest.find("\n}\n").expect("an entry ends")]
}

fn ptx_of(instances: &[Instance]) -> String {
    let unit = TranslationUnit::new(instances).unwrap();
    let out = nvrtc::compile(unit.source(), "semantics.cu", Target::Ptx(90), &[]).unwrap();
    String::from_utf8(out.bytes).expect("PTX is text")
}

#[test]
fn float_sign_operations_change_only_the_sign_bit() {
    if !nvrtc_or_skip("float_sign_operations_change_only_the_sign_bit") {
        return;
    }
    let ptx = ptx_of(&[Instance::new(&__GRANULE_KERNEL_signs, Pattern::For, &[])]);
    let body = entry(&ptx, "granule_for_signs");
    for op in ["neg.f32", "abs.f32", "neg.f64", "abs.f64"] {
        assert!(!body.contains(op), "{op} in:\n{body}");
    }
    assert!(
        body.contains("xor.b32") || body.contains("xor.b64"),
        "{body}"
    );
    assert!(
        body.contains("and.b32") || body.contains("and.b64"),
        "{body}"
    );
}

#[test]
fn narrow_products_are_computed_in_32_bits_and_truncated() {
    if !nvrtc_or_skip("narrow_products_are_computed_in_32_bits_and_truncated") {
        return;
    }
    let ptx = ptx_of(&[Instance::new(
        &__GRANULE_KERNEL_narrow_mul,
        Pattern::For,
        &[],
    )]);
    let body = entry(&ptx, "granule_for_narrow_mul");
    // 16-bit loads, a 32-bit (or 16-bit) low product, a 16-bit store: the
    // wrapped product, never a widened one.
    assert!(body.contains("ld.global.u16"), "{body}");
    assert!(
        body.contains("mul.lo.s32")
            || body.contains("mul.lo.u32")
            || body.contains("mul.lo.s16")
            || body.contains("mul.lo.u16")
            || body.contains("mul.wide.u16"),
        "{body}"
    );
    assert!(body.contains("st.global.u16"), "{body}");
}
