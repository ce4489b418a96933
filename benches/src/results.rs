//! Criterion's saved results: where they are, what each benchmark's two
//! JSON files say, and the sizes granule's benches put in their group ids.
//!
//! A sized group is named `<family>_<size>`, the size `2^k` or `2^k-d`
//! elements (`scan_exclusive_i64_2^20`, `copy_if_i64_2^10-3`), and gives
//! each of its benchmarks a throughput in bytes, so a benchmark's GB/s is
//! its bytes over its median time in ns. Groups without a size suffix
//! (`kernel_overhead`) have medians but no series.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What went wrong reading a criterion folder, with the file it concerns.
#[derive(Debug)]
pub enum Error {
    /// A folder or file could not be read.
    Io {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file is not JSON.
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// A JSON file lacks a field criterion always writes.
    Field {
        /// The file.
        path: PathBuf,
        /// The field, as a JSON pointer.
        field: &'static str,
    },
    /// Drawing or writing a plot failed.
    Plot {
        /// The PNG being written.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Json { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Field { path, field } => write!(f, "{}: no {field}", path.display()),
            Error::Plot { path, reason } => write!(f, "{}: {reason}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Json { source, .. } => Some(source),
            Error::Field { .. } | Error::Plot { .. } => None,
        }
    }
}

/// The folder criterion saves into, as criterion picks it: `CRITERION_HOME`,
/// else `criterion` under `CARGO_TARGET_DIR`, else `target/criterion`.
pub fn default_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(target) => PathBuf::from(target).join("criterion"),
        None => PathBuf::from("target/criterion"),
    }
}

/// The family and the number of elements a group id names, or `None`
/// when it has no size suffix (or one too large for a `u64`).
///
/// ```
/// use granule_bench::results::size_of;
/// assert_eq!(size_of("scan_exclusive_i64_2^20"), Some(("scan_exclusive_i64", 1 << 20)));
/// assert_eq!(size_of("kernel_overhead"), None);
/// ```
pub fn size_of(group: &str) -> Option<(&str, u64)> {
    // The family is everything before the last "_2^": a family may hold
    // "_2^" itself only if a size follows it, and then the size after the
    // last one is the group's.
    let at = group.rfind("_2^")?;
    let (family, size) = (&group[..at], &group[at + 3..]);
    let (k, d) = match size.split_once('-') {
        Some((k, d)) => (k, Some(d)),
        None => (size, None),
    };
    let k: u32 = digits(k)?.try_into().ok()?;
    let d = match d {
        Some(d) => digits(d)?,
        None => 0,
    };
    let n = 1u64.checked_shl(k)?.checked_sub(d)?;
    (!family.is_empty()).then_some((family, n))
}

/// The value of a non-empty run of ASCII digits, nothing else.
fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// One saved benchmark: its ids, its throughput in bytes (if it gave one)
/// and its median time.
#[derive(Clone, Debug, PartialEq)]
pub struct Benchmark {
    /// The group's id (`sort_u32_2^24`).
    pub group: String,
    /// The function's id within the group (`granule_sort`); a benchmark
    /// outside a group has none and goes by its group's id.
    pub function: String,
    /// Bytes per iteration (`Throughput::Bytes` or `BytesDecimal`).
    pub bytes: Option<f64>,
    /// The median time of one iteration, in ns.
    pub median_ns: f64,
}

/// Every benchmark saved under `dir`, in path order.
pub fn read_all(dir: &Path) -> Result<Vec<Benchmark>, Error> {
    let mut files = Vec::new();
    find_benchmarks(dir, &mut files)?;
    files.sort();
    files.iter().map(|f| read_one(f)).collect()
}

/// The `new/benchmark.json` files under `dir`, at any depth.
fn find_benchmarks(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            find_benchmarks(&path, out)?;
        } else if path.ends_with("new/benchmark.json") {
            out.push(path);
        }
    }
    Ok(())
}

fn read_one(benchmark_json: &Path) -> Result<Benchmark, Error> {
    let meta = read_json(benchmark_json)?;
    let estimates_json = benchmark_json.with_file_name("estimates.json");
    let estimates = read_json(&estimates_json)?;
    let field = |path: &Path, field| Error::Field {
        path: path.to_path_buf(),
        field,
    };
    let group = meta["group_id"]
        .as_str()
        .ok_or_else(|| field(benchmark_json, "/group_id"))?
        .to_string();
    let function = meta["function_id"].as_str().unwrap_or(&group).to_string();
    let throughput = &meta["throughput"];
    let bytes = throughput["Bytes"]
        .as_f64()
        .or_else(|| throughput["BytesDecimal"].as_f64());
    let median_ns = estimates
        .pointer("/median/point_estimate")
        .and_then(Value::as_f64)
        .ok_or_else(|| field(&estimates_json, "/median/point_estimate"))?;
    Ok(Benchmark {
        group,
        function,
        bytes,
        median_ns,
    })
}

fn read_json(path: &Path) -> Result<Value, Error> {
    let text = fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// `{group: {function: median ns}}` of every benchmark, sized or not.
pub type Medians = BTreeMap<String, BTreeMap<String, f64>>;

/// The medians of `benchmarks`, by group and function.
pub fn medians(benchmarks: &[Benchmark]) -> Medians {
    let mut out = Medians::new();
    for b in benchmarks {
        out.entry(b.group.clone())
            .or_default()
            .insert(b.function.clone(), b.median_ns);
    }
    out
}

/// One point of a series: a size and the GB/s measured there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Elements.
    pub elements: u64,
    /// Bytes over the median time in ns.
    pub gbps: f64,
}

