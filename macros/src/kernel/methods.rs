//! Methods of scalars: the `core` methods that have an exact device form
//! (the integer `wrapping_*`, `overflowing_*`, `saturating_*` and
//! `checked_*` families, bit counts, rotations, Euclidean division, float
//! rounding, signs, classification and bits), and the transcendental
//! functions, whose device results are within the bounds the README
//! lists. Each becomes `granule::<name>(receiver, args..)`, the header's
//! function of the same name; associated-function syntax
//! (`i32::wrapping_add(a, b)`, `f64::from_bits(u)`) is the same call, and
//! `T::from(x)` between scalars is the (lossless) conversion.
//!
//! `overflowing_*` results are `(T, bool)` tuples (`granule::Tuple`),
//! used through `.0`/`.1` or `let (v, o) = ..`; `checked_*` results are
//! Options, which a kernel must consume at once: `.unwrap()` and
//! `.expect("..")` (a `None` fails on the device as the host's panics),
//! `.unwrap_or(v)`, `.unwrap_or_default()`, `.is_some()`, `.is_none()`.

use super::cx::Cx;
use super::errors::{error_at, unsupported, Result};
use super::infer::VarKind;
use super::types::{Elem, Scalar, Ty};
use syn::{Expr, ExprMethodCall};

/// The receivers a method exists for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Recv {
    Int,
    Signed,
    Unsigned,
    Float,
    SignedOrFloat,
    /// Integers and floats.
    Number,
    /// Every scalar (`min`, `max` and `clamp` are `Ord`'s for bool too).
    Any,
}

/// The type of an argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arg {
    /// The receiver's type.
    Same,
    U32,
    I32,
}

/// The type of the result.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ret {
    Same,
    Bool,
    U32,
    /// The unsigned type of the receiver's width (`abs_diff`).
    Unsigned,
    /// `to_bits`: u32 for f32, u64 for f64.
    Bits,
    /// `(T, bool)`.
    Pair,
    /// `Option<T>`, consumed at once (see the module docs).
    Option,
}

use Arg::{Same, I32, U32};

