//! Golden tests: each `tests/golden/<name>.rs` holds `#[kernel]` and
//! `#[device]` items; their translations, concatenated, must equal
//! `tests/golden/<name>.cu`. `UPDATE_GOLDEN=1` rewrites the `.cu` files, so
//! every codegen change shows up in review as a diff.

use super::{translate_const, translate_device, translate_kernel};
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn has_attr(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs.iter().any(|a| a.path().is_ident(name))
}

/// The translation of a golden input's `#[kernel(..)]` function: a
/// kernel of the pattern it names, or an element function.
fn translate_kernel_fn(f: &syn::ItemFn) -> super::errors::Result<super::Translated> {
    let args = f
        .attrs
        .iter()
        .find(|a| a.path().is_ident("kernel"))
        .and_then(|a| a.meta.require_list().ok())
        .map(|l| l.tokens.clone())
        .unwrap_or_default();
    let args = super::emit::kernel_args(args).expect("valid #[kernel] arguments");
    match args.element_arity(f)? {
        Some(arity) => super::element::translate_element(f, arity),
        None => translate_kernel(f, args.pattern),
    }
}

/// The C++ of every marked item of a golden input, in order.
fn translate_file(src: &str) -> Result<String, String> {
    let file: syn::File = syn::parse_str(src).map_err(|e| e.to_string())?;
    let mut out = String::new();
    for item in &file.items {
        let t = match item {
            syn::Item::Fn(f) if has_attr(&f.attrs, "kernel") => translate_kernel_fn(f),
            syn::Item::Fn(f) if has_attr(&f.attrs, "device") => translate_device(f),
            syn::Item::Const(c) if has_attr(&c.attrs, "device") => translate_const(c),
            syn::Item::Struct(s) if has_attr(&s.attrs, "device") => {
                super::structs::translate_struct(s)
            }
            syn::Item::Impl(i) if has_attr(&i.attrs, "device") => {
                super::reducer::translate_reducer(i)
            }
            _ => continue,
        };
        let t = t.map_err(|e| e.to_string())?;
        out.push_str(&format!("// {}\n{}\n", t.name, t.source));
    }
    Ok(out)
}

