//! Type inference for unsuffixed literals: an untyped `1` or `0.5` takes
//! the type of what it meets.
//!
//! Rust gives the `1.0` of `x + 1.0` the type of `x`; a C++ `1.0` is a
//! `double`, which would round an `f32` sum differently, and a C++ `1` an
//! `int`, so the C++ text spells each literal in its Rust type. Each
//! unsuffixed literal gets an inference variable, bound by the first use
//! that meets a known type; one that no use binds takes Rust's default
//! (`i32`, `f64`). The C++ text is written before every use is seen, so it
//! names variables through markers, replaced once the whole body is
//! translated.

use super::errors::{error_at, Result};
use super::types::{array_cpp, tuple_cpp, Elem, Scalar};
use syn::spanned::Spanned;

/// What kind of literal an inference variable stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Int,
    Float,
}

/// Inference variables for unsuffixed literals. A variable is resolved by
/// the first use that meets a known type; an unresolved one takes Rust's
/// default (i32, f64). Emitted text refers to variables through markers
/// that [`Infer::finish`] replaces once everything is known.
#[derive(Default)]
pub struct Infer {
    vars: Vec<(VarKind, Option<Elem>)>,
}

impl Infer {
    pub fn fresh(&mut self, kind: VarKind) -> Elem {
        self.vars.push((kind, None));
        Elem::Var(self.vars.len() - 1)
    }

    pub fn kind(&self, e: &Elem) -> Option<VarKind> {
        match self.resolve(e) {
            Elem::Var(v) => Some(self.vars[v].0),
            _ => None,
        }
    }

    /// Follows bindings to a scalar, a generic, or an unbound variable.
    pub fn resolve(&self, e: &Elem) -> Elem {
        let mut e = e.clone();
        while let Elem::Var(v) = e {
            match &self.vars[v].1 {
                Some(next) => e = next.clone(),
                None => return Elem::Var(v),
            }
        }
        e
    }

