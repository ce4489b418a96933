//! Kernel dispatch on Cuda through the emulator: the patterns of
//! granule-core, run by `#[kernel]` functors over Views in the space's
//! memory. The behaviour every space shares is in the conformance suite;
//! these are the CUDA-specific cases (launch geometry, many blocks, team
//! limits, device errors).

use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_core::reducer::Prod;
use granule_cuda::device::{reserved_smem, STATIC_SMEM_ALLOWANCE};
use granule_cuda::{Cuda, CudaSelection, CudaSpace};
use granule_views::{create_mirror_view_and_copy, deep_copy, LayoutLeft, LayoutRight};
use std::sync::OnceLock;

/// The space under test: the emulator, or what `GRANULE_CUDA` names (a
/// GPU run sets `GRANULE_CUDA=gpu`).
fn cuda() -> Cuda {
    static SPACE: OnceLock<Cuda> = OnceLock::new();
    SPACE
        .get_or_init(|| {
            Cuda::from_env_or(CudaSelection::Emulator).unwrap_or_else(|e| panic!("{e}"))
        })
        .clone()
}

type DView1<T> = View1<T, LayoutRight, CudaSpace>;

fn upload<T: granule_views::Element>(s: &Cuda, label: &str, v: Vec<T>) -> DView1<T> {
    let n = v.len();
    let host = View1::<T>::from_vec(label, n, v).unwrap();
    let mut d = DView1::<T>::zeros_in(s.memory_space(), label, n).unwrap();
    deep_copy(&mut d, &host).unwrap();
    d
}

fn download<T: granule_views::Element>(v: &DView1<T>) -> Vec<T> {
    create_mirror_view_and_copy(v).unwrap().as_view().to_vec()
}

#[kernel(crate = granule_core)]
fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y += a * x[i];
}

#[kernel(crate = granule_core, reduce)]
fn sum_i64(i: usize, x: &View1<i64>, acc: &mut i64) {
    *acc += x[i];
}

#[kernel(crate = granule_core, scan)]
fn inclusive(i: usize, x: &View1<i32>, out: &mut i32, p: &mut i32, last: bool) {
    *p += x[i];
    if last {
        *out = *p;
    }
}

#[kernel(crate = granule_core, scan)]
fn running_product(i: usize, out: &mut f64, p: &mut f64, last: bool) {
    if last {
        *out = *p;
    }
    *p *= 1.0 + (i % 3) as f64 * 0.5;
}

#[test]
fn range_geometry_at_warp_and_block_edges() {
    let s = cuda();
    for n in [1usize, 31, 32, 33, 1023, (1 << 20) + 3] {
        let x = upload(&s, "x", (0..n).map(|i| i as f64).collect());
        let mut y = upload(&s, "y", vec![1.0; n]);
        parallel_for("axpy", RangePolicy::new(&s, 0..n), &mut y, axpy(2.0, &x));
        let got = download(&y);
        for i in [0, n / 2, n - 1] {
            assert_eq!(got[i], 2.0 * i as f64 + 1.0, "n = {n}, y[{i}]");
        }
        assert!(got
            .iter()
            .enumerate()
            .all(|(i, &v)| v == 2.0 * i as f64 + 1.0));
    }
}

#[test]
fn a_range_with_an_offset_writes_only_its_indices() {
    let s = cuda();
    let n = 1000;
    let x = upload(&s, "x", vec![1.0; n]);
    let mut y = upload(&s, "y", vec![0.0; n]);
    parallel_for(
        "part",
        RangePolicy::new(&s, 100..777),
        &mut y,
        axpy(3.0, &x),
    );
    let got = download(&y);
    for (i, &v) in got.iter().enumerate() {
        let expect = if (100..777).contains(&i) { 3.0 } else { 0.0 };
        assert_eq!(v, expect, "y[{i}]");
    }
}

