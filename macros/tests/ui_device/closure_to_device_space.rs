// The pattern path a device space takes: its `ParallelForImpl` exists only
// for `#[kernel]` functors (as the Cuda space's do), so `parallel_for` with
// a plain closure does not compile, and the message says to use #[kernel].
use granule::base::pattern::ParallelForImpl;
use granule::base::write::WriteParts;
use granule::kernel::KernelSource;
use granule::prelude::*;

#[derive(Clone, Debug)]
struct DeviceOnly;

impl ExecutionSpace for DeviceOnly {
    type MemorySpace = HostSpace;
    const NAME: &'static str = "DeviceOnly";
    fn memory_space(&self) -> HostSpace {
        HostSpace
    }
    fn concurrency(&self) -> usize {
        1
    }
    fn fence(&self) {}
    fn team_size_max(&self) -> usize {
        1
    }
    fn team_size_recommended(&self) -> usize {
        1
    }
    fn vector_length_max(&self) -> usize {
        1
    }
    fn scratch_size_max(&self, _level: usize) -> usize {
        0
    }
}

impl<'s, W: WriteParts<usize>, F: KernelSource> ParallelForImpl<RangePolicy<'s, DeviceOnly>, W, F>
    for DeviceOnly
{
    unsafe fn parallel_for_impl(&self, _: &str, _: &RangePolicy<'s, DeviceOnly>, _: W, _: &F) {}
}

fn main() {
    let mut y = View1::<f64>::zeros("y", 8).unwrap();
    parallel_for("x", RangePolicy::new(&DeviceOnly, 0..8), &mut y, |i, y: &mut f64| {
        *y = i as f64
    });
}
