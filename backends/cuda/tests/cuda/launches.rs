//! What the device tests share: kernels, buffer helpers, and launches of
//! the reduce and scan drivers, generic over the [`Device`] so that the
//! emulator (`emu`) and a real GPU (`gpu`) run the same code.

// Each test file uses a different subset.
#![allow(dead_code)]

use granule::prelude::*;
use granule_cuda::codegen::{
    reduce_workspace, scan_workspace, Instance, Pattern, Reducer, TranslationUnit,
};
use granule_cuda::device_api::{
    as_uninit, ArgScalar, Device, DeviceBuffer, DeviceError, Fault, KernelArgs, LaunchConfig,
};
use granule_cuda::kernel::DeviceKernel;

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

// The same inclusive scan over the other element types the scan tests
// use: sub-word and word values travel in the tile state word, wider ones
// in the separate value buffer.
#[kernel(scan)]
pub fn inclusive_u8(i: usize, x: &View1<u8>, out: &mut u8, partial: &mut u8, last: bool) {
    *partial += x[i];
    if last {
        *out = *partial;
    }
}

#[kernel(scan)]
pub fn inclusive_i16(i: usize, x: &View1<i16>, out: &mut i16, partial: &mut i16, last: bool) {
    *partial += x[i];
    if last {
        *out = *partial;
    }
}

#[kernel(scan)]
pub fn inclusive_i64(i: usize, x: &View1<i64>, out: &mut i64, partial: &mut i64, last: bool) {
    *partial += x[i];
    if last {
        *out = *partial;
    }
}

#[kernel(scan)]
pub fn inclusive_f32(i: usize, x: &View1<f32>, out: &mut f32, partial: &mut f32, last: bool) {
    *partial += x[i];
    if last {
        *out = *partial;
    }
}

#[kernel(scan)]
pub fn inclusive_f64(i: usize, x: &View1<f64>, out: &mut f64, partial: &mut f64, last: bool) {
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
elem!(u8, i16, i32, i64, u32, u64, f32, f64);

pub fn upload<T: Elem, D: Device + ?Sized>(dev: &D, data: &[T]) -> DeviceBuffer {
    let mut bytes = Vec::with_capacity(data.len() * T::BYTES);
    for &v in data {
        v.append(&mut bytes);
    }
    let mut buf = dev.alloc_zeroed(bytes.len()).unwrap();
    dev.copy_to_device(&mut buf, 0, as_uninit(&bytes)).unwrap();
    buf
}

pub fn download<T: Elem, D: Device + ?Sized>(dev: &D, buf: &DeviceBuffer, n: usize) -> Vec<T> {
    let mut bytes = vec![0u8; n * T::BYTES];
    // SAFETY: the tests' buffers are zeroed, uploaded from plain bytes
    // (`upload`) or written by kernels, so every byte is initialized.
    unsafe { dev.read_bytes(&mut bytes, buf, 0) }.unwrap();
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
    let tail: Vec<DeviceBuffer> = reduce_workspace(grid, 8)
        .unwrap()
        .buffers
        .iter()
        .map(|&b| dev.alloc_zeroed(b).unwrap())
        .collect();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &xb, n, 1);
    for b in &tail {
        args.pointer(b.address());
    }
    // SAFETY: (begin, end, x, then the tail buffers partials, counter,
    // result), zeroed and sized by reduce_workspace for this grid.
    unsafe {
        dev.launch_and_wait(
            &module,
            "granule_reduce_sum_sum_i64",
            &config(grid, block, 0),
            &args,
        )
    }
    .unwrap();
    let total = download::<i64, _>(dev, &tail[2], 1)[0];
    assert_eq!(
        download::<u32, _>(dev, &tail[1], 1),
        [0],
        "the counter is reset"
    );
    dev.free(xb).unwrap();
    for b in tail {
        dev.free(b).unwrap();
    }
    total
}

/// The inclusive scan of `x` and its total, by the scan driver with
/// blocks of `block` threads.
pub fn scan<D: Device + ?Sized>(dev: &D, x: &[i32], block: u32) -> (Vec<i32>, i32) {
    scan_any(dev, x, block, None)
}

