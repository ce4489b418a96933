//! The suite's kernels, written once as `#[kernel]`s: the host spaces run
//! their Rust bodies, and `nvrtc.rs` compiles every one of them (listed in
//! [`KERNELS`]) for the device. Tests that need host-only Rust keep closures,
//! each with a comment saying why.

use granule::kernel::DeviceKernel;
use granule::prelude::*;

// ------------------------------------------------------------- for_.rs

#[kernel]
pub fn axpy(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y = a * x[i] + *y;
}

#[kernel]
pub fn double_and_next(i: usize, x: &View1<i64>, y: &mut i64, z: &mut i64) {
    *y = 2 * x[i];
    *z = x[i] + 1;
}

#[kernel]
pub fn count_hits(i: usize, h: &AtomicView<'_, u32, 1>) {
    h.add(i, 1);
}

#[kernel]
pub fn histogram10(i: usize, h: &AtomicView<'_, u64, 1>) {
    h.add(i % 10, 1);
}

#[kernel]
pub fn set_u8(_i: usize, y: &mut u8, v: u8) {
    *y = v;
}

#[kernel]
pub fn index_plus_one(i: usize, c: &mut f64) {
    *c = i as f64 + 1.0;
}

/// Whether `x`'s last decimal digit is 3: a `#[device]` bool result,
/// whose type the translator cannot see where it is called.
#[device]
pub fn ends_in_3(x: u64) -> bool {
    x % 10 == 3
}

/// The low byte of `x`, a `#[device]` integer result.
#[device]
pub fn low_byte(x: usize) -> u8 {
    x as u8
}

/// `!` on `#[device]` results: logical on the bool (in a loop condition
/// and an `if`), bitwise on the byte. The loop is bounded so that a
/// bitwise `!` of the bool (always true) gives a wrong count, not a hang.
#[kernel]
pub fn not_of_device_results(i: usize, next: &mut u64, skipped: &mut u8, flipped: &mut u8) {
    let mut x = i as u64;
    let mut steps = 0u8;
    while !ends_in_3(x) && steps < 20 {
        x += 1;
        steps += 1;
    }
    *next = x;
    *skipped = steps;
    if !ends_in_3(i as u64) {
        *flipped = !low_byte(i);
    } else {
        *flipped = 7;
    }
}

/// `#[device]` items of a module of their own, which `scaled_plus_offset`
/// imports by a plain `use`, as a user imports any function.
pub mod device_helpers {
    use granule::prelude::*;

    /// Added by [`scaled_plus`].
    #[device]
    pub const OFFSET: f64 = 0.5;

    /// `a * x + OFFSET`: a helper that itself uses another helper.
    #[device]
    pub fn scaled_plus(x: f64, a: f64) -> f64 {
        a * x + OFFSET
    }
}

use device_helpers::{scaled_plus, OFFSET};

/// Calls a `#[device]` fn and reads a `#[device]` const imported from
/// another module by name only.
#[kernel]
pub fn scaled_plus_offset(i: usize, y: &mut f64, a: f64, x: &View1<f64>) {
    *y = scaled_plus(x[i], a) - OFFSET + scaled_plus(1.0, 0.0);
}

/// A `#[device] const` whose initializer is arithmetic (translated to
/// the header's wrapping operators, which must be usable in a constant).
#[device]
pub const ROW_WIDTH: usize = 36 + 8 * 2 - 4;

/// `i * ROW_WIDTH`, through an arithmetic `#[device] const`.
#[kernel]
pub fn times_row_width(i: usize, y: &mut usize) {
    *y = i * ROW_WIDTH;
}

/// How many entries of `x` before `i` are below `x[i]`, written one by
/// one into `i`'s row: a body with its own `#[inline(never)]`.
#[kernel]
#[inline(never)]
pub fn count_smaller_before(i: usize, mut row: Row<u32, 2>, x: &View1<f64>) {
    let mut n = 0;
    for j in 0..i {
        if x[j] < x[i] {
            n += 1;
        }
        row[0] = n;
    }
    row[1] = i as u32;
}

// ----------------------------------------------------------- reduce.rs

