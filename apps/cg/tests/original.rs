//! The solve against miniFE-Kokkos's own output on the same meshes
//! (`reference/`, with how it was produced): the same initial residual
//! and printed residual lines, as both print them (six significant
//! digits), down to the rounding floor; the iteration count; and
//! miniFE's check against the analytic solution.

use granule::prelude::*;
use granule_cg::print::g6;
use granule_cg::{run, verify, Config};

/// Below this residual the history is rounding: miniFE-Kokkos itself
/// prints different digits there at 1 and at 2 threads.
const FLOOR: f64 = 1e-10;

/// What miniFE printed for one mesh.
struct Printed {
    initial: String,
    lines: Vec<(usize, f64)>,
    iterations: usize,
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.trim().strip_prefix(key).map(str::trim)
}

fn printed(out: &str, yaml: &str) -> Printed {
    let initial = out
        .lines()
        .find_map(|l| field(l, "Initial Residual ="))
        .expect("miniFE prints the initial residual")
        .to_string();
    let lines = out
        .lines()
        .filter_map(|l| field(l, "Iteration ="))
        .map(|rest| {
            let (k, r) = rest.split_once("Residual =").expect("a residual line");
            (k.trim().parse().unwrap(), r.trim().parse().unwrap())
        })
        .collect();
    let iterations = yaml
        .lines()
        .find_map(|l| field(l, "Iterations:"))
        .expect("miniFE's report holds the iteration count")
        .parse()
        .unwrap();
    Printed {
        initial,
        lines,
        iterations,
    }
}

fn compare(space: &impl granule::algorithms::PortableAlgorithms, mesh: [usize; 3], p: Printed) {
    let cfg = Config {
        nx: mesh[0],
        ny: mesh[1],
        nz: mesh[2],
        ..Config::default()
    };
    let r = run(space, &cfg).unwrap();
    assert_eq!(
        g6(r.initial_residual),
        p.initial,
        "{mesh:?}: initial residual"
    );
    for &(k, want) in p.lines.iter().filter(|(_, r)| *r >= FLOOR) {
        let got = r.residuals[k - 1];
        assert_eq!(got.0, k);
        assert!(
            ((got.1 - want) / want).abs() < 1e-5,
            "{mesh:?}: iteration {k}: residual {} against miniFE's {want}",
            g6(got.1)
        );
    }
    // The run ends when the residual falls below ε, which rounding
    // decides: one iteration either way on the meshes whose last residual
    // above ε is within rounding of it.
    assert!(
        r.iterations.abs_diff(p.iterations) <= 1,
        "{mesh:?}: {} iterations against miniFE's {}",
        r.iterations,
        p.iterations
    );
    let v = verify(&cfg, &r.x);
    assert!(v.passed(), "{mesh:?}: {v:?}");
}

#[test]
fn the_4_6_and_8_cubed_meshes_solve_as_minife_does() {
    compare(
        &Serial,
        [4, 4, 4],
        printed(
            include_str!("../reference/minife-4x4x4.out"),
            include_str!("../reference/minife-4x4x4.yaml"),
        ),
    );
    compare(
        &Serial,
        [6, 6, 6],
        printed(
            include_str!("../reference/minife-6x6x6.out"),
            include_str!("../reference/minife-6x6x6.yaml"),
        ),
    );
    compare(
        &Serial,
        [8, 8, 8],
        printed(
            include_str!("../reference/minife-8x8x8.out"),
            include_str!("../reference/minife-8x8x8.yaml"),
        ),
    );
}

#[test]
fn a_mesh_of_unequal_sides_solves_as_minife_does() {
    compare(
        &Serial,
        [8, 6, 5],
        printed(
            include_str!("../reference/minife-8x6x5.out"),
            include_str!("../reference/minife-8x6x5.yaml"),
        ),
    );
}

#[cfg(feature = "rayon")]
#[test]
fn the_default_and_16_cubed_meshes_on_rayon_solve_as_minife_does() {
    let space = granule::Rayon::new(2).unwrap();
    compare(
        &space,
        [10, 10, 10],
        printed(
            include_str!("../reference/minife-10x10x10.out"),
            include_str!("../reference/minife-10x10x10.yaml"),
        ),
    );
    compare(
        &space,
        [16, 16, 16],
        printed(
            include_str!("../reference/minife-16x16x16.out"),
            include_str!("../reference/minife-16x16x16.yaml"),
        ),
    );
}
