// Hole 2, for Views: a View type named after another rank or layout (or
// not a granule View at all) would give the device another shape than
// the host's.
use granule_core::kernel::kernel;
use granule_views::View2 as View1;

#[kernel(crate = granule_core)]
fn copy(i: usize, y: &mut f64, x: &View1<f64>) {
    *y = x[i];
}

fn main() {}