#[kernel(reduce)]
pub fn sum_index(i: usize, a: &mut u64) {
    *a += i as u64;
}

#[kernel(reduce)]
pub fn times_two(_i: usize, a: &mut f64) {
    *a *= 2.0;
}

#[kernel(reduce)]
pub fn min_shifted(i: usize, a: &mut i32) {
    *a = (*a).min(i as i32 - 7);
}

#[kernel(reduce)]
pub fn max_shifted(i: usize, a: &mut i32) {
    *a = (*a).max(i as i32 - 7);
}

#[kernel(reduce)]
pub fn all_below(i: usize, n: usize, a: &mut bool) {
    *a = *a && i < n;
}

#[kernel(reduce)]
pub fn any_equal(i: usize, k: usize, a: &mut bool) {
    *a = *a || i == k;
}

#[kernel(reduce)]
pub fn band_bits(i: usize, a: &mut u32) {
    *a &= (i as u32) | 0b100;
}

#[kernel(reduce)]
pub fn bor_bits(i: usize, a: &mut u32) {
    *a |= 1u32 << (i % 9);
}

#[kernel(reduce)]
pub fn land_as_int(i: usize, a: &mut i32) {
    *a = (*a != 0 && i != 3) as i32;
}

#[kernel(reduce)]
pub fn add_one(_i: usize, a: &mut f64) {
    *a += 1.0;
}

#[kernel(reduce)]
pub fn times_three(_i: usize, a: &mut i64) {
    *a *= 3;
}

#[kernel(reduce)]
pub fn set_f32_zero(_i: usize, a: &mut f32) {
    *a = 0.0;
}

#[kernel(reduce)]
pub fn set_bool(_i: usize, v: bool, a: &mut bool) {
    *a = v;
}

#[kernel(reduce)]
pub fn set_u16_acc(_i: usize, v: u16, a: &mut u16) {
    *a = v;
}

#[kernel(reduce)]
pub fn set_u8_acc(_i: usize, v: u8, a: &mut u8) {
    *a = v;
}

#[kernel(reduce)]
pub fn no_update(_i: usize, _a: &mut ValLocScalar<i32, usize>) {}

#[kernel(reduce)]
pub fn min_loc_of(i: usize, x: &View1<f64>, a: &mut ValLocScalar<f64, usize>) {
    a.update_min(x[i], i);
}

#[kernel(reduce)]
pub fn max_loc_of(i: usize, x: &View1<f64>, a: &mut ValLocScalar<f64, usize>) {
    a.update_max(x[i], i);
}

#[kernel(reduce)]
pub fn min_max_loc_of(i: usize, x: &View1<f64>, a: &mut MinMaxLocScalar<f64, usize>) {
    a.update(x[i], i);
}

#[kernel(reduce)]
pub fn min_max_of(i: usize, x: &View1<f64>, a: &mut MinMaxScalar<f64>) {
    a.update(x[i]);
}

#[kernel(reduce)]
pub fn set_f64_one(_i: usize, a: &mut f64) {
    *a = 1.0;
}

/// Sums a borrowed part of a View (a subview, possibly empty).
#[kernel(reduce)]
pub fn sum_part(i: usize, x: &ViewRef<'_, f64, 1>, a: &mut f64) {
    *a += x[i];
}

#[kernel(reduce)]
pub fn sum_x(i: usize, x: &View1<f64>, a: &mut f64) {
    *a += x[i];
}

/// The reduce test's struct: {count, Σ(i+1), Σ(n−i)}.
#[device]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triple {
    pub count: i64,
    pub up: i64,
    pub down: i64,
}

/// Sums a [`Triple`] field by field.
#[derive(Clone, Copy)]
pub struct TripleSum;

#[device]
impl Reducer<Triple> for TripleSum {
    fn init(&self) -> Triple {
        Triple {
            count: 0,
            up: 0,
            down: 0,
        }
    }
    fn join(&self, dst: &mut Triple, src: &Triple) {
        dst.count += src.count;
        dst.up += src.up;
        dst.down += src.down;
    }
}

#[kernel(reduce)]
pub fn count_up_down(i: usize, n: usize, acc: &mut Triple) {
    acc.count += 1;
    acc.up += i as i64 + 1;
    acc.down += (n - i) as i64;
}

