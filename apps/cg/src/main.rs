//! `cg`: runs miniFE's problem (its default 10³ mesh, or the one the
//! flags give) on the space the flags name and prints what miniFE
//! prints: the residual history, the check against the analytic
//! solution, and the timing report of its YAML file.

use granule::prelude::*;
use granule_cg::print::g6;
use granule_cg::{run, verify, CgError, Config, Report};
use std::process::ExitCode;

const HELP: &str = "\
cg: miniFE's finite-element CG solve in granule

Flags:
  --nx N          elements along x (10)
  --ny N          elements along y (nx)
  --nz N          elements along z (ny)
  --max-iters N   CG iteration cap (200)
  --print-every N residual lines every N iterations (miniFE's: a tenth of
                  the cap, within 1..=50)
  --space S       serial, rayon or cuda (rayon; cuda with the cuda feature)
  --threads N     Rayon threads (all cores)
  --no-verify     skip the check against the analytic solution
  --no-kernel-timers
                  no fence after each CG kernel (on Cuda: no host
                  synchronization but the dot products' results)
  --stream-matrix after the solve, the rate of a kernel that only reads
                  the matrix's values and columns, in SpMV Mflops (a
                  same-run reference for the SpMV, not a bound)
  --help          this text
";

struct Args {
    cfg: Config,
    space: String,
    threads: Option<usize>,
    verify: bool,
    print_every: Option<usize>,
}

fn args() -> Result<Args, pico_args::Error> {
    let mut p = pico_args::Arguments::from_env();
    if p.contains("--help") {
        print!("{HELP}");
        std::process::exit(0);
    }
    let d = Config::default();
    let nx = p.opt_value_from_str("--nx")?.unwrap_or(d.nx);
    let ny = p.opt_value_from_str("--ny")?.unwrap_or(nx);
    let nz = p.opt_value_from_str("--nz")?.unwrap_or(ny);
    let cfg = Config {
        nx,
        ny,
        nz,
        max_iters: p.opt_value_from_str("--max-iters")?.unwrap_or(d.max_iters),
        kernel_timers: !p.contains("--no-kernel-timers"),
        stream_matrix: p.contains("--stream-matrix"),
        ..d
    };
    let space = p
        .opt_value_from_str("--space")?
        .unwrap_or_else(|| "rayon".to_string());
    let threads = p.opt_value_from_str("--threads")?;
    let verify = !p.contains("--no-verify");
    let print_every = p.opt_value_from_str("--print-every")?;
    let rest = p.finish();
    if !rest.is_empty() {
        return Err(pico_args::Error::ArgumentParsingFailed {
            cause: format!("unknown arguments {rest:?}"),
        });
    }
    Ok(Args {
        cfg,
        space,
        threads,
        verify,
        print_every,
    })
}

fn mflops(flops: f64, secs: f64) -> String {
    if secs > 1e-4 {
        g6(1e-6 * flops / secs)
    } else {
        "inf".to_string()
    }
}

/// The solve's lines, then the parts of miniFE's YAML report that
/// describe the run.
fn print(r: &Report, a: &Args) {
    let (cfg, space) = (&a.cfg, a.space.as_str());
    let t = r.timings;
    println!(
        "generating matrix structure...{}s",
        g6(t.structure.as_secs_f64())
    );
    println!(
        "         assembling FE data...{}s",
        g6(t.assembly.as_secs_f64())
    );
    println!(
        "      imposing Dirichlet BC...{}s",
        g6(t.dirichlet.as_secs_f64())
    );
    println!("Starting CG solver ... ");
    println!("Initial Residual = {}", g6(r.initial_residual));
    let every = a.print_every.unwrap_or(cfg.print_every()).max(1);
    for &(k, norm) in &r.residuals {
        if k % every == 0 || k == cfg.max_iters {
            println!("Iteration = {k}   Residual = {}", g6(norm));
        }
    }
    println!("Final Resid Norm: {}", g6(r.final_residual));
    let f = r.flops(cfg);
    let secs = |d: std::time::Duration| d.as_secs_f64();
    println!();
    println!("Global Run Parameters: ");
    println!("  dimensions: ");
    println!("    nx: {}\n    ny: {}\n    nz: {}", cfg.nx, cfg.ny, cfg.nz);
    println!("  space: {space}");
    println!("Matrix structure generation: ");
    println!("  Mat-struc-gen Time: {}", g6(secs(t.structure)));
    println!("FE assembly: ");
    println!("  FE assembly Time: {}", g6(secs(t.assembly)));
    println!("Matrix attributes: ");
    println!("  Global Nrows: {}", r.rows);
    println!("  Global NNZ: {}", r.nonzeros);
    println!("CG solve: ");
    println!("  Iterations: {}", r.iterations);
    println!("  Final Resid Norm: {}", g6(r.final_residual));
    for (name, time, flops) in [
        ("WAXPY", t.waxpby, f.waxpby),
        ("DOT", t.dot, f.dot),
        ("MATVEC", t.matvec, f.matvec),
    ] {
        println!("  {name} Time: {}", g6(secs(time)));
        println!("  {name} Flops: {}", g6(flops));
        println!("  {name} Mflops: {}", mflops(flops, secs(time)));
    }
    if let Some(stream) = t.stream_matrix {
        // One product's flops over the time the read of its matrix took.
        let flops = 2.0 * r.nonzeros as f64;
        println!(
            "  MATVEC stream Mflops: {}",
            g6(1e-6 * flops / secs(stream))
        );
    }
    println!("  Total: ");
    println!("    Total CG Time: {}", g6(secs(t.cg)));
    println!("    Total CG Flops: {}", g6(f.total()));
    println!("    Total CG Mflops: {}", mflops(f.total(), secs(t.cg)));
    println!(
        "  Time per iteration: {}",
        g6(secs(t.cg) / r.iterations.max(1) as f64)
    );
}

fn solve(a: &Args) -> Result<Report, Box<dyn std::error::Error>> {
    match a.space.as_str() {
        "serial" => run(&Serial, &a.cfg).map_err(CgError::into),
        #[cfg(feature = "rayon")]
        "rayon" => {
            let space = match a.threads {
                Some(t) => granule::Rayon::new(t)?,
                None => granule::Rayon::default(),
            };
            // On the pool, each CG kernel starts on the driver's thread.
            space.install(|| run(&space, &a.cfg)).map_err(CgError::into)
        }
        #[cfg(feature = "cuda")]
        "cuda" => run(&granule::Cuda::from_env()?, &a.cfg).map_err(CgError::into),
        other => Err(format!("no space \"{other}\" in this build (see --help)").into()),
    }
}

fn main() -> ExitCode {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e} (--help lists the flags)");
            return ExitCode::from(2);
        }
    };
    let report = match solve(&a) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    print(&report, &a);
    if !a.verify {
        return ExitCode::SUCCESS;
    }
    println!("verifying solution at ~ (0.5, 0.5, 0.5) ...");
    let v = verify(&a.cfg, &report.x);
    if v.passed() {
        println!(
            "solution matches analytic solution to within {} or better.",
            granule_cg::analytic::TOLERANCE
        );
        ExitCode::SUCCESS
    } else {
        println!("max absolute error is {}:", g6(v.error));
        println!(
            "   at position ({},{},{}), ",
            g6(v.at[0]),
            g6(v.at[1]),
            g6(v.at[2])
        );
        println!(
            "   computed solution: {},  analytic solution: {}",
            g6(v.computed),
            g6(v.analytic)
        );
        ExitCode::FAILURE
    }
}
