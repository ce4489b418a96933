//! Profiling hooks: callbacks at the beginning and end of every dispatch
//! (label, kind, space), at region push/pop and around the copies
//! containers make between memory spaces, plus a built-in kernel timer.
//!
//! With no hooks registered, a dispatch pays one relaxed atomic load.
//!
//! ```
//! use granule_core::prelude::*;
//! use granule_core::profiling::{self, KernelInfo, ProfilingHooks};
//! use std::sync::{Arc, Mutex};
//!
//! #[derive(Default)]
//! struct Log(Mutex<Vec<String>>);
//! impl ProfilingHooks for Log {
//!     fn begin_kernel(&self, k: &KernelInfo<'_>) {
//!         self.0.lock().unwrap().push(format!("{} {} {}", k.kind, k.space, k.label));
//!     }
//!     fn push_region(&self, name: &str) { self.0.lock().unwrap().push(format!("push {name}")); }
//! }
//! let log = Arc::new(Log::default());
//! let id = profiling::register(log.clone());
//! profiling::push_region("setup");
//! parallel_for("init", RangePolicy::new(&Serial, 0..2), (), |_, ()| {});
//! profiling::pop_region();
//! profiling::unregister(id);
//! let seen = log.0.lock().unwrap().clone();
//! assert!(seen.contains(&"push setup".to_string()));
//! assert!(seen.contains(&"parallel_for Serial init".to_string()));
//! ```

mod timer;

pub use timer::{
    kernel_timer_report, KernelRecord, KernelTimer, KERNEL_TIMER_ENV, KERNEL_TIMER_JSON_ENV,
};

use parking_lot::{RwLock, RwLockReadGuard};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

/// Which pattern a dispatch runs (serialized as its [`Display`](fmt::Display)
/// name, `"parallel_for"`, ..).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum KernelKind {
    /// `parallel_for`.
    #[cfg_attr(feature = "serde", serde(rename = "parallel_for"))]
    For,
    /// `parallel_reduce`.
    #[cfg_attr(feature = "serde", serde(rename = "parallel_reduce"))]
    Reduce,
    /// `parallel_scan`.
    #[cfg_attr(feature = "serde", serde(rename = "parallel_scan"))]
    Scan,
}

impl fmt::Display for KernelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KernelKind::For => "parallel_for",
            KernelKind::Reduce => "parallel_reduce",
            KernelKind::Scan => "parallel_scan",
        })
    }
}

/// What hooks learn about a dispatch.
#[derive(Clone, Copy, Debug)]
pub struct KernelInfo<'a> {
    /// The label given to the pattern.
    pub label: &'a str,
    /// The pattern.
    pub kind: KernelKind,
    /// The execution space's name.
    pub space: &'static str,
    /// The policy kind: `"Range"`, `"MDRange"` or `"Team"`, or `"Driver"`
    /// for a device driver of a crate above (granule-algorithms on Cuda).
    pub policy: &'static str,
    /// A number unique to this dispatch in the process.
    pub id: u64,
}

