// scale
template <class T>
__device__ void scale(granule::usize i, T& y, T a, granule::View<const T, 1, granule::LayoutRight> x) {
  y = granule::wmul(a, x(i));
}