/// Every method of the subset: name, receivers, arguments, result.
#[rustfmt::skip]
const METHODS: &[(&str, Recv, &[Arg], Ret)] = &[
    // Integer arithmetic that wraps, reports or saturates.
    ("wrapping_add", Recv::Int, &[Same], Ret::Same),
    ("wrapping_sub", Recv::Int, &[Same], Ret::Same),
    ("wrapping_mul", Recv::Int, &[Same], Ret::Same),
    ("wrapping_div", Recv::Int, &[Same], Ret::Same),
    ("wrapping_rem", Recv::Int, &[Same], Ret::Same),
    ("wrapping_div_euclid", Recv::Int, &[Same], Ret::Same),
    ("wrapping_rem_euclid", Recv::Int, &[Same], Ret::Same),
    ("wrapping_neg", Recv::Int, &[], Ret::Same),
    ("wrapping_abs", Recv::Signed, &[], Ret::Same),
    ("wrapping_shl", Recv::Int, &[U32], Ret::Same),
    ("wrapping_shr", Recv::Int, &[U32], Ret::Same),
    ("wrapping_pow", Recv::Int, &[U32], Ret::Same),
    ("overflowing_add", Recv::Int, &[Same], Ret::Pair),
    ("overflowing_sub", Recv::Int, &[Same], Ret::Pair),
    ("overflowing_mul", Recv::Int, &[Same], Ret::Pair),
    ("overflowing_div", Recv::Int, &[Same], Ret::Pair),
    ("overflowing_rem", Recv::Int, &[Same], Ret::Pair),
    ("overflowing_div_euclid", Recv::Int, &[Same], Ret::Pair),
    ("overflowing_rem_euclid", Recv::Int, &[Same], Ret::Pair),
    ("overflowing_neg", Recv::Int, &[], Ret::Pair),
    ("overflowing_abs", Recv::Signed, &[], Ret::Pair),
    ("overflowing_shl", Recv::Int, &[U32], Ret::Pair),
    ("overflowing_shr", Recv::Int, &[U32], Ret::Pair),
    ("overflowing_pow", Recv::Int, &[U32], Ret::Pair),
    ("saturating_add", Recv::Int, &[Same], Ret::Same),
    ("saturating_sub", Recv::Int, &[Same], Ret::Same),
    ("saturating_mul", Recv::Int, &[Same], Ret::Same),
    ("saturating_div", Recv::Int, &[Same], Ret::Same),
    ("saturating_pow", Recv::Int, &[U32], Ret::Same),
    ("saturating_neg", Recv::Signed, &[], Ret::Same),
    ("saturating_abs", Recv::Signed, &[], Ret::Same),
    ("checked_add", Recv::Int, &[Same], Ret::Option),
    ("checked_sub", Recv::Int, &[Same], Ret::Option),
    ("checked_mul", Recv::Int, &[Same], Ret::Option),
    ("checked_div", Recv::Int, &[Same], Ret::Option),
    ("checked_rem", Recv::Int, &[Same], Ret::Option),
    ("checked_div_euclid", Recv::Int, &[Same], Ret::Option),
    ("checked_rem_euclid", Recv::Int, &[Same], Ret::Option),
    ("checked_neg", Recv::Int, &[], Ret::Option),
    ("checked_abs", Recv::Signed, &[], Ret::Option),
    ("checked_shl", Recv::Int, &[U32], Ret::Option),
    ("checked_shr", Recv::Int, &[U32], Ret::Option),
    ("checked_pow", Recv::Int, &[U32], Ret::Option),
    ("pow", Recv::Int, &[U32], Ret::Same),
    // Bits.
    ("count_ones", Recv::Int, &[], Ret::U32),
    ("count_zeros", Recv::Int, &[], Ret::U32),
    ("leading_zeros", Recv::Int, &[], Ret::U32),
    ("trailing_zeros", Recv::Int, &[], Ret::U32),
    ("leading_ones", Recv::Int, &[], Ret::U32),
    ("trailing_ones", Recv::Int, &[], Ret::U32),
    ("rotate_left", Recv::Int, &[U32], Ret::Same),
    ("rotate_right", Recv::Int, &[U32], Ret::Same),
    ("swap_bytes", Recv::Int, &[], Ret::Same),
    ("reverse_bits", Recv::Int, &[], Ret::Same),
    ("is_power_of_two", Recv::Unsigned, &[], Ret::Bool),
    // Signs, distances, order.
    ("abs", Recv::SignedOrFloat, &[], Ret::Same),
    ("signum", Recv::SignedOrFloat, &[], Ret::Same),
    ("unsigned_abs", Recv::Signed, &[], Ret::Unsigned),
    ("abs_diff", Recv::Int, &[Same], Ret::Unsigned),
    ("is_positive", Recv::Signed, &[], Ret::Bool),
    ("is_negative", Recv::Signed, &[], Ret::Bool),
    ("rem_euclid", Recv::Number, &[Same], Ret::Same),
    ("div_euclid", Recv::Number, &[Same], Ret::Same),
    ("min", Recv::Any, &[Same], Ret::Same),
    ("max", Recv::Any, &[Same], Ret::Same),
    ("clamp", Recv::Any, &[Same, Same], Ret::Same),
    // Exact float operations.
    ("sqrt", Recv::Float, &[], Ret::Same),
    ("floor", Recv::Float, &[], Ret::Same),
    ("ceil", Recv::Float, &[], Ret::Same),
    ("round", Recv::Float, &[], Ret::Same),
    ("round_ties_even", Recv::Float, &[], Ret::Same),
    ("trunc", Recv::Float, &[], Ret::Same),
    ("fract", Recv::Float, &[], Ret::Same),
    ("recip", Recv::Float, &[], Ret::Same),
    ("copysign", Recv::Float, &[Same], Ret::Same),
    ("mul_add", Recv::Float, &[Same, Same], Ret::Same),
    ("is_nan", Recv::Float, &[], Ret::Bool),
    ("is_finite", Recv::Float, &[], Ret::Bool),
    ("is_infinite", Recv::Float, &[], Ret::Bool),
    ("is_normal", Recv::Float, &[], Ret::Bool),
    ("is_subnormal", Recv::Float, &[], Ret::Bool),
    ("is_sign_negative", Recv::Float, &[], Ret::Bool),
    ("is_sign_positive", Recv::Float, &[], Ret::Bool),
    ("to_bits", Recv::Float, &[], Ret::Bits),
    // Bounded: powi (precision unspecified in Rust), libm's functions.
    ("powi", Recv::Float, &[I32], Ret::Same),
    ("powf", Recv::Float, &[Same], Ret::Same),
    ("hypot", Recv::Float, &[Same], Ret::Same),
    ("atan2", Recv::Float, &[Same], Ret::Same),
    ("exp", Recv::Float, &[], Ret::Same),
    ("exp2", Recv::Float, &[], Ret::Same),
    ("exp_m1", Recv::Float, &[], Ret::Same),
    ("ln", Recv::Float, &[], Ret::Same),
    ("log2", Recv::Float, &[], Ret::Same),
    ("log10", Recv::Float, &[], Ret::Same),
    ("ln_1p", Recv::Float, &[], Ret::Same),
    ("sin", Recv::Float, &[], Ret::Same),
    ("cos", Recv::Float, &[], Ret::Same),
    ("tan", Recv::Float, &[], Ret::Same),
    ("asin", Recv::Float, &[], Ret::Same),
    ("acos", Recv::Float, &[], Ret::Same),
    ("atan", Recv::Float, &[], Ret::Same),
    ("sinh", Recv::Float, &[], Ret::Same),
    ("cosh", Recv::Float, &[], Ret::Same),
    ("tanh", Recv::Float, &[], Ret::Same),
    ("cbrt", Recv::Float, &[], Ret::Same),
];

