//! A tour of granule in one run: `cargo run --release --example tour`.
//!
//! On the default execution space (Rayon with the default features, Cuda
//! with `--features cuda`) it runs an axpy, a dot product (a reduction),
//! an exclusive scan, a stream compaction and a sort (from
//! `granule::algorithms`), yᵀAx with a team policy, and a 2-D MDRange
//! stencil. Each step shows a progress bar, checks its result against a
//! plain sequential loop, and prints its GB/s beside the GB/s of that
//! loop, measured in the same run (median of the repetitions). It ends
//! with the kernel-timer table.
//!
//! With `--features cuda` on a machine without a GPU it runs on granule's
//! CPU emulator of the CUDA device, at smaller sizes, and says so; set
//! `GRANULE_CUDA=gpu` on a machine with a GPU. `--size e` sets the
//! streaming steps' length to 2^e.
//!
//! It exits non-zero if any result is wrong.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::algorithms::{copy_if, exclusive_scan, sort};
use granule::prelude::*;
use granule::profiling::{self, KernelTimer};
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Arc;
use std::time::Instant;

/// `y(i) += a * x(i)`.
#[kernel]
pub fn tour_axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y += a * x[i];
}

/// `Σ x(i) * y(i)`.
#[kernel(reduce)]
pub fn tour_dot(i: usize, x: &View1<f64>, y: &View1<f64>, acc: &mut f64) {
    *acc += x[i] * y[i];
}

/// The compaction's predicate, an element function so that it runs on
/// Cuda too.
#[kernel]
pub fn tour_positive(v: i64) -> bool {
    v > 0
}

/// yᵀAx, one team per row: the team's threads split the columns, and one
/// member adds the row's term.
#[kernel(reduce)]
pub fn tour_yax(team: &TeamMember, y: &View1<f64>, a: &View2<f64>, x: &View1<f64>, acc: &mut f64) {
    let j = team.league_rank();
    let row = TeamThreadRange::new(team, 0..x.extent(0))
        .parallel_reduce(Sum, |i, s: &mut f64| *s += a[[j, i]] * x[i]);
    single(PerTeam(team), || *acc += y[j] * row);
}

