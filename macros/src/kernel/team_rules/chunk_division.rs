//! The chunk division rule: a team's chunk is either read by the team or
//! divided among its threads, never both, and always with one fixed map.
//!
//! `row.chunk_mut(map, team.thread_ids())` gives each thread its part of
//! the team chunk `row`. The parts are disjoint only if every thread
//! divides `row` the same way whenever it does, so the map's width must be
//! the same on every thread for the whole launch ([`Level::Const`]), and
//! every `chunk_mut` of `row` must spell the same map. A divided chunk is
//! not read whole (`row[k]`): another thread may be writing that element.
//!
//! Whether a chunk is divided is known only once the whole body is walked,
//! so the chunks one pass finds divided are those the next pass refuses
//! reads of (see [`check`](super::check)).

use super::memory::describe;
use super::{key, Analysis, Class, Info, Level};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::Expr;

impl Analysis {
    /// `row.chunk_mut(map, team.thread_ids())`: this thread's part.
    pub(super) fn chunk_mut(&mut self, inner: &syn::ExprMethodCall) -> Info {
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

    /// `row[..]` read by the team: refused where some thread divides `row`.
    pub(super) fn chunk_read(&mut self, row: &str, at: Span) {
        if self.divided.contains(row) {
            self.error(at, format!(
                "team chunk `{row}` is divided among the team's threads with `chunk_mut`, so the team cannot also read it: on a device another thread may be writing the element; read your elements through your part (`mine[k]`)"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::kernel::team_rules::err;

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
}
