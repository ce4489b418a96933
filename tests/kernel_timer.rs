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
