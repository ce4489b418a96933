//! The team write model, checked when a team `#[kernel]` is translated.
//!
//! On the host a team is one thread, so a team kernel's body runs alone.
//! On a device a team is a block: its threads run the body at once, and
//! the vector lanes of a thread repeat the thread's code (Kokkos
//! semantics). For a team kernel to be race-free on every space, this
//! pass proves, from the body's syntax, that
//! - **collectives are reached by everyone they synchronize**: team
//!   collectives (`team_barrier`, `team_broadcast`, `team_reduce`,
//!   `team_scan*`, `single(PerTeam)`, `TeamThreadRange` and
//!   `TeamVectorRange` patterns, team scratch requests) only in control
//!   flow that is the same on every thread of the team, outside nested
//!   patterns; lane collectives (`ThreadVectorRange` patterns,
//!   `single(PerThread)`, thread scratch requests) in control flow that is
//!   the same on every lane of a thread;
//! - **team scratch is written by one executor per element**: inside
//!   `single(PerTeam)`, or inside a `TeamVectorRange` (or, with one lane
//!   per thread, a `TeamThreadRange`) at an index that contains the
//!   pattern's index; such a pattern becomes a phase of its own (team
//!   barriers before and after it), and inside it the written View is
//!   read only at its own index;
//! - **a thread's memory (its scratch, the part `chunk_mut` gives it) is
//!   written by one lane per element**: inside `single(PerThread)` or a
//!   vector-level pattern at an index that contains its index (a lane
//!   phase: the thread's lanes synchronize around it); anywhere else the
//!   kernel records that it needs one lane per thread
//!   ([`TeamRules::one_lane`]), which a device checks at dispatch;
//! - **a team's chunk is either read by the team or divided among its
//!   threads**, not both, and every `chunk_mut` of it uses the same map,
//!   whose width does not change during the launch.
//!
//! Memory is followed by what an expression is, never by how it is
//! spelled: a part or a scratch View is known by the request that made it
//! (`chunk_mut`, `team_scratch`, `thread_scratch`), through `let`, blocks
//! and parentheses, and a team chunk by its parameter; an index is a
//! nested range's index only if its name resolves to that range's binding
//! where it stands (a `let` or `for` that shadows it is another value).
//! The rule for a thread's memory never looks at the chunk map: whatever
//! map gave the part, every lane holds it. A write to memory the analysis
//! cannot name is refused, since nothing is proven about it.
//!
//! Values are classed by how uniform they are ([`Level`]): the same for
//! the team's whole life, the same on every thread at a point, the same
//! on a thread's lanes, or per executor. Control flow under a condition
//! (or after a `return`/`break`) of a level is divergent at that level.

use super::errors::error_at;
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Stmt};

/// How uniform a value or a point of control flow is, from most to least.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The same on every executor of the team for the team's whole life
    /// (literals, constants, captured values, `league_rank()`).
    Const,
    /// The same on every thread of the team at this point.
    Team,
    /// The same on the vector lanes of a thread (`team_rank()`).
    Thread,
    /// Per executor (a vector index, an atomic's result).
    Lane,
}

/// A source position, naming a construct or a View.
pub type Key = (usize, usize);

/// The position of `span`'s start.
pub fn key(span: Span) -> Key {
    let s = span.start();
    (s.line, s.column)
}

/// What the translation of a team kernel needs from the analysis.
#[derive(Debug, Default)]
pub struct TeamRules {
    /// Constructs (by the key of their method or `single` call) that
    /// write team scratch: team barriers go before and after them.
    pub team_phases: HashSet<Key>,
    /// Constructs that write a thread's memory: the thread's lanes
    /// synchronize before and after them.
    pub lane_phases: HashSet<Key>,
    /// Why the kernel needs one vector lane per team thread, if it does.
    pub one_lane: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
enum Class {
    Value,
    Member,
    ReadView,
    Atomic,
    /// A `TeamChunk` parameter, by name.
    TeamChunk(String),
    /// A team scratch View, by the key of its request.
    TeamScratch(Key),
    /// A thread's scratch View or `chunk_mut` part, by the key of its
    /// request.
    ThreadOwned(Key),
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    level: Level,
    class: Class,
    /// A mutable variable's key in the table of assigned levels.
    mutable: Option<Key>,
    /// This binding, among all of the pass: two bindings of one name
    /// (shadowing) are different values.
    id: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    TeamThread,
    ThreadVector,
    TeamVector,
    SingleTeam,
    SingleThread,
}

#[derive(Clone, Debug)]
struct Construct {
    kind: Kind,
    /// The binding of the closure's index parameter (nested ranges).
    index: Option<usize>,
    key: Key,
}

#[derive(Clone, Debug)]
struct Info {
    level: Level,
    class: Class,
}

impl Info {
    fn value(level: Level) -> Self {
        Info {
            level,
            class: Class::Value,
        }
    }
}

/// Checks a team kernel (first parameter `&TeamMember`); `Ok` gives what
/// its translation needs.
pub fn check(f: &syn::ItemFn) -> syn::Result<TeamRules> {
    let mut levels: HashMap<Key, Level> = HashMap::new();
    let mut writes: HashSet<(Key, Key)> = HashSet::new();
    let mut divided: HashSet<String> = HashSet::new();
    // Assigned levels only rise, and the writes and divided chunks are
    // fixed by the syntax, so this settles within a few passes; the last
    // pass, which knows them all from the start, reports.
    for _ in 0..16 {
        let mut an = An::new(levels, writes.clone(), divided.clone());
        an.function(f);
        if !an.raised && an.writes == writes && an.dividing == divided {
            return an.finish();
        }
        levels = an.levels;
        writes = an.writes;
        divided = an.dividing;
    }
    let mut an = An::new(levels, writes, divided);
    an.function(f);
    an.finish()
}

/// The name of a plain one-segment path expression.
fn path_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Paren(p) => path_name(&p.expr),
        Expr::Group(g) => path_name(&g.expr),
        Expr::Reference(r) => path_name(&r.expr),
        _ => None,
    }
}