/// `{family: {function: points by size}}` of the sized benchmarks.
pub type Families = BTreeMap<String, BTreeMap<String, Vec<Point>>>;

/// The sized benchmarks that give a throughput, as GB/s series: one per
/// family and function, sorted by size. The others are left out.
pub fn families(benchmarks: &[Benchmark]) -> Families {
    let mut out = Families::new();
    for b in benchmarks {
        let (Some((family, elements)), Some(bytes)) = (size_of(&b.group), b.bytes) else {
            continue;
        };
        if bytes == 0.0 {
            continue;
        }
        out.entry(family.to_string())
            .or_default()
            .entry(b.function.clone())
            .or_default()
            .push(Point {
                elements,
                gbps: bytes / b.median_ns,
            });
    }
    for series in out.values_mut().flat_map(|f| f.values_mut()) {
        series.sort_by(|a, b| a.elements.cmp(&b.elements).then(a.gbps.total_cmp(&b.gbps)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_power_of_two() {
        assert_eq!(
            size_of("scan_exclusive_i64_2^20"),
            Some(("scan_exclusive_i64", 1_048_576))
        );
    }

    #[test]
    fn a_power_of_two_less_a_tail() {
        assert_eq!(size_of("copy_if_i64_2^10-3"), Some(("copy_if_i64", 1021)));
    }

    #[test]
    fn no_size() {
        assert_eq!(size_of("kernel_overhead"), None);
    }

    #[test]
    fn the_last_size_is_the_groups() {
        assert_eq!(size_of("a_2^3_b_2^4"), Some(("a_2^3_b", 16)));
        assert_eq!(size_of("a_2^4_b"), None);
    }

    #[test]
    fn malformed_sizes_are_none() {
        for id in [
            "_2^20",
            "x_2^",
            "x_2^-3",
            "x_2^20-",
            "x_2^20-3-1",
            "x_2^+5",
            "x_2^ 5",
            "x_2^1e3",
        ] {
            assert_eq!(size_of(id), None, "{id}");
        }
    }

    #[test]
    fn sizes_beyond_u64_are_none() {
        assert_eq!(size_of("x_2^63"), Some(("x", 1 << 63)));
        assert_eq!(size_of("x_2^64"), None);
        assert_eq!(size_of("x_2^3-9"), None);
        assert_eq!(size_of("x_2^99999999999"), None);
    }

    fn bench(group: &str, function: &str, bytes: Option<f64>, ns: f64) -> Benchmark {
        Benchmark {
            group: group.into(),
            function: function.into(),
            bytes,
            median_ns: ns,
        }
    }

    #[test]
    fn families_hold_sized_throughputs_sorted_by_size() {
        let all = [
            bench("copy_if_i64_2^20", "granule_copy_if", Some(8e6), 4e6),
            bench(
                "copy_if_i64_2^10-3",
                "granule_copy_if",
                Some(8168.0),
                4084.0,
            ),
            bench("copy_if_i64_2^10", "no_throughput", None, 1.0),
            bench("copy_if_i64_2^12", "zero_bytes", Some(0.0), 1.0),
            bench("kernel_overhead", "axpy_kernel", Some(8.0), 1.0),
        ];
        let f = families(&all);
        assert_eq!(f.keys().collect::<Vec<_>>(), ["copy_if_i64"]);
        let series = &f["copy_if_i64"];
        assert_eq!(series.keys().collect::<Vec<_>>(), ["granule_copy_if"]);
        let points = &series["granule_copy_if"];
        assert_eq!(
            points,
            &[
                Point {
                    elements: 1021,
                    gbps: 2.0
                },
                Point {
                    elements: 1 << 20,
                    gbps: 2.0
                }
            ]
        );
    }

    #[test]
    fn medians_keep_every_group() {
        let all = [
            bench("kernel_overhead", "axpy_kernel", None, 5.0),
            bench("sort_u32_2^24", "granule_sort", Some(1.0), 7.0),
        ];
        let m = medians(&all);
        assert_eq!(m["kernel_overhead"]["axpy_kernel"], 5.0);
        assert_eq!(m["sort_u32_2^24"]["granule_sort"], 7.0);
    }

    /// A criterion folder as criterion 0.5 writes it, read back.
    #[test]
    fn reads_a_criterion_folder() {
        let dir =
            std::env::temp_dir().join(format!("granule-bench-results-{}", std::process::id()));
        let new = dir.join("sort_u32_2^24/granule_sort/new");
        fs::create_dir_all(&new).unwrap();
        // criterion also keeps the previous run; only new/ counts.
        fs::create_dir_all(dir.join("sort_u32_2^24/granule_sort/base")).unwrap();
        fs::write(
            new.join("benchmark.json"),
            r#"{"group_id":"sort_u32_2^24","function_id":"granule_sort","value_str":null,
                "throughput":{"Bytes":67108864},"full_id":"sort_u32_2^24/granule_sort",
                "directory_name":"sort_u32_2^24/granule_sort","title":"sort_u32_2^24/granule_sort"}"#,
        )
        .unwrap();
        fs::write(
            new.join("estimates.json"),
            r#"{"mean":{"point_estimate":4.0e7},"median":{"point_estimate":3.2e7}}"#,
        )
        .unwrap();
        let all = read_all(&dir);
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            all.unwrap(),
            [bench(
                "sort_u32_2^24",
                "granule_sort",
                Some(67_108_864.0),
                3.2e7
            )]
        );
    }

    #[test]
    fn a_missing_folder_names_itself() {
        let err = read_all(Path::new("/nonexistent/criterion")).unwrap_err();
        assert!(
            err.to_string().starts_with("/nonexistent/criterion: "),
            "{err}"
        );
    }
}
