//! kokkos-tutorials `mpi_heat_conduction/no-mpi`: heat conduction in a
//! 3-D block, explicit time steps.
//!
//! Each step computes the change dT of every cell: an MDRange stencil for
//! the interior (the six neighbours' differences), and one 2-D MDRange
//! kernel per face of the block for the surface cells, which have fewer
//! neighbours, are heated from outside on the x = 0 face and radiate
//! (∝ T⁴) on every face they lie on. Each face kernel writes a face of dT
//! taken with `subview_mut` (two of the six are strided). Then T += dT,
//! and every `-I` steps a reduction gives the average temperature ⟨T⟩.
//!
//! Flags as in the original: `-X`, `-Y`, `-Z` cells per side (default
//! 16, 200 in the original), `-N` steps (default 40, 10000 in the
//! original), `-I` steps between reports (default 10, 100 in the
//! original). The constants are this port's own.
//!
//! It repeats the simulation with plain host loops when that is cheap
//! (up to 10^8 cell updates, or with `-check 1`), compares every cell and
//! exits non-zero on a mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
pub(crate) mod common;

use granule::prelude::*;

/// Diffusion per step (α·dt; stable below 1/6).
pub const ALPHA_DT: f64 = 0.1;
/// Heat received per step by a cell of the x = 0 face.
pub const Q_DT: f64 = 1.0;
/// Radiation per step and face: σ·dt, times T⁴.
pub const SIGMA_DT: f64 = 1.0e-4;

/// dT of an interior cell: all six neighbours exist.
#[kernel]
pub fn heat_inner([i, j, k]: [usize; 3], dt: &mut f64, t: &View3<f64>, alpha_dt: f64) {
    let c = t[[i, j, k]];
    let lap = (t[[i - 1, j, k]] - c)
        + (t[[i + 1, j, k]] - c)
        + (t[[i, j - 1, k]] - c)
        + (t[[i, j + 1, k]] - c)
        + (t[[i, j, k - 1]] - c)
        + (t[[i, j, k + 1]] - c);
    *dt = alpha_dt * lap;
}

/// dT of the cells of one face: `axis` is the face's normal and `at` its
/// coordinate along it; (a, b) are the other two coordinates in order.
/// A cell on an edge or corner lies on several faces: each face's kernel
/// writes it, with the same value, since the value counts every face.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn heat_surface(
    [a, b]: [usize; 2],
    dt: &mut f64,
    t: &View3<f64>,
    axis: usize,
    at: usize,
    alpha_dt: f64,
    q_dt: f64,
    sigma_dt: f64,
) {
    let (nx, ny, nz) = (t.extent(0), t.extent(1), t.extent(2));
    let mut i = a;
    let mut j = b;
    let mut k = at;
    if axis == 0 {
        i = at;
        j = a;
        k = b;
    } else if axis == 1 {
        i = a;
        j = at;
        k = b;
    }
    let c = t[[i, j, k]];
    let mut lap = 0.0;
    let mut faces = 0.0;
    if i > 0 {
        lap += t[[i - 1, j, k]] - c;
    } else {
        faces += 1.0;
    }
    if i + 1 < nx {
        lap += t[[i + 1, j, k]] - c;
    } else {
        faces += 1.0;
    }
    if j > 0 {
        lap += t[[i, j - 1, k]] - c;
    } else {
        faces += 1.0;
    }
    if j + 1 < ny {
        lap += t[[i, j + 1, k]] - c;
    } else {
        faces += 1.0;
    }
    if k > 0 {
        lap += t[[i, j, k - 1]] - c;
    } else {
        faces += 1.0;
    }
    if k + 1 < nz {
        lap += t[[i, j, k + 1]] - c;
    } else {
        faces += 1.0;
    }
    let heated = if i == 0 { q_dt } else { 0.0 };
    *dt = alpha_dt * lap + heated - sigma_dt * faces * (c * c) * (c * c);
}

/// T += dT.
#[kernel]
pub fn heat_update([i, j, k]: [usize; 3], t: &mut f64, dt: &View3<f64>) {
    *t += dt[[i, j, k]];
}

