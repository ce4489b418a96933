//! The built-in kernel timer: per label, the number of calls, the total
//! and the mean time, printed as a table when the process exits.

use super::{KernelInfo, KernelKind, ProfilingHooks};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Set this environment variable to `1` to time every dispatch and print
/// the table at exit (to stderr).
pub const KERNEL_TIMER_ENV: &str = "GRANULE_KERNEL_TIMER";

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
    stats: Mutex<BTreeMap<Key, (u64, Duration)>>,
}

impl ProfilingHooks for KernelTimer {
    fn end_kernel(&self, info: &KernelInfo<'_>, elapsed: Duration) {
        let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        let key = (info.label.to_owned(), info.kind, info.space);
        let e = stats.entry(key).or_default();
        e.0 += 1;
        e.1 += elapsed;
    }
}

impl KernelTimer {
    /// The table: label, kind, space, calls, total and mean, slowest total first.
    pub fn report(&self) -> String {
        let stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        let mut rows: Vec<_> = stats.iter().collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.1 .1));
        let width = rows.iter().map(|r| r.0 .0.len()).max().unwrap_or(5).max(5);
        let mut out = format!(
            "{:<width$} {:<15} {:<8} {:>8} {:>14} {:>14}\n",
            "label", "kind", "space", "calls", "total (s)", "mean (s)"
        );
        for ((label, kind, space), (calls, total)) in rows {
            let mean = total.as_secs_f64() / *calls as f64;
            out += &format!(
                "{label:<width$} {:<15} {space:<8} {calls:>8} {:>14.6} {mean:>14.9}\n",
                kind.to_string(),
                total.as_secs_f64()
            );
        }
        out
    }
}

static ENV_TIMER: OnceLock<Arc<KernelTimer>> = OnceLock::new();

/// The report of the timer that [`KERNEL_TIMER_ENV`] switched on, if it is on.
pub fn kernel_timer_report() -> Option<String> {
    ENV_TIMER.get().map(|t| t.report())
}

extern "C" fn print_at_exit() {
    if let Some(report) = kernel_timer_report() {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "granule kernel timer\n{report}");
    }
}

extern "C" {
    fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
}

pub(super) fn install_from_env() {
    if std::env::var(KERNEL_TIMER_ENV).is_ok_and(|v| v == "1") {
        let timer = ENV_TIMER
            .get_or_init(|| Arc::new(KernelTimer::default()))
            .clone();
        super::register(timer);
        // SAFETY: `atexit` is the C library's; the callback is a plain
        // `extern "C" fn` with no arguments that does not unwind (write errors are ignored).
        unsafe { atexit(print_at_exit) };
    }
}
