//! The team scratch rule: team scratch is written by one executor per
//! element.
//!
//! Team scratch is memory the team's threads share, and on a device they
//! run at once. A write to it is race-free when one executor writes each
//! element: inside `single(PerTeam)`, whose body one executor runs, or in
//! a `TeamVectorRange` (or `TeamThreadRange`) pattern at an index that
//! contains the pattern's index, at one position for the whole pattern, so
//! that distinct executors hold distinct indices and so distinct elements.
//! In a `TeamThreadRange` the thread's vector lanes all repeat the write
//! unless a vector range's index or `single(PerThread)` divides it again;
//! such a kernel needs one lane per thread (see [`lanes`](super::lanes)).
//!
//! Outside every nested construct, Kokkos's own-slot idiom is accepted:
//! `s[team.team_rank()] = v` (or `s[[team.team_rank(), k]]`, or through
//! an immutable `let r = team.team_rank();`), where each
//! thread writes the slot of its rank. The statement is a phase of its
//! own, so it must stand where every thread of the team passes; its right
//! side reads `s` only at the slot it writes; and, as the lanes of a
//! thread all repeat it, it needs one lane per thread. Its vector form,
//! a `ThreadVectorRange` over `k < w` outside every other construct that
//! writes `s[team.team_rank() * w + k]` or `s[[team.team_rank(), k]]`,
//! gives each lane of each thread its own element: the range is a phase,
//! reached by every thread, that reads `s` only at that index.
//!
//! A construct that writes team scratch is a phase of its own
//! ([`TeamRules::team_phases`](super::TeamRules::team_phases)): the
//! translation puts team barriers before and after it, so no executor
//! outside it sees an element half-written, and inside it the View is read
//! only at the executor's own index ([`memory`](super::memory)).

use super::memory::{describe, source_text};
use super::{Analysis, Class, Key, Kind, Level};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::Expr;

