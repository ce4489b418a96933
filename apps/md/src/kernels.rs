//! The kernels, each a `#[kernel]`: the host spaces run their Rust
//! bodies, Cuda their translation.
//!
//! The box is periodic and cubic; pairs are measured by the minimum
//! image (the box is at least twice the neighbour cutoff, which `run`
//! checks), where ExaMiniMD adds ghost copies of the atoms near a face.
//! Each atom owns its rows of the written Views (its force, position and
//! velocity) and its row of the neighbour list, so no kernel needs an
//! atomic: the full neighbour list (every pair twice, Newton's third law
//! not used) is what makes that possible, as in the original's `newton
//! off` run.

#![allow(clippy::too_many_arguments)]

use granule::prelude::*;

/// The component `d` of a separation, folded to the nearest periodic
/// image in a box of length `l`.
#[device]
pub fn nearest(d: f64, l: f64) -> f64 {
    if d > 0.5 * l {
        d - l
    } else if d < -0.5 * l {
        d + l
    } else {
        d
    }
}
/// The bin of coordinate `c` (in `[0, l)`) among `nb` bins of the box,
/// as `BinOp3D` computes it (`scale = nb / l`).
#[device]
pub fn bin_along(c: f64, scale: f64, nb: u32) -> u32 {
    let b = (c * scale) as u32;
    if b >= nb {
        nb - 1
    } else {
        b
    }
}

/// Bin `b - 1` among `nb` periodic bins, for `b` in `0 ..= nb + 1` (a
/// bin plus an offset of 0, 1 or 2): the neighbouring bins across the
/// faces, without the division of a `%`.
#[device]
pub fn wrap_bin(b: u32, nb: u32) -> u32 {
    if b == 0 {
        nb - 1
    } else if b > nb {
        b - 1 - nb
    } else {
        b - 1
    }
}

/// What moves an atom of bin `wrap_bin(b, nb)` to its image beside the
/// bin it was reached from: `l` across the lower face, `-l` across the
/// upper one, else 0. Within the neighbour reach this is the image
/// [`nearest`] picks, and `d + image_shift(..)` is `nearest(d, l)` to the
/// bit (`d - l` is `d + -l`).
#[device]
pub fn image_shift(b: u32, nb: u32, l: f64) -> f64 {
    if b == 0 {
        l
    } else if b > nb {
        -l
    } else {
        0.0
    }
}

/// Position row `i` moved into the box `[0, l)³`.
#[kernel]
pub fn wrap(_i: usize, mut x: Row<f64, 2>, l: f64) {
    for k in 0..3 {
        if x[k] < 0.0 {
            x[k] += l;
        } else if x[k] >= l {
            x[k] -= l;
        }
    }
}

/// Atom `i`'s neighbours within `reach` (squared), searched in its bin
/// and the 26 around it (the atoms are sorted by bin, bin `b` holding
/// `start[b] .. start[b] + count[b]`): as many as its row of the list
/// holds, in order, and their number, which may exceed the row (the
/// driver then widens the list and searches again).
#[kernel]
// A call of its own, so that the reads of `x` stay in registers past the
// row's writes (see `#[kernel]` on `#[inline]`).
#[inline(never)]
pub fn find_neighbors(
    i: usize,
    mut row: Row<u32, 2>,
    found: &mut usize,
    x: &View2<f64>,
    start: &View1<u32>,
    count: &View1<u32>,
    nb: u32,
    scale: f64,
    l: f64,
    reach: f64,
) {
    let xi = x[[i, 0]];
    let yi = x[[i, 1]];
    let zi = x[[i, 2]];
    let cx = bin_along(xi, scale, nb);
    let cy = bin_along(yi, scale, nb);
    let cz = bin_along(zi, scale, nb);
    let room = row.len();
    let mut n = 0usize;
    // Bins along z are consecutive, and so are their atoms: away from the
    // z faces the three bins are one run of atoms.
    let whole = cz >= 1 && cz + 1 < nb;
    let runs = if whole { 1 } else { 3 };
    for ox in 0..3u32 {
        let bx = wrap_bin(cx + ox, nb);
        let sx = image_shift(cx + ox, nb, l);
        for oy in 0..3u32 {
            let by = wrap_bin(cy + oy, nb);
            let sy = image_shift(cy + oy, nb, l);
            let column = (bx * nb + by) * nb;
            for oz in 0..runs {
                let low = if whole { cz - 1 } else { wrap_bin(cz + oz, nb) };
                let high = if whole { cz + 1 } else { low };
                let sz = if whole {
                    0.0
                } else {
                    image_shift(cz + oz, nb, l)
                };
                let first = start[(column + low) as usize] as usize;
                let b = (column + high) as usize;
                for j in first..(start[b] + count[b]) as usize {
                    let dx = (xi - x[[j, 0]]) + sx;
                    let dy = (yi - x[[j, 1]]) + sy;
                    let dz = (zi - x[[j, 2]]) + sz;
                    if j != i && dx * dx + dy * dy + dz * dz <= reach {
                        if n < room {
                            row[n] = j as u32;
                        }
                        n += 1;
                    }
                }
            }
        }
    }
    *found = n;
}

/// Atom `i`'s row of neighbours, into its segment of the packed list.
#[kernel]
pub fn pack_row(i: usize, mut list: Segment<u32>, rows: &View2<u32>) {
    for k in 0..list.len() {
        list[k] = rows[[i, k]];
    }
}