/// Callbacks of a profiling tool. Every method does nothing by default.
pub trait ProfilingHooks: Send + Sync {
    /// Before a dispatch starts.
    fn begin_kernel(&self, _info: &KernelInfo<'_>) {}
    /// After a dispatch ended, with its wall time.
    fn end_kernel(&self, _info: &KernelInfo<'_>, _elapsed: Duration) {}
    /// [`push_region`] was called.
    fn push_region(&self, _name: &str) {}
    /// [`pop_region`] was called; `name` is the region being closed.
    fn pop_region(&self, _name: &str) {}
    /// Before a copy between Views that granule reports (Kokkos's
    /// `begin_deep_copy`): the copies a container makes to keep its sides
    /// in sync, such as a DualView's `sync_host`/`sync_device`.
    fn begin_deep_copy(&self, _info: &DeepCopyInfo<'_>) {}
    /// After a reported copy ended, with its wall time.
    fn end_deep_copy(&self, _info: &DeepCopyInfo<'_>, _elapsed: Duration) {}
}

/// What hooks learn about a copy between Views (see
/// [`ProfilingHooks::begin_deep_copy`]).
#[derive(Clone, Copy, Debug)]
pub struct DeepCopyInfo<'a> {
    /// The destination View's label.
    pub dst_label: &'a str,
    /// The destination's memory space (`"Host"`, `"Cuda"`).
    pub dst_space: &'static str,
    /// The source View's label.
    pub src_label: &'a str,
    /// The source's memory space.
    pub src_space: &'static str,
    /// How many bytes the copy moves.
    pub bytes: usize,
    /// A number unique to this copy in the process.
    pub id: u64,
}

/// Marks a running copy; its drop reports the end to the hooks. Made by
/// [`begin_deep_copy`].
#[must_use]
pub struct DeepCopyGuard<'a> {
    info: Option<(DeepCopyInfo<'a>, Instant)>,
}

/// Reports the start of a copy from `src` to `dst` (labels and memory
/// space names) of `bytes` bytes to the hooks; keep the guard alive until
/// the copy ends. Costs one relaxed atomic load when no hooks are
/// registered.
///
/// ```
/// use granule_core::profiling::{self, DeepCopyInfo, ProfilingHooks};
/// use std::sync::{Arc, Mutex};
///
/// #[derive(Default)]
/// struct Copies(Mutex<Vec<String>>);
/// impl ProfilingHooks for Copies {
///     fn begin_deep_copy(&self, c: &DeepCopyInfo<'_>) {
///         let line = format!("{}:{} <- {}:{} {}B", c.dst_space, c.dst_label, c.src_space, c.src_label, c.bytes);
///         self.0.lock().unwrap().push(line);
///     }
/// }
/// let copies = Arc::new(Copies::default());
/// let id = profiling::register(copies.clone());
/// drop(profiling::begin_deep_copy(("x_mirror", "Host"), ("x", "Cuda"), 64));
/// profiling::unregister(id);
/// assert!(copies.0.lock().unwrap().contains(&"Host:x_mirror <- Cuda:x 64B".to_string()));
/// ```
#[inline]
pub fn begin_deep_copy<'a>(
    dst: (&'a str, &'static str),
    src: (&'a str, &'static str),
    bytes: usize,
) -> DeepCopyGuard<'a> {
    if !ACTIVE.load(Ordering::Acquire) {
        return DeepCopyGuard { info: None };
    }
    let info = DeepCopyInfo {
        dst_label: dst.0,
        dst_space: dst.1,
        src_label: src.0,
        src_space: src.1,
        bytes,
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
    };
    for (_, h) in hooks().iter() {
        h.begin_deep_copy(&info);
    }
    DeepCopyGuard {
        info: Some((info, Instant::now())),
    }
}

impl Drop for DeepCopyGuard<'_> {
    fn drop(&mut self) {
        if let Some((info, start)) = self.info.take() {
            let elapsed = start.elapsed();
            for (_, h) in hooks().iter() {
                h.end_deep_copy(&info, elapsed);
            }
        }
    }
}

/// Identifies registered hooks, for [`unregister`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookId(u64);

type HookList = Vec<(u64, Arc<dyn ProfilingHooks>)>;

static HOOKS: RwLock<HookList> = RwLock::new(Vec::new());
static ACTIVE: AtomicBool = AtomicBool::new(false);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static TIMER_FROM_ENV: Once = Once::new();

thread_local! {
    static REGIONS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn hooks() -> RwLockReadGuard<'static, HookList> {
    HOOKS.read()
}

/// Registers hooks; they see every later dispatch and region, on every
/// thread.
pub fn register(hooks: Arc<dyn ProfilingHooks>) -> HookId {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let mut list = HOOKS.write();
    list.push((id, hooks));
    ACTIVE.store(true, Ordering::Release);
    HookId(id)
}

