//! Statements, blocks and loops.

use super::cx::Cx;
use super::errors::{error_at, unsupported, Result};
use super::types::{elem_of, Elem, Scalar, Ty};
use syn::spanned::Spanned;
use syn::{Expr, Stmt};

fn pad(depth: usize) -> String {
    "  ".repeat(depth)
}

impl Cx {
    /// The statements of a block whose value is not used, one per line.
    pub fn block_stmts(&mut self, b: &syn::Block, depth: usize) -> Result<String> {
        self.push();
        let r = b
            .stmts
            .iter()
            .map(|s| self.stmt(s, depth))
            .collect::<Result<Vec<_>>>();
        self.pop();
        Ok(r?.concat())
    }

    /// The body of a block or `if` used as a value, as the statements of a
    /// lambda that `return`s the value: `(body, type)`.
    pub fn value_stmts(&mut self, e: &Expr, depth: usize) -> Result<(String, Ty)> {
        match e {
            Expr::Block(b) => {
                let Some((Stmt::Expr(tail, None), init)) = b.block.stmts.split_last() else {
                    return Err(error_at(e.span(), "this block has no value"));
                };
                self.push();
                let r = (|| {
                    let mut out = init
                        .iter()
                        .map(|s| self.stmt(s, depth))
                        .collect::<Result<Vec<_>>>()?
                        .concat();
                    let (tail_out, ty) = self.value_stmts(tail, depth)?;
                    out.push_str(&tail_out);
                    Ok((out, ty))
                })();
                self.pop();
                r
            }
            Expr::If(i) => {
                let Some((_, else_e)) = &i.else_branch else {
                    return Err(error_at(
                        i.span(),
                        "an `if` used as a value needs an `else`",
                    ));
                };
                let cond = self.value_as(&i.cond, &Elem::Scalar(Scalar::Bool))?;
                let then = Expr::Block(syn::ExprBlock {
                    attrs: vec![],
                    label: None,
                    block: i.then_branch.clone(),
                });
                let (a, at) = self.value_stmts(&then, depth + 1)?;
                let (b, bt) = self.value_stmts(else_e, depth + 1)?;
                let ty = self.join_types(at, bt, i.span())?;
                let p = pad(depth);
                Ok((
                    format!("{p}if ({cond}) {{\n{a}{p}}} else {{\n{b}{p}}}\n"),
                    ty,
                ))
            }
            other => {
                let (t, ty) = self.expr(other)?;
                Ok((format!("{}return {t};\n", pad(depth)), ty))
            }
        }
    }

    fn join_types(&mut self, a: Ty, b: Ty, span: proc_macro2::Span) -> Result<Ty> {
        match (a, b) {
            (Ty::Elem(x), Ty::Elem(y)) => Ok(Ty::Elem(self.unify(&x, &y, span)?)),
            (a, b) if a == b => Ok(a),
            _ => Err(error_at(span, "the branches have different types")),
        }
    }

    pub fn stmt(&mut self, s: &Stmt, depth: usize) -> Result<String> {
        let p = pad(depth);
        match s {
            Stmt::Local(l) => self.local(l, depth),
            Stmt::Item(syn::Item::Const(c)) => self.const_item(c, depth),
            Stmt::Item(i) => Err(unsupported(i, "this item inside a kernel (only `const`)")),
            Stmt::Macro(m) => Ok(format!("{p}{};\n", self.assert_macro(&m.mac)?)),
            Stmt::Expr(e, semi) => {
                if let Some(text) = self.control(e, depth)? {
                    return Ok(text);
                }
                let (t, ty) = self.expr(e)?;
                if semi.is_none()
                    && !matches!(ty, Ty::Unit)
                    && self.ret.is_some()
                    && self.frame.loops == 0
                {
                    // The tail of a `#[device]` function is its result.
                    let ret = self.ret.clone().expect("checked");
                    let elem = self.elem(&ty, e.span())?;
                    self.unify(&elem, &ret, e.span())?;
                    return Ok(format!("{p}return {t};\n"));
                }
                Ok(format!("{p}{t};\n"))
            }
        }
    }

