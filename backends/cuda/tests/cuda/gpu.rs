//! The cudarc device on a real GPU: the same launches as the emulator's
//! tests (`launches`), checked against host results. Without an NVIDIA
//! driver every test prints why it is skipped and passes, unless
//! `GRANULE_REQUIRE_GPU=1` (set by `scripts/gpu/run.sh`), where a missing
//! GPU fails.

use crate::launches::*;

use granule_cuda::codegen::{Instance, Pattern};
use granule_cuda::device_api::{as_uninit, Device, DeviceError, KernelArgs};
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

#[test]
fn entry_tables_and_argument_checks_match_the_emulator() {
    let Some(dev) = gpu("entry_tables_and_argument_checks_match_the_emulator") else {
        return;
    };
    let emu = granule_cuda::emu::EmuDevice::new().unwrap();
    let kernel = <axpy as granule::kernel::KernelSource>::KERNEL;
    let unit = unit(&[Instance::new(kernel, Pattern::For, &[])]);
    let on_gpu = dev.compile(&unit, "axpy").unwrap();
    let on_emu = emu.compile(&unit, "axpy").unwrap();
    let entry = "granule_for_axpy";
    let table = dev.entry_params(&on_gpu, entry);
    assert_eq!(table, emu.entry_params(&on_emu, entry));
    assert_eq!(table, Some(&[8, 8, 32, 8, 32][..]));
    // `a` as an f32 where the entry takes an f64: both devices refuse it,
    // with the same reason.
    let y = dev.alloc_zeroed(32).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(4u64);
    view1(&mut args, &y, 4, 1);
    args.scalar(2.0f32);
    view1(&mut args, &y, 4, 2);
    // SAFETY: refused before anything runs; `y` holds the 4 f64s the
    // Views describe.
    let e = unsafe { dev.launch(&on_gpu, entry, &config(1, 32, 0), &args) }.unwrap_err();
    assert!(matches!(e, DeviceError::InvalidLaunch { .. }), "{e}");
    let reason = args.check_params(table.unwrap()).unwrap_err();
    assert!(e.to_string().contains(&reason), "{e}");
    dev.free(y).unwrap();
}

#[test]
fn launches_are_queued_in_stream_order() {
    let Some(dev) = gpu("launches_are_queued_in_stream_order") else {
        return;
    };
    chained_axpys(&dev, 100_000, 50);
}

/// The report of a fault comes at the next synchronization and names the
/// launch, from the record's copy of the progress word; the launch after
/// it does nothing, and the device goes on.
#[test]
fn a_fault_among_queued_launches_is_traced_to_its_launch() {
    let Some(dev) = gpu("a_fault_among_queued_launches_is_traced_to_its_launch") else {
        return;
    };
    a_fault_among_queued_launches(&dev).unwrap();
}

/// Copies and zeroings run behind a failed launch, whether the host saw
/// the failure at a wait before them or not, as on the emulator; the
/// launches do not.
#[test]
fn copies_run_behind_a_failed_launch_as_on_the_emulator() {
    let Some(dev) = gpu("copies_run_behind_a_failed_launch_as_on_the_emulator") else {
        return;
    };
    copies_run_behind_a_failed_launch(&dev).unwrap();
}

/// A device panic stops only its own threads: another device of the same
/// process still runs after it (a trap would be a sticky error, which can
/// end every context of the process, new ones included).
#[test]
fn a_fault_leaves_the_other_devices_working() {
    let (Some(a), Some(b)) = (
        gpu("a_fault_leaves_the_other_devices_working"),
        gpu("a_fault_leaves_the_other_devices_working"),
    ) else {
        return;
    };
    a_fault_among_queued_launches(&a).unwrap();
    chained_axpys(&b, 10_000, 3);
    chained_axpys(&GpuDevice::new(0).unwrap(), 10_000, 3);
}

#[test]
fn shared_memory_is_the_opt_in_maximum() {
    let Some(dev) = gpu("shared_memory_is_the_opt_in_maximum") else {
        return;
    };
    // Every GPU granule compiles for (sm_70 and later) opts in above the
    // 48 KiB a function starts with.
    assert!(
        dev.limits().max_shared_mem_bytes > 48 * 1024,
        "{:?}",
        dev.limits()
    );
}
