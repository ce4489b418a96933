//! What a time step costs on Cuda, counted on the emulator without the
//! phase timers' fences: its launches, and its host synchronizations (none
//! in a step between rebuilds, one per thermo output). `cargo test -p
//! granule-md --features cuda --test counts -- --nocapture` prints them.

#![cfg(feature = "cuda")]

use granule_cuda::emu::{EmuDevice, EmuStats};
use granule_md::{run, Config};
use std::sync::Arc;

fn counted(steps: usize, thermo: usize) -> EmuStats {
    let emu = Arc::new(EmuDevice::new().expect("an emulator"));
    let cuda = granule::Cuda::with_device(emu.clone());
    let cfg = Config {
        cells: 6,
        steps,
        thermo,
        phase_timers: false,
        ..Config::default()
    };
    run(&cuda, &cfg).unwrap();
    emu.take_stats()
}

#[test]
fn a_step_launches_three_kernels_and_waits_for_nothing_but_thermo_output() {
    // Steps 1..=19 rebuild nothing; thermo only at step 0.
    let (five, fifteen) = (counted(5, 100), counted(15, 100));
    let launches = (fifteen.launches - five.launches) as f64 / 10.0;
    let syncs = (fifteen.synchronizations - five.synchronizations) as f64 / 10.0;
    // 14 steps with a thermo output at steps 5 and 10 (the run's closing
    // fence still finds step 14's kernels to wait for).
    let with_thermo = counted(14, 5);
    let per_thermo =
        (with_thermo.synchronizations - counted(14, 100).synchronizations) as f64 / 2.0;
    println!("per step: {launches} launches, {syncs} host synchronizations; per thermo output: {per_thermo}");
    assert_eq!(launches, 3.0, "the two half kicks and the force");
    assert_eq!(syncs, 0.0);
    assert_eq!(per_thermo, 1.0);
}
