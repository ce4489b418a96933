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
