//! kokkos-tutorials `dualview`: the state of an ideal gas, temperature T
//! and density ρ per cell, lives in DualViews. The host sets it, the
//! device computes pressure, internal energy and enthalpy, the host heats
//! some cells and the device recomputes; every hand-over is a
//! modify/sync pair, and a sync copies only when the other side changed
//! (never on a host space, whose two sides are one allocation).
//!
//! Flags: `-n` cells (default 10000), `-steps` heating steps (default 4).
//!
//! The results are checked on the host against the same formulas, and
//! the number of copies against what the modify/sync pattern needs; it
//! exits non-zero on a mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::containers::DualView;
use granule::prelude::*;
use granule::profiling::{self, DeepCopyInfo, ProfilingHooks};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Specific gas constant of dry air, J/(kg·K).
#[device]
const R_AIR: f64 = 287.05;
/// Specific heat at constant volume of dry air, J/(kg·K).
#[device]
const CV_AIR: f64 = 717.6;

/// p = ρ·R·T, e = cv·T, h = e + p/ρ, per cell.
#[kernel]
pub fn gas_state(
    i: usize,
    p: &mut f64,
    e: &mut f64,
    h: &mut f64,
    t: &View1<f64>,
    rho: &View1<f64>,
) {
    let pressure = rho[i] * R_AIR * t[i];
    let energy = CV_AIR * t[i];
    *p = pressure;
    *e = energy;
    *h = energy + pressure / rho[i];
}

/// Counts the copies the DualViews report.
#[derive(Default)]
struct Copies(AtomicUsize);

impl ProfilingHooks for Copies {
    fn begin_deep_copy(&self, _c: &DeepCopyInfo<'_>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;
type Field<M> = DualView<f64, 1, LayoutRight, M>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-n"], "10000", "elements"),
    common::Flag::new(&["-steps"], "4", "steps"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[FLAGS]);
    let n: usize = flags.value("-n");
    let steps: usize = flags.value("-steps");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));
    let copies = Arc::new(Copies::default());
    let hooks = profiling::register(copies.clone());

    let mut t = Field::zeros_on(&space, "T", n)?;
    let mut rho = Field::zeros_on(&space, "rho", n)?;
    let mut p = Field::zeros_on(&space, "pressure", n)?;
    let mut e = Field::zeros_on(&space, "energy", n)?;
    let mut h = Field::zeros_on(&space, "enthalpy", n)?;
    let separate = !t.is_same_allocation();

    // The initial state, set on the host: writing marks the host side.
    t.view_host_mut()?
        .for_each_mut(|[i], x| *x = 250.0 + (i % 100) as f64);
    rho.view_host_mut()?
        .for_each_mut(|[i], x| *x = 0.8 + 0.001 * (i % 400) as f64);

    let mut errors = 0;
    for step in 0..=steps {
        // Hand the state to the device, compute there, bring the results back.
        t.sync_device()?;
        rho.sync_device()?;
        parallel_for(
            "gas_state",
            RangePolicy::new(&space, 0..n),
            (
                p.view_device_mut()?,
                e.view_device_mut()?,
                h.view_device_mut()?,
            ),
            gas_state(t.view_device(), rho.view_device()),
        );
        p.sync_host()?;
        e.sync_host()?;
        h.sync_host()?;
        errors += check(&t, &rho, &p, &e, &h);

        // Heat every 7th cell by 10 K on the host; the density is untouched,
        // so only T crosses to the device next time.
        t.sync_host()?;
        t.view_host_mut()?.for_each_mut(|[i], x| {
            if i % 7 == step % 7 {
                *x += 10.0;
            }
        });
        println!(
            "step {step}: mean pressure {} Pa, mean enthalpy {} J/kg",
            common::g(mean(p.view_host())),
            common::g(mean(h.view_host()))
        );
    }
    profiling::unregister(hooks);
    // T and ρ go to the device once, T again after each heating but the
    // last, and the three results come back after every step.
    let expected_copies = if separate {
        2 + steps + 3 * (steps + 1)
    } else {
        0
    };
    let made = copies.0.load(Ordering::Relaxed);
    println!("copies between host and device: {made} (expected {expected_copies})");
    if made != expected_copies {
        println!("  Error: the syncs made {made} copies, the modify/sync pattern needs {expected_copies}");
        errors += 1;
    }
    if errors > 0 {
        std::process::exit(1);
    }
    println!("All values checked and verified.");
    Ok(())
}

/// Compares the device's results with the formulas evaluated on the host;
/// returns the number of wrong cells.
fn check<M: MemorySpace>(
    t: &Field<M>,
    rho: &Field<M>,
    p: &Field<M>,
    e: &Field<M>,
    h: &Field<M>,
) -> usize {
    let (t, rho) = (t.view_host(), rho.view_host());
    let (p, e, h) = (p.view_host(), e.view_host(), h.view_host());
    let close = |got: f64, want: f64| (got - want).abs() <= 1e-12 * want.abs();
    let mut wrong = 0;
    for i in 0..t.extent(0) {
        let want_p = rho[i] * R_AIR * t[i];
        let want_e = CV_AIR * t[i];
        let want_h = want_e + want_p / rho[i];
        if !(close(p[i], want_p) && close(e[i], want_e) && close(h[i], want_h)) {
            if wrong < 5 {
                println!(
                    "  Error at cell {i}: p {} e {} h {}, expected {want_p} {want_e} {want_h}",
                    p[i], e[i], h[i]
                );
            }
            wrong += 1;
        }
    }
    wrong
}

fn mean(v: &View1<f64>) -> f64 {
    v.to_vec().iter().sum::<f64>() / v.size() as f64
}
