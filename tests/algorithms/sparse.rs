//! `CrsMatrix` and `spmv` against a sequential reference: the same bits
//! for every alpha and beta case, `y` unread when beta is 0 and `A x`
//! unread when alpha is 0, and every malformed structure or vector
//! length refused with the offending index before anything is written.

use granule::algorithms::sparse::{spmv, CrsMatrix};
use granule::algorithms::{AlgorithmError, PortableAlgorithms};
use granule::prelude::*;
use granule::views::PortableMemory;

/// A random structure: `nrows` rows of 0 to 9 entries (some empty), the
/// columns in `0..ncols`, values from `value`.
pub fn random_structure<T>(
    rng: &mut crate::common::Rng,
    nrows: usize,
    ncols: usize,
    mut value: impl FnMut(u64) -> T,
) -> (Vec<usize>, Vec<u32>, Vec<T>) {
    let mut row_map = vec![0];
    let (mut cols, mut vals) = (Vec::new(), Vec::new());
    for _ in 0..nrows {
        let len = if ncols == 0 { 0 } else { rng.next() % 10 };
        for _ in 0..len {
            cols.push((rng.next() % ncols as u64) as u32);
            vals.push(value(rng.next()));
        }
        row_map.push(cols.len());
    }
    (row_map, cols, vals)
}

/// `y = beta y + alpha A x` as the documentation gives it, sequentially.
pub fn reference<T>(
    (row_map, cols, vals): &(Vec<usize>, Vec<u32>, Vec<T>),
    x: &[T],
    (alpha, beta): (T, T),
    y: &[T],
) -> Vec<T>
where
    T: Copy + Default + PartialEq + std::ops::Add<Output = T> + std::ops::Mul<Output = T>,
{
    let zero = T::default();
    (0..row_map.len() - 1)
        .map(|i| {
            if alpha == zero {
                return if beta == zero { zero } else { beta * y[i] };
            }
            let mut sum = zero;
            for k in row_map[i]..row_map[i + 1] {
                sum = sum + vals[k] * x[cols[k] as usize];
            }
            if beta == zero {
                alpha * sum
            } else {
                beta * y[i] + alpha * sum
            }
        })
        .collect()
}

/// The matrix of `parts` on `s`.
pub fn matrix_on<S: PortableAlgorithms, T: Element>(
    s: &S,
    ncols: usize,
    (row_map, cols, vals): (Vec<usize>, Vec<u32>, Vec<T>),
) -> Result<CrsMatrix<T, S::MemorySpace>, AlgorithmError> {
    let row_map = View1::from_vec_on(s, "row_map", row_map.len(), row_map)?;
    let entries = View1::from_vec_on(s, "entries", cols.len(), cols)?;
    let values = View1::from_vec_on(s, "values", vals.len(), vals)?;
    CrsMatrix::new(s, ncols, row_map, entries, values)
}

/// The 1D Laplacian's CG on any space through `spmv` alone: the solve of
/// `A u = A 1` converges to 1 in at most `n` steps.
pub fn laplacian_cg<S: PortableAlgorithms>(s: &S, n: usize) -> Vec<f64> {
    let (mut row_map, mut cols, mut vals) = (vec![0], vec![], vec![]);
    for i in 0..n {
        for (j, v) in [(i.wrapping_sub(1), -1.0), (i, 2.0), (i + 1, -1.0)] {
            if j < n {
                cols.push(j as u32);
                vals.push(v);
            }
        }
        row_map.push(cols.len());
    }
    let a = matrix_on(s, n, (row_map, cols, vals)).unwrap();
    let ones = View1::from_vec_on(s, "ones", n, vec![1.0; n]).unwrap();
    let mut b = View1::zeros_on(s, "b", n).unwrap();
    spmv(s, 1.0, &a, &ones, 0.0, &mut b).unwrap();
    // Host CG over device products: the vectors are small.
    let host = |v: &View1<f64, LayoutRight, S::MemorySpace>| to_host(v);
    let mut u = vec![0.0; n];
    let mut r = host(&b);
    let mut p = r.clone();
    let mut rr: f64 = r.iter().map(|v| v * v).sum();
    for _ in 0..n {
        let pv = View1::from_vec_on(s, "p", n, p.clone()).unwrap();
        let mut ap = View1::zeros_on(s, "Ap", n).unwrap();
        spmv(s, 1.0, &a, &pv, 0.0, &mut ap).unwrap();
        let ap = host(&ap);
        let alpha = rr / p.iter().zip(&ap).map(|(a, b)| a * b).sum::<f64>();
        for k in 0..n {
            u[k] += alpha * p[k];
            r[k] -= alpha * ap[k];
        }
        let next: f64 = r.iter().map(|v| v * v).sum();
        if next.sqrt() < 1e-12 {
            break;
        }
        for k in 0..n {
            p[k] = r[k] + next / rr * p[k];
        }
        rr = next;
    }
    u
}

fn to_host<T: Element, M: PortableMemory>(v: &View1<T, LayoutRight, M>) -> Vec<T> {
    create_mirror_view_and_copy(v).unwrap().as_view().to_vec()
}

