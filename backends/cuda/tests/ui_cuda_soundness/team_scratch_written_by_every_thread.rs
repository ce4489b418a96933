// Hole 6: two team threads both held team scratch writable and wrote
// element 0. Team scratch is written by one executor per element: in
// `single(PerTeam(..))`, in a nested range at its index, or at each
// thread's own slot (`s[m.team_rank()]`, or `s[m.team_rank() * w + k]` in
// a ThreadVectorRange over `k < w`), whose line reads no other slot; a
// ThreadVectorRange's index alone is shared by every thread.
use granule_core::kernel::kernel;
use granule_core::prelude::*;

#[kernel(crate = granule_core)]
fn everyone(m: &TeamMember) {
    let mut s = m.team_scratch::<i32, 1>(0, 4).unwrap();
    s[0] = m.team_rank() as i32;
}

#[kernel(crate = granule_core)]
fn shifted(m: &TeamMember, n: usize) {
    let mut s = m.team_scratch::<i32, 1>(0, n).unwrap();
    TeamVectorRange::new(m, 0..n - 1).parallel_for(|i| s[i + 1] = 1);
}

#[kernel(crate = granule_core)]
fn own_slot_reads_another(m: &TeamMember) {
    let mut s = m.team_scratch::<usize, 1>(0, m.team_size()).unwrap();
    s[m.team_rank()] = s[0] + 1;
}

#[kernel(crate = granule_core)]
fn vector_lanes_of_every_thread(m: &TeamMember, w: usize) {
    let mut s = m.team_scratch::<i32, 1>(0, w).unwrap();
    ThreadVectorRange::new(m, 0..w).parallel_for(|k| s[k] = 1);
}

fn main() {}
