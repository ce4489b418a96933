use granule_macros::kernel;
use granule_views::View1;

#[kernel]
fn total(i: usize, y: &mut f64, x: &View1<f64>) {
    *y = x.to_vec().iter().sum();
}

fn main() {}
