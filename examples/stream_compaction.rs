//! The CUDA stream-compaction course project's report, reproduced with
//! granule on the default execution space (Rayon, or Cuda with
//! `--features cuda`: the CPU emulator with `GRANULE_CUDA=emulator`).
//!
//! The project scans and compacts an array of random integers several
//! ways and checks each against the CPU loop: a CPU scan, a CPU compaction
//! without a scan and one with a scan (map, scan, scatter); a naive GPU
//! scan (Hillis & Steele: one dispatch per level) and a work-efficient one
//! (Blelloch: an up-sweep and a down-sweep dispatch per level), both
//! written here as `#[kernel]`s driven by the host; the work-efficient
//! compaction built on it; and granule's own `exclusive_scan` and
//! `copy_if` (one launch each on Cuda). Each test runs at a power-of-two
//! size and at a size 3 below, prints the first and last elements, the
//! time and "passed", in the project's format. On the emulator each
//! device implementation also prints its launches and global-memory words
//! per element, from the emulator's counters. Sizes: 2^20 on the host,
//! 2^14 on the emulator, 2^24 on a GPU.
//!
//! It checks its own results and exits non-zero if any is wrong.

use granule::algorithms::{copy_if, exclusive_scan};
use granule::prelude::*;
use std::time::{Duration, Instant};

/// One level of the naive scan: `x` scanned over runs of `offset` already,
/// `out[i] = x[i - offset] + x[i]` doubles the runs.
#[kernel]
pub fn naive_level(i: usize, out: &mut i32, x: &View1<i32>, offset: usize) {
    *out = if i >= offset {
        x[i - offset] + x[i]
    } else {
        x[i]
    };
}

/// The inclusive scan shifted right by one: the exclusive scan.
#[kernel]
pub fn shift_right(i: usize, out: &mut i32, x: &View1<i32>) {
    *out = if i == 0 { 0 } else { x[i - 1] };
}

/// `x` padded with zeros to the length of `out` (a power of two).
#[kernel]
pub fn pad(i: usize, out: &mut i32, x: &View1<i32>) {
    *out = if i < x.extent(0) { x[i] } else { 0 };
}

/// The first elements of the padded `x`.
#[kernel]
pub fn unpad(i: usize, out: &mut i32, x: &View1<i32>) {
    *out = x[i];
}

/// Up-sweep at `stride`: node `j` adds its left child's sum into its own
/// (the right child's slot). The nodes of a level are disjoint, so each
/// element is touched by one work item; the atomic View is how granule
/// lets a work item write an element other than its own.
#[kernel]
pub fn up_sweep(j: usize, x: &AtomicView<'_, i32, 1>, stride: usize) {
    let right = (j + 1) * stride - 1;
    x.add(right, x.load(right - stride / 2));
}

/// The root of the up-swept tree becomes the identity.
#[kernel]
pub fn clear_root(_j: usize, x: &AtomicView<'_, i32, 1>, root: usize) {
    x.store(root, 0);
}

/// Down-sweep at `stride`: node `j` hands its value to its left child and
/// adds the left child's old sum to its own.
#[kernel]
pub fn down_sweep(j: usize, x: &AtomicView<'_, i32, 1>, stride: usize) {
    let right = (j + 1) * stride - 1;
    let left = right - stride / 2;
    let t = x.exchange(left, x.load(right));
    x.add(right, t);
}

/// The compaction's map: 1 for an element to keep.
#[kernel]
pub fn keep_flag(i: usize, flag: &mut i32, x: &View1<i32>) {
    *flag = (x[i] != 0) as i32;
}

/// The compaction's scatter: a kept element to its scanned index.
#[kernel]
pub fn scatter(i: usize, x: &View1<i32>, at: &View1<i32>, out: &AtomicView<'_, i32, 1>) {
    if x[i] != 0 {
        out.store(at[i] as usize, x[i]);
    }
}

/// granule's predicate: an element function, so it runs on Cuda too.
#[kernel]
pub fn nonzero(v: i32) -> bool {
    v != 0
}

type Dev<T> = View1<T, LayoutRight, DefaultMemorySpace>;
type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The space, and on the emulator the counters of its launches.
struct Bench {
    space: DefaultExecutionSpace,
    #[cfg(feature = "cuda")]
    emulator: Option<std::sync::Arc<granule_cuda::emu::EmuDevice>>,
}