/// How messages name the memory `e` denotes: the variable it reads,
/// through parentheses and blocks, else its source text.
fn describe(e: &Expr) -> String {
    match e {
        Expr::Paren(p) => describe(&p.expr),
        Expr::Group(g) => describe(&g.expr),
        Expr::Block(b) => block_tail(&b.block).map_or_else(|| source_text(e), describe),
        e => path_name(e).unwrap_or_else(|| source_text(e)),
    }
}

/// A block's value expression, if it has one.
fn block_tail(b: &syn::Block) -> Option<&Expr> {
    match b.stmts.last() {
        Some(Stmt::Expr(tail, None)) => Some(tail),
        _ => None,
    }
}

/// `e` as it is usually written (`quote` puts a space between tokens).
fn source_text(e: &Expr) -> String {
    let mut text = quote::quote!(#e).to_string();
    for (spaced, tight) in [
        (" . ", "."),
        (" :: ", "::"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" ,", ","),
    ] {
        text = text.replace(spaced, tight);
    }
    text
}

struct An {
    team: String,
    scopes: Vec<Vec<Var>>,
    /// Assigned levels of mutable variables, by declaration.
    levels: HashMap<Key, Level>,
    raised: bool,
    /// Divergence of the control flow at this point.
    div: Level,
    /// Divergence left by a `return` met earlier (the rest of the body
    /// runs only on the executors that did not return).
    ret: Level,
    /// Divergence of the exits (`break`, `continue`, `return`) met in the
    /// innermost loop's body.
    exit: Level,
    /// Divergence of the `return`s met in the innermost loop's body.
    loop_ret: Level,
    stack: Vec<Construct>,
    /// (construct, View) pairs written, from the previous pass.
    written: HashSet<(Key, Key)>,
    writes: HashSet<(Key, Key)>,
    /// The index position each (construct, View) is written at.
    positions: HashMap<(Key, Key), usize>,
    /// The team chunks (by parameter) some thread divides, from the
    /// previous pass, and from this one.
    divided: HashSet<String>,
    dividing: HashSet<String>,
    /// Bindings made so far in this pass.
    bindings: usize,
    /// The first `chunk_mut` map of each divided chunk, as written.
    maps: HashMap<String, String>,
    errors: Vec<syn::Error>,
    rules: TeamRules,
}

const TEAM_COLLECTIVE_HELP: &str = "every thread of the team must reach it (it synchronizes them), so it must not depend on a value that differs between the team's threads (`team_rank()`, a nested range's index, an atomic's result, a thread's scratch) through a condition, a loop or an earlier `return`/`break`";

const LANE_COLLECTIVE_HELP: &str = "every vector lane of the thread must reach it (it synchronizes them), so it must not depend on a value that differs between the lanes (a vector range's index, an atomic's result) through a condition, a loop or an earlier `return`/`break`";

impl An {
    fn new(
        levels: HashMap<Key, Level>,
        written: HashSet<(Key, Key)>,
        divided: HashSet<String>,
    ) -> Self {
        An {
            team: String::new(),
            scopes: vec![Vec::new()],
            levels,
            raised: false,
            div: Level::Const,
            ret: Level::Const,
            exit: Level::Const,
            loop_ret: Level::Const,
            stack: Vec::new(),
            written,
            writes: HashSet::new(),
            positions: HashMap::new(),
            divided,
            dividing: HashSet::new(),
            bindings: 0,
            maps: HashMap::new(),
            errors: Vec::new(),
            rules: TeamRules::default(),
        }
    }

    fn finish(self) -> syn::Result<TeamRules> {
        let mut errors = self.errors.into_iter();
        match errors.next() {
            None => Ok(self.rules),
            Some(mut first) => {
                errors.for_each(|e| first.combine(e));
                Err(first)
            }
        }
    }

    fn error(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.errors.push(error_at(span, msg));
    }

    /// The divergence of the control flow here.
    fn here(&self) -> Level {
        self.div.max(self.ret)
    }

    /// Binds `name` in the innermost scope; gives the binding's identity.
    fn bind(&mut self, name: String, level: Level, class: Class, mutable: Option<Key>) -> usize {
        let id = self.bindings;
        self.bindings += 1;
        let var = Var {
            name,
            level,
            class,
            mutable,
            id,
        };
        if let Some(s) = self.scopes.last_mut() {
            s.push(var);
        }
        id
    }

    /// Whether index expression `idx` has the binding `id` (a nested
    /// range's index) as a whole component (`x[i]`, `x[[a, i]]`), and at
    /// which position. Names resolve where `idx` stands, so a name that
    /// shadows the index does not count.
    fn component_of(&self, idx: &Expr, id: usize) -> Option<usize> {
        let is = |e: &Expr| {
            path_name(e)
                .and_then(|n| self.lookup(&n))
                .is_some_and(|v| v.id == id)
        };
        match idx {
            Expr::Paren(p) => self.component_of(&p.expr, id),
            Expr::Group(g) => self.component_of(&g.expr, id),
            Expr::Array(a) => a.elems.iter().position(is),
            e => is(e).then_some(0),
        }
    }

    fn lookup(&self, name: &str) -> Option<Var> {
        let v = self
            .scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|v| v.name == name)?
            .clone();
        Some(match v.mutable {
            Some(k) => Var {
                level: v
                    .level
                    .max(self.levels.get(&k).copied().unwrap_or(Level::Const)),
                ..v
            },
            None => v,
        })
    }

    fn raise(&mut self, k: Key, level: Level) {
        let old = self.levels.entry(k).or_insert(Level::Const);
        if level > *old {
            *old = level;
            self.raised = true;
        }
    }

    fn function(&mut self, f: &syn::ItemFn) {
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
        self.bind(name, info.level, info.class, mutable);
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

    fn expr(&mut self, e: &Expr) -> Info {
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

    fn max_of<'e>(&mut self, es: impl Iterator<Item = &'e Expr>) -> Level {
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
            Expr::Index(i) => self.write(i),
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

    /// `base[idx] = ..`: the memory written is what `base` is, however
    /// it is spelled.
    fn write(&mut self, i: &syn::ExprIndex) {
        self.expr(&i.index);
        let base = self.expr(&i.expr);
        let name = describe(&i.expr);
        let line = i.span().start().line;
        match base.class {
            Class::TeamScratch(id) => self.team_write(&name, id, &i.index, i.span()),
            Class::ThreadOwned(id) => self.thread_write(&name, id, &i.index, line),
            // The translator refuses writes through read-only Views, team
            // chunks and atomics, so this is memory the analysis lost
            // track of: nothing proves who may write it.
            _ => self.error(i.expr.span(), format!(
                "the team write model cannot tell which memory `{name}` is, so it cannot prove that one executor writes each element: write through the variable a `chunk_mut(..).unwrap()` or a scratch request is bound to"
            )),
        }
    }

    /// A write to team scratch: one executor per element, in a phase.
    fn team_write(&mut self, name: &str, id: Key, idx: &Expr, at: Span) {
        let Some(top) = self.stack.first().cloned() else {
            return self.error(at, format!(
                "team scratch `{name}` is shared by the team's threads, which run this line at once on a device: write it inside `single(PerTeam(team), || ..)`, or in a `TeamVectorRange` (or `TeamThreadRange`) pattern at its index, e.g. `{name}[i] = ..`"
            ));
        };
        let single = self.stack.iter().any(|c| c.kind == Kind::SingleTeam);
        let by_index = self.divides(id, idx, top.key);
        if !single && !by_index {
            return self.error(at, format!(
                "team scratch `{name}` is written here at an index that does not contain the index of the nested range around it, so two threads could write one element; index it by the range's index (`{name}[i]`, `{name}[[i, j]]`) or write it inside `single(PerTeam(team), || ..)`"
            ));
        }
        if !single && top.kind == Kind::TeamThread && !self.lane_divides(idx) {
            self.need_one_lane(at.start().line, format!(
                "writes team scratch `{name}` in a TeamThreadRange, whose vector lanes repeat the write"
            ));
        }
        self.writes.insert((top.key, id));
        self.rules.team_phases.insert(top.key);
    }

    /// Whether `idx` contains the index of the construct that writes
    /// View `id` in phase `phase` (a TeamVectorRange's or TeamThreadRange's
    /// index), at one position for the whole phase.
    fn divides(&mut self, id: Key, idx: &Expr, phase: Key) -> bool {
        let found = self.stack.iter().rev().find_map(|c| {
            let team_level = matches!(c.kind, Kind::TeamVector | Kind::TeamThread);
            let at = c.index.and_then(|v| self.component_of(idx, v))?;
            team_level.then_some(at)
        });
        let Some(at) = found else { return false };
        *self.positions.entry((phase, id)).or_insert(at) == at
    }

    /// Whether the lanes of a TeamThreadRange's thread write distinct
    /// elements at `idx`: it runs on one lane (`single(PerThread)`), or
    /// contains a vector range's index (a vector range whose index is `_`
    /// gives every lane the same element).
    fn lane_divides(&self, idx: &Expr) -> bool {
        self.stack.iter().any(|c| match c.kind {
            Kind::SingleThread => true,
            Kind::ThreadVector | Kind::TeamVector => {
                c.index.is_some_and(|v| self.component_of(idx, v).is_some())
            }
            Kind::TeamThread | Kind::SingleTeam => false,
        })
    }

    /// A write to a thread's memory: one lane per element, or one lane.
    fn thread_write(&mut self, name: &str, id: Key, idx: &Expr, line: usize) {
        let single = self
            .stack
            .iter()
            .rev()
            .find(|c| matches!(c.kind, Kind::SingleTeam | Kind::SingleThread))
            .cloned();
        let vector = self
            .stack
            .iter()
            .rev()
            .find(|c| matches!(c.kind, Kind::ThreadVector | Kind::TeamVector))
            .cloned();
        let at = match (single, vector) {
            (Some(s), _) => Some(s.key),
            (None, Some(v)) => v
                .index
                .and_then(|i| self.component_of(idx, i))
                .map(|_| v.key),
            (None, None) => None,
        };
        match at {
            Some(k) => {
                self.writes.insert((k, id));
                self.rules.lane_phases.insert(k);
            }
            None => self.need_one_lane(line, format!(
                "writes `{name}` (memory of one team thread, which its vector lanes share) outside `single(PerThread(team), ..)` and outside a vector range indexed by its index"
            )),
        }
    }

    fn need_one_lane(&mut self, line: usize, why: String) {
        if self.rules.one_lane.is_none() {
            self.rules.one_lane = Some(format!("line {line}: {why}"));
        }
    }

    /// `base[idx]` read: the memory read is what `base` is, however it is
    /// spelled.
    fn read(&mut self, i: &syn::ExprIndex) -> Info {
        let idx = self.expr(&i.index).level;
        let base = self.expr(&i.expr);
        let name = describe(&i.expr);
        let level = match &base.class {
            Class::TeamChunk(row) => {
                if self.divided.contains(row) {
                    self.error(i.span(), format!(
                        "team chunk `{row}` is divided among the team's threads with `chunk_mut`, so the team cannot also read it: on a device another thread may be writing the element; read your elements through your part (`mine[k]`)"
                    ));
                }
                idx
            }
            Class::TeamScratch(id) => {
                self.phase_read(&name, *id, &i.index, i.span());
                idx.max(Level::Team)
            }
            Class::ThreadOwned(id) => {
                self.phase_read(&name, *id, &i.index, i.span());
                idx.max(Level::Thread)
            }
            _ => base.level.max(idx),
        };
        Info::value(level)
    }

    /// Inside a construct that writes a View, the View is read at its own
    /// index only (another executor may be writing the rest).
    fn phase_read(&mut self, name: &str, id: Key, idx: &Expr, at: Span) {
        let writer = self.stack.iter().rev().find(|c| {
            self.written.contains(&(c.key, id))
                && !matches!(c.kind, Kind::SingleTeam | Kind::SingleThread)
        });
        let Some(c) = writer.cloned() else { return };
        let own = c.index.and_then(|v| self.component_of(idx, v)).is_some();
        if !own {
            self.error(at, format!(
                "`{name}` is written in this nested range, by other threads or lanes too: read it here only at this range's index"
            ));
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

    fn member(&mut self, m: &syn::ExprMethodCall, name: &str) -> Info {
        match name {
            "league_rank" | "league_size" | "team_size" => Info::value(Level::Const),
            "team_rank" | "thread_ids" => Info::value(Level::Thread),
            "team_barrier" | "team_reduce" => {
                self.team_collective(m.span(), name);
                Info::value(Level::Team)
            }
            "team_broadcast" => {
                self.team_collective(m.span(), name);
                if let Some(src) = m.args.iter().nth(1) {
                    if self.expr(src).level > Level::Team {
                        self.error(src.span(), "the source rank of `team_broadcast` must be the same on every thread of the team");
                    }
                }
                Info::value(Level::Team)
            }
            "team_scan" | "team_scan_global" => {
                self.team_collective(m.span(), name);
                Info::value(Level::Thread)
            }
            _ => Info::value(Level::Lane),
        }
    }

    fn team_collective(&mut self, at: Span, what: &str) {
        if let Some(c) = self.stack.last() {
            let inside = construct_name(c.kind);
            return self.error(at, format!(
                "`{what}` is a team collective: every thread of the team must call it, so it cannot run inside {inside}"
            ));
        }
        if self.here() > Level::Team {
            self.error(
                at,
                format!("`{what}` is a team collective: {TEAM_COLLECTIVE_HELP}"),
            );
        }
    }

    fn lane_collective(&mut self, at: Span, what: &str) {
        if let Some(c) = self.stack.iter().rev().find(|c| c.kind != Kind::TeamThread) {
            let inside = construct_name(c.kind);
            return self.error(at, format!(
                "`{what}` synchronizes the vector lanes of a thread, so it cannot run inside {inside}"
            ));
        }
        if self.here() > Level::Thread {
            self.error(
                at,
                format!("`{what}` is a lane collective: {LANE_COLLECTIVE_HELP}"),
            );
        }
    }

    /// `team.team_scratch::<T, R>(level, extents)` (`take`: unwrapped) or
    /// `thread_scratch`; `None` if `inner` is not one.
    fn scratch(&mut self, inner: &syn::ExprMethodCall, take: bool) -> Option<Info> {
        let team = match inner.method.to_string().as_str() {
            "team_scratch" => true,
            "thread_scratch" => false,
            _ => return None,
        };
        let recv = self.expr(&inner.receiver);
        if recv.class != Class::Member {
            return None;
        }
        let args = self.max_of(inner.args.iter());
        let k = key(inner.method.span());
        let what = inner.method.to_string();
        // Every executor that shares the memory must make the same
        // requests, in the same order, to get the same Views.
        let most = if team { Level::Team } else { Level::Thread };
        if take {
            if team {
                self.team_collective(inner.method.span(), &what);
            } else {
                self.lane_collective(inner.method.span(), &what);
            }
            if args > most {
                self.error(inner.span(), format!(
                    "the arguments of `{what}` must be the same on every {} that shares the scratch",
                    if team { "thread of the team" } else { "vector lane of the thread" }
                ));
            }
        }
        Some(match (take, team) {
            (false, _) => Info::value(args.max(most)),
            (true, true) => Info {
                level: args,
                class: Class::TeamScratch(k),
            },
            (true, false) => Info {
                level: args,
                class: Class::ThreadOwned(k),
            },
        })
    }

    /// `row.chunk_mut(map, team.thread_ids())`: this thread's part.
    fn chunk_mut(&mut self, inner: &syn::ExprMethodCall) -> Info {
        // The chunk divided is the parameter the receiver is, however it
        // is spelled (the translator takes `chunk_mut` on nothing else).
        let row = match self.expr(&inner.receiver).class {
            Class::TeamChunk(row) => row,
            _ => describe(&inner.receiver),
        };
        self.dividing.insert(row.clone());
        let mut args = inner.args.iter();
        if let Some(map) = args.next() {
            self.chunk_map(&row, map);
        }
        args.for_each(|a| {
            self.expr(a);
        });
        Info {
            level: Level::Thread,
            class: Class::ThreadOwned(key(inner.method.span())),
        }
    }

    /// The map a thread divides `row` with: fixed for the launch (so every
    /// thread divides it the same way whenever it does), and the same at
    /// every `chunk_mut` of `row`.
    fn chunk_map(&mut self, row: &str, map: &Expr) {
        if let Expr::Call(c) = map {
            for a in &c.args {
                if self.expr(a).level > Level::Const {
                    self.error(a.span(), format!(
                        "the width of the map that divides `{row}` must be the same on every thread for the whole launch (a literal, a constant, a captured value, `league_rank()`, `team_size()`, or a `let` of those), since every thread's part must be disjoint from the others' whenever they take it"
                    ));
                }
            }
        }
        let text = quote::quote!(#map).to_string();
        match self.maps.get(row) {
            Some(first) if *first != text => self.error(map.span(), format!(
                "every `chunk_mut` of `{row}` must use the same map (the first one is `{first}`): parts taken with different maps overlap"
            )),
            Some(_) => {}
            None => {
                self.maps.insert(row.to_string(), text);
            }
        }
    }

    /// `Range::new(team, a..b).parallel_*(..)`.
    fn nested(&mut self, m: &syn::ExprMethodCall, kind: Kind, method: &str) -> Info {
        let what = format!(
            "{}::{method}",
            construct_name(kind).trim_start_matches("a ")
        );
        if kind == Kind::ThreadVector {
            self.lane_collective(m.method.span(), &what);
        } else {
            self.team_collective(m.method.span(), &what);
        }
        let Expr::Call(range) = &*m.receiver else {
            return Info::value(Level::Lane);
        };
        let bounds = self.max_of(range.args.iter());
        let most = if kind == Kind::ThreadVector {
            Level::Thread
        } else {
            Level::Team
        };
        if bounds > most {
            self.error(
                range.span(),
                format!(
                "the range of {} must be the same on every {} (it decides who runs which index)",
                construct_name(kind),
                if kind == Kind::ThreadVector { "lane of the thread" } else { "thread of the team" }
            ),
            );
        }
        for a in &m.args {
            match a {
                Expr::Closure(f) => self.closure(f, kind, key(m.method.span())),
                other => {
                    self.expr(other);
                }
            }
        }
        let result = match (method, kind) {
            ("parallel_for", _) => Level::Const,
            (_, Kind::ThreadVector) => Level::Thread,
            _ => Level::Team,
        };
        Info::value(result)
    }

    /// A nested pattern's closure: its index and accumulator are per
    /// executor, and its body runs divergent at the construct's level.
    fn closure(&mut self, f: &syn::ExprClosure, kind: Kind, k: Key) {
        let mut names = f.inputs.iter().map(pat_name);
        let index = names.next().flatten();
        self.scopes.push(Vec::new());
        let index_level = if kind == Kind::TeamThread {
            Level::Thread
        } else {
            Level::Lane
        };
        let index = index.map(|i| self.bind(i, index_level, Class::Value, None));
        for n in names.flatten() {
            self.bind(n, Level::Lane, Class::Value, None);
        }
        self.stack.push(Construct {
            kind,
            index,
            key: k,
        });
        self.body_in(&f.body, index_level);
        self.stack.pop();
        self.scopes.pop();
    }

    /// A closure body: divergent at `level`, with its own `return`s.
    fn body_in(&mut self, body: &Expr, level: Level) -> Level {
        let saved = (self.div, self.ret, self.exit, self.loop_ret);
        self.div = self.here().max(level);
        self.ret = Level::Const;
        let v = self.expr(body).level;
        (self.div, self.ret, self.exit, self.loop_ret) = saved;
        v
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
            if let Class::TeamScratch(id) | Class::ThreadOwned(id) = info.class {
                let n = describe(a);
                if self
                    .stack
                    .iter()
                    .any(|s| self.written.contains(&(s.key, id)))
                {
                    self.error(a.span(), format!(
                        "`{n}` is written in this nested range, so it cannot be handed to a helper here, which may read any element"
                    ));
                }
            }
        }
        Info::value(level)
    }

    /// `single(PerTeam(team), || ..)` / `single(PerThread(team), || ..)`.
    fn single(&mut self, c: &syn::ExprCall) -> Info {
        let per_team = match c.args.first() {
            Some(Expr::Call(scope)) => {
                matches!(&*scope.func, Expr::Path(p) if p.path.is_ident("PerTeam"))
            }
            _ => false,
        };
        let kind = if per_team {
            Kind::SingleTeam
        } else {
            Kind::SingleThread
        };
        let what = if per_team {
            "single(PerTeam(..))"
        } else {
            "single(PerThread(..))"
        };
        if per_team {
            self.team_collective(c.func.span(), what);
        } else {
            self.lane_collective(c.func.span(), what);
        }
        let k = key(c.func.span());
        for a in &c.args {
            match a {
                Expr::Closure(f) => {
                    self.stack.push(Construct {
                        kind,
                        index: None,
                        key: k,
                    });
                    self.scopes.push(Vec::new());
                    self.body_in(&f.body, Level::Lane);
                    self.scopes.pop();
                    self.stack.pop();
                }
                other => {
                    self.expr(other);
                }
            }
        }
        Info::value(if per_team { Level::Team } else { Level::Thread })
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

/// Whether values of `class` are memory a team kernel may divide or write.
fn is_memory(class: &Class) -> bool {
    matches!(
        class,
        Class::TeamChunk(_) | Class::TeamScratch(_) | Class::ThreadOwned(_)
    )
}

fn pat_name(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Ident(i) => Some(i.ident.to_string()),
        syn::Pat::Type(t) => pat_name(&t.pat),
        _ => None,
    }
}

/// The nested range a method's receiver constructs, if any.
fn nested_kind(recv: &Expr) -> Option<Kind> {
    let Expr::Call(c) = recv else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segs.as_slice() {
        [.., kind, new] if new == "new" => match kind.as_str() {
            "TeamThreadRange" => Some(Kind::TeamThread),
            "ThreadVectorRange" => Some(Kind::ThreadVector),
            "TeamVectorRange" => Some(Kind::TeamVector),
            _ => None,
        },
        _ => None,
    }
}

fn construct_name(kind: Kind) -> &'static str {
    match kind {
        Kind::TeamThread => "a TeamThreadRange",
        Kind::ThreadVector => "a ThreadVectorRange",
        Kind::TeamVector => "a TeamVectorRange",
        Kind::SingleTeam => "a single(PerTeam(..))",
        Kind::SingleThread => "a single(PerThread(..))",
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> syn::Result<TeamRules> {
        check(&syn::parse_str(src).unwrap())
    }

    fn err(src: &str) -> String {
        run(src).unwrap_err().to_string()
    }

    #[test]
    fn collectives_in_uniform_control_flow_pass() {
        let r = run("fn k(m: &TeamMember, n: usize, a: &View1<f64>) {
            let b = m.team_broadcast(m.league_rank(), 0);
            if b > n { m.team_barrier(); }
            for s in 0..n { m.team_barrier(); }
            let t = TeamThreadRange::new(m, 0..n).parallel_reduce(Sum, |i, acc: &mut f64| *acc += a[i]);
            if t > 0.0 { m.team_barrier(); }
        }")
        .unwrap();
        assert_eq!(r.one_lane, None);
    }

    #[test]
    fn a_barrier_under_a_thread_condition_is_refused() {
        assert!(
            err("fn k(m: &TeamMember) { if m.team_rank() == 0 { m.team_barrier(); } }")
                .contains("team collective")
        );
        assert!(err(
            "fn k(m: &TeamMember) { if m.team_rank() == 0 { return; } m.team_barrier(); }"
        )
        .contains("team collective"));
        let mutable = "fn k(m: &TeamMember) {
            let mut go = 0;
            for s in 0..4 { m.team_barrier(); if s == 2 { go = m.team_rank(); } }
            if go == 0 { m.team_barrier(); }
        }";
        assert!(err(mutable).contains("team collective"));
        let exit =
            "fn k(m: &TeamMember) { loop { m.team_barrier(); if m.team_rank() == 1 { break; } } }";
        assert!(err(exit).contains("team collective"));
    }

    #[test]
    fn team_scratch_is_written_by_one_executor_per_element() {
        let e = err("fn k(m: &TeamMember) { let mut s = m.team_scratch::<i32, 1>(0, 4).unwrap(); s[0] = 1; }");
        assert!(e.contains("single(PerTeam"), "{e}");
        let r = run("fn k(m: &TeamMember, n: usize) {
            let mut s = m.team_scratch::<i32, 1>(0, n).unwrap();
            TeamVectorRange::new(m, 0..n).parallel_for(|i| s[i] = i as i32);
            single(PerTeam(m), || s[0] = 5);
        }")
        .unwrap();
        assert_eq!((r.team_phases.len(), r.one_lane), (2, None));
        let e = err("fn k(m: &TeamMember, n: usize) {
            let mut s = m.team_scratch::<i32, 1>(0, n).unwrap();
            TeamVectorRange::new(m, 0..n).parallel_for(|i| s[i] = s[i + 1]);
        }");
        assert!(e.contains("only at this range's index"), "{e}");
        let ttr = run("fn k(m: &TeamMember, n: usize) {
            let mut s = m.team_scratch::<i32, 1>(0, n).unwrap();
            TeamThreadRange::new(m, 0..n).parallel_for(|i| s[i] = 1);
        }")
        .unwrap();
        assert!(ttr.one_lane.unwrap().contains("team scratch `s`"));
    }

    #[test]
    fn thread_memory_written_by_every_lane_needs_one_lane() {
        let r = run("fn k(m: &TeamMember, mut row: TeamChunk<f64>) {
            let mut mine = row.chunk_mut(MapIdentity, m.thread_ids()).unwrap();
            mine[0] = 1.0;
        }")
        .unwrap();
        assert!(r.one_lane.unwrap().starts_with("line 3: writes `mine`"));
        let r = run("fn k(m: &TeamMember, mut row: TeamChunk<f64>) {
            let mut mine = row.chunk_mut(MapContinuousLinear::new(8), m.thread_ids()).unwrap();
            ThreadVectorRange::new(m, 0..8).parallel_for(|k| mine[k] = 1.0);
        }")
        .unwrap();
        assert_eq!((r.one_lane, r.lane_phases.len()), (None, 1));
    }

    #[test]
    fn chunk_maps_are_fixed_and_chunks_read_or_divided() {
        let e = err("fn k(m: &TeamMember, mut row: TeamChunk<f64>) {
            let mut mine = row.chunk_mut(MapContinuousLinear::new(m.team_rank() + 1), m.thread_ids()).unwrap();
        }");
        assert!(e.contains("must be the same on every thread"), "{e}");
        let e = err("fn k(m: &TeamMember, mut row: TeamChunk<f64>) {
            let x = row[1];
            let mut mine = row.chunk_mut(MapIdentity, m.thread_ids()).unwrap();
        }");
        assert!(e.contains("cannot also read it"), "{e}");
        let e = err("fn k(m: &TeamMember, mut row: TeamChunk<f64>) {
            { let mut a = row.chunk_mut(MapContinuousLinear::new(2), m.thread_ids()).unwrap(); }
            { let mut b = row.chunk_mut(MapContinuousLinear::new(3), m.thread_ids()).unwrap(); }
        }");
        assert!(e.contains("the same map"), "{e}");
    }

    /// The lanes' rule, for a part written outside any vector construct
    /// and inside one by the range's own index, with each map `chunk_mut`
    /// may be given, as the outer and as the inner map.
    fn lane_rule_with(ty: &str, map: &str) -> (Option<String>, Option<String>) {
        let outside = run(&format!(
            "fn k(team: &TeamMember, mut row: {ty}) {{
                let mut mine = row.chunk_mut({map}, team.thread_ids()).unwrap();
                mine[0] = 7;
            }}"
        ))
        .unwrap();
        let inside = run(&format!(
            "fn k(team: &TeamMember, mut row: {ty}) {{
                let mut mine = row.chunk_mut({map}, team.thread_ids()).unwrap();
                ThreadVectorRange::new(team, 0..4).parallel_for(|k| mine[k] = 7);
            }}"
        ))
        .unwrap();
        (outside.one_lane, inside.one_lane)
    }

    #[test]
    fn the_lane_rule_holds_for_every_chunk_map() {
        let types = [
            "TeamChunk<u32>",
            "TeamChunk<u32, MapIdentity>",
            "TeamChunk<'_, u32, MapIdentity>",
            "TeamChunk<'_, u32, MapContinuousLinear>",
            "TeamChunk<'_, u32, MapLinear>",
        ];
        let maps = [
            "MapIdentity",
            "MapContinuousLinear::new(2)",
            "MapLinear::new(2)",
            "Map2D::new(4)",
            "reshape_map!([2] | [4] => layout: [t0, i0])",
        ];
        for ty in types {
            for map in maps {
                let (outside, inside) = lane_rule_with(ty, map);
                let outside = outside.unwrap_or_default();
                assert!(
                    outside.contains("writes `mine`"),
                    "{ty}, {map}: {outside:?}"
                );
                assert_eq!(inside, None, "{ty}, {map}");
            }
        }
    }

    #[test]
    fn a_thread_part_is_followed_through_every_spelling_of_its_write() {
        let head = "fn k(team: &TeamMember, mut row: TeamChunk<u32, MapIdentity>) {";
        let take = "row.chunk_mut(MapIdentity, team.thread_ids()).unwrap()";
        let cases = [
            (format!("let mut mine = {take}; mine[0] = 7;"), "`mine`"),
            (format!("let mut mine = {{ {take} }}; mine[0] = 7;"), "`mine`"),
            (format!("let mut mine = {{ let one = 1; {take} }}; mine[one - 1] += 7;"), "`mine`"),
            (format!("{take}[0] = 7;"), "`row.chunk_mut(MapIdentity, team.thread_ids()).unwrap()`"),
            (format!("let mut mine = {take}; ({{ mine }})[0] = 7;"), "`mine`"),
            (
                "let mut t = { team.thread_scratch::<u32, 1>(0, 4).unwrap() }; t[0] = 7;".to_string(),
                "`t`",
            ),
            // A name that shadows the vector range's index is another value.
            (
                format!("let mut mine = {take}; ThreadVectorRange::new(team, 0..2).parallel_for(|k| for k in k / 2..k / 2 + 1 {{ mine[k] = 7; }});"),
                "`mine`",
            ),
            (
                format!("let mut mine = {take}; ThreadVectorRange::new(team, 0..2).parallel_for(|k| {{ if k < 2 {{ let k = k / 2; mine[k] = 7; }} }});"),
                "`mine`",
            ),
        ];
        for (body, written) in cases {
            let r = run(&format!("{head} {body} }}")).unwrap();
            let why = r.one_lane.unwrap_or_default();
            assert!(
                why.contains(&format!("writes {written}")),
                "{body}: {why:?}"
            );
        }
        // Divided among the lanes by the range's own index, however bound,
        // the part needs no single lane.
        let r = run(&format!(
            "{head} let mut mine = {{ {take} }};
            ThreadVectorRange::new(team, 0..2).parallel_for(|k| {{ for j in 0..1 {{ mine[k] = j; }} mine[(k)] = 7; }}); }}"
        ))
        .unwrap();
        assert_eq!(r.one_lane, None);
    }

    #[test]
    fn team_scratch_is_followed_through_every_spelling_of_its_write() {
        let e = err("fn k(m: &TeamMember) { let mut s = { m.team_scratch::<i32, 1>(0, 4).unwrap() }; s[0] = 1; }");
        assert!(e.contains("single(PerTeam"), "{e}");
        let e = err("fn k(m: &TeamMember, n: usize) {
            let mut s = m.team_scratch::<i32, 1>(0, n).unwrap();
            TeamVectorRange::new(m, 0..n).parallel_for(|i| for i in 0..1 { s[i] = 1; });
        }");
        assert!(e.contains("does not contain the index"), "{e}");
        // A vector range without an index does not divide the element
        // among the thread's lanes.
        let r = run("fn k(m: &TeamMember, n: usize) {
            let mut s = m.team_scratch::<i32, 1>(0, n).unwrap();
            TeamThreadRange::new(m, 0..n).parallel_for(|i| ThreadVectorRange::new(m, 0..4).parallel_for(|_| s[i] = 1));
        }")
        .unwrap();
        assert!(r.one_lane.unwrap_or_default().contains("team scratch `s`"));
        let e = err("fn k(m: &TeamMember, n: usize) {
            let mut a = m.thread_scratch::<i32, 1>(0, n).unwrap();
            let mut b = m.thread_scratch::<i32, 1>(0, n).unwrap();
            let mut c = if n > 1 { a } else { b };
            c[0] = 1;
        }");
        assert!(e.contains("one of several"), "{e}");
    }

    #[test]
    fn a_team_chunk_is_followed_through_every_spelling_of_its_division() {
        let e = err("fn k(m: &TeamMember, mut row: TeamChunk<f64>) {
            let x = row[1];
            let mut mine = { row }.chunk_mut(MapIdentity, m.thread_ids()).unwrap();
        }");
        assert!(e.contains("cannot also read it"), "{e}");
        let e = err("fn k(m: &TeamMember, mut row: TeamChunk<f64>) {
            { let mut a = row.chunk_mut(MapContinuousLinear::new(2), m.thread_ids()).unwrap(); a[0] = 1.0; }
            { row }.chunk_mut(MapContinuousLinear::new(3), m.thread_ids()).unwrap()[0] = 1.0;
        }");
        assert!(e.contains("the same map"), "{e}");
    }
}