/// Removes hooks registered with [`register`]; returns whether they were there.
pub fn unregister(id: HookId) -> bool {
    let mut list = HOOKS.write();
    let before = list.len();
    list.retain(|(i, _)| *i != id.0);
    ACTIVE.store(!list.is_empty(), Ordering::Release);
    list.len() != before
}

/// Opens a named region (Kokkos `pushRegion`), on this thread.
pub fn push_region(name: &str) {
    REGIONS.with(|r| r.borrow_mut().push(name.to_owned()));
    if ACTIVE.load(Ordering::Acquire) {
        for (_, h) in hooks().iter() {
            h.push_region(name);
        }
    }
}

/// Closes the innermost region opened on this thread; returns its name,
/// or `None` when no region is open.
pub fn pop_region() -> Option<String> {
    let name = REGIONS.with(|r| r.borrow_mut().pop())?;
    if ACTIVE.load(Ordering::Acquire) {
        for (_, h) in hooks().iter() {
            h.pop_region(&name);
        }
    }
    Some(name)
}

/// Marks a running dispatch; its drop reports the end to the hooks.
/// Patterns create one per call with [`begin_kernel`].
#[must_use]
pub struct KernelGuard<'a> {
    info: Option<(KernelInfo<'a>, Instant)>,
}

/// Reports the start of a dispatch to the hooks (and turns the kernel
/// timer on the first time if [`KERNEL_TIMER_ENV`] asks for it).
#[inline]
pub fn begin_kernel<'a>(
    label: &'a str,
    kind: KernelKind,
    space: &'static str,
    policy: &'static str,
) -> KernelGuard<'a> {
    TIMER_FROM_ENV.call_once(timer::install_from_env);
    if !ACTIVE.load(Ordering::Acquire) {
        return KernelGuard { info: None };
    }
    begin_slow(label, kind, space, policy)
}

#[cold]
fn begin_slow<'a>(
    label: &'a str,
    kind: KernelKind,
    space: &'static str,
    policy: &'static str,
) -> KernelGuard<'a> {
    let info = KernelInfo {
        label,
        kind,
        space,
        policy,
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
    };
    for (_, h) in hooks().iter() {
        h.begin_kernel(&info);
    }
    KernelGuard {
        info: Some((info, Instant::now())),
    }
}

impl Drop for KernelGuard<'_> {
    fn drop(&mut self) {
        if let Some((info, start)) = self.info.take() {
            let elapsed = start.elapsed();
            for (_, h) in hooks().iter() {
                h.end_kernel(&info, elapsed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Rec(Mutex<Vec<String>>);
    impl ProfilingHooks for Rec {
        fn begin_kernel(&self, i: &KernelInfo<'_>) {
            self.0.lock().unwrap().push(format!(
                "begin {} {} {} {}",
                i.label, i.kind, i.space, i.policy
            ));
        }
        fn end_kernel(&self, i: &KernelInfo<'_>, _e: Duration) {
            self.0.lock().unwrap().push(format!("end {}", i.label));
        }
        fn pop_region(&self, name: &str) {
            self.0.lock().unwrap().push(format!("pop {name}"));
        }
    }

    #[test]
    fn hooks_see_begin_end_and_regions() {
        let rec = Arc::new(Rec::default());
        let id = register(rec.clone());
        {
            let _g = begin_kernel("k-unit-test", KernelKind::Scan, "Serial", "Range");
        }
        push_region("r-unit-test");
        assert_eq!(pop_region().as_deref(), Some("r-unit-test"));
        assert!(unregister(id));
        assert!(!unregister(id));
        let log = rec.0.lock().unwrap();
        let mine: Vec<_> = log
            .iter()
            .filter(|l| l.contains("unit-test"))
            .cloned()
            .collect();
        assert_eq!(
            mine,
            [
                "begin k-unit-test parallel_scan Serial Range",
                "end k-unit-test",
                "pop r-unit-test"
            ]
        );
    }
}
