//! Which memory an expression is, and the reads and writes of it.
//!
//! The write rules are about memory, so memory is followed by what an
//! expression is, never by how it is spelled: a part or a scratch View is
//! known by the request that made it (`chunk_mut`, `team_scratch`,
//! `thread_scratch`, by the request's position) through `let`, blocks and
//! parentheses, and a team chunk by its parameter. An index is a nested
//! range's index only if its name resolves to that range's binding where
//! it stands (a `let` or `for` that shadows it is another value). A write
//! goes to the rule for the memory written
//! ([`team_scratch`](super::team_scratch), [`lanes`](super::lanes)), a
//! read of a team chunk to [`chunk_division`](super::chunk_division). A
//! write to memory the analysis cannot name is refused, since nothing is
//! proven about it, and so is an `if` that gives one of several Views.
//!
//! Inside a phase (a construct that writes a View) the phase's other
//! executors are writing the rest of the View, so there it is read only at
//! the executor's own index, and not handed to a `#[device]` helper, which
//! may read any element.

use super::{key, Analysis, Class, Info, Key, Kind, Level};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Stmt};

/// The name of a plain one-segment path expression.
pub(super) fn path_name(e: &Expr) -> Option<String> {
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
pub(super) fn describe(e: &Expr) -> String {
    match e {
        Expr::Paren(p) => describe(&p.expr),
        Expr::Group(g) => describe(&g.expr),
        Expr::Block(b) => block_tail(&b.block).map_or_else(|| source_text(e), describe),
        e => path_name(e).unwrap_or_else(|| source_text(e)),
    }
}

/// A block's value expression, if it has one.
pub(super) fn block_tail(b: &syn::Block) -> Option<&Expr> {
    match b.stmts.last() {
        Some(Stmt::Expr(tail, None)) => Some(tail),
        _ => None,
    }
}

/// `e` as it is usually written (`quote` puts a space between tokens).
pub(super) fn source_text(e: &Expr) -> String {
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

impl Analysis {
    /// `base[idx] = ..`: the memory written is what `base` is, however
    /// it is spelled.
    pub(super) fn write(&mut self, i: &syn::ExprIndex) {
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

    /// `base[idx]` read: the memory read is what `base` is, however it is
    /// spelled.
    pub(super) fn read(&mut self, i: &syn::ExprIndex) -> Info {
        let idx = self.expr(&i.index).level;
        let base = self.expr(&i.expr);
        let name = describe(&i.expr);
        let level = match &base.class {
            Class::TeamChunk(row) => {
                self.chunk_read(row, i.span());
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
        if let Some(slot) = self.slots.get(&(c.key, id)).cloned() {
            if source_text(idx) != slot {
                self.error(at, format!(
                    "`{name}` is written in this ThreadVectorRange at each thread's slot, by the other threads too: read it here only at the index it writes (`{name}[{slot}]`), or after the range, which ends with a team barrier"
                ));
            }
            return;
        }
        let own = c.index.and_then(|v| self.component_of(idx, v)).is_some();
        if !own {
            self.error(at, format!(
                "`{name}` is written in this nested range, by other threads or lanes too: read it here only at this range's index"
            ));
        }
    }

    /// A View handed to a `#[device]` helper, which may read any element:
    /// refused inside a construct that writes it.
    pub(super) fn handed_to_helper(&mut self, arg: &Expr, class: &Class) {
        let (Class::TeamScratch(id) | Class::ThreadOwned(id)) = class else {
            return;
        };
        let n = describe(arg);
        if self
            .stack
            .iter()
            .any(|s| self.written.contains(&(s.key, *id)))
        {
            self.error(arg.span(), format!(
                "`{n}` is written in this nested range, so it cannot be handed to a helper here, which may read any element"
            ));
        }
    }

    /// `team.team_scratch::<T, R>(level, extents)` (`take`: unwrapped) or
    /// `thread_scratch`; `None` if `inner` is not one.
    pub(super) fn scratch(&mut self, inner: &syn::ExprMethodCall, take: bool) -> Option<Info> {
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
}

/// Whether values of `class` are memory a team kernel may divide or write.
pub(super) fn is_memory(class: &Class) -> bool {
    matches!(
        class,
        Class::TeamChunk(_) | Class::TeamScratch(_) | Class::ThreadOwned(_)
    )
}

#[cfg(test)]
mod tests {
    use crate::kernel::team_rules::{err, run};

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
