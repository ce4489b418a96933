// unique_token.cuh: the device side of granule-containers' UniqueToken,
// appended to the device header. A token is an AtomicView of u32 locks, one per
// id (0 free, 1 held), the host's protocol (containers/src/unique_token/
// locks.rs). One word per id rather than 32 ids per word: a thread starts
// at its own lock (its global index modulo the size), so when the size is
// at least the resident threads, as `new_on` makes it, the first CAS finds
// it free and no two threads CAS the same word; in a packed bitset the 32
// lanes of a warp would all CAS one word.

namespace granule {

// The calling thread's index among all threads of the launch.
__device__ __forceinline__ usize token_thread() {
  const usize block = (usize)blockIdx.x + (usize)gridDim.x * ((usize)blockIdx.y + (usize)gridDim.y * (usize)blockIdx.z);
  const usize threads = (usize)blockDim.x * (usize)blockDim.y * (usize)blockDim.z;
  const usize t = (usize)threadIdx.x + (usize)blockDim.x * ((usize)threadIdx.y + (usize)blockDim.y * (usize)threadIdx.z);
  return block * threads + t;
}

// An id no other thread holds. Spins while every lock is taken, as Kokkos
// does: a holder is a running thread, which releases.
__device__ usize token_acquire(AtomicView<u32, 1> locks) {
  const usize n = locks.extent(0);
  const usize start = token_thread() % n;
  usize i = start;
  for (;;) {
    GRANULE_LOOP_TICK();
    u32* p = locks.at(i);
    if (atomic_load(p) == 0u && atomic_cas_ok(p, 0u, 1u)) {
      __threadfence();  // the lock before what the holder then reads
      return i;
    }
    i = i + 1 == n ? 0 : i + 1;
    if (i == start) __nanosleep(256);  // a sweep found none: back off
  }
}

// Gives `id` back; a failed assertion (code 5) if it is out of range or
// was not held. The header's atomics (CAS loops) rather than atomicExch:
// these functions are not templates, so every harness that includes the
// header links them, and some shims define atomicCAS alone.
__device__ void token_release(AtomicView<u32, 1> locks, usize id) {
  const usize n = locks.extent(0);
  if (id >= n) {
    assert_fail("UniqueToken: release of id {}, but the token has {} ids", 0u, 2u, assert_arg(id),
                assert_arg(n));
  }
  __threadfence();  // the holder's writes before the id is free again
  if (atomic_exchange(locks.at(id), 0u) != 1u) {
    assert_fail("UniqueToken: release of id {}, which is not held", 0u, 1u, assert_arg(id));
  }
}

}  // namespace granule
