//! The thermo lines against ExaMiniMD's own output on the same problem
//! (`reference/`, with how it was produced): every line equal, as both
//! print them, six decimals.

use granule::prelude::*;
use granule_md::{run, Config};

/// The thermo lines of an ExaMiniMD output, without its timing columns.
fn thermo_lines(out: &str) -> Vec<String> {
    out.lines()
        .skip_while(|l| !l.starts_with("#Timestep"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn a_6_cubed_box_prints_the_originals_thermo_lines() {
    let want = thermo_lines(include_str!("../reference/lj-6.out"));
    assert_eq!(want.len(), 11);
    let cfg = Config {
        cells: 6,
        ..Config::default()
    };
    let got: Vec<String> = run(&Serial, &cfg)
        .unwrap()
        .thermo
        .iter()
        .map(|t| t.to_string())
        .collect();
    assert_eq!(got, want);
}

#[cfg(feature = "rayon")]
#[test]
fn an_8_cubed_box_on_rayon_prints_the_originals_thermo_lines() {
    let out = include_str!("../reference/lj-8.out");
    assert!(out.contains("Atoms: 2048 2048"));
    let want = thermo_lines(out);
    let cfg = Config {
        cells: 8,
        ..Config::default()
    };
    let space = granule::Rayon::new(2).unwrap();
    // The driver on the pool, as the binary runs it.
    let got: Vec<String> = space
        .install(|| run(&space, &cfg))
        .unwrap()
        .thermo
        .iter()
        .map(|t| t.to_string())
        .collect();
    assert_eq!(got, want);
}
