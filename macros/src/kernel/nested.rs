//! Nested parallel patterns inside team kernels, in granule-core's syntax:
//! `TeamThreadRange::new(team, a..b).parallel_for(|j| ..)`,
//! `ThreadVectorRange::new(team, a..b).parallel_reduce(Sum, |j, acc: &mut f64| ..)`
//! (any built-in reducer), and
//! `TeamThreadRange::new(team, a..b).parallel_scan(|j, partial: &mut i64, last: bool| ..)`.

use super::cx::{Cx, Frame};
use super::errors::{error_at, unsupported, Result};
use super::types::{last_segment, segment_names, Elem, Scalar, Ty};
use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall};

/// The three nested range kinds and their header functions' stem.
fn range_kind(name: &str) -> Option<&'static str> {
    Some(match name {
        "TeamThreadRange" => "team_thread",
        "ThreadVectorRange" => "thread_vector",
        "TeamVectorRange" => "team_vector",
        _ => return None,
    })
}

const REDUCERS: [&str; 8] = ["Sum", "Prod", "Min", "Max", "LAnd", "LOr", "BAnd", "BOr"];

/// A built-in reducer named by path (`Sum`, `granule::Max`).
pub fn reducer_name(e: &Expr) -> Result<&'static str> {
    let name = match e {
        Expr::Path(p) => last_segment(&p.path),
        _ => String::new(),
    };
    REDUCERS
        .iter()
        .find(|r| **r == name)
        .copied()
        .ok_or_else(|| {
            unsupported(
                e,
                "this reducer (Sum, Prod, Min, Max, LAnd, LOr, BAnd, BOr)",
            )
        })
}

impl Cx {
    /// `Range::new(team, a..b).parallel_for(f)`, `.parallel_reduce(R, f)`,
    /// `.parallel_scan(f)`; `None` when `m` is not such a call.
    pub fn nested(&mut self, m: &ExprMethodCall) -> Result<Option<(String, Ty)>> {
        let method = m.method.to_string();
        if !matches!(
            method.as_str(),
            "parallel_for" | "parallel_reduce" | "parallel_scan"
        ) {
            return Ok(None);
        }
        let Some((stem, team, begin, end)) = self.nested_range(&m.receiver)? else {
            return Ok(None);
        };
        let args: Vec<&Expr> = m.args.iter().collect();
        let r = match (method.as_str(), args.as_slice()) {
            ("parallel_for", [Expr::Closure(f)]) => {
                let lambda = self.closure(f, &[None])?;
                (
                    format!("granule::{stem}_for({team}, {begin}, {end}, {lambda})"),
                    Ty::Unit,
                )
            }
            ("parallel_reduce", [reducer, Expr::Closure(f)]) => {
                let reducer = reducer_name(reducer)?;
                let elem = self.annotated_elem(f, "|j, acc: &mut f64| ..")?;
                let lambda = self.closure(f, &[None, Some(Ty::Out(elem.clone()))])?;
                let t = self.infer.cpp(&elem);
                (format!("granule::{stem}_reduce<granule::{reducer}<{t}>, {t}>({team}, {begin}, {end}, {lambda})"), Ty::Elem(elem))
            }
            ("parallel_scan", [Expr::Closure(f)]) if stem == "team_thread" => {
                let elem = self.annotated_elem(f, "|i, partial: &mut i64, last: bool| ..")?;
                let lambda = self.closure(
                    f,
                    &[
                        None,
                        Some(Ty::Out(elem.clone())),
                        Some(Ty::scalar(Scalar::Bool)),
                    ],
                )?;
                let t = self.infer.cpp(&elem);
                (
                    format!("granule::team_thread_scan<{t}>({team}, {begin}, {end}, {lambda})"),
                    Ty::Elem(elem),
                )
            }
            ("parallel_scan", _) if stem != "team_thread" => {
                return Err(unsupported(
                    &m.method,
                    "a nested scan over anything but TeamThreadRange",
                ))
            }
            _ => {
                return Err(error_at(
                    m.method.span(),
                    format!(
                        "`{method}` on a nested range takes {}",
                        match method.as_str() {
                            "parallel_reduce" => "a reducer and a closure",
                            _ => "a closure",
                        }
                    ),
                ))
            }
        };
        Ok(Some(r))
    }