#[test]
fn reductions_and_scans_span_many_blocks() {
    let s = cuda();
    let n = (1 << 20) + 77;
    let x = upload(&s, "x", (0..n as i64).map(|i| i % 1000 - 400).collect());
    let expect: i64 = (0..n as i64).map(|i| i % 1000 - 400).sum();
    let got: i64 = parallel_reduce("sum", RangePolicy::new(&s, 0..n), Sum, sum_i64(&x));
    assert_eq!(got, expect);

    let m = 300_001;
    let xs = upload(&s, "xs", (0..m as i32).map(|i| i % 7 - 3).collect());
    let mut out = upload(&s, "out", vec![0i32; m]);
    let total = parallel_scan("incl", RangePolicy::new(&s, 0..m), &mut out, inclusive(&xs));
    let got = download(&out);
    let mut run = 0;
    for (i, &v) in got.iter().enumerate() {
        run += (i % 7) as i32 - 3;
        assert_eq!(v, run, "out[{i}]");
    }
    assert_eq!(total, run);
}

#[test]
fn a_scan_with_another_reducer_and_its_total() {
    let s = cuda();
    let n = 40;
    let mut out = upload(&s, "out", vec![0.0f64; n]);
    let total = parallel_scan_with(
        "prod",
        RangePolicy::new(&s, 0..n),
        Prod,
        &mut out,
        running_product(),
    );
    let got = download(&out);
    let mut p = 1.0f64;
    for (i, &v) in got.iter().enumerate() {
        assert_eq!(v, p, "out[{i}]");
        p *= 1.0 + (i % 3) as f64 * 0.5;
    }
    assert_eq!(total, p);
}

#[test]
fn float_scans_are_bitwise_reproducible_run_to_run() {
    let s = cuda();
    let n = 70_001;
    let mut first: Option<(Vec<f64>, f64)> = None;
    for _ in 0..3 {
        let mut out = upload(&s, "out", vec![0.0f64; n]);
        let total = parallel_scan_with(
            "prod",
            RangePolicy::new(&s, 0..n),
            Sum,
            &mut out,
            running_product(),
        );
        let got = (download(&out), total);
        match &first {
            None => first = Some(got),
            Some(f) => {
                assert!(f
                    .0
                    .iter()
                    .zip(&got.0)
                    .all(|(a, b)| a.to_bits() == b.to_bits()));
                assert_eq!(f.1.to_bits(), got.1.to_bits());
            }
        }
    }
}

#[kernel(crate = granule_core, reduce)]
fn team_ids(m: &TeamMember, acc: &mut usize) {
    let v = m.team_rank() + m.team_size() * m.league_rank();
    let t = m.team_reduce(Sum, v);
    if m.team_rank() == 0 {
        *acc += t;
    }
}

#[test]
fn teams_of_many_threads_and_vector_lanes() {
    let s = cuda();
    for (league, team, lanes) in [(7usize, 64usize, 1usize), (5, 8, 4), (3, 1, 32)] {
        let p = TeamPolicy::new(&s, league, team)
            .with_vector_length(lanes)
            .unwrap();
        let r: usize = parallel_reduce("ids", p, Sum, team_ids());
        let t = league * team;
        assert_eq!(
            r,
            t * (t - 1) / 2,
            "league {league}, team {team}, lanes {lanes}"
        );
    }
    let auto = TeamPolicy::new(&s, 4, AUTO);
    assert!(
        auto.team_size() > 1,
        "Cuda's recommended team size is a block"
    );
}

/// `TeamPolicy::new(.., AUTO).with_vector_length(v)`, as a Kokkos user
/// writes `TeamPolicy(league, AUTO, v)`: the team shrinks so that its
/// threads times lanes fit a block, and the dispatch runs.
#[test]
fn an_auto_team_fits_its_vector_lanes_in_a_block() {
    let s = cuda();
    for lanes in [1usize, 4, 32] {
        let p = TeamPolicy::new(&s, 5, AUTO)
            .with_vector_length(lanes)
            .unwrap();
        assert_eq!(p.team_size(), (s.team_size_recommended() / lanes).max(1));
        assert!(p.team_size() * lanes <= s.team_size_max());
        let r: usize = parallel_reduce("auto ids", p, Sum, team_ids());
        let t = 5 * p.team_size();
        assert_eq!(r, t * (t - 1) / 2, "lanes {lanes}");
    }
}

