//! `cg`: miniFE's finite-element problem written once with granule and
//! run on any space.
//!
//! The steady heat equation on the unit cube, meshed by `nx × ny × nz`
//! hex8 elements: [`run`] builds the CRS structure (27 entries in an
//! interior row), assembles the element operators into it, imposes
//! miniFE's Dirichlet conditions (1 on the face x = 1, 0 on the others)
//! and solves by conjugate gradients with miniFE's iteration cap and
//! tolerance. [`verify`] compares the solution with the analytic one
//! near the cube's centre, as miniFE does.
//!
//! [`run`] is generic over the execution space (`S: PortableAlgorithms`):
//! the same driver runs on Serial, Rayon and Cuda.
//!
//! ```
//! use granule_cg::{run, verify, Config};
//! let cfg = Config { nx: 6, ny: 6, nz: 6, ..Config::default() };
//! let report = run(&granule::prelude::Serial, &cfg).unwrap();
//! assert_eq!(report.rows, 343);
//! assert_eq!(report.iterations, 18);
//! assert!(verify(&cfg, &report.x).passed());
//! ```

pub mod analytic;
pub mod hex8;
pub mod kernels;
pub mod print;

pub use analytic::{verify, Verification};

use granule::algorithms::sparse::{spmv, CrsMatrix};
use granule::algorithms::{AlgorithmError, PortableAlgorithms};
use granule::base::SegmentError;
use granule::portable::{parallel_for, parallel_reduce};
use granule::prelude::*;
use kernels::*;
use std::fmt;
use std::time::{Duration, Instant};

/// The problem: miniFE's, with its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Elements along x.
    pub nx: usize,
    /// Elements along y.
    pub ny: usize,
    /// Elements along z.
    pub nz: usize,
    /// The CG iteration cap.
    pub max_iters: usize,
    /// The CG tolerance on the residual's norm (miniFE: machine epsilon,
    /// so that a run takes all `max_iters` iterations).
    pub tolerance: f64,
    /// Fence after each CG kernel so that the kernel timers measure it,
    /// as miniFE does (free on the host spaces; on Cuda each fence is a
    /// host synchronization, where the dot products' results are the
    /// only ones CG needs).
    pub kernel_timers: bool,
    /// After the solve, time a kernel that only reads the matrix's values
    /// and columns (no gather of `x`): a same-run reference for the SpMV,
    /// not a bound (a read written for the bandwidth goes faster, see
    /// the `sparse` bench of granule-bench).
    pub stream_matrix: bool,
}

impl Default for Config {
    /// miniFE's defaults: a 10³ mesh, 200 iterations, tolerance ε.
    fn default() -> Self {
        Config {
            nx: 10,
            ny: 10,
            nz: 10,
            max_iters: 200,
            tolerance: f64::EPSILON,
            kernel_timers: true,
            stream_matrix: false,
        }
    }
}

impl Config {
    /// Rows of the system: one per node.
    pub fn rows(&self) -> usize {
        (self.nx + 1) * (self.ny + 1) * (self.nz + 1)
    }

    /// miniFE's residual print interval: a tenth of the cap, within 1..=50.
    pub fn print_every(&self) -> usize {
        (self.max_iters / 10).clamp(1, 50)
    }
}

/// Wall time per phase and per CG kernel, each kernel followed by a
/// fence as in miniFE.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timings {
    /// Matrix structure generation.
    pub structure: Duration,
    /// Finite-element assembly.
    pub assembly: Duration,
    /// Dirichlet conditions.
    pub dirichlet: Duration,
    /// The CG solve, start to end.
    pub cg: Duration,
    /// CG's vector updates.
    pub waxpby: Duration,
    /// CG's dot products.
    pub dot: Duration,
    /// CG's sparse matrix-vector products.
    pub matvec: Duration,
    /// The fastest of three streaming reads of the matrix's values and
    /// columns, with [`Config::stream_matrix`].
    pub stream_matrix: Option<Duration>,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Rows (nodes).
    pub rows: usize,
    /// Stored matrix entries.
    pub nonzeros: usize,
    /// The residual's norm before the first iteration.
    pub initial_residual: f64,
    /// `(k, |r|)` at the start of each iteration `k`: what miniFE prints
    /// every [`Config::print_every`] iterations.
    pub residuals: Vec<(usize, f64)>,
    /// Iterations done.
    pub iterations: usize,
    /// The residual's norm after the last iteration's update, as miniFE
    /// reports it: the norm at the start of the last iteration.
    pub final_residual: f64,
    /// The solution, on the host.
    pub x: Vec<f64>,
    /// Wall times.
    pub timings: Timings,
}

