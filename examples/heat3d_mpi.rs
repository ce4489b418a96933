//! kokkos-tutorials `mpi_heat_conduction`: the 3-D heat equation of
//! `tutorial_heat3d`, with the block cut over the ranks of an MPI job.
//!
//! Each rank owns a block of the grid (granule-mpi's `Halo` picks the most
//! cube-like cut, or `-PX -PY -PZ` blocks per axis) plus one ghost layer
//! on each side where a neighbour lies. A step:
//! 1. sends its boundary faces to the neighbours and, while they travel,
//!    computes dT of the cells that read no ghost (the "deep" interior);
//! 2. computes dT of the cells beside the ghosts (the "shell"), with the
//!    same interior kernel, and of the grid's surface cells, with the same
//!    surface kernel as the single-process port (whose kernels, constants
//!    and host reference this example includes, not copies);
//! 3. T += dT on the owned cells;
//! 4. every `-I` steps, ⟨T⟩: an MDRange reduce per rank joined by
//!    `all_reduce`.
//!
//! Rank 0 prints the original's lines, `t T=avg Time (total per-step)`,
//! and at the end the time per step in the stencil, the exchange (its own
//! cost: packing, waiting after the overlapped work, unpacking) and the
//! reduction, the slowest rank's.
//!
//! Check: rank 0 gathers every block and compares each cell with the
//! single-process host loops. Each cell's dT is the same expression of the
//! same neighbours in any decomposition, so the field equals the 1-rank
//! field bit for bit (the tolerance is 1e-12 relative, as in
//! `tutorial_heat3d`, only to allow a compiler's fused multiply-add); ⟨T⟩
//! sums the cells in another order per decomposition, so it agrees to
//! 1e-12 relative, not bitwise. Flags: `-X -Y -Z -N -I` as in
//! `tutorial_heat3d`, `-check 1` to check above 10^8 cell updates.

#[allow(dead_code)]
#[path = "tutorial_heat3d.rs"]
mod heat;

use granule::mpi::mpi::topology::SimpleCommunicator;
use granule::mpi::mpi::traits::*;
use granule::mpi::{all_reduce, receive_into, send, Decomposition, Halo};
use granule::prelude::*;
use heat::{common, heat_inner, heat_surface, heat_total, heat_update, ALPHA_DT, Q_DT, SIGMA_DT};
use std::ops::Range;
use std::time::Instant;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;
type Field = View3<f64, LayoutRight, DefaultMemorySpace>;

/// Seconds spent per part, summed over the steps.
#[derive(Default)]
struct Times {
    stencil: f64,
    exchange: f64,
    reduce: f64,
    /// The exchange's parts (`HaloTimes`): packing, waiting, unpacking.
    pack: f64,
    wait: f64,
    unpack: f64,
}

/// The flags of the distributed run, beside the single-rank example's.
const FLAGS: &[common::Flag] = &[
    common::Flag::new(
        &["-PX"],
        "1",
        "ranks along x; with -PY and -PZ, only when -PX is given (else MPI chooses)",
    ),
    common::Flag::new(&["-PY"], "1", "ranks along y"),
    common::Flag::new(&["-PZ"], "1", "ranks along z"),
];

fn main() {
    // Before MPI starts, so that `--help` and a wrong flag end the
    // process without a job to abort.
    let flags = common::Flags::parse(&[heat::FLAGS, FLAGS]);
    granule::mpi::run(|world| simulate(world, &flags).map_err(|e| e.to_string()));
}

