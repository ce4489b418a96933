//! Nested parallel patterns inside team kernels, in granule-core's syntax,
//! on `TeamThreadRange`, `ThreadVectorRange` and `TeamVectorRange` alike:
//! `Range::new(team, a..b).parallel_for(|j| ..)`,
//! `.parallel_reduce(Sum, |j, acc: &mut f64| ..)` (any built-in reducer;
//! `MinLoc`/`MaxLoc` over `&mut ValLocScalar<T, L>`, `MinMaxLoc`,
//! `MinMax` over theirs; a tuple of built-in reducers over `&mut (f64, u64)`
//! and other tuples of scalars; a `#[device]` custom reducer over its
//! `#[device] struct`), `.parallel_scan(|j, partial: &mut i64, last: bool| ..)`
//! and `.parallel_scan_with(Prod, |j, partial: &mut i64, last: bool| ..)`.

use super::cx::{Cx, Frame};
use super::errors::{error_at, unsupported, Result};
use super::types::{acc_of, last_segment, segment_names, AccKind, Elem, Scalar, Ty};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall};

/// Whether a nested pattern folds into one value or scans.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fold {
    Reduce,
    Scan,
}

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

/// The C++ reducer type of a team-level reduction or scan over `elem`,
/// whose C++ type is `t` (`None`: the plain `parallel_scan`, a sum): a
/// built-in scalar reducer for a scalar accumulator; for a location or
/// min-max accumulator, the reducers of its type (the header's `MinLoc<A>`
/// etc. take the accumulator type); for a tuple, a tuple of built-in
/// reducers, one per field (`granule::Reducers<..>`).
pub fn team_reducer(
    cx: &mut Cx,
    e: Option<&Expr>,
    elem: &Elem,
    t: &str,
    at: Span,
) -> Result<String> {
    if let Elem::Struct(name) = elem {
        // A `#[device] struct` accumulator: its custom reducer, named by
        // path (a unit struct), whose C++ struct has the reducer's name.
        let Some(Expr::Path(p)) = e else {
            return Err(error_at(
                e.map_or(at, |e| e.span()),
                format!("a `{name}` accumulator is reduced by its `#[device]` custom reducer, named by its type (`TripleSum`)"),
            ));
        };
        let reducer = last_segment(&p.path);
        if REDUCERS.contains(&reducer.as_str()) {
            return Err(error_at(
                p.span(),
                format!("`{reducer}` reduces scalars; a `{name}` accumulator takes its `#[device]` custom reducer"),
            ));
        }
        cx.reducer_deps.push(p.path.clone());
        return Ok(reducer);
    }
    if let Elem::Tuple(fields) = elem {
        let Some(Expr::Tuple(rs)) = e else {
            return Err(error_at(
                e.map_or(at, |e| e.span()),
                format!(
                    "a tuple accumulator is reduced by a tuple of {} reducers (`(Sum, Max)`)",
                    fields.len()
                ),
            ));
        };
        if rs.elems.len() != fields.len() {
            return Err(error_at(
                rs.span(),
                format!(
                    "{} reducers for a tuple of {} fields",
                    rs.elems.len(),
                    fields.len()
                ),
            ));
        }
        let ops = rs
            .elems
            .iter()
            .zip(fields)
            .map(|(r, f)| Ok(format!("granule::{}<{}>", reducer_name(r)?, f.cpp())))
            .collect::<Result<Vec<_>>>()?;
        return Ok(format!("granule::Reducers<{}>", ops.join(", ")));
    }
    Ok(format!("granule::{}<{t}>", nested_reducer(e, elem, at)?))
}

