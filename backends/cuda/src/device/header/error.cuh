// error.cuh: the error record, failing threads, and failed assertions.
// ---------------------------------------------------------------- errors

// The first device-side failure of a launch; the host reads and clears it.
struct ErrorRecord {
  u32 code;   // 0 none, 1 out of bounds, 2 division by zero, 3 division overflow, 4 clamp bounds,
              // 5 assertion failed, 6 chunk map precondition (a failed chunk_mut unwrap),
              // 7 empty map slot, 8 index past a segment, 9 index past a local array
  u32 view;   // View id for codes 1, 6, 7 and 8
  u64 rank;   // the offending dimension for code 1; the source line for code 5; the segment for code 8
  u64 index;  // the offending index for codes 1, 8 and 9
  u64 extent; // the extent for code 1; the segment's length for code 8; the array's for code 9
  // Code 5: device address of the NUL-terminated message
  // "<file>:<line>:<column>: kernel `<name>`: assertion failed: <condition>",
  // or "<file>:<line>:<column>: kernel `<name>`: <custom message>".
  const char* message;
  // Code 5 with nargs > 0: the message is a template whose `{}`/`{:?}`
  // take these values in order and whose literal braces are doubled (the
  // host formats it); up to 4 message arguments, then assert_eq!/assert_ne!'s
  // left and right. kinds: see AssertArg.
  u64 args[6];
  u32 kinds[6];
  u32 nargs;
  // RECORD_COMPLETE once the first failing thread has written and fenced
  // the record; RECORD_TRUNCATED when `text` holds only the message's start.
  u32 flags;
  // Code 5: a copy of `message`, NUL-terminated, cut at 511 bytes. On a GPU
  // the context is unusable after the trap that follows, so the host can
  // read neither the module's string nor device memory: it reads this.
  char text[512];
};
constexpr u32 RECORD_COMPLETE = 1u;
constexpr u32 RECORD_TRUNCATED = 2u;
// The host mirrors this layout (device/record.rs, whose tests check every
// offset with the host compiler's offsetof; NVRTC has no offsetof). The
// older fields keep their offsets, and `flags` took the tail padding.
static_assert(sizeof(ErrorRecord) == 632, "ErrorRecord layout");

// An entry point's parameters as its caller must pass them: the count,
// then `sizeof` of each (codegen defines one per entry, from the entry's
// own type, and the host checks a launch's arguments against it).
template <class F> struct ParamTable;
template <class... P> struct ParamTable<void(P...)> {
  u64 count = sizeof...(P);
  u64 sizes[sizeof...(P) > 0 ? sizeof...(P) : 1] = {(u64)sizeof(P)...};
};

}  // namespace granule

// Named without mangling so the host can find them (cuModuleGetGlobal,
// dlsym). Failures are written where `granule_error_at` points: to
// `granule_error` on the emulator, to a record in mapped pinned host
// memory on a GPU (the device sets the pointer when it loads the module),
// which the host reads after a synchronization. The first failing thread
// claims the word `granule_failed_at` points to: this module's
// `granule_error.code` on the emulator, one word of device memory per
// device on a GPU, which every kernel of that device reads before it
// starts (a launch after a failure does nothing) and which its waiting
// loops watch; the host clears it once it has read the record.
extern "C" {
__device__ granule::ErrorRecord granule_error;
__device__ granule::ErrorRecord* granule_error_at = &granule_error;
__device__ granule::u32* granule_failed_at = &granule_error.code;
}

