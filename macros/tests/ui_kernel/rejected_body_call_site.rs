use granule::prelude::*;

// The body is rejected; the call below, which matches the kernel's
// signature, reports nothing more.
#[kernel]
fn total(i: usize, y: &mut f64, x: &View1<f64>) {
    *y = x.to_vec().iter().sum::<f64>() + i as f64;
}

fn main() {
    let x = View1::<f64>::zeros("x", 4).unwrap();
    let mut y = View1::<f64>::zeros("y", 4).unwrap();
    parallel_for("total", RangePolicy::new(&Serial, 0..4), &mut y, total(&x));
}
