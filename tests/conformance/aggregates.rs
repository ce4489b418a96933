//! Arrays and tuples as values in kernels and `#[device]` functions: local
//! arrays (literals, repeats, nested, indexed, destructured), arrays passed
//! to and returned from helpers by value, `#[device] const` arrays, local
//! tuples and tuples returned by helpers; Views of arrays and of `#[device]
//! struct`s (which may hold arrays and structs) read and written in place.
//! Every space must give the host's bits, and an index past a local array
//! must fail with Rust's words.

// Device code is translated from index loops; the iterator forms clippy
// suggests have no translation.
#![allow(clippy::needless_range_loop)]

use granule::kernel::DeviceKernel;
use granule::prelude::*;

/// Nodes of a hexahedral element: a repeat length named by a constant.
#[device]
pub const NODES: usize = 8;

/// The two Gauss points of a 1-D rule, read by run-time index.
#[device]
pub const GAUSS: [f64; 2] = [-0.577_350_269_189_625_8, 0.577_350_269_189_625_8];

/// The corners of the reference cube, one row of signs per node.
#[device]
pub const CORNERS: [[f64; 3]; 8] = [
    [-1.0, -1.0, -1.0],
    [1.0, -1.0, -1.0],
    [1.0, 1.0, -1.0],
    [-1.0, 1.0, -1.0],
    [-1.0, -1.0, 1.0],
    [1.0, -1.0, 1.0],
    [1.0, 1.0, 1.0],
    [-1.0, 1.0, 1.0],
];

/// The trilinear shape functions' gradients at a point of the reference
/// cube, three per node: an array built in a loop and returned.
#[device]
pub fn shape_gradients(p: [f64; 3]) -> [f64; 24] {
    let mut grad = [0.0; 24];
    for a in 0..NODES {
        let c = CORNERS[a];
        let [cx, cy, cz] = c;
        let fx = 1.0 + cx * p[0];
        let fy = 1.0 + cy * p[1];
        let fz = 1.0 + cz * p[2];
        grad[3 * a] = 0.125 * cx * fy * fz;
        grad[3 * a + 1] = 0.125 * fx * cy * fz;
        grad[3 * a + 2] = 0.125 * fx * fy * cz;
    }
    grad
}

/// The Jacobian of the map from the reference cube, row-major: arrays in,
/// an array out.
#[device]
pub fn jacobian(grad: [f64; 24], coords: [f64; 24]) -> [f64; 9] {
    let mut j: [f64; 9] = [0.0; 9];
    for a in 0..8 {
        for r in 0..3 {
            for c in 0..3 {
                j[3 * r + c] += grad[3 * a + r] * coords[3 * a + c];
            }
        }
    }
    j
}

/// The determinant of a row-major 3x3 matrix.
#[device]
pub fn det3(m: [f64; 9]) -> f64 {
    m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
        + m[2] * (m[3] * m[7] - m[4] * m[6])
}

/// A diffusion-like element matrix of element `i` (a brick of the unit
/// grid, its nodes moved by `x`), assembled over 2x2x2 Gauss points into a
/// local `[[f64; 8]; 8]`; `ke` gets its trace, `sum` the sum of its
/// entries. The element's coordinates are gathered into a local array.
#[kernel]
pub fn hex8_element(i: usize, ke_trace: &mut f64, x: &View2<f64>) {
    let mut coords = [0.0f64; 24];
    for a in 0..NODES {
        for d in 0..3 {
            coords[3 * a + d] = x[[(i + a) % x.extent(0), d]];
        }
    }
    let mut ke = [[0.0f64; NODES]; NODES];
    for qx in 0..2 {
        for qy in 0..2 {
            for qz in 0..2 {
                let p = [GAUSS[qx], GAUSS[qy], GAUSS[qz]];
                let grad = shape_gradients(p);
                let w = det3(jacobian(grad, coords));
                for a in 0..8 {
                    for b in 0..8 {
                        let mut dot = 0.0;
                        for d in 0..3 {
                            dot += grad[3 * a + d] * grad[3 * b + d];
                        }
                        ke[a][b] += w * dot;
                    }
                }
            }
        }
    }
    let mut trace = 0.0;
    let mut off = 0.0;
    for a in 0..8 {
        trace += ke[a][a];
        let row = ke[a];
        for b in 0..8 {
            if a != b {
                off += row[b];
            }
        }
    }
    *ke_trace = trace + 1e-3 * off;
}

