//! `spmv` on Cuda: one thread per row, through the portable `parallel_for`
//! and the kernels of `kernels.rs`.

use super::kernels::{spmv_f32, spmv_f64};
use super::{CrsMatrix, SpmvImpl};
use granule_core::portable::parallel_for;
use granule_core::RangePolicy;
use granule_cuda::{Cuda, CudaSpace};
use granule_views::{LayoutRight, View1};

macro_rules! cuda_spmv {
    ($($t:ty => $kernel:ident),*) => { $(
        impl SpmvImpl<$t> for Cuda {
            fn spmv(
                &self,
                alpha: $t,
                a: &CrsMatrix<$t, CudaSpace>,
                x: &View1<$t, LayoutRight, CudaSpace>,
                beta: $t,
                y: &mut View1<$t, LayoutRight, CudaSpace>,
            ) {
                let policy = RangePolicy::new(self, 0..a.nrows());
                let kernel = $kernel(a.row_map(), a.entries(), a.values(), x, alpha, beta);
                parallel_for("spmv", policy, y, kernel);
            }
        }
    )* };
}

cuda_spmv!(f64 => spmv_f64, f32 => spmv_f32);