namespace granule {

// Ends the calling thread after a failure. On a GPU a trap would end the
// launch, but it is a sticky error, which can leave every CUDA context
// of the process unusable, new ones included. So the thread
// exits instead (PTX `exit`; a barrier that only exited threads hold up
// is released, and warp collectives wait for the lanes that have not
// exited), the threads that wait for it stop at their next
// GRANULE_WAIT_TICK, later launches of the device do nothing, and the host
// reports the record at the next synchronization with the device still
// usable. The emulator ends the whole launch.
[[noreturn]] __device__ __forceinline__ void stop_thread() {
#ifdef GRANULE_EMULATOR
  __trap();
#else
  asm volatile("exit;" ::: "memory");
  __builtin_unreachable();
#endif
}
// Whether a thread of this device has failed since the host last read the
// record (a volatile read: the word is written by other blocks).
__device__ __forceinline__ bool failure_claimed() { return *(volatile u32*)granule_failed_at != 0u; }
__device__ __forceinline__ void stop_if_failed() {
  if (failure_claimed()) stop_thread();
}

#ifndef GRANULE_EMULATOR
// On a GPU the record sits at the start of a mapped allocation that goes
// on with the stream's progress word (the number of the last launch that
// completed) and the word the first failure copies it into, which tells
// the host which launch failed (gpu/record.rs mirrors the layout).
struct RecordTail {
  u32 progress;
  u32 failed_after;
};
#endif

// The first failing thread of the device claims the record (it gets the
// record, with the code set) and must fill it, then call publish_and_stop.
// Every later one gets null after waiting, for a bounded time (about 0.1
// s on a GPU), until the record is complete. The claim word is in device
// memory (see granule_failed_at), so no atomic goes to host memory.
__device__ __noinline__ ErrorRecord* claim_record(u32 code) {
  ErrorRecord* r = granule_error_at;
  if (atomicCAS(granule_failed_at, 0u, code) == 0u) {
    r->code = code;
#ifndef GRANULE_EMULATOR
    volatile RecordTail* tail = (volatile RecordTail*)(r + 1);
    tail->failed_after = tail->progress;
#endif
    return r;
  }
  const volatile u32* flags = &r->flags;
  for (u32 k = 0; k < (1u << 16) && (*flags & RECORD_COMPLETE) == 0u; ++k) __nanosleep(1024);
  return nullptr;
}
__device__ __noinline__ void publish_and_stop(ErrorRecord* r) {
  __threadfence_system();
  *(volatile u32*)&r->flags |= RECORD_COMPLETE;
  __threadfence_system();
  stop_thread();
}
// Copies `message` into the record's text, cut (and marked) at its size.
__device__ __noinline__ void record_text(ErrorRecord* r, const char* message) {
  r->message = message;
  u32 k = 0;
  if (message != nullptr) {
    for (; k + 1 < sizeof(r->text) && message[k] != 0; ++k) r->text[k] = message[k];
    if (message[k] != 0) r->flags |= RECORD_TRUNCATED;
  }
  r->text[k] = 0;
}

__device__ __noinline__ void fail(u32 code, u32 view, u64 rank, u64 index, u64 extent) {
  if (ErrorRecord* r = claim_record(code)) {
    r->view = view;
    r->rank = rank;
    r->index = index;
    r->extent = extent;
    publish_and_stop(r);
  }
  stop_thread();
}

// A failed `assert!`/`assert_eq!`/`assert_ne!`: the first failure of the
// launch is recorded (code 5, the source line and the message), then the
// thread traps, as a Rust panic ends the kernel.
__device__ __noinline__ void assert_fail(const char* message, u32 line) {
  if (ErrorRecord* r = claim_record(5u)) {
    r->rank = line;
    record_text(r, message);
    publish_and_stop(r);
  }
  stop_thread();
}
__device__ __forceinline__ void check(bool ok, const char* message, u32 line) {
  if (!ok) assert_fail(message, line);
}

// One recorded assertion message argument: its bits and how to show them
// (1 unsigned, 2 signed (sign-extended), 3 f32 and 4 f64 (both as f64
// bits), 5 bool).
struct AssertArg {
  u64 bits;
  u32 kind;
};
__device__ __forceinline__ AssertArg assert_arg(bool v) { return AssertArg{v ? 1ull : 0ull, 5u}; }
__device__ __forceinline__ AssertArg assert_arg(f32 v) {
  return AssertArg{(u64)__double_as_longlong((f64)v), 3u};
}
__device__ __forceinline__ AssertArg assert_arg(f64 v) {
  return AssertArg{(u64)__double_as_longlong(v), 4u};
}
template <class T> __device__ __forceinline__ AssertArg assert_arg(T v) {
  if constexpr (Num<T>::is_signed) {
    return AssertArg{(u64)(i64)v, 2u};
  } else {
    return AssertArg{(u64)v, 1u};
  }
}

// A failed assertion whose message has values: as above, and the first
// failure also records `n` values. The translator calls it only once the
// condition has failed, so the values are evaluated then, as Rust does.
__device__ __noinline__ void assert_fail(const char* message, u32 line, u32 n, AssertArg a0,
                                         AssertArg a1 = AssertArg{0, 0}, AssertArg a2 = AssertArg{0, 0},
                                         AssertArg a3 = AssertArg{0, 0}, AssertArg a4 = AssertArg{0, 0},
                                         AssertArg a5 = AssertArg{0, 0}) {
  if (ErrorRecord* r = claim_record(5u)) {
    const AssertArg all[6] = {a0, a1, a2, a3, a4, a5};
    for (u32 k = 0; k < 6; ++k) {
      r->args[k] = all[k].bits;
      r->kinds[k] = all[k].kind;
    }
    r->nargs = n < 6u ? n : 6u;
    r->rank = line;
    record_text(r, message);
    publish_and_stop(r);
  }
  stop_thread();
}

