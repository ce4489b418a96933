//! What the device tests share: kernels, buffer helpers, and launches of
//! the reduce and scan drivers, generic over the [`Device`] so that the
//! emulator (`emu.rs`) and a real GPU (`gpu.rs`) run the same code.

// Each test file uses a different subset.
#![allow(dead_code)]

use granule::prelude::*;
use granule_cuda::codegen::{Instance, Pattern, Reducer, TranslationUnit};
use granule_cuda::device_api::{ArgScalar, Device, DeviceBuffer, KernelArgs, LaunchConfig};

#[kernel]
pub fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y += a * x[i];
}

#[kernel]
pub fn copy(i: usize, y: &mut i32, x: &View1<i32>) {
    *y = x[i];
}

#[kernel(reduce)]
pub fn sum_i64(i: usize, x: &View1<i64>, acc: &mut i64) {
    *acc += x[i];
}

#[kernel(scan)]
pub fn inclusive(i: usize, x: &View1<i32>, out: &mut i32, partial: &mut i32, last: bool) {
    *partial += x[i];
    if last {
        *out = *partial;
    }
}

// ------------------------------------------------------------- helpers

/// Element types moved to and from the device in these tests.
pub trait Elem: ArgScalar {
    const BYTES: usize;
    fn read(b: &[u8]) -> Self;
}
macro_rules! elem {
    ($($t:ty),*) => { $(
        impl Elem for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            fn read(b: &[u8]) -> Self { <$t>::from_ne_bytes(b.try_into().unwrap()) }
        }
    )* };
}
elem!(i32, i64, u32, f32, f64);

pub fn upload<T: Elem, D: Device + ?Sized>(dev: &D, data: &[T]) -> DeviceBuffer {
    let mut bytes = Vec::with_capacity(data.len() * T::BYTES);
    for &v in data {
        v.append(&mut bytes);
    }
    let mut buf = dev.alloc_zeroed(bytes.len()).unwrap();
    dev.copy_to_device(&mut buf, 0, &bytes).unwrap();
    buf
}

pub fn download<T: Elem, D: Device + ?Sized>(dev: &D, buf: &DeviceBuffer, n: usize) -> Vec<T> {
    let mut bytes = vec![0u8; n * T::BYTES];
    dev.copy_to_host(&mut bytes, buf, 0).unwrap();
    bytes.chunks(T::BYTES).map(T::read).collect()
}

/// A rank-1 contiguous View argument over `buf`.
pub fn view1(args: &mut KernelArgs, buf: &DeviceBuffer, n: usize, id: u32) {
    args.view(buf.address(), &[n as u64], &[1], id);
}

pub fn config(grid: u32, block: u32, smem: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: smem,
    }
}

pub fn unit(instances: &[Instance]) -> TranslationUnit {
    TranslationUnit::new(instances).unwrap()
}

/// Sums `x` with the reduce driver on `grid` blocks of `block` threads.
pub fn reduce_sum<D: Device + ?Sized>(dev: &D, x: &[i64], grid: u32, block: u32) -> i64 {
    let module = dev
        .compile(
            &unit(&[Instance::new(
                <sum_i64 as granule::kernel::KernelSource>::KERNEL,
                Pattern::Reduce(Reducer::Sum),
                &[],
            )]),
            "sum_i64",
        )
        .unwrap();
    let n = x.len();
    let xb = upload(dev, x);
    let partials = dev.alloc_zeroed(grid as usize * 8).unwrap();
    let counter = dev.alloc_zeroed(4).unwrap();
    let result = dev.alloc_zeroed(8).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &xb, n, 1);
    args.pointer(partials.address())
        .pointer(counter.address())
        .pointer(result.address());
    // SAFETY: (begin, end, x, partials, counter, result): partials holds
    // one i64 per block, counter is zero, result one i64.
    unsafe {
        dev.launch(
            &module,
            "granule_reduce_sum_sum_i64",
            &config(grid, block, 0),
            &args,
        )
    }
    .unwrap();
    let total = download::<i64, _>(dev, &result, 1)[0];
    assert_eq!(
        download::<u32, _>(dev, &counter, 1),
        [0],
        "the counter is reset"
    );
    for b in [xb, partials, counter, result] {
        dev.free(b).unwrap();
    }
    total
}