/// What the translator knows of a receiver's type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Known {
    Scalar(Scalar),
    /// An unsuffixed integer literal not bound yet.
    IntLiteral,
    /// A generic parameter or a type only C++ sees: the host compiler has
    /// checked the method, C++ picks the overload.
    Opaque,
}

/// The methods that consume a `checked_*` Option.
const OPTION_USES: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
    "is_some",
    "is_none",
];

impl Cx {
    /// `recv.name(args)` where `recv` (C++ text) has element type `elem`.
    pub fn scalar_method(
        &mut self,
        method: &syn::Ident,
        recv: &str,
        elem: &Elem,
        args: &[&Expr],
    ) -> Result<(String, Ty)> {
        let (text, ret, known) = self.method_text(method, recv, elem, args)?;
        let ty = match ret {
            Ret::Same => Ty::Elem(elem.clone()),
            Ret::Bool => Ty::scalar(Scalar::Bool),
            Ret::U32 => Ty::scalar(Scalar::U32),
            Ret::Unsigned => Ty::Elem(self.unsigned_of(known, elem)),
            Ret::Bits => Ty::Elem(bits_of(known, method)?),
            Ret::Pair => Ty::Elem(Elem::Tuple(vec![self.pair_scalar(known, method)?, Scalar::Bool])),
            Ret::Option => {
                return Err(error_at(
                    method.span(),
                    format!("`{method}` returns an Option: use it at once, with `.unwrap()`, `.expect(\"..\")`, `.unwrap_or(v)`, `.unwrap_or_default()`, `.is_some()` or `.is_none()`"),
                ))
            }
        };
        Ok((text, ty))
    }

    /// `T::name(a, args..)`: `a.name(args..)` with `a` of type `T`, or
    /// `f32::from_bits(u)` / `f64::from_bits(u)`.
    pub fn scalar_fn(
        &mut self,
        s: Scalar,
        c: &syn::ExprCall,
        method: &syn::Ident,
    ) -> Result<(String, Ty)> {
        let args: Vec<&Expr> = c.args.iter().collect();
        if method == "from" {
            // `u32::from(flag)`, `f64::from(x)`: From between scalars is
            // lossless (Rust has checked that the impl exists), so it is
            // the C++ conversion.
            let [v] = args.as_slice() else {
                return Err(error_at(method.span(), "`from` takes 1 argument(s)"));
            };
            let (v, _) = self.value(v)?;
            return Ok((format!("(({})({v}))", s.cpp()), Ty::scalar(s)));
        }
        if method == "from_bits" {
            let bits = match s {
                Scalar::F32 => Scalar::U32,
                Scalar::F64 => Scalar::U64,
                _ => return Err(unsupported(c, "`from_bits` on an integer type")),
            };
            let [b] = args.as_slice() else {
                return Err(error_at(method.span(), "`from_bits` takes 1 argument(s)"));
            };
            let b = self.value_as(b, &Elem::Scalar(bits))?;
            return Ok((
                format!("granule::from_bits({}(), {b})", s.cpp()),
                Ty::scalar(s),
            ));
        }
        let Some((first, rest)) = args.split_first() else {
            return Err(error_at(
                method.span(),
                format!("`{s:?}::{method}` needs a value"),
            ));
        };
        let recv = self.value_as(first, &Elem::Scalar(s))?;
        self.scalar_method(method, &recv, &Elem::Scalar(s), rest)
    }