/// `a` with its first element incremented: the parameter is a copy.
#[device]
pub fn bumped(a: [i64; 3]) -> [i64; 3] {
    let mut b = a;
    b[0] += 1;
    b
}

/// Arrays copy by value: a copy, a helper's argument and its result are
/// each their own array; equality compares elements.
#[kernel]
pub fn array_copies(i: usize, out: &mut i64) {
    let a = [i as i64, 2 * i as i64, 3];
    let mut b = a;
    b[1] = -1;
    let c = bumped(a);
    let same = if bumped(a) == c { 1000 } else { 0 };
    let differs = if a != b { 10_000 } else { 0 };
    *out = a[0] + a[1] + b[1] + c[0] + same + differs;
}

/// The smaller and the larger of two values, as a tuple.
#[device]
pub fn min_max(a: f64, b: f64) -> (f64, f64) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Local tuples: built, read by field, assigned by field, destructured
/// from a helper's result.
#[kernel]
pub fn tuples(i: usize, out: &mut f64, x: &View1<f64>) {
    let n = x.extent(0);
    let (lo, hi) = min_max(x[i], x[(i + 1) % n]);
    let mut t = (lo, i as i32);
    t.1 += 1;
    let both = min_max(hi, lo);
    let u: (f64, (i32, bool)) = (both.1, (t.1, hi > lo));
    let flag = if (u.1).1 { 0.5 } else { 0.0 };
    *out = t.0 * 3.0 + t.1 as f64 + u.0 + flag;
}

/// An index past a local array: a panic on the host, a device failure on
/// a device, both with Rust's words.
#[kernel]
pub fn array_past_end(i: usize, out: &mut f64, k: usize) {
    let a = [1.0, 2.0, 3.0];
    *out = a[i + k];
}

/// A particle of an MD code, a View's element.
#[device]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Atom {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub kind: i32,
}

/// A struct of an array, a struct and an array of another type: fields the
/// device lays out as the host does.
#[device]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub corner: [f64; 3],
    pub atom: Atom,
    pub counts: [i32; 2],
}

// SAFETY: all-zero bytes are 0.0 and 0 in every field.
unsafe impl granule::views::Zeroable for Atom {}
// SAFETY: as above, field by field.
unsafe impl granule::views::Zeroable for Cell {}

/// Positions as a View of `[f64; 3]`: a whole element read, an element's
/// component, and writes through the work item's `&mut [f64; 3]`, by
/// component and whole.
#[kernel]
pub fn shift_positions(i: usize, out: &mut [f64; 3], x: &View1<[f64; 3]>, d: f64) {
    let p = x[i];
    let n = x.extent(0);
    out[0] = p[0] + d;
    out[1] = x[(i + 1) % n][1] * 2.0;
    if i & 1 == 0 {
        *out = [out[0], out[1], p[2] - d];
    } else {
        out[2] = -p[2];
    }
}

/// Particles as a View of a `#[device] struct`: fields read from an
/// element and written through the work item's `&mut Atom`.
#[kernel]
pub fn move_atoms(i: usize, out: &mut Atom, atoms: &View1<Atom>, dt: f64) {
    let a = atoms[i];
    out.x = a.x + dt * a.kind as f64;
    out.y = atoms[i].y;
    out.z = a.z - dt;
    out.kind = a.kind + 1;
}

/// Structs holding arrays and structs: built, updated field by field and
/// element by element, stored whole.
#[kernel]
pub fn build_cells(i: usize, out: &mut Cell, x: &View1<[f64; 3]>) {
    let mut c = Cell {
        corner: x[i],
        atom: Atom {
            x: x[i][0],
            y: 0.5,
            z: 1.0,
            kind: i as i32,
        },
        counts: [1, 2],
    };
    c.counts[1] += 3;
    c.corner[2] = c.atom.x * 2.0;
    c.atom.kind -= 1;
    *out = c;
}

/// This module's kernels, compiled by `nvrtc.rs`.
pub const KERNELS: &[&DeviceKernel] = kernel_list![
    hex8_element,
    array_copies,
    tuples,
    array_past_end,
    shift_positions,
    move_atoms,
    build_cells
];

/// Positions of the tests: three components per point.
pub fn position(i: usize) -> [f64; 3] {
    [i as f64 * 0.5, (i % 7) as f64 - 2.25, 1.0 / (i + 1) as f64]
}

