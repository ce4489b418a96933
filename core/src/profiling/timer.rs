//! The built-in kernel timer: per label, the number of calls, the total,
//! mean, shortest and longest time, printed as a table when the process
//! exits, and written as JSON for tools and plots when asked.

use super::{KernelInfo, KernelKind, ProfilingHooks};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Set this environment variable to `1` to time every dispatch and print
/// the table at exit (to stderr).
pub const KERNEL_TIMER_ENV: &str = "GRANULE_KERNEL_TIMER";

/// Set this environment variable to a file path to time every dispatch
/// and write [`KernelTimer::json`] there at exit (the table is printed
/// only if [`KERNEL_TIMER_ENV`] is `1` too).
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

    /// The rows as a JSON array, slowest total first: one object per
    /// (label, kind, space) with `calls` and the `total`, `mean`, `min` and
    /// `max` times in seconds.
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
    /// assert!(json.contains(r#""label": "json \"doc\"", "kind": "parallel_for", "space": "Serial", "calls": 1,"#), "{json}");
    /// ```
    pub fn json(&self) -> String {
        let records: Vec<String> = self
            .rows()
            .into_iter()
            .map(|((label, kind, space), st)| {
                format!(
                    "  {{\"label\": {}, \"kind\": {}, \"space\": {}, \"calls\": {}, \
                     \"total_s\": {:e}, \"mean_s\": {:e}, \"min_s\": {:e}, \"max_s\": {:e}}}",
                    json_string(&label),
                    json_string(&kind.to_string()),
                    json_string(space),
                    st.calls,
                    st.total.as_secs_f64(),
                    st.mean(),
                    st.min.as_secs_f64(),
                    st.max.as_secs_f64()
                )
            })
            .collect();
        match records.is_empty() {
            true => "[]\n".to_string(),
            false => format!("[\n{}\n]\n", records.join(",\n")),
        }
    }
}

/// `s` as a JSON string literal (RFC 8259: quote, backslash and control
/// characters escaped; everything else is valid UTF-8 as it is).
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
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

pub(super) fn install_from_env() {
    let table = std::env::var(KERNEL_TIMER_ENV).is_ok_and(|v| v == "1");
    let json = std::env::var_os(KERNEL_TIMER_JSON_ENV).is_some_and(|p| !p.is_empty());
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

    #[test]
    fn json_strings_escape_quotes_backslashes_and_control_characters() {
        assert_eq!(json_string("plain é"), "\"plain é\"");
        assert_eq!(json_string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(json_string("l\n\t\u{1}"), r#""l\n\t\u0001""#);
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