    /// `x.checked_op(..).unwrap()` and the other uses of an Option (see
    /// the module docs); `None` if `m` is not one.
    pub fn option_use(&mut self, m: &ExprMethodCall) -> Result<Option<(String, Ty)>> {
        let name = m.method.to_string();
        if !OPTION_USES.contains(&name.as_str()) {
            return Ok(None);
        }
        let Some((option, elem)) = self.checked_call(&m.receiver)? else {
            return Ok(None);
        };
        let args: Vec<&Expr> = m.args.iter().collect();
        let text = match (name.as_str(), args.as_slice()) {
            ("unwrap", []) => {
                let message = "called `Option::unwrap()` on a `None` value";
                self.unwrap_text(&option, m.method.span(), message)
            }
            (
                "expect",
                [Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                })],
            ) => self.unwrap_text(&option, m.method.span(), &s.value()),
            ("expect", [other]) => {
                return Err(unsupported(
                    other,
                    "an `expect` message other than a string literal",
                ))
            }
            ("unwrap_or", [v]) => {
                let v = self.value_as(v, &elem)?;
                format!("granule::unwrap_or({option}, {v})")
            }
            ("unwrap_or_default", []) => {
                let zero = self.infer.literal(&elem, "0");
                format!("granule::unwrap_or({option}, {zero})")
            }
            ("is_some", []) => format!("({option}).ok"),
            ("is_none", []) => format!("(!({option}).ok)"),
            _ => {
                return Err(error_at(
                    m.method.span(),
                    format!(
                        "`{name}` takes {} argument(s)",
                        usize::from(name == "expect" || name == "unwrap_or")
                    ),
                ))
            }
        };
        let ty = if name.starts_with("is_") {
            Ty::scalar(Scalar::Bool)
        } else {
            Ty::Elem(elem)
        };
        Ok(Some((text, ty)))
    }

    /// `granule::unwrap(option, "<site>: <message>", line)`: a `None` fails
    /// the kernel with the message Rust's panic has, as an assertion does.
    fn unwrap_text(&self, option: &str, at: proc_macro2::Span, message: &str) -> String {
        let (prefix, line) = self.site(at);
        format!(
            "granule::unwrap({option}, \"{}\", {line}u)",
            super::assert::cpp_escape(&format!("{prefix}{message}"))
        )
    }

    /// A `checked_*` call (method or `T::checked_*(..)` syntax): the C++
    /// of the Option and the type of its value; `None` for other
    /// expressions.
    fn checked_call(&mut self, e: &Expr) -> Result<Option<(String, Elem)>> {
        match e {
            Expr::Paren(p) => self.checked_call(&p.expr),
            Expr::Group(g) => self.checked_call(&g.expr),
            Expr::MethodCall(m) if m.method.to_string().starts_with("checked_") => {
                let (recv, elem) = self.value(&m.receiver)?;
                let args: Vec<&Expr> = m.args.iter().collect();
                let (text, _, _) = self.method_text(&m.method, &recv, &elem, &args)?;
                Ok(Some((text, elem)))
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return Ok(None);
                };
                let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
                let [ty, method] = segs.as_slice() else {
                    return Ok(None);
                };
                let (Some(s), true) = (
                    Scalar::from_name(&ty.ident.to_string()),
                    method.ident.to_string().starts_with("checked_"),
                ) else {
                    return Ok(None);
                };
                let args: Vec<&Expr> = c.args.iter().collect();
                let Some((first, rest)) = args.split_first() else {
                    return Ok(None);
                };
                let elem = Elem::Scalar(s);
                let recv = self.value_as(first, &elem)?;
                let (text, _, _) = self.method_text(&method.ident, &recv, &elem, rest)?;
                Ok(Some((text, elem)))
            }
            _ => Ok(None),
        }
    }

    /// The C++ call of a method in [`METHODS`], its result kind and what
    /// is known of the receiver; an error if the method does not exist
    /// for the receiver or takes other arguments.
    fn method_text(
        &mut self,
        method: &syn::Ident,
        recv: &str,
        elem: &Elem,
        args: &[&Expr],
    ) -> Result<(String, Ret, Known)> {
        let name = method.to_string();
        let known = self.known(elem);
        let Some(&(_, _, params, ret)) = METHODS
            .iter()
            .find(|(n, r, _, _)| *n == name && accepts(*r, known, self.literal_kind(elem)))
        else {
            return Err(unsupported(
                method,
                &format!("the method `{name}` on {}", self.describe(known, elem)),
            ));
        };
        if params.len() != args.len() {
            return Err(error_at(
                method.span(),
                format!("`{name}` takes {} argument(s)", params.len()),
            ));
        }
        let mut parts = vec![recv.to_string()];
        for (p, a) in params.iter().zip(args) {
            let ty = match p {
                Arg::Same => elem.clone(),
                Arg::U32 => Elem::Scalar(Scalar::U32),
                Arg::I32 => Elem::Scalar(Scalar::I32),
            };
            parts.push(self.value_as(a, &ty)?);
        }
        Ok((format!("granule::{name}({})", parts.join(", ")), ret, known))
    }

    fn known(&self, elem: &Elem) -> Known {
        match self.infer.resolve(elem) {
            Elem::Scalar(s) => Known::Scalar(s),
            Elem::Var(_) if self.infer.kind(elem) == Some(VarKind::Int) => Known::IntLiteral,
            _ => Known::Opaque,
        }
    }

    /// Whether `elem` is an unbound float literal (`2.0.sqrt()`).
    fn literal_kind(&self, elem: &Elem) -> Option<VarKind> {
        self.infer.kind(elem)
    }

    fn describe(&self, known: Known, elem: &Elem) -> String {
        match known {
            Known::Scalar(s) => format!("`{}`", s.cpp().trim_start_matches("granule::")),
            _ => format!(
                "this type (`{}`)",
                self.infer.cpp(elem).replace('\u{1}', "")
            ),
        }
    }

    fn unsigned_of(&self, known: Known, elem: &Elem) -> Elem {
        match known {
            Known::Scalar(s) => Elem::Scalar(s.unsigned()),
            _ => Elem::Deduced(format!("granule::UnsignedOf<{}>", self.infer.cpp(elem))),
        }
    }

    /// The value type of an `overflowing_*` pair: the receiver's scalar
    /// (an unbound literal takes Rust's default, i32).
    fn pair_scalar(&self, known: Known, method: &syn::Ident) -> Result<Scalar> {
        match known {
            Known::Scalar(s) => Ok(s),
            Known::IntLiteral => Ok(Scalar::I32),
            Known::Opaque => Err(error_at(
                method.span(),
                format!("`{method}` needs a receiver of a known integer type here: bind it with `let v: T = ..` first"),
            )),
        }
    }
}

