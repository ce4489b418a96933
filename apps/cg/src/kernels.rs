//! The kernels, each a `#[kernel]`: the host spaces run their Rust
//! bodies, Cuda their translation.
//!
//! Rows are nodes, numbered `x + (nx + 1) (y + (ny + 1) z)` as miniFE
//! numbers them; elements likewise with `nx, ny, nz`. miniFE assembles
//! element by element and adds each element's entries into the matrix
//! with atomics. Here each element first writes its own row of an element
//! table (its upper-triangular matrix and its source vector), then each
//! matrix row gathers, from the up to eight elements around its node, the
//! entries of its own segment: every write has one owner, so no atomic is
//! needed and the sums are the same on every space.

#![allow(clippy::too_many_arguments)]
// Device code is translated from index loops (`for k in 0..n`); the
// iterator forms clippy suggests have no translation.
#![allow(clippy::needless_range_loop)]

use granule::prelude::*;

/// Entries of an element's table row: the upper triangle of its 8 × 8
/// matrix, row by row, then its 8 source terms.
#[device]
pub const ELEMENT_ROW: usize = 36 + 8;

/// Where entry `(m, n)`, `m <= n`, of the upper triangle lies in a table
/// row (miniFE's packing of `diffusionMatrix_symm`).
#[device]
pub fn upper(m: usize, n: usize) -> usize {
    m * 8 - m * (m + 1) / 2 + n
}

/// Whether corner `a` of a hex8 element (miniFE's node order: the bottom
/// face counter-clockwise from the origin, then the top face) is on the
/// far side along x.
#[device]
pub fn far_x(a: usize) -> bool {
    a % 4 == 1 || a % 4 == 2
}

/// Whether corner `a` is on the far side along y.
#[device]
pub fn far_y(a: usize) -> bool {
    a % 4 >= 2
}

/// Whether corner `a` is on the far side along z.
#[device]
pub fn far_z(a: usize) -> bool {
    a >= 4
}

/// The corner of offsets `(ox, oy, oz)` (each 0 or 1) from an element's
/// origin.
#[device]
pub fn corner(ox: usize, oy: usize, oz: usize) -> usize {
    if oy == 0 {
        4 * oz + ox
    } else {
        4 * oz + 3 - ox
    }
}

/// A corner's coordinate along one axis: the origin's, plus the element
/// width on the far side (as miniFE adds it, not the next node's own
/// coordinate, which may differ in the last bit).
#[device]
pub fn along(origin: f64, h: f64, far: bool) -> f64 {
    if far {
        origin + h
    } else {
        origin
    }
}

/// `a0 b0 + a1 b1 + a2 b2`, summed left to right.
#[device]
pub fn dot3(a0: f64, a1: f64, a2: f64, b0: f64, b1: f64, b2: f64) -> f64 {
    a0 * b0 + a1 * b1 + a2 * b2
}

/// How many of the offsets -1, 0, 1 from coordinate `c` stay within
/// `0..=last`, and the first of them.
#[device]
pub fn stencil_span(c: usize, last: usize) -> usize {
    let below = if c > 0 { 1 } else { 0 };
    let above = if c < last { 1 } else { 0 };
    1 + below + above
}

/// The first offset (-1 or 0) from `c` that stays within the mesh.
#[device]
pub fn stencil_first(c: usize) -> i64 {
    if c > 0 {
        -1
    } else {
        0
    }
}

/// Node `i`'s coordinates `(ix, iy, iz)` on a mesh of `nx × ny` elements
/// in x and y: nodes are numbered x fastest, then y, then z.
#[device]
pub fn node(i: usize, nx: usize, ny: usize) -> (usize, usize, usize) {
    let px = nx + 1;
    let py = ny + 1;
    (i % px, (i / px) % py, i / (px * py))
}

/// Row `i`'s entry count: the nodes of the 3 × 3 × 3 stencil around its
/// node that lie within the mesh of `nx × ny × nz` elements.
#[kernel]
pub fn row_length(i: usize, len: &mut usize, nx: usize, ny: usize, nz: usize) {
    let (ix, iy, iz) = node(i, nx, ny);
    *len = stencil_span(ix, nx) * stencil_span(iy, ny) * stencil_span(iz, nz);
}

/// Row `i`'s columns, ascending: the stencil's nodes in the order
/// z, y, x, as miniFE lists them.
#[kernel]
pub fn row_columns(i: usize, mut cols: Segment<u32>, nx: usize, ny: usize, nz: usize) {
    let (ix, iy, iz) = node(i, nx, ny);
    let px = nx + 1;
    let py = ny + 1;
    let mut k = 0;
    for sz in 0..3 {
        for sy in 0..3 {
            for sx in 0..3 {
                let x = ix as i64 + sx - 1;
                let y = iy as i64 + sy - 1;
                let z = iz as i64 + sz - 1;
                let inside = x >= 0
                    && y >= 0
                    && z >= 0
                    && x <= nx as i64
                    && y <= ny as i64
                    && z <= nz as i64;
                if inside {
                    cols[k] = (x + px as i64 * (y + py as i64 * z)) as u32;
                    k += 1;
                }
            }
        }
    }
}