#[kernel(crate = granule_core, reduce)]
fn fill_scratch(m: &TeamMember, n: usize, acc: &mut u64) {
    let mut t = m.team_scratch::<u8, 1>(0, n).unwrap();
    TeamThreadRange::new(m, 0..n).parallel_for(|i| t[i] = 1);
    m.team_barrier();
    let s = TeamThreadRange::new(m, 0..n).parallel_reduce(Sum, |i, a: &mut u64| *a += t[i] as u64);
    if m.team_rank() == 0 {
        *acc += s;
    }
}

/// `scratch_size_max(0)` is the device's shared memory per block less
/// the drivers' words of the largest block and an allowance for their
/// static shared variables: it fits a team of that size, and only the
/// rounding of per-thread regions can pass the policy's check yet not
/// fit, which the dispatch refuses. On a GPU the launch needs the
/// function's opt-in to more than 48 KiB.
#[test]
fn team_scratch_at_the_device_limit() {
    let s = cuda();
    let limits = s.device().limits();
    let team = limits.max_threads_per_block as usize;
    let reserved = reserved_smem(team as u64) + STATIC_SMEM_ALLOWANCE;
    let max = s.scratch_size_max(0);
    assert_eq!(
        max as u64,
        u64::from(limits.max_shared_mem_bytes) - reserved
    );
    let n = max / 16 * 16;
    let p = TeamPolicy::new(&s, 2, team)
        .with_scratch_size(0, PerTeam(n))
        .unwrap();
    let got: u64 = parallel_reduce("at-limit", p, Sum, fill_scratch(n));
    assert_eq!(got, 2 * n as u64);

    // n bytes asked (within the maximum), n + 15 * team once each
    // thread's byte is rounded to its 16-byte region.
    let over = TeamPolicy::new(&s, 2, team)
        .with_scratch_size(0, PerTeam(n - team))
        .and_then(|p| p.with_scratch_size(0, PerThread(1)))
        .unwrap();
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _: u64 = parallel_reduce("over", over, Sum, fill_scratch(n));
    }))
    .expect_err("scratch above the device limit is refused");
    let msg = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or("");
    assert!(
        msg.contains("\"over\"") && msg.contains("shared memory per block"),
        "{msg}"
    );
}

/// Dynamic shared memory of exactly the device's maximum passes the
/// dispatch's check; the kernel's team reductions keep static shared
/// memory too, which the emulator does not model and a GPU counts: there
/// the launch is refused with both sizes instead of failing in the driver.
#[test]
fn static_shared_memory_counts_against_the_maximum_on_a_gpu() {
    let s = cuda();
    let limits = s.device().limits();
    let team = limits.max_threads_per_block as usize;
    // reserved + round16(per_team) + 16 * team == the maximum.
    let per_team =
        limits.max_shared_mem_bytes as usize - reserved_smem(team as u64) as usize - 16 * team;
    let p = TeamPolicy::new(&s, 1, team)
        .with_scratch_size(0, PerTeam(per_team))
        .and_then(|p| p.with_scratch_size(0, PerThread(1)))
        .unwrap();
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _: u64 = parallel_reduce("full", p, Sum, fill_scratch(per_team));
    }));
    if s.device().name() == "emulator" {
        assert!(run.is_ok(), "the emulator keeps static shared memory apart");
    } else {
        let err = run.expect_err("static + dynamic exceed the maximum");
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("bytes of static shared memory"), "{msg}");
    }
}

