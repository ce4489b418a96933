//! Exhaustive verification of every map on small shapes: the evidence
//! behind the `unsafe impl ChunkMap`s. Every thread of every thread shape
//! up to 64 threads is enumerated with every local index in a box; no
//! element may be reached twice, and maps meant to cover must cover.

use crate::chunk::{
    ChunkMap, Dim, LayoutEntry, Map2D, MapContinuousLinear, MapLinear, Nested, ReshapeMap,
    ThreadIds,
};

const MAX_THREADS: usize = 64;

/// Every (x, y, z) thread shape with at most [`MAX_THREADS`] threads.
fn shapes() -> Vec<[usize; 3]> {
    let mut out = Vec::new();
    for x in 1..=MAX_THREADS {
        for y in 1..=MAX_THREADS / x {
            for z in 1..=MAX_THREADS / (x * y) {
                out.push([x, y, z]);
            }
        }
    }
    out
}

/// Elements reached in the current round, with a generation stamp so that
/// a new round costs nothing.
struct Marks {
    stamp: Vec<u32>,
    round: u32,
    owned: usize,
    /// One past the largest element claimed this round.
    end: usize,
}

impl Marks {
    fn new() -> Self {
        Marks {
            stamp: Vec::new(),
            round: 0,
            owned: 0,
            end: 0,
        }
    }

    fn start(&mut self) {
        self.round += 1;
        self.owned = 0;
        self.end = 0;
    }

    /// Claims element `g`; panics (naming `what`) if it was already claimed.
    fn claim(&mut self, g: usize, what: &dyn Fn() -> String) {
        if g >= self.stamp.len() {
            self.stamp.resize(g + 1, 0);
        }
        assert_ne!(
            self.stamp[g],
            self.round,
            "element {g} reached twice: {}",
            what()
        );
        self.stamp[g] = self.round;
        self.owned += 1;
        self.end = self.end.max(g + 1);
    }

    /// Whether exactly the elements `0..n` were claimed.
    fn covers(&self, n: usize) -> bool {
        self.owned == n && self.stamp.len() >= n && self.stamp[..n].iter().all(|&s| s == self.round)
    }
}

/// Claims every valid access of every thread of `dims` over `locals`.
fn claim_all<M: ChunkMap>(map: &M, dims: [usize; 3], locals: &[M::Local], marks: &mut Marks) {
    marks.start();
    map.check(dims)
        .unwrap_or_else(|e| panic!("{map:?} rejected {dims:?}: {e}"));
    for g in 0..dims.iter().product() {
        let t = ThreadIds::from_linear(dims, g).unwrap();
        for &l in locals {
            if let Some(e) = map.map(l, &t) {
                marks.claim(e, &|| format!("{map:?}, thread {t}, local {l:?}"));
            }
        }
    }
}

fn map_linear_box<const D: usize>(make: fn(usize) -> MapLinear<D>) {
    let mut marks = Marks::new();
    for dims in shapes() {
        for width in 1..=5 {
            let map = make(width);
            if dims[D..].iter().any(|&d| d != 1) {
                assert!(map.check(dims).is_err(), "{map:?} accepted {dims:?}");
                continue;
            }
            let locals: Vec<usize> = (0..3 * width).collect();
            claim_all(&map, dims, &locals, &mut marks);
            let t: usize = dims.iter().product();
            assert!(
                marks.covers(3 * width * t),
                "{map:?} on {dims:?} does not cover"
            );
        }
    }
}

#[test]
fn map_linear_1d_is_injective_and_covers() {
    map_linear_box(MapLinear::new);
}

#[test]
fn map_linear_2d_is_injective_and_covers() {
    map_linear_box(MapLinear::new_2d);
}

#[test]
fn map_linear_3d_is_injective_and_covers() {
    map_linear_box(MapLinear::new_3d);
}

#[test]
fn map_continuous_linear_is_injective_and_covers() {
    let mut marks = Marks::new();
    for dims in shapes() {
        for width in 1..=5 {
            let map = MapContinuousLinear::new(width);
            let locals: Vec<usize> = (0..width + 2).collect();
            claim_all(&map, dims, &locals, &mut marks);
            assert!(
                marks.covers(width * dims.iter().product::<usize>()),
                "{map:?} on {dims:?}"
            );
        }
    }
}

#[test]
fn map_2d_is_injective_and_covers() {
    let mut marks = Marks::new();
    for dims in shapes() {
        for x_size in 1..=6 {
            let map = Map2D::new(x_size);
            if dims[2] != 1 {
                assert!(map.check(dims).is_err());
                continue;
            }
            let (cols, rows) = (x_size.div_ceil(dims[0]) + 1, 3);
            let locals: Vec<[usize; 2]> = (0..rows)
                .flat_map(|b| (0..cols).map(move |a| [a, b]))
                .collect();
            claim_all(&map, dims, &locals, &mut marks);
            assert!(marks.covers(x_size * rows * dims[1]), "{map:?} on {dims:?}");
        }
    }
}

/// Two levels: blocks of a 1-D grid, threads of a 1-D block; all
/// (block, thread, local) accesses together must stay injective, and cover
/// what the outer map covers when the inner one covers each block's part.
#[test]
fn nested_maps_are_injective_across_blocks_and_threads() {
    let mut marks = Marks::new();
    for (blocks, threads, w_out, w_in) in box4(1..=4, 1..=4, 1..=3, 1..=3) {
        let outer = MapContinuousLinear::new(w_out * w_in * threads);
        marks.start();
        for b in 0..blocks {
            let map = Nested::new(
                outer,
                ThreadIds::linear(blocks, b).unwrap(),
                MapLinear::new(w_in),
            )
            .unwrap();
            for t in 0..threads {
                let ids = ThreadIds::linear(threads, t).unwrap();
                for l in 0..w_out * w_in + 1 {
                    if let Some(e) = map.map(l, &ids) {
                        marks.claim(e, &|| format!("{map:?}, thread {ids}, local {l}"));
                    }
                }
            }
        }
        assert!(
            marks.covers(blocks * outer.width()),
            "{blocks} blocks of {threads}, widths {w_out}, {w_in}"
        );
    }
}

