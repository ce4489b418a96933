//! `assert!`, `assert_eq!` and `assert_ne!`: the host keeps Rust's macros
//! (the body is unchanged); the device checks the condition and, when it
//! fails, records the message in the header's error record and traps.
//!
//! A custom message is translated too, so that the device reports what the
//! host would print: its scalar arguments (at most [`MAX_VALUES`]) are
//! recorded beside the message, which keeps a `{}` or `{:?}` where each
//! goes and escapes its literal braces, and the host substitutes them
//! (`take_fault` in the emulator). A placeholder the host would render
//! differently (width, precision, `{:x}`, ..), one with a value that is not
//! a scalar, or one past the limit stays in the message as written. The
//! arguments are evaluated only when the condition fails, as in Rust; a
//! message without recorded values is stored already rendered, so the host
//! never unescapes the text of an assertion without arguments.

use super::cx::{Cx, Frame};
use super::errors::{error_at, unsupported, Result};
use super::types::{Elem, Scalar};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Token};

/// Message placeholders recorded per assertion (the header's
/// `ErrorRecord::args` holds two more, for assert_eq!/assert_ne!'s
/// operands).
pub const MAX_VALUES: usize = 4;

impl Cx {
    /// The C++ expression for one of the supported assertion macros;
    /// any other macro is a spanned error.
    pub fn assert_macro(&mut self, mac: &syn::Macro) -> Result<String> {
        let which = mac.path.get_ident().map(|i| i.to_string());
        let arity = match which.as_deref() {
            Some("assert") => 1,
            Some("assert_eq" | "assert_ne") => 2,
            Some("print" | "eprint") => return self.print_macro(mac, false),
            Some("println" | "eprintln") => return self.print_macro(mac, true),
            _ => {
                return Err(unsupported(
                    mac,
                    "a macro call (only assert!, assert_eq!, assert_ne!, print!, println!, \
                     eprint!, eprintln!)",
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
        let (prefix, line) = self.site(mac.path.span());
        let format = match args.get(arity) {
            Some(Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) => Some(s.value()),
            _ => None,
        };
        if arity == 1 {
            let cond = self.value_as(args[0], &Elem::Scalar(Scalar::Bool))?;
            let Some(format) = format else {
                let message = format!("{prefix}assertion failed: {}", rust_text(args[0]));
                return Ok(check(&cond, &message, line));
            };
            // Rust prints the custom message instead of the condition.
            let mut pieces = vec![Piece::Lit(prefix)];
            let values = self.message(&format, &args[2..], &mut pieces);
            let message = render(&pieces, !values.is_empty());
            if values.is_empty() {
                return Ok(check(&cond, &message, line));
            }
            return Ok(format!(
                "(!({cond}) ? {} : (void)0)",
                assert_fail(&message, line, &values)
            ));
        }
        let (l, le) = self.value(args[0])?;
        let r = self.value_as(args[1], &le)?;
        let op = if which.as_deref() == Some("assert_eq") {
            "=="
        } else {
            "!="
        };
        let shown = format!(
            "{prefix}assertion failed: {} {op} {}",
            rust_text(args[0]),
            rust_text(args[1])
        );
        let Some(format) = format else {
            return Ok(check(&format!("({l} {op} {r})"), &shown, line));
        };
        let scalar = self.infer.final_scalar(&le).is_some();
        let mut pieces = vec![Piece::Lit(format!("{shown}: "))];
        // The operands are bound once inside a lambda when they are
        // recorded, where `return`, `break` and `continue` would change
        // meaning.
        let saved = self.frame;
        if scalar {
            self.frame = Frame {
                loops: 0,
                in_value_block: true,
            };
        }
        let mut values = self.message(&format, &args[3..], &mut pieces);
        self.frame = saved;
        if !scalar {
            let message = render(&pieces, !values.is_empty());
            let cond = format!("({l} {op} {r})");
            if values.is_empty() {
                return Ok(check(&cond, &message, line));
            }
            return Ok(format!(
                "(!{cond} ? {} : (void)0)",
                assert_fail(&message, line, &values)
            ));
        }
        // Rust prints both operands with `{:?}` after the message.
        pieces.push(Piece::Lit("\n  left: ".into()));
        pieces.push(Piece::Slot(Slot::Value { debug: true }));
        pieces.push(Piece::Lit("\n right: ".into()));
        pieces.push(Piece::Slot(Slot::Value { debug: true }));
        let (gl, gr) = (self.tmp("left"), self.tmp("right"));
        values.push(gl.clone());
        values.push(gr.clone());
        let message = render(&pieces, true);
        Ok(format!(
            "[&]() {{ const auto {gl} = {l}; const auto {gr} = {r}; if (!({gl} {op} {gr})) {}; }}()",
            assert_fail(&message, line, &values)
        ))
    }

    /// `"<file>:<line>:<column>: kernel `<name>`: "`, the start of a device
    /// failure's message at `at`, and the line.
    pub(super) fn site(&self, at: proc_macro2::Span) -> (String, usize) {
        let (line, column) = (at.start().line, at.start().column + 1);
        let prefix = format!("{}:{line}:{column}: kernel `{}`: ", at.file(), self.fn_name);
        (prefix, line)
    }

    /// Parses a format string and its arguments (`rest`, after the
    /// string) into `pieces`; returns the C++ values recorded, in the
    /// order of their placeholders.
    fn message(&mut self, format: &str, rest: &[&Expr], pieces: &mut Vec<Piece>) -> Vec<String> {
        let mut values = Vec::new();
        for p in parse_format(format) {
            let FormatPiece::Slot {
                arg, debug, text, ..
            } = p
            else {
                if let FormatPiece::Lit(s) = p {
                    pieces.push(Piece::Lit(s));
                }
                continue;
            };
            let expr = debug.and_then(|_| argument(&arg, rest));
            let recorded = match expr {
                Some(e) if values.len() < MAX_VALUES => match self.value(&e) {
                    Ok((v, elem)) if self.infer.final_scalar(&elem).is_some() => Some(v),
                    _ => None,
                },
                _ => None,
            };
            match (recorded, debug) {
                (Some(v), Some(debug)) => {
                    values.push(v);
                    pieces.push(Piece::Slot(Slot::Value { debug }));
                }
                _ => pieces.push(Piece::Slot(Slot::AsWritten(text))),
            }
        }
        values
    }
}

/// `granule::check`: the message as written, no values.
fn check(cond: &str, message: &str, line: usize) -> String {
    format!(
        "granule::check({cond}, \"{}\", {line}u)",
        cpp_escape(message)
    )
}

/// `granule::assert_fail` with recorded values.
fn assert_fail(message: &str, line: usize, values: &[String]) -> String {
    let args: Vec<String> = values
        .iter()
        .map(|v| format!(", granule::assert_arg({v})"))
        .collect();
    format!(
        "granule::assert_fail(\"{}\", {line}u, {}u{})",
        cpp_escape(message),
        values.len(),
        args.concat()
    )
}

/// A part of the device message.
enum Piece {
    Lit(String),
    Slot(Slot),
}

enum Slot {
    /// A recorded value, shown with `{}` or `{:?}`.
    Value { debug: bool },
    /// A placeholder the device does not fill, as the source wrote it.
    AsWritten(String),
}

/// The device message: with values, a template whose `{}`/`{:?}` take them
/// in order and whose literal braces are doubled; without, the final text.
fn render(pieces: &[Piece], with_values: bool) -> String {
    let lit = |s: &str| {
        if with_values {
            s.replace('{', "{{").replace('}', "}}")
        } else {
            s.to_string()
        }
    };
    pieces
        .iter()
        .map(|p| match p {
            Piece::Lit(s) | Piece::Slot(Slot::AsWritten(s)) => lit(s),
            Piece::Slot(Slot::Value { debug: false }) => "{}".to_string(),
            Piece::Slot(Slot::Value { debug: true }) => "{:?}".to_string(),
        })
        .collect()
}

/// The expression a placeholder takes from a format macro's arguments
/// after its string (`rest`): the n-th, the one named `name = ..`, or a
/// local captured inline (`{name}`).
pub(super) fn argument(arg: &Arg, rest: &[&Expr]) -> Option<Expr> {
    match arg {
        Arg::Index(n) => rest.get(*n).map(|e| match e {
            Expr::Assign(a) => (*a.right).clone(),
            e => (*e).clone(),
        }),
        Arg::Name(name) => rest
            .iter()
            .find_map(|e| match e {
                Expr::Assign(a) if rust_text(&a.left) == *name => Some((*a.right).clone()),
                _ => None,
            })
            .or_else(|| syn::parse_str::<Expr>(name).ok()),
    }
}

/// Which argument a placeholder names.
#[derive(Debug, PartialEq)]
pub(super) enum Arg {
    Index(usize),
    Name(String),
}

#[derive(Debug, PartialEq)]
pub(super) enum FormatPiece {
    Lit(String),
    /// `debug` is None when the spec is one the device does not render
    /// (anything but empty or `?`); `spec` is what follows the `:`, and
    /// `text` the placeholder as written.
    Slot {
        arg: Arg,
        debug: Option<bool>,
        spec: String,
        text: String,
    },
}

/// Splits a Rust format string into literal text (braces unescaped) and
/// placeholders, numbering implicit positional ones as Rust does.
pub(super) fn parse_format(s: &str) -> Vec<FormatPiece> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut next = 0;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("{{") || rest.starts_with("}}") {
            lit.push(c);
            rest = &rest[2..];
            continue;
        }
        let close = rest.find('}');
        if c != '{' || close.is_none() {
            lit.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let end = close.unwrap_or_default();
        let inner = &rest[1..end];
        let (name, spec) = inner.split_once(':').unwrap_or((inner, ""));
        let name = name.trim();
        let arg = if name.is_empty() {
            next += 1;
            // `.*` takes the precision from the argument before the value.
            if spec.contains(".*") {
                next += 1;
            }
            Arg::Index(next - 1)
        } else if let Ok(n) = name.parse() {
            Arg::Index(n)
        } else {
            Arg::Name(name.to_string())
        };
        let debug = match spec {
            "" => Some(false),
            "?" => Some(true),
            _ => None,
        };
        if !lit.is_empty() {
            out.push(FormatPiece::Lit(std::mem::take(&mut lit)));
        }
        out.push(FormatPiece::Slot {
            arg,
            debug,
            spec: spec.to_string(),
            text: rest[..=end].to_string(),
        });
        rest = &rest[end + 1..];
    }
    if !lit.is_empty() {
        out.push(FormatPiece::Lit(lit));
    }
    out
}

/// An expression as Rust text, for the device message.
fn rust_text(e: &Expr) -> String {
    quote::ToTokens::to_token_stream(e).to_string()
}

/// `s` as the body of a C++ string literal.
pub(super) fn cpp_escape(s: &str) -> String {
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