/// One Jacobi step of the 2-D Laplace equation: the mean of the four
/// neighbours inside, the old value on the boundary.
#[kernel]
pub fn tour_stencil([i, j]: [usize; 2], out: &mut f64, t: &View2<f64>) {
    let (n, m) = (t.extent(0), t.extent(1));
    *out = if i == 0 || j == 0 || i + 1 == n || j + 1 == m {
        t[[i, j]]
    } else {
        0.25 * (t[[i - 1, j]] + t[[i + 1, j]] + t[[i, j - 1]] + t[[i, j + 1]])
    };
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// `v` with three significant digits (at least two decimals), for rates
/// that span 0.001 (the emulator) to 100 GB/s.
fn three_digits(v: f64) -> String {
    let decimals = if v > 0.0 && v.is_finite() {
        (2 - v.log10().floor() as i32).max(2) as usize
    } else {
        2
    };
    format!("{v:.decimals$}")
}
type Dev<T> = View1<T, LayoutRight, DefaultMemorySpace>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[common::Flag::new(
    &["--size"],
    "",
    "streams of 2^size elements (default 14 on the emulator, 23 elsewhere)",
)];

/// The run's settings: the space, the streaming length and repetitions.
struct Tour {
    space: DefaultExecutionSpace,
    n: usize,
    reps: usize,
    failures: Vec<String>,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("tour: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let timer = Arc::new(KernelTimer::default());
    let hooks = profiling::register(timer.clone());
    let mut tour = Tour::new()?;
    tour.axpy()?;
    tour.dot()?;
    tour.scan()?;
    tour.compaction()?;
    tour.sort()?;
    tour.yax()?;
    tour.stencil()?;
    profiling::unregister(hooks);
    println!(
        "\nkernel timer (every dispatch of this run)\n{}",
        timer.report()
    );
    if !tour.failures.is_empty() {
        return Err(format!("wrong results: {}", tour.failures.join("; ")).into());
    }
    println!("tour: every result checked");
    Ok(())
}

/// The default space; on Cuda without `GRANULE_CUDA`, the emulator.
#[cfg(feature = "cuda")]
fn default_space() -> Result<DefaultExecutionSpace> {
    Ok(granule::Cuda::from_env_or(
        granule::CudaSelection::Emulator,
    )?)
}

#[cfg(not(feature = "cuda"))]
fn default_space() -> Result<DefaultExecutionSpace> {
    Ok(DefaultExecutionSpace::default())
}

/// Whether the space runs kernels on the CPU emulator of the CUDA device.
fn emulated(space: &DefaultExecutionSpace) -> bool {
    #[cfg(feature = "cuda")]
    return space.device().name() == "emulator";
    #[cfg(not(feature = "cuda"))]
    {
        let _ = space;
        false
    }
}

impl Tour {
    fn new() -> Result<Self> {
        let flags = common::Flags::parse(&[FLAGS]);
        let space = default_space()?;
        let slow = emulated(&space);
        let exp: u32 = flags.given("--size").unwrap_or(if slow { 14 } else { 23 });
        let n = 1usize
            .checked_shl(exp)
            .ok_or_else(|| format!("--size {exp}: 2^{exp} elements do not fit"))?;
        println!("granule tour on {}", common::describe(&space));
        if slow {
            println!(
                "no GPU selected: kernels run on granule's CPU emulator of the CUDA device, at \
                 small sizes (GRANULE_CUDA=gpu on a machine with a GPU)"
            );
        }
        let reps = if slow { 3 } else { 7 };
        Ok(Tour {
            space,
            n,
            reps,
            failures: Vec::new(),
        })
    }

    /// Median seconds of `reps` runs of `f` on the space (fenced), with a
    /// progress bar.
    fn time(&self, what: &str, mut f: impl FnMut()) -> f64 {
        let bar = ProgressBar::new(self.reps as u64).with_message(what.to_string());
        bar.set_style(
            ProgressStyle::with_template("{msg:>28} [{bar:30}] {pos}/{len}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        let mut times: Vec<f64> = (0..self.reps)
            .map(|_| {
                let (_, t) = common::timed(&self.space, &mut f);
                bar.inc(1);
                t
            })
            .collect();
        bar.finish_and_clear();
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    }

    /// Median seconds of `reps` runs of a host loop.
    fn time_host(&self, mut f: impl FnMut()) -> f64 {
        let mut times: Vec<f64> = (0..self.reps)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    }

    fn report(&mut self, step: &str, bytes: usize, t: f64, t_seq: f64, ok: bool, detail: String) {
        let gbs = |t: f64| three_digits(bytes as f64 / t / 1e9);
        println!(
            "{step:<28} {:>9} GB/s   sequential loop {:>9} GB/s   {}",
            gbs(t),
            gbs(t_seq),
            if ok { "checked" } else { "WRONG" }
        );
        if !ok {
            self.failures.push(format!("{step}: {detail}"));
        }
    }

    fn host_view<T: Element>(&self, label: &str, data: &[T]) -> Result<Dev<T>> {
        Ok(View1::from_fn_on(&self.space, label, data.len(), |i| {
            data[i]
        })?)
    }

    fn axpy(&mut self) -> Result<()> {
        let n = self.n;
        let (xs, ys): (Vec<f64>, Vec<f64>) =
            (0..n).map(|i| ((i % 7) as f64, (i % 5) as f64)).unzip();
        let x = self.host_view("x", &xs)?;
        let mut y = self.host_view("y", &ys)?;
        let a = 0.5;
        let t = self.time("axpy", || {
            parallel_for(
                "tour axpy",
                RangePolicy::new(&self.space, 0..n),
                &mut y,
                tour_axpy(a, &x),
            )
        });
        let mut seq = ys.clone();
        let t_seq = self.time_host(|| {
            for (yi, xi) in seq.iter_mut().zip(&xs) {
                *yi += a * xi;
            }
        });
        // Both applied the update `reps` times from the same start, and
        // each step is exact in f64 for these small values.
        let got = create_mirror_view_and_copy(&y)?.to_vec();
        let ok = got == seq;
        self.report(
            "axpy y += a x",
            24 * n,
            t,
            t_seq,
            ok,
            "y differs from the host loop".into(),
        );
        Ok(())
    }

    fn dot(&mut self) -> Result<()> {
        let n = self.n;
        let (xs, ys): (Vec<f64>, Vec<f64>) =
            (0..n).map(|i| ((i % 7) as f64, (i % 5) as f64)).unzip();
        let x = self.host_view("x", &xs)?;
        let y = self.host_view("y", &ys)?;
        let mut got = 0.0;
        let t = self.time("dot (parallel_reduce)", || {
            got = parallel_reduce(
                "tour dot",
                RangePolicy::new(&self.space, 0..n),
                Sum,
                tour_dot(&x, &y),
            );
        });
        let mut want = 0.0;
        let t_seq = self.time_host(|| want = xs.iter().zip(&ys).map(|(a, b)| a * b).sum::<f64>());
        // Integer-valued terms with an exact sum below 2^53: every
        // grouping gives the same bits.
        self.report(
            "dot x·y",
            16 * n,
            t,
            t_seq,
            got == want,
            format!("{got} != {want}"),
        );
        Ok(())
    }

    fn scan(&mut self) -> Result<()> {
        let n = self.n;
        let xs: Vec<i64> = (0..n as i64).map(|i| i % 13 - 6).collect();
        let x = self.host_view("x", &xs)?;
        let mut y = View::zeros_on(&self.space, "scan", n)?;
        let mut total = Ok(0);
        let t = self.time("exclusive_scan", || {
            total = exclusive_scan(&self.space, &x, &mut y, Sum, None);
        });
        let total = total?;
        let mut seq = vec![0i64; n];
        let mut want = 0;
        let t_seq = self.time_host(|| {
            let mut acc = 0i64;
            for (o, v) in seq.iter_mut().zip(&xs) {
                *o = acc;
                acc += v;
            }
            want = acc;
        });
        let ok = total == want && create_mirror_view_and_copy(&y)?.to_vec() == seq;
        self.report(
            "exclusive_scan (i64)",
            16 * n,
            t,
            t_seq,
            ok,
            "prefix sums differ".into(),
        );
        Ok(())
    }

    fn compaction(&mut self) -> Result<()> {
        let n = self.n;
        let xs: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 3 - 1).collect();
        let x = self.host_view("x", &xs)?;
        let mut y = View::zeros_on(&self.space, "kept", n)?;
        let mut kept = Ok(0);
        let t = self.time("copy_if", || {
            kept = copy_if(&self.space, &x, &mut y, tour_positive());
        });
        let kept = kept?;
        let mut seq = Vec::with_capacity(n);
        let t_seq = self.time_host(|| {
            seq.clear();
            seq.extend(xs.iter().copied().filter(|&v| v > 0));
        });
        let got = create_mirror_view_and_copy(&y)?.to_vec();
        let ok = kept == seq.len() && got[..kept] == seq[..];
        self.report(
            "copy_if v > 0 (i64)",
            8 * n + 8 * seq.len(),
            t,
            t_seq,
            ok,
            "kept elements differ".into(),
        );
        Ok(())
    }

    fn sort(&mut self) -> Result<()> {
        let n = self.n;
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let keys: Vec<u32> = (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 32) as u32
            })
            .collect();
        let mut v = self.host_view("keys", &keys)?;
        let mut sorted = Ok(());
        // Each repetition sorts fresh keys: a copy in, then the sort.
        let fresh = self.host_view("fresh keys", &keys)?;
        let t = self.time("sort (radix)", || {
            if deep_copy(&mut v, &fresh).is_ok() {
                sorted = sort(&self.space, &mut v);
            }
        });
        sorted?;
        let mut seq = keys.clone();
        let t_seq = self.time_host(|| {
            seq.copy_from_slice(&keys);
            seq.sort_unstable();
        });
        let ok = create_mirror_view_and_copy(&v)?.to_vec() == seq;
        self.report(
            "sort u32 (vs sort_unstable)",
            4 * n,
            t,
            t_seq,
            ok,
            "keys out of order".into(),
        );
        Ok(())
    }

    fn yax(&mut self) -> Result<()> {
        let (rows, cols) = if emulated(&self.space) {
            (64, 256)
        } else {
            (2048, 2048)
        };
        let y_at = |j: usize| (j % 5 + 1) as f64;
        let x_at = |i: usize| (i % 7 + 1) as f64;
        let a_at = |j: usize, i: usize| ((i + 2 * j) % 3 + 1) as f64;
        let y = View::from_fn_on(&self.space, "y", rows, y_at)?;
        let x = View::from_fn_on(&self.space, "x", cols, x_at)?;
        let a = View::from_fn_on(&self.space, "A", [rows, cols], |[j, i]| a_at(j, i))?;
        let host_a: Vec<f64> = (0..rows * cols).map(|k| a_at(k / cols, k % cols)).collect();
        let policy = TeamPolicy::new(&self.space, rows, AUTO);
        let mut got = 0.0;
        let t = self.time("yAx (team policy)", || {
            got = parallel_reduce("tour yAx", policy, Sum, tour_yax(&y, &a, &x));
        });
        let mut want = 0.0;
        let t_seq = self.time_host(|| {
            want = (0..rows)
                .map(|j| {
                    y_at(j)
                        * host_a[j * cols..(j + 1) * cols]
                            .iter()
                            .enumerate()
                            .map(|(i, a)| a * x_at(i))
                            .sum::<f64>()
                })
                .sum();
        });
        let step = format!("yAx {rows}x{cols} (team {})", policy.team_size());
        self.report(
            &step,
            8 * (rows * cols + rows + cols),
            t,
            t_seq,
            got == want,
            format!("{got} != {want}"),
        );
        Ok(())
    }

    fn stencil(&mut self) -> Result<()> {
        let side = if emulated(&self.space) { 128 } else { 2048 };
        let t_at = |i: usize, j: usize| ((i * 3 + j * 5) % 11) as f64;
        let t0 = View::from_fn_on(&self.space, "T", [side, side], |[i, j]| t_at(i, j))?;
        let mut t1 = View::zeros_on(&self.space, "T next", [side, side])?;
        let t = self.time("stencil (MDRange)", || {
            let policy = MDRangePolicy::new(&self.space, [0, 0], [side, side]);
            parallel_for("tour stencil", policy, &mut t1, tour_stencil(&t0));
        });
        let host: Vec<f64> = (0..side * side).map(|k| t_at(k / side, k % side)).collect();
        let mut seq = vec![0.0; side * side];
        let t_seq = self.time_host(|| {
            for i in 0..side {
                for j in 0..side {
                    let at = |i: usize, j: usize| host[i * side + j];
                    seq[i * side + j] = if i == 0 || j == 0 || i + 1 == side || j + 1 == side {
                        at(i, j)
                    } else {
                        0.25 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1))
                    };
                }
            }
        });
        let ok = create_mirror_view_and_copy(&t1)?.to_vec() == seq;
        self.report(
            &format!("stencil {side}x{side} (MDRange)"),
            16 * side * side,
            t,
            t_seq,
            ok,
            "cells differ".into(),
        );
        Ok(())
    }
}
