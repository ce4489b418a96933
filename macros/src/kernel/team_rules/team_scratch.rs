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
//! A construct that writes team scratch is a phase of its own
//! ([`TeamRules::team_phases`](super::TeamRules::team_phases)): the
//! translation puts team barriers before and after it, so no executor
//! outside it sees an element half-written, and inside it the View is read
//! only at the executor's own index ([`memory`](super::memory)).

use super::{Analysis, Key, Kind};
use proc_macro2::Span;
use syn::Expr;

impl Analysis {
    /// A write to team scratch: one executor per element, in a phase.
    pub(super) fn team_write(&mut self, name: &str, id: Key, idx: &Expr, at: Span) {
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
}
