//! BinSort against a sequential reference: the permutation orders the
//! items by bin and by index within a bin, the counts and offsets match,
//! `sort` moves elements and rows, and a key outside the bins is refused.

use granule::algorithms::sort::{BinOp3D, BinSort};
use granule::algorithms::PortableAlgorithms;
use granule::prelude::*;
use granule::views::PortableMemory;

fn to_host<T: Element, const R: usize, M: PortableMemory>(
    v: &View<T, R, LayoutRight, M>,
) -> Vec<T> {
    create_mirror_view_and_copy(v)
        .unwrap()
        .as_view()
        .iter()
        .copied()
        .collect()
}

/// An MD code's cell ordering, generic over the space (no bound but
/// `PortableAlgorithms`): positions binned in 3D, rows sorted, the
/// cells' offsets by an exclusive scan of their counts.
pub fn cell_order<S: PortableAlgorithms>(s: &S, pos: &[f64]) -> (Vec<f64>, Vec<u32>, Vec<u32>) {
    let n = pos.len() / 3;
    let mut x = View2::from_vec_on(s, "x", [n, 3], pos.to_vec()).unwrap();
    let op = BinOp3D::new([4, 3, 2], [0.0; 3], [1.0; 3]).unwrap();
    let bins = BinSort::new(s, &x, &op).unwrap();
    bins.sort(&mut x).unwrap();
    let mut starts = View1::zeros_on(s, "starts", op.bins()).unwrap();
    exclusive_scan(s, bins.bin_count(), &mut starts, Sum, None).unwrap();
    (
        to_host(&x),
        to_host(bins.permute_vector()),
        to_host(&starts),
    )
}

