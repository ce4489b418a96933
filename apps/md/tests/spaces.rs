//! The one driver on every space: the same thermo lines on Serial, Rayon
//! at 1, 2 and 3 threads, and Cuda (the emulator in the test command).

use granule::prelude::*;
use granule_md::{run, Config, Thermo};

/// 864 atoms (6³ cells, three neighbour bins across), two rebuilds.
fn small() -> Config {
    Config {
        cells: 6,
        steps: 40,
        thermo: 10,
        ..Config::default()
    }
}

fn lines(t: &[Thermo]) -> Vec<String> {
    t.iter().map(|t| t.to_string()).collect()
}

#[cfg(feature = "rayon")]
#[test]
fn serial_and_rayon_give_the_same_bits() {
    let cfg = small();
    let serial = run(&Serial, &cfg).unwrap();
    assert_eq!(serial.atoms, 864);
    assert_eq!(serial.thermo.len(), 5);
    assert_eq!(
        serial.thermo[0].to_string(),
        "0 1.400000 -6.332812 -4.235243"
    );
    for threads in 1..=3 {
        let rayon = run(&granule::Rayon::new(threads).unwrap(), &cfg).unwrap();
        assert_eq!(rayon.thermo, serial.thermo, "{threads} threads");
    }
}

#[cfg(feature = "cuda")]
#[test]
fn cuda_prints_the_host_lines() {
    let cfg = Config {
        phase_timers: false,
        ..small()
    };
    let serial = run(&Serial, &cfg).unwrap();
    let cuda = run(&granule::Cuda::from_env().unwrap(), &cfg).unwrap();
    assert_eq!(lines(&cuda.thermo), lines(&serial.thermo));
}

#[test]
fn a_box_under_three_bins_is_refused() {
    let cfg = Config {
        cells: 4,
        ..small()
    };
    let e = run(&Serial, &cfg).unwrap_err().to_string();
    assert!(e.contains("under three neighbour bins"), "{e}");
    assert!(e.contains("give at least 6 cells"), "{e}");
}
