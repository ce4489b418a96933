// A reduction functor: the `&mut` accumulator is bound by the driver.
#[kernel(reduce)]
fn dot(i: usize, acc: &mut f64, x: &View1<f64>, y: &View1<f64, LayoutStride>) {
    *acc += x[i] * y[i];
}