/// An element type with its inclusive-scan kernel above.
pub trait ScanElem: Elem {
    fn kernel() -> &'static DeviceKernel;
}
macro_rules! scan_elem {
    ($($t:ty => $k:ident),*) => { $(
        impl ScanElem for $t {
            fn kernel() -> &'static DeviceKernel {
                <$k as granule::kernel::KernelSource>::KERNEL
            }
        }
    )* };
}
scan_elem!(u8 => inclusive_u8, i16 => inclusive_i16, i32 => inclusive, i64 => inclusive_i64, f32 => inclusive_f32, f64 => inclusive_f64);

/// [`scan`] for any element type with a kernel: the Sum scan entry, with
/// the workspace `scan_workspace` gives, on its grid or on `grid` blocks.
pub fn scan_any<T: ScanElem, D: Device + ?Sized>(
    dev: &D,
    x: &[T],
    block: u32,
    grid: Option<u32>,
) -> (Vec<T>, T) {
    let kernel = T::kernel();
    let instance = Instance::new(kernel, Pattern::Scan(Reducer::Sum), &[]);
    let module = dev.compile(&unit(&[instance]), kernel.name).unwrap();
    let n = x.len();
    let ws = scan_workspace(n as u64, T::BYTES, T::BYTES, block).unwrap();
    let xb = upload(dev, x);
    let outb = dev.alloc_zeroed(n * T::BYTES).unwrap();
    let tail: Vec<DeviceBuffer> = ws
        .buffers
        .iter()
        .map(|&b| dev.alloc_zeroed(b).unwrap())
        .collect();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &xb, n, 1);
    view1(&mut args, &outb, n, 2);
    for b in &tail {
        args.pointer(b.address());
    }
    // SAFETY: (begin, end, x, out, then the tail buffers status, values,
    // tiles, result) over n elements, the tail zeroed and sized by
    // scan_workspace, launched with its block and shared memory (the
    // driver takes any grid).
    unsafe {
        dev.launch_and_wait(
            &module,
            &instance.entry(),
            &config(grid.unwrap_or(ws.grid), ws.block, ws.shared_bytes),
            &args,
        )
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let out = download::<T, _>(dev, &outb, n);
    let total = download::<T, _>(dev, &tail[3], 1)[0];
    dev.free(xb).unwrap();
    dev.free(outb).unwrap();
    for b in tail {
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
    unsafe { dev.launch_and_wait(&module, "granule_for_axpy", &config(grid, block, 0), &args) }
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

/// `granule_for_axpy` over `0..end` of the `n` f64s of `y` and `x`, queued
/// (not waited for): with `end` past `n` the kernel's bounds check of `y`
/// (View #1, the written one, checked first) fails.
pub fn queue_axpy<D: Device + ?Sized>(
    dev: &D,
    module: &granule_cuda::device_api::Module,
    (y, x): (&DeviceBuffer, &DeviceBuffer),
    n: usize,
    end: usize,
) -> granule_cuda::device_api::LaunchId {
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(end as u64);
    view1(&mut args, y, n, 1);
    args.scalar(2.0f64);
    view1(&mut args, x, n, 2);
    // SAFETY: (begin, end, y, a, x) is granule_for_axpy's parameter list
    // and both Views cover the n elements of live buffers; an index past
    // them fails the bounds check before any access.
    unsafe { dev.launch(module, "granule_for_axpy", &config(4, 64, 0), &args) }
        .unwrap_or_else(|e| panic!("a launch is queued: {e}"))
}

/// The axpy module of `dev`.
pub fn axpy_module<D: Device + ?Sized>(dev: &D) -> granule_cuda::device_api::Module {
    let kernel = <axpy as granule::kernel::KernelSource>::KERNEL;
    dev.compile(&unit(&[Instance::new(kernel, Pattern::For, &[])]), "axpy")
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Queues `count` axpy launches (`y += 2 x`) on the same buffers without
/// waiting, then reads `y` back: the copy waits for all of them, which ran
/// one after the other in stream order.
pub fn chained_axpys<D: Device + ?Sized>(dev: &D, n: usize, count: usize) {
    let module = axpy_module(dev);
    let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let (xb, yb) = (upload(dev, &x), upload(dev, &vec![1.0f64; n]));
    let ids: Vec<_> = (0..count)
        .map(|_| queue_axpy(dev, &module, (&yb, &xb), n, n))
        .collect();
    assert!(ids.windows(2).all(|w| w[1].0 == w[0].0 + 1), "{ids:?}");
    let y = download::<f64, _>(dev, &yb, n);
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, 1.0 + 2.0 * count as f64 * i as f64, "y[{i}]");
    }
    dev.free(xb).unwrap();
    dev.free(yb).unwrap();
}

/// Queues a launch that fails, then, before any synchronization, a copy
/// from the host into one buffer, a device copy of it into another, the
/// zeroing of a third and a launch into the second. The copies and the
/// zeroing run behind the failure, as a GPU's copy engine runs them
/// whether or not the host has seen it yet; the launch does not. The
/// reads back wait and report nothing; the synchronization after them
/// reports the failed launch, counting the skipped one. So every device
/// leaves the same data behind a failure.
pub fn copies_run_behind_a_failed_launch<D: Device + ?Sized>(dev: &D) -> Result<(), DeviceError> {
    let module = axpy_module(dev);
    let n = 64;
    let (xb, yb) = (upload(dev, &vec![1.0f64; n]), upload(dev, &vec![0.0f64; n]));
    let (mut ab, mut bb) = (upload(dev, &vec![0.0f64; n]), upload(dev, &vec![0.0f64; n]));
    let mut cb = upload(dev, &vec![5.0f64; n]);
    let bad = queue_axpy(dev, &module, (&yb, &xb), n, n + 1);
    let threes: Vec<u8> = (0..n).flat_map(|_| 3.0f64.to_ne_bytes()).collect();
    dev.copy_to_device(&mut ab, 0, as_uninit(&threes))?;
    dev.copy_on_device(&mut bb, 0, &ab, 0, n * 8)?;
    dev.zero(&mut cb)?;
    queue_axpy(dev, &module, (&bb, &xb), n, n);
    assert_eq!(
        download::<f64, _>(dev, &ab, n),
        vec![3.0; n],
        "the copy ran"
    );
    assert_eq!(
        download::<f64, _>(dev, &bb, n),
        vec![3.0; n],
        "the device copy ran, the launch after it did not"
    );
    assert_eq!(
        download::<f64, _>(dev, &cb, n),
        vec![0.0; n],
        "the zeroing ran"
    );
    let e = dev.synchronize().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Queued { launch, skipped: 1, .. } if *launch == bad),
        "{e}"
    );
    dev.synchronize()?;
    for b in [xb, yb, ab, bb, cb] {
        dev.free(b)?;
    }
    Ok(())
}