#[test]
fn a_view_of_another_device_is_refused_before_launch() {
    let s = cuda();
    // A second instance of the same kind of device: a separate allocation
    // registry, so its Views are not this space's.
    let other = Cuda::from_env_or(CudaSelection::Emulator).unwrap();
    let x = upload(&other, "elsewhere", vec![1.0; 8]);
    let mut y = upload(&s, "y", vec![0.0; 8]);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parallel_for("mixed", RangePolicy::new(&s, 0..8), &mut y, axpy(1.0, &x));
    }))
    .expect_err("a View of another device cannot be launched");
    let msg = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or("");
    assert!(
        msg.contains("\"elsewhere\"") && msg.contains("\"mixed\""),
        "{msg}"
    );
    assert_eq!(download(&y), vec![0.0; 8], "nothing was written");
}

#[kernel(crate = granule_core)]
fn past_the_end(i: usize, y: &mut f64, x: &View1<f64>) {
    *y = x[i + 1];
}

#[test]
fn a_device_fault_names_the_dispatch_and_the_view() {
    // A space of its own: on a GPU the fault loses the space's context,
    // which the other tests' shared space must keep.
    let s = Cuda::from_env_or(CudaSelection::Emulator).unwrap();
    let x = upload(&s, "short", vec![1.0; 4]);
    let mut y = upload(&s, "y", vec![0.0; 4]);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parallel_for("oob", RangePolicy::new(&s, 0..4), &mut y, past_the_end(&x));
        // Dispatches are asynchronous: the fault is reported at the next
        // synchronization point, which still names the dispatch.
        s.fence();
    }))
    .expect_err("reading past the end faults");
    let msg = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or("");
    assert!(
        msg.contains("\"oob\"") && msg.contains("\"short\""),
        "{msg}"
    );
}

#[kernel(crate = granule_core)]
fn rows_by_thread(m: &TeamMember, per: usize, mut row: TeamChunk<u32>) {
    let base = m.league_rank() * 1000 + m.team_rank() * per;
    let mut mine = row
        .chunk_mut(MapContinuousLinear::new(per), m.thread_ids())
        .unwrap();
    for k in 0..per {
        mine[k] = (base + k) as u32;
    }
}

#[test]
fn teams_write_their_rows_through_chunk_maps() {
    let s = cuda();
    let (league, team, per) = (9usize, 16usize, 3usize);
    let width = team * per;
    let mut out = DView1::<u32>::zeros_in(s.memory_space(), "out", league * width).unwrap();
    parallel_for(
        "rows",
        TeamPolicy::new(&s, league, team),
        out.chunked(MapContinuousLinear::new(width)),
        rows_by_thread(per),
    );
    let got = download(&out);
    for l in 0..league {
        for j in 0..width {
            assert_eq!(got[l * width + j], (l * 1000 + j) as u32, "out[{l}, {j}]");
        }
    }
}

/// Global-memory words per element and launches of one dispatch, counted
/// by an emulator of its own (whatever `GRANULE_CUDA` says: counting is
/// the emulator's).
fn counted<R>(f: impl FnOnce(&Cuda) -> R) -> (R, granule_cuda::emu::EmuStats) {
    let emu = std::sync::Arc::new(granule_cuda::emu::EmuDevice::new().unwrap());
    let s = Cuda::with_device(emu.clone());
    let r = f(&s);
    (r, emu.take_stats())
}