fn simulate(world: &SimpleCommunicator, flags: &common::Flags) -> Result<()> {
    let global = [
        flags.value::<usize>("-X"),
        flags.value::<usize>("-Y"),
        flags.value::<usize>("-Z"),
    ];
    let steps: usize = flags.value("-N");
    let interval = flags.value::<usize>("-I").max(1);
    if global.iter().any(|&n| n < 3) {
        return Err("-X, -Y and -Z must be at least 3".into());
    }
    let dims = flags.text("-PX").map(|_| {
        [
            flags.value::<usize>("-PX"),
            flags.value::<usize>("-PY"),
            flags.value::<usize>("-PZ"),
        ]
    });
    let halo = Halo::new(world, global, dims)?;
    let d = halo.decomposition().clone();
    let root = world.rank() == 0;
    let space = DefaultExecutionSpace::default();
    if root {
        println!(
            "  on {} per rank, {} rank(s)",
            common::describe(&space),
            world.size()
        );
        println!(
            "  X = {} Y = {} Z = {} N = {steps} I = {interval}, blocks {:?} of about {:?} cells",
            global[0], global[1], global[2], d.dims, d.owned
        );
    }
    let ext = d.local_extents();
    let mut t: Field = View3::zeros_on(&space, "T", ext)?;
    let mut dt: Field = View3::zeros_on(&space, "dT", ext)?;
    let cells = global.iter().product::<usize>() as f64;
    let own: [Range<usize>; 3] = std::array::from_fn(|a| d.owned_range(a));
    let mut times = Times::default();

    world.barrier();
    let start = Instant::now();
    for step in 0..steps {
        let s0 = Instant::now();
        let (deep, exchanged) = halo.exchange(&space, &mut t, |t| {
            let s = Instant::now();
            let (lo, hi) = deep_interior(&d);
            if let Some(p) = policy(&space, lo, hi) {
                parallel_for("heat inner", p, &mut dt, heat_inner(t, ALPHA_DT));
            }
            space.fence();
            s.elapsed().as_secs_f64()
        })?;
        let s1 = Instant::now();
        shell(&space, &d, &t, &mut dt);
        surfaces(&space, &d, &t, &mut dt)?;
        let all = MDRangePolicy::new(
            &space,
            own.clone().map(|r| r.start),
            own.clone().map(|r| r.end),
        );
        parallel_for("heat update", all, &mut t, heat_update(&dt));
        space.fence();
        let after = s1.elapsed().as_secs_f64();
        times.stencil += deep + after;
        times.exchange += s1.duration_since(s0).as_secs_f64() - deep;
        times.pack += exchanged.pack;
        times.wait += exchanged.wait;
        times.unpack += exchanged.unpack;

        if step % interval == 0 || step + 1 == steps {
            let r = Instant::now();
            let average = average(world, &space, &d, &t, cells);
            times.reduce += r.elapsed().as_secs_f64();
            if root {
                let total = start.elapsed().as_secs_f64();
                println!(
                    "{step} T={average:.6} Time ({} {})",
                    common::g(total),
                    common::g(total / (step + 1) as f64)
                );
            }
        }
    }
    world.barrier();
    let time = start.elapsed().as_secs_f64();
    let per = |x: f64| all_reduce(world, &Max, x) / steps as f64;
    let (stencil, exchange, reduce) = (per(times.stencil), per(times.exchange), per(times.reduce));
    let (pack, wait, unpack) = (per(times.pack), per(times.wait), per(times.unpack));
    let updates = cells * steps as f64;
    if root {
        println!(
            "  X( {} ) Y( {} ) Z( {} ) N( {steps} ) ranks( {} ) time( {} s ) rate( {} Gcell-updates/s )",
            global[0],
            global[1],
            global[2],
            world.size(),
            common::g(time),
            common::g(1.0e-9 * updates / time)
        );
        println!(
            "  per step (slowest rank): stencil {} s, exchange {} s (pack {}, wait {}, unpack {}), reduce {} s",
            common::g(stencil),
            common::g(exchange),
            common::g(pack),
            common::g(wait),
            common::g(unpack),
            common::g(reduce)
        );
    }

    let force: usize = flags.value("-check");
    if updates > 1.0e8 && force == 0 {
        if root {
            println!("  not checked: above 10^8 cell updates (pass -check 1 to check on the host)");
        }
        return Ok(());
    }
    let final_average = average(world, &space, &d, &t, cells);
    let gathered = gather(world, &space, &d, &t)?;
    if root {
        check(
            global,
            steps,
            &gathered.expect("rank 0 gathers"),
            final_average,
        )?;
    }
    Ok(())
}

/// The cells that read no ghost: the interior [1, ext - 1), one more
/// cell in from each side that has a neighbour.
fn deep_interior(d: &Decomposition) -> ([usize; 3], [usize; 3]) {
    let ext = d.local_extents();
    let lo = std::array::from_fn(|a| 1 + d.has_neighbour(a, 0) as usize);
    let hi = std::array::from_fn(|a| ext[a] - 1 - d.has_neighbour(a, 1) as usize);
    (lo, hi)
}

/// An MDRange over [lo, hi), or None when it is empty.
fn policy<'s>(
    space: &'s DefaultExecutionSpace,
    lo: [usize; 3],
    hi: [usize; 3],
) -> Option<MDRangePolicy<'s, DefaultExecutionSpace, 3>> {
    (0..3)
        .all(|a| lo[a] < hi[a])
        .then(|| MDRangePolicy::new(space, lo, hi))
}

/// dT of the interior cells beside a ghost layer: one slab per side that
/// has a neighbour (cells on two slabs are computed twice, the same way).
fn shell(space: &DefaultExecutionSpace, d: &Decomposition, t: &Field, dt: &mut Field) {
    let ext = d.local_extents();
    for axis in 0..3 {
        for side in 0..2 {
            if !d.has_neighbour(axis, side) {
                continue;
            }
            let mut lo = [1; 3];
            let mut hi = ext.map(|e| e - 1);
            if side == 0 {
                hi[axis] = hi[axis].min(2);
            } else {
                lo[axis] = lo[axis].max(ext[axis] - 2);
            }
            if let Some(p) = policy(space, lo, hi) {
                parallel_for("heat shell", p, &mut *dt, heat_inner(t, ALPHA_DT));
            }
        }
    }
}

