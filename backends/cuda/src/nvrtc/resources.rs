//! What ptxas gives each entry point of a unit (registers, spills, stack,
//! static shared memory), and the occupancy those allow on an H100: the
//! offline view of a kernel's cost that a profiler would give on a GPU.

use super::program::compiled_log;
use super::NvrtcError;

/// ptxas's report for one entry point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// The entry point's name.
    pub entry: String,
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of spill stores per thread.
    pub spill_stores: u32,
    /// Bytes of spill loads per thread.
    pub spill_loads: u32,
    /// Bytes of stack frame per thread (local arrays and spills).
    pub stack_frame: u32,
    /// Bytes of static `__shared__` memory per block.
    pub static_shared: u32,
}

impl Resources {
    /// Whether ptxas spilled registers to local memory.
    pub fn spills(&self) -> bool {
        self.spill_stores > 0 || self.spill_loads > 0
    }

    /// The fraction of an H100 multiprocessor's 64 warp slots that blocks
    /// of `threads` threads using `dynamic_shared` bytes of dynamic shared
    /// memory keep busy, as CUDA's occupancy calculator counts for sm_90:
    /// the fewest blocks allowed by the warp slots, the 32-block limit,
    /// the 64 Ki registers (allocated in units of 256 per warp) and the
    /// 228 KiB of shared memory (in units of 128 bytes, plus the 1 KiB the
    /// system keeps per block).
    ///
    /// ```
    /// use granule_cuda::nvrtc::Resources;
    /// let r = Resources { registers: 32, ..Resources::default() };
    /// assert_eq!(r.occupancy(256, 0), 1.0);
    /// let r = Resources { registers: 128, ..Resources::default() };
    /// assert_eq!(r.occupancy(256, 0), 0.25);
    /// ```
    pub fn occupancy(&self, threads: u32, dynamic_shared: u32) -> f64 {
        const WARPS: u32 = 64;
        const BLOCKS: u32 = 32;
        const REGISTERS: u32 = 65_536;
        const SHARED: u32 = 228 * 1024;
        const RESERVED: u32 = 1024;
        let warps = threads.div_ceil(32).max(1);
        let per_warp = (self.registers.max(1) * 32).div_ceil(256) * 256;
        let by_registers = REGISTERS / per_warp / warps;
        let shared = (self.static_shared + dynamic_shared).div_ceil(128) * 128 + RESERVED;
        let by_shared = SHARED / shared;
        let blocks = [WARPS / warps, BLOCKS, by_registers, by_shared]
            .into_iter()
            .min()
            .unwrap_or(0);
        f64::from(blocks * warps) / f64::from(WARPS)
    }
}

/// The columns of [`Resources::table_row`].
pub const TABLE_COLUMNS: &str =
    "entry, threads, registers, spill stores/loads, stack, shared static+dynamic, H100 occupancy";

impl Resources {
    /// The entry's line of a resource table ([`TABLE_COLUMNS`]) for a
    /// launch of blocks of `threads` with `dynamic_shared` bytes.
    ///
    /// ```
    /// use granule_cuda::nvrtc::Resources;
    /// let r = Resources { entry: "k".into(), registers: 64, ..Resources::default() };
    /// let row = r.table_row(256, 1024);
    /// assert!(row.contains(" 256 ") && row.contains("0+1024") && row.ends_with("50%"), "{row}");
    /// ```
    pub fn table_row(&self, threads: u32, dynamic_shared: u32) -> String {
        format!(
            "  {:<60} {threads:>4} {:>4} {:>4}/{:<4} {:>5} {:>6}+{dynamic_shared:<6} {:>4.0}%",
            self.entry,
            self.registers,
            self.spill_stores,
            self.spill_loads,
            self.stack_frame,
            self.static_shared,
            100.0 * self.occupancy(threads, dynamic_shared),
        )
    }
}