#[test]
fn a_scan_and_a_reduce_dispatch_move_the_fewest_words() {
    let n = 1usize << 20;
    let ((), scan) = counted(|s| {
        let x = upload(s, "x", (0..n as i32).map(|i| i % 5).collect());
        let mut out = DView1::<i32>::zeros_in(s.memory_space(), "out", n).unwrap();
        // The upload above is a copy: it counts no launch and no access.
        let total = parallel_scan("scan", RangePolicy::new(s, 0..n), &mut out, inclusive(&x));
        assert_eq!(total, (0..n as i32).map(|i| i % 5).sum::<i32>());
    });
    let words = scan.words_per_element(4, n as u64);
    println!(
        "scan of 2^20 i32 through Cuda dispatch: {} launch(es), {words:.4} words/element \
         ({} loads, {} stores, {} atomics)",
        scan.launches, scan.global_loads, scan.global_stores, scan.global_atomics
    );
    assert_eq!(scan.launches, 1);
    assert!(words <= 2.1, "{words} words per element");

    let (total, reduce) = counted(|s| {
        let x = upload(s, "x", (0..n as i64).collect());
        let r: i64 = parallel_reduce("sum", RangePolicy::new(s, 0..n), Sum, sum_i64(&x));
        r
    });
    assert_eq!(total, (n as i64) * (n as i64 - 1) / 2);
    let words = reduce.words_per_element(8, n as u64);
    println!(
        "reduce of 2^20 i64 through Cuda dispatch: {} launch(es), {words:.4} words/element",
        reduce.launches
    );
    assert_eq!(reduce.launches, 1);
    assert!(words <= 1.05, "{words} words per element");
}

#[kernel(crate = granule_core)]
fn visit3([i, j, k]: [usize; 3], hits: &AtomicView<'_, u32, 3>, x: &mut u64) {
    hits.add([i, j, k], 1);
    *x = (i * 10_000 + j * 100 + k) as u64;
}

#[test]
fn mdrange_tiles_become_blocks_in_either_order() {
    let s = cuda();
    let (lo, hi) = ([1usize, 0, 2], [9usize, 37, 41]);
    for (tiles, order) in [
        ([3usize, 5, 7], Iterate::Right),
        ([1, 1, 1], Iterate::Right),
        ([8, 64, 2], Iterate::Left),
        ([100, 100, 100], Iterate::Left),
    ] {
        let mut hits =
            View3::<u32, LayoutRight, CudaSpace>::zeros_in(s.memory_space(), "hits", hi).unwrap();
        let mut x =
            View3::<u64, LayoutLeft, CudaSpace>::zeros_in(s.memory_space(), "x", hi).unwrap();
        let h = hits.atomic().unwrap();
        let p = MDRangePolicy::new(&s, lo, hi)
            .with_tiles(tiles)
            .with_iterate(order, order);
        parallel_for("visit", p, &mut x, visit3(&h));
        let hits = create_mirror_view_and_copy(&hits).unwrap();
        let x = create_mirror_view_and_copy(&x).unwrap();
        for i in 0..hi[0] {
            for j in 0..hi[1] {
                for k in 0..hi[2] {
                    let inside = i >= lo[0] && j >= lo[1] && k >= lo[2];
                    assert_eq!(
                        hits[[i, j, k]],
                        u32::from(inside),
                        "hits({i}, {j}, {k}), tiles {tiles:?}"
                    );
                    let expect = if inside {
                        (i * 10_000 + j * 100 + k) as u64
                    } else {
                        0
                    };
                    assert_eq!(x[[i, j, k]], expect, "x({i}, {j}, {k}), tiles {tiles:?}");
                }
            }
        }
    }
}

// --------------------------------------------- index spaces near usize::MAX

#[kernel(crate = granule_core, reduce)]
fn offsets(i: usize, base: usize, acc: &mut u64) {
    *acc += (i - base) as u64 * 1000 + 1;
}

#[kernel(crate = granule_core)]
fn hit_offset(i: usize, base: usize, hits: &AtomicView<'_, u32, 1>) {
    hits.add(i - base, 1);
}

#[kernel(crate = granule_core, reduce)]
fn nested_offsets(m: &TeamMember, base: usize, end: usize, acc: &mut u64) {
    let by_thread = TeamThreadRange::new(m, base..end)
        .parallel_reduce(Sum, |i, a: &mut u64| *a += (i - base) as u64 * 1000 + 1);
    let by_lane = TeamVectorRange::new(m, base..end)
        .parallel_reduce(Sum, |i, a: &mut u64| *a += (i - base) as u64 * 1000 + 1);
    if m.team_rank() == 0 {
        *acc += by_thread + by_lane;
    }
}

