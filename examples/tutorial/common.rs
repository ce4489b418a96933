//! What the `tutorial_*` examples share: the original exercises'
//! command-line flags (declared in a table per example, read with
//! pico-args, listed by `--help`), their `printf("%g")` number format, and
//! a timer that fences the space, since a Cuda dispatch returns before its
//! kernel ends.

use granule::prelude::*;
use std::collections::HashMap;
use std::time::Instant;

/// One command-line flag of an example: its spellings, its value when it
/// is absent (`""`: none, the example decides), and what it sets.
pub struct Flag {
    /// Every spelling, the first one shown first (`-N`, `-Rows`).
    pub names: &'static [&'static str],
    /// The value when absent, as it would be typed.
    pub default: &'static str,
    /// One line for `--help`.
    pub help: &'static str,
}

impl Flag {
    /// A flag spelled `names`, worth `default` when absent.
    pub const fn new(
        names: &'static [&'static str],
        default: &'static str,
        help: &'static str,
    ) -> Self {
        Flag {
            names,
            default,
            help,
        }
    }
}

/// The flags of one run: each value given on the command line, by the
/// flag's first spelling.
pub struct Flags {
    table: Vec<&'static Flag>,
    given: HashMap<&'static str, String>,
}

/// Prints `message` and `--help`'s hint, and exits with status 2.
fn usage_error(message: String) -> ! {
    eprintln!("error: {message} (--help lists the flags)");
    std::process::exit(2)
}

/// The key pico-args looks `name` up by. pico-args reads a single dash as
/// one letter (`-PX` as `-P`), while the exercises spell whole words with
/// one dash, so such a flag is matched as its double-dash form, which
/// [`Flags::parse`] turns the command line's spelling into. Keys are
/// `'static` in pico-args; a run makes one per spelling, once.
fn key(name: &'static str) -> &'static str {
    match name.starts_with("--") {
        true => name,
        false => Box::leak(format!("-{name}").into_boxed_str()),
    }
}

impl Flags {
    /// The command line, read against `tables`: `--help` (or `-h`) prints
    /// every flag with its default and exits; a flag not in the tables, or
    /// one without its value, is an error naming it (exit status 2).
    pub fn parse(tables: &[&'static [Flag]]) -> Flags {
        let table: Vec<&'static Flag> = tables.iter().flat_map(|t| t.iter()).collect();
        let single_dash =
            |a: &str| !a.starts_with("--") && table.iter().any(|f| f.names.contains(&a));
        let words = std::env::args_os().skip(1).map(|a| match a.to_str() {
            Some(s) if single_dash(s) => format!("-{s}").into(),
            _ => a,
        });
        let mut args = pico_args::Arguments::from_vec(words.collect());
        if args.contains(["-h", "--help"]) {
            print_help(&table);
            std::process::exit(0);
        }
        let mut given = HashMap::new();
        for flag in &table {
            for &name in flag.names {
                match args.opt_value_from_str::<_, String>(key(name)) {
                    Ok(Some(v)) => drop(given.insert(flag.names[0], v)),
                    Ok(None) => {}
                    Err(_) => usage_error(format!("`{name}` needs a value")),
                }
            }
        }
        if let Some(extra) = args.finish().first() {
            let extra = extra.to_string_lossy();
            let shown = extra.strip_prefix('-').filter(|s| single_dash(s));
            usage_error(format!("unknown flag `{}`", shown.unwrap_or(&extra)));
        }
        Flags { table, given }
    }

    /// The flag spelled `name`, which the example must have declared.
    fn flag(&self, name: &str) -> &'static Flag {
        let found = self.table.iter().find(|f| f.names.contains(&name));
        found.unwrap_or_else(|| panic!("`{name}` is not in the example's flag table"))
    }

    /// The text given for `name`, if it was given.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.given.get(self.flag(name).names[0]).map(String::as_str)
    }

    /// The value given for `name`, parsed, if it was given.
    pub fn given<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
        let text = self.text(name)?;
        let value = text.parse();
        Some(
            value.unwrap_or_else(|_| {
                usage_error(format!("`{name}`: `{text}` is not a valid value"))
            }),
        )
    }

    /// The value of `name`: given, or its default.
    pub fn value<T: std::str::FromStr>(&self, name: &str) -> T {
        self.given(name).unwrap_or_else(|| {
            let default = self.flag(name).default;
            let value = default.parse();
            value.unwrap_or_else(|_| panic!("`{name}`'s default `{default}` does not parse"))
        })
    }

    /// `2^e` for an exponent flag (`-N 12` means 4096 rows): given or its
    /// default, `None` when it has neither.
    pub fn pow2(&self, name: &str) -> Option<usize> {
        let text = self.text(name).unwrap_or(self.flag(name).default);
        if text.is_empty() {
            return None;
        }
        let e: u32 = text
            .parse()
            .unwrap_or_else(|_| usage_error(format!("`{name}`: `{text}` is not an exponent")));
        let value = 1usize.checked_shl(e);
        Some(value.unwrap_or_else(|| usage_error(format!("`{name}`: 2^{e} does not fit"))))
    }
}