/// A running mean: the sum and count, divided by the reducer's final step.
#[device]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mean {
    pub sum: f64,
    pub count: usize,
}

/// Adds [`Mean`]s; `finalize` turns the sum into the mean.
#[derive(Clone, Copy)]
pub struct MeanOf;

#[device]
impl Reducer<Mean> for MeanOf {
    fn init(&self) -> Mean {
        Mean { sum: 0.0, count: 0 }
    }
    fn join(&self, dst: &mut Mean, src: &Mean) {
        dst.sum += src.sum;
        dst.count += src.count;
    }
    fn finalize(&self, value: &mut Mean) {
        value.sum /= value.count as f64;
    }
}

#[kernel(reduce)]
pub fn index_mean(i: usize, acc: &mut Mean) {
    acc.sum += i as f64;
    acc.count += 1;
}

/// Three results in one pass, for `(Sum, Max, Sum)`.
#[kernel(reduce)]
pub fn sum_max_count(i: usize, x: &View1<f64>, a: &mut (f64, f64, usize)) {
    a.0 += x[i];
    a.1 = a.1.max(x[i]);
    a.2 += 1;
}

/// Two results in one pass, for `(Min, Sum)`.
#[kernel(reduce)]
pub fn min_and_count(i: usize, x: &View1<f64>, a: &mut (f64, usize)) {
    a.0 = a.0.min(x[i]);
    a.1 += 1
}

// ------------------------------------------------------------- scan.rs

#[kernel(scan)]
pub fn exclusive_and_inclusive(
    i: usize,
    a: &View1<i64>,
    e: &mut i64,
    c: &mut i64,
    partial: &mut i64,
    last: bool,
) {
    if last {
        *e = *partial;
    }
    *partial += a[i];
    if last {
        *c = *partial;
    }
}

#[kernel(scan)]
pub fn exclusive_index_f32(i: usize, e: &mut f32, p: &mut f32, last: bool) {
    if last {
        *e = *p;
    }
    *p += i as f32;
}

#[kernel(scan)]
pub fn inclusive_f32_of(i: usize, e: &mut f32, p: &mut f32, last: bool, x: &View1<f32>) {
    *p += x[i];
    if last {
        *e = *p;
    }
}

#[kernel(scan)]
pub fn inclusive_index_f64(i: usize, e: &mut f64, p: &mut f64, last: bool) {
    *p += i as f64;
    if last {
        *e = *p;
    }
}

#[kernel(scan)]
pub fn exclusive_in_place(_i: usize, xi: &mut f64, p: &mut f64, last: bool) {
    let v = *xi;
    if last {
        *xi = *p;
    }
    *p += v;
}

#[kernel(scan)]
pub fn factorials(i: usize, fi: &mut i64, p: &mut i64, last: bool) {
    if last {
        *fi = *p;
    }
    *p *= i as i64 + 1;
}

#[kernel(scan)]
pub fn count_calls(
    i: usize,
    fi: &mut u32,
    p: &mut u64,
    last: bool,
    non_final: &AtomicView<'_, u32, 1>,
) {
    if last {
        *fi += 1;
    } else {
        non_final.add(i, 1);
    }
    *p += 1;
}

#[kernel(scan)]
pub fn count_only(_i: usize, _y: &mut i32, p: &mut i32, _last: bool) {
    *p += 1;
}

#[kernel(scan)]
pub fn exclusive_index_i32(i: usize, yi: &mut i32, p: &mut i32, last: bool) {
    if last {
        *yi = *p;
    }
    *p += i as i32;
}

// ---------------------------------------------------------- mdrange.rs

#[kernel]
pub fn hit2(_: [usize; 2], h: &mut u32) {
    *h += 1;
}

#[kernel(reduce)]
pub fn count2(_: [usize; 2], a: &mut usize) {
    *a += 1;
}

#[kernel]
pub fn ten_i_plus_j([i, j]: [usize; 2], x: &mut i64) {
    *x = (10 * i + j) as i64;
}

#[kernel(reduce)]
pub fn sum_ijk([i, j, k]: [usize; 3], a: &mut usize) {
    *a += i + j + k;
}

