//! Expressions: each becomes C++ text plus its type.

use super::cx::Cx;
use super::errors::{error_at, unsupported, Result};
use super::infer::VarKind;
use super::types::{array_cpp, array_len, array_len_error, segment_names, Elem, Scalar, Ty};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, UnOp};

/// How an element type's arithmetic must be spelled to keep Rust semantics.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arith {
    Float,
    Unsigned,
    /// Signed, generic or an integer literal: through the header's
    /// wrapping helpers, exact for every integer type.
    Signed,
    Bool,
    /// Unknown to the translator: plain C++ operators.
    Auto,
}

impl Cx {
    fn arith(&self, e: &Elem) -> Arith {
        match self.infer.resolve(e) {
            Elem::Scalar(s) if s.is_float() => Arith::Float,
            Elem::Scalar(Scalar::Bool) => Arith::Bool,
            Elem::Scalar(s) if s.is_signed_int() => Arith::Signed,
            Elem::Scalar(_) => Arith::Unsigned,
            Elem::Var(_) if self.infer.kind(e) == Some(VarKind::Float) => Arith::Float,
            Elem::Var(_) | Elem::Generic(_) | Elem::Deduced(_) => Arith::Signed,
            Elem::Auto
            | Elem::Acc(_)
            | Elem::Tuple(_)
            | Elem::Struct(_)
            | Elem::Array(..)
            | Elem::TupleOf(_) => Arith::Auto,
        }
    }

    /// Translates an expression that must have a value.
    pub fn value(&mut self, e: &Expr) -> Result<(String, Elem)> {
        let (text, ty) = self.expr(e)?;
        let elem = self.elem(&ty, e.span())?;
        Ok((text, elem))
    }

    /// Translates an expression that must have element type `want`.
    pub fn value_as(&mut self, e: &Expr, want: &Elem) -> Result<String> {
        let (text, elem) = self.value(e)?;
        self.unify(&elem, want, e.span())?;
        Ok(text)
    }