/// `--help`: each flag's spellings, what it sets and its default.
fn print_help(table: &[&'static Flag]) {
    let program = std::env::args().next().unwrap_or_default();
    println!("usage: {program} [flags]");
    let spelled: Vec<String> = table.iter().map(|f| f.names.join(", ")).collect();
    let width = spelled.iter().map(String::len).max().unwrap_or(0).max(10);
    for (flag, names) in table.iter().zip(&spelled) {
        match flag.default {
            "" => println!("  {names:<width$}  {}", flag.help),
            d => println!("  {names:<width$}  {} (default {d})", flag.help),
        }
    }
    println!("  {:<width$}  this list", "-h, --help");
}

/// The histogram examples' flags: `-N e` elements = 2^e (small for the
/// emulator), `-bins b` (positive) and `-nrepeat n`.
pub const HISTOGRAM_FLAGS: &[Flag] = &[
    Flag::new(&["-N"], "18", "elements = 2^N"),
    Flag::new(&["-bins"], "100", "bins (positive)"),
    Flag::new(&["-nrepeat"], "10", "repetitions"),
];

/// The histogram examples' [`HISTOGRAM_FLAGS`] as `(n, bins, nrepeat)`.
pub fn histogram_flags(flags: &Flags) -> (usize, usize, usize) {
    let n = flags.pow2("-N").expect("-N has a default");
    let bins: usize = flags.value("-bins");
    if bins == 0 {
        usage_error("`-bins` must be positive".into());
    }
    (n, bins, flags.value("-nrepeat"))
}

/// The histogram examples' `time( t s ) rate( r Gupdates/s )` for
/// `updates` increments in `time` seconds.
pub fn update_rate(updates: usize, time: f64) -> String {
    format!(
        "time( {} s ) rate( {} Gupdates/s )",
        g(time),
        g(1.0e-9 * updates as f64 / time)
    )
}

/// C's `%g`: six significant digits, trailing zeros dropped, scientific
/// notation below 1e-4 or from 1e6.
pub fn g(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa.to_string()), exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        trim(format!("{x:.decimals$}"))
    }
}

/// Seconds taken by `f`, up to the end of every kernel it queued.
pub fn timed<R>(space: &DefaultExecutionSpace, f: impl FnOnce() -> R) -> (R, f64) {
    space.fence();
    let start = Instant::now();
    let r = f();
    space.fence();
    (r, start.elapsed().as_secs_f64())
}

/// The space, its concurrency and, on Cuda, the device (a GPU's name or
/// "emulator"), for the first line of output.
pub fn describe(space: &DefaultExecutionSpace) -> String {
    #[cfg(feature = "cuda")]
    let device = format!(", device {}", space.device().name());
    #[cfg(not(feature = "cuda"))]
    let device = "";
    format!(
        "{} (concurrency {}{device})",
        space.name(),
        space.concurrency()
    )
}