/// Element `e`'s table row: its diffusion matrix (upper triangle) and
/// source vector, by miniFE's 2 × 2 × 2 Gauss rule on the unit cube's
/// mesh, in miniFE's order of operations. `grad` holds the shape
/// functions' reference gradients at the eight Gauss points
/// (`[point][corner][axis]`), `psi` their values (`[point][corner]`); the
/// Gauss weights are all 1.
#[kernel]
pub fn element_operator(
    e: usize,
    mut ke: Row<f64, 2>,
    grad: &View1<f64>,
    psi: &View1<f64>,
    nx: usize,
    ny: usize,
    nz: usize,
) {
    let origin = [
        (e % nx) as f64 / nx as f64,
        ((e / nx) % ny) as f64 / ny as f64,
        (e / (nx * ny)) as f64 / nz as f64,
    ];
    let h = [1.0 / nx as f64, 1.0 / ny as f64, 1.0 / nz as f64];
    let mut coords = [[0.0f64; 3]; 8];
    for a in 0..8 {
        coords[a] = [
            along(origin[0], h[0], far_x(a)),
            along(origin[1], h[1], far_y(a)),
            along(origin[2], h[2], far_z(a)),
        ];
    }
    let mut mat = [0.0f64; 36];
    let mut source = [0.0f64; 8];
    for g in 0..8 {
        // The Jacobian, J[r][c] = Σ_a ∂ψ_a/∂ξ_r x_a[c].
        let mut j = [[0.0f64; 3]; 3];
        for a in 0..8 {
            for r in 0..3 {
                let d = grad[g * 24 + 3 * a + r];
                for c in 0..3 {
                    j[r][c] += d * coords[a][c];
                }
            }
        }
        let term0 = j[2][2] * j[1][1] - j[2][1] * j[1][2];
        let term1 = j[2][2] * j[0][1] - j[2][1] * j[0][2];
        let term2 = j[1][2] * j[0][1] - j[1][1] * j[0][2];
        let det = j[0][0] * term0 - j[1][0] * term1 + j[2][0] * term2;
        let inv = 1.0 / det;
        let inv_j = [
            [term0 * inv, -term1 * inv, term2 * inv],
            [
                -(j[2][2] * j[1][0] - j[2][0] * j[1][2]) * inv,
                (j[2][2] * j[0][0] - j[2][0] * j[0][2]) * inv,
                -(j[1][2] * j[0][0] - j[1][0] * j[0][2]) * inv,
            ],
            [
                (j[2][1] * j[1][0] - j[2][0] * j[1][1]) * inv,
                -(j[2][1] * j[0][0] - j[2][0] * j[0][1]) * inv,
                (j[1][1] * j[0][0] - j[1][0] * j[0][1]) * inv,
            ],
        ];
        // The shape functions' gradients in space, per corner.
        let mut dpsi = [[0.0f64; 3]; 8];
        for m in 0..8 {
            let gm = [
                grad[g * 24 + 3 * m],
                grad[g * 24 + 3 * m + 1],
                grad[g * 24 + 3 * m + 2],
            ];
            for r in 0..3 {
                dpsi[m][r] = dot3(gm[0], gm[1], gm[2], inv_j[r][0], inv_j[r][1], inv_j[r][2]);
            }
        }
        for m in 0..8 {
            for n in m..8 {
                mat[upper(m, n)] += det
                    * (dpsi[m][0] * dpsi[n][0] + dpsi[m][1] * dpsi[n][1] + dpsi[m][2] * dpsi[n][2]);
            }
            source[m] += psi[g * 8 + m] * det;
        }
    }
    for k in 0..36 {
        ke[k] = mat[k];
    }
    for m in 0..8 {
        ke[36 + m] = source[m];
    }
}