    /// Makes `a` and `b` the same type, or explains why they cannot be.
    pub fn unify(&mut self, a: &Elem, b: &Elem, at: &impl Spanned) -> Result<Elem> {
        let (a, b) = (self.resolve(a), self.resolve(b));
        match (&a, &b) {
            _ if a == b => Ok(a),
            (Elem::Auto, other) | (other, Elem::Auto) => Ok(other.clone()),
            (Elem::Array(x, n), Elem::Array(y, m)) => {
                let both_literal = n.parse::<u128>().is_ok() && m.parse::<u128>().is_ok();
                if both_literal && n != m {
                    return Err(error_at(
                        at.span(),
                        format!("mismatched array lengths {n} and {m}"),
                    ));
                }
                let elem = self.unify(x, y, at)?;
                // A literal length says more than a constant's name (which
                // rustc has checked is the same number).
                let len = if n.parse::<u128>().is_ok() { n } else { m };
                Ok(Elem::Array(Box::new(elem), len.clone()))
            }
            (Elem::TupleOf(x), Elem::TupleOf(y)) if x.len() == y.len() => {
                let fields = x
                    .iter()
                    .zip(y)
                    .map(|(p, q)| self.unify(p, q, at))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Elem::TupleOf(fields))
            }
            // A scalar tuple (an `overflowing_*` pair, an accumulator's
            // value) meets a tuple of values: the same C++ type.
            (Elem::Tuple(x), Elem::TupleOf(y)) | (Elem::TupleOf(y), Elem::Tuple(x))
                if x.len() == y.len() =>
            {
                let tuple = Elem::Tuple(x.clone());
                for (p, q) in x.iter().zip(y) {
                    self.unify(&Elem::Scalar(*p), q, at)?;
                }
                Ok(tuple)
            }
            (Elem::Var(x), Elem::Var(y)) => {
                if self.vars[*x].0 != self.vars[*y].0 {
                    return Err(error_at(
                        at.span(),
                        "an integer literal meets a float literal",
                    ));
                }
                self.vars[*x].1 = Some(b.clone());
                Ok(b)
            }
            (Elem::Var(x), other) | (other, Elem::Var(x)) => {
                if let Elem::Scalar(s) = other {
                    let ok = match self.vars[*x].0 {
                        VarKind::Int => s.is_int(),
                        VarKind::Float => s.is_float(),
                    };
                    if !ok {
                        return Err(error_at(
                            at.span(),
                            format!("a literal cannot have type `{}`", s.cpp()),
                        ));
                    }
                }
                self.vars[*x].1 = Some(other.clone());
                Ok(other.clone())
            }
            // A field's or a call's type is only known to C++; the other
            // side says more. (A helper's call may give a `#[device]
            // struct`; rustc has checked that the two agree.)
            (Elem::Deduced(_), other) | (other, Elem::Deduced(_))
                if !matches!(other, Elem::Acc(_) | Elem::Tuple(_)) =>
            {
                Ok(other.clone())
            }
            _ => Err(error_at(
                at.span(),
                format!(
                    "mismatched types `{}` and `{}`",
                    self.elem_name(&a),
                    self.elem_name(&b)
                ),
            )),
        }
    }

    fn elem_name(&self, e: &Elem) -> String {
        match e {
            Elem::Scalar(s) => s.cpp().trim_start_matches("granule::").to_string(),
            Elem::Generic(g) => g.clone(),
            Elem::Var(_) => "{literal}".to_string(),
            Elem::Auto => "auto".to_string(),
            Elem::Acc(a) => a.cpp(),
            Elem::Tuple(t) => tuple_cpp(t),
            Elem::Struct(n) | Elem::Deduced(n) => n.clone(),
            Elem::Array(e, n) => format!("[{}; {n}]", self.elem_name(&self.resolve(e))),
            Elem::TupleOf(fs) => {
                let names: Vec<String> = fs
                    .iter()
                    .map(|f| self.elem_name(&self.resolve(f)))
                    .collect();
                format!("({})", names.join(", "))
            }
        }
    }

    /// The C++ type of `e`; a marker while it is an unbound variable.
    pub fn cpp(&self, e: &Elem) -> String {
        match self.resolve(e) {
            Elem::Scalar(s) => s.cpp().to_string(),
            Elem::Generic(g) => g,
            Elem::Var(v) => format!("\u{1}T{v}\u{1}"),
            Elem::Auto => "auto".to_string(),
            Elem::Acc(a) => a.cpp(),
            Elem::Tuple(t) => tuple_cpp(&t),
            Elem::Struct(n) | Elem::Deduced(n) => n,
            Elem::Array(e, n) => array_cpp(&self.cpp(&e), &n),
            Elem::TupleOf(fs) => {
                let cpps: Vec<String> = fs.iter().map(|f| self.cpp(f)).collect();
                format!("granule::Tuple<{}>", cpps.join(", "))
            }
        }
    }

    /// A literal of type `e`; a marker while it is an unbound variable.
    pub fn literal(&self, e: &Elem, text: &str) -> String {
        match self.resolve(e) {
            Elem::Scalar(s) => s.literal(text),
            Elem::Generic(g) | Elem::Deduced(g) => format!("(({g}){})", Scalar::F64.literal(text)),
            Elem::Var(v) => format!("\u{1}L{v}:{text}\u{1}"),
            Elem::Auto
            | Elem::Acc(_)
            | Elem::Tuple(_)
            | Elem::Struct(_)
            | Elem::Array(..)
            | Elem::TupleOf(_) => text.to_string(),
        }
    }

    /// The scalar `e` resolves to, defaulting unbound literals.
    pub fn final_scalar(&self, e: &Elem) -> Option<Scalar> {
        match self.resolve(e) {
            Elem::Scalar(s) => Some(s),
            Elem::Generic(_)
            | Elem::Auto
            | Elem::Acc(_)
            | Elem::Tuple(_)
            | Elem::Struct(_)
            | Elem::Deduced(_)
            | Elem::Array(..)
            | Elem::TupleOf(_) => None,
            Elem::Var(v) => Some(match self.vars[v].0 {
                VarKind::Int => Scalar::I32,
                VarKind::Float => Scalar::F64,
            }),
        }
    }

    /// Replaces every marker in `text` now that all uses are seen.
    pub fn finish(&self, text: &str) -> String {
        self.finish_at(text, 0)
    }

    /// `finish`, `depth` expansions deep: a marker may expand to a type
    /// that holds markers itself (a literal next to a `#[device]` call's
    /// result takes `Plain<decltype(helper(1))>`, whose argument is one),
    /// so expansions are finished too. A type's text was written before
    /// its variable was bound, so it cannot hold its own marker; the depth
    /// bound is a guard, not a limit a kernel can reach.
    fn finish_at(&self, text: &str, depth: usize) -> String {
        let mut out = String::with_capacity(text.len());
        let mut parts = text.split('\u{1}');
        out.push_str(parts.next().unwrap_or(""));
        while let (Some(marker), rest) = (parts.next(), parts.next()) {
            let expanded = self.expand_marker(marker);
            if expanded.contains('\u{1}') && depth < 64 {
                out.push_str(&self.finish_at(&expanded, depth + 1));
            } else {
                out.push_str(&expanded);
            }
            out.push_str(rest.unwrap_or(""));
        }
        out
    }

    fn expand_marker(&self, marker: &str) -> String {
        let (kind, body) = marker.split_at(1);
        let (var, text) = body.split_once(':').unwrap_or((body, ""));
        let v: usize = var.parse().unwrap_or(0);
        let e = Elem::Var(v);
        match (kind, self.resolve(&e)) {
            ("T", Elem::Generic(g) | Elem::Deduced(g)) => g,
            // An integer literal stays integral (through a double, a large
            // one would round); the C++ conversion then wraps as `as` does.
            ("L", Elem::Generic(g) | Elem::Deduced(g)) => match self.vars[v].0 {
                VarKind::Int if text.starts_with('-') => format!("(({g}){text}ll)"),
                VarKind::Int => format!("(({g}){text}ull)"),
                VarKind::Float => format!("(({g}){})", Scalar::F64.literal(text)),
            },
            ("T", _) => self
                .final_scalar(&e)
                .map_or("auto", |s| s.cpp())
                .to_string(),
            (_, _) => self
                .final_scalar(&e)
                .map_or(text.to_string(), |s| s.literal(text)),
        }
    }
}