#[kernel]
pub fn bump_u8(_: [usize; 4], x: &mut u8) {
    *x += 1;
}

#[kernel(reduce)]
pub fn count5(_: [usize; 5], a: &mut usize) {
    *a += 1;
}

#[kernel]
pub fn linear6([a, b, c, d, e, f]: [usize; 6], x: &mut u32) {
    *x = (((((a * 2 + b) * 2 + c) * 2 + d) * 2 + e) * 3 + f) as u32;
}

/// The largest element of a View2 and its multi-index, for `MaxLoc`.
#[kernel(reduce)]
pub fn peak_of([i, j]: [usize; 2], a: &View2<f64>, acc: &mut ValLocScalar<f64, [usize; 2]>) {
    acc.update_max(a[[i, j]], [i, j]);
}

#[kernel(reduce)]
pub fn set_five(_: [usize; 2], a: &mut i32) {
    *a = 5;
}

// ------------------------------------------------------------- team.rs

#[kernel(reduce)]
pub fn global_thread_ids(m: &TeamMember, acc: &mut usize) {
    let v = m.team_rank() + m.team_size() * m.league_rank();
    let team_total = m.team_reduce(Sum, v);
    if m.team_rank() == 0 {
        *acc += team_total;
    }
}

/// Team `l` takes the sum and the largest element of row `l` of `a` in
/// one team-thread reduction of a tuple, and its threads' rank sum and
/// count in one tuple `team_reduce`: the shape of an MD force kernel's
/// energy and virial.
#[kernel(reduce)]
pub fn row_sum_and_peak(m: &TeamMember, a: &View2<f64>, acc: &mut (f64, f64, u64)) {
    let l = m.league_rank();
    let (sum, peak) = TeamThreadRange::new(m, 0..a.extent(1)).parallel_reduce(
        (Sum, Max),
        |j, part: &mut (f64, f64)| {
            part.0 += a[[l, j]];
            if a[[l, j]] > part.1 {
                part.1 = a[[l, j]];
            }
        },
    );
    let (ranks, threads) = m.team_reduce((Sum, Sum), (m.team_rank() as u64, 1u64));
    let t = m.team_size() as u64;
    assert_eq!(threads, t);
    assert_eq!(ranks, t * (t - 1) / 2);
    if m.team_rank() == 0 {
        acc.0 += sum;
        if peak > acc.1 {
            acc.1 = peak;
        }
        acc.2 += threads;
    }
}

/// Team `l` takes the mean of row `l` of `a` in a team-thread reduction
/// by the custom reducer [`MeanOf`] (whose `finalize` divides), and its
/// threads' count and rank sum in a `team_reduce` of [`Triple`]s by
/// [`TripleSum`]: `#[device] struct` accumulators inside a team.
#[kernel(reduce)]
pub fn row_means(m: &TeamMember, a: &View2<f64>, acc: &mut f64) {
    let l = m.league_rank();
    let mean =
        TeamThreadRange::new(m, 0..a.extent(1)).parallel_reduce(MeanOf, |j, part: &mut Mean| {
            part.sum += a[[l, j]];
            part.count += 1;
        });
    let mine = Triple {
        count: 1,
        up: m.team_rank() as i64,
        down: 0,
    };
    let team = m.team_reduce(TripleSum, mine);
    let t = m.team_size() as i64;
    assert_eq!(team.count, t);
    assert_eq!(team.up, t * (t - 1) / 2);
    assert_eq!(mean.count, a.extent(1));
    if m.team_rank() == 0 {
        *acc += mean.sum;
    }
}

/// Kokkos's own-slot idiom: each thread writes the team scratch slot of
/// its rank, then, after a barrier, reads its neighbour's; the threads'
/// reads cover every slot once, so the reduction is the slots' sum.
#[kernel(reduce)]
pub fn neighbour_slots(m: &TeamMember, acc: &mut u64) {
    let mut s = m.team_scratch::<u64, 1>(0, m.team_size()).unwrap();
    let r = m.team_rank();
    s[r] = (1000 * m.league_rank() + r) as u64;
    m.team_barrier();
    *acc += s[(r + 1) % m.team_size()];
}

