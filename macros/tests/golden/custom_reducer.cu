// Stats
struct Stats {
  granule::f32 sum;
  granule::f32 sum_sq;
  granule::u32 n;
  bool negative;
};

// StatsOf
struct StatsOf {
  typedef Stats value_type;
  static __device__ __forceinline__ Stats identity() {
    return ([&] { Stats s_g1{}; s_g1.sum = ((decltype(Stats::sum))0.0); s_g1.sum_sq = ((decltype(Stats::sum_sq))0.0); s_g1.n = ((decltype(Stats::n))0ull); s_g1.negative = false; return s_g1; }());
  }
  static __device__ __forceinline__ void join(Stats& dst, Stats src) {
    dst.sum = granule::wadd(dst.sum, src.sum);
    dst.sum_sq = granule::wadd(dst.sum_sq, src.sum_sq);
    dst.n = granule::wadd(dst.n, src.n);
    dst.negative = (dst.negative || src.negative);
  }
  static __device__ __forceinline__ void final_(Stats& v) {
    if ((v.n > ((decltype(Stats::n))0ull))) {
      v.sum = granule::div(v.sum, granule::cast<granule::f32>(v.n));
      v.sum_sq = granule::wsub(granule::div(v.sum_sq, granule::cast<granule::f32>(v.n)), granule::wmul(v.sum, v.sum));
    }
  }
};

// stats
__device__ void stats(granule::usize i, granule::View<const granule::f32, 1, granule::LayoutRight> x, Stats& acc) {
  const granule::f32 v = (x(i) * 0.5f);
  acc.sum = granule::wadd(acc.sum, v);
  acc.sum_sq = granule::wadd(acc.sum_sq, ((v * v) + granule::wmul(((decltype(Stats::sum))0.0), acc.sum)));
  acc.n = granule::wadd(acc.n, ((decltype(Stats::n))1ull));
  acc.negative = (acc.negative || (v < 0.0f));
}

