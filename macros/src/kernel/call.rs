//! Method calls (math, Views, atomics, team member) and function calls
//! (`#[device]` helpers, nested parallel patterns).

use super::cx::Cx;
use super::errors::{error_at, unsupported, Result};
use super::types::{last_segment, Elem, Loc, Scalar, Ty};
use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall};

impl Cx {
    /// A tuple of scalars given to a team reduction (`(pe, 1u64)`): a
    /// `granule::Tuple` built field by field.
    fn tuple_value(&mut self, t: &syn::ExprTuple) -> Result<(String, Elem)> {
        if !(2..=6).contains(&t.elems.len()) {
            return Err(unsupported(t, "a tuple of this length (2 to 6 fields)"));
        }
        let mut fields = Vec::new();
        let mut texts = Vec::new();
        for e in &t.elems {
            let (text, elem) = self.value(e)?;
            let Elem::Scalar(s) = self.infer.resolve(&elem) else {
                return Err(error_at(
                    e.span(),
                    "a tuple field of a team reduction is a scalar of a known type (write `1u64`, `0.0f64`)",
                ));
            };
            fields.push(s);
            texts.push(text);
        }
        // `Tuple<T, Ts..>` is a head and the tuple of the rest.
        let init = texts
            .iter()
            .rev()
            .fold("{}".to_string(), |rest, f| format!("{{{f}, {rest}}}"));
        Ok((
            format!("{}{init}", super::types::tuple_cpp(&fields)),
            Elem::Tuple(fields),
        ))
    }

    pub fn method(&mut self, m: &ExprMethodCall) -> Result<(String, Ty)> {
        let name = m.method.to_string();
        if name == "is_ok" || name == "is_err" {
            return self.result_check(m, name == "is_ok");
        }
        if let Some(r) = self.nested(m)? {
            return Ok(r);
        }
        if let Some(r) = self.option_use(m)? {
            return Ok(r);
        }
        if name == "unwrap" || name == "expect" {
            return self.scratch(m);
        }
        let (recv, ty) = self.expr(&m.receiver)?;
        match ty {
            Ty::View { .. } if name == "extent" => {
                let [r] = args::<1>(m)?;
                let r = self.value_as(r, &Elem::Scalar(Scalar::Usize))?;
                Ok((format!("{recv}.extent({r})"), Ty::scalar(Scalar::Usize)))
            }
            // A Row's element count (rustc allows `len` on nothing else
            // that is a View here).
            // A Row's or Segment's element count, its work index and a
            // Segment's first View index (rustc allows these on nothing
            // else that is a View here).
            Ty::View { .. }
                if matches!(name.as_str(), "len" | "index" | "start") && m.args.is_empty() =>
            {
                Ok((format!("{recv}.{name}()"), Ty::scalar(Scalar::Usize)))
            }
            Ty::Atomic { elem, rank } => self.atomic(m, &recv, &elem, rank),
            Ty::Map { key, value, insert } => {
                self.map_method(m, &recv, &key, value.as_ref(), insert)
            }
            Ty::InsertResult => self.insert_result_method(m, &recv),
            Ty::Token => self.token_method(m, &recv),
            ty @ (Ty::Scatter { .. } | Ty::ScatterAccess { .. }) => {
                self.scatter_method(m, &recv, ty)
            }
            Ty::Team => self.team_method(m, &recv),
            Ty::Out(Elem::Acc(acc)) => self.acc_method(m, &recv, acc),
            Ty::Out(Elem::Tuple(_)) | Ty::Elem(Elem::Tuple(_)) => Err(unsupported(
                m,
                "a method of a tuple accumulator (use its fields: `acc.0`)",
            )),
            // Method calls auto-deref an output, as in Rust.
            Ty::Elem(elem) | Ty::Out(elem) => {
                let args: Vec<&Expr> = m.args.iter().collect();
                self.scalar_method(&m.method, &recv, &elem, &args)
            }
            _ => Err(unsupported(&m.method, &format!("the method `{name}` here"))),
        }
    }

