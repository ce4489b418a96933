// A device space (the later Cuda space) requires `DeviceFunctor` of its
// functors; a plain closure does not implement it.
use granule::kernel::DeviceFunctor;

fn run_on_device<F: DeviceFunctor>(_functor: F) {}

fn main() {
    run_on_device(|i: usize, y: &mut f64| *y = i as f64);
}