/// Row `i` of the operator and of the right-hand side, gathered from the
/// elements around node `i` (its segment of the values, its entry of
/// `b`), in the order z, y, x of the elements and then of their corners.
#[kernel]
pub fn assemble_row(
    i: usize,
    mut vals: Segment<f64>,
    b: &mut f64,
    table: &View2<f64>,
    nx: usize,
    ny: usize,
    nz: usize,
) {
    let (ix, iy, iz) = node(i, nx, ny);
    let wx = stencil_span(ix, nx);
    let wy = stencil_span(iy, ny);
    let fx = stencil_first(ix);
    let fy = stencil_first(iy);
    let fz = stencil_first(iz);
    let mut rhs = 0.0;
    for dz in 0..2 {
        for dy in 0..2 {
            for dx in 0..2 {
                // The element whose corner (dx, dy, dz) is node i.
                let inside = ix >= dx
                    && iy >= dy
                    && iz >= dz
                    && ix - dx < nx
                    && iy - dy < ny
                    && iz - dz < nz;
                if inside {
                    let e = (ix - dx) + nx * ((iy - dy) + ny * (iz - dz));
                    let a = corner(dx, dy, dz);
                    for oz in 0..2 {
                        for oy in 0..2 {
                            for ox in 0..2 {
                                let c = corner(ox, oy, oz);
                                let entry = if a <= c { upper(a, c) } else { upper(c, a) };
                                // The column's place in the row: its offset
                                // within the stencil's box of valid nodes.
                                let sx = ox as i64 - dx as i64 - fx;
                                let sy = oy as i64 - dy as i64 - fy;
                                let sz = oz as i64 - dz as i64 - fz;
                                let k = ((sz * wy as i64 + sy) * wx as i64 + sx) as usize;
                                vals[k] += table[[e, entry]];
                            }
                        }
                    }
                    rhs += table[[e, 36 + a]];
                }
            }
        }
    }
    *b = rhs;
}

/// Whether node `(ix, iy, iz)` lies on the mesh's boundary.
#[device]
pub fn on_boundary(ix: usize, iy: usize, iz: usize, nx: usize, ny: usize, nz: usize) -> bool {
    ix == 0 || iy == 0 || iz == 0 || ix == nx || iy == ny || iz == nz
}

/// miniFE's Dirichlet conditions on row `i`: 1 on the face x = 1, 0 on
/// the other faces. A boundary row becomes the identity's with its value
/// on the right; an interior row drops its boundary columns, moving the
/// face x = 1's (those on no other face: the edges were zeroed first, by
/// the 0-valued faces) to the right-hand side.
#[kernel]
pub fn impose_dirichlet(
    i: usize,
    mut vals: Segment<f64>,
    b: &mut f64,
    cols: &View1<u32>,
    offsets: &View1<usize>,
    nx: usize,
    ny: usize,
    nz: usize,
) {
    let (ix, iy, iz) = node(i, nx, ny);
    let first = offsets[i];
    if on_boundary(ix, iy, iz, nx, ny, nz) {
        *b = if ix == nx { 1.0 } else { 0.0 };
        for k in 0..vals.len() {
            vals[k] = if cols[first + k] as usize == i {
                1.0
            } else {
                0.0
            };
        }
    } else {
        let mut moved = 0.0;
        for k in 0..vals.len() {
            let j = cols[first + k] as usize;
            let (jx, jy, jz) = node(j, nx, ny);
            if on_boundary(jx, jy, jz, nx, ny, nz) {
                let hot = jx == nx && jy > 0 && jz > 0 && jy < ny && jz < nz;
                if hot {
                    moved += vals[k];
                }
                vals[k] = 0.0;
            }
        }
        *b -= moved;
    }
}

/// `w = x + beta y` (miniFE's `waxpby` with `alpha = 1`, the only alpha
/// its CG uses).
#[kernel]
pub fn waxpby(i: usize, w: &mut f64, x: &View1<f64>, beta: f64, y: &View1<f64>) {
    *w = x[i] + beta * y[i];
}

/// `w = w + beta y`: `waxpby` into its own first operand.
#[kernel]
pub fn axpy(i: usize, w: &mut f64, beta: f64, y: &View1<f64>) {
    *w += beta * y[i];
}

/// `w = x + beta w`: `waxpby` into its own second operand.
#[kernel]
pub fn xpby(i: usize, w: &mut f64, x: &View1<f64>, beta: f64) {
    *w = x[i] + beta * *w;
}

/// `x · y`, term `i`.
#[kernel(reduce)]
pub fn dot(i: usize, acc: &mut f64, x: &View1<f64>, y: &View1<f64>) {
    *acc += x[i] * y[i];
}

/// Entry `k`'s value and column, read as a product reads them.
#[kernel(reduce)]
pub fn stream_entries(k: usize, acc: &mut f64, vals: &View1<f64>, cols: &View1<u32>) {
    *acc += vals[k] + cols[k] as f64;
}

/// Every kernel of the app, for the NVRTC compile test.
pub const KERNELS: &[&granule::kernel::DeviceKernel] = {
    use granule::kernel::KernelSource;
    &[
        <row_length as KernelSource>::KERNEL,
        <row_columns as KernelSource>::KERNEL,
        <element_operator<'static> as KernelSource>::KERNEL,
        <assemble_row<'static> as KernelSource>::KERNEL,
        <impose_dirichlet<'static> as KernelSource>::KERNEL,
        <waxpby<'static> as KernelSource>::KERNEL,
        <axpy<'static> as KernelSource>::KERNEL,
        <xpby<'static> as KernelSource>::KERNEL,
        <dot<'static> as KernelSource>::KERNEL,
        <stream_entries<'static> as KernelSource>::KERNEL,
    ]
};
