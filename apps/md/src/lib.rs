//! `md`: ExaMiniMD's Lennard-Jones molecular dynamics (its `in.lj`
//! problem) written once with granule and run on any space.
//!
//! [`run`] is generic over the execution space (`S: PortableAlgorithms`):
//! the same driver runs on Serial, Rayon and Cuda. Each step is velocity
//! Verlet (NVE); every `rebuild` steps the atoms are wrapped into the box,
//! sorted by bin ([`BinSort`]) and their full neighbour list rebuilt: one
//! search into a row per atom (ExaMiniMD's `Neighbor2D`), then the rows
//! packed into one list by an exclusive scan of their counts and a
//! segment per atom;
//! every `thermo` steps the temperature, potential and total energy per
//! atom are reduced.
//!
//! ```
//! use granule_md::{run, Config};
//! let cfg = Config { cells: 6, steps: 10, thermo: 5, ..Config::default() };
//! let report = run(&granule::prelude::Serial, &cfg).unwrap();
//! assert_eq!(report.atoms, 864);
//! assert_eq!(report.thermo.len(), 3);
//! assert_eq!(format!("{:.6}", report.thermo[0].temperature), "1.400000");
//! ```

pub mod init;
pub mod kernels;

use granule::algorithms::sort::{BinOp3D, BinSort};
use granule::algorithms::{AlgorithmError, PortableAlgorithms};
use granule::base::SegmentError;
use granule::portable::{parallel_for, parallel_reduce};
use granule::prelude::*;
use kernels::*;
use std::fmt;
use std::time::{Duration, Instant};

/// The problem: ExaMiniMD's `in.lj` with the box size a flag.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Unit cells per box edge (the box holds `4 cells³` atoms).
    pub cells: usize,
    /// Time steps.
    pub steps: usize,
    /// Steps between thermo outputs (step 0 is always reported).
    pub thermo: usize,
    /// Steps between neighbour list rebuilds.
    pub rebuild: usize,
    /// Reduced density of the FCC lattice.
    pub density: f64,
    /// Initial temperature.
    pub temperature: f64,
    /// The velocity generator's seed.
    pub seed: i32,
    /// Atom mass.
    pub mass: f64,
    /// Pair cutoff.
    pub cutoff: f64,
    /// Neighbour skin beyond the cutoff.
    pub skin: f64,
    /// Time step.
    pub dt: f64,
    /// Fence after each phase so that the phase timers measure it (free on
    /// the host spaces; on Cuda each fence is a host synchronization).
    pub phase_timers: bool,
}

impl Default for Config {
    /// `in.lj`: 40³ cells, 100 steps, thermo every 10, rebuild every 20.
    fn default() -> Self {
        Config {
            cells: 40,
            steps: 100,
            thermo: 10,
            rebuild: 20,
            density: 0.8442,
            temperature: 1.4,
            seed: 87287,
            mass: 2.0,
            cutoff: 2.5,
            skin: 0.3,
            dt: 0.005,
            phase_timers: true,
        }
    }
}

/// One thermo output: per-atom energies, as ExaMiniMD prints them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thermo {
    /// The time step it follows (0: the initial state).
    pub step: usize,
    /// `Σ m v² / (3N - 3)`.
    pub temperature: f64,
    /// Potential energy per atom.
    pub potential: f64,
    /// Potential plus kinetic energy per atom.
    pub total: f64,
}

impl fmt::Display for Thermo {
    /// `step T PE E` with six decimals, the original's columns.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:.6} {:.6} {:.6}",
            self.step, self.temperature, self.potential, self.total
        )
    }
}

/// Wall time per phase (each phase ends with a fence when
/// [`Config::phase_timers`] is on).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timings {
    /// Force kernels.
    pub force: Duration,
    /// Wrapping, bin sort and neighbour list builds.
    pub neighbor: Duration,
    /// The two integration half steps.
    pub integrate: Duration,
    /// Thermo reductions.
    pub thermo: Duration,
    /// The time-step loop, start to end.
    pub total: Duration,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Atoms in the box.
    pub atoms: usize,
    /// Step 0's thermo output, then every `thermo` steps'.
    pub thermo: Vec<Thermo>,
    /// Wall time per phase.
    pub timings: Timings,
}

impl Report {
    /// Atom-steps per second of the time-step loop.
    pub fn atom_steps_per_second(&self, steps: usize) -> f64 {
        (self.atoms * steps) as f64 / self.timings.total.as_secs_f64()
    }
}