impl Analysis {
    /// A write to team scratch: one executor per element, in a phase.
    pub(super) fn team_write(&mut self, name: &str, id: Key, idx: &Expr, at: Span) {
        let Some(top) = self.stack.first().cloned() else {
            return self.own_slot_write(name, idx, at);
        };
        let single = self.stack.iter().any(|c| c.kind == Kind::SingleTeam);
        let by_index = self.divides(id, idx, top.key);
        if !single && !by_index && self.vector_own_slot(name, id, idx, at) {
            return;
        }
        if !single && !by_index && top.kind == Kind::ThreadVector && self.stack.len() == 1 {
            let w = top.extent.as_deref().unwrap_or("w");
            return self.error(at, format!(
                "team scratch `{name}` is written in a ThreadVectorRange, whose indices every thread of the team runs, so two threads could write one element: write each thread's own slots, `{name}[team.team_rank() * {w} + k]` or `{name}[[team.team_rank(), k]]` for the range over `k` in `0..{w}`"
            ));
        }
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

    /// `s[team.team_rank()] = ..` outside every nested construct: each
    /// thread writes its own slot, in a phase of its own.
    fn own_slot_write(&mut self, name: &str, idx: &Expr, at: Span) {
        if self.rank_component(idx).is_none() {
            return self.error(at, format!(
                "team scratch `{name}` is shared by the team's threads, which run this line at once on a device: write each thread's own slot (`{name}[team.team_rank()] = ..`), or write it inside `single(PerTeam(team), || ..)`, or in a `TeamVectorRange` (or `TeamThreadRange`) pattern at its index, e.g. `{name}[i] = ..`"
            ));
        }
        if self.here() > Level::Team {
            return self.error(at, format!(
                "team scratch `{name}` is written at the thread's slot under a condition that differs between threads: the write is a phase with team barriers around it, so every thread of the team must reach it"
            ));
        }
        self.need_one_lane(
            at.start().line,
            format!(
            "writes its slot of team scratch `{name}`, and a thread's vector lanes repeat the write"
        ),
        );
        self.rules.team_phases.insert(super::key(at));
    }

    /// Kokkos's own-slot idiom through a ThreadVectorRange over `k < w`
    /// that stands outside every other construct: `s[[team.team_rank(),
    /// k]] = ..`, or `s[team.team_rank() * w + k] = ..` with `w` the
    /// range's extent as written. Distinct threads write distinct slots
    /// (by rank) and the lanes of a thread distinct elements (by `k`, below
    /// `w`), so each element has one writer; the range is a phase of its
    /// own, which every thread of the team must reach, and it reads `s`
    /// only at the index it writes.
    fn vector_own_slot(&mut self, name: &str, id: Key, idx: &Expr, at: Span) -> bool {
        let [top] = self.stack.as_slice() else {
            return false;
        };
        let top = top.clone();
        let Some(k) = top.index.filter(|_| top.kind == Kind::ThreadVector) else {
            return false;
        };
        let pair = self.rank_component(idx).is_some() && self.component_of(idx, k).is_some();
        let flat = top
            .extent
            .as_deref()
            .is_some_and(|w| self.rank_times_extent_plus(idx, w, k));
        if !pair && !flat {
            return false;
        }
        if top.entry > Level::Team {
            self.error(at, format!(
                "team scratch `{name}` is written at the thread's slot in a ThreadVectorRange under a condition that differs between threads: the range is a phase with team barriers around it, so every thread of the team must reach it"
            ));
            return true;
        }
        self.writes.insert((top.key, id));
        self.slotting.insert((top.key, id), source_text(idx));
        self.rules.team_phases.insert(top.key);
        true
    }

    /// Whether `idx` is `rank * w + k` (either operand order, either
    /// factor order), `w` the range's extent as written, `k` its index.
    fn rank_times_extent_plus(&self, idx: &Expr, w: &str, k: usize) -> bool {
        let Expr::Binary(sum) = strip(idx) else {
            return false;
        };
        if !matches!(sum.op, syn::BinOp::Add(_)) {
            return false;
        }
        let is_k = |e: &Expr| {
            self.component_of(strip(e), k) == Some(0) && !matches!(strip(e), Expr::Array(_))
        };
        let scaled_rank = |e: &Expr| match strip(e) {
            Expr::Binary(p) if matches!(p.op, syn::BinOp::Mul(_)) => {
                (self.is_rank(&p.left) && source_text(&p.right) == w)
                    || (self.is_rank(&p.right) && source_text(&p.left) == w)
            }
            _ => false,
        };
        (scaled_rank(&sum.left) && is_k(&sum.right)) || (is_k(&sum.left) && scaled_rank(&sum.right))
    }

    /// In `s[team.team_rank()] = right` outside every nested construct,
    /// `right` reads `s` only at the slot written: the other threads are
    /// writing the other slots at the same time.
    pub(super) fn own_slot_reads(&mut self, left: &syn::ExprIndex, right: &Expr) {
        if !self.stack.is_empty() || self.rank_component(&left.index).is_none() {
            return;
        }
        let Class::TeamScratch(id) = self.expr(&left.expr).class else {
            return;
        };
        let slot = source_text(&left.index);
        let mut reads = Vec::new();
        collect_indexing(right, &mut reads);
        for r in reads {
            let same = self.expr(&r.expr).class == Class::TeamScratch(id);
            if same && source_text(&r.index) != slot {
                let name = describe(&left.expr);
                self.error(r.span(), format!(
                    "team scratch `{name}` is written at each thread's slot on this line, so it is read here only at that slot (`{name}[{slot}]`); read the others after the write, which ends with a team barrier"
                ));
            }
        }
    }

    /// The position of `team.team_rank()` in index `idx` (the whole index,
    /// or a component of `[a, b]`), with `team` the team member.
    pub(super) fn rank_component(&self, idx: &Expr) -> Option<usize> {
        super::component_where(idx, &|e: &Expr| self.is_rank(e))
    }

    /// Whether `e` is `team.team_rank()`, or an immutable binding of it
    /// (`let r = team.team_rank();`).
    pub(super) fn is_rank(&self, e: &Expr) -> bool {
        match e {
            Expr::Paren(p) => self.is_rank(&p.expr),
            Expr::Group(g) => self.is_rank(&g.expr),
            Expr::MethodCall(m) => {
                m.method == "team_rank"
                    && m.args.is_empty()
                    && super::memory::path_name(&m.receiver)
                        .and_then(|n| self.lookup(&n))
                        .is_some_and(|v| v.class == Class::Member)
            }
            e => super::memory::path_name(e)
                .and_then(|n| self.lookup(&n))
                .is_some_and(|v| self.ranks.contains(&v.id)),
        }
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
}

/// `e` without the parentheses around it.
fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

/// The indexing expressions in `e`, outermost first.
fn collect_indexing(e: &Expr, out: &mut Vec<syn::ExprIndex>) {
    struct Find<'a>(&'a mut Vec<syn::ExprIndex>);
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr_index(&mut self, i: &'ast syn::ExprIndex) {
            self.0.push(i.clone());
            syn::visit::visit_expr_index(self, i);
        }
    }
    syn::visit::Visit::visit_expr(&mut Find(out), e);
}

