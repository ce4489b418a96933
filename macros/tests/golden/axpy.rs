// A range kernel: index, output, scalar, read View.
#[kernel]
fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y = a * x[i] + *y;
}