#[test]
fn golden_translations() {
    let update = std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 6, "golden inputs are missing");
    let mut failures = Vec::new();
    for input in inputs {
        let src = std::fs::read_to_string(&input).expect("readable input");
        let got = translate_file(&src).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
        let golden = input.with_extension("cu");
        if update {
            std::fs::write(&golden, &got).expect("writable golden file");
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        if got != want {
            failures.push(format!("{} differs; got:\n{got}", golden.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(rerun with UPDATE_GOLDEN=1 to accept)",
        failures.join("\n")
    );
}

fn kernel_source(src: &str) -> String {
    let f: syn::ItemFn = syn::parse_str(src).expect("valid Rust");
    translate_kernel_fn(&f)
        .unwrap_or_else(|e| panic!("{e}"))
        .source
}

fn kernel_error(src: &str) -> String {
    let f: syn::ItemFn = syn::parse_str(src).expect("valid Rust");
    match translate_kernel_fn(&f) {
        Ok(t) => panic!("translated, but should not have:\n{}", t.source),
        Err(e) => e.to_string(),
    }
}

#[test]
fn f32_kernels_never_use_double_literals() {
    let s = kernel_source(
        "fn k(i: usize, y: &mut f32, x: &View1<f32>) { let mut acc = 0.0; acc += x[i] * 0.5; *y = acc + 1.0 + -2.5e-3; }",
    );
    assert!(s.contains("granule::f32 acc = 0.0f;"), "{s}");
    assert!(
        s.contains("0.5f") && s.contains("1.0f") && s.contains("-2.5e-3f"),
        "{s}"
    );
    assert!(!s.contains("granule::f64"), "{s}");
}

#[test]
fn a_tuple_let_of_a_tuple_of_values_evaluates_them_all_first() {
    let s = kernel_source(
        "fn k(i: usize, y: &mut f64, a: f64, b: f64) { let (mut p, q, _) = (b, a, 1.0); let (p2, q2) = (q, p); p += p2 - q2; *y = p; }",
    );
    // The swap reads `q` and `p` before either new name is bound.
    let first = s.find("= q;").expect("q read into a temporary");
    let bound = s.find("p2 = ").expect("p2 bound");
    assert!(first < bound, "{s}");
    assert!(s.contains("granule::f64 p = "), "{s}");
    assert!(!s.contains("const granule::f64 p = "), "p is mut: {s}");
}

#[test]
fn literal_types_flow_backwards_from_later_uses() {
    // `k` is only known to be usize when it indexes the View.
    let s = kernel_source("fn k(i: usize, y: &mut f64, x: &View1<f64>) { let k = 3; *y = x[k]; }");
    assert!(s.contains("const granule::usize k = 3ull;"), "{s}");
}

#[test]
fn unconstrained_literals_take_rust_defaults() {
    let s = kernel_source(
        "fn k(i: usize, y: &mut f64) { let a = 7; let b = 1.5; *y = b * (a as f64); }",
    );
    assert!(s.contains("const granule::i32 a = 7;"), "{s}");
    assert!(s.contains("const granule::f64 b = 1.5;"), "{s}");
}

#[test]
fn signed_arithmetic_wraps_and_division_is_checked() {
    let s = kernel_source("fn k(i: usize, y: &mut i64, a: i64, b: u32) { *y = (a + a * a - a) / a % a; let c = b + b / b; }");
    assert!(s.contains("granule::wadd(a, granule::wmul(a, a))"), "{s}");
    assert!(s.contains("granule::rem(granule::div(("), "{s}");
    // Unsigned + wraps natively; unsigned division still traps on zero.
    assert!(s.contains("(b + granule::div(b, b))"), "{s}");
}

#[test]
fn float_to_int_casts_saturate_and_int_casts_wrap() {
    let s = kernel_source(
        "fn k(i: usize, y: &mut i32, x: f64, n: i64) { *y = (x as i32) + (n as i32); }",
    );
    assert!(s.contains("granule::cast<granule::i32>(x)"), "{s}");
    assert!(s.contains("((granule::i32)(n))"), "{s}");
}

#[test]
fn extreme_integer_literals_are_valid_cpp() {
    let s = kernel_source("fn k(i: usize, y: &mut i64) { let a = -9223372036854775808i64; let b = -2147483648i32; let c = u64::MAX; }");
    assert!(s.contains("((granule::i64)-9223372036854775808ull)"), "{s}");
    assert!(s.contains("granule::Num<granule::u64>::max_value()"), "{s}");
}

#[test]
fn unsupported_constructs_name_themselves() {
    for (src, what) in [
        ("fn k(i: usize) { let v = vec![1]; }", "a macro call"),
        (
            "fn k(i: usize, x: &View1<f64>) { let s = x.iter().sum::<f64>(); }",
            "the method `iter`",
        ),
        ("fn k(i: usize, x: String) {}", "this type"),
        ("fn k(i: usize) { match i { _ => {} } }", "`match`"),
        (
            "fn k(i: usize, x: &View1<f64>) { x[i] = 1.0; }",
            "read-only",
        ),
        (
            "fn k(i: usize) { let f = |a: f64| a; }",
            "a closure outside",
        ),
        ("fn k(x: f64) {}", "the first parameter"),
        ("fn k(i: usize, x: &View2<f64>) { let a = x[i]; }", "rank 2"),
        ("fn k(i: usize) { 'o: loop { break 'o; } }", "labelled"),
        (
            "fn k(i: usize, y: &mut f32, x: f64) { *y = x; }",
            "mismatched types",
        ),
    ] {
        let e = kernel_error(src);
        assert!(e.contains(what), "{src}: `{e}` does not mention `{what}`");
    }
}

#[test]
fn assertion_messages_record_scalar_arguments() {
    let s = kernel_source(
        "fn k(i: usize, y: &mut i64, x: &View1<f32>, n: usize) { \
         assert!(i < n, \"{{i}} {i} of {:?} x={x:?} {:>4} {w} {} {} {}\", n, i, 1, 2.5, 3, w = x[i] > 0.0); \
         assert_eq!(i, n, \"at {}\", i); }",
    );
    // Values are evaluated only once the condition fails; literal braces
    // and the placeholders the device leaves alone (a View, a width, the
    // values past four) are doubled in the template.
    assert!(
        s.contains(
            "(!((i < n)) ? granule::assert_fail(\"<parsed string 1>:1:57: kernel `k`: \
             {{i}} {} of {:\\?} x={{x:\\?}} {{:>4}} {} {} {{}} {{}}\", 1u, 4u, \
             granule::assert_arg(i), granule::assert_arg(n), granule::assert_arg((x(i) > 0.0f)), \
             granule::assert_arg(1)) : (void)0)"
        ),
        "{s}"
    );
    // assert_eq! keeps the condition, appends the message and records both
    // operands, bound once.
    assert!(
        s.contains(
            "const auto left_g1 = i; const auto right_g2 = n; if (!(left_g1 == right_g2)) \
             granule::assert_fail(\"<parsed string 1>:1:"
        ),
        "{s}"
    );
    assert!(
        s.contains(
            "assertion failed: i == n: at {}\\n  left: {:\\?}\\n right: {:\\?}\", 1u, 3u, \
             granule::assert_arg(i), granule::assert_arg(left_g1), granule::assert_arg(right_g2)); }()"
        ),
        "{s}"
    );
}

#[test]
fn assertions_without_values_keep_the_message_as_text() {
    let s = kernel_source(
        "fn k(i: usize, y: &mut i64, n: usize) { assert!(i < n); assert!(i < n, \"{{literal}} {:x}\", i); }",
    );
    assert!(
        s.contains("granule::check((i < n), \"<parsed string 1>:1:41: kernel `k`: assertion failed: i < n\", 1u)"),
        "{s}"
    );
    assert!(
        s.contains(
            "granule::check((i < n), \"<parsed string 1>:1:57: kernel `k`: {literal} {:x}\", 1u)"
        ),
        "{s}"
    );
}

fn device_error(src: &str) -> String {
    let f: syn::ItemFn = syn::parse_str(src).expect("valid Rust");
    match translate_device(&f) {
        Ok(t) => panic!("translated, but should not have:\n{}", t.source),
        Err(e) => e.to_string(),
    }
}

#[test]
fn narrow_integer_arithmetic_never_overflows_int() {
    // u16 * u16 is computed in `int` by C++: 65535 * 65535 overflows it.
    let s = kernel_source(
        "fn k(i: usize, y: &mut u16, a: u16, b: u8) { let mut p = a * a; p *= a; p -= a; *y = p + (b + b) as u16; }",
    );
    assert!(s.contains("granule::u16 p = granule::wmul(a, a);"), "{s}");
    assert!(s.contains("p = granule::wmul(p, a);"), "{s}");
    assert!(s.contains("p = granule::wsub(p, a);"), "{s}");
    assert!(s.contains("granule::wadd(b, b)"), "{s}");
}

#[test]
fn i32_min_is_a_valid_int_literal() {
    // `-2147483648` is `-(2147483648)`, a `long` in C++, which would not
    // deduce together with an `int` in the header's templates.
    let s = kernel_source(
        "fn k(i: usize, y: &mut i32, a: i32) { *y = a.max(-2147483648) + -2147483647; }",
    );
    assert!(s.contains("((granule::i32)-2147483648ull)"), "{s}");
    assert!(
        s.contains("+ -2147483647") || s.contains(", -2147483647)"),
        "{s}"
    );
}

#[test]
fn literals_inside_device_calls_leave_no_inference_markers() {
    // The `1` among `helper`'s arguments gives its type to the decltype
    // that the `3` next to the call takes as its type.
    let s = kernel_source(
        "fn k(i: usize, y: &mut i64, n: i64) { *y = helper(1) * 3 - helper(n - 1) * 2; }",
    );
    assert!(!s.contains('\u{1}'), "{s:?}");
    assert!(
        s.contains("((granule::Plain<decltype(helper(granule::val<granule::i32>()))>)3ull)"),
        "{s}"
    );
    assert!(
        s.contains("((granule::Plain<decltype(helper(granule::val<granule::i64>()))>)2ull)"),
        "{s}"
    );
}

#[test]
fn a_device_function_calling_itself_is_rejected() {
    let e = device_error("fn fact(n: u64) -> u64 { if n == 0 { 1 } else { n * fact(n - 1) } }");
    assert!(
        e.contains("`fact` calls itself") && e.contains("loop"),
        "{e}"
    );
    // Another function of the same unit is fine.
    let f: syn::ItemFn = syn::parse_str("fn twice(n: u64) -> u64 { halve(n) * 4 }").unwrap();
    assert!(translate_device(&f).is_ok());
}

#[test]
fn methods_outside_the_subset_name_the_receiver_type() {
    for (src, what) in [
        (
            "fn k(i: usize, y: &mut u32, x: f64) { *y = x.count_ones(); }",
            "the method `count_ones` on `f64`",
        ),
        (
            "fn k(i: usize, y: &mut u32, x: u32) { *y = x.abs(); }",
            "the method `abs` on `u32`",
        ),
        (
            "fn k(i: usize, y: &mut f64, x: f64) { *y = x.sin_cos(); }",
            "the method `sin_cos` on `f64`",
        ),
        (
            "fn k(i: usize, y: &mut i32, x: i32) { let c = x.checked_add(1); *y = 0; }",
            "`checked_add` returns an Option",
        ),
        (
            "fn k(i: usize, y: &mut i32, x: i32) { *y = x.wrapping_add(1, 2); }",
            "`wrapping_add` takes 1 argument(s)",
        ),
        (
            "fn k(i: usize, y: &mut i32, x: i32, m: usize) { *y = x.checked_add(1).expect(m); }",
            "an `expect` message other than a string literal",
        ),
        (
            "fn k(i: usize, y: &mut i32, x: i32) { let (a, b, c) = x.overflowing_add(1); *y = a; }",
            "the tuple has 2 fields",
        ),
    ] {
        let e = kernel_error(src);
        assert!(e.contains(what), "{src}: `{e}` does not mention `{what}`");
    }
}

#[test]
fn scalar_methods_take_the_argument_types_rust_gives_them() {
    let s = kernel_source(
        "fn k(i: usize, y: &mut i64, a: i64, f: f32) { \
         let (v, _) = a.overflowing_shl(70); \
         *y = v.wrapping_pow(3) + i64::rotate_right(a, 65) + (f.powi(-2).to_bits() as i64) \
         + a.checked_mul(a).unwrap_or_default() + a.leading_zeros() as i64; }",
    );
    // u32 shift amounts and exponents, an i32 power, u32 bits.
    assert!(s.contains("granule::overflowing_shl(a, 70u)"), "{s}");
    assert!(s.contains("granule::wrapping_pow(v, 3u)"), "{s}");
    assert!(s.contains("granule::rotate_right(a, 65u)"), "{s}");
    assert!(s.contains("granule::powi(f, -2)"), "{s}");
    assert!(
        s.contains("granule::unwrap_or(granule::checked_mul(a, a), ((granule::i64)0ull))"),
        "{s}"
    );
    assert!(
        s.contains("const granule::i64 v = granule::get<0>(tuple_g1);"),
        "{s}"
    );
}

#[test]
fn a_block_among_a_calls_arguments_still_gives_the_call_a_type() {
    // A block among a `#[device]` call's arguments is a lambda, which
    // C++17 keeps out of `decltype`; the result type is spelled from the
    // block's type instead, so the arithmetic on it wraps in that type.
    let s = kernel_source(
        "fn k(i: usize, y: &mut i64, n: i64) { let v = helper({ let t = n; t * 2 }); *y = -(v * 3 + v); }",
    );
    assert!(
        s.contains(
            "const granule::Plain<decltype(helper(granule::val<granule::i64>()))> v = helper([&]()"
        ),
        "{s}"
    );
    assert!(s.contains("granule::wadd(granule::wmul(v, "), "{s}");
    assert!(s.contains("granule::wneg("), "{s}");
}

#[test]
fn an_untyped_let_before_a_loop_names_no_variable_of_the_loop() {
    // The C++ declares `acc` ahead of the loop, with the type of the call
    // that later meets it; that type must not name `d` or `j`.
    let s = kernel_source(
        "fn k(i: usize, y: &mut f64, x: &View1<f64>, n: usize) { let mut acc = 0.0; for j in 0..n { let d = x[j]; acc += helper(d, j); } *y = acc; }",
    );
    let decl = s
        .lines()
        .find(|l| l.contains(" acc = "))
        .expect("acc declared");
    assert!(
        decl.contains(
            "decltype(helper(granule::val<granule::f64>(), granule::val<granule::usize>()))"
        ),
        "{s}"
    );
    assert!(
        s.contains("helper(d, j)"),
        "the call itself passes the values: {s}"
    );
}

#[test]
fn team_reductions_of_tuples_and_structs_name_their_reducers() {
    let m = kernel_source(
        "fn k(m: &TeamMember, h: &AtomicView<'_, f64, 1>) { let v = TeamThreadRange::new(m, 0..4).parallel_reduce(MeanOf, |j, p: &mut Mean| { p.count += 1; }); h.add(0, v.sum); }",
    );
    assert!(
        m.contains("granule::team_thread_reduce<MeanOf, Mean>("),
        "{m}"
    );
    let s = kernel_source(
        "fn k(m: &TeamMember, h: &AtomicView<'_, f64, 1>) { let (a, b) = m.team_reduce((Sum, Max), (1.0f64, 2u32)); h.add(0, a + b as f64); }",
    );
    assert!(
        s.contains("team_reduce<granule::Reducers<granule::Sum<granule::f64>, granule::Max<granule::u32>>, granule::Tuple<granule::f64, granule::u32>>(granule::Tuple<granule::f64, granule::u32>{1.0, {2u, {}}})"),
        "{s}"
    );
    for (src, message) in [
        (
            "fn k(m: &TeamMember, h: &AtomicView<'_, f64, 1>) { let (a, b) = m.team_reduce((Sum, Max, Sum), (1.0f64, 2.0f64)); }",
            "3 reducers for a tuple of 2 fields",
        ),
        (
            "fn k(m: &TeamMember, h: &AtomicView<'_, f64, 1>) { let (a, b) = m.team_reduce(Sum, (1.0f64, 2.0f64)); }",
            "a tuple accumulator is reduced by a tuple of 2 reducers",
        ),
        (
            "fn k(m: &TeamMember, h: &AtomicView<'_, f64, 1>) { let t = TeamThreadRange::new(m, 0..4).parallel_scan(|j, p: &mut (f64, f64), last: bool| {}); }",
            "a team-level scan of a tuple or a struct",
        ),
        (
            "fn k(m: &TeamMember, h: &AtomicView<'_, f64, 1>) { let v = TeamThreadRange::new(m, 0..4).parallel_reduce(Sum, |j, p: &mut Mean| {}); }",
            "`Sum` reduces scalars; a `Mean` accumulator takes its `#[device]` custom reducer",
        ),
    ] {
        let e = kernel_error(src);
        assert!(e.contains(message), "{src}: {e}");
    }
}