/// `hex8_element`'s body in plain Rust, for the host's bits.
pub fn hex8_reference(i: usize, x: &dyn Fn(usize, usize) -> f64, n: usize) -> f64 {
    let mut coords = [0.0f64; 24];
    for a in 0..8 {
        for d in 0..3 {
            coords[3 * a + d] = x((i + a) % n, d);
        }
    }
    let mut ke = [[0.0f64; 8]; 8];
    for qx in 0..2 {
        for qy in 0..2 {
            for qz in 0..2 {
                let grad = shape_gradients([GAUSS[qx], GAUSS[qy], GAUSS[qz]]);
                let w = det3(jacobian(grad, coords));
                for a in 0..8 {
                    for b in 0..8 {
                        let mut dot = 0.0;
                        for d in 0..3 {
                            dot += grad[3 * a + d] * grad[3 * b + d];
                        }
                        ke[a][b] += w * dot;
                    }
                }
            }
        }
    }
    let (mut trace, mut off) = (0.0, 0.0);
    for a in 0..8 {
        trace += ke[a][a];
        for b in 0..8 {
            if a != b {
                off += ke[a][b];
            }
        }
    }
    trace + 1e-3 * off
}

macro_rules! aggregates_tests {
    () => {
        #[test]
        fn aggregates_hex8_local_arrays_give_the_hosts_bits() {
            let s = space();
            let n = 257;
            let at = |i: usize, d: usize| {
                [i % 7, i / 7 % 5, i / 35][d] as f64 + 0.01 * ((i * 13 + d * 5) % 17) as f64
            };
            let x =
                View2::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", [n, 3], |[i, d]| {
                    at(i, d)
                })
                .unwrap();
            let mut y = View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
            parallel_for(
                "hex8",
                RangePolicy::new(&s, 0..n),
                &mut y,
                crate::aggregates::hex8_element(&x),
            );
            let y = create_mirror_view_and_copy(&y).unwrap();
            for i in 0..n {
                let want = crate::aggregates::hex8_reference(i, &at, n);
                assert_eq!(y[i].to_bits(), want.to_bits(), "y[{i}]: {} vs {want}", y[i]);
            }
        }

        #[test]
        fn aggregates_arrays_copy_by_value() {
            let s = space();
            let n = 100;
            let mut y = View1::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
            parallel_for(
                "copies",
                RangePolicy::new(&s, 0..n),
                &mut y,
                crate::aggregates::array_copies(),
            );
            let y = create_mirror_view_and_copy(&y).unwrap();
            for i in 0..n {
                let i64_ = i as i64;
                assert_eq!(y[i], i64_ + 2 * i64_ - 1 + (i64_ + 1) + 11_000, "y[{i}]");
            }
        }

        #[test]
        fn aggregates_local_tuples_and_tuple_results() {
            let s = space();
            let n = 64;
            let v = |i: usize| ((i * 37) % 11) as f64 * 0.75 - 3.0;
            let x = View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, v).unwrap();
            let mut y = View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
            parallel_for(
                "tuples",
                RangePolicy::new(&s, 0..n),
                &mut y,
                crate::aggregates::tuples(&x),
            );
            let y = create_mirror_view_and_copy(&y).unwrap();
            for i in 0..n {
                let (a, b) = (v(i), v((i + 1) % n));
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                let flag = if hi > lo { 0.5 } else { 0.0 };
                let want = lo * 3.0 + (i as i32 + 1) as f64 + hi + flag;
                assert_eq!(y[i].to_bits(), want.to_bits(), "y[{i}]");
            }
        }

        #[test]
        fn aggregates_device_layouts_are_the_hosts() {
            use crate::aggregates::{Atom, Cell};
            use granule::kernel::{DeviceElement, DeviceValue};
            use std::mem::{align_of, offset_of, size_of};
            let () = <Cell as DeviceElement>::SAME_LAYOUT;
            assert_eq!(<[f64; 3] as DeviceValue>::SIZE, size_of::<[f64; 3]>());
            assert_eq!(<[[i32; 2]; 5] as DeviceValue>::SIZE, 40);
            assert_eq!(
                (<Atom as DeviceValue>::SIZE, <Atom as DeviceValue>::ALIGN),
                (32, 8)
            );
            assert_eq!(
                (<Cell as DeviceValue>::SIZE, <Cell as DeviceValue>::ALIGN),
                (size_of::<Cell>(), align_of::<Cell>())
            );
            // The C++ struct's offsets: corner (24 bytes), atom aligned to
            // 8, counts after it, the whole padded to 8.
            assert_eq!(
                (
                    offset_of!(Cell, corner),
                    offset_of!(Cell, atom),
                    offset_of!(Cell, counts)
                ),
                (0, 24, 56)
            );
            assert_eq!(size_of::<Cell>(), 64);
            // Bytes round-trip through the device layout.
            let c = Cell {
                corner: [1.0, -2.0, 0.5],
                atom: Atom {
                    x: 3.0,
                    y: 4.0,
                    z: 5.0,
                    kind: -7,
                },
                counts: [9, 10],
            };
            let mut bytes = vec![0u8; <Cell as DeviceValue>::SIZE];
            c.store(&mut bytes);
            assert_eq!(<Cell as DeviceValue>::load(&bytes), c);
            assert_eq!(&bytes[56..60], &9i32.to_ne_bytes());
        }

        #[test]
        fn aggregates_views_of_arrays_read_and_written_in_place() {
            use crate::aggregates::position;
            let s = space();
            let n = 1000;
            let x =
                View1::<[f64; 3], LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, position)
                    .unwrap();
            let mut y =
                View1::<[f64; 3], LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
            parallel_for(
                "shift",
                RangePolicy::new(&s, 0..n),
                &mut y,
                crate::aggregates::shift_positions(&x, 0.25),
            );
            let y = create_mirror_view_and_copy(&y).unwrap();
            for i in 0..n {
                let p = position(i);
                let z = if i % 2 == 0 { p[2] - 0.25 } else { -p[2] };
                let want = [p[0] + 0.25, position((i + 1) % n)[1] * 2.0, z];
                assert_eq!(y[i].map(f64::to_bits), want.map(f64::to_bits), "y[{i}]");
            }
        }

        #[test]
        fn aggregates_views_of_device_structs_read_and_written_in_place() {
            use crate::aggregates::{position, Atom, Cell};
            let s = space();
            let n = 500;
            let atom = |i: usize| {
                let p = position(i);
                Atom {
                    x: p[0],
                    y: p[1],
                    z: p[2],
                    kind: (i % 3) as i32,
                }
            };
            let atoms =
                View1::<Atom, LayoutRight, _>::from_fn_in(s.memory_space(), "atoms", n, atom)
                    .unwrap();
            let mut moved =
                View1::<Atom, LayoutRight, _>::zeros_in(s.memory_space(), "moved", n).unwrap();
            parallel_for(
                "move",
                RangePolicy::new(&s, 0..n),
                &mut moved,
                crate::aggregates::move_atoms(&atoms, 0.125),
            );
            let moved = create_mirror_view_and_copy(&moved).unwrap();
            let x =
                View1::<[f64; 3], LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, position)
                    .unwrap();
            let mut cells =
                View1::<Cell, LayoutRight, _>::zeros_in(s.memory_space(), "cells", n).unwrap();
            parallel_for(
                "cells",
                RangePolicy::new(&s, 0..n),
                &mut cells,
                crate::aggregates::build_cells(&x),
            );
            let cells = create_mirror_view_and_copy(&cells).unwrap();
            for i in 0..n {
                let a = atom(i);
                let want = Atom {
                    x: a.x + 0.125 * a.kind as f64,
                    y: a.y,
                    z: a.z - 0.125,
                    kind: a.kind + 1,
                };
                assert_eq!(moved[i], want, "moved[{i}]");
                let p = position(i);
                let want = Cell {
                    corner: [p[0], p[1], p[0] * 2.0],
                    atom: Atom {
                        x: p[0],
                        y: 0.5,
                        z: 1.0,
                        kind: i as i32 - 1,
                    },
                    counts: [1, 5],
                };
                assert_eq!(cells[i], want, "cells[{i}]");
            }
        }

        #[test]
        fn aggregates_an_index_past_a_local_array_fails_with_rusts_words() {
            let payload = crate::soundness::panic_of("array_past_end", || {
                let s = own_space();
                let mut y =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", 4).unwrap();
                parallel_for(
                    "past-end",
                    RangePolicy::new(&s, 0..4),
                    &mut y,
                    crate::aggregates::array_past_end(2),
                );
                s.fence();
            });
            let msg = crate::soundness::message(&*payload);
            // i = 1 reaches index 3 first on the host spaces; a device's
            // first failing thread may be i = 1, 2 or 3.
            assert!(
                msg.contains("index out of bounds: the len is 3 but the index is"),
                "{msg}"
            );
            if std::any::type_name_of_val(&space()).contains("Cuda") {
                assert!(
                    msg.contains("kernel `array_past_end`") && msg.contains("(an array value)"),
                    "{msg}"
                );
            }
        }
    };
}