    pub fn expr(&mut self, e: &Expr) -> Result<(String, Ty)> {
        match e {
            Expr::Lit(l) => self.literal(&l.lit, false),
            Expr::Paren(p) => self.expr(&p.expr).map(|(t, ty)| (format!("({t})"), ty)),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Path(p) => self.path(p),
            Expr::Unary(u) => self.unary(u),
            Expr::Binary(b) => self.binary(b),
            Expr::Assign(a) => self.assign(&a.left, None, &a.right, a.span()),
            Expr::Cast(c) => self.cast(c),
            Expr::Index(i) => self.index(i).map(|(t, elem, _)| (t, Ty::Elem(elem))),
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) => self.call(c),
            Expr::If(i) => self.if_value(i),
            Expr::Block(b) if b.label.is_none() => self.block_value(&b.block),
            Expr::Return(r) => self.return_expr(r),
            Expr::Break(b) => self.break_expr(b),
            Expr::Continue(c) => self.continue_expr(c),
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => Err(error_at(
                e.span(),
                "loops are statements here: a loop used as a value is not supported",
            )),
            Expr::Closure(_) => Err(unsupported(
                e,
                "a closure outside a nested parallel pattern",
            )),
            Expr::Macro(m) => Ok((self.assert_macro(&m.mac)?, Ty::Unit)),
            Expr::Range(_) => Err(unsupported(
                e,
                "a range outside a `for` loop or nested range",
            )),
            Expr::Reference(_) => Err(unsupported(e, "taking a reference")),
            Expr::Tuple(t) => self.tuple_literal(t),
            Expr::Array(a) => self.array_literal(a),
            Expr::Repeat(r) => self.array_repeat(r),
            Expr::Match(_) => Err(unsupported(e, "`match`")),
            Expr::Struct(st) => self.struct_literal(st),
            Expr::Field(f) => self.field(f).map(|(t, elem)| (t, Ty::Elem(elem))),
            Expr::Unsafe(_) => Err(unsupported(e, "an `unsafe` block")),
            _ => Err(unsupported(e, "this expression")),
        }
    }

    fn literal(&mut self, lit: &Lit, negated: bool) -> Result<(String, Ty)> {
        let sign = if negated { "-" } else { "" };
        let (digits, suffix, kind) = match lit {
            Lit::Bool(b) => return Ok((b.value.to_string(), Ty::scalar(Scalar::Bool))),
            Lit::Int(i) => (
                i.base10_digits().to_string(),
                i.suffix().to_string(),
                VarKind::Int,
            ),
            Lit::Float(f) => (
                f.base10_digits().to_string(),
                f.suffix().to_string(),
                VarKind::Float,
            ),
            _ => return Err(unsupported(lit, "this literal (only numbers and booleans)")),
        };
        let text = format!("{sign}{digits}");
        let elem = if suffix.is_empty() {
            self.infer.fresh(kind)
        } else {
            let s = Scalar::from_name(&suffix)
                .ok_or_else(|| unsupported(lit, "this literal suffix"))?;
            if kind == VarKind::Float && !s.is_float() {
                return Err(unsupported(lit, "this literal suffix"));
            }
            Elem::Scalar(s)
        };
        Ok((self.infer.literal(&elem, &text), Ty::Elem(elem)))
    }

    fn path(&mut self, p: &syn::ExprPath) -> Result<(String, Ty)> {
        let segs = segment_names(&p.path);
        if let [name] = segs.as_slice() {
            if let Some(var) = self.lookup(name) {
                return Ok((name.clone(), var.ty.clone()));
            }
            if name == "self" {
                return Err(error_at(
                    p.span(),
                    "`self` has no device value: a `#[device]` reducer is stateless (its methods use their parameters only)",
                ));
            }
            if name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
                self.deps.push(p.path.clone());
                return Ok((name.clone(), Ty::Elem(super::types::deduced(name))));
            }
            return Err(error_at(p.span(), format!("unknown variable `{name}`")));
        }
        if let [ty, item] = segs.as_slice() {
            if let Some(s) = Scalar::from_name(ty) {
                return assoc_const(s, item)
                    .map(|t| (t, Ty::scalar(s)))
                    .ok_or_else(|| unsupported(p, "this associated constant"));
            }
        }
        Err(unsupported(p, "this path"))
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> Result<(String, Ty)> {
        match (&u.op, &*u.expr) {
            (UnOp::Neg(_), Expr::Lit(l)) => self.literal(&l.lit, true),
            (UnOp::Neg(_), e) => {
                let (t, elem) = self.value(e)?;
                match self.arith(&elem) {
                    // A float's sign bit flipped, its NaN payload kept
                    // (PTX's neg.f32 leaves a NaN's bits unspecified).
                    Arith::Float => Ok((format!("granule::neg({t})"), Ty::Elem(elem))),
                    // wneg wraps an integer and flips a float's sign bit.
                    Arith::Signed | Arith::Auto => {
                        Ok((format!("granule::wneg({t})"), Ty::Elem(elem)))
                    }
                    _ => Err(error_at(
                        u.span(),
                        "cannot negate an unsigned or bool value",
                    )),
                }
            }
            (UnOp::Not(_), e) => {
                let (t, elem) = self.value(e)?;
                Ok((self.not_text(&t, &elem), Ty::Elem(elem)))
            }
            (UnOp::Deref(_), e) => match self.expr(e)? {
                (t, Ty::Out(elem)) => Ok((t, Ty::Elem(elem))),
                _ => Err(unsupported(
                    u,
                    "dereferencing anything but an output or accumulator",
                )),
            },
            _ => Err(unsupported(u, "this unary operator")),
        }
    }

    /// Rust's `!t`: logical on a bool, bitwise on an integer. Where only
    /// C++ sees the type (a `#[device]` function's result, a struct field,
    /// a generic), the header's `not_` picks by type: `~` on a bool would
    /// turn `true` (1) into -2, which is true again.
    fn not_text(&self, t: &str, elem: &Elem) -> String {
        match self.infer.resolve(elem) {
            Elem::Scalar(Scalar::Bool) => format!("(!{t})"),
            // `~` promotes to `int`: cast back to the narrow type.
            Elem::Scalar(s) if s.is_narrow() => format!("(({})(~{t}))", s.cpp()),
            Elem::Scalar(_) | Elem::Var(_) => format!("(~{t})"),
            Elem::Generic(_)
            | Elem::Deduced(_)
            | Elem::Auto
            | Elem::Acc(_)
            | Elem::Tuple(_)
            | Elem::Struct(_)
            | Elem::Array(..)
            | Elem::TupleOf(_) => format!("granule::not_({t})"),
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Result<(String, Ty)> {
        if let Some(op) = compound_op(&b.op) {
            return self.assign(&b.left, Some(op), &b.right, b.span());
        }
        match &b.op {
            BinOp::And(_) | BinOp::Or(_) => {
                let bool_ = Elem::Scalar(Scalar::Bool);
                let l = self.value_as(&b.left, &bool_)?;
                let r = self.value_as(&b.right, &bool_)?;
                let op = if matches!(b.op, BinOp::And(_)) {
                    "&&"
                } else {
                    "||"
                };
                Ok((format!("({l} {op} {r})"), Ty::Elem(bool_)))
            }
            BinOp::Eq(_)
            | BinOp::Ne(_)
            | BinOp::Lt(_)
            | BinOp::Le(_)
            | BinOp::Gt(_)
            | BinOp::Ge(_) => {
                let (l, le) = self.value(&b.left)?;
                let r = self.value_as(&b.right, &le)?;
                let op = quote::ToTokens::to_token_stream(&b.op).to_string();
                Ok((format!("({l} {op} {r})"), Ty::scalar(Scalar::Bool)))
            }
            BinOp::Shl(_) | BinOp::Shr(_) => {
                let (l, le) = self.value(&b.left)?;
                let (r, _) = self.value(&b.right)?;
                let f = if matches!(b.op, BinOp::Shl(_)) {
                    "shl"
                } else {
                    "shr"
                };
                Ok((format!("granule::{f}({l}, {r})"), Ty::Elem(le)))
            }
            op => {
                let (l, le) = self.value(&b.left)?;
                let r = self.value_as(&b.right, &le)?;
                let elem = self.infer.resolve(&le);
                let text = self.arith_text(op, &l, &r, &elem, b.span())?;
                Ok((text, Ty::Elem(elem)))
            }
        }
    }

    /// `l op r` for an arithmetic or bit operator on `elem`.
    fn arith_text(
        &self,
        op: &BinOp,
        l: &str,
        r: &str,
        elem: &Elem,
        span: proc_macro2::Span,
    ) -> Result<String> {
        let kind = self.arith(elem);
        // Signed overflow is undefined in C++, and 8- and 16-bit operands
        // are promoted to `int`, where even `u16 * u16` overflows: the
        // header's helpers compute in an unsigned type and wrap.
        let narrow = matches!(self.infer.resolve(elem), Elem::Scalar(s) if s.is_narrow());
        let wraps = kind == Arith::Signed || narrow;
        let helper = match (op, kind) {
            (BinOp::Add(_), _) if wraps => "wadd",
            (BinOp::Sub(_), _) if wraps => "wsub",
            (BinOp::Mul(_), _) if wraps => "wmul",
            (BinOp::Div(_), Arith::Signed | Arith::Unsigned) => "div",
            (BinOp::Rem(_), Arith::Signed | Arith::Unsigned | Arith::Float) => "rem",
            (BinOp::BitAnd(_) | BinOp::BitOr(_) | BinOp::BitXor(_), Arith::Float) => {
                return Err(error_at(
                    span,
                    "bit operators need integer or bool operands",
                ))
            }
            (
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_),
                Arith::Bool,
            ) => return Err(error_at(span, "arithmetic on bool")),
            (BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_), _)
            | (BinOp::BitAnd(_) | BinOp::BitOr(_) | BinOp::BitXor(_), _) => "",
            _ => return Err(error_at(span, "this operator is not supported")),
        };
        if kind == Arith::Auto && is_arith(op) {
            // A value C++17 cannot name (a `#[device]` call with a lambda
            // among its arguments): the helper, with `r` converted to the
            // left operand's type (a literal next to it defaults to i32,
            // and Rust has checked that it fits).
            return Ok(format!("granule::{}_as({l}, {r})", auto_helper(op)));
        }
        if helper.is_empty() {
            let op = quote::ToTokens::to_token_stream(op).to_string();
            match self.infer.resolve(elem) {
                // C++ computes narrow integers in `int`: cast back, so the
                // result wraps (and compares) like Rust's.
                Elem::Scalar(s) if s.is_narrow() => Ok(format!("(({})({l} {op} {r}))", s.cpp())),
                _ => Ok(format!("({l} {op} {r})")),
            }
        } else {
            Ok(format!("granule::{helper}({l}, {r})"))
        }
    }

    /// `left = right` or `left op= right`.
    fn assign(
        &mut self,
        left: &Expr,
        op: Option<BinOp>,
        right: &Expr,
        span: proc_macro2::Span,
    ) -> Result<(String, Ty)> {
        let (place, elem) = self.place(left)?;
        let r = self.value_as(right, &elem)?;
        let text = match op {
            None => format!("{place} = {r}"),
            Some(op @ (BinOp::Shl(_) | BinOp::Shr(_))) => {
                let f = if matches!(op, BinOp::Shl(_)) {
                    "shl"
                } else {
                    "shr"
                };
                format!("{place} = granule::{f}({place}, {r})")
            }
            Some(op) => {
                let value = self.arith_text(&op, &place, &r, &elem, span)?;
                match value.strip_prefix('(') {
                    // Plain operators keep the compound form.
                    Some(_) => format!("{place} {}= {r}", quote::ToTokens::to_token_stream(&op)),
                    None => format!("{place} = {value}"),
                }
            }
        };
        // A team thread's write of its own team scratch slot is a phase
        // (see `team_rules::team_scratch`).
        let text = match (&self.team_rules, left) {
            (Some(rules), Expr::Index(_)) => {
                let member = rules.member.clone();
                self.phase(syn::spanned::Spanned::span(left), &member, text)
            }
            _ => text,
        };
        Ok((text, Ty::Unit))
    }

    /// `acc.N` (or `(*acc).N`): field N of a tuple accumulator, readable
    /// and assignable, as `granule::get<N>(acc)` (a reference); `s.name`:
    /// a field of a `#[device] struct`.
    fn field(&mut self, f: &syn::ExprField) -> Result<(String, Elem)> {
        let (base, ty) = self.expr(&f.base)?;
        let ty = match ty {
            Ty::Out(e) => Ty::Out(self.infer.resolve(&e)),
            Ty::Elem(e) => Ty::Elem(self.infer.resolve(&e)),
            other => other,
        };
        let fields = match ty {
            Ty::Out(Elem::Tuple(fs)) | Ty::Elem(Elem::Tuple(fs)) => fs,
            Ty::Out(Elem::TupleOf(fs)) | Ty::Elem(Elem::TupleOf(fs)) => {
                let n = tuple_index(&f.member, fs.len())?;
                return Ok((format!("granule::get<{n}>({base})"), fs[n].clone()));
            }
            Ty::Out(Elem::Struct(s)) | Ty::Elem(Elem::Struct(s)) => {
                return struct_field(&base, &s, &f.member)
            }
            // A tuple only C++ sees (a helper's result): rustc has checked
            // the field number.
            Ty::Elem(Elem::Deduced(d)) if matches!(f.member, syn::Member::Unnamed(_)) => {
                let n = tuple_index(&f.member, usize::MAX)?;
                return Ok((
                    format!("granule::get<{n}>({base})"),
                    Elem::Deduced(format!("granule::FieldOf<{n}, {d}>")),
                ));
            }
            // A value whose type only C++ knows: a `#[device]` helper's
            // `#[device] struct` result (rustc has checked the field).
            Ty::Elem(Elem::Deduced(d)) => return struct_field(&base, &d, &f.member),
            Ty::Out(Elem::Acc(a)) | Ty::Elem(Elem::Acc(a)) => return self.acc_field(f, &base, a),
            _ => {
                return Err(unsupported(
                    f,
                    "field access (only `t.N` of a tuple or a field of a `#[device] struct`)",
                ))
            }
        };
        let syn::Member::Unnamed(idx) = &f.member else {
            return Err(unsupported(&f.member, "a named field of a tuple"));
        };
        let n = idx.index as usize;
        let field = fields.get(n).ok_or_else(|| {
            error_at(
                idx.span,
                format!("the tuple accumulator has {} fields", fields.len()),
            )
        })?;
        Ok((format!("granule::get<{n}>({base})"), Elem::Scalar(*field)))
    }

    /// `[a, b, c]`: a `granule::Array` built in order (a braced list is
    /// evaluated left to right, as Rust evaluates the elements).
    fn array_literal(&mut self, a: &syn::ExprArray) -> Result<(String, Ty)> {
        let Some(first) = a.elems.first() else {
            return Err(unsupported(
                a,
                "an empty array literal (write `[0.0f64; 0]`, whose element type is known)",
            ));
        };
        let (t0, mut elem) = self.value(first)?;
        let mut texts = vec![t0];
        for e in a.elems.iter().skip(1) {
            let (t, el) = self.value(e)?;
            elem = self.unify(&elem, &el, e.span())?;
            texts.push(t);
        }
        let elem = self.nameable(elem, a.span())?;
        let len = a.elems.len().to_string();
        let cpp = array_cpp(&self.infer.cpp(&elem), &len);
        Ok((
            format!("{cpp}{{{{{}}}}}", texts.join(", ")),
            Ty::Elem(Elem::Array(Box::new(elem), len)),
        ))
    }

    /// `[v; N]`: N copies of `v`, evaluated once; N an integer literal or
    /// a constant's name, a C++ template argument.
    fn array_repeat(&mut self, r: &syn::ExprRepeat) -> Result<(String, Ty)> {
        let len = array_len(&r.len).ok_or_else(|| array_len_error(&r.len))?;
        self.length_dep(&r.len);
        let (v, elem) = self.value(&r.expr)?;
        let elem = self.nameable(elem, r.span())?;
        let cpp = self.infer.cpp(&elem);
        Ok((
            format!("granule::repeat<{cpp}, {len}>({v})"),
            Ty::Elem(Elem::Array(Box::new(elem), len)),
        ))
    }

    /// `(a, b, ..)`: a `granule::Tuple` (a head and the tuple of the
    /// rest), built in order.
    fn tuple_literal(&mut self, t: &syn::ExprTuple) -> Result<(String, Ty)> {
        if t.elems.is_empty() {
            return Err(unsupported(t, "the unit value `()` as a value"));
        }
        let mut elems = Vec::new();
        let mut texts = Vec::new();
        for e in &t.elems {
            let (text, elem) = self.value(e)?;
            elems.push(self.nameable(elem, e.span())?);
            texts.push(text);
        }
        let init = texts
            .iter()
            .rev()
            .fold("{}".to_string(), |rest, f| format!("{{{f}, {rest}}}"));
        let elem = Elem::TupleOf(elems);
        Ok((format!("{}{init}", self.infer.cpp(&elem)), Ty::Elem(elem)))
    }

    /// An element type C++ can spell as a template argument: not a value
    /// whose type only a lambda has.
    fn nameable(&self, elem: Elem, span: proc_macro2::Span) -> Result<Elem> {
        match self.infer.resolve(&elem) {
            Elem::Auto => Err(error_at(
                span,
                "an array or tuple element whose type the device code cannot name (a block or a call with a closure): bind it with a typed `let` first",
            )),
            _ => Ok(elem),
        }
    }

    /// `S { a: x, b: y }`: a value built field by field in a C++ lambda
    /// (C++ aggregate initialization would need the declaration order,
    /// which the translator cannot see). Fields not named stay zero, which
    /// never happens in Rust: the host compiler requires all of them.
    fn struct_literal(&mut self, st: &syn::ExprStruct) -> Result<(String, Ty)> {
        if let Some(rest) = &st.rest {
            return Err(unsupported(rest, "struct update syntax (`..base`)"));
        }
        if st.qself.is_some() || st.path.segments.iter().any(|s| !s.arguments.is_none()) {
            return Err(unsupported(&st.path, "this struct path"));
        }
        let name = super::types::last_segment(&st.path);
        self.struct_deps.push(st.path.clone());
        let v = self.tmp("s");
        let mut text = format!("([&] {{ {name} {v}{{}}; ");
        for fv in &st.fields {
            let (place, elem) = struct_field(&v, &name, &fv.member)?;
            let value = self.value_as(&fv.expr, &elem)?;
            text.push_str(&format!("{place} = {value}; "));
        }
        text.push_str(&format!("return {v}; }}())"));
        Ok((text, Ty::Elem(Elem::Struct(name))))
    }

    /// Something assignable: `*out`, a `let mut` variable, a scratch
    /// element, a field of a tuple accumulator. Returns its C++ text and
    /// element type.
    fn place(&mut self, e: &Expr) -> Result<(String, Elem)> {
        match e {
            Expr::Field(f) => self.field(f),
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => match self.expr(&u.expr)? {
                (t, Ty::Out(elem)) => Ok((t, elem)),
                _ => Err(unsupported(e, "writing through this reference")),
            },
            Expr::Path(p) => {
                let name = p.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                match self.lookup(&name) {
                    Some(v) if v.mutable => {
                        let elem = self.elem(&v.ty.clone(), e.span())?;
                        Ok((name, elem))
                    }
                    Some(_) => Err(error_at(e.span(), format!("`{name}` is not `let mut`"))),
                    None => Err(error_at(e.span(), format!("unknown variable `{name}`"))),
                }
            }
            Expr::Index(i) => match self.index(i)? {
                (t, elem, true) => Ok((t, elem)),
                _ => Err(error_at(
                    e.span(),
                    "Views passed by `&` are read-only: write through an owned output (`*y = ..`), an atomic View or team scratch",
                )),
            },
            Expr::Paren(p) => self.place(&p.expr),
            _ => Err(unsupported(e, "assigning to this expression")),
        }
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Result<(String, Ty)> {
        let (t, from) = self.value(&c.expr)?;
        let to = super::types::elem_of(&c.ty, &self.generics)?;
        let to_cpp = self.infer.cpp(&to);
        let from_float = self.arith(&from) == Arith::Float;
        let to_int = !matches!(to, Elem::Scalar(s) if s.is_float());
        let text = if (from_float && to_int)
            || matches!(
                self.infer.resolve(&from),
                Elem::Generic(_) | Elem::Deduced(_)
            ) {
            format!("granule::cast<{to_cpp}>({t})")
        } else {
            format!("(({to_cpp})({t}))")
        };
        Ok((text, Ty::Elem(to)))
    }

    /// `v[i]` or `v[[i, j, ..]]`: `(text, element type, writable)`.
    pub fn index(&mut self, i: &syn::ExprIndex) -> Result<(String, Elem, bool)> {
        let (base, ty) = self.expr(&i.expr)?;
        if let Ty::Chunk { elem, writable } = ty {
            let k = self.value_as(&i.index, &Elem::Scalar(Scalar::Usize))?;
            return Ok((format!("{base}({k})"), elem, writable));
        }
        if let Ty::Elem(e) | Ty::Out(e) = &ty {
            // An array value (or a `&mut [T; N]` output): `Array`'s
            // checked `operator[]`. rustc has checked that a write goes to
            // a mutable place, and C++ rejects a write to a `const` one.
            let elem = match self.infer.resolve(e) {
                Elem::Array(elem, _) => Some(*elem),
                Elem::Deduced(d) => Some(Elem::Deduced(format!("granule::ElemOf<{d}>"))),
                _ => None,
            };
            if let Some(elem) = elem {
                if let Expr::Range(_) = &*i.index {
                    return Err(unsupported(
                        &i.index,
                        "a slice of an array (index one element at a time)",
                    ));
                }
                let k = self.value_as(&i.index, &Elem::Scalar(Scalar::Usize))?;
                return Ok((format!("{base}[{k}]"), elem, true));
            }
        }
        let Ty::View {
            elem,
            rank,
            writable,
            ..
        } = ty
        else {
            return Err(unsupported(
                &i.expr,
                "indexing anything but a View or an array",
            ));
        };
        let args = self.usize_list(
            &i.index,
            rank,
            &format!("this View has rank {rank}: give {rank} indices"),
        )?;
        Ok((format!("{base}({args})"), elem, writable))
    }

    /// `i` or `[i, j, ..]` with exactly `count` usize values (View and
    /// atomic indices, scratch extents), as C++ call arguments; `mismatch`
    /// is the error for another count.
    pub fn usize_list(&mut self, e: &Expr, count: u8, mismatch: &str) -> Result<String> {
        let items: Vec<&Expr> = match e {
            Expr::Array(a) => a.elems.iter().collect(),
            one => vec![one],
        };
        if items.len() != usize::from(count) {
            return Err(error_at(e.span(), mismatch));
        }
        let usize_ = Elem::Scalar(Scalar::Usize);
        Ok(items
            .iter()
            .map(|x| self.value_as(x, &usize_))
            .collect::<Result<Vec<_>>>()?
            .join(", "))
    }

    fn if_value(&mut self, i: &syn::ExprIf) -> Result<(String, Ty)> {
        let simple =
            |b: &syn::Block| b.stmts.len() == 1 && matches!(b.stmts[0], syn::Stmt::Expr(_, None));
        let else_simple = match &i.else_branch {
            Some((_, e)) => match &**e {
                Expr::Block(b) => simple(&b.block),
                Expr::If(_) => true,
                _ => false,
            },
            None => false,
        };
        if !(simple(&i.then_branch) && else_simple) {
            return self.lambda_value(&Expr::If(i.clone()));
        }
        let cond = self.value_as(&i.cond, &Elem::Scalar(Scalar::Bool))?;
        let syn::Stmt::Expr(then, None) = &i.then_branch.stmts[0] else {
            unreachable!("checked simple")
        };
        let (a, ae) = self.value(then)?;
        let (_, else_e) = i.else_branch.as_ref().expect("checked");
        let (b, be) = self.value(else_e)?;
        let elem = self.unify(&ae, &be, i.span())?;
        Ok((format!("({cond} ? {a} : {b})"), Ty::Elem(elem)))
    }

    fn block_value(&mut self, b: &syn::Block) -> Result<(String, Ty)> {
        match b.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => {
                self.push();
                let r = self.expr(e);
                self.pop();
                r
            }
            _ => self.lambda_value(&Expr::Block(syn::ExprBlock {
                attrs: vec![],
                label: None,
                block: b.clone(),
            })),
        }
    }

    /// A value-producing block or `if` with statements inside: an
    /// immediately invoked C++ lambda, where `return` yields the value.
    pub(super) fn lambda_value(&mut self, e: &Expr) -> Result<(String, Ty)> {
        let saved = self.frame;
        self.frame = super::cx::Frame {
            loops: 0,
            in_value_block: true,
        };
        let r = self.value_stmts(e, 1);
        self.frame = saved;
        let (body, ty) = r?;
        Ok((format!("[&]() {{\n{body}}}()"), ty))
    }

    fn return_expr(&mut self, r: &syn::ExprReturn) -> Result<(String, Ty)> {
        if self.frame.in_value_block {
            return Err(unsupported(r, "`return` inside a block used as a value"));
        }
        match (&r.expr, self.ret.clone()) {
            (None, None) => Ok(("return".into(), Ty::Unit)),
            (Some(e), Some(ret)) => {
                let t = self.value_as(e, &ret)?;
                Ok((format!("return {t}"), Ty::Unit))
            }
            (Some(_), None) => Err(error_at(r.span(), "a kernel returns nothing")),
            (None, Some(_)) => Err(error_at(r.span(), "this function must return a value")),
        }
    }

    fn break_expr(&mut self, b: &syn::ExprBreak) -> Result<(String, Ty)> {
        if b.label.is_some() || b.expr.is_some() {
            return Err(unsupported(b, "a labelled `break` or `break` with a value"));
        }
        if self.frame.loops == 0 {
            return Err(unsupported(b, "`break` outside a loop of this block"));
        }
        Ok(("break".into(), Ty::Unit))
    }

    fn continue_expr(&mut self, c: &syn::ExprContinue) -> Result<(String, Ty)> {
        if c.label.is_some() {
            return Err(unsupported(c, "a labelled `continue`"));
        }
        if self.frame.loops == 0 {
            return Err(unsupported(c, "`continue` outside a loop of this block"));
        }
        Ok(("continue".into(), Ty::Unit))
    }
}

