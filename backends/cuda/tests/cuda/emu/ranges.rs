//! Range launches: every size and grid, stream order, and copies.

use super::*;

#[test]
fn axpy_covers_every_size_and_grid() {
    let dev = device();
    for (n, grid, block) in AXPY_SHAPES {
        check_axpy(&dev, n, grid, block);
    }
    assert_eq!(dev.stats().launches, 8);
}

/// As on a GPU (`gpu` runs the same): launches queued without a wait
/// run in order, and the copy that reads the result waits once.
#[test]
fn queued_launches_run_in_stream_order() {
    let dev = device();
    chained_axpys(&dev, 1000, 50);
    let st = dev.stats();
    assert_eq!(
        (st.launches, st.synchronizations),
        (50, 3),
        "two uploads, one download"
    );
}

/// As on a GPU: a fault is reported at the next synchronization, naming
/// its launch; the emulator then goes on.
#[test]
fn a_fault_among_queued_launches_is_traced_to_its_launch() {
    a_fault_among_queued_launches(&device()).unwrap();
}

/// As on a GPU: copies and zeroings run behind a failed launch that no
/// synchronization has reported yet, and the launches do not.
#[test]
fn copies_run_behind_a_failed_launch_as_on_a_gpu() {
    copies_run_behind_a_failed_launch(&device()).unwrap();
}

#[test]
fn a_copy_loads_and_stores_each_element_once() {
    let dev = device();
    let module = dev
        .compile(
            &unit(&[Instance::new(&__GRANULE_KERNEL_copy, Pattern::For, &[])]),
            "copy",
        )
        .unwrap();
    let n = 1000;
    let x: Vec<i32> = (0..n as i32).map(|i| i * 3 - 7).collect();
    let xb = upload(&dev, &x);
    let yb = dev.alloc_zeroed(n * 4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &yb, n, 1);
    view1(&mut args, &xb, n, 2);
    dev.take_stats();
    // SAFETY: (begin, end, y, x) over n i32 each.
    unsafe { dev.launch(&module, "granule_for_copy", &config(4, 128, 0), &args) }.unwrap();
    let s = dev.take_stats();
    assert_eq!(download::<i32, _>(&dev, &yb, n), x);
    assert_eq!(
        s,
        EmuStats {
            launches: 1,
            global_loads: n as u64,
            global_stores: n as u64,
            global_load_bytes: 4 * n as u64,
            global_store_bytes: 4 * n as u64,
            global_atomics: 0,
            global_atomic_bytes: 0,
            footprint_read_bytes: 4 * n as u64,
            footprint_written_bytes: 4 * n as u64,
            // The launch is queued; the host has not waited for it yet.
            synchronizations: 0,
            allocations: 0,
            // Sectors are counted only with EmuOptions::sectors.
            ..EmuStats::default()
        }
    );
    assert_eq!(s.words_per_element(4, n as u64), 2.0);
    dev.free(xb).unwrap();
    dev.free(yb).unwrap();
}