fn nested_reducer(e: Option<&Expr>, elem: &Elem, at: Span) -> Result<&'static str> {
    let Elem::Acc(acc) = elem else {
        return e.map_or(Ok("Sum"), reducer_name);
    };
    let (ty, fits): (&str, &[&'static str]) = match acc.kind {
        AccKind::ValLoc => ("ValLocScalar", &["MinLoc", "MaxLoc"]),
        AccKind::MinMaxLoc => ("MinMaxLocScalar", &["MinMaxLoc"]),
        AccKind::MinMax => ("MinMaxScalar", &["MinMax"]),
    };
    let given = match e {
        Some(Expr::Path(p)) => last_segment(&p.path),
        _ => "Sum".to_string(),
    };
    fits.iter().find(|r| **r == given).copied().ok_or_else(|| {
        let names: Vec<String> = fits.iter().map(|r| format!("`{r}`")).collect();
        error_at(
            e.map_or(at, |e| e.span()),
            format!("a `{ty}` accumulator is reduced by {}", names.join(" or ")),
        )
    })
}

/// A nested range: the header functions' stem, the team, the bounds.
struct NestedRange {
    stem: &'static str,
    team: String,
    begin: String,
    end: String,
}

impl Cx {
    /// `Range::new(team, a..b).parallel_for(f)`, `.parallel_reduce(R, f)`,
    /// `.parallel_scan(f)`, `.parallel_scan_with(R, f)`; `None` when `m` is
    /// not such a call.
    pub fn nested(&mut self, m: &ExprMethodCall) -> Result<Option<(String, Ty)>> {
        let method = m.method.to_string();
        if !matches!(
            method.as_str(),
            "parallel_for" | "parallel_reduce" | "parallel_scan" | "parallel_scan_with"
        ) {
            return Ok(None);
        }
        let Some(range) = self.nested_range(&m.receiver)? else {
            return Ok(None);
        };
        let args: Vec<&Expr> = m.args.iter().collect();
        let at = m.method.span();
        let team = range.team.clone();
        let r = match (method.as_str(), args.as_slice()) {
            ("parallel_for", [Expr::Closure(f)]) => {
                let lambda = self.closure(f, &[None])?;
                let NestedRange {
                    stem,
                    team,
                    begin,
                    end,
                } = range;
                (
                    format!("granule::{stem}_for({team}, {begin}, {end}, {lambda})"),
                    Ty::Unit,
                )
            }
            ("parallel_reduce", [reducer, Expr::Closure(f)]) => {
                self.nested_fold(&range, Fold::Reduce, Some(reducer), f, at)?
            }
            ("parallel_scan", [Expr::Closure(f)]) => {
                self.nested_fold(&range, Fold::Scan, None, f, at)?
            }
            ("parallel_scan_with", [reducer, Expr::Closure(f)]) => {
                self.nested_fold(&range, Fold::Scan, Some(reducer), f, at)?
            }
            _ => {
                let takes = match method.as_str() {
                    "parallel_reduce" | "parallel_scan_with" => "a reducer and a closure",
                    _ => "a closure",
                };
                return Err(error_at(
                    at,
                    format!("`{method}` on a nested range takes {takes}"),
                ));
            }
        };
        let (text, ty) = r;
        Ok(Some((self.phase(at, &team, text), ty)))
    }

    /// A nested reduction or scan: the accumulator type from the closure's
    /// annotation, the reducer checked against it, the header's
    /// `granule::<stem>_<reduce|scan><Op, T>` call; its value is the result
    /// (a scan's total).
    fn nested_fold(
        &mut self,
        r: &NestedRange,
        fold: Fold,
        reducer: Option<&Expr>,
        f: &syn::ExprClosure,
        at: Span,
    ) -> Result<(String, Ty)> {
        let example = match fold {
            Fold::Reduce => "|j, acc: &mut f64| ..",
            Fold::Scan => "|i, partial: &mut i64, last: bool| ..",
        };
        let elem = self.annotated_elem(f, example)?;
        if fold == Fold::Scan && matches!(elem, Elem::Tuple(_) | Elem::Struct(_)) {
            return Err(error_at(
                at,
                "a team-level scan of a tuple or a struct (scan each field, or reduce it)",
            ));
        }
        let t = self.infer.cpp(&elem);
        let op = team_reducer(self, reducer, &elem, &t, at)?;
        let mut kinds = vec![None, Some(Ty::Out(elem.clone()))];
        if fold == Fold::Scan {
            kinds.push(Some(Ty::scalar(Scalar::Bool)));
        }
        let lambda = self.closure(f, &kinds)?;
        let NestedRange {
            stem,
            team,
            begin,
            end,
        } = r;
        let which = match fold {
            Fold::Reduce => "reduce",
            Fold::Scan => "scan",
        };
        Ok((
            format!("granule::{stem}_{which}<{op}, {t}>({team}, {begin}, {end}, {lambda})"),
            Ty::Elem(elem),
        ))
    }