    /// `acc.update_min(v, loc)` / `update_max` (ValLocScalar),
    /// `acc.update(v, loc)` / `update_first_last` (MinMaxLocScalar),
    /// `acc.update(v)` (MinMaxScalar).
    fn acc_method(
        &mut self,
        m: &ExprMethodCall,
        recv: &str,
        acc: super::types::Acc,
    ) -> Result<(String, Ty)> {
        use super::types::AccKind;
        let name = m.method.to_string();
        let ok = match acc.kind {
            AccKind::ValLoc => name == "update_min" || name == "update_max",
            AccKind::MinMaxLoc => name == "update" || name == "update_first_last",
            AccKind::MinMax => name == "update",
        };
        if !ok {
            return Err(unsupported(
                &m.method,
                &format!("the accumulator method `{name}`"),
            ));
        }
        let want = 1 + usize::from(acc.loc.is_some());
        if m.args.len() != want {
            return Err(error_at(
                m.method.span(),
                format!("`{name}` takes {want} argument(s)"),
            ));
        }
        let mut args = vec![self.value_as(&m.args[0], &Elem::Scalar(acc.val))?];
        match acc.loc {
            Some(Loc::Scalar(l)) => args.push(self.value_as(&m.args[1], &Elem::Scalar(l))?),
            Some(Loc::Array(r)) => args.push(self.loc_array(&m.args[1], r)?),
            None => {}
        }
        Ok((format!("{recv}.{name}({})", args.join(", ")), Ty::Unit))
    }

    /// `r.val` / `r.loc` (ValLocScalar), `r.min_val`, `r.max_val`,
    /// `r.min_loc`, `r.max_loc` (MinMaxLocScalar; MinMaxScalar has the
    /// values only): a field of a location or min-max value, the header's
    /// struct member of the same name (assignable through a `&mut`). A
    /// multi-index location (`[usize; R]`) is not a scalar of the subset.
    pub fn acc_field(
        &mut self,
        f: &syn::ExprField,
        base: &str,
        acc: super::types::Acc,
    ) -> Result<(String, Elem)> {
        use super::types::AccKind;
        let (ty, fields): (&str, &[&str]) = match acc.kind {
            AccKind::ValLoc => ("ValLocScalar", &["val", "loc"]),
            AccKind::MinMaxLoc => (
                "MinMaxLocScalar",
                &["min_val", "max_val", "min_loc", "max_loc"],
            ),
            AccKind::MinMax => ("MinMaxScalar", &["min_val", "max_val"]),
        };
        let name = match &f.member {
            syn::Member::Named(n) if fields.contains(&n.to_string().as_str()) => n.to_string(),
            other => {
                let names: Vec<String> = fields.iter().map(|n| format!("`{n}`")).collect();
                return Err(error_at(
                    other.span(),
                    format!("a `{ty}` has the fields {}", names.join(", ")),
                ));
            }
        };
        let elem = match (name.ends_with("val"), acc.loc) {
            (true, _) => Elem::Scalar(acc.val),
            (false, Some(Loc::Scalar(l))) => Elem::Scalar(l),
            (false, _) => {
                return Err(unsupported(
                    f,
                    "reading a multi-index location (`[usize; R]`) field",
                ))
            }
        };
        Ok((format!("{base}.{name}"), elem))
    }

    /// A `[usize; R]` location, written as an array expression
    /// `[i, j, ..]` of R usize values: `granule::Loc<R>{{i, j, ..}}`.
    fn loc_array(&mut self, e: &Expr, rank: u8) -> Result<String> {
        let Expr::Array(a) = e else {
            return Err(unsupported(
                e,
                "this location (a `[usize; R]` location is written `[i, j, ..]`)",
            ));
        };
        if a.elems.len() != usize::from(rank) {
            return Err(error_at(
                a.span(),
                format!("the location has {rank} indices"),
            ));
        }
        let parts = a
            .elems
            .iter()
            .map(|x| self.value_as(x, &Elem::Scalar(Scalar::Usize)))
            .collect::<Result<Vec<_>>>()?;
        Ok(format!("granule::Loc<{rank}>{{{{{}}}}}", parts.join(", ")))
    }

    /// The index argument of an atomic operation, as C++ call arguments.
    fn atomic_index(&mut self, e: &Expr, rank: u8) -> Result<String> {
        self.usize_list(
            e,
            rank,
            &format!("this atomic View has rank {rank}: give {rank} indices"),
        )
    }

