//! What one CG iteration costs on Cuda, counted on the emulator: its
//! launches and its host synchronizations (without the kernel timers'
//! fences, the two dot products' results are the only reads back), and
//! the global-memory bytes it moves against the matrix and vectors it
//! must read. `cargo test -p granule-cg --features cuda --test counts --
//! --nocapture` prints them.

#![cfg(feature = "cuda")]

use granule_cg::{run, Config};
use granule_cuda::emu::{EmuDevice, EmuStats};
use std::sync::Arc;

fn counted(iterations: usize) -> EmuStats {
    let emu = Arc::new(EmuDevice::new().expect("an emulator"));
    let cuda = granule::Cuda::with_device(emu.clone());
    let cfg = Config {
        nx: 6,
        ny: 5,
        nz: 4,
        max_iters: iterations,
        kernel_timers: false,
        ..Config::default()
    };
    run(&cuda, &cfg).unwrap();
    emu.take_stats()
}

#[test]
fn a_cg_iteration_launches_six_kernels_synchronizes_twice_and_reads_the_matrix_once() {
    let (a, b) = (counted(3), counted(6));
    let per = |x: u64, y: u64| (y - x) as f64 / 3.0;
    let launches = per(a.launches, b.launches);
    let syncs = per(a.synchronizations, b.synchronizations);
    let bytes = per(a.footprint_bytes(), b.footprint_bytes());
    // 7 × 6 × 5 nodes; a row has 3 columns along each axis, 2 at a face:
    // values (8 bytes) and columns (4), the row offsets (8), and a few
    // vectors of 8-byte values.
    let (rows, nnz) = (7 * 6 * 5, (19 * 16 * 13) as f64);
    let matrix = nnz * 12.0 + (rows as f64 + 1.0) * 8.0;
    println!(
        "per CG iteration: {launches} launches, {syncs} host synchronizations, {bytes} bytes \
         (the matrix: {matrix} bytes)"
    );
    assert_eq!(syncs, 2.0, "the two dot products' results");
    assert!(launches <= 8.0, "{launches} launches");
    assert!(
        bytes >= matrix && bytes < matrix + 16.0 * 8.0 * rows as f64,
        "{bytes} bytes"
    );
}
