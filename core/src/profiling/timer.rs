//! The built-in kernel timer: per label, the number of calls, the total,
//! mean, shortest and longest time, printed as a table when the process
//! exits, and with the `serde` feature written as JSON for tools and
//! plots when asked (serde_json escapes the labels, which are any text).

use super::{KernelInfo, KernelKind, ProfilingHooks};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Set this environment variable to `1` to time every dispatch and print
/// the table at exit (to stderr).
pub const KERNEL_TIMER_ENV: &str = "GRANULE_KERNEL_TIMER";

/// Set this environment variable to a file path to time every dispatch
/// and write `KernelTimer::json` there at exit (the table is printed
/// only if [`KERNEL_TIMER_ENV`] is `1` too). Needs the `serde` feature;
/// without it the variable is reported on stderr and ignored.
pub const KERNEL_TIMER_JSON_ENV: &str = "GRANULE_KERNEL_TIMER_JSON";

/// A row of the table: label, kind, space.
type Key = (String, KernelKind, &'static str);

/// Accumulates the time of every dispatch, per (label, kind, space).
///
/// ```
/// use granule_core::prelude::*;
/// use granule_core::profiling::{self, KernelTimer};
/// use std::sync::Arc;
/// let timer = Arc::new(KernelTimer::default());
/// let id = profiling::register(timer.clone());
/// for _ in 0..3 {
///     parallel_for("timed-doc", RangePolicy::new(&Serial, 0..10), (), |_, ()| {});
/// }
/// profiling::unregister(id);
/// let table = timer.report();
/// assert!(table.lines().any(|l| l.starts_with("timed-doc") && l.contains(" 3 ")));
/// ```
#[derive(Debug, Default)]
pub struct KernelTimer {
    stats: Mutex<BTreeMap<Key, Stats>>,
}

/// The times of one row.
#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    calls: u64,
    total: Duration,
    min: Duration,
    max: Duration,
}

impl Stats {
    fn add(&mut self, t: Duration) {
        self.min = if self.calls == 0 { t } else { self.min.min(t) };
        self.max = self.max.max(t);
        self.calls += 1;
        self.total += t;
    }

    fn mean(&self) -> f64 {
        self.total.as_secs_f64() / self.calls as f64
    }
}

/// One row of the timer: a (label, kind, space) with its calls and times
/// in seconds. With the `serde` feature it is `Serialize`, with these
/// field names (the records of `KernelTimer::json`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct KernelRecord {
    /// The label given to the pattern.
    pub label: String,
    /// The pattern.
    pub kind: KernelKind,
    /// The execution space's name.
    pub space: &'static str,
    /// How many dispatches were timed.
    pub calls: u64,
    /// Their total time.
    pub total_s: f64,
    /// `total_s / calls`.
    pub mean_s: f64,
    /// The shortest call.
    pub min_s: f64,
    /// The longest call.
    pub max_s: f64,
}

impl ProfilingHooks for KernelTimer {
    fn end_kernel(&self, info: &KernelInfo<'_>, elapsed: Duration) {
        let mut stats = self.stats.lock();
        let key = (info.label.to_owned(), info.kind, info.space);
        stats.entry(key).or_default().add(elapsed);
    }
}

impl KernelTimer {
    /// The rows, slowest total first.
    fn rows(&self) -> Vec<(Key, Stats)> {
        let stats = self.stats.lock();
        let mut rows: Vec<_> = stats.iter().map(|(k, v)| (k.clone(), *v)).collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.1.total));
        rows
    }

    /// Every row, slowest total first.
    ///
    /// ```
    /// use granule_core::prelude::*;
    /// use granule_core::profiling::{self, KernelKind, KernelTimer};
    /// use std::sync::Arc;
    /// let timer = Arc::new(KernelTimer::default());
    /// let id = profiling::register(timer.clone());
    /// parallel_for("records-doc", RangePolicy::new(&Serial, 0..10), (), |_, ()| {});
    /// profiling::unregister(id);
    /// let row = timer.records().into_iter().find(|r| r.label == "records-doc").unwrap();
    /// assert_eq!((row.kind, row.space, row.calls), (KernelKind::For, "Serial", 1));
    /// ```
    pub fn records(&self) -> Vec<KernelRecord> {
        let record = |((label, kind, space), st): (Key, Stats)| KernelRecord {
            label,
            kind,
            space,
            calls: st.calls,
            total_s: st.total.as_secs_f64(),
            mean_s: st.mean(),
            min_s: st.min.as_secs_f64(),
            max_s: st.max.as_secs_f64(),
        };
        self.rows().into_iter().map(record).collect()
    }

    /// The table: label, kind, space, calls, total and mean, slowest total first.
    pub fn report(&self) -> String {
        let rows = self.rows();
        let width = rows.iter().map(|r| r.0 .0.len()).max().unwrap_or(5).max(5);
        let mut out = format!(
            "{:<width$} {:<15} {:<8} {:>8} {:>14} {:>14}\n",
            "label", "kind", "space", "calls", "total (s)", "mean (s)"
        );
        for ((label, kind, space), st) in rows {
            out += &format!(
                "{label:<width$} {:<15} {space:<8} {:>8} {:>14.6} {:>14.9}\n",
                kind.to_string(),
                st.calls,
                st.total.as_secs_f64(),
                st.mean()
            );
        }
        out
    }

    /// The [`records`](Self::records) as a JSON array, one object per line,
    /// slowest total first: `label`, `kind`, `space`, `calls`, and the
    /// `total_s`, `mean_s`, `min_s` and `max_s` times in seconds.
    ///
    /// ```
    /// use granule_core::prelude::*;
    /// use granule_core::profiling::{self, KernelTimer};
    /// use std::sync::Arc;
    /// let timer = Arc::new(KernelTimer::default());
    /// let id = profiling::register(timer.clone());
    /// parallel_for("json \"doc\"", RangePolicy::new(&Serial, 0..10), (), |_, ()| {});
    /// profiling::unregister(id);
    /// let json = timer.json();
    /// assert!(json.starts_with('['), "{json}");
    /// assert!(json.contains(r#"{"label":"json \"doc\"","kind":"parallel_for","space":"Serial","calls":1,"#), "{json}");
    /// ```
    #[cfg(feature = "serde")]
    pub fn json(&self) -> String {
        let lines: Vec<String> = self
            .records()
            .iter()
            .map(|r| {
                // Strings, numbers and a unit enum: nothing that can fail.
                let object = serde_json::to_string(r).expect("a KernelRecord serializes");
                format!("  {object}")
            })
            .collect();
        match lines.is_empty() {
            true => "[]\n".to_string(),
            false => format!("[\n{}\n]\n", lines.join(",\n")),
        }
    }
}