    fn atomic(
        &mut self,
        m: &ExprMethodCall,
        recv: &str,
        elem: &Elem,
        rank: u8,
    ) -> Result<(String, Ty)> {
        let name = m.method.to_string();
        let (op, returns) = match name.as_str() {
            "extent" => {
                let [r] = args::<1>(m)?;
                let r = self.value_as(r, &Elem::Scalar(Scalar::Usize))?;
                return Ok((format!("{recv}.extent({r})"), Ty::scalar(Scalar::Usize)));
            }
            "add" | "fetch_add" => ("atomic_fetch_add", name.starts_with("fetch")),
            "sub" | "fetch_sub" => ("atomic_fetch_sub", name.starts_with("fetch")),
            "min" | "fetch_min" => ("atomic_fetch_min", name.starts_with("fetch")),
            "max" | "fetch_max" => ("atomic_fetch_max", name.starts_with("fetch")),
            "exchange" => ("atomic_exchange", true),
            "store" => ("atomic_store", false),
            "load" => {
                let [i] = args::<1>(m)?;
                let at = self.atomic_index(i, rank)?;
                return Ok((
                    format!("granule::atomic_load({recv}.at({at}))"),
                    Ty::Elem(elem.clone()),
                ));
            }
            "compare_exchange" => {
                return Err(error_at(
                    m.method.span(),
                    "use `compare_exchange(..).is_ok()` or `.is_err()` in device code",
                ))
            }
            _ => {
                return Err(unsupported(
                    &m.method,
                    &format!("the atomic operation `{name}`"),
                ))
            }
        };
        let [i, v] = args::<2>(m)?;
        let at = self.atomic_index(i, rank)?;
        let v = self.value_as(v, elem)?;
        let ty = if returns {
            Ty::Elem(elem.clone())
        } else {
            Ty::Unit
        };
        Ok((format!("granule::{op}({recv}.at({at}), {v})"), ty))
    }

    /// `.is_ok()` / `.is_err()` of a scratch request (whether it fits,
    /// taking nothing) or of an atomic `compare_exchange`.
    fn result_check(&mut self, m: &ExprMethodCall, ok: bool) -> Result<(String, Ty)> {
        args::<0>(m)?;
        if let Expr::MethodCall(inner) = &*m.receiver {
            if let Some(s) = self.scratch_request(inner)? {
                let not = if ok { "" } else { "!" };
                let text = format!("{not}{}_fits{}{}", s.head, s.targs, s.args);
                return Ok((text, Ty::scalar(Scalar::Bool)));
            }
        }
        self.cas_result(m, ok)
    }

    /// `a.compare_exchange(i, current, new).is_ok()` / `.is_err()`.
    fn cas_result(&mut self, m: &ExprMethodCall, ok: bool) -> Result<(String, Ty)> {
        let Expr::MethodCall(inner) = &*m.receiver else {
            return Err(unsupported(
                m,
                "`is_ok`/`is_err` on anything but `compare_exchange`",
            ));
        };
        let (recv, ty) = self.expr(&inner.receiver)?;
        let (Ty::Atomic { elem, rank }, "compare_exchange") =
            (ty, inner.method.to_string().as_str())
        else {
            return Err(unsupported(
                m,
                "`is_ok`/`is_err` on anything but an atomic `compare_exchange`",
            ));
        };
        let [i, c, n] = args::<3>(inner)?;
        let at = self.atomic_index(i, rank)?;
        let c = self.value_as(c, &elem)?;
        let n = self.value_as(n, &elem)?;
        let not = if ok { "" } else { "!" };
        Ok((
            format!("{not}granule::atomic_cas_ok({recv}.at({at}), {c}, {n})"),
            Ty::scalar(Scalar::Bool),
        ))
    }