impl Bench {
    /// The default space; with `--features cuda`, an emulator of the
    /// example's own when `GRANULE_CUDA` is `emulator` (or unset on a
    /// machine without a GPU), so that its counters can be read.
    fn new() -> Result<Self> {
        #[cfg(feature = "cuda")]
        {
            use granule_cuda::CudaSelection;
            let setting = std::env::var(granule_cuda::GRANULE_CUDA).ok();
            if CudaSelection::parse(setting.as_deref())? == CudaSelection::Emulator {
                let emu = std::sync::Arc::new(granule_cuda::emu::EmuDevice::new()?);
                let space = granule::Cuda::with_device(emu.clone());
                return Ok(Bench {
                    space,
                    emulator: Some(emu),
                });
            }
            Ok(Bench {
                space: granule::Cuda::from_env()?,
                emulator: None,
            })
        }
        #[cfg(not(feature = "cuda"))]
        Ok(Bench {
            space: DefaultExecutionSpace::default(),
        })
    }

    /// The array size: 2^20 on the host, 2^24 on a GPU (smaller, and the
    /// times would be launch latency), 2^14 on the emulator (which runs a
    /// thread per CUDA thread).
    #[cfg(feature = "cuda")]
    fn size(&self) -> usize {
        match self.emulator {
            Some(_) => 1 << 14,
            None => 1 << 24,
        }
    }

    /// The array size on the host: 2^20.
    #[cfg(not(feature = "cuda"))]
    fn size(&self) -> usize {
        1 << 20
    }

    /// Runs `f`, fences, and returns its result, its time and, on the
    /// emulator, a line with its launches and global words per element of
    /// `n` elements.
    fn time<R>(&self, n: usize, f: impl FnOnce() -> Result<R>) -> Result<(R, Duration, String)> {
        #[cfg(feature = "cuda")]
        if let Some(emu) = &self.emulator {
            emu.take_stats();
        }
        let start = Instant::now();
        let r = f()?;
        self.space.fence();
        let took = start.elapsed();
        #[allow(unused_mut)]
        let mut counts = String::new();
        #[cfg(feature = "cuda")]
        if let Some(emu) = &self.emulator {
            let s = emu.take_stats();
            counts = format!(
                "    {} launch(es), {:.2} global words per element (emulator counters)",
                s.launches,
                s.words_per_element(4, n as u64)
            );
        }
        let _ = n;
        Ok((r, took, counts))
    }

    fn upload(&self, label: &str, data: &[i32]) -> Result<Dev<i32>> {
        Ok(View1::from_vec_on(
            &self.space,
            label,
            data.len(),
            data.to_vec(),
        )?)
    }

    fn zeros(&self, label: &str, n: usize) -> Result<Dev<i32>> {
        Ok(View1::zeros_on(&self.space, label, n)?)
    }
}

fn download(v: &Dev<i32>) -> Result<Vec<i32>> {
    Ok(create_mirror_view_and_copy(v)?.to_vec())
}

/// The naive scan: a dispatch per level, between two buffers, then the
/// shift to an exclusive scan.
fn naive_scan(b: &Bench, x: &Dev<i32>) -> Result<Dev<i32>> {
    let n = x.extent(0);
    let mut a = b.zeros("naive a", n)?;
    let mut c = b.zeros("naive b", n)?;
    deep_copy(&mut a, x)?;
    let mut offset = 1;
    while offset < n {
        let policy = RangePolicy::new(&b.space, 0..n);
        parallel_for("naive level", policy, &mut c, naive_level(&a, offset));
        std::mem::swap(&mut a, &mut c);
        offset *= 2;
    }
    let policy = RangePolicy::new(&b.space, 0..n);
    parallel_for("naive shift", policy, &mut c, shift_right(&a));
    Ok(c)
}

/// The work-efficient scan, in place on a buffer padded to a power of
/// two: up-sweep levels, the root cleared, down-sweep levels.
fn work_efficient_scan(b: &Bench, x: &Dev<i32>) -> Result<Dev<i32>> {
    let n = x.extent(0);
    let m = n.next_power_of_two().max(1);
    let mut padded = b.zeros("padded", m)?;
    parallel_for("pad", RangePolicy::new(&b.space, 0..m), &mut padded, pad(x));
    {
        let tree = padded.atomic()?;
        let mut stride = 2;
        while stride <= m {
            let policy = RangePolicy::new(&b.space, 0..m / stride);
            parallel_for("up-sweep", policy, (), up_sweep(&tree, stride));
            stride *= 2;
        }
        let one = RangePolicy::new(&b.space, 0..1);
        parallel_for("clear root", one, (), clear_root(&tree, m - 1));
        stride = m;
        while stride >= 2 {
            let policy = RangePolicy::new(&b.space, 0..m / stride);
            parallel_for("down-sweep", policy, (), down_sweep(&tree, stride));
            stride /= 2;
        }
    }
    let mut out = b.zeros("work-efficient", n)?;
    parallel_for(
        "unpad",
        RangePolicy::new(&b.space, 0..n),
        &mut out,
        unpad(&padded),
    );
    Ok(out)
}