/// The Lennard-Jones force on atom `i` from its neighbours within the
/// cutoff: `lj1 = 48 ε σ¹²`, `lj2 = 24 ε σ⁶`.
#[kernel]
pub fn lj_force(
    i: usize,
    mut f: Row<f64, 2>,
    x: &View2<f64>,
    offsets: &View1<usize>,
    list: &View1<u32>,
    l: f64,
    cutsq: f64,
    lj1: f64,
    lj2: f64,
) {
    let xi = x[[i, 0]];
    let yi = x[[i, 1]];
    let zi = x[[i, 2]];
    let mut fx = 0.0;
    let mut fy = 0.0;
    let mut fz = 0.0;
    for jj in offsets[i]..offsets[i + 1] {
        let j = list[jj] as usize;
        let dx = nearest(xi - x[[j, 0]], l);
        let dy = nearest(yi - x[[j, 1]], l);
        let dz = nearest(zi - x[[j, 2]], l);
        let rsq = dx * dx + dy * dy + dz * dz;
        // Every pair is evaluated and those past the cutoff weigh 0: a
        // select instead of a branch taken about a third of the time at
        // random, which the processor would mispredict.
        let r2inv = 1.0 / rsq;
        let r6inv = r2inv * r2inv * r2inv;
        let inside = if rsq < cutsq { 1.0 } else { 0.0 };
        let fpair = inside * (r6inv * (lj1 * r6inv - lj2)) * r2inv;
        fx += dx * fpair;
        fy += dy * fpair;
        fz += dz * fpair;
    }
    f[0] = fx;
    f[1] = fy;
    f[2] = fz;
}

/// Atom `i`'s thermo terms: `m v²`, and half of its pair energies (each
/// pair is counted from both atoms), shifted to zero at the cutoff. One
/// reduction of both, so a thermo output reads back once.
#[kernel(reduce)]
pub fn thermo_terms(
    i: usize,
    acc: &mut (f64, f64),
    x: &View2<f64>,
    v: &View2<f64>,
    offsets: &View1<usize>,
    list: &View1<u32>,
    l: f64,
    cutsq: f64,
    lj1: f64,
    lj2: f64,
    mass: f64,
) {
    acc.0 += (v[[i, 0]] * v[[i, 0]] + v[[i, 1]] * v[[i, 1]] + v[[i, 2]] * v[[i, 2]]) * mass;
    let xi = x[[i, 0]];
    let yi = x[[i, 1]];
    let zi = x[[i, 2]];
    let r2invc = 1.0 / cutsq;
    let r6invc = r2invc * r2invc * r2invc;
    let shift = 0.5 * r6invc * (0.5 * lj1 * r6invc - lj2) / 6.0;
    for jj in offsets[i]..offsets[i + 1] {
        let j = list[jj] as usize;
        let dx = nearest(xi - x[[j, 0]], l);
        let dy = nearest(yi - x[[j, 1]], l);
        let dz = nearest(zi - x[[j, 2]], l);
        let rsq = dx * dx + dy * dy + dz * dz;
        // As in the force: pairs past the cutoff weigh 0 (adding and
        // taking away 0 leaves the sum's bits as skipping them would).
        let r2inv = 1.0 / rsq;
        let r6inv = r2inv * r2inv * r2inv;
        let inside = if rsq < cutsq { 1.0 } else { 0.0 };
        acc.1 += inside * (0.5 * r6inv * (0.5 * lj1 * r6inv - lj2) / 6.0);
        acc.1 -= inside * shift;
    }
}

/// Atom `i`'s count, for the most any atom has.
#[kernel(reduce)]
pub fn largest(i: usize, most: &mut usize, counts: &View1<usize>) {
    if counts[i] > *most {
        *most = counts[i];
    }
}

/// Velocity Verlet's first half for atom `i`: a half kick, then a drift.
#[kernel]
pub fn initial_integrate(
    i: usize,
    mut x: Row<f64, 2>,
    mut v: Row<f64, 2>,
    f: &View2<f64>,
    dtfm: f64,
    dt: f64,
) {
    for k in 0..3 {
        v[k] += dtfm * f[[i, k]];
        x[k] += dt * v[k];
    }
}

/// Velocity Verlet's second half kick for atom `i`.
#[kernel]
pub fn final_integrate(i: usize, mut v: Row<f64, 2>, f: &View2<f64>, dtfm: f64) {
    for k in 0..3 {
        v[k] += dtfm * f[[i, k]];
    }
}

/// Every kernel of the app, for the NVRTC compile test.
pub const KERNELS: &[&granule::kernel::DeviceKernel] = {
    use granule::kernel::KernelSource;
    &[
        <wrap as KernelSource>::KERNEL,
        <find_neighbors<'static> as KernelSource>::KERNEL,
        <pack_row<'static> as KernelSource>::KERNEL,
        <lj_force<'static> as KernelSource>::KERNEL,
        <thermo_terms<'static> as KernelSource>::KERNEL,
        <largest<'static> as KernelSource>::KERNEL,
        <initial_integrate<'static> as KernelSource>::KERNEL,
        <final_integrate<'static> as KernelSource>::KERNEL,
    ]
};
