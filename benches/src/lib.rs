//! # granule-bench
//!
//! granule's benchmarks and the tool that turns their results into the
//! figures of `benches/RESULTS.md`. The benches (`benches/*.rs`, criterion
//! with `harness = false`) each measure a workload beside a baseline run
//! in the same process: a bound (a streaming copy of the same bytes), the
//! sequential loop, or a peer crate. Run them with
//! `cargo bench -p granule-bench --bench <name>`; `--features cuda` adds
//! `cuda_patterns` and the emulator's counts.
//!
//! This library is the `plot` tool's: criterion saves every benchmark
//! under `<criterion>/<group>/<function>/new/` (`benchmark.json` with its
//! ids and throughput, `estimates.json` with its times in ns), and
//!
//! - [`results`] reads those folders: the medians of every group, and the
//!   sized groups (`<family>_2^k` or `<family>_2^k-d`) as GB/s series;
//! - [`medians`] prints each group's medians with their ratios to the
//!   group's baselines (criterion prints the mean, which a few slow
//!   outliers on a shared machine pull up; the median resists them);
//! - [`chart`] draws one PNG per family, GB/s against size.
//!
//! `scripts/plot-benches` runs it (`cargo run -p granule-bench --bin
//! plot -- --help`).

pub mod chart;
pub mod medians;
pub mod results;

pub use results::Error;
