//! The cudarc device on a real GPU: the same launches as the emulator's
//! tests (`launches/`), checked against host results. Without an NVIDIA
//! driver every test prints why it is skipped and passes, unless
//! `GRANULE_REQUIRE_GPU=1` (set by `scripts/gpu-check.sh` on the GPU
//! machine), where a missing GPU fails.

mod launches;
use launches::*;

use granule_cuda::device_api::{as_uninit, Device, DeviceError};
use granule_cuda::gpu::GpuDevice;

/// GPU 0, or `None` (with the reason printed) when there is none.
fn gpu(test: &str) -> Option<GpuDevice> {
    granule_cuda::gpu::device_or_skip(0, test)
}

#[test]
fn axpy_runs_at_every_size() {
    let Some(dev) = gpu("axpy_runs_at_every_size") else {
        return;
    };
    for (n, grid, block) in AXPY_SHAPES {
        check_axpy(&dev, n, grid, block);
    }
}

#[test]
fn reductions_and_scans_agree_with_the_host() {
    let Some(dev) = gpu("reductions_and_scans_agree_with_the_host") else {
        return;
    };
    for (n, grid, block) in [(1, 1, 32), (100_000, 97, 256), (1 << 22, 264, 256)] {
        let x: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1000 - 500).collect();
        assert_eq!(
            reduce_sum(&dev, &x, grid, block),
            x.iter().sum::<i64>(),
            "n = {n}"
        );
    }
    for (n, block) in [(1usize, 32), (70_000, 128), (1 << 22, 256)] {
        let x: Vec<i32> = (0..n as i32).map(|i| (i * 31) % 17 - 8).collect();
        let (out, total) = scan(&dev, &x, block);
        let mut acc = 0i32;
        assert!(
            x.iter().zip(&out).all(|(v, o)| {
                acc += v;
                acc == *o
            }),
            "n = {n}"
        );
        assert_eq!(total, acc);
    }
}

#[test]
fn copies_and_buffers_are_checked() {
    let Some(dev) = gpu("copies_and_buffers_are_checked") else {
        return;
    };
    let mut a = dev.alloc_zeroed(64).unwrap();
    let b = dev.alloc_zeroed(64).unwrap();
    assert_eq!(download::<u32, _>(&dev, &a, 16), vec![0; 16]);
    dev.copy_to_device(&mut a, 8, as_uninit(&[1, 2, 3, 4]))
        .unwrap();
    assert!(matches!(
        dev.copy_to_device(&mut a, 62, as_uninit(&[1, 2, 3])),
        Err(DeviceError::OutOfRange { .. })
    ));
    let mut c = dev.alloc_zeroed(64).unwrap();
    dev.copy_on_device(&mut c, 0, &a, 8, 4).unwrap();
    let mut out = [0u8; 4];
    // SAFETY: `c` is zeroed, then copied from `a`, itself zeroed and
    // written from plain bytes.
    unsafe { dev.read_bytes(&mut out, &c, 0) }.unwrap();
    assert_eq!(out, [1, 2, 3, 4]);
    dev.free(b).unwrap();
    dev.free(a).unwrap();
    dev.free(c).unwrap();
}
