//! `spmv` on the host spaces: the `parallel_for` pattern over the rows,
//! each row summed along its entries from slices, `x` read without a
//! bounds check because [`CrsMatrix::new`] checked every column.

use super::{CrsMatrix, SpmvImpl};
use granule_core::{parallel_for, RangePolicy, Serial};
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

    /// Row `i` of `A x`, summed in entry order.
    #[inline(always)]
    fn row(&self, i: usize) -> T {
        let (lo, hi) = (self.rows[i], self.rows[i + 1]);
        let mut sum = T::default();
        for (&c, &v) in self.cols[lo..hi].iter().zip(&self.vals[lo..hi]) {
            // SAFETY: `CrsMatrix::new` checked every entry to be below
            // `ncols`, and the matrix hands out no way to write its
            // entries afterwards; `x.len() == ncols` (asserted in `new`).
            sum = sum + v * unsafe { *self.x.get_unchecked(c as usize) };
        }
        sum
    }
}

/// A LayoutRight host View's elements, which are always one slice.
fn contiguous<T: Element>(v: &View1<T, LayoutRight, HostSpace>) -> &[T] {
    v.as_slice()
        .expect("a rank-1 LayoutRight host View is contiguous")
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
                let m = Rows::new(a, x);
                let policy = RangePolicy::new(self, 0..a.nrows());
                let label = "spmv";
                match (alpha == 0.0, beta == 0.0) {
                    (true, true) => parallel_for(label, policy, y, |_, yi: &mut $t| *yi = 0.0),
                    (true, false) => parallel_for(label, policy, y, |_, yi: &mut $t| *yi *= beta),
                    (false, true) => {
                        parallel_for(label, policy, y, |i, yi: &mut $t| *yi = alpha * m.row(i))
                    }
                    (false, false) => parallel_for(label, policy, y, |i, yi: &mut $t| {
                        *yi = beta * *yi + alpha * m.row(i)
                    }),
                }
            }
        }
    )* };
}

host_spmv!(Serial => f32, f64);
#[cfg(feature = "rayon")]
host_spmv!(granule_rayon::Rayon => f32, f64);
