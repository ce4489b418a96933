//! `md`: runs ExaMiniMD's `in.lj` (or a smaller box) on the space the
//! flags name and prints the thermo lines and the phase times.

use granule::prelude::*;
use granule_md::{run, Config, MdError, Report};
use std::process::ExitCode;

const HELP: &str = "\
md: ExaMiniMD's Lennard-Jones problem (in.lj) in granule

Flags:
  --cells N       unit cells per box edge, 4 N^3 atoms (40)
  --steps N       time steps (100)
  --thermo N      steps between thermo lines (10)
  --space S       serial, rayon or cuda (rayon; cuda with the cuda feature)
  --threads N     Rayon threads (all cores)
  --no-phase-timers
                  no fence after each phase (on Cuda: no host synchronization
                  but the thermo outputs')
  --help          this text
";

struct Args {
    cfg: Config,
    space: String,
    threads: Option<usize>,
}

fn args() -> Result<Args, pico_args::Error> {
    let mut p = pico_args::Arguments::from_env();
    if p.contains("--help") {
        print!("{HELP}");
        std::process::exit(0);
    }
    let d = Config::default();
    let cfg = Config {
        cells: p.opt_value_from_str("--cells")?.unwrap_or(d.cells),
        steps: p.opt_value_from_str("--steps")?.unwrap_or(d.steps),
        thermo: p.opt_value_from_str("--thermo")?.unwrap_or(d.thermo),
        phase_timers: !p.contains("--no-phase-timers"),
        ..d
    };
    let space = p
        .opt_value_from_str("--space")?
        .unwrap_or_else(|| "rayon".to_string());
    let threads = p.opt_value_from_str("--threads")?;
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
    })
}

fn print(report: &Report, cfg: &Config, space: &str) {
    println!("Atoms: {}", report.atoms);
    println!("#Timestep Temperature PotE ETot");
    for t in &report.thermo {
        println!("{t}");
    }
    let t = report.timings;
    println!();
    println!("#Space Particles | Time T_Force T_Neigh T_Integrate T_Thermo | Atomsteps/s");
    println!(
        "{space} {} | {:.6} {:.6} {:.6} {:.6} {:.6} | {:e}",
        report.atoms,
        t.total.as_secs_f64(),
        t.force.as_secs_f64(),
        t.neighbor.as_secs_f64(),
        t.integrate.as_secs_f64(),
        t.thermo.as_secs_f64(),
        report.atom_steps_per_second(cfg.steps)
    );
}

fn solve(a: &Args) -> Result<Report, Box<dyn std::error::Error>> {
    match a.space.as_str() {
        "serial" => run(&Serial, &a.cfg).map_err(MdError::into),
        #[cfg(feature = "rayon")]
        "rayon" => {
            let space = match a.threads {
                Some(t) => granule::Rayon::new(t)?,
                None => granule::Rayon::default(),
            };
            // On the pool, each kernel starts on the driver's thread.
            space.install(|| run(&space, &a.cfg)).map_err(MdError::into)
        }
        #[cfg(feature = "cuda")]
        "cuda" => run(&granule::Cuda::from_env()?, &a.cfg).map_err(MdError::into),
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
    match solve(&a) {
        Ok(report) => {
            print(&report, &a.cfg, &a.space);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
