//! Kernel dispatch on Cuda through the emulator: the patterns of
//! granule-core, run by `#[kernel]` functors over Views in the space's memory.

use granule_core::prelude::*;
use granule_cuda::Cuda;
use granule_views::{create_mirror_view_and_copy, deep_copy, LayoutRight};

#[granule_core::kernel::kernel(crate = granule_core)]
fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y = a * x[i] + *y;
}

#[granule_core::kernel::kernel(crate = granule_core, reduce)]
fn dot(i: usize, x: &View1<f64>, acc: &mut f64) {
    *acc += x[i] * x[i];
}

#[granule_core::kernel::kernel(crate = granule_core, scan)]
fn excl(i: usize, e: &mut i64, p: &mut i64, last: bool) {
    if last { *e = *p; }
    *p += i as i64;
}

#[test]
fn smoke() {
    let s = Cuda::emulated().unwrap();
    let n = 10_000;
    let hx = View1::<f64>::from_fn("x", n, |i| i as f64).unwrap();
    let mut x = View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "x", n).unwrap();
    deep_copy(&mut x, &hx).unwrap();
    let mut y = View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
    parallel_for("axpy", RangePolicy::new(&s, 0..n), &mut y, axpy(2.0, &x));
    let hy = create_mirror_view_and_copy(&y).unwrap();
    assert_eq!(hy[7], 14.0);
    let d: f64 = parallel_reduce("dot", RangePolicy::new(&s, 0..n), Sum, dot(&x));
    assert_eq!(d, (0..n).map(|i| (i * i) as f64).sum::<f64>());
    let mut e = View1::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "e", n).unwrap();
    let t = parallel_scan("excl", RangePolicy::new(&s, 0..n), &mut e, excl());
    let he = create_mirror_view_and_copy(&e).unwrap();
    assert_eq!((he[4], t), (6, (n * (n - 1) / 2) as i64));
}