/// The flop counts miniFE's report divides by the kernel times (with its
/// own row count, elements rather than nodes, kept so that the rates
/// compare).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flops {
    /// Sparse matrix-vector products.
    pub matvec: f64,
    /// Dot products.
    pub dot: f64,
    /// Vector updates.
    pub waxpby: f64,
}

impl Flops {
    /// The total.
    pub fn total(&self) -> f64 {
        self.matvec + self.dot + self.waxpby
    }
}

impl Report {
    /// miniFE's flop counts for this run.
    pub fn flops(&self, cfg: &Config) -> Flops {
        let rows = (cfg.nx * cfg.ny * cfg.nz) as f64;
        let k = self.iterations as f64;
        Flops {
            matvec: self.nonzeros as f64 * 2.0 * (k + 1.0),
            dot: rows * 2.0 * (2.0 * k),
            waxpby: rows * 3.0 * (3.0 * k + 2.0),
        }
    }
}

/// Why a run stopped.
#[derive(Debug)]
pub enum CgError {
    /// The mesh is empty or too large for 32-bit column indices.
    Config(String),
    /// A View could not be made or copied.
    View(ViewError),
    /// The scan refused its input.
    Algorithm(AlgorithmError),
    /// The row offsets were not a valid partition of the entries.
    Segment(SegmentError),
    /// `pᵀ A p` fell to or below zero: the operator is not positive
    /// definite, or the iteration broke down.
    Breakdown {
        /// The iteration.
        iteration: usize,
        /// `pᵀ A p`.
        p_ap: f64,
    },
}

impl fmt::Display for CgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CgError::Config(m) => write!(f, "cg: {m}"),
            CgError::View(e) => write!(f, "cg: {e}"),
            CgError::Algorithm(e) => write!(f, "cg: {e}"),
            CgError::Segment(e) => write!(f, "cg: {e}"),
            CgError::Breakdown { iteration, p_ap } => write!(
                f,
                "cg: numerical breakdown at iteration {iteration}: pᵀAp = {p_ap:e}"
            ),
        }
    }
}

impl std::error::Error for CgError {}

impl From<ViewError> for CgError {
    fn from(e: ViewError) -> Self {
        CgError::View(e)
    }
}
impl From<SegmentError> for CgError {
    fn from(e: SegmentError) -> Self {
        CgError::Segment(e)
    }
}
impl From<AlgorithmError> for CgError {
    fn from(e: AlgorithmError) -> Self {
        CgError::Algorithm(e)
    }
}

/// The assembled system on the space: the CRS matrix and the right-hand
/// side.
struct System<M: MemorySpace> {
    a: CrsMatrix<f64, M>,
    b: View<f64, 1, LayoutRight, M>,
}

/// Builds, assembles and solves `cfg`'s problem on `space`.
///
/// # Errors
/// [`CgError::Config`] for an empty mesh or one with more entries than
/// 32-bit columns index, [`CgError::Breakdown`] if CG breaks down, and
/// the View, scan and segment errors of the steps.
pub fn run<S: PortableAlgorithms>(space: &S, cfg: &Config) -> Result<Report, CgError> {
    check(cfg)?;
    let mut times = Timings::default();
    let t = Instant::now();
    let (offsets, cols) = structure(space, cfg)?;
    space.fence();
    times.structure = t.elapsed();
    let t = Instant::now();
    let mut sys = assemble(space, cfg, offsets, cols)?;
    space.fence();
    times.assembly = t.elapsed();
    let t = Instant::now();
    dirichlet(space, cfg, &mut sys)?;
    space.fence();
    times.dirichlet = t.elapsed();
    solve(space, cfg, &sys, times)
}

fn check(cfg: &Config) -> Result<(), CgError> {
    if cfg.nx == 0 || cfg.ny == 0 || cfg.nz == 0 {
        return Err(CgError::Config(format!(
            "a mesh of {} x {} x {} elements is empty: give each of --nx, --ny, --nz at least 1",
            cfg.nx, cfg.ny, cfg.nz
        )));
    }
    if cfg.rows() > u32::MAX as usize {
        return Err(CgError::Config(format!(
            "{} rows are more than 32-bit column indices can name",
            cfg.rows()
        )));
    }
    Ok(())
}