static ENV_TIMER: OnceLock<Arc<KernelTimer>> = OnceLock::new();

/// The report of the timer that [`KERNEL_TIMER_ENV`] switched on, if it is on.
pub fn kernel_timer_report() -> Option<String> {
    ENV_TIMER.get().map(|t| t.report())
}

extern "C" fn report_at_exit() {
    let Some(timer) = ENV_TIMER.get() else {
        return;
    };
    use std::io::Write;
    if std::env::var(KERNEL_TIMER_ENV).is_ok_and(|v| v == "1") {
        let _ = writeln!(
            std::io::stderr(),
            "granule kernel timer\n{}",
            timer.report()
        );
    }
    #[cfg(feature = "serde")]
    if let Some(path) = std::env::var_os(KERNEL_TIMER_JSON_ENV) {
        if let Err(e) = std::fs::write(&path, timer.json()) {
            let _ = writeln!(
                std::io::stderr(),
                "granule kernel timer: writing {KERNEL_TIMER_JSON_ENV}={}: {e}",
                std::path::Path::new(&path).display()
            );
        }
    }
}

extern "C" {
    fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
}

/// Whether [`KERNEL_TIMER_JSON_ENV`] asks for a JSON file this build can
/// write; without the `serde` feature a request is reported (the user set
/// the variable and would otherwise find no file, with no reason).
fn json_from_env() -> bool {
    let asked = std::env::var_os(KERNEL_TIMER_JSON_ENV).is_some_and(|p| !p.is_empty());
    if asked && cfg!(not(feature = "serde")) {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "granule kernel timer: {KERNEL_TIMER_JSON_ENV} needs granule's `serde` feature; \
             no JSON is written"
        );
        return false;
    }
    asked
}

pub(super) fn install_from_env() {
    let table = std::env::var(KERNEL_TIMER_ENV).is_ok_and(|v| v == "1");
    let json = json_from_env();
    if table || json {
        let timer = ENV_TIMER
            .get_or_init(|| Arc::new(KernelTimer::default()))
            .clone();
        super::register(timer);
        // SAFETY: `atexit` is the C library's; the callback is a plain
        // `extern "C" fn` with no arguments that does not unwind (write
        // errors are reported, never panicked on).
        unsafe { atexit(report_at_exit) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timer with one call of `label`, for `kind`, on Serial.
    #[cfg(feature = "serde")]
    fn one_call(label: &str, kind: KernelKind) -> KernelTimer {
        let timer = KernelTimer::default();
        let info = KernelInfo {
            label,
            kind,
            space: "Serial",
            policy: "Range",
            id: 0,
        };
        timer.end_kernel(&info, Duration::from_micros(3));
        timer
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_strings_escape_quotes_backslashes_and_control_characters() {
        for label in ["plain é", "a\"b\\c", "l\n\t\u{1}"] {
            let json = one_call(label, KernelKind::Scan).json();
            let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(parsed[0]["label"], label, "{json}");
            assert_eq!(parsed[0]["kind"], "parallel_scan", "{json}");
            assert_eq!(json.lines().count(), 3, "one record per line: {json}");
        }
        assert_eq!(KernelTimer::default().json(), "[]\n");
    }

    #[test]
    fn stats_keep_the_shortest_and_longest_call() {
        let mut s = Stats::default();
        for ms in [5, 2, 9] {
            s.add(Duration::from_millis(ms));
        }
        assert_eq!(
            (s.calls, s.min, s.max),
            (3, Duration::from_millis(2), Duration::from_millis(9))
        );
        assert_eq!(s.total, Duration::from_millis(16));
    }
}
