//! Programs generic over the space (`fn run<S: PortableSpace>(s: &S)`):
//! one driver, written once with `granule::portable`'s patterns, runs on
//! every space and gives the bits of the direct calls on Serial.

use crate::kernels::*;
use granule::portable::{parallel_for, parallel_reduce, parallel_scan, PortableMemory};
use granule::prelude::*;

/// What [`mini_app`] computed, read back to the host.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub y: Vec<f64>,
    pub dot: f64,
    pub forces: Vec<f64>,
    pub offsets: Vec<i32>,
    pub total: i32,
    pub cols: Vec<u32>,
    pub vals: Vec<f64>,
    pub grid: Vec<i64>,
    pub ijk: usize,
    pub means: f64,
    pub filled: Vec<f64>,
    pub grown: Vec<f64>,
}

fn host<T: Element, const R: usize, M: PortableMemory>(v: &View<T, R, LayoutRight, M>) -> Vec<T> {
    create_mirror_view_and_copy(v)
        .unwrap()
        .as_view()
        .iter()
        .copied()
        .collect()
}

/// Every pattern and policy, the write kinds an application uses (own
/// element, row, segment), and the memory operations (fill, copies both
/// ways, resize), generic over the space: no bound but `PortableSpace`.
pub fn mini_app<S: PortableSpace>(s: &S, n: usize) -> Outcome {
    let x = View1::from_fn_on(s, "x", n, |i| 0.5 * i as f64).unwrap();
    let mut y = View1::full_on(s, "y", n, 1.0).unwrap();
    parallel_for("axpy", RangePolicy::new(s, 0..n), &mut y, axpy(2.0, &x));
    let dot = parallel_reduce("sum", RangePolicy::new(s, 0..n), Sum, sum_x(&y));

    let pos = View2::from_fn_on(s, "pos", [n, 3], |[i, k]| (i * 3 + k) as f64 * 0.25).unwrap();
    let mut f = View2::zeros_on(s, "f", [n, 3]).unwrap();
    parallel_for(
        "forces",
        RangePolicy::new(s, 0..n),
        &mut f,
        pair_forces(&pos),
    );

    let mut offsets = View1::zeros_on(s, "offsets", n).unwrap();
    let total = parallel_scan(
        "offsets",
        RangePolicy::new(s, 0..n),
        &mut offsets,
        exclusive_index_i32(),
    );

    let w = 2;
    let starts: Vec<usize> = (0..=n).map(|i| i * (2 * w + 1)).collect();
    let starts = View1::from_vec_on(s, "starts", n + 1, starts).unwrap();
    let offs = Offsets::new(&starts).unwrap();
    let mut cols = View1::zeros_on(s, "cols", offs.end()).unwrap();
    let mut vals = View1::zeros_on(s, "vals", offs.end()).unwrap();
    parallel_for(
        "assemble",
        RangePolicy::new(s, 0..n),
        (
            offs.segments(&mut cols).unwrap(),
            offs.segments(&mut vals).unwrap(),
        ),
        banded_row(w),
    );

    let mut grid = View2::zeros_on(s, "grid", [4, 5]).unwrap();
    parallel_for(
        "grid",
        MDRangePolicy::new(s, [0, 0], [4, 5]),
        &mut grid,
        ten_i_plus_j(),
    );
    let ijk = parallel_reduce(
        "ijk",
        MDRangePolicy::new(s, [0; 3], [3, 4, 5]),
        Sum,
        sum_ijk(),
    );

    let a = View2::from_fn_on(s, "a", [6, 7], |[i, j]| (i * 7 + j) as f64).unwrap();
    let team = s.team_size_recommended().min(4);
    let means = parallel_reduce("means", TeamPolicy::new(s, 6, team), Sum, row_means(&a));

    let mut filled = View1::zeros_on(s, "filled", n).unwrap();
    fill(&mut filled, 3.5).unwrap();
    let back = View1::<f64>::from_fn("back", n, |i| i as f64).unwrap();
    let mut grown = View1::zeros_on(s, "grown", n).unwrap();
    deep_copy(&mut grown, &back).unwrap();
    grown.resize(n + 2).unwrap();

    Outcome {
        y: host(&y),
        dot,
        forces: host(&f),
        offsets: host(&offsets),
        total,
        cols: host(&cols),
        vals: host(&vals),
        grid: host(&grid),
        ijk,
        means,
        filled: host(&filled),
        grown: host(&grown),
    }
}

/// The reference for the values without a closed form (forces, the
/// assembled rows): the driver on Serial, whose host functors are the
/// kernels' own (`PortableKernel::into_host` is the identity there), as
/// the direct calls of the other tests run them.
pub fn on_serial(n: usize) -> Outcome {
    mini_app(&Serial, n)
}

macro_rules! portable_tests {
    () => {
        #[test]
        fn a_driver_generic_over_the_space_runs_unchanged() {
            use crate::portable::{mini_app, Outcome};
            let n = 37;
            let got = mini_app(&space(), n);
            let want_y: Vec<f64> = (0..n).map(|i| 2.0 * 0.5 * i as f64 + 1.0).collect();
            assert_eq!(got.y, want_y);
            assert_eq!(got.dot, want_y.iter().sum::<f64>());
            let want_off: Vec<i32> = (0..n)
                .map(|i| (i * i.saturating_sub(1) / 2) as i32)
                .collect();
            assert_eq!(
                (got.offsets.clone(), got.total),
                (want_off, (n * (n - 1) / 2) as i32)
            );
            assert_eq!(got.grid[4 * 5 - 1], 34);
            assert_eq!(
                got.ijk,
                (0..3).map(|i| 20 * i).sum::<usize>()
                    + (0..4).map(|j| 15 * j).sum::<usize>()
                    + (0..5).map(|k| 12 * k).sum::<usize>()
            );
            // Row i of `a` holds 7 i .. 7 i + 6: its mean is 7 i + 3.
            assert_eq!(got.means, (0..6).map(|i| (7 * i + 3) as f64).sum::<f64>());
            assert_eq!(got.filled, vec![3.5; n]);
            let mut grown: Vec<f64> = (0..n).map(|i| i as f64).collect();
            grown.extend([0.0, 0.0]);
            assert_eq!(got.grown, grown);
            let reference: Outcome = crate::portable::on_serial(n);
            assert_eq!(got, reference);
        }
    };
}
