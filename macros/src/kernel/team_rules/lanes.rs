//! The lane rule: a thread's memory is written by one vector lane per
//! element.
//!
//! A thread's scratch, and the part of a team chunk that `chunk_mut` gives
//! a thread, belong to one team thread, whose vector lanes repeat its code
//! (Kokkos semantics): a plain write there is made by every lane at once.
//! It is race-free inside `single(PerThread)`, whose body one lane runs,
//! or inside a vector-level pattern at an index that contains the
//! pattern's index (distinct lanes, distinct elements). Such a construct is
//! a lane phase ([`TeamRules::lane_phases`](super::TeamRules::lane_phases)):
//! the thread's lanes synchronize before and after it. Any other write is
//! race-free only when the thread has a single lane, so instead of
//! refusing it the kernel records why it needs one
//! ([`TeamRules::one_lane`](super::TeamRules::one_lane)), and a device
//! checks the launch's vector length at dispatch.
//!
//! The rule never looks at the chunk map: whatever map gave the part,
//! every lane of the thread holds all of it.

use super::{Analysis, Key, Kind};
use syn::Expr;

impl Analysis {
    /// A write to a thread's memory: one lane per element, or one lane.
    pub(super) fn thread_write(&mut self, name: &str, id: Key, idx: &Expr, line: usize) {
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

    pub(super) fn need_one_lane(&mut self, line: usize, why: String) {
        if self.rules.one_lane.is_none() {
            self.rules.one_lane = Some(format!("line {line}: {why}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::kernel::team_rules::run;

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
}
