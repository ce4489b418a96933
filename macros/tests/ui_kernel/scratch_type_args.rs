use granule::prelude::*;

// Scratch Views on the device have rank 1 or 2.
#[kernel]
fn cube(m: &TeamMember, out: &AtomicView<'_, f64, 1>) {
    let mut c = m.team_scratch::<f64, 3>(0, [2, 2, 2]).unwrap();
    c[[1, 1, 1]] = 1.0;
    out.add(m.league_rank(), c[[1, 1, 1]]);
}

// The element type and the rank are both named.
#[kernel]
fn untyped(m: &TeamMember, out: &AtomicView<'_, f64, 1>) {
    let t = m.thread_scratch(0, 4).unwrap();
    out.add(m.league_rank(), t[0]);
}

#[kernel]
fn rankless(m: &TeamMember, out: &AtomicView<'_, f64, 1>) {
    let t = m.thread_scratch::<f64>(0, 4).unwrap();
    out.add(m.league_rank(), t[0]);
}

fn main() {}
