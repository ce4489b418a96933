//! The hex8 element's shape functions at miniFE's 2 × 2 × 2 Gauss
//! points, tabulated once on the host for the element kernel.
//!
//! ```
//! let g = granule_cg::hex8::gradients();
//! assert_eq!(g.len(), 8 * 24);
//! // The gradients of the eight shape functions sum to zero.
//! let sx: f64 = (0..8).map(|a| g[3 * a]).sum();
//! assert!(sx.abs() < 1e-15);
//! ```

/// miniFE's two-point Gauss abscissa, as it writes it (nine digits of
/// 1/√3); the weights are 1.
pub const GAUSS: f64 = 0.577350269;

/// The Gauss points in miniFE's order: the first coordinate slowest.
fn points() -> impl Iterator<Item = [f64; 3]> {
    let g = [-GAUSS, GAUSS];
    (0..8).map(move |k| [g[k / 4], g[(k / 2) % 2], g[k % 2]])
}

/// `(1 - ξ, 1 - η, 1 - ζ, 1 + ξ, 1 + η, 1 + ζ)` at a point.
fn factors(p: [f64; 3]) -> [f64; 6] {
    [
        1.0 - p[0],
        1.0 - p[1],
        1.0 - p[2],
        1.0 + p[0],
        1.0 + p[1],
        1.0 + p[2],
    ]
}

/// The reference gradients `[point][corner][axis]` (miniFE's
/// `Hex8::gradients` at each point).
pub fn gradients() -> Vec<f64> {
    let mut out = Vec::with_capacity(8 * 24);
    for p in points() {
        let [u, v, w, up, vp, wp] = factors(p);
        out.extend_from_slice(&[
            -0.125 * v * w,
            -0.125 * u * w,
            -0.125 * u * v,
            0.125 * v * w,
            -0.125 * up * w,
            -0.125 * up * v,
            0.125 * vp * w,
            0.125 * up * w,
            -0.125 * up * vp,
            -0.125 * vp * w,
            0.125 * u * w,
            -0.125 * u * vp,
            -0.125 * v * wp,
            -0.125 * u * wp,
            0.125 * u * v,
            0.125 * v * wp,
            -0.125 * up * wp,
            0.125 * up * v,
            0.125 * vp * wp,
            0.125 * up * wp,
            0.125 * up * vp,
            -0.125 * vp * wp,
            0.125 * u * wp,
            0.125 * u * vp,
        ]);
    }
    out
}

/// The shape functions' values `[point][corner]`.
pub fn shapes() -> Vec<f64> {
    let mut out = Vec::with_capacity(64);
    for p in points() {
        let [u, v, w, up, vp, wp] = factors(p);
        out.extend_from_slice(&[
            0.125 * u * v * w,
            0.125 * up * v * w,
            0.125 * up * vp * w,
            0.125 * u * vp * w,
            0.125 * u * v * wp,
            0.125 * up * v * wp,
            0.125 * up * vp * wp,
            0.125 * u * vp * wp,
        ]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shape_functions_sum_to_one_at_every_point() {
        for p in shapes().chunks(8) {
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15, "{p:?}");
        }
    }

    #[test]
    fn each_gradient_is_the_derivative_of_its_shape_function() {
        // Corner 6, (1, 1, 1): ψ = (1+ξ)(1+η)(1+ζ)/8, so ∂ψ/∂ξ = (1+η)(1+ζ)/8.
        let g = gradients();
        for (k, p) in points().enumerate() {
            let want = 0.125 * (1.0 + p[1]) * (1.0 + p[2]);
            assert_eq!(g[24 * k + 18], want);
        }
    }
}
