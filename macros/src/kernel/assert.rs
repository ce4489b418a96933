//! `assert!`, `assert_eq!` and `assert_ne!`: the host keeps Rust's macros
//! (the body is unchanged); the device checks the condition and, when it
//! fails, records the message in the header's error record and traps.
//! Message arguments after the condition are host-only (they are not
//! formatted on the device).

use super::cx::Cx;
use super::errors::{error_at, unsupported, Result};
use super::types::{Elem, Scalar};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Token};

impl Cx {
    /// The C++ expression for one of the supported assertion macros;
    /// any other macro is a spanned error.
    pub fn assert_macro(&mut self, mac: &syn::Macro) -> Result<String> {
        let which = mac.path.get_ident().map(|i| i.to_string());
        let arity = match which.as_deref() {
            Some("assert") => 1,
            Some("assert_eq" | "assert_ne") => 2,
            _ => {
                return Err(unsupported(
                    mac,
                    "a macro call (only assert!, assert_eq!, assert_ne!)",
                ))
            }
        };
        let args = mac
            .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            .map_err(|e| error_at(e.span(), format!("#[kernel]: {e}")))?;
        if args.len() < arity {
            return Err(error_at(
                mac.span(),
                format!("#[kernel]: this assertion needs {arity} operand(s)"),
            ));
        }
        let args: Vec<&Expr> = args.iter().collect();
        let (cond, shown) = if arity == 1 {
            let c = self.value_as(args[0], &Elem::Scalar(Scalar::Bool))?;
            (c, rust_text(args[0]))
        } else {
            let (l, le) = self.value(args[0])?;
            let r = self.value_as(args[1], &le)?;
            let op = if which.as_deref() == Some("assert_eq") {
                "=="
            } else {
                "!="
            };
            (
                format!("({l} {op} {r})"),
                format!("{} {op} {}", rust_text(args[0]), rust_text(args[1])),
            )
        };
        let at = mac.path.span();
        let (line, column) = (at.start().line, at.start().column + 1);
        let message = format!(
            "{}:{line}:{column}: kernel `{}`: assertion failed: {shown}",
            at.file(),
            self.fn_name
        );
        Ok(format!(
            "granule::check({cond}, \"{}\", {line}u)",
            cpp_escape(&message)
        ))
    }
}

/// An expression as Rust text, for the device message.
fn rust_text(e: &Expr) -> String {
    quote::ToTokens::to_token_stream(e).to_string()
}

/// `s` as the body of a C++ string literal.
fn cpp_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '?' => out.push_str("\\?"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c if c.is_ascii() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
