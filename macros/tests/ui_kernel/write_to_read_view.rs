use granule_macros::kernel;
use granule_views::View1;

#[kernel]
fn scatter(i: usize, x: &View1<f64>) {
    x[i] = 0.0;
}

fn main() {}