fn is_arith(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_)
    )
}

/// The header's helper for an arithmetic operator on any scalar.
fn auto_helper(op: &BinOp) -> &'static str {
    match op {
        BinOp::Add(_) => "wadd",
        BinOp::Sub(_) => "wsub",
        BinOp::Mul(_) => "wmul",
        BinOp::Div(_) => "div",
        _ => "rem",
    }
}

fn compound_op(op: &BinOp) -> Option<BinOp> {
    use syn::token as t;
    let sp = op.span();
    Some(match op {
        BinOp::AddAssign(_) => BinOp::Add(t::Plus(sp)),
        BinOp::SubAssign(_) => BinOp::Sub(t::Minus(sp)),
        BinOp::MulAssign(_) => BinOp::Mul(t::Star(sp)),
        BinOp::DivAssign(_) => BinOp::Div(t::Slash(sp)),
        BinOp::RemAssign(_) => BinOp::Rem(t::Percent(sp)),
        BinOp::BitAndAssign(_) => BinOp::BitAnd(t::And(sp)),
        BinOp::BitOrAssign(_) => BinOp::BitOr(t::Or(sp)),
        BinOp::BitXorAssign(_) => BinOp::BitXor(t::Caret(sp)),
        BinOp::ShlAssign(_) => BinOp::Shl(t::Shl(sp)),
        BinOp::ShrAssign(_) => BinOp::Shr(t::Shr(sp)),
        _ => return None,
    })
}

