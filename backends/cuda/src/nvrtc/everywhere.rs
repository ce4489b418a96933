//! Proof that a unit compiles for every architecture granule targets,
//! which CI runs without a GPU for the suite, the examples and the
//! algorithms' drivers.

use super::program::compile_ptx_and_cubin;
use super::Target;
use crate::codegen::{Instance, Pattern, TranslationUnit};
use granule_core::kernel::{DeviceKernel, ParamKind};

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

/// Wraps every kernel of `kernels` in the driver of its pattern (a
/// reduction in every driver that applies to its accumulator's type),
/// translates them as one unit and checks it with [`check_everywhere`]:
/// an application's proof that each of its kernels would load on a GPU.
/// Returns the number of instances compiled.
///
/// ```
/// use granule::prelude::*;
/// use granule::kernel::KernelSource;
/// use granule_cuda::nvrtc::{available, check_kernels_everywhere};
/// #[kernel]
/// fn twice(i: usize, y: &mut f64, x: &View1<f64>) {
///     *y = 2.0 * x[i];
/// }
/// if available() {
///     let n = check_kernels_everywhere(&[<twice<'static> as KernelSource>::KERNEL], "twice.cu");
///     assert_eq!(n, Ok(1));
/// }
/// ```
pub fn check_kernels_everywhere(
    kernels: &[&'static DeviceKernel],
    program: &str,
) -> Result<usize, String> {
    let instances: Vec<Instance> = kernels
        .iter()
        .flat_map(|k| {
            let acc = k
                .params
                .iter()
                .rev()
                .find(|p| p.kind == ParamKind::Out)
                .map_or("", |p| p.cpp);
            Pattern::all_for(k.pattern, acc)
                .into_iter()
                .map(move |p| Instance::new(k, p, &[]))
        })
        .collect();
    let unit = TranslationUnit::new(&instances).map_err(|e| format!("{program}: {e}"))?;
    check_everywhere(unit.source(), program, unit.entries())?;
    Ok(instances.len())
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
