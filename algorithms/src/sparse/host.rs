//! `spmv` on the host spaces: blocks of rows handed to the space's
//! workers ([`HostExec`]), each block writing its own part of `y`.
//!
//! Each row is summed in entry order from its slices of the columns and
//! values, with no bounds check on `x` or within the row: [`CrsMatrix::new`]
//! checked every column, and a row's range was checked against the
//! entries. Per entry that leaves the three loads, the multiply and the
//! add.

use super::{CrsMatrix, SpmvImpl};
use crate::host::raw::Dst;
use crate::host::HostExec;
use crate::io::Output;
use granule_core::Serial;
use granule_views::{Element, HostSpace, LayoutRight, View1};
use std::ops::{Add, Mul};

/// A matrix's arrays and `x`, as slices.
struct Rows<'a, T> {
    rows: &'a [usize],
    cols: &'a [u32],
    vals: &'a [T],
    x: &'a [T],
}

impl<'a, T> Rows<'a, T>
where
    T: Element + Default + Add<Output = T> + Mul<Output = T>,
{
    fn new(a: &'a CrsMatrix<T, HostSpace>, x: &'a View1<T, LayoutRight, HostSpace>) -> Self {
        let x = contiguous(x);
        assert_eq!(x.len(), a.ncols(), "spmv checks x against the columns");
        Rows {
            rows: contiguous(a.row_map()),
            cols: contiguous(a.entries()),
            vals: contiguous(a.values()),
            x,
        }
    }

    /// Row `i`'s entries: its columns and values.
    #[inline(always)]
    fn row(&self, i: usize) -> (&'a [u32], &'a [T]) {
        let (lo, hi) = (self.rows[i], self.rows[i + 1]);
        (&self.cols[lo..hi], &self.vals[lo..hi])
    }

    /// Row `i` of `A x`, summed in entry order. (Indexing the row by `k`
    /// unchecked compiles to fewer instructions per entry than zipping
    /// its two slices.)
    #[inline(always)]
    fn sum(&self, i: usize) -> T {
        let (cols, vals) = self.row(i);
        let mut sum = T::default();
        for k in 0..cols.len() {
            // SAFETY: `k < cols.len() == vals.len()` (one range of both);
            // `CrsMatrix::new` checked every entry to be below `ncols`,
            // the matrix lends its entries only for reading, and `x.len()
            // == ncols` (asserted in `new`).
            unsafe {
                let (c, v) = (*cols.get_unchecked(k), *vals.get_unchecked(k));
                sum = sum + v * *self.x.get_unchecked(c as usize);
            }
        }
        sum
    }
}

/// A LayoutRight host View's elements, which are always one slice.
fn contiguous<T: Element>(v: &View1<T, LayoutRight, HostSpace>) -> &[T] {
    v.as_slice()
        .expect("a rank-1 LayoutRight host View is contiguous")
}

/// Rows per block: a function of the row count alone, enough blocks to
/// balance the workers, few enough that a block's work outweighs its
/// hand-out. The floor of 512 rows (some 14 thousand entries of a
/// 27-point stencil) keeps a small matrix to a few blocks: handed out
/// one by one at 64 rows, the hand-outs cost about as much as the
/// product.
fn block_rows(nrows: usize) -> usize {
    nrows.div_ceil(32).clamp(512, 1024)
}

/// `y = beta y + alpha A x` on `exec`.
fn spmv_blocks<E, T>(
    exec: &E,
    alpha: T,
    a: &CrsMatrix<T, HostSpace>,
    x: &View1<T, LayoutRight, HostSpace>,
    beta: T,
    y: &mut View1<T, LayoutRight, HostSpace>,
) where
    E: HostExec,
    T: Element + Default + PartialEq + Add<Output = T> + Mul<Output = T>,
{
    let zero = T::default();
    let m = Rows::new(a, x);
    let n = a.nrows();
    let out = Output::of(y);
    let dst = Dst::of(&out);
    assert_eq!(dst.len, n, "spmv checks y against the rows");
    let rows = block_rows(n);
    exec.run("spmv", n.div_ceil(rows), &|b| {
        let lo = b * rows;
        let hi = (lo + rows).min(n);
        // SAFETY: `y` is LayoutRight (contiguous), and the blocks are
        // disjoint: block `b` alone touches rows `lo..hi` of it.
        let y = unsafe { dst.slice_mut(lo, hi) };
        match (alpha == zero, beta == zero) {
            (true, true) => y.fill(zero),
            (true, false) => y.iter_mut().for_each(|v| *v = beta * *v),
            (false, true) => {
                for (v, i) in y.iter_mut().zip(lo..hi) {
                    *v = alpha * m.sum(i);
                }
            }
            (false, false) => {
                for (v, i) in y.iter_mut().zip(lo..hi) {
                    *v = beta * *v + alpha * m.sum(i);
                }
            }
        }
    });
}

macro_rules! host_spmv {
    ($space:ty => $($t:ty),*) => { $(
        impl SpmvImpl<$t> for $space {
            fn spmv(
                &self,
                alpha: $t,
                a: &CrsMatrix<$t, HostSpace>,
                x: &View1<$t, LayoutRight, HostSpace>,
                beta: $t,
                y: &mut View1<$t, LayoutRight, HostSpace>,
            ) {
                spmv_blocks(self, alpha, a, x, beta, y)
            }
        }
    )* };
}

host_spmv!(Serial => f32, f64);
#[cfg(feature = "rayon")]
host_spmv!(granule_rayon::Rayon => f32, f64);
