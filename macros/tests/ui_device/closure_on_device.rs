// A device space (such as Cuda) requires `KernelSource` of its functors;
// a plain closure does not implement it.
use granule::kernel::KernelSource;

fn run_on_device<F: KernelSource>(_functor: F) {}

fn main() {
    run_on_device(|i: usize, y: &mut f64| *y = i as f64);
}
