//! The walk over a team kernel's body: how uniform each value and each
//! point of control flow is.
//!
//! Every expression gets a [`Level`] and a class (plain value, the team
//! member, a read-only View, an atomic, or memory the rules follow): a
//! literal or a captured value is `Const`, `team_rank()` is `Thread`, a
//! vector range's index or an atomic's result is `Lane`, and an operation
//! is as uniform as its least uniform operand. Control flow under a
//! condition, or after a `return`, `break` or `continue`, of a level is
//! divergent at that level, and a loop's body is walked again at the level
//! of the exits met in it. A mutable variable is as uniform as the least
//! uniform place it is assigned in, which may come later in the body than
//! a use: its level carries from pass to pass until none rises (see
//! [`check`](super::check)). Index expressions, scratch and `chunk_mut`
//! requests, nested patterns, `single` and the member's collectives are
//! handed to the modules of the rules.

use super::collectives::nested_kind;
use super::memory::{block_tail, describe, is_memory, path_name};
use super::{key, Analysis, Class, Info, Level};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Stmt};

impl Analysis {
    pub(super) fn function(&mut self, f: &syn::ItemFn) {
        for (n, arg) in f.sig.inputs.iter().enumerate() {
            let syn::FnArg::Typed(pt) = arg else { continue };
            let syn::Pat::Ident(id) = &*pt.pat else {
                continue;
            };
            let name = id.ident.to_string();
            let (level, class) = if n == 0 {
                self.team = name.clone();
                (Level::Const, Class::Member)
            } else {
                param_class(&name, &pt.ty)
            };
            self.bind(name, level, class, None);
        }
        self.block(&f.block);
    }

    /// A block; its value is its tail expression's.
    fn block(&mut self, b: &syn::Block) -> Info {
        self.scopes.push(Vec::new());
        let mut tail = Info::value(Level::Const);
        for (k, s) in b.stmts.iter().enumerate() {
            let last = k + 1 == b.stmts.len();
            tail = match s {
                Stmt::Local(l) => {
                    self.local(l);
                    Info::value(Level::Const)
                }
                Stmt::Item(_) => Info::value(Level::Const),
                Stmt::Macro(m) => {
                    self.mac(&m.mac);
                    Info::value(Level::Const)
                }
                Stmt::Expr(e, semi) => {
                    let info = self.expr(e);
                    if semi.is_none() && last {
                        info
                    } else {
                        Info::value(Level::Const)
                    }
                }
            };
        }
        self.scopes.pop();
        tail
    }

    fn local(&mut self, l: &syn::Local) {
        if let syn::Pat::Tuple(t) = &l.pat {
            return self.tuple_local(t, l);
        }
        let (ident, mutable) = match &l.pat {
            syn::Pat::Ident(i) => (&i.ident, i.mutability.is_some()),
            syn::Pat::Type(t) => match &*t.pat {
                syn::Pat::Ident(i) => (&i.ident, i.mutability.is_some()),
                _ => return,
            },
            _ => return,
        };
        let init = l.init.as_ref().map(|i| self.expr(&i.expr));
        let rank = !mutable && l.init.as_ref().is_some_and(|i| self.is_rank(&i.expr));
        let name = ident.to_string();
        // `let x: T;` is assigned later, like a mutable variable.
        let mutable = mutable || init.is_none();
        let info = init.unwrap_or(Info::value(Level::Const));
        let mutable = mutable.then(|| {
            let k = key(ident.span());
            let at = info.level.max(self.here());
            self.raise(k, at);
            k
        });
        let id = self.bind(name, info.level, info.class, mutable);
        if rank {
            self.ranks.insert(id);
        }
    }