/// The work-efficient compaction: map, work-efficient scan, scatter.
fn work_efficient_compact(b: &Bench, x: &Dev<i32>) -> Result<(Dev<i32>, usize)> {
    let n = x.extent(0);
    let mut flags = b.zeros("flags", n)?;
    parallel_for(
        "map",
        RangePolicy::new(&b.space, 0..n),
        &mut flags,
        keep_flag(x),
    );
    let at = work_efficient_scan(b, &flags)?;
    let mut out = b.zeros("compacted", n)?;
    {
        let dst = out.atomic()?;
        let policy = RangePolicy::new(&b.space, 0..n);
        parallel_for("scatter", policy, (), scatter(x, &at, &dst));
    }
    // The count is the last offset plus the last flag: read those two
    // elements back, not the arrays (128 MB over the bus at 2^24).
    let kept = match (last(&at)?, last(&flags)?) {
        (Some(a), Some(f)) => (a + f) as usize,
        _ => 0,
    };
    Ok((out, kept))
}

/// The last element of `v`, copied to the host alone.
fn last(v: &Dev<i32>) -> Result<Option<i32>> {
    let Some(end) = v.extent(0).checked_sub(1) else {
        return Ok(None);
    };
    let tail = v.subview(end..end + 1)?;
    Ok(create_mirror_view_and_copy(&tail)?.to_vec().pop())
}

fn cpu_scan(x: &[i32]) -> Vec<i32> {
    let mut acc = 0;
    x.iter()
        .map(|&v| {
            let e = acc;
            acc += v;
            e
        })
        .collect()
}

fn cpu_compact_without_scan(x: &[i32]) -> Vec<i32> {
    x.iter().copied().filter(|&v| v != 0).collect()
}

fn cpu_compact_with_scan(x: &[i32]) -> Vec<i32> {
    let flags: Vec<i32> = x.iter().map(|&v| (v != 0) as i32).collect();
    let at = cpu_scan(&flags);
    let kept = at.last().map_or(0, |&a| a + flags[x.len() - 1]) as usize;
    let mut out = vec![0; kept];
    for (i, &v) in x.iter().enumerate() {
        if flags[i] != 0 {
            out[at[i] as usize] = v;
        }
    }
    out
}

/// The project's abridged array: the first 13 elements, then the last 2.
fn print_array(a: &[i32]) {
    let mut line = String::from("    [ ");
    let mut i = 0;
    while i < a.len() {
        if i == 13 && a.len() > 16 {
            line.push_str("... ");
            i = a.len() - 2;
        }
        line.push_str(&format!("{:3} ", a[i]));
        i += 1;
    }
    println!("{line}]");
}

fn print_desc(what: &str) {
    println!("==== {what} ====");
}

fn print_time(t: Duration, clock: &str) {
    println!(
        "   elapsed time: {:.4}ms    ({clock} Measured)",
        t.as_secs_f64() * 1e3
    );
}

/// Prints "passed" or "FAILED" and counts failures, then the emulator's
/// counts when there are some.
fn print_cmp(expect: &[i32], got: &[i32], counts: &str, failures: &mut u32) {
    if expect == got {
        println!("    passed ");
    } else {
        println!("    FAILED ");
        *failures += 1;
    }
    if !counts.is_empty() {
        println!("{counts}");
    }
}

/// Random values in `0..max`, the last one 0 (the project's `genArray`).
fn gen_array(n: usize, max: u64, seed: u64) -> Vec<i32> {
    let mut s = seed | 1;
    let mut v: Vec<i32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % max) as i32
        })
        .collect();
    if let Some(last) = v.last_mut() {
        *last = 0;
    }
    v
}