    /// Statement-level control flow; `None` for other expressions.
    fn control(&mut self, e: &Expr, depth: usize) -> Result<Option<String>> {
        let p = pad(depth);
        Ok(Some(match e {
            Expr::If(i) => self.if_stmt(i, depth)?,
            Expr::While(w) => {
                if w.label.is_some() {
                    return Err(unsupported(w, "a labelled loop"));
                }
                if let Expr::Let(_) = &*w.cond {
                    return Err(unsupported(&w.cond, "`while let`"));
                }
                let cond = self.value_as(&w.cond, &Elem::Scalar(Scalar::Bool))?;
                let body = self.loop_body(&w.body, depth + 1)?;
                format!("{p}while ({cond}) {{\n{body}{p}}}\n")
            }
            Expr::Loop(l) => {
                if l.label.is_some() {
                    return Err(unsupported(l, "a labelled loop"));
                }
                let body = self.loop_body(&l.body, depth + 1)?;
                format!("{p}while (true) {{\n{body}{p}}}\n")
            }
            Expr::ForLoop(f) => self.for_loop(f, depth)?,
            Expr::Block(b) if b.label.is_none() => {
                let body = self.block_stmts(&b.block, depth + 1)?;
                format!("{p}{{\n{body}{p}}}\n")
            }
            _ => return Ok(None),
        }))
    }

    /// A loop's body; it starts with `GRANULE_LOOP_TICK();`, which lets the
    /// emulator stop a loop that runs past the launch's time limit even
    /// when it touches no memory (nothing on a GPU).
    fn loop_body(&mut self, b: &syn::Block, depth: usize) -> Result<String> {
        self.frame.loops += 1;
        let r = self.block_stmts(b, depth);
        self.frame.loops -= 1;
        Ok(format!("{}GRANULE_LOOP_TICK();\n{}", pad(depth), r?))
    }

    fn if_stmt(&mut self, i: &syn::ExprIf, depth: usize) -> Result<String> {
        let p = pad(depth);
        if let Expr::Let(_) = &*i.cond {
            return Err(unsupported(&i.cond, "`if let`"));
        }
        let cond = self.value_as(&i.cond, &Elem::Scalar(Scalar::Bool))?;
        let then = self.block_stmts(&i.then_branch, depth + 1)?;
        let mut out = format!("{p}if ({cond}) {{\n{then}{p}}}");
        match i.else_branch.as_ref().map(|(_, e)| &**e) {
            None => out.push('\n'),
            Some(Expr::If(inner)) => {
                let rest = self.if_stmt(inner, depth)?;
                out.push_str(" else ");
                out.push_str(rest.trim_start());
            }
            Some(Expr::Block(b)) => {
                let body = self.block_stmts(&b.block, depth + 1)?;
                out.push_str(&format!(" else {{\n{body}{p}}}\n"));
            }
            Some(other) => return Err(unsupported(other, "this `else` branch")),
        }
        Ok(out)
    }

    fn local(&mut self, l: &syn::Local, depth: usize) -> Result<String> {
        let p = pad(depth);
        if let syn::Pat::Tuple(t) = &l.pat {
            if let Some(syn::LocalInit {
                expr,
                diverge: None,
                ..
            }) = &l.init
            {
                if let syn::Expr::Tuple(values) = &**expr {
                    return self.tuple_literal_local(t, values, depth);
                }
            }
            return self.tuple_local(t, l, depth);
        }
        if let syn::Pat::Slice(sl) = &l.pat {
            return self.array_local(sl, l, depth);
        }
        let (name, mutable, annotated) = local_pattern(&l.pat)?;
        let declared = annotated.map(|t| self.type_elem(t)).transpose()?;
        let Some(init) = &l.init else {
            let Some(elem) = declared else {
                return Err(error_at(
                    l.span(),
                    "a `let` without a value needs a type annotation",
                ));
            };
            let cpp = self.infer.cpp(&elem);
            self.bind(name.clone(), Ty::Elem(elem), true);
            return Ok(format!("{p}{cpp} {name};\n"));
        };
        if init.diverge.is_some() {
            return Err(unsupported(l, "`let .. else`"));
        }
        let (value, ty) = self.expr(&init.expr)?;
        let ty = match (ty, declared) {
            (Ty::Elem(e), Some(d)) => Ty::Elem(self.unify(&e, &d, init.expr.span())?),
            (
                ty @ (Ty::View { .. }
                | Ty::Atomic { .. }
                | Ty::Chunk { .. }
                | Ty::InsertResult
                | Ty::ScatterAccess { .. }),
                None,
            ) => {
                self.bind(name.clone(), ty, false);
                return Ok(format!("{p}const auto {name} = {value};\n"));
            }
            (ty @ Ty::Elem(_), None) => ty,
            _ => {
                return Err(error_at(
                    init.expr.span(),
                    "this value cannot be bound by `let`",
                ))
            }
        };
        let elem = self.elem(&ty, init.expr.span())?;
        let cpp = self.infer.cpp(&elem);
        let konst = if mutable { "" } else { "const " };
        self.bind(name.clone(), ty, mutable);
        Ok(format!("{p}{konst}{cpp} {name} = {value};\n"))
    }

