//! Team kernels with teams of many threads.

use super::*;

include!("../../../../../macros/tests/golden/team.rs");

/// Runs the golden team kernel `rows` over `league` teams of `team`
/// threads with `lanes` vector lanes; returns `out` and `counts`.
fn run_rows(
    dev: &EmuDevice,
    a: &[f64],
    x: &[f64],
    league: u32,
    team: u32,
    lanes: u32,
) -> Result<(Vec<f64>, Vec<i64>), DeviceError> {
    let module = dev.compile(
        &unit(&[Instance::new(&__GRANULE_KERNEL_rows, Pattern::Team, &[])]),
        "rows",
    )?;
    let (n, cols) = (x.len(), a.len() / league as usize);
    let ab = upload(dev, a);
    let xb = upload(dev, x);
    let outb = dev.alloc_zeroed(league as usize * 8).unwrap();
    let countsb = dev.alloc_zeroed(8 * 8).unwrap();
    let team_bytes = (n * 8) as u64;
    let mut args = KernelArgs::new();
    args.scalar(u64::from(league))
        .team_scratch([team_bytes, 0], [0, 0], 0);
    args.view(
        ab.address(),
        &[u64::from(league), cols as u64],
        &[cols as u64, 1],
        1,
    );
    view1(&mut args, &xb, n, 2);
    view1(&mut args, &outb, league as usize, 3);
    view1(&mut args, &countsb, 8, 4);
    let threads = u64::from(team * lanes);
    let smem = granule_cuda::device::reserved_smem(threads) + team_bytes.div_ceil(16) * 16;
    let cfg = LaunchConfig {
        grid_dim: (league, 1, 1),
        block_dim: (lanes, team, 1),
        shared_mem_bytes: smem as u32,
    };
    // SAFETY: (league, scratch, a, x, out, counts) as granule_team_rows
    // takes them; level-0 scratch of n f64 per team fits the dynamic shared
    // memory given, and there is no level 1.
    let r = unsafe { dev.launch_and_wait(&module, "granule_team_rows", &cfg, &args) };
    let out = download::<f64, _>(dev, &outb, league as usize);
    let counts = download::<i64, _>(dev, &countsb, 8);
    for b in [ab, xb, outb, countsb] {
        dev.free(b).unwrap();
    }
    r.map(|()| (out, counts))
}

#[test]
fn team_kernels_run_with_teams_of_many_threads() {
    let dev = device();
    let (league, team, n, cols) = (3u32, 4u32, 10usize, 6usize);
    let a: Vec<f64> = (0..league as usize * cols)
        .map(|k| (k % 5) as f64)
        .collect();
    let x: Vec<f64> = (0..n).map(|k| k as f64 * 0.5).collect();
    let (out, counts) = run_rows(&dev, &a, &x, league, team, 1).unwrap_or_else(|e| panic!("{e}"));
    let biggest = x.iter().cloned().fold(f64::MIN, f64::max);
    for row in 0..league as usize {
        let dot: f64 = (0..cols).map(|j| a[row * cols + j] * x[j]).sum();
        let ranks = f64::from(team * (team - 1) / 2);
        let expect = 6.0 * dot + biggest + 28.0 + f64::from(league + team) + ranks;
        assert_eq!(out[row], expect, "row {row}");
    }
    let expect: Vec<i64> = (0..8)
        .map(|j| i64::from(league) * j * (j + 1) / 2)
        .collect();
    assert_eq!(counts, expect);
}