/// Compiles `source` (named `program` in the log) to a CUBIN for `sm_<arch>`
/// with ptxas's verbose report, and returns the report of each entry
/// point, in the order ptxas compiled them.
///
/// ```
/// use granule_cuda::nvrtc::{available, resources};
/// let src = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }";
/// if available() {
///     let r = resources(src, "k.cu", 90).unwrap();
///     assert_eq!(r[0].entry, "k");
///     assert!(r[0].registers > 0 && !r[0].spills());
/// }
/// ```
pub fn resources(source: &str, program: &str, arch: u32) -> Result<Vec<Resources>, NvrtcError> {
    let log = compiled_log(source, program, arch, &["--ptxas-options=-v"])?;
    parse(&log).map_err(|line| NvrtcError::Api {
        call: "nvrtcGetProgramLog",
        code: format!("ptxas's report has a line granule cannot read: {line}"),
    })
}

/// The entries of a ptxas report; `Err` names a line of an entry's report
/// that does not read as ptxas writes it.
fn parse(log: &str) -> Result<Vec<Resources>, String> {
    let mut out: Vec<Resources> = Vec::new();
    for line in log.lines() {
        let text = line
            .trim_start_matches("ptxas")
            .trim_start_matches([' ', '.']);
        let text = text
            .strip_prefix("info")
            .map_or(text, |t| t.trim_start_matches([' ', ':']));
        if let Some(rest) = text.strip_prefix("Compiling entry function '") {
            let name = rest.split('\'').next().unwrap_or_default();
            out.push(Resources {
                entry: name.to_string(),
                ..Resources::default()
            });
            continue;
        }
        let Some(last) = out.last_mut() else { continue };
        if text.contains("bytes stack frame") {
            last.stack_frame = number_before(text, "bytes stack frame").ok_or(line)?;
            last.spill_stores = number_before(text, "bytes spill stores").ok_or(line)?;
            last.spill_loads = number_before(text, "bytes spill loads").ok_or(line)?;
        } else if let Some(rest) = text.strip_prefix("Used ") {
            last.registers = number_before(rest, "registers").ok_or(line)?;
            last.static_shared = number_before(rest, "bytes smem").unwrap_or(0);
        }
    }
    Ok(out)
}

/// The number written just before `unit` in `text` (`"12 bytes smem"`).
fn number_before(text: &str, unit: &str) -> Option<u32> {
    let at = text.find(unit)?;
    text[..at]
        .split([' ', ','])
        .rfind(|w| !w.is_empty())?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'a' for 'sm_90'
ptxas info    : Function properties for a
ptxas         .     320 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 320 bytes cumulative stack size, 1024 bytes smem
ptxas info    : Compiling entry function 'b' for 'sm_90'
ptxas info    : Function properties for b
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers
ptxas info    : Compile time = 15.455 ms
";

    #[test]
    fn a_report_gives_each_entry_its_figures() {
        let r = parse(LOG).unwrap();
        assert_eq!(r.len(), 2);
        let a = Resources {
            entry: "a".into(),
            registers: 40,
            spill_stores: 8,
            spill_loads: 12,
            stack_frame: 320,
            static_shared: 1024,
        };
        assert_eq!(r[0], a);
        assert!(r[0].spills() && !r[1].spills());
        assert_eq!(
            (r[1].entry.as_str(), r[1].registers, r[1].static_shared),
            ("b", 8, 0)
        );
    }

    #[test]
    fn a_report_that_does_not_read_is_refused() {
        let bad = "ptxas info    : Compiling entry function 'a' for 'sm_90'\n\
                   ptxas info    : Used many registers\n";
        assert!(parse(bad).unwrap_err().contains("Used many registers"));
    }

    #[test]
    fn occupancy_follows_the_tightest_limit() {
        let regs = |n| Resources {
            registers: n,
            ..Resources::default()
        };
        // 64 registers: 2048 per warp, 32 warps fit.
        assert_eq!(regs(64).occupancy(256, 0), 0.5);
        // 111 registers round to 112 per thread (3584 per warp): 18 warps,
        // two blocks of 8.
        assert_eq!(regs(111).occupancy(256, 0), 0.25);
        // Shared memory: 100 KiB per block leaves room for two.
        assert_eq!(regs(32).occupancy(256, 100 * 1024), 0.25);
        // Small blocks hit the 32-block limit.
        assert_eq!(regs(32).occupancy(32, 0), 0.5);
    }
}
