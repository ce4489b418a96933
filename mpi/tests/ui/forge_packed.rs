// A `Packed` message claims its buffer is readable on the host: only
// granule-mpi makes one, so safe code cannot wrap a device View in it.
use granule_mpi::Packed;
use granule_views::{HostSpace, LayoutRight, View};

fn main() {
    let v = View::<u32, 1, LayoutRight, HostSpace>::zeros("v", 4).unwrap();
    let forged = Packed::<u32, 1, HostSpace>::OnSpace(v);
    let _ = forged.as_slice();
}