type Structure<M> = (View<usize, 1, LayoutRight, M>, View<u32, 1, LayoutRight, M>);

/// The row offsets and the columns of every row.
fn structure<S: PortableAlgorithms>(
    space: &S,
    cfg: &Config,
) -> Result<Structure<S::MemorySpace>, CgError> {
    let n = cfg.rows();
    let (nx, ny, nz) = (cfg.nx, cfg.ny, cfg.nz);
    let mut lens = View1::zeros_on(space, "row_lengths", n + 1)?;
    parallel_for(
        "cg::row_length",
        RangePolicy::new(space, 0..n),
        &mut lens,
        row_length(nx, ny, nz),
    );
    let mut offsets = View1::zeros_on(space, "row_offsets", n + 1)?;
    let nnz = exclusive_scan(space, &lens, &mut offsets, Sum, None)?;
    let mut cols = View1::zeros_on(space, "columns", nnz)?;
    let rows = Offsets::new(&offsets)?;
    parallel_for(
        "cg::row_columns",
        RangePolicy::new(space, 0..n),
        rows.segments(&mut cols)?,
        row_columns(nx, ny, nz),
    );
    Ok((offsets, cols))
}

/// Each element's operator into its row of a table, then each row of the
/// system gathered from the table.
fn assemble<S: PortableAlgorithms>(
    space: &S,
    cfg: &Config,
    offsets: View<usize, 1, LayoutRight, S::MemorySpace>,
    cols: View<u32, 1, LayoutRight, S::MemorySpace>,
) -> Result<System<S::MemorySpace>, CgError> {
    let (nx, ny, nz) = (cfg.nx, cfg.ny, cfg.nz);
    let elements = nx * ny * nz;
    let grad = View1::from_vec_on(space, "gauss_gradients", 8 * 24, hex8::gradients())?;
    let psi = View1::from_vec_on(space, "gauss_shapes", 8 * 8, hex8::shapes())?;
    let mut table = View2::zeros_on(space, "element_operators", [elements, ELEMENT_ROW])?;
    parallel_for(
        "cg::element_operator",
        RangePolicy::new(space, 0..elements),
        &mut table,
        element_operator(&grad, &psi, nx, ny, nz),
    );
    let mut vals = View1::zeros_on(space, "values", cols.size())?;
    let mut b = View1::zeros_on(space, "b", cfg.rows())?;
    let rows = Offsets::new(&offsets)?;
    parallel_for(
        "cg::assemble_row",
        RangePolicy::new(space, 0..cfg.rows()),
        (rows.segments(&mut vals)?, &mut b),
        assemble_row(&table, nx, ny, nz),
    );
    let a = CrsMatrix::new(space, cfg.rows(), offsets, cols, vals)?;
    Ok(System { a, b })
}

fn dirichlet<S: PortableAlgorithms>(
    space: &S,
    cfg: &Config,
    sys: &mut System<S::MemorySpace>,
) -> Result<(), CgError> {
    let (row_map, cols, vals) = sys.a.parts_mut();
    let rows = Offsets::new(row_map)?;
    parallel_for(
        "cg::impose_dirichlet",
        RangePolicy::new(space, 0..cfg.rows()),
        (rows.segments(vals)?, &mut sys.b),
        impose_dirichlet(cols, row_map, cfg.nx, cfg.ny, cfg.nz),
    );
    Ok(())
}

/// The CG vectors on the space.
struct Vectors<M: MemorySpace> {
    x: View<f64, 1, LayoutRight, M>,
    r: View<f64, 1, LayoutRight, M>,
    p: View<f64, 1, LayoutRight, M>,
    ap: View<f64, 1, LayoutRight, M>,
}