/// Whether a method for `want` receivers applies to the receiver.
fn accepts(want: Recv, known: Known, literal: Option<VarKind>) -> bool {
    let s = match known {
        Known::Scalar(s) => s,
        Known::IntLiteral => return want != Recv::Float,
        Known::Opaque if literal == Some(VarKind::Float) => {
            return matches!(
                want,
                Recv::Float | Recv::SignedOrFloat | Recv::Number | Recv::Any
            )
        }
        Known::Opaque => return true,
    };
    match want {
        Recv::Int => s.is_int(),
        Recv::Signed => s.is_signed_int(),
        Recv::Unsigned => s.is_int() && !s.is_signed_int(),
        Recv::Float => s.is_float(),
        Recv::SignedOrFloat => s.is_float() || s.is_signed_int(),
        Recv::Number => s != Scalar::Bool,
        Recv::Any => true,
    }
}

/// `to_bits`'s result: u32 for f32, u64 for f64.
fn bits_of(known: Known, method: &syn::Ident) -> Result<Elem> {
    match known {
        Known::Scalar(Scalar::F32) => Ok(Elem::Scalar(Scalar::U32)),
        Known::Scalar(Scalar::F64) => Ok(Elem::Scalar(Scalar::U64)),
        _ => Err(error_at(
            method.span(),
            "`to_bits` needs a receiver of a known float type here: bind it with `let v: f64 = ..` first",
        )),
    }
}
