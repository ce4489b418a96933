// An issue-14 suspicion, confirmed: `team_barrier()` in divergent code was
// accepted (the emulator counted exited threads as arrived; on a GPU it
// is undefined behaviour). Team collectives must be reached by every
// thread of the team.
use granule_core::kernel::kernel;
use granule_core::prelude::*;

#[kernel(crate = granule_core)]
fn early_exit(m: &TeamMember, n: usize) {
    if m.team_rank() >= n {
        return;
    }
    m.team_barrier();
}

#[kernel(crate = granule_core, reduce)]
fn inside_a_range(m: &TeamMember, n: usize, acc: &mut usize) {
    TeamThreadRange::new(m, 0..n).parallel_for(|i| {
        *acc += m.team_reduce(Sum, i);
    });
}

fn main() {}
