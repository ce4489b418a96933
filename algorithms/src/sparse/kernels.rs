//! The `spmv` kernel of each value type, as `#[kernel]`s: Cuda runs them
//! (`cuda.rs`), and the NVRTC tests compile them for every target.

use granule_core::kernel::kernel;
use granule_views::View1;

macro_rules! spmv_kernels {
    ($($t:ident => $name:ident);* $(;)?) => { $(
        /// Row `i` of `y = beta y + alpha A x`, in the order and with the
        /// cases of the host spaces, so that every space gives the same
        /// bits.
        #[doc(hidden)]
        #[kernel(crate = granule_core)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            i: usize,
            y: &mut $t,
            row_map: &View1<usize>,
            entries: &View1<u32>,
            values: &View1<$t>,
            x: &View1<$t>,
            alpha: $t,
            beta: $t,
        ) {
            if alpha == 0.0 {
                if beta == 0.0 {
                    *y = 0.0;
                } else {
                    *y *= beta;
                }
            } else {
                let mut sum = 0.0;
                for k in row_map[i]..row_map[i + 1] {
                    sum += values[k] * x[entries[k] as usize];
                }
                if beta == 0.0 {
                    *y = alpha * sum;
                } else {
                    *y = beta * *y + alpha * sum;
                }
            }
        }
    )* };
}

spmv_kernels!(f64 => spmv_f64; f32 => spmv_f32);

/// Every `spmv` kernel, for the NVRTC compile test.
pub const KERNELS: &[&granule_core::kernel::DeviceKernel] = {
    use granule_core::kernel::KernelSource;
    &[
        <spmv_f64<'static> as KernelSource>::KERNEL,
        <spmv_f32<'static> as KernelSource>::KERNEL,
    ]
};