/// Kokkos's own-slot idiom through a ThreadVectorRange: each thread
/// writes its `w` slots (`s[rank * w + k]`) lane by lane, then, after the
/// range's barrier, sums its neighbour's; the reads cover every slot once.
#[kernel(reduce)]
pub fn neighbour_rows(m: &TeamMember, w: usize, acc: &mut u64) {
    let mut s = m.team_scratch::<u64, 1>(0, m.team_size() * w).unwrap();
    let r = m.team_rank();
    ThreadVectorRange::new(m, 0..w)
        .parallel_for(|k| s[r * w + k] = (1000 * m.league_rank() + 10 * r + k) as u64);
    let next = (r + 1) % m.team_size();
    let mut sum = 0u64;
    for k in 0..w {
        sum += s[next * w + k];
    }
    *acc += sum;
}

/// Team `l` scans row `l` of `a` with a team-thread scan into team
/// scratch (each index's final call writes its own slot), then thread 0,
/// which owns the team's whole row (`MapContinuousLinear` of the row's
/// width), copies it out: correct for teams of any size.
#[kernel]
pub fn nested_row_scan(m: &TeamMember, n: usize, a: &View2<i64>, mut row: TeamChunk<i64>) {
    let l = m.league_rank();
    let mut s = m.team_scratch::<i64, 1>(0, n).unwrap();
    let total = TeamThreadRange::new(m, 0..n).parallel_scan(|j, partial: &mut i64, last: bool| {
        *partial += a[[l, j]];
        if last {
            s[j] = *partial;
        }
    });
    m.team_barrier();
    if m.team_rank() == 0 {
        let mut mine = row
            .chunk_mut(MapContinuousLinear::new(n), m.thread_ids())
            .unwrap();
        for j in 0..n {
            mine[j] = s[j];
        }
        assert_eq!(total, mine[n - 1]);
    }
}

#[kernel(reduce)]
pub fn y_a_x(
    m: &TeamMember,
    per: usize,
    cols: usize,
    y: &View1<f64>,
    x: &View1<f64>,
    a: &View2<f64>,
    acc: &mut f64,
) {
    let base = m.league_rank() * per;
    let team_sum =
        TeamThreadRange::new(m, base..base + per).parallel_reduce(Sum, |row, rs: &mut f64| {
            let ax = ThreadVectorRange::new(m, 0..cols)
                .parallel_reduce(Sum, |c, s: &mut f64| *s += a[[row, c]] * x[c]);
            *rs += single(PerThread(m), || y[row] * ax);
        });
    // Every team thread holds the team's sum: thread 0 contributes it.
    if m.team_rank() == 0 {
        *acc += team_sum;
    }
}

#[kernel]
pub fn collectives(m: &TeamMember, mut part: TeamChunk<u64>, g: &AtomicView<'_, u64, 1>) {
    m.team_barrier();
    let b = m.team_broadcast(m.league_rank() * 3, 0);
    assert_eq!(b, m.league_rank() * 3);
    assert_eq!(m.team_scan(5u64), 5 * m.team_rank() as u64);
    let v = single(PerTeam(m), || m.league_rank() as u64);
    // Any team size: thread 0 speaks for the team and owns its element.
    let lead = m.team_rank() == 0;
    let start = m.team_scan_global(if lead { v + 1 } else { 0 }, g, 0);
    if lead {
        let mut mine = part
            .chunk_mut(MapContinuousLinear::new(1), m.thread_ids())
            .unwrap();
        mine[0] = start;
    }
}

#[kernel(reduce)]
pub fn count_teams(_m: &TeamMember, a: &mut usize) {
    *a += 1;
}

