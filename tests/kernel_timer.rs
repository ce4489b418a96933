//! The kernel timer: `GRANULE_KERNEL_TIMER=1` prints a table (label,
//! calls, total, mean) when the process exits. The test runs itself as a
//! child process with the variable set and reads the child's stderr.

use granule::prelude::*;
use std::process::Command;

const CHILD: &str = "GRANULE_KERNEL_TIMER_TEST_CHILD";

#[test]
fn timer_table_is_printed_at_exit() {
    if std::env::var(CHILD).is_ok() {
        let s = Serial;
        for _ in 0..3 {
            parallel_for("timed-for", RangePolicy::new(&s, 0..1000), (), |_, ()| {});
        }
        let _: f64 = parallel_reduce(
            "timed-reduce",
            RangePolicy::new(&s, 0..10),
            Sum,
            |i, a: &mut f64| *a += i as f64,
        );
        assert!(granule::profiling::kernel_timer_report().is_some());
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "timer_table_is_printed_at_exit",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env(granule::profiling::KERNEL_TIMER_ENV, "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("granule kernel timer"), "{err}");
    let header = err
        .lines()
        .find(|l| l.starts_with("label"))
        .expect("a header row");
    for col in ["calls", "total", "mean"] {
        assert!(header.contains(col), "{header}");
    }
    let row = err
        .lines()
        .find(|l| l.starts_with("timed-for"))
        .expect("a row for timed-for");
    let cols: Vec<_> = row.split_whitespace().collect();
    assert_eq!(cols[1..4], ["parallel_for", "Serial", "3"], "{row}");
    assert!(err.lines().any(|l| l.starts_with("timed-reduce")), "{err}");
}

#[test]
fn timer_is_off_without_the_variable() {
    if std::env::var(granule::profiling::KERNEL_TIMER_ENV).is_err() {
        parallel_for("untimed", RangePolicy::new(&Serial, 0..2), (), |_, ()| {});
        assert!(granule::profiling::kernel_timer_report().is_none());
    }
}

/// `GRANULE_KERNEL_TIMER_JSON=path` alone switches the timer on and writes
/// one record per (label, kind, space) at exit, with no table on stderr.
#[cfg(feature = "serde")]
#[test]
fn timer_json_is_written_at_exit() {
    const JSON_CHILD: &str = "GRANULE_KERNEL_TIMER_JSON_TEST_CHILD";
    if std::env::var(JSON_CHILD).is_ok() {
        for _ in 0..4 {
            parallel_for(
                "json \"for\"",
                RangePolicy::new(&Serial, 0..100),
                (),
                |_, ()| {},
            );
        }
        let _: i64 = parallel_reduce(
            "json-reduce",
            RangePolicy::new(&Serial, 0..10),
            Sum,
            |i, a: &mut i64| *a += i as i64,
        );
        return;
    }
    let path = std::env::temp_dir().join(format!("granule-timer-{}.json", std::process::id()));
    let err = run_json_child("timer_json_is_written_at_exit", JSON_CHILD, &path);
    assert!(
        !err.contains("granule kernel timer"),
        "a table without GRANULE_KERNEL_TIMER=1: {err}"
    );
    let json = std::fs::read_to_string(&path).expect("the JSON file the child wrote");
    let _ = std::fs::remove_file(&path);
    let records: Vec<serde_json::Value> = serde_json::from_str(&json).expect("a JSON array");
    assert_eq!(records.len(), 2, "{json}");
    let for_row = records
        .iter()
        .find(|r| r["label"] == "json \"for\"")
        .unwrap_or_else(|| panic!("no record of the for: {json}"));
    assert_eq!(for_row["kind"], "parallel_for", "{for_row}");
    assert_eq!(for_row["space"], "Serial", "{for_row}");
    assert_eq!(for_row["calls"], 4, "{for_row}");
    let seconds = |key: &str| {
        for_row[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} in {for_row}"))
    };
    let (total, mean, min, max) = (
        seconds("total_s"),
        seconds("mean_s"),
        seconds("min_s"),
        seconds("max_s"),
    );
    assert!(min <= mean && mean <= max && max <= total, "{for_row}");
    assert!(
        (mean * 4.0 - total).abs() <= 1e-9 * total.max(1.0),
        "{for_row}"
    );
}

/// Without the `serde` feature, `GRANULE_KERNEL_TIMER_JSON` is reported on
/// stderr and no file is written.
#[cfg(not(feature = "serde"))]
#[test]
fn timer_json_without_serde_says_so() {
    const JSON_CHILD: &str = "GRANULE_KERNEL_TIMER_NO_SERDE_TEST_CHILD";
    if std::env::var(JSON_CHILD).is_ok() {
        parallel_for("no-json", RangePolicy::new(&Serial, 0..10), (), |_, ()| {});
        return;
    }
    let path = std::env::temp_dir().join(format!("granule-timer-none-{}.json", std::process::id()));
    let err = run_json_child("timer_json_without_serde_says_so", JSON_CHILD, &path);
    assert!(err.contains("needs granule's `serde` feature"), "{err}");
    assert!(!path.exists(), "{} was written", path.display());
}

/// Runs this binary's `test` as a child with `child` set and the timer's
/// JSON going to `path`; returns the child's stderr.
fn run_json_child(test: &str, child: &str, path: &std::path::Path) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(child, "1")
        .env_remove(granule::profiling::KERNEL_TIMER_ENV)
        .env(granule::profiling::KERNEL_TIMER_JSON_ENV, path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "child failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}
