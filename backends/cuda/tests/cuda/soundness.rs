//! The Cuda write model on the emulator (checked mode: its race detector
//! is on): the team write model holds with many threads and lanes per
//! team, and what the types cannot reject is refused before the launch,
//! with nothing written. The compile-time half is `compile_fail`.

use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::{Cuda, CudaSelection, CudaSpace};
use granule_views::{create_mirror_view_and_copy, LayoutRight};
use std::sync::OnceLock;

fn cuda() -> Cuda {
    static SPACE: OnceLock<Cuda> = OnceLock::new();
    SPACE.get_or_init(own_space).clone()
}

/// A space of its own, for a test whose kernel must be refused: were it
/// launched, its race would fail the dispatches of every other test on the
/// shared space, hiding which test broke.
fn own_space() -> Cuda {
    Cuda::from_env_or(CudaSelection::Emulator).unwrap_or_else(|e| panic!("{e}"))
}

type DView1<T> = View1<T, LayoutRight, CudaSpace>;

fn download<T: granule_views::Element>(v: &DView1<T>) -> Vec<T> {
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
        .with_scratch_size(0, PerTeam(32 * 8))
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

/// The emulator's time limit: a translated loop that touches no memory
/// (here it never ends: `k` stays even) is stopped at the limit, and the
/// dispatch fails naming itself instead of spinning forever.
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

/// The lanes of a thread hold its part whatever map gave it and however
/// the write is spelled: each kernel below writes one element of its part
/// from every lane of its thread, so each runs only with one lane per
/// thread. One of each per map the team API takes, as the outer map (the
/// team's part) and the inner one (the thread's).
#[kernel(crate = granule_core)]
fn identity_part(team: &TeamMember, mut row: TeamChunk<u32, MapIdentity>) {
    let mut mine = row.chunk_mut(MapIdentity, team.thread_ids()).unwrap();
    mine[0] = 7;
}

#[kernel(crate = granule_core)]
fn identity_part_from_a_block(team: &TeamMember, mut row: TeamChunk<u32, MapIdentity>) {
    let mut mine = { row.chunk_mut(MapIdentity, team.thread_ids()).unwrap() };
    mine[0] = 7;
}

#[kernel(crate = granule_core)]
fn identity_part_unbound(team: &TeamMember, mut row: TeamChunk<u32, MapIdentity>) {
    row.chunk_mut(MapIdentity, team.thread_ids()).unwrap()[0] = 7;
}

/// The loop's `k` shadows the vector index: both lanes write element 0.
#[kernel(crate = granule_core)]
fn identity_part_shadowed_index(team: &TeamMember, mut row: TeamChunk<u32, MapIdentity>) {
    let mut mine = row.chunk_mut(MapIdentity, team.thread_ids()).unwrap();
    ThreadVectorRange::new(team, 0..2).parallel_for(|k| {
        for k in k / 2..k / 2 + 1 {
            mine[k] = 7;
        }
    });
}

#[kernel(crate = granule_core)]
fn linear_part(team: &TeamMember, mut row: TeamChunk<'_, u32, MapContinuousLinear>) {
    let mut mine = row
        .chunk_mut(MapContinuousLinear::new(1), team.thread_ids())
        .unwrap();
    mine[0] = 7;
}

#[kernel(crate = granule_core)]
fn linear_part_from_a_block(team: &TeamMember, mut row: TeamChunk<'_, u32, MapContinuousLinear>) {
    let mut mine = {
        row.chunk_mut(MapContinuousLinear::new(1), team.thread_ids())
            .unwrap()
    };
    mine[0] = 7;
}

#[kernel(crate = granule_core)]
fn linear_part_unbound(team: &TeamMember, mut row: TeamChunk<'_, u32, MapContinuousLinear>) {
    row.chunk_mut(MapContinuousLinear::new(1), team.thread_ids())
        .unwrap()[0] = 7;
}

#[kernel(crate = granule_core)]
fn linear_part_shadowed_index(team: &TeamMember, mut row: TeamChunk<'_, u32, MapContinuousLinear>) {
    let mut mine = row
        .chunk_mut(MapContinuousLinear::new(1), team.thread_ids())
        .unwrap();
    ThreadVectorRange::new(team, 0..2).parallel_for(|k| {
        for k in k / 2..k / 2 + 1 {
            mine[k] = 7;
        }
    });
}

/// Dispatches `$kernel` over a 4-element View chunked by `$map` with two
/// lanes per thread, which must be refused before anything is written,
/// naming the dispatch and `$written`; then with one lane, which must give
/// `$want`.
macro_rules! needs_one_lane {
    ($label:literal, ($league:expr, $team:expr), $map:expr, $kernel:expr, $written:literal, $want:expr) => {{
        let s = own_space();
        let mut y = DView1::<u32>::zeros_in(s.memory_space(), "y", 4).unwrap();
        let policy = TeamPolicy::new(&s, $league, $team)
            .with_vector_length(2)
            .unwrap();
        let msg = panic_message(|| parallel_for($label, policy, y.chunked($map), $kernel));
        assert!(
            msg.contains(concat!("\"", $label, "\""))
                && msg.contains("vector_length 2")
                && msg.contains(concat!("writes ", $written)),
            "{msg}"
        );
        assert_eq!(download(&y), vec![0; 4], "nothing may be written");
        parallel_for(
            "one lane",
            TeamPolicy::new(&s, $league, $team),
            y.chunked($map),
            $kernel,
        );
        assert_eq!(download(&y), $want);
    }};
}

#[test]
fn a_part_written_by_every_lane_needs_one_lane_with_every_map() {
    needs_one_lane!(
        "identity",
        (1, 1),
        MapIdentity,
        identity_part(),
        "`mine`",
        vec![7, 0, 0, 0]
    );
    needs_one_lane!(
        "linear",
        (2, 2),
        MapContinuousLinear::new(2),
        linear_part(),
        "`mine`",
        vec![7; 4]
    );
}

#[test]
fn a_part_bound_through_a_block_needs_one_lane() {
    needs_one_lane!(
        "identity block",
        (1, 1),
        MapIdentity,
        identity_part_from_a_block(),
        "`mine`",
        vec![7, 0, 0, 0]
    );
    needs_one_lane!(
        "linear block",
        (2, 2),
        MapContinuousLinear::new(2),
        linear_part_from_a_block(),
        "`mine`",
        vec![7; 4]
    );
}

#[test]
fn a_part_written_without_a_binding_needs_one_lane() {
    needs_one_lane!(
        "identity unbound",
        (1, 1),
        MapIdentity,
        identity_part_unbound(),
        "`row.chunk_mut(MapIdentity, team.thread_ids()).unwrap()`",
        vec![7, 0, 0, 0]
    );
    needs_one_lane!(
        "linear unbound",
        (2, 2),
        MapContinuousLinear::new(2),
        linear_part_unbound(),
        "`row.chunk_mut(MapContinuousLinear::new(1), team.thread_ids()).unwrap()`",
        vec![7; 4]
    );
}

#[test]
fn a_part_indexed_by_a_name_that_shadows_the_vector_index_needs_one_lane() {
    needs_one_lane!(
        "identity shadowed",
        (1, 1),
        MapIdentity,
        identity_part_shadowed_index(),
        "`mine`",
        vec![7, 0, 0, 0]
    );
    needs_one_lane!(
        "linear shadowed",
        (2, 2),
        MapContinuousLinear::new(2),
        linear_part_shadowed_index(),
        "`mine`",
        vec![7; 4]
    );
}

/// Team scratch written in a TeamThreadRange at its index, inside a vector
/// range whose index is `_`: every lane of the thread writes the element.
#[kernel(crate = granule_core)]
fn scratch_by_every_lane(team: &TeamMember, mut row: TeamChunk<'_, u32, MapContinuousLinear>) {
    let mut s = team.team_scratch::<u32, 1>(0, 2).unwrap();
    TeamThreadRange::new(team, 0..2)
        .parallel_for(|i| ThreadVectorRange::new(team, 0..2).parallel_for(|_| s[i] = i as u32 + 1));
    let mut mine = row
        .chunk_mut(MapContinuousLinear::new(1), team.thread_ids())
        .unwrap();
    let t = team.team_rank();
    ThreadVectorRange::new(team, 0..1).parallel_for(|k| mine[k] = s[t]);
}

#[test]
fn team_scratch_written_by_every_lane_needs_one_lane() {
    let s = own_space();
    let mut y = DView1::<u32>::zeros_in(s.memory_space(), "y", 4).unwrap();
    let policy = |lanes| {
        TeamPolicy::new(&s, 2, 2)
            .with_vector_length(lanes)
            .unwrap()
            .with_scratch_size(0, PerTeam(8))
            .unwrap()
    };
    let msg = panic_message(|| {
        parallel_for(
            "scratch lanes",
            policy(2),
            y.chunked(MapContinuousLinear::new(2)),
            scratch_by_every_lane(),
        )
    });
    assert!(
        msg.contains("\"scratch lanes\"")
            && msg.contains("vector_length 2")
            && msg.contains("team scratch `s`"),
        "{msg}"
    );
    assert_eq!(download(&y), vec![0; 4], "nothing may be written");
    parallel_for(
        "scratch one lane",
        policy(1),
        y.chunked(MapContinuousLinear::new(2)),
        scratch_by_every_lane(),
    );
    assert_eq!(download(&y), vec![1, 2, 1, 2]);
}
