//! The probe kernels' C++, compiled for the host with GCC's
//! UndefinedBehaviorSanitizer and run over every point that gives a value.

use super::*;
use granule::kernel::DeviceKernel;

/// The exact probe kernels, by the type name their harness is run with.
fn exact_kernels() -> [(&'static str, &'static DeviceKernel); 13] {
    let k = KERNELS;
    [
        ("i8", k[0]),
        ("i16", k[1]),
        ("i32", k[2]),
        ("i64", k[3]),
        ("isize", k[4]),
        ("u8", k[5]),
        ("u16", k[6]),
        ("u32", k[7]),
        ("u64", k[8]),
        ("usize", k[9]),
        ("f32", k[10]),
        ("f64", k[11]),
        ("bool", k[12]),
    ]
}

/// The runtime's functions the header's non-template code calls, for a
/// single-threaded host program (a trap aborts), and a `main` that runs
/// one probe kernel over points read from a file.
const UB_HARNESS: &str = r#"
#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace granule_emu {
uint3 thread_idx() { return uint3{0, 0, 0}; }
uint3 block_idx() { return uint3{0, 0, 0}; }
uint3 block_dim() { return uint3{1, 1, 1}; }
uint3 grid_dim() { return uint3{1, 1, 1}; }
void sync_threads() {}
void fence() {}
void yield() {}
void loop_tick() {}
[[noreturn]] void trap() { std::abort(); }
uint64_t warp_op(int, unsigned, uint64_t v, int, int) { return v; }
}  // namespace granule_emu
unsigned atomicCAS(unsigned* p, unsigned c, unsigned v) { unsigned o = *p; if (o == c) *p = v; return o; }

template <class T> T* read_all(FILE* f, uint64_t n) {
  T* v = new T[n];
  if (std::fread(v, sizeof(T), n, f) != n) std::abort();
  return v;
}
template <class T, class K> int run(K kernel, const char* in, const char* out) {
  FILE* f = std::fopen(in, "rb");
  uint64_t n = 0;
  if (f == nullptr || std::fread(&n, 8, 1, f) != 1) return 2;
  granule::u32* op = read_all<granule::u32>(f, n);
  T* a = read_all<T>(f, n);
  T* b = read_all<T>(f, n);
  T* c = read_all<T>(f, n);
  std::fclose(f);
  granule::u64* lo = new granule::u64[n];
  granule::u64* hi = new granule::u64[n];
  typedef granule::View<const T, 1, granule::LayoutRight> V;
  const granule::View<const granule::u32, 1, granule::LayoutRight> ops{op, {n}, {1}, 1};
  for (uint64_t i = 0; i < n; ++i) {
    kernel(i, lo[i], hi[i], ops, V{a, {n}, {1}, 2}, V{b, {n}, {1}, 3}, V{c, {n}, {1}, 4});
  }
  FILE* o = std::fopen(out, "wb");
  std::fwrite(lo, 8, n, o);
  std::fwrite(hi, 8, n, o);
  std::fclose(o);
  return 0;
}
"#;

/// Writes `bytes` of `v`'s elements, in memory order.
fn raw_bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: the probe types are plain scalars (integers, floats, bool):
    // every byte of them is initialized, and the slice covers exactly
    // `size_of_val(v)` bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
        .to_vec()
}

/// Runs a type's probe kernel, compiled with UndefinedBehaviorSanitizer,
/// over every point that gives a value on a device: `harness <type> <in>
/// <out>` must exit cleanly (no sanitizer report) and give the device's
/// expected words.
fn ub_check<T: Copy + std::fmt::Debug>(
    harness: &std::path::Path,
    ty: &str,
    p: &Probes<T>,
) -> usize {
    let plan = plan(p, true);
    let n = plan.batch.len();
    let mut input = (n as u64).to_le_bytes().to_vec();
    let ops: Vec<u32> = plan.batch.iter().map(|pt| pt.op).collect();
    input.extend(raw_bytes(&ops));
    for pick in [
        |pt: &Point<T>| pt.a,
        |pt: &Point<T>| pt.b,
        |pt: &Point<T>| pt.c,
    ] {
        let v: Vec<T> = plan.batch.iter().map(pick).collect();
        input.extend(raw_bytes(&v));
    }
    let dir = harness.parent().expect("a directory");
    let (inp, out) = (dir.join(format!("{ty}.in")), dir.join(format!("{ty}.out")));
    std::fs::write(&inp, input).unwrap();
    let run = std::process::Command::new(harness)
        .args([ty.as_ref(), inp.as_os_str(), out.as_os_str()])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{ty}: {}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let words: Vec<u64> = std::fs::read(&out)
        .unwrap()
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
        .collect();
    let diffs = differences(p, &plan, &words[..n], &words[n..]);
    assert!(
        diffs.is_empty(),
        "{ty}:\n{}",
        diffs[..diffs.len().min(30)].join("\n")
    );
    n
}