/// miniFE's CG, kernel for kernel, each timed with a fence.
fn solve<S: PortableAlgorithms>(
    space: &S,
    cfg: &Config,
    sys: &System<S::MemorySpace>,
    mut times: Timings,
) -> Result<Report, CgError> {
    let n = cfg.rows();
    let mut v = Vectors {
        x: View1::zeros_on(space, "x", n)?,
        r: View1::zeros_on(space, "r", n)?,
        p: View1::zeros_on(space, "p", n)?,
        ap: View1::zeros_on(space, "Ap", n)?,
    };
    let all = || RangePolicy::new(space, 0..n);
    let timed = |t: &mut Duration, at: Instant| {
        if cfg.kernel_timers {
            space.fence();
        }
        *t += at.elapsed();
    };
    let dot_of = |a: &View<f64, 1, LayoutRight, S::MemorySpace>,
                  b: &View<f64, 1, LayoutRight, S::MemorySpace>|
     -> f64 { parallel_reduce("cg::dot", all(), Sum, dot(a, b)) };
    let matvec = |p: &View<f64, 1, LayoutRight, S::MemorySpace>,
                  ap: &mut View<f64, 1, LayoutRight, S::MemorySpace>| {
        spmv(space, 1.0, &sys.a, p, 0.0, ap)
    };

    let start = Instant::now();
    let t = Instant::now();
    parallel_for("cg::waxpby", all(), &mut v.p, waxpby(&v.x, 0.0, &v.x));
    timed(&mut times.waxpby, t);
    let t = Instant::now();
    matvec(&v.p, &mut v.ap)?;
    timed(&mut times.matvec, t);
    let t = Instant::now();
    parallel_for("cg::waxpby", all(), &mut v.r, waxpby(&sys.b, -1.0, &v.ap));
    timed(&mut times.waxpby, t);
    let t = Instant::now();
    let mut rtrans = dot_of(&v.r, &v.r);
    timed(&mut times.dot, t);
    let initial_residual = rtrans.sqrt();
    let mut normr = initial_residual;
    let mut residuals = Vec::new();
    let mut iterations = 0;
    let mut breakdown_tol = f64::EPSILON;
    let mut k = 1;
    while k <= cfg.max_iters && normr > cfg.tolerance {
        let t = Instant::now();
        if k == 1 {
            parallel_for("cg::waxpby", all(), &mut v.p, waxpby(&v.r, 0.0, &v.r));
            timed(&mut times.waxpby, t);
        } else {
            let old = rtrans;
            rtrans = dot_of(&v.r, &v.r);
            timed(&mut times.dot, t);
            let beta = rtrans / old;
            let t = Instant::now();
            parallel_for("cg::waxpby", all(), &mut v.p, xpby(&v.r, beta));
            timed(&mut times.waxpby, t);
        }
        normr = rtrans.sqrt();
        residuals.push((k, normr));

        let t = Instant::now();
        matvec(&v.p, &mut v.ap)?;
        timed(&mut times.matvec, t);
        let t = Instant::now();
        let p_ap = dot_of(&v.ap, &v.p);
        timed(&mut times.dot, t);
        if p_ap < breakdown_tol {
            if p_ap < 0.0 || broke_down(p_ap, &dot_of(&v.ap, &v.ap), &dot_of(&v.p, &v.p)) {
                return Err(CgError::Breakdown { iteration: k, p_ap });
            }
            breakdown_tol = 0.1 * p_ap;
        }
        let alpha = rtrans / p_ap;
        let t = Instant::now();
        parallel_for("cg::waxpby", all(), &mut v.x, axpy(alpha, &v.p));
        parallel_for("cg::waxpby", all(), &mut v.r, axpy(-alpha, &v.ap));
        timed(&mut times.waxpby, t);
        iterations = k;
        k += 1;
    }
    space.fence();
    times.cg = start.elapsed();
    if cfg.stream_matrix {
        times.stream_matrix = Some(stream_matrix(space, &sys.a));
    }
    Ok(Report {
        rows: n,
        nonzeros: sys.a.nnz(),
        initial_residual,
        residuals,
        iterations,
        final_residual: normr,
        x: create_mirror_view_and_copy(&v.x)?.to_vec(),
        timings: times,
    })
}

/// The fastest of three reads of the matrix's values and columns by a
/// granule kernel: 12 of the 13 bytes per entry that a product moves
/// (the row map and the vectors are the rest), without the gather of
/// `x`.
fn stream_matrix<S: PortableAlgorithms>(space: &S, a: &CrsMatrix<f64, S::MemorySpace>) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let sum: f64 = parallel_reduce(
                "cg::stream_entries",
                RangePolicy::new(space, 0..a.nnz()),
                Sum,
                stream_entries(a.values(), a.entries()),
            );
            std::hint::black_box(sum);
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// miniFE's breakdown test: `pᵀAp` is only rounding if it is within 100 ε
/// of `|Ap| |p|`.
fn broke_down(p_ap: f64, ap_ap: &f64, p_p: &f64) -> bool {
    p_ap.abs() <= 100.0 * ap_ap.sqrt() * p_p.sqrt() * f64::EPSILON
}