/// Σ T, for ⟨T⟩.
#[kernel(reduce)]
pub fn heat_total([i, j, k]: [usize; 3], t: &View3<f64>, acc: &mut f64) {
    *acc += t[[i, j, k]];
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
pub(crate) const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-X"], "16", "cells along x"),
    common::Flag::new(&["-Y"], "16", "cells along y"),
    common::Flag::new(&["-Z"], "16", "cells along z"),
    common::Flag::new(&["-N"], "40", "time steps"),
    common::Flag::new(&["-I"], "10", "steps between reports"),
    common::Flag::new(
        &["-check"],
        "0",
        "1: check on the host above 10^8 cell updates too",
    ),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[FLAGS]);
    let nx: usize = flags.value("-X");
    let ny: usize = flags.value("-Y");
    let nz: usize = flags.value("-Z");
    let steps: usize = flags.value("-N");
    let interval = flags.value::<usize>("-I").max(1);
    if nx.min(ny).min(nz) < 3 {
        return Err("-X, -Y and -Z must be at least 3".into());
    }
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));
    println!("  X = {nx} Y = {ny} Z = {nz} N = {steps} I = {interval}");
    let mut t = View3::zeros_on(&space, "T", [nx, ny, nz])?;
    let mut dt = View3::zeros_on(&space, "dT", [nx, ny, nz])?;
    let cells = (nx * ny * nz) as f64;

    let average = |t: &View3<f64, LayoutRight, DefaultMemorySpace>| -> f64 {
        let all = MDRangePolicy::new(&space, [0, 0, 0], [nx, ny, nz]);
        let total: f64 = parallel_reduce("heat <T>", all, Sum, heat_total(t));
        total / cells
    };

    let (r, time) = common::timed(&space, || -> Result<()> {
        for step in 0..steps {
            let inner = MDRangePolicy::new(&space, [1, 1, 1], [nx - 1, ny - 1, nz - 1]);
            parallel_for("heat inner", inner, &mut dt, heat_inner(&t, ALPHA_DT));
            for (axis, at) in [
                (0, 0),
                (0, nx - 1),
                (1, 0),
                (1, ny - 1),
                (2, 0),
                (2, nz - 1),
            ] {
                let surface = heat_surface(&t, axis, at, ALPHA_DT, Q_DT, SIGMA_DT);
                match axis {
                    0 => {
                        let mut face = dt.subview_mut((at, ALL, ALL))?;
                        let p = MDRangePolicy::new(&space, [0, 0], [ny, nz]);
                        parallel_for("heat surface x", p, &mut face, surface);
                    }
                    1 => {
                        let mut face = dt.subview_mut((ALL, at, ALL))?;
                        let p = MDRangePolicy::new(&space, [0, 0], [nx, nz]);
                        parallel_for("heat surface y", p, &mut face, surface);
                    }
                    _ => {
                        let mut face = dt.subview_mut((ALL, ALL, at))?;
                        let p = MDRangePolicy::new(&space, [0, 0], [nx, ny]);
                        parallel_for("heat surface z", p, &mut face, surface);
                    }
                }
            }
            let all = MDRangePolicy::new(&space, [0, 0, 0], [nx, ny, nz]);
            parallel_for("heat update", all, &mut t, heat_update(&dt));
            if step % interval == 0 || step + 1 == steps {
                println!(
                    "  Timestep ( {step} ) Time ( {:.6} ) Average Temperature ( {:.6} )",
                    step as f64 + 1.0,
                    average(&t)
                );
            }
        }
        Ok(())
    });
    r?;
    let updates = cells * steps as f64;
    println!(
        "  X( {nx} ) Y( {ny} ) Z( {nz} ) N( {steps} ) time( {} s ) rate( {} Gcell-updates/s )",
        common::g(time),
        common::g(1.0e-9 * updates / time)
    );

    let force: usize = flags.value("-check");
    if updates > 1.0e8 && force == 0 {
        println!("  not checked: above 10^8 cell updates (pass -check 1 to check on the host)");
        return Ok(());
    }
    let got = create_mirror_view_and_copy(&t)?.to_vec();
    let expect = host_reference(nx, ny, nz, steps);
    let mut worst = 0.0f64;
    for (g, e) in got.iter().zip(&expect) {
        worst = worst.max((g - e).abs() / e.abs().max(1.0));
    }
    println!(
        "  largest difference from the host loops: {}",
        common::g(worst)
    );
    // The same operations in the same order in each cell: only a compiler
    // that contracted a multiply-add could move a bit.
    if worst > 1e-12 {
        println!("  Error: T differs from the host loops");
        std::process::exit(1);
    }
    Ok(())
}

/// The simulation with plain loops over a Vec, row-major like T (also
/// the reference of `heat3d_mpi`, which includes this file).
pub fn host_reference(nx: usize, ny: usize, nz: usize, steps: usize) -> Vec<f64> {
    let at = |i: usize, j: usize, k: usize| (i * ny + j) * nz + k;
    let mut t = vec![0.0f64; nx * ny * nz];
    let mut d = vec![0.0f64; nx * ny * nz];
    for _ in 0..steps {
        for i in 0..nx {
            for j in 0..ny {
                for k in 0..nz {
                    let c = t[at(i, j, k)];
                    let mut lap = 0.0;
                    let mut faces = 0.0;
                    let neighbours = [
                        (i > 0).then(|| at(i.wrapping_sub(1), j, k)),
                        (i + 1 < nx).then(|| at(i + 1, j, k)),
                        (j > 0).then(|| at(i, j.wrapping_sub(1), k)),
                        (j + 1 < ny).then(|| at(i, j + 1, k)),
                        (k > 0).then(|| at(i, j, k.wrapping_sub(1))),
                        (k + 1 < nz).then(|| at(i, j, k + 1)),
                    ];
                    for n in neighbours {
                        match n {
                            Some(n) => lap += t[n] - c,
                            None => faces += 1.0,
                        }
                    }
                    d[at(i, j, k)] = if faces == 0.0 {
                        ALPHA_DT * lap
                    } else {
                        let heated = if i == 0 { Q_DT } else { 0.0 };
                        ALPHA_DT * lap + heated - SIGMA_DT * faces * (c * c) * (c * c)
                    };
                }
            }
        }
        for (t, d) in t.iter_mut().zip(&d) {
            *t += d;
        }
    }
    t
}