/// Each index of [usize::MAX - 5, usize::MAX) once: offset k adds
/// 1000 k + 1, so the sum counts the calls and checks their indices.
const TOP: u64 = 5 + 1000 * (1 + 2 + 3 + 4);

#[test]
fn a_range_ending_at_usize_max_calls_the_kernel_with_exactly_its_indices() {
    let s = cuda();
    let base = usize::MAX - 5;
    let got: u64 = parallel_reduce(
        "top",
        RangePolicy::new(&s, base..usize::MAX),
        Sum,
        offsets(base),
    );
    assert_eq!(got, TOP);
    let mut hits = DView1::<u32>::zeros_in(s.memory_space(), "hits", 5).unwrap();
    let h = hits.atomic().unwrap();
    parallel_for(
        "top-for",
        RangePolicy::new(&s, base..usize::MAX),
        (),
        hit_offset(base, &h),
    );
    assert_eq!(download(&hits), [1; 5]);
    // Nested ranges in teams of many threads and lanes.
    let p = TeamPolicy::new(&s, 3, 8).with_vector_length(4).unwrap();
    let got: u64 = parallel_reduce("top-team", p, Sum, nested_offsets(base, usize::MAX));
    assert_eq!(got, 3 * 2 * TOP);
}

#[kernel(crate = granule_core)]
fn mark2([i, j]: [usize; 2], hits: &AtomicView<'_, u32, 2>, x: &mut u64) {
    hits.add([i, j], 1);
    *x = (i * 100 + j) as u64;
}

#[kernel(crate = granule_core, reduce)]
fn weigh2([i, j]: [usize; 2], acc: &mut u64) {
    *acc += (i * 100 + j) as u64 * 1000 + 1;
}

#[test]
fn mdrange_tiles_up_to_usize_max_cover_the_box_as_serial_does() {
    let s = cuda();
    let (lo, hi) = ([1usize, 2], [4usize, 7]);
    let expect: u64 = (lo[0]..hi[0])
        .flat_map(|i| (lo[1]..hi[1]).map(move |j| (i * 100 + j) as u64 * 1000 + 1))
        .sum();
    for tiles in [
        [1, usize::MAX],
        [1, 1 << 63],
        [usize::MAX, usize::MAX],
        [2, usize::MAX - 1],
    ] {
        let mut hits =
            View2::<u32, LayoutRight, CudaSpace>::zeros_in(s.memory_space(), "hits", hi).unwrap();
        let mut x =
            View2::<u64, LayoutRight, CudaSpace>::zeros_in(s.memory_space(), "x", hi).unwrap();
        let h = hits.atomic().unwrap();
        let p = MDRangePolicy::new(&s, lo, hi).with_tiles(tiles);
        parallel_for("huge-tiles", p, &mut x, mark2(&h));
        let mut serial_hits = View2::<u32>::zeros("hits", hi).unwrap();
        let mut serial_x = View2::<u64>::zeros("x", hi).unwrap();
        let sh = serial_hits.atomic().unwrap();
        let q = MDRangePolicy::new(&Serial, lo, hi).with_tiles(tiles);
        parallel_for("huge-tiles", q, &mut serial_x, mark2(&sh));
        let hits = create_mirror_view_and_copy(&hits).unwrap();
        let x = create_mirror_view_and_copy(&x).unwrap();
        assert_eq!(hits.to_vec(), serial_hits.to_vec(), "tiles {tiles:?}");
        assert_eq!(x.to_vec(), serial_x.to_vec(), "tiles {tiles:?}");
        assert_eq!(hits.to_vec().iter().sum::<u32>(), 15, "tiles {tiles:?}");
        let got: u64 = parallel_reduce("huge-tiles-sum", p, Sum, weigh2());
        assert_eq!(got, expect, "tiles {tiles:?}");
    }
}