    /// `Kind::new(team, a..b)`: stem, team, bounds; `None` if not a range.
    fn nested_range(&mut self, e: &Expr) -> Result<Option<(&'static str, String, String, String)>> {
        let Expr::Call(call) = e else { return Ok(None) };
        let Expr::Path(p) = &*call.func else {
            return Ok(None);
        };
        let segs = segment_names(&p.path);
        let [.., kind, new] = segs.as_slice() else {
            return Ok(None);
        };
        let (Some(stem), "new") = (range_kind(kind), new.as_str()) else {
            return Ok(None);
        };
        let [team, bounds] = call.args.iter().collect::<Vec<_>>()[..] else {
            return Err(error_at(
                call.span(),
                format!("`{kind}::new` takes the team member and a range `a..b`"),
            ));
        };
        let (team, ty) = self.expr(team)?;
        if ty != Ty::Team {
            return Err(error_at(
                call.args[0].span(),
                "the first argument of a nested range is the team member",
            ));
        }
        let usize_ = Elem::Scalar(Scalar::Usize);
        let Expr::Range(r) = bounds else {
            return Err(error_at(bounds.span(), "a nested range takes `a..b`"));
        };
        let (Some(b), Some(e), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, &r.limits)
        else {
            return Err(unsupported(r, "this range (use `a..b`)"));
        };
        Ok(Some((
            stem,
            team,
            self.value_as(b, &usize_)?,
            self.value_as(e, &usize_)?,
        )))
    }

    /// The element type from the annotation of a closure's second
    /// parameter, `acc: &mut T`.
    fn annotated_elem(&self, f: &syn::ExprClosure, example: &str) -> Result<Elem> {
        if let Some(syn::Pat::Type(pt)) = f.inputs.iter().nth(1) {
            if let syn::Type::Reference(r) = &*pt.ty {
                return super::types::elem_of(&r.elem, &self.generics);
            }
        }
        Err(error_at(
            f.span(),
            format!("annotate the accumulator's type: `{example}`"),
        ))
    }

    /// A closure as a C++ lambda capturing by reference; `kinds` gives the
    /// type of each parameter (None: the usize index).
    fn closure(&mut self, f: &syn::ExprClosure, kinds: &[Option<Ty>]) -> Result<String> {
        if f.inputs.len() != kinds.len() {
            return Err(error_at(
                f.span(),
                format!("this closure takes {} parameter(s)", kinds.len()),
            ));
        }
        self.push();
        let mut params = Vec::new();
        for (pat, kind) in f.inputs.iter().zip(kinds) {
            let (name, annotated) = closure_param(pat)?;
            let ty = kind.clone().unwrap_or(Ty::scalar(Scalar::Usize));
            if let (Some(a), Ty::Out(e) | Ty::Elem(e)) = (annotated, &ty) {
                let inner = if let syn::Type::Reference(r) = a {
                    &*r.elem
                } else {
                    a
                };
                let want = super::types::elem_of(inner, &self.generics)?;
                self.unify(e, &want, a.span())?;
            }
            params.push(match &ty {
                Ty::Out(e) => format!("{}& {name}", self.infer.cpp(e)),
                Ty::Elem(e) => format!("{} {name}", self.infer.cpp(e)),
                _ => unreachable!("closure parameters are scalars or references"),
            });
            self.bind(name, ty, false);
        }
        let saved = self.frame;
        self.frame = Frame::default();
        let body = self.closure_body(&f.body);
        self.frame = saved;
        self.pop();
        Ok(format!("[&]({}) {{\n{}}}", params.join(", "), body?))
    }

    fn closure_body(&mut self, body: &Expr) -> Result<String> {
        let block = match body {
            Expr::Block(b) => b.block.clone(),
            e => syn::parse_quote!({ #e; }),
        };
        self.block_stmts(&block, 1)
    }
}

fn closure_param(p: &syn::Pat) -> Result<(String, Option<&syn::Type>)> {
    match p {
        syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
            Ok((i.ident.to_string(), None))
        }
        syn::Pat::Type(t) => closure_param(&t.pat).map(|(n, _)| (n, Some(&*t.ty))),
        _ => Err(unsupported(p, "this closure parameter pattern")),
    }
}