/// `f64::MAX` and friends.
fn assoc_const(s: Scalar, item: &str) -> Option<String> {
    let cpp = s.cpp();
    Some(match (s, item) {
        (Scalar::F32, "MAX") => "3.40282347e+38f".into(),
        (Scalar::F32, "MIN") => "-3.40282347e+38f".into(),
        (Scalar::F32, "EPSILON") => "1.1920929e-7f".into(),
        (Scalar::F64, "MAX") => "1.7976931348623157e+308".into(),
        (Scalar::F64, "MIN") => "-1.7976931348623157e+308".into(),
        (Scalar::F64, "EPSILON") => "2.220446049250313e-16".into(),
        (_, "INFINITY") if s.is_float() => format!("granule::Num<{cpp}>::max_value()"),
        (_, "NEG_INFINITY") if s.is_float() => format!("granule::Num<{cpp}>::min_value()"),
        (_, "MAX") if s.is_int() => format!("granule::Num<{cpp}>::max_value()"),
        (_, "MIN") if s.is_int() => format!("granule::Num<{cpp}>::min_value()"),
        _ => return None,
    })
}

/// The field number of `t.N` for a tuple of `len` fields.
fn tuple_index(member: &syn::Member, len: usize) -> Result<usize> {
    match member {
        syn::Member::Unnamed(idx) if (idx.index as usize) < len => Ok(idx.index as usize),
        syn::Member::Unnamed(idx) => Err(error_at(idx.span, format!("the tuple has {len} fields"))),
        syn::Member::Named(n) => Err(unsupported(n, "a named field of a tuple")),
    }
}

/// `base.name`, a field of `#[device] struct` `s`, with its type.
fn struct_field(base: &str, s: &str, member: &syn::Member) -> Result<(String, Elem)> {
    match member {
        syn::Member::Named(n) => Ok((
            format!("{base}.{n}"),
            Elem::Deduced(format!("decltype({s}::{n})")),
        )),
        syn::Member::Unnamed(_) => Err(unsupported(
            member,
            "a numbered field of a struct (`#[device] struct`s have named fields)",
        )),
    }
}