// ------------------------------------------------------- team broadcast

/// A broadcast value of 32 bytes: four times a thread's 8 reserved bytes
/// of shared memory, and twice a 1-thread team's 16.
#[granule::kernel::device]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide {
    /// The league rank.
    pub a: u64,
    /// It plus 1.
    pub b: u64,
    /// It plus 2.
    pub c: u64,
    /// It plus 3.
    pub d: u64,
}

/// Team scratch holds sentinels while thread 0 broadcasts a [`Wide`];
/// counts the team threads that got the value with the sentinels intact.
#[kernel(crate = granule_core, reduce)]
fn broadcast_wide(m: &TeamMember, acc: &mut u64) {
    let mut t = m.team_scratch::<u64, 1>(0, 4).unwrap();
    TeamVectorRange::new(m, 0..4).parallel_for(|k| t[k] = 0xdead_0000 + k as u64);
    let l = m.league_rank() as u64;
    let w = m.team_broadcast(
        Wide {
            a: l,
            b: l + 1,
            c: l + 2,
            d: l + 3,
        },
        0,
    );
    let mut ok = w.a == l && w.b == l + 1 && w.c == l + 2 && w.d == l + 3;
    for k in 0..4 {
        ok = ok && t[k] == 0xdead_0000 + k as u64;
    }
    if ok {
        *acc += 1;
    }
}

#[test]
fn a_broadcast_of_a_wide_value_leaves_team_scratch_alone() {
    let s = cuda();
    for team in [1usize, 3] {
        let p = TeamPolicy::new(&s, 4, team)
            .with_scratch_size(0, PerTeam(32))
            .unwrap();
        let got: u64 = parallel_reduce("broadcast", p, Sum, broadcast_wide());
        assert_eq!(got, 4 * team as u64, "teams of {team}");
    }
}

// --------------------------------------------- custom reducers by name

/// Two custom reducers of one name, in two modules: their device entry
/// points share a name, so only the reducer tells the modules apart.
mod sum_reducer {
    use granule::prelude::*;

    #[derive(Clone, Copy)]
    pub struct Same;

    #[device]
    impl Reducer<f64> for Same {
        fn init(&self) -> f64 {
            0.0
        }
        fn join(&self, dst: &mut f64, src: &f64) {
            *dst += *src;
        }
    }
}

mod max_reducer {
    use granule::prelude::*;

    #[derive(Clone, Copy)]
    pub struct Same;

    #[device]
    impl Reducer<f64> for Same {
        fn init(&self) -> f64 {
            -1.0
        }
        fn join(&self, dst: &mut f64, src: &f64) {
            if *src > *dst {
                *dst = *src;
            }
        }
    }
}

/// Adds 5 at index `at` only, so an accumulator is its reducer's `init`,
/// or that plus 5 for the one that saw `at`: the sum reducer gives 5, the
/// max reducer (init -1) gives 4, on every space and any launch geometry.
#[kernel(crate = granule_core, reduce)]
fn one_hot(i: usize, at: usize, acc: &mut f64) {
    if i == at {
        *acc += 5.0;
    }
}

#[test]
fn custom_reducers_of_one_name_in_two_modules_do_not_share_a_module() {
    let s = cuda();
    let p = RangePolicy::new(&s, 0..1000);
    let sum: f64 = parallel_reduce("same-sum", p, sum_reducer::Same, one_hot(700));
    let max: f64 = parallel_reduce("same-max", p, max_reducer::Same, one_hot(700));
    assert_eq!((sum, max), (5.0, 4.0));
    let q = RangePolicy::new(&Serial, 0..1000);
    let on_serial: (f64, f64) = (
        parallel_reduce("same-sum", q, sum_reducer::Same, one_hot(700)),
        parallel_reduce("same-max", q, max_reducer::Same, one_hot(700)),
    );
    assert_eq!(on_serial, (sum, max));
}