    fn team_method(&mut self, m: &ExprMethodCall, recv: &str) -> Result<(String, Ty)> {
        let name = m.method.to_string();
        let usize_ = Ty::scalar(Scalar::Usize);
        match name.as_str() {
            "league_rank" | "league_size" | "team_rank" | "team_size" => {
                args::<0>(m)?;
                Ok((format!("{recv}.{name}()"), usize_))
            }
            "team_barrier" => {
                args::<0>(m)?;
                Ok((format!("{recv}.team_barrier()"), Ty::Unit))
            }
            "team_broadcast" => {
                let [v, src] = args::<2>(m)?;
                let (v, elem) = self.value(v)?;
                let src = self.value_as(src, &Elem::Scalar(Scalar::Usize))?;
                Ok((format!("{recv}.team_broadcast({v}, {src})"), Ty::Elem(elem)))
            }
            "team_reduce" => {
                let [r, v] = args::<2>(m)?;
                let (v, elem) = match v {
                    Expr::Tuple(fields) => self.tuple_value(fields)?,
                    v => self.value(v)?,
                };
                let t = self.infer.cpp(&elem);
                let op = super::nested::team_reducer(self, Some(r), &elem, &t, r.span())?;
                Ok((format!("{recv}.team_reduce<{op}, {t}>({v})"), Ty::Elem(elem)))
            }
            "thread_ids" => {
                args::<0>(m)?;
                Ok((format!("{recv}.thread_ids()"), Ty::Ids))
            }
            "team_scan" => {
                let [v] = args::<1>(m)?;
                let (v, elem) = self.value(v)?;
                Ok((format!("{recv}.team_scan({v})"), Ty::Elem(elem)))
            }
            "team_scan_global" => {
                let [v, g, idx] = args::<3>(m)?;
                let (v, elem) = self.value(v)?;
                // `g` (an `&AtomicView` parameter) or `&g`.
                let inner = match g {
                    Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
                    other => other,
                };
                let g = match self.expr(inner)? {
                    (g_text, Ty::Atomic { elem: ge, rank: 1 }) => {
                        self.unify(&elem, &ge, inner.span())?;
                        g_text
                    }
                    _ => {
                        return Err(unsupported(
                            g,
                            "a global accumulator other than a rank-1 atomic View",
                        ))
                    }
                };
                let idx = self.value_as(idx, &Elem::Scalar(Scalar::Usize))?;
                Ok((format!("{recv}.team_scan_global({v}, {g}, {idx})"), Ty::Elem(elem)))
            }
            "team_scratch" | "thread_scratch" => Err(error_at(m.span(), format!("scratch is a Result on the host: write `team.{name}::<T, 1>(0, n).unwrap()` (or `.is_ok()` / `.is_err()`)"))),
            _ => Err(unsupported(&m.method, &format!("the team member method `{name}`"))),
        }
    }

    /// `team.team_scratch::<T, R>(level, extents).unwrap()` (or
    /// `.expect(..)`, or `thread_scratch`): the next elements of that
    /// scratch region as a writable View; `chunk_mut(..).unwrap()`.
    fn scratch(&mut self, m: &ExprMethodCall) -> Result<(String, Ty)> {
        let err = || {
            unsupported(
                m,
                "`unwrap`/`expect` on anything but `team.team_scratch::<T, R>(level, n)`, `team.thread_scratch::<T, R>(level, n)` or `chunk.chunk_mut(map, team.thread_ids())`",
            )
        };
        let Expr::MethodCall(inner) = &*m.receiver else {
            return Err(err());
        };
        if inner.method == "chunk_mut" {
            return self.chunk_mut(inner);
        }
        let Some(s) = self.scratch_request(inner)? else {
            return Err(err());
        };
        let ty = Ty::View {
            elem: s.elem,
            rank: s.rank,
            layout: super::types::Layout::Right,
            writable: true,
        };
        Ok((format!("{}{}{}", s.head, s.targs, s.args), ty))
    }

    /// `team.team_scratch::<T, R>(level, extents)` or `thread_scratch`
    /// (R 1 or 2; extents `n`, `[n]` or `[a, b]`; any level, as on the
    /// host, where levels above 1 fail); `None` if `inner` is not one.
    fn scratch_request(&mut self, inner: &ExprMethodCall) -> Result<Option<Scratch>> {
        let method = inner.method.to_string();
        if method != "team_scratch" && method != "thread_scratch" {
            return Ok(None);
        }
        let (recv, ty) = self.expr(&inner.receiver)?;
        if ty != Ty::Team {
            return Ok(None);
        }
        let (elem, rank) = self.scratch_types(inner)?;
        let [level, extents] = args::<2>(inner)?;
        let usize_ = Elem::Scalar(Scalar::Usize);
        let level = self.value_as(level, &usize_)?;
        let extents = self.scratch_extents(extents, rank)?;
        let cpp = self.infer.cpp(&elem);
        Ok(Some(Scratch {
            head: format!("{recv}.{method}"),
            targs: format!("<{cpp}, {rank}>"),
            args: format!("({level}, {extents})"),
            elem,
            rank,
        }))
    }