/// Team and thread scratch at levels 0 and 1, of rank 1 and 2: each starts
/// zeroed, and a request past the reservation is an `Err` that takes
/// nothing. The team's first thread contributes (every team thread holds
/// the same team sum, and its own thread scratch).
#[kernel(reduce)]
pub fn scratch_views(m: &TeamMember, acc: &mut i64) {
    let mut t = m.team_scratch::<i64, 1>(0, 16).unwrap();
    let mut u = m.thread_scratch::<i32, 1>(0, 4).unwrap();
    let mut w = m.team_scratch::<u8, 2>(1, [10, 100]).unwrap();
    for i in 0..16 {
        assert_eq!(t[i], 0, "scratch starts zeroed");
    }
    assert_eq!(u[3], 0);
    assert_eq!(w[[9, 99]], 0);
    // Nobody writes team scratch before everyone has checked it.
    m.team_barrier();
    TeamVectorRange::new(m, 0..16).parallel_for(|i| t[i] = (m.league_rank() + i) as i64);
    u[3] = 2;
    // Team scratch is shared: one executor of the team writes it.
    single(PerTeam(m), || w[[9, 99]] = 1);
    assert!(m.team_scratch::<u8, 1>(1, 1).is_err());
    assert!(m.thread_scratch::<i32, 1>(0, 1).is_err());
    assert!(m.team_scratch::<u8, 2>(1, [0, 5]).is_ok());
    assert!(m.thread_scratch::<u8, 1>(2, 0).is_err());
    m.team_barrier();
    let sum = ThreadVectorRange::new(m, 0..16).parallel_reduce(Sum, |i, s: &mut i64| *s += t[i])
        + u[3] as i64
        + w[[9, 99]] as i64;
    if m.team_rank() == 0 {
        *acc += sum;
    }
}

/// Nested location, min-max and min reductions and nested scans on team
/// `l`'s row of `v` (a permutation of 0..50).
#[kernel]
pub fn nested_reducers_and_scans(m: &TeamMember, v: &View2<i32>) {
    let l = m.league_rank();
    let mx = TeamThreadRange::new(m, 0..50)
        .parallel_reduce(MaxLoc, |i, a: &mut ValLocScalar<i32, usize>| {
            a.update_max(v[[l, i]], i)
        });
    assert_eq!(mx.val, 49);
    assert_eq!(v[[l, mx.loc]], 49);
    let mn: i32 = TeamVectorRange::new(m, 0..50)
        .parallel_reduce(Min, |i, a: &mut i32| *a = (*a).min(v[[l, i]]));
    assert_eq!(mn, 0);
    let both = ThreadVectorRange::new(m, 0..50)
        .parallel_reduce(MinMaxLoc, |i, a: &mut MinMaxLocScalar<i32, usize>| {
            a.update(v[[l, i]], i)
        });
    assert_eq!(both.min_val, 0);
    assert_eq!(both.max_val, 49);
    assert_eq!(v[[l, both.min_loc]], 0);
    assert_eq!(both.max_loc, mx.loc);
    let span = TeamVectorRange::new(m, 0..50)
        .parallel_reduce(MinMax, |i, a: &mut MinMaxScalar<i32>| a.update(v[[l, i]]));
    assert_eq!(span.max_val - span.min_val, 49);
    let prod = ThreadVectorRange::new(m, 0..5)
        .parallel_scan_with(Prod, |i, p: &mut i64, _| *p *= i as i64 + 2);
    assert_eq!(prod, 720);
    let row =
        TeamVectorRange::new(m, 0..50).parallel_scan(|i, p: &mut i64, _| *p += v[[l, i]] as i64);
    assert_eq!(row, 1225);
    let top = TeamThreadRange::new(m, 0..50)
        .parallel_scan_with(Max, |i, p: &mut i32, _| *p = (*p).max(v[[l, i]]));
    assert_eq!(top, 49);
    let empty: f64 =
        ThreadVectorRange::new(m, 3..3).parallel_reduce(Sum, |_, a: &mut f64| *a += 1.0);
    assert_eq!(empty, 0.0);
}

// -------------------------------------------------------- bad_input.rs

/// Writes one element past its segment.
#[kernel]
pub fn one_past_the_segment(_i: usize, mut s: Segment<f64>) {
    let n = s.len();
    s[n] = 1.0;
}

/// Thread 0 takes the team's part (4 elements, `MapContinuousLinear` of
/// width 4 within the team) and writes one past it.
#[kernel]
pub fn write_past_team_chunk(m: &TeamMember, mut row: TeamChunk<i32>) {
    if m.team_rank() == 0 {
        let mut mine = row
            .chunk_mut(MapContinuousLinear::new(4), m.thread_ids())
            .unwrap();
        mine[3] = 1; // owned
        mine[4] = 1; // the next team's element
    }
}

