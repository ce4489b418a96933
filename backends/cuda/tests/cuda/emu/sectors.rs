//! Coalescing as the emulator counts it (`EmuOptions::sectors`): the
//! 32-byte sectors each warp-wide load and store touches against the
//! fewest that hold its bytes, per entry point.

use super::*;
use std::collections::BTreeMap;
use std::sync::Arc;

#[kernel]
fn shifted(i: usize, y: &mut f32, x: &View1<f32>) {
    *y = x[i + 1];
}

#[kernel]
fn broadcast(i: usize, y: &mut f32, x: &View1<f32>) {
    *y = x[0] + i as f32;
}

#[kernel]
fn gathered(i: usize, y: &mut f32, x: &View1<f32>) {
    *y = x[(i * 8) % 4096];
}

/// Runs each kernel over 4096 indices (128 full warps) on a
/// sector-counting emulator.
fn efficiencies() -> BTreeMap<String, EmuStats> {
    let options = EmuOptions {
        sectors: true,
        ..Default::default()
    };
    let emu = Arc::new(EmuDevice::with_options(options).unwrap());
    let cuda = granule_cuda::Cuda::with_device(emu.clone());
    let mem = cuda.memory_space();
    let x = View1::<f32, LayoutRight, granule_cuda::CudaSpace>::zeros_in(mem.clone(), "x", 4097)
        .unwrap();
    let mut y =
        View1::<f32, LayoutRight, granule_cuda::CudaSpace>::zeros_in(mem, "y", 4096).unwrap();
    parallel_for(
        "shifted",
        RangePolicy::new(&cuda, 0..4096),
        &mut y,
        shifted(&x),
    );
    parallel_for(
        "broadcast",
        RangePolicy::new(&cuda, 0..4096),
        &mut y,
        broadcast(&x),
    );
    parallel_for(
        "gathered",
        RangePolicy::new(&cuda, 0..4096),
        &mut y,
        gathered(&x),
    );
    cuda.fence();
    emu.take_entry_stats()
}

#[test]
fn sector_efficiency_counts_misaligned_broadcast_and_gathered_warps() {
    let e = efficiencies();
    // x[i + 1]: a warp's 128 bytes start 4 bytes into a sector, so they
    // touch 5 sectors where 4 would hold them.
    assert_eq!(e["granule_for_shifted"].load_efficiency(), Some(0.8));
    // Every lane reads the same 4 bytes: one sector, the fewest.
    assert_eq!(e["granule_for_broadcast"].load_efficiency(), Some(1.0));
    // Lanes 32 bytes apart: 32 sectors for 128 bytes.
    assert_eq!(e["granule_for_gathered"].load_efficiency(), Some(0.125));
    for s in e.values() {
        assert_eq!(s.store_efficiency(), Some(1.0), "y(i) is written whole");
    }
    assert_eq!(e["granule_for_gathered"].load_sectors_needed, 128 * 4);
    assert_eq!(e["granule_for_shifted"].load_sectors, 128 * 5);
    assert_eq!(
        e["granule_for_broadcast"].load_sectors, 128,
        "one sector a warp"
    );
}

#[test]
fn without_the_option_no_sector_is_counted() {
    let emu = Arc::new(EmuDevice::new().unwrap());
    let cuda = granule_cuda::Cuda::with_device(emu.clone());
    let x = View1::<f32, LayoutRight, granule_cuda::CudaSpace>::zeros_in(
        cuda.memory_space(),
        "x",
        4097,
    )
    .unwrap();
    let mut y = View1::<f32, LayoutRight, granule_cuda::CudaSpace>::zeros_in(
        cuda.memory_space(),
        "y",
        4096,
    )
    .unwrap();
    parallel_for(
        "shifted",
        RangePolicy::new(&cuda, 0..4096),
        &mut y,
        shifted(&x),
    );
    cuda.fence();
    let s = emu.take_stats();
    assert_eq!((s.load_sectors, s.store_sectors), (0, 0));
    assert_eq!(s.load_efficiency(), None);
    assert!(s.global_loads >= 4096);
}
