//! The host glue of `#[kernel]`: the functor a kernel's constructor returns
//! gives exactly the results of the equivalent closure (it calls the same
//! body, inlined), for every pattern and policy shape, generic kernels
//! included; and it carries its device side.

use granule::kernel::{DeviceFunctor, KernelPattern, KernelSource, ParamKind};
use granule::prelude::*;

#[kernel]
fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y += a * x[i];
}

#[kernel]
fn scale<T: Element + std::ops::Mul<Output = T>>(i: usize, y: &mut T, a: T, x: &View1<T>) {
    *y = a * x[i];
}

#[kernel(reduce)]
fn dot(i: usize, x: &View1<f64>, y: &View1<f64>, acc: &mut f64) {
    *acc += x[i] * y[i];
}

#[kernel(scan)]
fn running_max(i: usize, x: &View1<i64>, out: &mut i64, partial: &mut i64, last: bool) {
    *partial = (*partial).max(x[i]);
    if last {
        *out = *partial;
    }
}

#[kernel(reduce)]
fn row_sums(m: &TeamMember, a: &View2<f64>, acc: &mut f64) {
    let r = m.league_rank();
    *acc += TeamThreadRange::new(m, 0..a.extent(1)).parallel_reduce(Sum, |j, s: &mut f64| {
        *s += a[[r, j]];
    });
}

#[kernel]
fn outer([i, j]: [usize; 2], x: &View1<f64>, out: &mut f64) {
    *out = x[i] * x[j];
}

fn input(n: usize) -> View1<f64> {
    View1::<f64>::from_fn("x", n, |i| 1.0 / (1.0 + i as f64)).unwrap()
}

fn device_kernel<F: DeviceFunctor<granule::views::HostSpace>>(
    _: &F,
) -> &'static granule::kernel::DeviceKernel {
    F::KERNEL
}

#[test]
fn for_kernels_match_closures_bitwise() {
    let space = Serial;
    let n = 100_003;
    let x = input(n);
    let mut by_kernel = View1::<f64>::from_fn("k", n, |i| i as f64).unwrap();
    let mut by_closure = View1::<f64>::from_fn("c", n, |i| i as f64).unwrap();
    let p = RangePolicy::new(&space, 0..n);
    parallel_for("k", p, &mut by_kernel, axpy(0.3, &x));
    parallel_for("c", p, &mut by_closure, |i, y: &mut f64| *y += 0.3 * x[i]);
    assert_eq!(by_kernel.to_vec(), by_closure.to_vec());
    let mut f32s = View1::<f32>::zeros("f", 8).unwrap();
    let xf = View1::<f32>::from_fn("xf", 8, |i| i as f32).unwrap();
    parallel_for(
        "scale",
        RangePolicy::new(&space, 0..8),
        &mut f32s,
        scale(1.5f32, &xf),
    );
    assert_eq!(f32s[4], 6.0);
}

#[test]
fn reduce_scan_team_and_mdrange_kernels_match_closures() {
    let space = Serial;
    let n = 50_001;
    let x = input(n);
    let p = RangePolicy::new(&space, 0..n);
    let k: f64 = parallel_reduce("k", p, Sum, dot(&x, &x));
    let c: f64 = parallel_reduce("c", p, Sum, |i, a: &mut f64| *a += x[i] * x[i]);
    assert_eq!(k.to_bits(), c.to_bits());

    let v = View1::<i64>::from_fn("v", 1000, |i| ((i * 7919) % 1000) as i64).unwrap();
    let mut out = View1::<i64>::zeros("out", 1000).unwrap();
    let total = parallel_scan_with(
        "max",
        RangePolicy::new(&space, 0..1000).with_chunk_size(7),
        Max,
        &mut out,
        running_max(&v),
    );
    let mut m = i64::MIN;
    for i in 0..1000 {
        m = m.max(v[i]);
        assert_eq!(out[i], m, "out[{i}]");
    }
    assert_eq!(total, 999);

    let a = View2::<f64>::from_fn("a", [37, 11], |[i, j]| (i * 11 + j) as f64).unwrap();
    let s: f64 = parallel_reduce("rows", TeamPolicy::new(&space, 37, AUTO), Sum, row_sums(&a));
    assert_eq!(s, (0..37 * 11).sum::<usize>() as f64);

    let y = input(9);
    let mut o = View2::<f64>::zeros("o", [9, 9]).unwrap();
    parallel_for(
        "outer",
        MDRangePolicy::new(&space, [0, 0], [9, 9]),
        &mut o,
        outer(&y),
    );
    assert_eq!(o[[2, 3]], y[2] * y[3]);
}

#[test]
fn functors_carry_their_device_side() {
    let x = input(4);
    let k = device_kernel(&dot(&x, &x));
    assert_eq!((k.name, k.pattern), ("dot", KernelPattern::Reduce));
    assert!(k.source.contains("__device__ void dot("));
    let s = device_kernel(&running_max(&View1::<i64>::zeros("v", 1).unwrap()));
    assert_eq!(s.pattern, KernelPattern::Scan);
    assert_eq!(s.params.last().map(|p| p.kind), Some(ParamKind::Final));
    let md = <outer as KernelSource>::KERNEL;
    assert_eq!(md.params[0].kind, ParamKind::MdIndex { rank: 2 });
    assert_eq!(device_kernel(&scale(2.0f64, &x)).generics, ["T"]);
}

#[test]
fn the_body_stays_callable() {
    let x = input(4);
    let mut y = 1.0;
    axpy::body(2, &mut y, 3.0, &x);
    assert_eq!(y, 2.0);
    let mut acc = 0.0;
    dot::body(1, &x, &x, &mut acc);
    assert_eq!(acc, 0.25);
}
