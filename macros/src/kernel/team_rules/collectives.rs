//! The collectives rule: a collective is reached by everyone it
//! synchronizes.
//!
//! A team collective (`team_barrier`, `team_broadcast`, `team_reduce`,
//! `team_scan*`, `single(PerTeam)`, a `TeamThreadRange` or
//! `TeamVectorRange` pattern, a `team_scratch` request) is a barrier of the
//! team's threads on a device. A thread that skips it leaves the others
//! waiting, or pairs them with another barrier where they exchange the
//! wrong values, so it stands only where the control flow is the same on
//! every thread ([`Level::Team`]), and never inside a nested pattern or a
//! `single`, whose body runs on some executors only. A lane collective
//! (a `ThreadVectorRange` pattern, `single(PerThread)`, a `thread_scratch`
//! request) synchronizes the vector lanes of one thread: it needs control
//! flow the same on the thread's lanes ([`Level::Thread`]), and may stand
//! inside a `TeamThreadRange`, whose body a whole thread runs, but inside
//! no other construct. A nested range's bounds, and `team_broadcast`'s
//! source rank, are as uniform as the collective, since they decide who
//! runs which index and whose value every thread gets.
//!
//! Entering a construct pushes it on the construct stack, with its index
//! bound at its level, so that the write rules know who runs each line.

use super::walk::pat_name;
use super::{key, Analysis, Class, Construct, Info, Key, Kind, Level};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::Expr;

const TEAM_COLLECTIVE_HELP: &str = "every thread of the team must reach it (it synchronizes them), so it must not depend on a value that differs between the team's threads (`team_rank()`, a nested range's index, an atomic's result, a thread's scratch) through a condition, a loop or an earlier `return`/`break`";

const LANE_COLLECTIVE_HELP: &str = "every vector lane of the thread must reach it (it synchronizes them), so it must not depend on a value that differs between the lanes (a vector range's index, an atomic's result) through a condition, a loop or an earlier `return`/`break`";

impl Analysis {
    pub(super) fn member(&mut self, m: &syn::ExprMethodCall, name: &str) -> Info {
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

    pub(super) fn team_collective(&mut self, at: Span, what: &str) {
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

    pub(super) fn lane_collective(&mut self, at: Span, what: &str) {
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

    /// `Range::new(team, a..b).parallel_*(..)`.
    pub(super) fn nested(&mut self, m: &syn::ExprMethodCall, kind: Kind, method: &str) -> Info {
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
        let extent = range.args.iter().nth(1).and_then(range_extent);
        for a in &m.args {
            match a {
                Expr::Closure(f) => self.closure(f, kind, key(m.method.span()), extent.clone()),
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
    fn closure(&mut self, f: &syn::ExprClosure, kind: Kind, k: Key, extent: Option<String>) {
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
        let entry = self.here();
        self.stack.push(Construct {
            kind,
            index,
            key: k,
            entry,
            extent,
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

    /// `single(PerTeam(team), || ..)` / `single(PerThread(team), || ..)`.
    pub(super) fn single(&mut self, c: &syn::ExprCall) -> Info {
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
                    let entry = self.here();
                    self.stack.push(Construct {
                        kind,
                        index: None,
                        key: k,
                        entry,
                        extent: None,
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
}

/// The nested range a method's receiver constructs, if any.
pub(super) fn nested_kind(recv: &Expr) -> Option<Kind> {
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

/// The extent of a nested range's second argument as written: `w` of
/// `0..w` (or `..w`), or the count `w` itself; `None` for a range that
/// does not start at 0.
fn range_extent(arg: &Expr) -> Option<String> {
    match arg {
        Expr::Range(r) => {
            let from_zero = match r.start.as_deref() {
                None => true,
                Some(Expr::Lit(l)) => {
                    matches!(&l.lit, syn::Lit::Int(i) if i.base10_digits() == "0")
                }
                Some(_) => false,
            };
            let half_open = matches!(r.limits, syn::RangeLimits::HalfOpen(_));
            match (&r.end, from_zero && half_open) {
                (Some(end), true) => Some(super::memory::source_text(end)),
                _ => None,
            }
        }
        other => Some(super::memory::source_text(other)),
    }
}

#[cfg(test)]
mod tests {
    use crate::kernel::team_rules::{err, run};

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
}