#[cfg(test)]
mod tests {
    use crate::kernel::team_rules::{err, run};

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
    fn each_thread_may_write_its_own_slot() {
        let r = run("fn k(m: &TeamMember, x: f64) {
            let mut s = m.team_scratch::<f64, 2>(0, [m.team_size(), 2]).unwrap();
            s[[m.team_rank(), 1]] = x;
            let mut t = m.team_scratch::<f64, 1>(0, m.team_size()).unwrap();
            t[m.team_rank()] = x;
            t[m.team_rank()] += t[m.team_rank()] * 2.0;
            let r = m.team_rank();
            t[r] = t[r] + 1.0;
            m.team_barrier();
            let next = t[(m.team_rank() + 1) % m.team_size()];
        }")
        .unwrap();
        assert_eq!(r.team_phases.len(), 4);
        assert!(r.one_lane.unwrap().contains("its slot of team scratch `s`"));
        for (src, message) in [
            (
                "fn k(m: &TeamMember) { let mut s = m.team_scratch::<i32, 1>(0, 4).unwrap(); s[m.league_rank()] = 1; }",
                "write each thread's own slot",
            ),
            (
                "fn k(m: &TeamMember) { let mut s = m.team_scratch::<usize, 1>(0, 4).unwrap(); if m.team_rank() > 1 { s[m.team_rank()] = 1; } }",
                "every thread of the team must reach it",
            ),
            (
                "fn k(m: &TeamMember) { let mut s = m.team_scratch::<usize, 1>(0, 4).unwrap(); s[m.team_rank()] = s[0] + 1; }",
                "read here only at that slot",
            ),
            (
                "fn k(m: &TeamMember) { let mut s = m.team_scratch::<usize, 1>(0, 4).unwrap(); let mut r = m.team_rank(); r += 1; s[r] = 1; }",
                "write each thread's own slot",
            ),
            (
                "fn k(m: &TeamMember) { let mut s = m.team_scratch::<usize, 1>(0, 4).unwrap(); let r = m.team_rank() / 2; s[r] = 1; }",
                "write each thread's own slot",
            ),
        ] {
            let e = err(src);
            assert!(e.contains(message), "{src}: {e}");
        }
    }

    #[test]
    fn a_thread_vector_range_may_write_the_threads_slots() {
        let r = run("fn k(m: &TeamMember, w: usize, x: &View1<f64>) {
            let mut s = m.team_scratch::<f64, 1>(0, m.team_size() * w).unwrap();
            ThreadVectorRange::new(m, 0..w).parallel_for(|k| s[m.team_rank() * w + k] = x[k]);
            let r = m.team_rank();
            ThreadVectorRange::new(m, w).parallel_for(|k| s[k + (w * r)] += 1.0);
            let mut t = m.team_scratch::<f64, 2>(0, [m.team_size(), w]).unwrap();
            ThreadVectorRange::new(m, 0..w).parallel_for(|j| t[[r, j]] = t[[r, j]] * 2.0);
        }")
        .unwrap();
        assert_eq!((r.team_phases.len(), r.one_lane), (3, None));
        for (src, message) in [
            (
                "fn k(m: &TeamMember, w: usize) { let mut s = m.team_scratch::<f64, 1>(0, 64).unwrap(); ThreadVectorRange::new(m, 0..w).parallel_for(|k| s[k] = 1.0); }",
                "write each thread's own slots, `s[team.team_rank() * w + k]`",
            ),
            (
                "fn k(m: &TeamMember, w: usize, v: usize) { let mut s = m.team_scratch::<f64, 1>(0, 64).unwrap(); ThreadVectorRange::new(m, 0..w).parallel_for(|k| s[m.team_rank() * v + k] = 1.0); }",
                "team scratch `s`",
            ),
            (
                "fn k(m: &TeamMember, w: usize) { let mut s = m.team_scratch::<f64, 1>(0, 64).unwrap(); ThreadVectorRange::new(m, 1..w).parallel_for(|k| s[m.team_rank() * w + k] = 1.0); }",
                "team scratch `s`",
            ),
            (
                "fn k(m: &TeamMember, w: usize) { let mut s = m.team_scratch::<f64, 1>(0, 64).unwrap(); ThreadVectorRange::new(m, 0..w).parallel_for(|k| s[m.team_rank() * w + k] = s[k]); }",
                "read it here only at the index it writes",
            ),
            (
                "fn k(m: &TeamMember, w: usize) { let mut s = m.team_scratch::<f64, 1>(0, 64).unwrap(); if m.team_rank() == 0 { ThreadVectorRange::new(m, 0..w).parallel_for(|k| s[m.team_rank() * w + k] = 1.0); } }",
                "every thread of the team must reach it",
            ),
        ] {
            let e = err(src);
            assert!(e.contains(message), "{src}: {e}");
        }
    }
}