fn scan_tests(b: &Bench, size: usize, failures: &mut u32) -> Result<()> {
    let device = DefaultExecutionSpace::NAME;
    println!("\n****************\n** SCAN TESTS **\n****************");
    let a = gen_array(size, 50, 7);
    print_array(&a);
    let mut expect = Vec::new();
    for (npot, n) in [(false, size), (true, size - 3)] {
        let which = if npot {
            "non-power-of-two"
        } else {
            "power-of-two"
        };
        print_desc(&format!("cpu scan, {which}"));
        let start = Instant::now();
        let cpu = cpu_scan(&a[..n]);
        print_time(start.elapsed(), "std::time");
        print_array(&cpu);
        if npot {
            print_cmp(&expect[..n], &cpu, "", failures);
        }
        expect = cpu.clone();
        let x = b.upload("x", &a[..n])?;

        print_desc(&format!("naive scan, {which}"));
        let (out, t, counts) = b.time(n, || naive_scan(b, &x))?;
        print_time(t, device);
        print_cmp(&cpu, &download(&out)?, &counts, failures);

        print_desc(&format!("work-efficient scan, {which}"));
        let (out, t, counts) = b.time(n, || work_efficient_scan(b, &x))?;
        print_time(t, device);
        print_cmp(&cpu, &download(&out)?, &counts, failures);

        print_desc(&format!("granule exclusive_scan, {which}"));
        let mut out = b.zeros("out", n)?;
        let (_, t, counts) =
            b.time(n, || Ok(exclusive_scan(&b.space, &x, &mut out, Sum, None)?))?;
        print_time(t, device);
        let got = download(&out)?;
        print_array(&got);
        print_cmp(&cpu, &got, &counts, failures);
    }
    Ok(())
}

fn compaction_tests(b: &Bench, size: usize, failures: &mut u32) -> Result<()> {
    let device = DefaultExecutionSpace::NAME;
    println!("\n*****************************\n** STREAM COMPACTION TESTS **\n*****************************");
    let a = gen_array(size, 4, 11);
    print_array(&a);
    for (npot, n) in [(false, size), (true, size - 3)] {
        let which = if npot {
            "non-power-of-two"
        } else {
            "power-of-two"
        };
        print_desc(&format!("cpu compact without scan, {which}"));
        let start = Instant::now();
        let expect = cpu_compact_without_scan(&a[..n]);
        print_time(start.elapsed(), "std::time");
        print_array(&expect);
        if !npot {
            print_desc("cpu compact with scan");
            let start = Instant::now();
            let with_scan = cpu_compact_with_scan(&a[..n]);
            print_time(start.elapsed(), "std::time");
            print_array(&with_scan);
            print_cmp(&expect, &with_scan, "", failures);
        }
        let x = b.upload("x", &a[..n])?;

        print_desc(&format!("work-efficient compact, {which}"));
        let ((out, kept), t, counts) = b.time(n, || work_efficient_compact(b, &x))?;
        print_time(t, device);
        let got = download(&out)?;
        print_array(&got[..kept]);
        print_cmp(&expect, &got[..kept], &counts, failures);

        print_desc(&format!("granule copy_if, {which}"));
        let mut out = b.zeros("out", n)?;
        let (kept, t, counts) = b.time(n, || Ok(copy_if(&b.space, &x, &mut out, nonzero())?))?;
        print_time(t, device);
        let got = download(&out)?;
        print_array(&got[..kept]);
        print_cmp(&expect, &got[..kept], &counts, failures);
    }
    Ok(())
}

/// Every device implementation once, at a small size, unchecked and
/// untimed: the first dispatch of a kernel compiles it.
fn warm_up(b: &Bench) -> Result<()> {
    let a = gen_array(64, 4, 3);
    let x = b.upload("x", &a)?;
    naive_scan(b, &x)?;
    work_efficient_compact(b, &x)?;
    let mut out = b.zeros("out", a.len())?;
    exclusive_scan(&b.space, &x, &mut out, Sum, None)?;
    copy_if(&b.space, &x, &mut out, nonzero())?;
    Ok(())
}

fn main() -> Result<()> {
    let b = Bench::new()?;
    let size = b.size();
    println!(
        "stream compaction on {} ({} elements, and {} for non-power-of-two)",
        DefaultExecutionSpace::NAME,
        size,
        size - 3
    );
    // A first run at a small size compiles every kernel (NVRTC, or the
    // emulator's compiler), so the timed runs below measure launches.
    warm_up(&b)?;
    let mut failures = 0;
    scan_tests(&b, size, &mut failures)?;
    compaction_tests(&b, size, &mut failures)?;
    if failures > 0 {
        eprintln!("{failures} test(s) FAILED");
        std::process::exit(1);
    }
    Ok(())
}
