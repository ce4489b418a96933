// A generic kernel: a C++ template, instantiated per element type.
#[kernel]
fn scale<T: Element + std::ops::Mul<Output = T>>(i: usize, y: &mut T, a: T, x: &View<T, 1, LayoutRight>) {
    *y = a * x[i];
}