/// The harness's C++: shim, header, the probe kernels, and a `main` that
/// runs the kernel its first argument names.
fn harness_source() -> String {
    let mut src = format!(
        "{}\n{}\n{UB_HARNESS}",
        granule_cuda::emu::SHIM,
        granule_cuda::device::HEADER
    );
    let mut main = String::from("int main(int argc, char** argv) {\n  if (argc != 4) return 2;\n");
    for (ty, k) in exact_kernels() {
        src.push_str(k.source);
        let cpp = if ty == "bool" {
            "bool".to_string()
        } else {
            format!("granule::{ty}")
        };
        main.push_str(&format!(
            "  if (std::strcmp(argv[1], \"{ty}\") == 0) return run<{cpp}>({}, argv[2], argv[3]);\n",
            k.name
        ));
    }
    src + &main + "  return 2;\n}\n"
}

/// Compiles the harness in `dir` with the host compiler (the emulator's,
/// `GRANULE_EMU_CXX` or g++) and the sanitizer; `Err` says why it cannot.
fn build_harness(dir: &std::path::Path) -> Result<std::path::PathBuf, String> {
    let file = dir.join("harness.cpp");
    std::fs::write(&file, harness_source()).unwrap();
    let harness = dir.join("harness");
    let cxx = std::env::var("GRANULE_EMU_CXX").unwrap_or_else(|_| "g++".into());
    let out = std::process::Command::new(&cxx)
        .args(["-std=c++17", "-O1", "-w"])
        .args([
            "-fsanitize=undefined,float-cast-overflow",
            "-fno-sanitize-recover=all",
        ])
        .arg("-o")
        .arg(&harness)
        .arg(&file)
        .output()
        .map_err(|e| format!("no host C++ compiler `{cxx}` ({e})"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    match (out.status.success(), log.contains("ubsan")) {
        (true, _) => Ok(harness),
        (false, true) => Err(format!(
            "{cxx} has no UndefinedBehaviorSanitizer runtime (libubsan)"
        )),
        (false, false) => panic!("{cxx} cannot compile the harness:\n{log}"),
    }
}

/// The probe kernels' C++ (what NVRTC and the emulator compile) in C++17,
/// NVRTC's dialect, under GCC's UndefinedBehaviorSanitizer: no signed
/// overflow, shift past the width, division overflow or out-of-range
/// float-to-integer conversion happens for any point, and the words are
/// the device's expected ones. (GCC narrows an operation whose result is
/// truncated before it instruments it, so 8- and 16-bit arithmetic, which
/// C++ promotes to `int`, is safe by construction instead: the header's
/// helpers compute it in u32.) Skipped with a reason when the host
/// compiler has no sanitizer runtime.
#[test]
fn the_probe_kernels_have_no_undefined_behaviour() {
    let dir = std::env::temp_dir().join(format!("granule-ub-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let harness = match build_harness(&dir) {
        Ok(h) => h,
        Err(reason) => {
            println!("skipped: {reason}");
            return;
        }
    };
    let points = ub_check(&harness, "i8", &i8s::PROBES)
        + ub_check(&harness, "i16", &i16s::PROBES)
        + ub_check(&harness, "i32", &i32s::PROBES)
        + ub_check(&harness, "i64", &i64s::PROBES)
        + ub_check(&harness, "isize", &isizes::PROBES)
        + ub_check(&harness, "u8", &u8s::PROBES)
        + ub_check(&harness, "u16", &u16s::PROBES)
        + ub_check(&harness, "u32", &u32s::PROBES)
        + ub_check(&harness, "u64", &u64s::PROBES)
        + ub_check(&harness, "usize", &usizes::PROBES)
        + ub_check(&harness, "f32", &f32s::PROBES)
        + ub_check(&harness, "f64", &f64s::PROBES)
        + ub_check(&harness, "bool", &bools::PROBES);
    println!("undefined behaviour: none in {points} probe points under UBSan");
    let _ = std::fs::remove_dir_all(&dir);
}
