// dot
__device__ void dot(granule::usize i, granule::f64& acc, granule::View<const granule::f64, 1, granule::LayoutRight> x, granule::View<const granule::f64, 1, granule::LayoutStride> y) {
  acc += (x(i) * y(i));
}