    /// `let (a, b, ..) = (x, y, ..);`: every value is evaluated into a
    /// temporary first, then each is bound by name (`_` skips one), as in
    /// Rust, where the values are computed before any name is bound: so
    /// `let (a, b) = (b, a);` swaps.
    fn tuple_literal_local(
        &mut self,
        t: &syn::PatTuple,
        values: &syn::ExprTuple,
        depth: usize,
    ) -> Result<String> {
        let p = pad(depth);
        if t.elems.len() != values.elems.len() {
            return Err(error_at(
                t.span(),
                format!("the tuple has {} fields", values.elems.len()),
            ));
        }
        let mut out = String::new();
        let mut temps = Vec::new();
        for v in &values.elems {
            let (value, ty) = self.expr(v)?;
            if !matches!(ty, Ty::Elem(_)) {
                return Err(error_at(v.span(), "this value cannot be bound by `let`"));
            }
            let elem = self.elem(&ty, v.span())?;
            let tmp = self.tmp("field");
            out.push_str(&format!(
                "{p}const {} {tmp} = {value};\n",
                self.infer.cpp(&elem)
            ));
            temps.push((tmp, elem));
        }
        for (pat, (tmp, elem)) in t.elems.iter().zip(temps) {
            if matches!(pat, syn::Pat::Wild(_)) {
                continue;
            }
            let (name, mutable, annotated) = local_pattern(pat)?;
            let elem = match annotated {
                Some(a) => {
                    let declared = self.type_elem(a)?;
                    self.unify(&elem, &declared, a.span())?
                }
                None => elem,
            };
            let cpp = self.infer.cpp(&elem);
            let konst = if mutable { "" } else { "const " };
            out.push_str(&format!("{p}{konst}{cpp} {name} = {tmp};\n"));
            self.bind(name, Ty::Elem(elem), mutable);
        }
        Ok(out)
    }

    /// `let (a, b, ..) = tuple;`: a tuple value (an `overflowing_*` pair, a
    /// tuple accumulator's value, a local tuple, a helper's result) bound
    /// once, then each field by name (`_` skips one).
    fn tuple_local(&mut self, t: &syn::PatTuple, l: &syn::Local, depth: usize) -> Result<String> {
        let Some(init) = l.init.as_ref().filter(|i| i.diverge.is_none()) else {
            return Err(unsupported(
                l,
                "a tuple `let` without a value, or with `else`",
            ));
        };
        let (value, ty) = self.expr(&init.expr)?;
        let elem = self.elem(&ty, init.expr.span())?;
        let fields: Vec<Elem> = match self.infer.resolve(&elem) {
            Elem::Tuple(fields) => fields.into_iter().map(Elem::Scalar).collect(),
            Elem::TupleOf(fields) => fields,
            // A tuple only C++ sees (a helper's result): rustc has checked
            // the pattern's length.
            Elem::Deduced(d) => (0..t.elems.len())
                .map(|k| Elem::Deduced(format!("granule::FieldOf<{k}, {d}>")))
                .collect(),
            _ => return Err(error_at(init.expr.span(), "this value is not a tuple")),
        };
        if fields.len() != t.elems.len() {
            return Err(error_at(
                t.span(),
                format!("the tuple has {} fields", fields.len()),
            ));
        }
        let parts = fields
            .into_iter()
            .enumerate()
            .map(|(k, f)| (format!("granule::get<{k}>"), f))
            .collect();
        self.destructure(t.elems.iter().collect(), ("tuple", &value), parts, depth)
    }

