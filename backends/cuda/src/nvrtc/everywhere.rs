//! Proof that a unit compiles for every architecture granule targets,
//! which CI runs without a GPU for the suite, the examples and the
//! algorithms' drivers.

use super::program::compile_ptx_and_cubin;
use super::Target;

/// The real architectures of [`check_everywhere`]: sm_80 (A100) and
/// sm_90 (H100).
pub const EVERY_ARCH: [u32; 2] = [80, 90];

/// Compiles `source` (named `program` in logs) once for each architecture
/// of [`EVERY_ARCH`], side by side since the compilations are
/// independent, and checks both outputs of each: the PTX defines every
/// name of `entries` as an `.entry`, and the CUBIN (so ptxas ran, and
/// register and shared-memory limits hold) is an ELF file. One
/// compilation gives both: NVRTC keeps the PTX it hands to ptxas. The
/// error names the program and the target, with NVRTC's log.
///
/// ```
/// use granule_cuda::nvrtc::{available, check_everywhere};
/// let src = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 1.0f; }";
/// if available() {
///     check_everywhere(src, "k.cu", &["k".to_string()]).unwrap();
///     let e = check_everywhere(src, "k.cu", &["other".to_string()]).unwrap_err();
///     assert!(e.contains("no entry other"), "{e}");
/// }
/// ```
pub fn check_everywhere(source: &str, program: &str, entries: &[String]) -> Result<(), String> {
    std::thread::scope(|s| {
        let jobs: Vec<_> = EVERY_ARCH
            .iter()
            .map(|&a| s.spawn(move || (a, compile_ptx_and_cubin(source, program, a))))
            .collect();
        jobs.into_iter().try_for_each(|job| {
            let (a, out) = job.join().expect("a compile thread does not panic");
            let (ptx, cubin) = out.map_err(|e| format!("{program} sm_{a}: {e}"))?;
            [(Target::Ptx(a), ptx), (Target::Cubin(a), cubin)]
                .into_iter()
                .try_for_each(|(t, out)| {
                    check_output(t, &out.bytes, entries)
                        .map_err(|e| format!("{program} {t:?}: {e}"))
                })
        })
    })
}

fn check_output(t: Target, bytes: &[u8], entries: &[String]) -> Result<(), String> {
    match t {
        Target::Ptx(_) => {
            let ptx = std::str::from_utf8(bytes).map_err(|e| format!("PTX is not text: {e}"))?;
            match entries
                .iter()
                .find(|e| !ptx.contains(&format!(".entry {e}(")))
            {
                Some(e) => Err(format!("no entry {e} in the PTX")),
                None => Ok(()),
            }
        }
        Target::Cubin(_) if bytes.starts_with(b"\x7fELF") => Ok(()),
        Target::Cubin(_) => Err("the CUBIN is not an ELF file".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_without_an_entry_or_elf_header_are_refused() {
        let entries = ["k".to_string()];
        assert!(check_output(Target::Ptx(80), b".entry k(\n", &entries).is_ok());
        let e = check_output(Target::Ptx(80), b".entry kk(\n", &entries).unwrap_err();
        assert!(e.contains("no entry k"), "{e}");
        assert!(check_output(Target::Cubin(90), b"\x7fELF..", &entries).is_ok());
        assert!(check_output(Target::Cubin(90), b"PK..", &entries).is_err());
    }
}
