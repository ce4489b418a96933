//! A loaded module: its entry points, what each needs checked before a
//! launch (parameter sizes, shared memory), and the error record it
//! writes to.

use super::describe;
use crate::codegen::params_symbol;
use cudarc::driver::sys::{self, CUfunction, CUfunction_attribute, CUmodule};
use cudarc::driver::{result, CudaContext, DriverError};
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// One entry point.
pub(super) struct GpuFunction {
    pub(super) f: CUfunction,
    /// `sizeof` of each parameter, from the entry's parameter table.
    pub(super) params: Vec<usize>,
    /// Bytes of the entry's static `__shared__` variables.
    pub(super) static_smem: u32,
    /// The dynamic shared memory the function accepts now
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`), raised once
    /// by the first launch that needs more.
    dynamic_smem: AtomicU32,
}

/// A loaded module and its entry points.
pub(super) struct GpuModule {
    pub(super) ctx: Arc<CudaContext>,
    module: CUmodule,
    pub(super) functions: HashMap<String, GpuFunction>,
}

// SAFETY: CUmodule and CUfunction are driver handles, valid from any
// thread once the owning context is made current there (every use binds
// `ctx` first); the driver API is thread-safe, and the one mutable value
// is atomic.
unsafe impl Send for GpuModule {}
// SAFETY: as above.
unsafe impl Sync for GpuModule {}

impl Drop for GpuModule {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: the module was loaded by `load_data` in this context
            // and is unloaded once, here; its functions die with it, and
            // nothing holds them (Module owns this value through an Arc).
            let _ = unsafe { result::module::unload(self.module) };
        }
    }
}

impl GpuModule {
    /// Loads `cubin` into the (current) context `ctx`, points its
    /// `granule_error_at` at `record` and its `granule_failed_at` at
    /// `failed` (device addresses of the context), and reads every entry's
    /// table and attributes. `Err` is the reason.
    pub(super) fn load(
        ctx: &Arc<CudaContext>,
        cubin: &[u8],
        entries: &[String],
        (record, failed): (u64, u64),
    ) -> Result<GpuModule, String> {
        // SAFETY: `cubin` is a complete CUBIN image from NVRTC (or the
        // cache NVRTC filled), alive for the call; the driver copies it.
        let module =
            unsafe { result::module::load_data(cubin.as_ptr().cast()) }.map_err(describe)?;
        let mut m = GpuModule {
            ctx: ctx.clone(),
            module,
            functions: HashMap::new(),
        };
        m.set_pointer("granule_error_at", record)?;
        m.set_pointer("granule_failed_at", failed)?;
        for entry in entries {
            let f = m
                .function(entry)
                .map_err(|e| format!("entry `{entry}`: {e}"))?;
            m.functions.insert(entry.clone(), f);
        }
        Ok(m)
    }

    /// The global `name`: its device address and size.
    fn global(&self, name: &str) -> Result<(u64, usize), String> {
        let c = CString::new(name).map_err(|_| format!("`{name}` has a NUL byte"))?;
        // SAFETY: `module` is loaded and not unloaded before `self` drops.
        unsafe { result::module::get_global(self.module, c) }
            .map_err(|e| format!("no global `{name}`: {}", describe(e)))
    }

    /// Stores the device address `value` in the module's pointer `name`.
    fn set_pointer(&self, name: &str, value: u64) -> Result<(), String> {
        let (at, bytes) = self.global(name)?;
        if bytes != 8 {
            return Err(format!("`{name}` has {bytes} bytes, not 8"));
        }
        // SAFETY: `at` is the module's 8-byte global (checked above) in the
        // current context; the copy is synchronous and reads the 8 bytes
        // of `value`, alive for the call.
        unsafe { sys::cuMemcpyHtoD_v2(at, (&raw const value).cast::<c_void>(), 8) }
            .result()
            .map_err(|e| format!("setting `{name}`: {}", describe(e)))
    }

    fn function(&self, entry: &str) -> Result<GpuFunction, String> {
        let name = CString::new(entry).map_err(|_| "the name has a NUL byte".to_string())?;
        // SAFETY: `module` is loaded and not unloaded before `self` drops.
        let f = unsafe { result::module::get_function(self.module, name) }.map_err(describe)?;
        let attr = |a| {
            // SAFETY: `f` is a function of the loaded module.
            unsafe { result::function::get_function_attribute(f, a) }
                .map(|v| v.max(0) as u32)
                .map_err(|e: DriverError| describe(e))
        };
        Ok(GpuFunction {
            f,
            params: self.param_table(entry)?,
            static_smem: attr(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            dynamic_smem: AtomicU32::new(attr(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            )?),
        })
    }

    /// The entry's `granule::ParamTable`, copied from the device.
    fn param_table(&self, entry: &str) -> Result<Vec<usize>, String> {
        let (at, bytes) = self.global(&params_symbol(entry))?;
        let mut words = vec![0u64; bytes / 8];
        if !words.is_empty() {
            // SAFETY: `at` is a global of `bytes` bytes of the current
            // context; `words` has room for `bytes / 8 * 8` of them and
            // any bytes are valid u64s; the copy is synchronous.
            unsafe { sys::cuMemcpyDtoH_v2(words.as_mut_ptr().cast(), at, words.len() * 8) }
                .result()
                .map_err(|e| format!("reading its parameter table: {}", describe(e)))?;
        }
        param_sizes(&words).ok_or_else(|| {
            format!("its parameter table ({bytes} bytes: {words:?}) is not a count and sizes")
        })
    }
}

/// The sizes a `granule::ParamTable` lists: `words` is the count, then at
/// least `max(count, 1)` sizes.
fn param_sizes(words: &[u64]) -> Option<Vec<usize>> {
    let (&count, sizes) = words.split_first()?;
    let count = usize::try_from(count).ok()?;
    if sizes.len() < count.max(1) {
        return None;
    }
    sizes[..count]
        .iter()
        .map(|&s| usize::try_from(s).ok())
        .collect()
}

impl GpuFunction {
    /// Makes the function accept `dynamic` bytes of dynamic shared memory
    /// on a device allowing `optin` bytes per block, raising its limit
    /// once if needed; `Err` is why the launch cannot run.
    pub(super) fn fit_shared_memory(&self, dynamic: u32, optin: u32) -> Result<(), String> {
        let allowed = self.dynamic_smem.load(Ordering::Relaxed);
        let Some(raise) = shared_memory_plan(self.static_smem, dynamic, optin, allowed)? else {
            return Ok(());
        };
        // SAFETY: `f` is a function of a loaded module of the current
        // context; `raise` is at most the opt-in maximum minus the
        // function's static shared memory, which the driver accepts.
        unsafe {
            result::function::set_function_attribute(
                self.f,
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                raise as i32,
            )
        }
        .map_err(|e| {
            format!(
                "raising the entry's dynamic shared memory limit to {raise} bytes failed: {}",
                describe(e)
            )
        })?;
        self.dynamic_smem.store(raise, Ordering::Relaxed);
        Ok(())
    }
}

/// How a launch with `dynamic` bytes of dynamic shared memory fits an
/// entry with `static_bytes` of static shared memory that accepts
/// `allowed` dynamic bytes now, on a device allowing `optin` bytes per
/// block: `Ok(None)` as it is, `Ok(Some(limit))` once the entry's limit
/// is raised to `limit` (all the opt-in leaves it), or the reason it can
/// never run.
pub(super) fn shared_memory_plan(
    static_bytes: u32,
    dynamic: u32,
    optin: u32,
    allowed: u32,
) -> Result<Option<u32>, String> {
    let total = u64::from(static_bytes) + u64::from(dynamic);
    if total > u64::from(optin) {
        return Err(format!(
            "the entry's {static_bytes} bytes of static shared memory (its __shared__ \
             variables) and the launch's {dynamic} bytes of dynamic shared memory make \
             {total} bytes, above the device's {optin} bytes per block"
        ));
    }
    if dynamic <= allowed {
        return Ok(None);
    }
    Ok(Some(optin - static_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    const H100: u32 = 232_448;
    /// The dynamic shared memory a function accepts before it opts in.
    const DEFAULT_DYNAMIC_SMEM: u32 = 48 * 1024;

    #[test]
    fn small_launches_need_nothing() {
        assert_eq!(
            shared_memory_plan(0, 0, H100, DEFAULT_DYNAMIC_SMEM),
            Ok(None)
        );
        assert_eq!(
            shared_memory_plan(1024, DEFAULT_DYNAMIC_SMEM, H100, DEFAULT_DYNAMIC_SMEM),
            Ok(None)
        );
    }

    #[test]
    fn big_launches_raise_the_limit_to_all_the_opt_in_leaves() {
        assert_eq!(
            shared_memory_plan(256, DEFAULT_DYNAMIC_SMEM + 1, H100, DEFAULT_DYNAMIC_SMEM),
            Ok(Some(H100 - 256))
        );
        // Exactly the opt-in, static included, fits.
        assert_eq!(
            shared_memory_plan(256, H100 - 256, H100, DEFAULT_DYNAMIC_SMEM),
            Ok(Some(H100 - 256))
        );
        // Once raised, nothing more to do.
        assert_eq!(
            shared_memory_plan(256, H100 - 256, H100, H100 - 256),
            Ok(None)
        );
    }

    #[test]
    fn static_plus_dynamic_above_the_opt_in_is_refused() {
        let e = shared_memory_plan(512, H100 - 511, H100, DEFAULT_DYNAMIC_SMEM).unwrap_err();
        assert!(e.contains("512 bytes of static shared memory"), "{e}");
        assert!(e.contains("232449 bytes, above the device's 232448"), "{e}");
        assert!(shared_memory_plan(u32::MAX, u32::MAX, H100, 0).is_err());
    }

    #[test]
    fn parameter_tables_are_a_count_then_sizes() {
        assert_eq!(param_sizes(&[2, 8, 32]), Some(vec![8, 32]));
        // No parameters: one unused slot follows the count.
        assert_eq!(param_sizes(&[0, 0]), Some(vec![]));
        assert_eq!(param_sizes(&[3, 8, 8]), None);
        assert_eq!(param_sizes(&[0]), None);
        assert_eq!(param_sizes(&[]), None);
    }
}