    /// `let [x, y, z] = array;`: the array bound once, then each element by
    /// name (`_` skips one).
    fn array_local(&mut self, sl: &syn::PatSlice, l: &syn::Local, depth: usize) -> Result<String> {
        let Some(init) = l.init.as_ref().filter(|i| i.diverge.is_none()) else {
            return Err(unsupported(
                l,
                "an array `let` without a value, or with `else`",
            ));
        };
        let (value, ty) = self.expr(&init.expr)?;
        let elem = self.elem(&ty, init.expr.span())?;
        let n = sl.elems.len();
        let elem = match self.infer.resolve(&elem) {
            Elem::Array(e, len) if len.parse::<usize>().map_or(true, |m| m == n) => *e,
            Elem::Array(_, len) => {
                return Err(error_at(
                    sl.span(),
                    format!("the array has {len} elements, the pattern {n}"),
                ))
            }
            Elem::Deduced(d) => Elem::Deduced(format!("granule::ElemOf<{d}>")),
            _ => return Err(error_at(init.expr.span(), "this value is not an array")),
        };
        let parts = (0..n).map(|k| (format!("[{k}]"), elem.clone())).collect();
        self.destructure(sl.elems.iter().collect(), ("array", &value), parts, depth)
    }

    /// Binds `value` to a hidden name (of stem `stem`), then each pattern
    /// to its part (the
    /// C++ that reads it from the whole, `granule::get<k>` before it or
    /// `[k]` after it, and its type).
    fn destructure(
        &mut self,
        pats: Vec<&syn::Pat>,
        (stem, value): (&str, &str),
        parts: Vec<(String, Elem)>,
        depth: usize,
    ) -> Result<String> {
        let p = pad(depth);
        let whole = self.tmp(stem);
        let mut out = format!("{p}const auto {whole} = {value};\n");
        for (pat, (part, elem)) in pats.into_iter().zip(parts) {
            if matches!(pat, syn::Pat::Wild(_)) {
                continue;
            }
            if let syn::Pat::Rest(r) = pat {
                return Err(unsupported(r, "`..` in a pattern (name every element)"));
            }
            let (name, mutable, annotated) = local_pattern(pat)?;
            let elem = match annotated {
                Some(a) => {
                    let declared = self.type_elem(a)?;
                    self.unify(&declared, &elem, a.span())?
                }
                None => elem,
            };
            let read = if part.starts_with('[') {
                format!("{whole}{part}")
            } else {
                format!("{part}({whole})")
            };
            let konst = if mutable { "" } else { "const " };
            let cpp = self.infer.cpp(&elem);
            out.push_str(&format!("{p}{konst}{cpp} {name} = {read};\n"));
            self.bind(name, Ty::Elem(elem), mutable);
        }
        Ok(out)
    }

    fn const_item(&mut self, c: &syn::ItemConst, depth: usize) -> Result<String> {
        let elem = self.type_elem(&c.ty)?;
        let value = self.value_as(&c.expr, &elem)?;
        let name = c.ident.to_string();
        let cpp = self.infer.cpp(&elem);
        self.bind(name.clone(), Ty::Elem(elem), false);
        Ok(format!("{}const {cpp} {name} = {value};\n", pad(depth)))
    }