    /// `let (a, b) = v;`: each name varies as `v` does, and a `mut` one
    /// like an assigned variable.
    fn tuple_local(&mut self, t: &syn::PatTuple, l: &syn::Local) {
        let info = l
            .init
            .as_ref()
            .map_or(Info::value(Level::Const), |i| self.expr(&i.expr));
        for pat in &t.elems {
            let pat = match pat {
                syn::Pat::Type(t) => &*t.pat,
                p => p,
            };
            let syn::Pat::Ident(i) = pat else { continue };
            let mutable = i.mutability.is_some().then(|| {
                let k = key(i.ident.span());
                self.raise(k, info.level.max(self.here()));
                k
            });
            // A tuple's fields are scalars.
            self.bind(i.ident.to_string(), info.level, Class::Value, mutable);
        }
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Info {
        match e {
            Expr::Lit(_) => Info::value(Level::Const),
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Reference(r) => self.expr(&r.expr),
            Expr::Path(p) => match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                Some(v) => Info {
                    level: v.level,
                    class: v.class,
                },
                // Constants, `#[device]` constants, `u64::MAX`, reducers.
                None => Info::value(Level::Const),
            },
            Expr::Unary(u) => Info::value(self.expr(&u.expr).level),
            Expr::Cast(c) => Info::value(self.expr(&c.expr).level),
            Expr::Field(f) => Info::value(self.expr(&f.base).level),
            Expr::Binary(b) if is_assign(&b.op) => {
                self.assign(&b.left, &b.right);
                Info::value(Level::Const)
            }
            Expr::Binary(b) => {
                let l = self.expr(&b.left).level;
                Info::value(l.max(self.expr(&b.right).level))
            }
            Expr::Assign(a) => {
                self.assign(&a.left, &a.right);
                Info::value(Level::Const)
            }
            Expr::Index(i) => self.read(i),
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) => self.call(c),
            Expr::Macro(m) => {
                self.mac(&m.mac);
                Info::value(Level::Const)
            }
            Expr::If(i) => self.if_expr(i),
            Expr::Block(b) => self.block(&b.block),
            Expr::While(w) => {
                self.looped(Some(&w.cond), None, &w.body);
                Info::value(Level::Const)
            }
            Expr::Loop(l) => {
                self.looped(None, None, &l.body);
                Info::value(Level::Const)
            }
            Expr::ForLoop(f) => {
                self.looped(Some(&f.expr), Some(&f.pat), &f.body);
                Info::value(Level::Const)
            }
            Expr::Return(r) => {
                if let Some(v) = &r.expr {
                    self.expr(v);
                }
                let here = self.here();
                self.ret = self.ret.max(here);
                self.exit = self.exit.max(here);
                self.loop_ret = self.loop_ret.max(here);
                Info::value(Level::Const)
            }
            Expr::Break(b) => {
                if let Some(v) = &b.expr {
                    self.expr(v);
                }
                self.exit = self.exit.max(self.here());
                Info::value(Level::Const)
            }
            Expr::Continue(_) => {
                self.exit = self.exit.max(self.here());
                Info::value(Level::Const)
            }
            Expr::Array(a) => Info::value(self.max_of(a.elems.iter())),
            Expr::Tuple(t) => Info::value(self.max_of(t.elems.iter())),
            Expr::Range(r) => {
                let a = r
                    .start
                    .as_ref()
                    .map_or(Level::Const, |s| self.expr(s).level);
                let b = r.end.as_ref().map_or(Level::Const, |s| self.expr(s).level);
                Info::value(a.max(b))
            }
            Expr::Struct(s) => Info::value(self.max_of(s.fields.iter().map(|f| &f.expr))),
            // Anything else is outside the subset: the translator rejects
            // it with its own message.
            _ => Info::value(Level::Lane),
        }
    }

    pub(super) fn max_of<'e>(&mut self, es: impl Iterator<Item = &'e Expr>) -> Level {
        es.fold(Level::Const, |l, e| l.max(self.expr(e).level))
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> Info {
        let c = self.expr(&i.cond).level;
        let saved = self.div;
        self.div = self.div.max(c);
        let then = self.block(&i.then_branch);
        let mut info = Info {
            level: c.max(then.level),
            class: then.class,
        };
        if let Some((_, e)) = &i.else_branch {
            let other = self.expr(e);
            info.level = info.level.max(other.level);
            if other.class != info.class {
                if is_memory(&info.class) || is_memory(&other.class) {
                    self.error(i.span(), format!(
                        "this `if` gives one of several Views (`{}` or `{}`), and which one is written decides who may write it: index each View through its own variable",
                        block_tail(&i.then_branch).map_or_else(|| "()".to_string(), describe),
                        describe(e)
                    ));
                }
                info.class = Class::Value;
            }
        } else {
            info.class = Class::Value;
        }
        self.div = saved;
        info
    }

    /// A loop: its body runs under the divergence of its condition or
    /// range, and of its exits (an exit met in the body makes every
    /// later iteration divergent, so the body is checked again at that
    /// level).
    fn looped(&mut self, head: Option<&Expr>, pat: Option<&syn::Pat>, body: &syn::Block) {
        let h = head.map_or(Level::Const, |e| self.expr(e).level);
        let (saved_div, saved_exit, saved_loop_ret) = (self.div, self.exit, self.loop_ret);
        let mut inner = self.here().max(h);
        loop {
            let errors = self.errors.len();
            self.div = inner;
            self.exit = Level::Const;
            self.loop_ret = Level::Const;
            self.scopes.push(Vec::new());
            if let Some(name) = pat.and_then(pat_name) {
                self.bind(name, h, Class::Value, None);
            }
            self.block(body);
            self.scopes.pop();
            if self.exit <= inner {
                break;
            }
            inner = self.exit;
            self.errors.truncate(errors);
        }
        let returned = self.loop_ret;
        self.div = saved_div;
        self.exit = saved_exit.max(returned);
        self.loop_ret = saved_loop_ret.max(returned);
    }

    fn assign(&mut self, left: &Expr, right: &Expr) {
        let r = self.expr(right).level;
        match left {
            Expr::Paren(p) => self.assign(&p.expr, right),
            Expr::Index(i) => {
                self.own_slot_reads(i, right);
                self.write(i)
            }
            Expr::Path(_) => {
                let Some(v) = path_name(left).and_then(|n| self.lookup(&n)) else {
                    return;
                };
                if let Some(k) = v.mutable {
                    let at = r.max(self.here());
                    self.raise(k, at);
                }
            }
            // `*acc`, `acc.0`: the executor's own accumulator.
            other => {
                self.expr(other);
            }
        }
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> Info {
        let name = m.method.to_string();
        if let Some(kind) = nested_kind(&m.receiver) {
            if matches!(
                name.as_str(),
                "parallel_for" | "parallel_reduce" | "parallel_scan" | "parallel_scan_with"
            ) {
                return self.nested(m, kind, &name);
            }
        }
        if name == "unwrap" || name == "expect" {
            if let Expr::MethodCall(inner) = &*m.receiver {
                if inner.method == "chunk_mut" {
                    return self.chunk_mut(inner);
                }
                if let Some(info) = self.scratch(inner, true) {
                    return info;
                }
            }
        }
        if name == "is_ok" || name == "is_err" {
            if let Expr::MethodCall(inner) = &*m.receiver {
                if let Some(info) = self.scratch(inner, false) {
                    return info;
                }
                // `compare_exchange(..).is_ok()`: an atomic.
                self.expr(&m.receiver);
                return Info::value(Level::Lane);
            }
        }
        let recv = self.expr(&m.receiver);
        let args = self.max_of(m.args.iter());
        match recv.class {
            Class::Member => self.member(m, &name),
            Class::Atomic => Info::value(Level::Lane),
            _ => Info::value(recv.level.max(args)),
        }
    }

    fn call(&mut self, c: &syn::ExprCall) -> Info {
        let name = match &*c.func {
            Expr::Path(p) => p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default(),
            _ => String::new(),
        };
        if name == "single" {
            return self.single(c);
        }
        // A `#[device]` helper (or a range's `new`): its value is as
        // uniform as its arguments; a View passed to it is read anywhere.
        let mut level = Level::Const;
        for a in &c.args {
            let info = self.expr(a);
            level = level.max(info.level);
            self.handed_to_helper(a, &info.class);
        }
        Info::value(level)
    }

    /// `assert!(..)` and the like: their operands are read.
    fn mac(&mut self, m: &syn::Macro) {
        let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
        let Ok(args) = m.parse_body_with(parser) else {
            return;
        };
        for a in &args {
            match a {
                // A named format argument, `name = value`.
                Expr::Assign(x) => {
                    self.expr(&x.right);
                }
                other => {
                    self.expr(other);
                }
            }
        }
    }
}

fn is_assign(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

pub(super) fn pat_name(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Ident(i) => Some(i.ident.to_string()),
        syn::Pat::Type(t) => pat_name(&t.pat),
        _ => None,
    }
}

/// A kernel parameter's class and level, from its type.
fn param_class(name: &str, ty: &syn::Type) -> (Level, Class) {
    let (mutable, inner) = match ty {
        syn::Type::Reference(r) => (r.mutability.is_some(), &*r.elem),
        other => (false, other),
    };
    let last = match inner {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        _ => String::new(),
    };
    match () {
        // A reduction's accumulator: each executor has its own.
        _ if mutable => (Level::Lane, Class::Value),
        _ if last == "AtomicView" || last == "ScatterView" => (Level::Const, Class::Atomic),
        _ if last == "UniqueToken" => (Level::Const, Class::Atomic),
        // Inserts, like atomics, give each lane its own result.
        _ if last == "MapInserter" || last == "SetInserter" => (Level::Const, Class::Atomic),
        _ if last == "UnorderedMap" || last == "UnorderedSet" => (Level::Const, Class::ReadView),
        _ if last == "TeamChunk" => (Level::Const, Class::TeamChunk(name.to_string())),
        _ if last.starts_with("View") => (Level::Const, Class::ReadView),
        _ => (Level::Const, Class::Value),
    }
}
