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

/// Row `i`'s entry count: the nodes of the 3 × 3 × 3 stencil around its
/// node that lie within the mesh of `nx × ny × nz` elements.
#[kernel]
pub fn row_length(i: usize, len: &mut usize, nx: usize, ny: usize, nz: usize) {
    let px = nx + 1;
    let py = ny + 1;
    let ix = i % px;
    let iy = (i / px) % py;
    let iz = i / (px * py);
    *len = stencil_span(ix, nx) * stencil_span(iy, ny) * stencil_span(iz, nz);
}

/// Row `i`'s columns, ascending: the stencil's nodes in the order
/// z, y, x, as miniFE lists them.
#[kernel]
pub fn row_columns(i: usize, mut cols: Segment<u32>, nx: usize, ny: usize, nz: usize) {
    let px = nx + 1;
    let py = ny + 1;
    let ix = i % px;
    let iy = (i / px) % py;
    let iz = i / (px * py);
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
/// mesh. `grad` holds the shape functions' reference gradients at the
/// eight Gauss points (`[point][corner][axis]`), `psi` their values
/// (`[point][corner]`); the Gauss weights are all 1.
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
    let ex = e % nx;
    let ey = (e / nx) % ny;
    let ez = e / (nx * ny);
    let x0 = ex as f64 / nx as f64;
    let y0 = ey as f64 / ny as f64;
    let z0 = ez as f64 / nz as f64;
    let hx = 1.0 / nx as f64;
    let hy = 1.0 / ny as f64;
    let hz = 1.0 / nz as f64;
    for k in 0..ELEMENT_ROW {
        ke[k] = 0.0;
    }
    for g in 0..8 {
        let gp = g * 24;
        let mut j00 = 0.0;
        let mut j01 = 0.0;
        let mut j02 = 0.0;
        let mut j10 = 0.0;
        let mut j11 = 0.0;
        let mut j12 = 0.0;
        let mut j20 = 0.0;
        let mut j21 = 0.0;
        let mut j22 = 0.0;
        for a in 0..8 {
            let cx = along(x0, hx, far_x(a));
            let cy = along(y0, hy, far_y(a));
            let cz = along(z0, hz, far_z(a));
            let g0 = grad[gp + 3 * a];
            let g1 = grad[gp + 3 * a + 1];
            let g2 = grad[gp + 3 * a + 2];
            j00 += g0 * cx;
            j01 += g0 * cy;
            j02 += g0 * cz;
            j10 += g1 * cx;
            j11 += g1 * cy;
            j12 += g1 * cz;
            j20 += g2 * cx;
            j21 += g2 * cy;
            j22 += g2 * cz;
        }
        let term0 = j22 * j11 - j21 * j12;
        let term1 = j22 * j01 - j21 * j02;
        let term2 = j12 * j01 - j11 * j02;
        let det = j00 * term0 - j10 * term1 + j20 * term2;
        let inv = 1.0 / det;
        let i0 = term0 * inv;
        let i1 = -term1 * inv;
        let i2 = term2 * inv;
        let i3 = -(j22 * j10 - j20 * j12) * inv;
        let i4 = (j22 * j00 - j20 * j02) * inv;
        let i5 = -(j12 * j00 - j10 * j02) * inv;
        let i6 = (j21 * j10 - j20 * j11) * inv;
        let i7 = -(j21 * j00 - j20 * j01) * inv;
        let i8 = (j11 * j00 - j10 * j01) * inv;
        for m in 0..8 {
            let gm0 = grad[gp + 3 * m];
            let gm1 = grad[gp + 3 * m + 1];
            let gm2 = grad[gp + 3 * m + 2];
            let xm = dot3(gm0, gm1, gm2, i0, i1, i2);
            let ym = dot3(gm0, gm1, gm2, i3, i4, i5);
            let zm = dot3(gm0, gm1, gm2, i6, i7, i8);
            for n in m..8 {
                let gn0 = grad[gp + 3 * n];
                let gn1 = grad[gp + 3 * n + 1];
                let gn2 = grad[gp + 3 * n + 2];
                let xn = dot3(gn0, gn1, gn2, i0, i1, i2);
                let yn = dot3(gn0, gn1, gn2, i3, i4, i5);
                let zn = dot3(gn0, gn1, gn2, i6, i7, i8);
                ke[upper(m, n)] += det * (xm * xn + ym * yn + zm * zn);
            }
            ke[36 + m] += psi[g * 8 + m] * det;
        }
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
    let px = nx + 1;
    let py = ny + 1;
    let ix = i % px;
    let iy = (i / px) % py;
    let iz = i / (px * py);
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
    let px = nx + 1;
    let py = ny + 1;
    let ix = i % px;
    let iy = (i / px) % py;
    let iz = i / (px * py);
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
            let jx = j % px;
            let jy = (j / px) % py;
            let jz = j / (px * py);
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

/// `y = A x` for row `i`, summed along the row.
#[kernel]
pub fn matvec(
    i: usize,
    y: &mut f64,
    offsets: &View1<usize>,
    cols: &View1<u32>,
    vals: &View1<f64>,
    x: &View1<f64>,
) {
    let mut sum = 0.0;
    for k in offsets[i]..offsets[i + 1] {
        sum += vals[k] * x[cols[k] as usize];
    }
    *y = sum;
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

/// Every kernel of the app, for the NVRTC compile test.
pub const KERNELS: &[&granule::kernel::DeviceKernel] = {
    use granule::kernel::KernelSource;
    &[
        <row_length as KernelSource>::KERNEL,
        <row_columns as KernelSource>::KERNEL,
        <element_operator<'static> as KernelSource>::KERNEL,
        <assemble_row<'static> as KernelSource>::KERNEL,
        <impose_dirichlet<'static> as KernelSource>::KERNEL,
        <matvec<'static> as KernelSource>::KERNEL,
        <waxpby<'static> as KernelSource>::KERNEL,
        <axpy<'static> as KernelSource>::KERNEL,
        <xpby<'static> as KernelSource>::KERNEL,
        <dot<'static> as KernelSource>::KERNEL,
    ]
};