#[kernel]
pub fn set_one(_i: usize, y: &mut f64) {
    *y = 1.0;
}

// ------------------------------------------------------- soundness.rs

#[kernel]
pub fn fail_for_at(i: usize, y: &mut i64, at: usize) {
    assert!(i != at, "kernel failed at index {i}");
    *y = i as i64;
}

#[kernel(reduce)]
pub fn fail_reduce_at(i: usize, at: usize, acc: &mut i64) {
    assert!(i != at, "kernel failed at index {i}");
    *acc += i as i64;
}

/// Fails at index `at`: in its first call there (a non-final call on
/// spaces that make them), or only in the final call when `final_only`.
#[kernel(scan)]
pub fn fail_scan_at(i: usize, y: &mut i64, p: &mut i64, last: bool, at: usize, final_only: bool) {
    if last || !final_only {
        assert!(i != at, "kernel failed at index {i}");
    }
    if last {
        *y = *p;
    }
    *p += 1;
}

#[kernel]
pub fn fail_team_at(m: &TeamMember, at: usize, hits: &AtomicView<'_, u64, 1>) {
    assert!(
        m.league_rank() != at,
        "kernel failed at index {}",
        m.league_rank()
    );
    // One count per team, whatever its size.
    if m.team_rank() == 0 {
        hits.add(m.league_rank(), 1);
    }
}

#[kernel(scan)]
pub fn count_until(i: usize, p: &mut i64, _last: bool, at: usize) {
    assert!(i != at, "kernel failed at index {i}");
    *p += 1;
}

#[kernel(reduce)]
pub fn count_index(_i: usize, acc: &mut usize) {
    *acc += 1;
}

/// Writes its index: the functor handed straight to a driver.
#[kernel]
pub fn store_index(i: usize, y: &mut i64) {
    *y = i as i64;
}

/// `v * (j + 1)`: a `#[device]` result, whose type the translator spells
/// from the types of the call's arguments.
#[device]
pub fn weighted(v: f64, j: usize) -> f64 {
    v * (j + 1) as f64
}

/// An untyped accumulator declared before a loop whose body adds a
/// `#[device]` call on the loop's variables to it: the C++ declares `acc`
/// before `d` and `j` exist, so its type must not name them.
#[kernel]
pub fn weighted_prefix(i: usize, y: &mut f64, x: &View1<f64>) {
    let mut acc = 0.0;
    for j in 0..i % 5 {
        let d = x[j];
        acc += weighted(d, j);
    }
    *y = acc;
}

/// Row `i` of an `[n, 3]` force View from the pair sums of a toy
/// potential over every `j != i`: the MD force loop's shape, one work
/// item per atom writing its own three components.
#[kernel]
pub fn pair_forces(i: usize, mut f: Row<f64, 2>, x: &View2<f64>) {
    let (mut fx, mut fy, mut fz) = (0.0, 0.0, 0.0);
    for j in 0..x.extent(0) {
        if j != i {
            let dx = x[[i, 0]] - x[[j, 0]];
            let dy = x[[i, 1]] - x[[j, 1]];
            let dz = x[[i, 2]] - x[[j, 2]];
            let s = 1.0 / (1.0 + dx * dx + dy * dy + dz * dz);
            fx += dx * s;
            fy += dy * s;
            fz += dz * s;
        }
    }
    f[0] = fx;
    f[1] = fy;
    f[2] = fz;
    for k in 3..f.len() {
        f[k] = 0.0;
    }
}

/// Row `i` of a rank-3 View and element `i` of a rank-1 one, written by
/// one work item.
#[kernel]
pub fn row_block(i: usize, mut b: Row<i64, 3>, total: &mut i64) {
    let mut sum = 0;
    for j in 0..b.extent(0) {
        for k in 0..b.extent(1) {
            let v = (100 * i + 10 * j + k) as i64;
            b[[j, k]] = v;
            sum += v;
        }
    }
    *total = sum;
}

