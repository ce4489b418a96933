// Hole 1, for team chunks: the chunked View's element type must be the
// kernel's `TeamChunk` element type.
use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::Cuda;

#[kernel(crate = granule_core)]
fn rows(m: &TeamMember, mut row: TeamChunk<f64>) {
    let mut mine = row.chunk_mut(MapIdentity, m.thread_ids()).unwrap();
    mine[0] = 1.0;
}

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let mut y = View1::<u8, LayoutRight, _>::zeros_in(cuda.memory_space(), "y", 16).unwrap();
    parallel_for(
        "rows",
        TeamPolicy::new(&cuda, 16, 1),
        y.chunked(MapContinuousLinear::new(1)),
        rows(),
    );
}
