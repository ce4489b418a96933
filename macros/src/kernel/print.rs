//! `print!`, `println!`, `eprint!` and `eprintln!` in kernels: the host
//! keeps Rust's macros (the body is unchanged); the device makes one call
//! to CUDA's `printf` per macro, so that a thread's line stays whole among
//! the others' (a GPU has no standard error: the `e` forms print to its
//! output too). Each placeholder becomes the conversion that prints its
//! value as the host does, where the type allows:
//! - integers and `bool` with `{}` or `{:?}`: the same text;
//! - floats with a precision, `{:.3}`: `%.3f`, the same digits;
//! - floats with `{}` or `{:?}`: `%.17g` (f64) or `%.9g` (f32), digits
//!   that read back as the same value, where the host prints the fewest
//!   such digits (a GPU's `printf` has no shortest form);
//! - any other placeholder, or one whose value is not a scalar, stays in
//!   the text as written.

use super::assert::{argument, cpp_escape, parse_format, FormatPiece};
use super::cx::Cx;
use super::errors::{error_at, Result};
use super::types::Scalar;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Token};

impl Cx {
    /// The C++ `printf` call of a print macro; `newline` for the `ln`
    /// forms.
    pub(super) fn print_macro(&mut self, mac: &syn::Macro, newline: bool) -> Result<String> {
        let args = mac
            .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            .map_err(|e| error_at(e.span(), format!("#[kernel]: {e}")))?;
        let args: Vec<&Expr> = args.iter().collect();
        let format = match args.first() {
            None => String::new(),
            Some(Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) => s.value(),
            Some(other) => {
                return Err(error_at(
                    other.span(),
                    "#[kernel]: a print macro's first argument is its format string, a literal",
                ))
            }
        };
        let rest = args.get(1..).unwrap_or_default();
        let mut text = String::new();
        let mut values = Vec::new();
        for piece in parse_format(&format) {
            match piece {
                FormatPiece::Lit(s) => text.push_str(&percent_escape(&s)),
                FormatPiece::Slot {
                    arg,
                    spec,
                    text: written,
                    ..
                } => {
                    let value = argument(&arg, rest).and_then(|e| self.scalar(&e));
                    match value.and_then(|(v, s)| conversion(s, &spec).map(|c| (v, s, c))) {
                        Some((v, s, c)) => {
                            text.push_str(&c);
                            values.push(printf_arg(&v, s));
                        }
                        None => text.push_str(&percent_escape(&written)),
                    }
                }
            }
        }
        if newline {
            text.push('\n');
        }
        let args: String = values.iter().map(|v| format!(", {v}")).collect();
        Ok(format!("(void)printf(\"{}\"{args})", cpp_escape(&text)))
    }

    /// An expression's C++ text and scalar type, or `None` when it is not
    /// a scalar the device prints.
    fn scalar(&mut self, e: &Expr) -> Option<(String, Scalar)> {
        let (v, elem) = self.value(e).ok()?;
        Some((v, self.infer.final_scalar(&elem)?))
    }
}

/// The `printf` conversion that prints a value of type `s` as the host
/// prints it with the placeholder spec `spec`, where there is one.
fn conversion(s: Scalar, spec: &str) -> Option<String> {
    let float = matches!(s, Scalar::F32 | Scalar::F64);
    match spec {
        "" | "?" if float => Some(if s == Scalar::F64 { "%.17g" } else { "%.9g" }.into()),
        "" | "?" if s == Scalar::Bool => Some("%s".into()),
        "" | "?" if signed(s) => Some("%lld".into()),
        "" | "?" => Some("%llu".into()),
        _ if float => {
            let digits = spec.strip_prefix('.')?;
            let n: u32 = digits.parse().ok()?;
            Some(format!("%.{n}f"))
        }
        _ => None,
    }
}

fn signed(s: Scalar) -> bool {
    matches!(
        s,
        Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64 | Scalar::Isize
    )
}

/// The argument `printf` reads for the conversion of [`conversion`]: every
/// integer widened to 64 bits, floats to `double` (as C's variadic calls
/// promote them), `bool` as its word.
fn printf_arg(v: &str, s: Scalar) -> String {
    match s {
        Scalar::F32 | Scalar::F64 => format!("(double)({v})"),
        Scalar::Bool => format!("(({v}) ? \"true\" : \"false\")"),
        s if signed(s) => format!("(long long)({v})"),
        _ => format!("(unsigned long long)({v})"),
    }
}

/// Literal text in a `printf` format: `%` doubled.
fn percent_escape(s: &str) -> String {
    s.replace('%', "%%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_scalar_takes_the_conversion_that_prints_it_as_the_host_does() {
        assert_eq!(conversion(Scalar::I32, "").as_deref(), Some("%lld"));
        assert_eq!(conversion(Scalar::Usize, "?").as_deref(), Some("%llu"));
        assert_eq!(conversion(Scalar::Bool, "").as_deref(), Some("%s"));
        assert_eq!(conversion(Scalar::F64, "").as_deref(), Some("%.17g"));
        assert_eq!(conversion(Scalar::F32, "").as_deref(), Some("%.9g"));
        assert_eq!(conversion(Scalar::F64, ".3").as_deref(), Some("%.3f"));
        assert_eq!(conversion(Scalar::F64, ">8").as_deref(), None);
        assert_eq!(conversion(Scalar::U8, "x").as_deref(), None);
        assert_eq!(conversion(Scalar::I64, ".3").as_deref(), None);
        assert_eq!(printf_arg("x", Scalar::U32), "(unsigned long long)(x)");
        assert_eq!(
            printf_arg("b", Scalar::Bool),
            "((b) ? \"true\" : \"false\")"
        );
        assert_eq!(percent_escape("100%"), "100%%");
    }
}