fn box4(
    a: std::ops::RangeInclusive<usize>,
    b: std::ops::RangeInclusive<usize>,
    c: std::ops::RangeInclusive<usize>,
    d: std::ops::RangeInclusive<usize>,
) -> Vec<(usize, usize, usize, usize)> {
    let mut out = Vec::new();
    for i in a {
        for j in b.clone() {
            for k in c.clone() {
                for l in d.clone() {
                    out.push((i, j, k, l));
                }
            }
        }
    }
    out
}

/// Calls `f` with every permutation of `0..n`.
fn permutations(n: usize, f: &mut dyn FnMut(&[usize])) {
    fn go(p: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
        if k == p.len() {
            return f(p);
        }
        for i in k..p.len() {
            p.swap(k, i);
            go(p, k + 1, f);
            p.swap(k, i);
        }
    }
    go(&mut (0..n).collect(), 0, f);
}

/// Calls `f` with every vector of `n` values from `values`.
fn tuples(n: usize, values: &[usize], f: &mut dyn FnMut(&[usize])) {
    let mut idx = vec![0; n];
    loop {
        let t: Vec<usize> = idx.iter().map(|&i| values[i]).collect();
        f(&t);
        let Some(r) = (0..n).find(|&r| idx[r] + 1 < values.len()) else {
            return;
        };
        idx[r] += 1;
        idx[..r].iter_mut().for_each(|i| *i = 0);
    }
}

/// Checks one reshape map: one extra local and one extra thread past the
/// extents must be invalid; nothing is reached twice; exactly
/// prod min(D, TD) elements are reached, all below the span, and when no
/// TD exceeds its D they are exactly `offset..span`.
fn check_reshape(map: &ReshapeMap, marks: &mut Marks) {
    let locals: Vec<usize> = (0..=map.locals()).collect();
    claim_all(map, [map.threads() + 1, 1, 1], &locals, marks);
    let dims = map.local_dims().iter().chain(map.thread_dims());
    let valid: usize = dims.clone().map(|d| d.extent().min(d.target())).product();
    assert_eq!(marks.owned, valid, "{map:?}");
    assert!(marks.end <= map.span(), "{map:?} reaches past its span");
    if dims.clone().all(|d| d.target() <= d.extent()) {
        let offset = map.offset();
        let in_span = marks.stamp[offset..map.span()]
            .iter()
            .filter(|&&s| s == marks.round)
            .count();
        assert_eq!(
            in_span,
            map.span() - offset,
            "{map:?} does not cover its span"
        );
    }
}

/// Every split of `dims` into local and thread dims, every layout
/// permutation and every reversal flag.
fn every_reshape(dims: &[Dim], offset: usize, marks: &mut Marks) {
    for n_local in 1..dims.len() {
        every_layout(dims, n_local, offset, marks);
    }
}

/// Every layout permutation and reversal flag, with `n_local` local dims.
fn every_layout(dims: &[Dim], n_local: usize, offset: usize, marks: &mut Marks) {
    let n = dims.len();
    {
        let threads: usize = dims[n_local..].iter().map(|d| d.extent()).product();
        if threads >= MAX_THREADS {
            return;
        }
        permutations(n, &mut |perm| {
            for flags in 0..1usize << n {
                let layout: Vec<LayoutEntry> = perm
                    .iter()
                    .map(|&d| LayoutEntry::new(d, flags >> d & 1 == 1))
                    .collect();
                let map =
                    ReshapeMap::new(&dims[..n_local], &dims[n_local..], &layout, offset).unwrap();
                check_reshape(&map, marks);
            }
        });
    }
}

#[test]
fn reshape_up_to_three_dims_with_skips_and_holes() {
    let mut marks = Marks::new();
    let pairs: Vec<usize> = (0..36).collect();
    for n in 2..=3 {
        let targets = if n == 2 { 6 } else { 4 };
        tuples(n, &pairs, &mut |t| {
            let dims: Vec<Dim> = t.iter().map(|&p| Dim::pair(p % 6 + 1, p / 6 + 1)).collect();
            if dims.iter().all(|d| d.target() <= targets) {
                every_reshape(&dims, 0, &mut marks);
            }
        });
    }
}

/// The 4-dim box: every extent 1..=6 (TD = D), split three ways so that
/// the test harness runs the parts on separate cores.
fn four_dims(n_local: usize) {
    let mut marks = Marks::new();
    tuples(4, &[1, 2, 3, 4, 5, 6], &mut |t| {
        let dims: Vec<Dim> = t.iter().map(|&d| Dim::new(d)).collect();
        every_layout(&dims, n_local, 0, &mut marks);
    });
}

#[test]
fn reshape_four_dims_one_local() {
    four_dims(1);
}

#[test]
fn reshape_four_dims_two_locals() {
    four_dims(2);
}

#[test]
fn reshape_four_dims_three_locals() {
    four_dims(3);
}

#[test]
fn reshape_offsets_shift_without_overlap() {
    let mut marks = Marks::new();
    for offset in [1, 5] {
        tuples(3, &[1, 2, 3], &mut |t| {
            let dims: Vec<Dim> = t.iter().map(|&d| Dim::pair(d, 4 - d)).collect();
            every_reshape(&dims, offset, &mut marks);
        });
    }
}
