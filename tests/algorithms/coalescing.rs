//! How the Cuda drivers' global loads and stores coalesce, from the
//! emulator's sector counts (an emulator of its own, whatever
//! `GRANULE_CUDA` says): per entry point, the sectors a GPU would need for
//! the bytes of each warp-wide instruction over the sectors it touches.
//! Budgets hold the drivers' loads at whole sectors, so a change that
//! breaks coalescing fails here, without a GPU. `cargo test --features
//! cuda --test algorithms coalescing -- --nocapture` prints the table.

use crate::common::{read, view_in, Rng};
use crate::functions::below;
use granule::algorithms::{copy_if, exclusive_scan, reduce, sort, sort_by_key};
use granule::prelude::*;
use granule_cuda::emu::{EmuDevice, EmuOptions, EmuStats};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// Eight full tiles of every driver here, and a partial one.
const N: usize = (1 << 16) + 1000;

/// The loads' budget of the drivers tuned for bandwidth.
const LOAD_BUDGET: f64 = 0.95;

/// A Cuda space over a sector-counting emulator (unchecked: the race
/// detector has its own tests), shared by these tests one at a time.
fn counted<R>(f: impl FnOnce(&granule::Cuda) -> R) -> (R, BTreeMap<String, EmuStats>) {
    static SPACE: OnceLock<(Arc<EmuDevice>, granule::Cuda)> = OnceLock::new();
    static COUNTED: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let (emu, cuda) = SPACE.get_or_init(|| {
        let options = EmuOptions {
            sectors: true,
            checked: false,
            ..Default::default()
        };
        let emu = Arc::new(EmuDevice::with_options(options).expect("an emulator"));
        (emu.clone(), granule::Cuda::with_device(emu))
    });
    let _one = COUNTED.lock().unwrap_or_else(|e| e.into_inner());
    emu.take_entry_stats();
    let r = f(cuda);
    (r, emu.take_entry_stats())
}

/// Prints each entry's efficiencies and checks the loads of the entries
/// whose name contains one of `budgeted` against [`LOAD_BUDGET`].
fn check(what: &str, by_entry: &BTreeMap<String, EmuStats>, budgeted: &[&str]) {
    let show = |e: Option<f64>| e.map_or("-".to_string(), |e| format!("{e:.3}"));
    let mut table = format!("{what}: sector efficiency of loads, stores\n");
    for (entry, s) in by_entry {
        table.push_str(&format!(
            "  {entry:<56} {:>6} {:>6}\n",
            show(s.load_efficiency()),
            show(s.store_efficiency())
        ));
    }
    println!("{table}");
    let mut checked = 0;
    for (entry, s) in by_entry {
        if budgeted.iter().any(|b| entry.contains(b)) {
            let e = s
                .load_efficiency()
                .expect("the driver loads from global memory");
            assert!(
                e >= LOAD_BUDGET,
                "{entry}: loads at {e:.3} of whole sectors, budget {LOAD_BUDGET}\n{table}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "{what}: no entry named {budgeted:?}\n{table}");
}

#[test]
fn the_scans_load_whole_sectors() {
    let mut rng = Rng::new(61);
    let small = rng.vec(N, |r| (r % 7) as i32 - 3);
    let wide = rng.vec(N, |r| (r % 7) as i64 - 3);
    let ((a, b), by_entry) = counted(|c| {
        let x = view_in(c, "x", small.clone());
        let mut y = view_in(c, "y", vec![0i32; N]);
        exclusive_scan(c, &x, &mut y, Sum, None).unwrap();
        let w = view_in(c, "w", wide.clone());
        let mut z = view_in(c, "z", vec![0i64; N]);
        exclusive_scan(c, &w, &mut z, Sum, None).unwrap();
        (read(&y), read(&z))
    });
    let mut acc = 0;
    assert!(small.iter().zip(&a).all(|(&v, &s)| {
        let ok = s == acc;
        acc += v;
        ok
    }));
    assert_eq!(b[N - 1], wide[..N - 1].iter().sum::<i64>());
    check("exclusive_scan i32, i64", &by_entry, &["granule_drv_scan"]);
}

#[test]
fn the_compactions_load_whole_sectors() {
    let mut rng = Rng::new(62);
    let data = rng.vec(N, |r| (r % 3) as i32);
    let (got, by_entry) = counted(|c| {
        let x = view_in(c, "x", data.clone());
        let mut y = view_in(c, "y", vec![0i32; N]);
        let kept = copy_if(c, &x, &mut y, below(2)).unwrap();
        read(&y)[..kept].to_vec()
    });
    let expect: Vec<i32> = data.iter().copied().filter(|&v| v < 2).collect();
    assert_eq!(got, expect);
    check(
        "copy_if i32 (two thirds kept)",
        &by_entry,
        &["granule_drv_copy_if"],
    );
}

#[test]
fn the_radix_passes_load_whole_sectors() {
    let mut rng = Rng::new(63);
    let keys = rng.vec(N, |r| r as u32);
    let ((k, v), by_entry) = counted(|c| {
        let mut k = view_in(c, "k", keys.clone());
        let mut v = view_in(c, "v", (0..N as u32).collect());
        sort_by_key(c, &mut k, &mut v).unwrap();
        let mut alone = view_in(c, "alone", keys.clone());
        sort(c, &mut alone).unwrap();
        assert_eq!(read(&alone), read(&k));
        (read(&k), read(&v))
    });
    let mut expect = keys.clone();
    expect.sort_unstable();
    assert_eq!(k, expect);
    assert!(v.iter().zip(&k).all(|(&i, &key)| keys[i as usize] == key));
    check(
        "sort and sort_by_key u32",
        &by_entry,
        &["granule_drv_radix_pass"],
    );
}

/// A scan kernel that reads its input View at its index.
#[kernel(scan)]
fn running_sum(i: usize, out: &mut i32, partial: &mut i32, last: bool, x: &View1<i32>) {
    *partial += x[i];
    if last {
        *out = *partial;
    }
}

#[test]
fn the_reductions_and_the_scan_pattern_load_whole_sectors() {
    let mut rng = Rng::new(64);
    let data = rng.vec(N, |r| (r % 7) as i32 - 3);
    let wide: Vec<f64> = data.iter().map(|&v| f64::from(v)).collect();
    let ((sum, total, scanned), by_entry) = counted(|c| {
        let w = view_in(c, "w", wide.clone());
        let sum = reduce(c, &w, Sum, None);
        let x = view_in(c, "x", data.clone());
        let mut y = view_in(c, "y", vec![0i32; N]);
        let total: i32 = parallel_scan(
            "running sum",
            RangePolicy::new(c, 0..N),
            &mut y,
            running_sum(&x),
        );
        (sum, total, read(&y))
    });
    assert_eq!(sum, wide.iter().sum::<f64>());
    assert_eq!(total, data.iter().sum::<i32>());
    assert_eq!(scanned[N - 1], total);
    check(
        "reduce f64, parallel_scan pattern i32",
        &by_entry,
        &["granule_drv_reduce", "granule_scan_sum_running_sum"],
    );
}
