// fill.cuh: CudaSpace's fill, every element of a View's mapping set to one value.
// A translation unit of its own, after the header; the host side is
// space/fill.rs, which packs these parameter types.

namespace granule {

// The mapping: rank, then extents and strides in elements (unused ranks
// have extent 1). The host passes a contiguous mapping as rank 1.
struct FillShape {
  u64 rank;
  u64 ext[8];
  u64 str[8];
};

// The value's bytes, as words of the fill's width (the element's
// alignment, at most 8 bytes): elements of up to 128 bytes.
struct FillValue {
  u64 bytes[16];
};

// Offset in elements of the e-th element of `s`, the last index fastest.
__device__ __forceinline__ u64 fill_offset(const FillShape& s, u64 e) {
  if (s.rank == 1) return e * s.str[0];
  u64 off = 0;
  for (u64 r = s.rank; r-- > 0;) {
    off += (e % s.ext[r]) * s.str[r];
    e /= s.ext[r];
  }
  return off;
}

// One thread per word: consecutive threads write consecutive words of an
// element, then of the next, so a contiguous fill is coalesced. `out`
// spans the mapping's words, so its bounds check keeps every store in the
// View's allocation.
template <class W>
__device__ __forceinline__ void fill_words(View<W, 1, LayoutStride> out, u64 size, u64 words, const FillShape& s,
                                           const FillValue& v) {
  const W* value = (const W*)v.bytes;
  if (words == 1) {
    drive_for(0, size, [&](u64 e) { out(fill_offset(s, e)) = value[0]; });
    return;
  }
  drive_for(0, size * words, [&](u64 t) {
    const u64 w = t % words;
    out(fill_offset(s, t / words) * words + w) = value[w];
  });
}

}  // namespace granule

#define GRANULE_FILL_ENTRY(W)                                                                              \
  extern "C" __global__ void granule_fill_##W(granule::View<granule::W, 1, granule::LayoutStride> out,     \
                                              granule::u64 size, granule::u64 words, granule::FillShape s, \
                                              granule::FillValue v) {                                      \
    GRANULE_ENTRY_CHECK();                                                                                 \
    granule::fill_words<granule::W>(out, size, words, s, v);                                               \
  }                                                                                                        \
  extern "C" {                                                                                             \
  __device__ granule::ParamTable<decltype(granule_fill_##W)> granule_params_granule_fill_##W;              \
  }

GRANULE_FILL_ENTRY(u8)
GRANULE_FILL_ENTRY(u16)
GRANULE_FILL_ENTRY(u32)
GRANULE_FILL_ENTRY(u64)