macro_rules! bin_sort_tests {
    () => {
        mod bin_sort {
            use super::*;
            use granule::algorithms::sort::{BinOp1D, BinOp3D, BinSort};

            /// The stable order by bin, with the counts, of `bins`.
            fn reference(bins: &[usize], total: usize) -> (Vec<u32>, Vec<u32>) {
                let mut perm: Vec<u32> = (0..bins.len() as u32).collect();
                perm.sort_by_key(|&i| bins[i as usize]);
                let mut counts = vec![0u32; total];
                for &b in bins {
                    counts[b] += 1;
                }
                (perm, counts)
            }

            #[test]
            fn bin_sort_1d_orders_by_bin_then_index() {
                let s = space();
                let mut rng = Rng::new(5);
                for n in [1, 7, 1000, (1 << 17) + 3] {
                    let keys: Vec<f64> = rng.vec(n, |r| (r % 10_000) as f64 / 10_000.0 * 3.0);
                    let x = view_in(&s, "x", keys.clone());
                    let op = BinOp1D::new(64, 0.0, 3.0).unwrap();
                    let sorter = BinSort::new(&s, &x, &op).unwrap();
                    let bins: Vec<usize> = keys
                        .iter()
                        .map(|k| ((k / 3.0 * 64.0) as usize).min(63))
                        .collect();
                    let (perm, counts) = reference(&bins, 64);
                    assert_eq!(read(sorter.permute_vector()), perm, "n {n}");
                    assert_eq!(read(sorter.bin_count()), counts, "n {n}");
                    let offsets: Vec<u32> = counts
                        .iter()
                        .scan(0, |a, &c| {
                            let o = *a;
                            *a += c;
                            Some(o)
                        })
                        .collect();
                    assert_eq!(read(sorter.bin_offsets()), offsets, "n {n}");
                    let mut ids = view_in(&s, "ids", (0..n as u64).map(|i| 7 * i).collect());
                    sorter.sort(&mut ids).unwrap();
                    let want: Vec<u64> = perm.iter().map(|&p| 7 * p as u64).collect();
                    assert_eq!(read(&ids), want, "n {n}");
                }
            }

            #[test]
            fn bin_sort_3d_moves_rows_of_positions() {
                let s = space();
                let n = 5000;
                let mut rng = Rng::new(9);
                let pos: Vec<f64> = rng.vec(3 * n, |r| (r % 1000) as f64 / 1000.0 * 8.0);
                let mut x = View2::<f64, LayoutRight, _>::from_fn_in(
                    s.memory_space(),
                    "x",
                    [n, 3],
                    |[i, d]| pos[3 * i + d],
                )
                .unwrap();
                let op = BinOp3D::new([4, 4, 2], [0.0; 3], [8.0, 8.0, 8.0]).unwrap();
                let sorter = BinSort::new(&s, &x, &op).unwrap();
                let cell = |v: f64, m: usize| ((v / 8.0 * m as f64) as usize).min(m - 1);
                let bins: Vec<usize> = (0..n)
                    .map(|i| {
                        (cell(pos[3 * i], 4) * 4 + cell(pos[3 * i + 1], 4)) * 2
                            + cell(pos[3 * i + 2], 2)
                    })
                    .collect();
                let (perm, counts) = reference(&bins, 32);
                assert_eq!(read(sorter.permute_vector()), perm);
                assert_eq!(read(sorter.bin_count()), counts);
                sorter.sort(&mut x).unwrap();
                let x = create_mirror_view_and_copy(&x).unwrap();
                for (j, &p) in perm.iter().enumerate() {
                    for d in 0..3 {
                        assert_eq!(x[[j, d]], pos[3 * p as usize + d], "row {j}");
                    }
                }
            }

            #[test]
            fn bin_sort_within_bins_orders_each_bin_by_key() {
                let s = space();
                let mut rng = Rng::new(11);
                // Few distinct keys, so bins hold ties; one bin of many.
                for (n, bins) in [(0, 4), (1, 4), (2, 1), (33, 4), (4099, 64), (3000, 1)] {
                    let keys: Vec<i64> = rng.vec(n, |r| (r % 200) as i64 - 100);
                    let x = view_in(&s, "x", keys.clone());
                    let op = BinOp1D::new(bins, -100.0, 100.0).unwrap();
                    let sorter = BinSort::new_sorted_within_bins(&s, &x, &op).unwrap();
                    // The binning's own arithmetic: (k - min) * (bins / (max - min)).
                    let scale = bins as f64 / 200.0;
                    let bin = |k: i64| (((k + 100) as f64 * scale) as usize).min(bins - 1);
                    let mut perm: Vec<u32> = (0..n as u32).collect();
                    perm.sort_by_key(|&i| (bin(keys[i as usize]), keys[i as usize], i));
                    assert_eq!(read(sorter.permute_vector()), perm, "n {n}, {bins} bins");
                }
                let n = 2000;
                let pos: Vec<u32> = rng.vec(3 * n, |r| (r % 6) as u32);
                let x = View2::<u32, LayoutRight, _>::from_fn_in(
                    s.memory_space(),
                    "x",
                    [n, 3],
                    |[i, d]| pos[3 * i + d],
                )
                .unwrap();
                let op = BinOp3D::new([2, 2, 1], [0.0; 3], [6.0; 3]).unwrap();
                let sorter = BinSort::new_sorted_within_bins(&s, &x, &op).unwrap();
                let row = |i: u32| {
                    let i = 3 * i as usize;
                    [pos[i], pos[i + 1], pos[i + 2]]
                };
                let cell = |v: u32| (v / 3) as usize;
                let mut perm: Vec<u32> = (0..n as u32).collect();
                // Kokkos's BinOp3D order within a bin: x, y, z descending.
                perm.sort_by(|&p, &q| {
                    let (a, b) = (row(p), row(q));
                    (cell(a[0]) * 2 + cell(a[1]))
                        .cmp(&(cell(b[0]) * 2 + cell(b[1])))
                        .then(b.cmp(&a))
                        .then(p.cmp(&q))
                });
                assert_eq!(read(sorter.permute_vector()), perm, "rank 3");
            }

            #[test]
            fn bin_sort_runs_in_code_generic_over_the_space() {
                let s = space();
                let mut rng = Rng::new(3);
                let pos: Vec<f64> = rng.vec(3 * 777, |r| (r % 1000) as f64 / 1000.0);
                let (rows, perm, starts) = crate::bin_sort::cell_order(&s, &pos);
                let x = View2::<f64, LayoutRight, _>::from_fn_in(
                    s.memory_space(),
                    "x",
                    [777, 3],
                    |[i, k]| pos[3 * i + k],
                )
                .unwrap();
                let op = BinOp3D::new([4, 3, 2], [0.0; 3], [1.0; 3]).unwrap();
                let direct = BinSort::new(&s, &x, &op).unwrap();
                assert_eq!(perm, read(direct.permute_vector()));
                let want: Vec<f64> = perm
                    .iter()
                    .flat_map(|&p| pos[3 * p as usize..3 * p as usize + 3].to_vec())
                    .collect();
                assert_eq!(rows, want);
                let counts = read(direct.bin_count());
                let offsets: Vec<u32> = counts
                    .iter()
                    .scan(0, |a, &c| {
                        let o = *a;
                        *a += c;
                        Some(o)
                    })
                    .collect();
                assert_eq!(starts, offsets);
            }

            #[test]
            fn bin_sort_refuses_a_key_outside_its_bins() {
                let s = space();
                let x = view_in(&s, "x", vec![0.5f32, 1.5, 2.5, 0.0]);
                let e = BinSort::new(&s, &x, &BinOp1D::new(4, 0.0, 2.0).unwrap())
                    .err()
                    .unwrap();
                assert!(
                    matches!(e, AlgorithmError::KeyOutsideBins { index: 2, .. }),
                    "{e}"
                );
                assert!(e.to_string().contains("key 2 of \"x\" is 2.5"), "{e}");
                let ids = view_in(&s, "ids", vec![1u32, 2, 3]);
                let ok = BinSort::new(
                    &s,
                    &view_in(&s, "k", vec![0i64, 3, 1, 2]),
                    &BinOp1D::new(4, 0.0, 3.0).unwrap(),
                )
                .unwrap();
                let mut ids = ids;
                assert!(matches!(
                    ok.sort(&mut ids),
                    Err(AlgorithmError::LengthMismatch { .. })
                ));
            }
        }
    };
}