    /// `Kind::new(team, a..b)`: stem, team, bounds; `None` if not a range.
    fn nested_range(&mut self, e: &Expr) -> Result<Option<NestedRange>> {
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
        Ok(Some(NestedRange {
            stem,
            team,
            begin: self.value_as(b, &usize_)?,
            end: self.value_as(e, &usize_)?,
        }))
    }

    /// The element type from the annotation of a closure's second
    /// parameter, `acc: &mut T`.
    fn annotated_elem(&mut self, f: &syn::ExprClosure, example: &str) -> Result<Elem> {
        if let Some(syn::Pat::Type(pt)) = f.inputs.iter().nth(1) {
            if let syn::Type::Reference(r) = &*pt.ty {
                return self.acc_or_elem(&r.elem);
            }
        }
        Err(error_at(
            f.span(),
            format!("annotate the accumulator's type: `{example}`"),
        ))
    }

    /// A scalar or generic type, a location or min-max accumulator, a
    /// tuple of scalars, or a `#[device] struct`.
    fn acc_or_elem(&mut self, ty: &syn::Type) -> Result<Elem> {
        if let Some(fields) = super::types::tuple_of(ty)? {
            return Ok(Elem::Tuple(fields));
        }
        if let Some(path) = super::types::struct_of(ty, &self.generics) {
            let name = last_segment(&path);
            self.struct_deps.push(path);
            return Ok(Elem::Struct(name));
        }
        match acc_of(ty)? {
            Some(acc) => Ok(Elem::Acc(acc)),
            None => super::types::elem_of(ty, &self.generics),
        }
    }

    /// A closure as a C++ lambda capturing by reference; `kinds` gives the
    /// type of each parameter (None: the usize index); a `_` parameter is
    /// unnamed in C++.
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
                let want = self.acc_or_elem(inner)?;
                self.unify(e, &want, a.span())?;
            }
            let cpp = match &ty {
                Ty::Out(e) => format!("{}&", self.infer.cpp(e)),
                Ty::Elem(e) => self.infer.cpp(e),
                _ => unreachable!("closure parameters are scalars or references"),
            };
            match name {
                Some(name) => {
                    params.push(format!("{cpp} {name}"));
                    self.bind(name, ty, false);
                }
                None => params.push(cpp),
            }
        }
        let saved = self.frame;
        self.frame = Frame::default();
        let body = self.closure_body(&f.body);
        self.frame = saved;
        self.pop();
        Ok(format!("[&]({}) {{\n{}}}", params.join(", "), body?))
    }

    /// A closure's body as statements (its value, if any, dropped).
    pub(super) fn closure_statements(&mut self, body: &Expr) -> Result<String> {
        self.closure_body(body)
    }

    fn closure_body(&mut self, body: &Expr) -> Result<String> {
        let block = match body {
            Expr::Block(b) => b.block.clone(),
            e => syn::parse_quote!({ #e; }),
        };
        self.block_stmts(&block, 1)
    }
}

/// A closure parameter's name (`None` for `_`) and type annotation.
fn closure_param(p: &syn::Pat) -> Result<(Option<String>, Option<&syn::Type>)> {
    match p {
        syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
            Ok((Some(i.ident.to_string()), None))
        }
        syn::Pat::Wild(_) => Ok((None, None)),
        syn::Pat::Type(t) => closure_param(&t.pat).map(|(n, _)| (n, Some(&*t.ty))),
        _ => Err(unsupported(p, "this closure parameter pattern")),
    }
}
