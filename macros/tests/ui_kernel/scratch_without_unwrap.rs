use granule::prelude::*;

// A scratch request is a Result: unwrap it, or ask `is_ok()` / `is_err()`.
#[kernel]
fn keep(m: &TeamMember, out: &AtomicView<'_, f64, 1>) {
    let _mine = m.thread_scratch::<f64, 1>(0, 4);
    out.add(m.league_rank(), 1.0);
}

// `is_ok` / `is_err` take no argument.
#[kernel]
fn probe(m: &TeamMember, out: &AtomicView<'_, f64, 1>) {
    if m.thread_scratch::<f64, 1>(0, 4).is_ok(1) {
        out.add(m.league_rank(), 1.0);
    }
}

fn main() {}