macro_rules! sparse_tests {
    () => {
        mod sparse {
            use super::*;
            use crate::sparse::{laplacian_cg, matrix_on, random_structure, reference};
            use granule::algorithms::sparse::spmv;

            /// Every alpha/beta case against the reference, bit for bit,
            /// with `y` starting as NaN when beta is 0 (it must not be
            /// read).
            macro_rules! every_case {
                ($t:ty, $name:ident) => {
                    #[test]
                    fn $name() {
                        let s = space();
                        let mut rng = Rng::new(41);
                        let unit = |v: u64| (v % 2001) as $t / 1000.0 - 1.0;
                        for (nrows, ncols) in [(0, 0), (1, 1), (5, 0), (7, 3), (300, 257), (2049, 1500)] {
                            let parts = random_structure(&mut rng, nrows, ncols, unit);
                            let a = matrix_on(&s, ncols, parts.clone()).unwrap();
                            assert_eq!((a.nrows(), a.ncols(), a.nnz()), (nrows, ncols, parts.1.len()));
                            let x = rng.vec(ncols, unit);
                            let xv = view_in(&s, "x", x.clone());
                            for (alpha, beta) in [(1.0, 0.0), (2.5, 0.0), (1.0, -0.5), (0.0, 0.0), (0.0, 3.0), (-1.5, 2.0)] {
                                let y0 = if beta == 0.0 { vec![<$t>::NAN; nrows] } else { rng.vec(nrows, unit) };
                                let mut yv = view_in(&s, "y", y0.clone());
                                spmv(&s, alpha, &a, &xv, beta, &mut yv).unwrap();
                                let want = reference(&parts, &x, (alpha, beta), &y0);
                                let got = read(&yv);
                                let bits = |v: &[$t]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
                                assert_eq!(bits(&got), bits(&want), "{nrows} x {ncols}, alpha {alpha}, beta {beta}");
                            }
                        }
                    }
                };
            }
            every_case!(f64, spmv_f64_matches_the_reference_in_every_case);
            every_case!(f32, spmv_f32_matches_the_reference_in_every_case);

            #[test]
            fn alpha_zero_reads_neither_the_matrix_nor_x() {
                let s = space();
                let parts = (vec![0, 2, 3], vec![0u32, 1, 1], vec![1.0, f64::NAN, 2.0]);
                let a = matrix_on(&s, 2, parts).unwrap();
                let x = view_in(&s, "x", vec![f64::INFINITY, f64::NAN]);
                let mut y = view_in(&s, "y", vec![1.0, -2.0]);
                spmv(&s, 0.0, &a, &x, 3.0, &mut y).unwrap();
                assert_eq!(read(&y), [3.0, -6.0]);
                spmv(&s, 0.0, &a, &x, 0.0, &mut y).unwrap();
                assert_eq!(read(&y), [0.0, 0.0]);
            }

            #[test]
            fn a_generic_cg_through_spmv_converges() {
                let u = laplacian_cg(&space(), 50);
                assert!(u.iter().all(|v| (v - 1.0).abs() < 1e-9), "{u:?}");
            }

            #[test]
            fn malformed_structures_are_refused_with_the_offending_entry() {
                let s = space();
                let bad_rows = |row_map: Vec<usize>, nnz: usize| {
                    let parts = (row_map, vec![0u32; nnz], vec![1.0f64; nnz]);
                    match matrix_on(&s, 1, parts) {
                        Err(AlgorithmError::InvalidRowMap { row_map, reason }) => {
                            assert_eq!(row_map, "row_map");
                            reason
                        }
                        other => panic!("{other:?}"),
                    }
                };
                assert!(bad_rows(vec![], 0).contains("is empty"), "empty");
                assert_eq!(bad_rows(vec![1, 2], 2), "starts at 1, not 0");
                assert!(bad_rows(vec![0, 2, 1, 3], 3).contains("entry 1 is 2 and entry 2 is 1"));
                assert_eq!(bad_rows(vec![0, 1, 2], 3), "ends at 2, but the matrix has 3 entries");

                let unequal = matrix_on(&s, 4, (vec![0, 2], vec![0u32, 1], vec![1.0f64]));
                assert!(matches!(unequal, Err(AlgorithmError::LengthMismatch { .. })), "{unequal:?}");

                let parts = (vec![0, 2, 2, 5], vec![0u32, 3, 1, 9, 2], vec![1.0f64; 5]);
                let err = matrix_on(&s, 4, parts).unwrap_err();
                assert_eq!(
                    err,
                    AlgorithmError::ColumnOutOfRange {
                        entries: "entries".into(),
                        index: 3,
                        row: 2,
                        column: 9,
                        ncols: 4
                    }
                );
                assert!(err.to_string().contains("entry 3 of \"entries\" (row 2) is column 9"), "{err}");
            }

            #[test]
            fn vectors_of_the_wrong_length_are_refused_and_nothing_is_written() {
                let s = space();
                let a = matrix_on(&s, 3, (vec![0, 1, 2], vec![0u32, 2], vec![1.0f64, 1.0])).unwrap();
                let x = view_in(&s, "x", vec![1.0; 2]);
                let mut y = view_in(&s, "y", vec![7.0; 2]);
                let err = spmv(&s, 1.0, &a, &x, 0.0, &mut y).unwrap_err();
                assert!(matches!(&err, AlgorithmError::ShapeMismatch { view, len: 2, expected: 3, .. } if view == "x"), "{err:?}");
                assert!(err.to_string().contains("\"x\" [2] must have 3 elements (the matrix's columns)"), "{err}");
                let x = view_in(&s, "x", vec![1.0; 3]);
                let mut long = view_in(&s, "long", vec![7.0; 3]);
                let err = spmv(&s, 1.0, &a, &x, 0.0, &mut long).unwrap_err();
                assert!(matches!(&err, AlgorithmError::ShapeMismatch { view, expected: 2, .. } if view == "long"), "{err:?}");
                assert_eq!(read(&long), [7.0; 3]);
            }
        }
    };
}
