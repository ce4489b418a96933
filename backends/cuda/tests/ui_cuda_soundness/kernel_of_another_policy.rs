// An issue-14 suspicion: nothing checked that the policy matches the
// kernel's first parameter, so a team kernel over a range would read the
// range's head as a team's scratch description. The policy's index must
// be the kernel's.
use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::Cuda;

#[kernel(reduce, crate = granule_core)]
fn per_team(m: &TeamMember, acc: &mut usize) {
    *acc += m.league_rank();
}

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let _: usize = parallel_reduce("teams", RangePolicy::new(&cuda, 0..4), Sum, per_team());
}
