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
//!
//! Each rule has its module: [`collectives`] (who must reach a
//! collective), [`team_scratch`] (who may write team scratch), [`lanes`]
//! (who may write a thread's memory) and [`chunk_division`] (a team chunk
//! read or divided). [`memory`] follows which memory an expression is and
//! checks the reads inside a phase; [`walk`] visits the body, giving each
//! value its [`Level`] and each point of control flow its divergence, and
//! hands memory accesses and constructs to the rules.

mod chunk_division;
mod collectives;
mod lanes;
mod memory;
mod team_scratch;
mod walk;

use super::errors::error_at;
use memory::path_name;
use proc_macro2::Span;
use std::collections::{HashMap, HashSet};
use syn::Expr;

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
    /// The team member parameter's name.
    pub member: String,
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
    /// The divergence of the control flow where the construct stands.
    entry: Level,
    /// The source text of a nested range's extent (`w` of `0..w` or of a
    /// count `w`).
    extent: Option<String>,
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
    let mut slots: HashMap<(Key, Key), String> = HashMap::new();
    // Assigned levels only rise, and the writes, slots and divided chunks
    // are fixed by the syntax, so this settles within a few passes; the
    // last pass, which knows them all from the start, reports.
    for _ in 0..16 {
        let mut an = Analysis::new(levels, writes.clone(), divided.clone(), slots.clone());
        an.function(f);
        if !an.raised && an.writes == writes && an.dividing == divided && an.slotting == slots {
            return an.finish();
        }
        levels = an.levels;
        writes = an.writes;
        divided = an.dividing;
        slots = an.slotting;
    }
    let mut an = Analysis::new(levels, writes, divided, slots);
    an.function(f);
    an.finish()
}

/// The state of one pass over a team kernel's body.
struct Analysis {
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
    /// The one index (as written) at which a top-level ThreadVectorRange
    /// writes a team scratch View, from the previous pass, and from this
    /// one: the construct reads the View only there.
    slots: HashMap<(Key, Key), String>,
    slotting: HashMap<(Key, Key), String>,
    /// The team chunks (by parameter) some thread divides, from the
    /// previous pass, and from this one.
    divided: HashSet<String>,
    dividing: HashSet<String>,
    /// Bindings made so far in this pass.
    bindings: usize,
    /// The immutable bindings of `team.team_rank()`.
    ranks: HashSet<usize>,
    /// The first `chunk_mut` map of each divided chunk, as written.
    maps: HashMap<String, String>,
    errors: Vec<syn::Error>,
    rules: TeamRules,
}

impl Analysis {
    fn new(
        levels: HashMap<Key, Level>,
        written: HashSet<(Key, Key)>,
        divided: HashSet<String>,
        slots: HashMap<(Key, Key), String>,
    ) -> Self {
        Analysis {
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
            slots,
            slotting: HashMap::new(),
            divided,
            dividing: HashSet::new(),
            bindings: 0,
            ranks: HashSet::new(),
            maps: HashMap::new(),
            errors: Vec::new(),
            rules: TeamRules::default(),
        }
    }

    fn finish(mut self) -> syn::Result<TeamRules> {
        self.rules.member = self.team.clone();
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
        component_where(idx, &|e: &Expr| {
            path_name(e)
                .and_then(|n| self.lookup(&n))
                .is_some_and(|v| v.id == id)
        })
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
}

/// The position in index expression `idx` of the component for which
/// `is` holds: the whole index (0), or a component of `[a, b]`.
fn component_where(idx: &Expr, is: &dyn Fn(&Expr) -> bool) -> Option<usize> {
    match idx {
        Expr::Paren(p) => component_where(&p.expr, is),
        Expr::Group(g) => component_where(&g.expr, is),
        Expr::Array(a) => a.elems.iter().position(is),
        e => is(e).then_some(0),
    }
}

/// The analysis of `src`, a team kernel, for the rules' tests.
#[cfg(test)]
fn run(src: &str) -> syn::Result<TeamRules> {
    check(&syn::parse_str(src).unwrap())
}

/// The message of the analysis's refusal of `src`.
#[cfg(test)]
fn err(src: &str) -> String {
    run(src).unwrap_err().to_string()
}
