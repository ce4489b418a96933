// axpy
__device__ void axpy(granule::usize i, granule::f64& y, granule::f64 a, granule::View<const granule::f64, 1, granule::LayoutRight> x) {
  y = ((a * x(i)) + y);
}