    /// The turbofish of a scratch request: `::<T, 1>` or `::<T, 2>`.
    fn scratch_types(&self, inner: &ExprMethodCall) -> Result<(Elem, u8)> {
        let Some(t) = &inner.turbofish else {
            return Err(error_at(
                inner.method.span(),
                format!(
                    "`{}` needs its types: `{}::<f64, 1>(0, n)`",
                    inner.method, inner.method
                ),
            ));
        };
        let targs: Vec<&syn::GenericArgument> = t.args.iter().collect();
        let [syn::GenericArgument::Type(ty), rank] = targs.as_slice() else {
            return Err(error_at(
                t.span(),
                "a scratch request names its element type and rank: `::<f64, 1>`",
            ));
        };
        let rank = match quote::quote!(#rank).to_string().as_str() {
            "1" => 1,
            "2" => 2,
            _ => {
                return Err(unsupported(
                    rank,
                    "scratch of a rank other than 1 or 2 (`::<T, 1>`, `::<T, 2>`)",
                ))
            }
        };
        Ok((super::types::elem_of(ty, &self.generics)?, rank))
    }

    /// Scratch extents as C++ arguments: `n` or `[n]` for rank 1,
    /// `[a, b]` for rank 2.
    fn scratch_extents(&mut self, e: &Expr, rank: u8) -> Result<String> {
        self.usize_list(
            e,
            rank,
            &format!("scratch of rank {rank} takes {rank} extent(s): `n` or `[a, b]`"),
        )
    }

    /// `part.chunk_mut(map, team.thread_ids())` (then `.unwrap()`): the
    /// thread's writable part of a team chunk.
    fn chunk_mut(&mut self, inner: &ExprMethodCall) -> Result<(String, Ty)> {
        let (recv, ty) = self.expr(&inner.receiver)?;
        let Ty::Chunk {
            elem,
            writable: false,
        } = ty
        else {
            return Err(unsupported(
                &inner.receiver,
                "`chunk_mut` on anything but a `TeamChunk` parameter",
            ));
        };
        let [map, ids] = args::<2>(inner)?;
        let map = self.chunk_map(map)?;
        let (ids, ids_ty) = self.expr(ids)?;
        if ids_ty != Ty::Ids {
            return Err(unsupported(
                &inner.args[1],
                "thread ids other than `team.thread_ids()`",
            ));
        }
        Ok((
            format!("{recv}.chunk_mut({map}, {ids})"),
            Ty::Chunk {
                elem,
                writable: true,
            },
        ))
    }

    /// A chunk map value: `MapIdentity` or `MapContinuousLinear::new(width)`.
    fn chunk_map(&mut self, e: &Expr) -> Result<String> {
        let err = || {
            unsupported(
                e,
                "this chunk map (use `MapIdentity` or `MapContinuousLinear::new(width)`)",
            )
        };
        match e {
            Expr::Path(p) if p.path.is_ident("MapIdentity") => Ok("granule::MapIdentity{}".into()),
            Expr::Call(c) => match (&*c.func, c.args.iter().collect::<Vec<_>>().as_slice()) {
                (Expr::Path(p), [w])
                    if p.path.segments.len() == 2
                        && p.path.segments[0].ident == "MapContinuousLinear"
                        && p.path.segments[1].ident == "new" =>
                {
                    let w = self.value_as(w, &Elem::Scalar(Scalar::Usize))?;
                    Ok(format!("granule::MapContinuousLinear{{{w}}}"))
                }
                _ => Err(err()),
            },
            _ => Err(err()),
        }
    }

    /// `single(PerTeam(team), || v)` / `single(PerThread(team), || v)`.
    fn single(&mut self, c: &syn::ExprCall) -> Result<(String, Ty)> {
        let (scope, f) = match c.args.iter().collect::<Vec<_>>().as_slice() {
            [Expr::Call(scope), Expr::Closure(f)] if f.inputs.is_empty() => (scope, f),
            _ => {
                return Err(unsupported(
                    c,
                    "this `single` (write `single(PerTeam(team), || value)` or `PerThread`)",
                ))
            }
        };
        let which = match &*scope.func {
            Expr::Path(p) if p.path.is_ident("PerTeam") => "team",
            Expr::Path(p) if p.path.is_ident("PerThread") => "thread",
            _ => {
                return Err(unsupported(
                    &scope.func,
                    "a `single` scope other than PerTeam/PerThread",
                ))
            }
        };
        let team = match scope.args.iter().collect::<Vec<_>>().as_slice() {
            [t] => match self.expr(t)? {
                (t, Ty::Team) => t,
                _ => {
                    return Err(unsupported(
                        t,
                        "a `single` scope of anything but the team member",
                    ))
                }
            },
            _ => return Err(unsupported(scope, "this `single` scope")),
        };
        let (lambda, ty) = self.lambda_value(&f.body)?;
        let text = if ty == Ty::Unit {
            // No value to hand out: the body runs as statements on the
            // one executor.
            let saved = self.frame;
            self.frame = super::cx::Frame {
                loops: 0,
                in_value_block: true,
            };
            let body = self.closure_statements(&f.body);
            self.frame = saved;
            format!(
                "granule::single_per_{which}_do({team}, [&]() {{\n{}}})",
                body?
            )
        } else {
            let lambda = lambda
                .strip_suffix("()")
                .expect("lambda_value ends with its call")
                .to_string();
            format!("granule::single_per_{which}({team}, {lambda})")
        };
        Ok((self.phase(c.func.span(), &team, text), ty))
    }

