//! miniFE's check of the solution: the series solution of the steady
//! heat equation in the unit cube (1 on the face x = 1, 0 on the other
//! faces; Carslaw and Jaeger, section 6.2), compared at the nodes within
//! 0.05 of the centre along each axis.
//!
//! ```
//! use granule_cg::analytic::solution;
//! // On the centre line the series is symmetric in y and z.
//! let a = solution(0.5, 0.3, 0.7, 300);
//! let b = solution(0.5, 0.7, 0.3, 300);
//! assert!((a - b).abs() < 1e-12);
//! ```

use crate::Config;
use std::f64::consts::PI;

const PI_SQUARED: f64 = PI * PI;

/// miniFE's terms per series index.
pub const TERMS: usize = 300;

/// miniFE's tolerance on the absolute error.
pub const TOLERANCE: f64 = 0.06;

/// The series solution at `(x, y, z)` with `terms + 1` terms in each of
/// its two indices; a term whose `sinh` overflows ends its inner sum, as
/// in miniFE.
pub fn solution(x: f64, y: f64, z: f64, terms: usize) -> f64 {
    let mut sum = 0.0;
    for p in 0..=terms {
        let p2 = (2 * p + 1) as f64;
        let sin_py = (p2 * PI * y).sin() / p2;
        for q in 0..=terms {
            let q2 = (2 * q + 1) as f64;
            let sin_qz = (q2 * PI * z).sin() / q2;
            let l = (p2 * p2 * PI_SQUARED + q2 * q2 * PI_SQUARED).sqrt();
            let t = ((l * x).sinh() * sin_py) * (sin_qz / l.sinh());
            if t.is_nan() {
                break;
            }
            sum += t;
        }
    }
    16.0 / PI_SQUARED * sum
}

/// The worst point of a check.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verification {
    /// The largest absolute error.
    pub error: f64,
    /// Where it is.
    pub at: [f64; 3],
    /// The computed value there.
    pub computed: f64,
    /// The analytic value there.
    pub analytic: f64,
}

impl Verification {
    /// Whether the error is within miniFE's tolerance.
    pub fn passed(&self) -> bool {
        self.error <= TOLERANCE
    }
}

/// A node's coordinate along an axis of `n` elements (miniFE's
/// `get_coords`: the node index over the element count).
fn coordinate(i: usize, n: usize) -> f64 {
    i as f64 / n as f64
}

/// The analytic value at a node: the boundary values on the faces, the
/// series inside.
fn analytic_at(x: f64, y: f64, z: f64) -> f64 {
    if x == 1.0 {
        1.0
    } else if x == 0.0 || y == 0.0 || z == 0.0 || y == 1.0 || z == 1.0 {
        0.0
    } else {
        solution(x, y, z, TERMS)
    }
}

/// Compares the solution `x` (one value per node) with the analytic one
/// near the centre.
pub fn verify(cfg: &Config, x: &[f64]) -> Verification {
    let mut worst = Verification {
        error: 0.0,
        at: [0.0; 3],
        computed: 0.0,
        analytic: 0.0,
    };
    let near = |c: f64| (c - 0.5).abs() < 0.05;
    let mut row = 0;
    for iz in 0..=cfg.nz {
        for iy in 0..=cfg.ny {
            for ix in 0..=cfg.nx {
                let c = [
                    coordinate(ix, cfg.nx),
                    coordinate(iy, cfg.ny),
                    coordinate(iz, cfg.nz),
                ];
                if near(c[0]) && near(c[1]) && near(c[2]) {
                    let analytic = analytic_at(c[0], c[1], c[2]);
                    let error = (analytic - x[row]).abs();
                    if error > worst.error {
                        worst = Verification {
                            error,
                            at: c,
                            computed: x[row],
                            analytic,
                        };
                    }
                }
                row += 1;
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_series_meets_its_boundary_values() {
        assert!((solution(0.999999, 0.5, 0.5, TERMS) - 1.0).abs() < 0.01);
        assert!(solution(0.000001, 0.5, 0.5, TERMS).abs() < 1e-5);
    }

    #[test]
    fn a_solution_far_from_the_series_fails() {
        let cfg = Config {
            nx: 10,
            ny: 10,
            nz: 10,
            ..Config::default()
        };
        let v = verify(&cfg, &vec![0.0; cfg.rows()]);
        assert!(!v.passed());
        assert_eq!(v.at, [0.5, 0.5, 0.5]);
    }
}