/// Queues a good launch, one that reads past its View, and a good one
/// into another buffer, with no wait: all are accepted, and the
/// synchronization after them reports the bad one by its number,
/// counting the one after it, which wrote nothing. The device goes on:
/// the next launch runs. Returns what the next synchronization says.
pub fn a_fault_among_queued_launches<D: Device + ?Sized>(dev: &D) -> Result<(), DeviceError> {
    let module = axpy_module(dev);
    let n = 64;
    let (xb, yb) = (upload(dev, &vec![1.0f64; n]), upload(dev, &vec![0.0f64; n]));
    let zb = upload(dev, &vec![0.0f64; n]);
    queue_axpy(dev, &module, (&yb, &xb), n, n);
    let bad = queue_axpy(dev, &module, (&yb, &xb), n, n + 1);
    queue_axpy(dev, &module, (&zb, &xb), n, n);
    let e = dev.synchronize().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Queued { launch, skipped: 1, .. } if *launch == bad),
        "{e}"
    );
    assert!(
        matches!(
            e.cause(),
            DeviceError::Fault { fault: Fault::OutOfBounds { view: 1, index, .. }, .. }
                if *index == n as u64
        ),
        "{e}"
    );
    assert_eq!(
        download::<f64, _>(dev, &zb, n),
        vec![0.0; n],
        "the launch after ran"
    );
    queue_axpy(dev, &module, (&zb, &xb), n, n);
    assert_eq!(
        download::<f64, _>(dev, &zb, n),
        vec![2.0; n],
        "the device stopped"
    );
    let after = dev.synchronize();
    dev.free(xb)?;
    dev.free(yb)?;
    dev.free(zb)?;
    after
}