/// The inclusive scan of `x` and its total, by the scan driver with tiles
/// of `block` threads.
pub fn scan<D: Device + ?Sized>(dev: &D, x: &[i32], block: u32) -> (Vec<i32>, i32) {
    let module = dev
        .compile(
            &unit(&[Instance::new(
                <inclusive as granule::kernel::KernelSource>::KERNEL,
                Pattern::Scan(Reducer::Sum),
                &[],
            )]),
            "inclusive",
        )
        .unwrap();
    let n = x.len();
    let tiles = n.div_ceil(block as usize).max(1);
    let xb = upload(dev, x);
    let outb = dev.alloc_zeroed(n * 4).unwrap();
    let aggs = dev.alloc_zeroed(tiles * 4).unwrap();
    let incls = dev.alloc_zeroed(tiles * 4).unwrap();
    let flags = dev.alloc_zeroed(tiles * 4).unwrap();
    let counter = dev.alloc_zeroed(4).unwrap();
    let result = dev.alloc_zeroed(4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &xb, n, 1);
    view1(&mut args, &outb, n, 2);
    for b in [&aggs, &incls, &flags, &counter, &result] {
        args.pointer(b.address());
    }
    // SAFETY: (begin, end, x, out, aggs, incls, flags, tiles, result), one
    // aggregate, prefix and flag per tile, flags and the tile counter zero;
    // one i32 per thread of dynamic shared memory.
    unsafe {
        dev.launch(
            &module,
            "granule_scan_sum_inclusive",
            &config(tiles as u32, block, block * 4),
            &args,
        )
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let out = download::<i32, _>(dev, &outb, n);
    let total = download::<i32, _>(dev, &result, 1)[0];
    for b in [xb, outb, aggs, incls, flags, counter, result] {
        dev.free(b).unwrap();
    }
    (out, total)
}

/// Sizes and geometries of the axpy launches: below, at and above a warp,
/// uneven blocks, and more elements than threads.
pub const AXPY_SHAPES: [(usize, u32, u32); 8] = [
    (1, 1, 32),
    (31, 1, 32),
    (32, 1, 32),
    (33, 1, 32),
    (33, 2, 64),
    (1023, 3, 128),
    (1023, 64, 256),
    ((1 << 20) + 3, 96, 256),
];

/// Runs the axpy kernel's For entry over `n` elements on `grid` blocks of
/// `block` threads and checks every element against the host.
pub fn check_axpy<D: Device + ?Sized>(dev: &D, n: usize, grid: u32, block: u32) {
    let kernel = <axpy as granule::kernel::KernelSource>::KERNEL;
    let module = dev
        .compile(&unit(&[Instance::new(kernel, Pattern::For, &[])]), "axpy")
        .unwrap_or_else(|e| panic!("{e}"));
    let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let y0: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
    let xb = upload(dev, &x);
    let yb = upload(dev, &y0);
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &yb, n, 1);
    args.scalar(2.0f64);
    view1(&mut args, &xb, n, 2);
    // SAFETY: (begin, end, y, a, x) is granule_for_axpy's parameter list
    // and both Views cover n elements of live buffers.
    unsafe { dev.launch(&module, "granule_for_axpy", &config(grid, block, 0), &args) }
        .unwrap_or_else(|e| panic!("n = {n}: {e}"));
    let y = download::<f64, _>(dev, &yb, n);
    for i in 0..n {
        assert_eq!(
            y[i],
            2.0 * i as f64 + y0[i],
            "n = {n}, grid {grid}x{block}, i = {i}"
        );
    }
    dev.free(xb).unwrap();
    dev.free(yb).unwrap();
}