    /// `for x in a..b`, `a..=b`, with `.rev()` and `.step_by(s)` in either
    /// order. A plain forward range stays a simple counted loop (easy to
    /// vectorize); the others count iterations in u64 so no step overflows.
    fn for_loop(&mut self, f: &syn::ExprForLoop, depth: usize) -> Result<String> {
        let p = pad(depth);
        if f.label.is_some() {
            return Err(unsupported(f, "a labelled loop"));
        }
        let (name, _, annotated) = local_pattern(&f.pat)?;
        let spec = RangeSpec::parse(&f.expr)?;
        let (Some(start), Some(end)) = (&spec.range.start, &spec.range.end) else {
            return Err(unsupported(&spec.range, "an open range in `for`"));
        };
        let (a, ae) = self.value(start)?;
        let (b, be) = self.value(end)?;
        let mut elem = self.unify(&ae, &be, spec.range.span())?;
        if let Some(t) = annotated {
            let d = elem_of(t, &self.generics)?;
            elem = self.unify(&elem, &d, t.span())?;
        }
        let step = spec
            .step
            .map(|s| self.value_as(s, &Elem::Scalar(Scalar::Usize)))
            .transpose()?;
        let inclusive = matches!(spec.range.limits, syn::RangeLimits::Closed(_));
        self.push();
        self.bind(name.clone(), Ty::Elem(elem.clone()), false);
        let body = self.loop_body(&f.body, depth + 1);
        self.pop();
        let body = body?;
        let t = self.infer.cpp(&elem);
        let it = self.tmp("it");
        if !spec.rev && step.is_none() && !inclusive {
            let end = self.tmp("end");
            return Ok(format!(
                "{p}for ({t} {it} = {a}, {end} = {b}; {it} < {end}; ++{it}) {{\n{p}  const {t} {name} = {it};\n{body}{p}}}\n"
            ));
        }
        let n = self.tmp("n");
        let len = if inclusive {
            "range_len_incl"
        } else {
            "range_len"
        };
        let step = step.unwrap_or_else(|| "1ull".into());
        let count = format!("granule::div_ceil(granule::{len}({a}, {b}), {step})");
        let value = if spec.rev {
            // The last element, then down by the step.
            let last = if inclusive {
                b.clone()
            } else {
                format!("granule::range_at({b}, ~0ull)")
            };
            format!("granule::range_at({last}, (granule::u64)0 - {it} * {step})")
        } else {
            format!("granule::range_at({a}, {it} * {step})")
        };
        let value = if spec.rev && spec.step_before_rev {
            // (a..b).step_by(s).rev(): the elements a + k*s, last first.
            format!("granule::range_at({a}, ({n} - 1ull - {it}) * {step})")
        } else {
            value
        };
        Ok(format!(
            "{p}for (granule::u64 {it} = 0, {n} = {count}; {it} < {n}; ++{it}) {{\n{p}  const {t} {name} = {value};\n{body}{p}}}\n"
        ))
    }
}

/// A `for` loop's iterator: a range with optional `.rev()`/`.step_by()`.
struct RangeSpec<'a> {
    range: &'a syn::ExprRange,
    rev: bool,
    step: Option<&'a Expr>,
    step_before_rev: bool,
}

impl<'a> RangeSpec<'a> {
    fn parse(e: &'a Expr) -> Result<Self> {
        match e {
            Expr::Range(r) => Ok(RangeSpec {
                range: r,
                rev: false,
                step: None,
                step_before_rev: false,
            }),
            Expr::Paren(p) => Self::parse(&p.expr),
            Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                let mut inner = Self::parse(&m.receiver)?;
                if inner.rev {
                    return Err(unsupported(m, "`.rev()` twice"));
                }
                inner.rev = true;
                inner.step_before_rev = inner.step.is_some();
                Ok(inner)
            }
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                let mut inner = Self::parse(&m.receiver)?;
                if inner.step.is_some() {
                    return Err(unsupported(m, "`.step_by()` twice"));
                }
                inner.step = Some(&m.args[0]);
                Ok(inner)
            }
            _ => Err(unsupported(
                e,
                "iterating over anything but a range (with `.rev()` / `.step_by()`)",
            )),
        }
    }
}

/// `x`, `mut x`, or either with a type: `(name, mutable, type)`.
fn local_pattern(p: &syn::Pat) -> Result<(String, bool, Option<&syn::Type>)> {
    match p {
        syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
            Ok((i.ident.to_string(), i.mutability.is_some(), None))
        }
        syn::Pat::Type(t) => local_pattern(&t.pat).map(|(n, m, _)| (n, m, Some(&*t.ty))),
        _ => Err(unsupported(
            p,
            "this pattern (only `name`, `mut name`, or a tuple of them: `(v, o)`)",
        )),
    }
}
