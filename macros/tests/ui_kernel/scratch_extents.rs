use granule::prelude::*;

// A rank-2 scratch View takes two extents, `[a, b]`.
#[kernel]
fn tile(m: &TeamMember, n: usize, out: &AtomicView<'_, f64, 1>) {
    let t = m.team_scratch::<f64, 2>(0, n).unwrap();
    out.add(m.league_rank(), t[[0, 0]]);
}

fn main() {}