/// dT of the cells on the grid's surface that this rank owns: one 2-D
/// kernel per face of the grid that bounds the block (no neighbour there).
fn surfaces(
    space: &DefaultExecutionSpace,
    d: &Decomposition,
    t: &Field,
    dt: &mut Field,
) -> Result<()> {
    for (axis, extent) in d.local_extents().into_iter().enumerate() {
        for side in 0..2 {
            if d.has_neighbour(axis, side) {
                continue;
            }
            let at = if side == 0 { 0 } else { extent - 1 };
            let surface = heat_surface(t, axis, at, ALPHA_DT, Q_DT, SIGMA_DT);
            let (a, b) = match axis {
                0 => (1, 2),
                1 => (0, 2),
                _ => (0, 1),
            };
            let (ra, rb) = (d.owned_range(a), d.owned_range(b));
            let p = MDRangePolicy::new(space, [ra.start, rb.start], [ra.end, rb.end]);
            match axis {
                0 => parallel_for(
                    "heat surface x",
                    p,
                    &mut dt.subview_mut((at, ALL, ALL))?,
                    surface,
                ),
                1 => parallel_for(
                    "heat surface y",
                    p,
                    &mut dt.subview_mut((ALL, at, ALL))?,
                    surface,
                ),
                _ => parallel_for(
                    "heat surface z",
                    p,
                    &mut dt.subview_mut((ALL, ALL, at))?,
                    surface,
                ),
            }
        }
    }
    Ok(())
}

/// ⟨T⟩ over the whole grid: each rank's sum of its owned cells, joined.
fn average(
    world: &SimpleCommunicator,
    space: &DefaultExecutionSpace,
    d: &Decomposition,
    t: &Field,
    cells: f64,
) -> f64 {
    let own: [Range<usize>; 3] = std::array::from_fn(|a| d.owned_range(a));
    let p = MDRangePolicy::new(space, own.clone().map(|r| r.start), own.map(|r| r.end));
    let local: f64 = parallel_reduce("heat <T>", p, Sum, heat_total(t));
    all_reduce(world, &Sum, local) / cells
}

/// Rank 0 receives every rank's owned block (a strided subview of its
/// field, on its memory space, packed there by a kernel on `space`) and
/// assembles the global field on the host.
fn gather(
    world: &SimpleCommunicator,
    space: &DefaultExecutionSpace,
    d: &Decomposition,
    t: &Field,
) -> Result<Option<View3<f64>>> {
    let own: [Range<usize>; 3] = std::array::from_fn(|a| d.owned_range(a));
    let block = t.subview((own[0].clone(), own[1].clone(), own[2].clone()))?;
    let shape: Vec<u64> = d.offset.iter().chain(&d.owned).map(|&n| n as u64).collect();
    if world.rank() != 0 {
        world.process_at_rank(0).send_with_tag(&shape[..], 1);
        send(space, &world.process_at_rank(0), 2, &block)?;
        return Ok(None);
    }
    let mut whole = View3::<f64>::zeros("T (all ranks)", d.global)?;
    let mut mine = View3::<f64>::zeros("T block", d.owned)?;
    deep_copy(&mut mine, &block)?;
    place(&mut whole, &shape, &mine)?;
    for r in 1..world.size() {
        let from = world.process_at_rank(r);
        let mut shape = vec![0u64; 6];
        from.receive_into_with_tag(&mut shape[..], 1);
        let owned = [shape[3], shape[4], shape[5]].map(|n| n as usize);
        let mut theirs = View3::<f64>::zeros("T block", owned)?;
        // A host View: received straight into its memory.
        receive_into(&Serial, &from, 2, &mut theirs)?;
        place(&mut whole, &shape, &theirs)?;
    }
    Ok(Some(whole))
}

/// Copies a block into the global field at its offset.
fn place(whole: &mut View3<f64>, shape: &[u64], block: &View3<f64>) -> Result<()> {
    let at = |a: usize| shape[a] as usize..(shape[a] + shape[a + 3]) as usize;
    deep_copy(&mut whole.subview_mut((at(0), at(1), at(2)))?, block)?;
    Ok(())
}

/// Compares the gathered field and ⟨T⟩ with the single-process host loops.
fn check(global: [usize; 3], steps: usize, got: &View3<f64>, average: f64) -> Result<()> {
    let expect = heat::host_reference(global[0], global[1], global[2], steps);
    let got = got.to_vec();
    let mut worst = 0.0f64;
    let mut differing = 0usize;
    for (g, e) in got.iter().zip(&expect) {
        worst = worst.max((g - e).abs() / e.abs().max(1.0));
        differing += (g != e) as usize;
    }
    let reference_average = expect.iter().sum::<f64>() / expect.len() as f64;
    let average_error = (average - reference_average).abs() / reference_average.abs().max(1.0);
    println!(
        "  largest difference from the 1-rank host loops: {} ({differing} cells not bitwise equal); <T> {}",
        common::g(worst),
        common::g(average_error)
    );
    if worst > 1e-12 || average_error > 1e-12 {
        return Err("T differs from the single-process result".into());
    }
    Ok(())
}