/// The exercises' figure of merit: `{prefix}{dims} nrepeat ( .. ) problem(
/// .. MB ) time( .. s ) bandwidth( .. GB/s )`, for `bytes` moved per
/// repetition.
pub fn print_bandwidth(prefix: &str, dims: &str, nrepeat: usize, bytes: usize, time: f64) {
    let gbytes = 1.0e-9 * bytes as f64;
    println!(
        "  {prefix}{dims} nrepeat ( {nrepeat} ) problem( {} MB ) time( {} s ) bandwidth( {} GB/s )",
        g(gbytes * 1000.0),
        g(time),
        g(gbytes * nrepeat as f64 / time)
    );
}

/// The exercises' error line for a wrong result, then exit status 1.
pub fn exit_if_wrong(wrong: Option<f64>, solution: f64) {
    if let Some(result) = wrong {
        println!("  Error: result( {result:.6} ) != solution( {solution:.6} )");
        std::process::exit(1);
    }
}

// The yᵀAx exercises' values: small integers, so that every sum is exact
// whatever the order of the reduction, and the check is an equality.

/// yⱼ of the yᵀAx exercises.
pub fn y_at(j: usize) -> f64 {
    (j % 5 + 1) as f64
}

/// xᵢ of the yᵀAx exercises.
pub fn x_at(i: usize) -> f64 {
    (i % 7 + 1) as f64
}

/// A(j, i) of the yᵀAx exercises.
pub fn a_at(j: usize, i: usize) -> f64 {
    ((i + 2 * j) % 3 + 1) as f64
}

/// yᵀAx for N rows and M columns, by a host loop.
pub fn yax_solution(n: usize, m: usize) -> f64 {
    (0..n)
        .map(|j| y_at(j) * (0..m).map(|i| a_at(j, i) * x_at(i)).sum::<f64>())
        .sum()
}

/// The yᵀAx exercises' size flags, exponents of 2 (the original's 2^22
/// total is 2^16 here, so that the test run stays short).
pub const YAX_FLAGS: &[Flag] = &[
    Flag::new(&["-N", "-Rows"], "", "rows = 2^N (default S / M)"),
    Flag::new(
        &["-M", "-Columns"],
        "",
        "columns = 2^M (default S / N, or 1024)",
    ),
    Flag::new(
        &["-S", "-Size"],
        "",
        "total size = 2^S (default N * M, or 2^16)",
    ),
];

/// The exercises' `checkSizes`: N rows and M columns from
/// [`YAX_FLAGS`], filling in whichever is missing, with the total 2^16
/// when two are. Prints the original's "Total size" line.
pub fn yax_sizes(flags: &Flags) -> (usize, usize) {
    let default_s = 1 << 16;
    let n = flags.pow2("-N");
    let m = flags.pow2("-M");
    let mut s = flags.pow2("-S");
    if s.is_none() && (n.is_none() || m.is_none()) {
        s = Some(default_s);
    }
    let s = s.unwrap_or_else(|| n.unwrap_or(1) * m.unwrap_or(1));
    let s = s.max(n.unwrap_or(0)).max(m.unwrap_or(0));
    let (n, m) = match (n, m) {
        (Some(n), Some(m)) => (n, m),
        (Some(n), None) => (n, s / n),
        (None, Some(m)) => (s / m, m),
        (None, None) => {
            let m = s.min(1024);
            (s / m, m)
        }
    };
    println!("  Total size S = {s} N = {n} M = {m}");
    assert_eq!(s, n * m, "S must be N * M");
    (n, m)
}

/// Bytes one yᵀAx reads: y, x and A.
pub fn yax_bytes(n: usize, m: usize) -> usize {
    std::mem::size_of::<f64>() * (n + m + n * m)
}
