//! Plots criterion's saved results as GB/s against size, one PNG per
//! benchmark family and one line per implementation; or, with
//! `--medians`, prints each group's medians and their ratios to the
//! group's baselines (the figures of `benches/RESULTS.md`).
//!
//! ```text
//! cargo run -p granule-bench --bin plot -- [--criterion DIR] [--out DIR] [--only PREFIX] [--medians]
//! ```

use granule_bench::{chart, medians, results};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
usage: plot [--criterion DIR] [--out DIR] [--only PREFIX] [--medians]

Plots criterion's saved results as GB/s against size, one PNG per family.

  --criterion DIR  criterion's results (default: $CRITERION_HOME, else
                   $CARGO_TARGET_DIR/criterion, else target/criterion)
  --out DIR        where the PNGs go (default: benches/plots)
  --only PREFIX    only the families (groups, with --medians) starting with PREFIX
  --medians        print each group's medians and ratios instead of plotting";

/// The command line, parsed.
struct Args {
    criterion: PathBuf,
    out: PathBuf,
    only: String,
    medians: bool,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut parsed = Args {
        criterion: results::default_dir(),
        out: PathBuf::from("benches/plots"),
        only: String::new(),
        medians: false,
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--criterion" => parsed.criterion = value()?.into(),
            "--out" => parsed.out = value()?.into(),
            "--only" => parsed.only = value()?,
            "--medians" => parsed.medians = true,
            "-h" | "--help" => return Ok(None),
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(Some(parsed))
}

fn run(args: Args) -> Result<(), String> {
    let all = results::read_all(&args.criterion).map_err(|e| e.to_string())?;
    if args.medians {
        let mut groups = results::medians(&all);
        groups.retain(|group, _| group.starts_with(&args.only));
        for line in medians::table(&groups) {
            println!("{line}");
        }
        return Ok(());
    }
    let mut families = results::families(&all);
    families.retain(|family, _| family.starts_with(&args.only));
    if families.is_empty() {
        return Err(format!(
            "no sized benchmark results under {}; run a bench first",
            args.criterion.display()
        ));
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    for (family, series) in &families {
        let path = args.out.join(format!("{family}.png"));
        chart::draw(family, series, &path).map_err(|e| e.to_string())?;
        println!("{}", path.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse(std::env::args().skip(1)) {
        Ok(Some(args)) => match run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("plot: {e}");
                ExitCode::FAILURE
            }
        },
        Ok(None) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("plot: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Result<Option<Args>, String> {
        parse(line.split_whitespace().map(String::from))
    }

    #[test]
    fn defaults_and_options() {
        let a = args("").unwrap().unwrap();
        assert_eq!(
            (a.out, a.only, a.medians),
            ("benches/plots".into(), String::new(), false)
        );
        let a = args("--criterion c --out o --only scan_ --medians")
            .unwrap()
            .unwrap();
        assert_eq!(a.criterion, PathBuf::from("c"));
        assert_eq!(
            (a.out, a.only, a.medians),
            ("o".into(), "scan_".into(), true)
        );
    }

    #[test]
    fn help_and_mistakes() {
        assert!(args("--help").unwrap().is_none());
        assert_eq!(args("--out").err().unwrap(), "--out needs a value");
        assert_eq!(args("--plot").err().unwrap(), "unknown argument --plot");
    }
}
