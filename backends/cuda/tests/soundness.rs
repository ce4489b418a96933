//! Issue 14 on the emulator (checked mode: its race detector is on): the
//! team write model holds with many threads and lanes per team, and what
//! the types cannot reject is refused before the launch, with nothing
//! written. The compile-time half is `cuda_soundness_compile_fail.rs`.

use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::{Cuda, CudaSelection, CudaSpace};
use granule_views::{create_mirror_view_and_copy, LayoutRight};
use std::sync::OnceLock;

fn cuda() -> Cuda {
    static SPACE: OnceLock<Cuda> = OnceLock::new();
    SPACE
        .get_or_init(|| {
            Cuda::from_env_or(CudaSelection::Emulator).unwrap_or_else(|e| panic!("{e}"))
        })
        .clone()
}

type DView1<T> = View1<T, LayoutRight, CudaSpace>;

fn download<T: granule_views::Pod>(v: &DView1<T>) -> Vec<T> {
    create_mirror_view_and_copy(v).unwrap().as_view().to_vec()
}

fn panic_message(f: impl FnOnce()) -> String {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .expect_err("the dispatch must be refused");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Hole 6, lanes: every vector lane of a thread received the thread's
/// part, so lanes wrote one element at once. Writing a thread's part
/// outside a vector construct now needs one lane per thread.
#[kernel(crate = granule_core)]
fn mark_own(m: &TeamMember, mut row: TeamChunk<u32>) {
    let mut mine = row
        .chunk_mut(MapContinuousLinear::new(1), m.thread_ids())
        .unwrap();
    mine[0] = m.league_rank() as u32 + 1;
}

#[test]
fn a_kernel_whose_lanes_would_share_writes_is_refused_with_lanes() {
    let s = cuda();
    let mut y = DView1::<u32>::zeros_in(s.memory_space(), "y", 8).unwrap();
    let policy = TeamPolicy::new(&s, 4, 2).with_vector_length(2).unwrap();
    let msg = panic_message(|| {
        parallel_for(
            "lanes",
            policy,
            y.chunked(MapContinuousLinear::new(2)),
            mark_own(),
        )
    });
    assert!(
        msg.contains("\"lanes\"") && msg.contains("vector_length 2") && msg.contains("`mine`"),
        "{msg}"
    );
    assert_eq!(download(&y), vec![0; 8], "nothing may be written");
    // One lane per thread: each thread owns its element.
    parallel_for(
        "one lane",
        TeamPolicy::new(&s, 4, 2),
        y.chunked(MapContinuousLinear::new(2)),
        mark_own(),
    );
    assert_eq!(download(&y), vec![1, 1, 2, 2, 3, 3, 4, 4]);
}

/// A thread's part written by its lanes, each at its own index, and team
/// scratch written by the team at the team-vector index, read back by all
/// threads after the phase: correct, and no race on the checked emulator
/// with 4 threads of 8 lanes.
#[kernel(crate = granule_core)]
fn lanes_and_scratch(m: &TeamMember, w: usize, mut row: TeamChunk<u64>) {
    let mut s = m.team_scratch::<u64, 1>(0, 32).unwrap();
    TeamVectorRange::new(m, 0..32).parallel_for(|k| s[k] = k as u64 * 10);
    let mut mine = row
        .chunk_mut(MapContinuousLinear::new(w), m.thread_ids())
        .unwrap();
    let base = m.team_rank() * w;
    ThreadVectorRange::new(m, 0..w)
        .parallel_for(|k| mine[k] = s[base + k] + m.league_rank() as u64);
    single(PerTeam(m), || s[0] = 1);
    let first = single(PerTeam(m), || s[0]);
    assert_eq!(first, 1);
}

#[test]
fn vector_lanes_write_their_own_elements() {
    let s = cuda();
    let (league, team, lanes, w) = (3usize, 4usize, 8usize, 8usize);
    let mut y = DView1::<u64>::zeros_in(s.memory_space(), "y", league * team * w).unwrap();
    let policy = TeamPolicy::new(&s, league, team)
        .with_vector_length(lanes)
        .unwrap()
        .set_scratch_size(0, PerTeam(32 * 8))
        .unwrap();
    parallel_for(
        "lanes",
        policy,
        y.chunked(MapContinuousLinear::new(team * w)),
        lanes_and_scratch(w),
    );
    let got = download(&y);
    for (g, v) in got.iter().enumerate() {
        let (l, k) = (g / (team * w), g % (team * w));
        assert_eq!(*v, k as u64 * 10 + l as u64, "element {g}");
    }
}

/// Hole 4's other face: a generic kernel with an atomic View of a 32-bit
/// type is accepted and counts right.
#[kernel(crate = granule_core)]
fn count<T: Atomic>(i: usize, h: &AtomicView<'_, T, 1>, one: T, bins: usize) {
    h.add(i % bins, one);
}

#[test]
fn generic_atomics_of_device_width_count() {
    let s = cuda();
    let mut h = DView1::<u32>::zeros_in(s.memory_space(), "h", 4).unwrap();
    let a = h.atomic().unwrap();
    parallel_for(
        "count",
        RangePolicy::new(&s, 0..1000),
        (),
        count(&a, 1u32, 4),
    );
    assert_eq!(download(&h), vec![250; 4]);
}

/// Issue 14, the emulator's time limit: a translated loop that touches no
/// memory (here it never ends: `k` stays even) is stopped at the limit,
/// and the dispatch fails naming itself, where it used to spin forever.
#[kernel(crate = granule_core, reduce)]
fn never_ends(_i: usize, odd: u64, acc: &mut u64) {
    let mut k = 0u64;
    while k != odd {
        k += 2;
    }
    *acc += k;
}

#[test]
fn a_translated_loop_without_memory_accesses_stops_at_the_time_limit() {
    use granule_cuda::emu::{EmuDevice, EmuOptions};
    let options = EmuOptions {
        timeout: Some(std::time::Duration::from_millis(300)),
        ..EmuOptions::default()
    };
    let dev = EmuDevice::with_options(options).unwrap();
    let s = Cuda::with_device(std::sync::Arc::new(dev));
    let msg = panic_message(|| {
        let _: u64 = parallel_reduce("spin", RangePolicy::new(&s, 0..4), Sum, never_ends(7));
    });
    assert!(
        msg.contains("\"spin\"") && msg.contains("time limit"),
        "{msg}"
    );
}