/// Why a run stopped.
#[derive(Debug)]
pub enum MdError {
    /// The box is too small for the neighbour search.
    Config(String),
    /// A View could not be made or copied.
    View(ViewError),
    /// The bin sort or the scan refused its input.
    Algorithm(AlgorithmError),
    /// The neighbour offsets were not a valid partition of the list.
    Segment(SegmentError),
}

impl fmt::Display for MdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MdError::Config(m) => write!(f, "md: {m}"),
            MdError::View(e) => write!(f, "md: {e}"),
            MdError::Algorithm(e) => write!(f, "md: {e}"),
            MdError::Segment(e) => write!(f, "md: {e}"),
        }
    }
}

impl std::error::Error for MdError {}

impl From<ViewError> for MdError {
    fn from(e: ViewError) -> Self {
        MdError::View(e)
    }
}
impl From<SegmentError> for MdError {
    fn from(e: SegmentError) -> Self {
        MdError::Segment(e)
    }
}
impl From<AlgorithmError> for MdError {
    fn from(e: AlgorithmError) -> Self {
        MdError::Algorithm(e)
    }
}

/// The Lennard-Jones constants of ε = σ = 1 and the squared cutoffs.
#[derive(Clone, Copy)]
struct Pair {
    lj1: f64,
    lj2: f64,
    cutsq: f64,
    reach: f64,
}

/// The atoms' state on the space and the neighbour list.
struct State<M: MemorySpace> {
    x: View<f64, 2, LayoutRight, M>,
    v: View<f64, 2, LayoutRight, M>,
    f: View<f64, 2, LayoutRight, M>,
    counts: View<usize, 1, LayoutRight, M>,
    rows: View<u32, 2, LayoutRight, M>,
    offsets: View<usize, 1, LayoutRight, M>,
    list: View<u32, 1, LayoutRight, M>,
}

/// Runs `cfg` on `space` and returns its thermo outputs and timings.
///
/// # Errors
/// [`MdError::Config`] when the box is under three neighbour bins across
/// (the search over 27 bins would meet an atom twice), and the View and
/// algorithm errors of the steps.
pub fn run<S: PortableAlgorithms>(space: &S, cfg: &Config) -> Result<Report, MdError> {
    let start = init::initial(cfg);
    let n = start.x.len() / 3;
    let l = start.box_len;
    let reach = cfg.cutoff + cfg.skin;
    let nb = (l / reach) as usize;
    if nb < 3 {
        return Err(MdError::Config(format!(
            "a box of {} cells ({l:.3} long) is under three neighbour bins of {reach} across; give at least {} cells",
            cfg.cells,
            (3.0 * reach / init::lattice_constant(cfg.density)).ceil()
        )));
    }
    let pair = Pair {
        lj1: 48.0,
        lj2: 24.0,
        cutsq: cfg.cutoff * cfg.cutoff,
        reach: reach * reach,
    };
    let mut st = State {
        x: View2::from_vec_on(space, "x", [n, 3], start.x)?,
        v: View2::from_vec_on(space, "v", [n, 3], start.v)?,
        f: View2::zeros_on(space, "f", [n, 3])?,
        counts: View1::zeros_on(space, "neighbor_counts", n + 1)?,
        rows: View2::zeros_on(space, "neighbor_rows", [n, FIRST_WIDTH])?,
        offsets: View1::zeros_on(space, "neighbor_offsets", n + 1)?,
        list: View1::zeros_on(space, "neighbors", 0)?,
    };
    let mut times = Timings::default();
    let phase = |t: &mut Duration, at: Instant| {
        if cfg.phase_timers {
            space.fence();
        }
        *t += at.elapsed();
    };
    let dtfm = 0.5 * cfg.dt / cfg.mass;

    let t = Instant::now();
    rebuild(space, &mut st, l, nb as u32, pair)?;
    phase(&mut times.neighbor, t);
    let t = Instant::now();
    force(space, &mut st, l, pair);
    phase(&mut times.force, t);
    let mut thermo = vec![measure(space, &st, 0, l, pair, cfg.mass)];

    let loop_start = Instant::now();
    for step in 1..=cfg.steps {
        let t = Instant::now();
        parallel_for(
            "md::initial_integrate",
            RangePolicy::new(space, 0..n),
            (&mut st.x, &mut st.v),
            initial_integrate(&st.f, dtfm, cfg.dt),
        );
        phase(&mut times.integrate, t);
        if step % cfg.rebuild == 0 {
            let t = Instant::now();
            rebuild(space, &mut st, l, nb as u32, pair)?;
            phase(&mut times.neighbor, t);
        }
        let t = Instant::now();
        force(space, &mut st, l, pair);
        phase(&mut times.force, t);
        let t = Instant::now();
        parallel_for(
            "md::final_integrate",
            RangePolicy::new(space, 0..n),
            &mut st.v,
            final_integrate(&st.f, dtfm),
        );
        phase(&mut times.integrate, t);
        if step % cfg.thermo == 0 {
            let t = Instant::now();
            thermo.push(measure(space, &st, step, l, pair, cfg.mass));
            phase(&mut times.thermo, t);
        }
    }
    space.fence();
    times.total = loop_start.elapsed();
    Ok(Report {
        atoms: n,
        thermo,
        timings: times,
    })
}