/// Row `i` of a banded CRS matrix, one segment of each of its column and
/// value Views: the columns `i - w ..= i + w` inside the matrix, 2w on the
/// diagonal and -1 off it.
#[kernel]
pub fn banded_row(i: usize, mut cols: Segment<u32>, mut vals: Segment<f64>, w: usize) {
    let first = i.saturating_sub(w);
    for k in 0..cols.len() {
        let c = first + k;
        cols[k] = c as u32;
        vals[k] = if c == i { 2.0 * w as f64 } else { -1.0 };
    }
    if cols.index() != i || vals.start() != cols.start() {
        vals[0] = -1000.0;
    }
}

/// Each element of segment `i` set to `1000 i + k`.
#[kernel]
pub fn mark_segment(i: usize, mut s: Segment<i64>) {
    for k in 0..s.len() {
        s[k] = (1000 * i + k) as i64;
    }
}

/// The mean of `x[i - 1]`, `x[i]`, `x[i + 1]` (those inside the View):
/// a `#[device]` helper that takes a read View.
#[device]
pub fn neighbour_mean(x: &View1<f64>, i: usize) -> f64 {
    let n = x.extent(0);
    let lo = if i == 0 { 0 } else { i - 1 };
    let hi = if i + 1 < n { i + 1 } else { i };
    let mut sum = 0.0;
    for j in lo..hi + 1 {
        sum += x[j];
    }
    sum / (hi + 1 - lo) as f64
}

/// Counts `v` in the bin of its tenth: a `#[device]` helper that takes an
/// atomic View.
#[device]
pub fn tally(bins: &AtomicView<'_, u32, 1>, v: f64) {
    bins.add((v / 10.0) as usize, 1);
}

/// Smooths `x` into `y` and tallies the smoothed values, through helpers
/// that take the Views.
#[kernel]
pub fn smooth_and_tally(i: usize, y: &mut f64, x: &View1<f64>, bins: &AtomicView<'_, u32, 1>) {
    let m = neighbour_mean(x, i);
    tally(bins, m);
    *y = m;
}

/// Every `#[kernel]` of the suite; `nvrtc.rs` checks that none is missing
/// by counting the attributes in the sources.
pub const KERNELS: &[&DeviceKernel] = kernel_list![
    axpy,
    smooth_and_tally,
    pair_forces,
    row_block,
    row_sum_and_peak,
    row_means,
    neighbour_slots,
    neighbour_rows,
    banded_row,
    mark_segment,
    one_past_the_segment,
    weighted_prefix,
    double_and_next,
    count_hits,
    histogram10,
    set_u8,
    index_plus_one,
    not_of_device_results,
    scaled_plus_offset,
    times_row_width,
    count_smaller_before,
    sum_index,
    times_two,
    min_shifted,
    max_shifted,
    all_below,
    any_equal,
    band_bits,
    bor_bits,
    land_as_int,
    add_one,
    times_three,
    set_f32_zero,
    set_bool,
    set_u16_acc,
    set_u8_acc,
    no_update,
    min_loc_of,
    max_loc_of,
    min_max_loc_of,
    min_max_of,
    set_f64_one,
    sum_x,
    sum_part,
    count_up_down,
    index_mean,
    sum_max_count,
    min_and_count,
    exclusive_and_inclusive,
    exclusive_index_f32,
    inclusive_f32_of,
    inclusive_index_f64,
    exclusive_in_place,
    factorials,
    count_calls,
    count_only,
    exclusive_index_i32,
    hit2,
    count2,
    ten_i_plus_j,
    sum_ijk,
    bump_u8,
    count5,
    linear6,
    peak_of,
    set_five,
    global_thread_ids,
    nested_row_scan,
    y_a_x,
    collectives,
    count_teams,
    scratch_views,
    nested_reducers_and_scans,
    write_past_team_chunk,
    set_one,
    fail_for_at,
    fail_reduce_at,
    fail_scan_at,
    fail_team_at,
    count_until,
    count_index,
    store_index,
    crate::random::random_streams,
    crate::random::random_streams_1024,
    crate::random::random_range_draws,
    crate::random::random_fill_element,
];