    pub fn call(&mut self, c: &syn::ExprCall) -> Result<(String, Ty)> {
        let Expr::Path(p) = &*c.func else {
            return Err(unsupported(&c.func, "calling this expression"));
        };
        let last = last_segment(&p.path);
        if let [ty, method] = p.path.segments.iter().collect::<Vec<_>>().as_slice() {
            if let (Some(s), true) = (
                Scalar::from_name(&ty.ident.to_string()),
                method.arguments.is_none(),
            ) {
                return self.scalar_fn(s, c, &method.ident);
            }
        }
        match last.as_str() {
            "single" if p.path.segments.len() == 1 => self.single(c),
            "new" => Err(unsupported(
                c,
                "a constructor outside a nested parallel pattern",
            )),
            _ => {
                if p.path.segments.iter().any(|s| !s.arguments.is_none()) {
                    return Err(unsupported(p, "generic arguments on a `#[device]` call"));
                }
                let args = c
                    .args
                    .iter()
                    .map(|a| self.call_arg(a))
                    .collect::<Result<Vec<_>>>()?;
                self.deps.push(p.path.clone());
                let texts: Vec<&str> = args.iter().map(|(t, _)| t.as_str()).collect();
                let text = format!("{last}({})", texts.join(", "));
                let typed: Vec<String> = args
                    .iter()
                    .map(|(t, cpp)| {
                        cpp.as_ref()
                            .map_or(t.clone(), |c| format!("granule::val<{c}>()"))
                    })
                    .collect();
                let ty = super::types::deduced(&format!("{last}({})", typed.join(", ")));
                Ok((text, Ty::Elem(ty)))
            }
        }
    }

    /// A `#[device]` call's argument: its text, and its C++ type where
    /// the translator knows it, so that the call's result type can be
    /// spelled from the arguments' types (`granule::val<T>()`) and name no
    /// variable: the type then holds wherever the callee is visible. A
    /// read or atomic View passes as it is (the helper takes it by value,
    /// a description sharing the elements).
    fn call_arg(&mut self, a: &Expr) -> Result<(String, Option<String>)> {
        let (text, ty) = self.expr(a)?;
        let view = match &ty {
            Ty::View {
                elem,
                rank,
                layout,
                writable: false,
            } => Some(format!(
                "granule::View<const {}, {rank}, {}>",
                self.infer.cpp(elem),
                layout.cpp()
            )),
            Ty::Atomic { elem, rank } => Some(format!(
                "granule::AtomicView<{}, {rank}>",
                self.infer.cpp(elem)
            )),
            _ => None,
        };
        if view.is_some() {
            return Ok((text, view));
        }
        let elem = self.elem(&ty, a.span())?;
        let cpp = match self.infer.resolve(&elem) {
            // A lambda's type (a block among the arguments) only C++ knows.
            Elem::Auto => None,
            _ => Some(self.infer.cpp(&elem)),
        };
        Ok((text, cpp))
    }
}

/// A scratch request: `team.team_scratch` (the C++ call's head), its
/// template and value arguments, and the View's element type and rank.
struct Scratch {
    head: String,
    targs: String,
    args: String,
    elem: Elem,
    rank: u8,
}

/// The arguments of a method call that must take exactly `N`.
fn args<const N: usize>(m: &ExprMethodCall) -> Result<[&Expr; N]> {
    let v: Vec<&Expr> = m.args.iter().collect();
    v.try_into().map_err(|_| {
        error_at(
            m.method.span(),
            format!("`{}` takes {N} argument(s)", m.method),
        )
    })
}