/// The neighbour list's first width: a little over the ~78 neighbours an
/// atom of in.lj has within the cutoff plus skin.
const FIRST_WIDTH: usize = 96;

/// Wraps the atoms into the box, sorts them by bin, and rebuilds the
/// full neighbour list within the cutoff plus skin (searching again,
/// wider, when an atom had more neighbours than its row holds).
fn rebuild<S: PortableAlgorithms>(
    space: &S,
    st: &mut State<S::MemorySpace>,
    l: f64,
    nb: u32,
    pair: Pair,
) -> Result<(), MdError> {
    let n = st.x.extent(0);
    parallel_for(
        "md::wrap",
        RangePolicy::new(space, 0..n),
        &mut st.x,
        wrap(l),
    );
    let bins = BinSort::new(
        space,
        &st.x,
        &BinOp3D::new([nb as usize; 3], [0.0; 3], [l; 3])?,
    )?;
    bins.sort(&mut st.x)?;
    bins.sort(&mut st.v)?;
    let scale = nb as f64 / l;
    let (start, count) = (bins.bin_offsets(), bins.bin_count());
    loop {
        parallel_for(
            "md::find_neighbors",
            RangePolicy::new(space, 0..n),
            (&mut st.rows, &mut st.counts),
            find_neighbors(&st.x, start, count, nb, scale, l, pair.reach),
        );
        let most: usize = parallel_reduce(
            "md::most_neighbors",
            RangePolicy::new(space, 0..n),
            Max,
            largest(&st.counts),
        );
        if most <= st.rows.extent(1) {
            break;
        }
        // Room to grow, so that later rebuilds rarely search twice.
        st.rows.realloc([n, most + most / 8])?;
    }
    // The rows packed into one list (the force loops read it faster:
    // one index check per neighbour, no padding to stream past).
    let total = exclusive_scan(space, &st.counts, &mut st.offsets, Sum, None)?;
    if total > st.list.size() {
        st.list.realloc(total + total / 8)?;
    }
    let offsets = Offsets::new(&st.offsets)?;
    parallel_for(
        "md::pack_neighbors",
        RangePolicy::new(space, 0..n),
        offsets.segments(&mut st.list)?,
        pack_row(&st.rows),
    );
    Ok(())
}

fn force<S: PortableAlgorithms>(space: &S, st: &mut State<S::MemorySpace>, l: f64, p: Pair) {
    let n = st.x.extent(0);
    parallel_for(
        "md::force",
        RangePolicy::new(space, 0..n),
        &mut st.f,
        lj_force(&st.x, &st.offsets, &st.list, l, p.cutsq, p.lj1, p.lj2),
    );
}

/// The thermo output of `step`: one reduction, whose result is the
/// run's only read back to the host between rebuilds.
fn measure<S: PortableAlgorithms>(
    space: &S,
    st: &State<S::MemorySpace>,
    step: usize,
    l: f64,
    p: Pair,
    mass: f64,
) -> Thermo {
    let n = st.x.extent(0);
    let (mv2, pe): (f64, f64) = parallel_reduce(
        "md::thermo",
        RangePolicy::new(space, 0..n),
        (Sum, Sum),
        thermo_terms(
            &st.x,
            &st.v,
            &st.offsets,
            &st.list,
            l,
            p.cutsq,
            p.lj1,
            p.lj2,
            mass,
        ),
    );
    let potential = pe / n as f64;
    Thermo {
        step,
        temperature: init::temperature_of(mv2, n),
        potential,
        total: potential + 0.5 * mv2 / n as f64,
    }
}
