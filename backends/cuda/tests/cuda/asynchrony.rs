//! Asynchronous dispatch: dispatches are queued on the device's stream
//! and return; the host waits only at synchronization points (a fence, a
//! reduction or scan result, a copy between host and device), and a
//! kernel's failure is reported at the next one, naming its dispatch.
//!
//! The emulator runs each launch when it is issued but counts the waits a
//! GPU would make (`EmuStats::synchronizations`) and holds a failure until
//! the next synchronization, as a GPU does: the counting tests use an
//! emulator of their own; the timing of reports is checked on the space
//! `GRANULE_CUDA` names (the emulator, or a GPU on the GPU machine).

use granule_core::kernel::kernel;
use granule_core::prelude::*;
use granule_cuda::codegen::{Instance, Pattern, TranslationUnit};
use granule_cuda::device_api::{
    Device, DeviceBuffer, DeviceError, DeviceLimits, Fault, KernelArgs, LaunchConfig, LaunchId,
    Launches, Module,
};
use granule_cuda::emu::{EmuDevice, EmuStats};
use granule_cuda::kernel::KernelSource;
use granule_cuda::space::MAX_IN_FLIGHT;
use granule_cuda::{Cuda, CudaSelection, CudaSpace};
use granule_views::{create_mirror_view_and_copy, deep_copy, LayoutRight};
use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex};

type DView1<T> = View1<T, LayoutRight, CudaSpace>;

#[kernel(crate = granule_core)]
fn add_one(_i: usize, y: &mut i64) {
    *y += 1;
}

#[kernel(crate = granule_core)]
fn set_to(_i: usize, y: &mut i64, v: i64) {
    *y = v;
}

#[kernel(crate = granule_core)]
fn past_the_end(i: usize, y: &mut f64, x: &View1<f64>) {
    *y = x[i + 1];
}

#[kernel(crate = granule_core, reduce)]
fn sum_i64(i: usize, x: &View1<i64>, acc: &mut i64) {
    *acc += x[i];
}

#[kernel(crate = granule_core, scan)]
fn inclusive(i: usize, x: &View1<i64>, out: &mut i64, p: &mut i64, last: bool) {
    *p += x[i];
    if last {
        *out = *p;
    }
}

/// Team `l` fills row `l` through level-1 team scratch (a workspace the
/// space allocates per dispatch): the team's threads write the scratch,
/// then thread 0, which owns the team's row, copies it out.
#[kernel(crate = granule_core)]
fn row_through_scratch(m: &TeamMember, n: usize, mut row: TeamChunk<u32>) {
    let l = m.league_rank();
    let mut s = m.team_scratch::<u32, 1>(1, n).unwrap();
    TeamThreadRange::new(m, 0..n).parallel_for(|j| s[j] = (l * 100 + j) as u32);
    m.team_barrier();
    if m.team_rank() == 0 {
        let mut mine = row
            .chunk_mut(MapContinuousLinear::new(n), m.thread_ids())
            .unwrap();
        for j in 0..n {
            mine[j] = s[j];
        }
    }
}

/// A space over an emulator of its own, whose waits the test counts.
fn counted() -> (Cuda, Arc<EmuDevice>) {
    let emu = Arc::new(EmuDevice::new().unwrap());
    (Cuda::with_device(emu.clone()), emu)
}

/// The space `GRANULE_CUDA` names (the emulator here), of its own: a
/// failure reported at its synchronization points is this test's.
fn own_space() -> Cuda {
    Cuda::from_env_or(CudaSelection::Emulator).unwrap_or_else(|e| panic!("{e}"))
}

fn zeros<T: granule_views::Element>(s: &Cuda, label: &str, n: usize) -> DView1<T> {
    DView1::<T>::zeros_in(s.memory_space(), label, n).unwrap()
}

fn upload<T: granule_views::Element>(s: &Cuda, label: &str, v: Vec<T>) -> DView1<T> {
    let host = View1::<T>::from_vec(label, v.len(), v).unwrap();
    let mut d = zeros(s, label, host.extent(0));
    deep_copy(&mut d, &host).unwrap();
    d
}

fn download<T: granule_views::Element>(v: &DView1<T>) -> Vec<T> {
    create_mirror_view_and_copy(v).unwrap().as_view().to_vec()
}

/// The message of the panic `f` ends with.
fn panic_message(f: impl FnOnce()) -> String {
    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err("it panics");
    p.downcast_ref::<String>().cloned().unwrap_or_default()
}

/// A failing dispatch ("oob": its kernel reads past View "short") on `s`.
fn dispatch_a_fault(s: &Cuda, y: &mut DView1<f64>, x: &DView1<f64>) {
    parallel_for("oob", RangePolicy::new(s, 0..4), y, past_the_end(x));
}

// ------------------------------------------------- how often the host waits

#[test]
fn a_chain_of_100_dispatches_then_a_fence_waits_once() {
    let (s, emu) = counted();
    let n = 1000;
    let mut y = zeros::<i64>(&s, "y", n);
    emu.take_stats();
    for _ in 0..100 {
        parallel_for("add", RangePolicy::new(&s, 0..n), &mut y, add_one());
    }
    assert_eq!(
        emu.stats().synchronizations,
        0,
        "the dispatches did not wait"
    );
    s.fence();
    let st = emu.take_stats();
    assert_eq!((st.launches, st.synchronizations), (100, 1));
    // Nothing is in flight after the fence: the copy waits only for itself.
    assert!(download(&y).iter().all(|&v| v == 100));
    assert_eq!(emu.take_stats().synchronizations, 1);
}

#[test]
fn a_copy_to_the_host_waits_for_the_dispatches_before_it() {
    let (s, emu) = counted();
    let n = 300;
    let mut y = zeros::<i64>(&s, "y", n);
    emu.take_stats();
    parallel_for("seven", RangePolicy::new(&s, 0..n), &mut y, set_to(7));
    parallel_for("add", RangePolicy::new(&s, 0..n), &mut y, add_one());
    // One wait covers both kernels and the copy.
    assert_eq!(download(&y), vec![8; n]);
    assert_eq!(emu.take_stats().synchronizations, 1);
    // A copy from the host is ordered after the kernels before it, and
    // the kernels after it see what it wrote.
    parallel_for("seven", RangePolicy::new(&s, 0..n), &mut y, set_to(7));
    let host = View1::<i64>::from_fn("host", n, |i| i as i64).unwrap();
    deep_copy(&mut y, &host).unwrap();
    parallel_for("add", RangePolicy::new(&s, 0..n), &mut y, add_one());
    assert_eq!(download(&y), (1..=n as i64).collect::<Vec<_>>());
}

#[test]
fn reductions_and_scans_wait_once_for_their_result() {
    let (s, emu) = counted();
    let n = 5000;
    let x = upload(&s, "x", (0..n as i64).collect());
    let mut out = zeros::<i64>(&s, "out", n);
    emu.take_stats();
    let sum: i64 = parallel_reduce("sum", RangePolicy::new(&s, 0..n), Sum, sum_i64(&x));
    assert_eq!(sum, (n as i64) * (n as i64 - 1) / 2);
    assert_eq!(emu.take_stats().synchronizations, 1);
    let total = parallel_scan("scan", RangePolicy::new(&s, 0..n), &mut out, inclusive(&x));
    assert_eq!(total, sum);
    assert_eq!(emu.take_stats().synchronizations, 1);
}

/// A team dispatch with level-1 scratch gives its workspace back to the
/// space's cache as soon as it is queued: the next dispatch gets the same
/// memory, zeroed behind the kernel, without an allocation or a wait.
#[test]
fn team_scratch_is_reused_by_the_next_dispatch_without_waiting() {
    let (s, emu) = counted();
    let (league, n) = (6usize, 40usize);
    let mut out = zeros::<u32>(&s, "out", league * n);
    let policy = || {
        TeamPolicy::new(&s, league, 32)
            .with_scratch_size(1, PerTeam(n * 4))
            .unwrap()
    };
    emu.take_stats();
    for _ in 0..3 {
        parallel_for(
            "rows",
            policy(),
            out.chunked(MapContinuousLinear::new(n)),
            row_through_scratch(n),
        );
    }
    let st = emu.stats();
    assert_eq!(st.synchronizations, 0);
    assert_eq!(
        st.allocations, 1,
        "one scratch buffer for the three dispatches"
    );
    s.fence();
    assert_eq!(emu.take_stats().synchronizations, 1);
    let got = download(&out);
    for l in 0..league {
        for j in 0..n {
            assert_eq!(got[l * n + j], (l * 100 + j) as u32, "out[{l}, {j}]");
        }
    }
}

/// Dropping a View waits for nothing: its memory goes to the space's
/// cache, and the next View of its size gets it, zeroed behind the kernel
/// that wrote it. Another size is a new allocation.
#[test]
fn a_dropped_views_memory_goes_to_the_next_view_of_its_size() {
    let (s, emu) = counted();
    let x = upload(&s, "x", vec![1i64; 64]);
    let mut y = zeros::<i64>(&s, "y", 64);
    let address = y.as_ptr().addr();
    emu.take_stats();
    parallel_for("add", RangePolicy::new(&s, 0..64), &mut y, add_one());
    drop(y);
    assert_eq!(s.memory_space().cached_bytes(), 64 * 8);
    let z = zeros::<i64>(&s, "z", 64);
    let st = emu.take_stats();
    assert_eq!((st.synchronizations, st.allocations), (0, 0), "{st:?}");
    assert_eq!(z.as_ptr().addr(), address, "y's memory");
    assert_eq!(
        download(&z),
        vec![0; 64],
        "zeroed after the kernel wrote it"
    );
    let w = zeros::<i64>(&s, "w", 65);
    assert_eq!(emu.take_stats().allocations, 1);
    drop((x, w));
    assert_eq!(s.memory_space().release_cached(), (64 + 65) * 8);
    assert_eq!(emu.take_stats().allocations, 0);
}

/// A loop of scans allocates its workspace on the device once, and a
/// release of the cache makes the next one allocate again.
#[test]
fn a_loop_of_scans_allocates_its_workspace_once() {
    let (s, emu) = counted();
    let n = 5000;
    let x = upload(&s, "x", vec![1i64; n]);
    let mut out = zeros::<i64>(&s, "out", n);
    let scan = |out: &mut DView1<i64>| {
        parallel_scan("scan", RangePolicy::new(&s, 0..n), out, inclusive(&x))
    };
    scan(&mut out);
    assert!(emu.take_stats().allocations > 0);
    for _ in 0..3 {
        assert_eq!(scan(&mut out), n as i64);
    }
    assert_eq!(emu.take_stats().allocations, 0);
    assert!(s.memory_space().release_cached() > 0);
    scan(&mut out);
    assert!(emu.take_stats().allocations > 0);
}

/// Both devices: memory handed out again while a failure is pending (not
/// yet reported) still comes back zeroed, and reads as zeros once the
/// report is taken and the space runs again.
#[test]
fn reused_memory_is_zeroed_even_behind_a_failed_dispatch() {
    let s = own_space();
    let x = upload(&s, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&s, "y", 4);
    let ones = upload(&s, "ones", vec![1.0f64; 64]);
    dispatch_a_fault(&s, &mut y, &x);
    drop(ones);
    let z = zeros::<f64>(&s, "z", 64);
    let e = s.try_fence().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Dispatch { label, .. } if label == "oob"),
        "{e}"
    );
    assert_eq!(download(&z), vec![0.0; 64], "z reuses ones' memory, zeroed");
}

/// Both devices: memory handed from a dropped View to a new one reads as
/// zeros, though kernels were still writing the old View when it was
/// dropped (on a GPU the zeroing is queued behind them on the stream).
#[test]
fn reused_memory_is_zeroed_behind_the_kernels_that_wrote_it() {
    let s = own_space();
    let n = 1 << 20;
    for round in 0..3i64 {
        let mut y = zeros::<i64>(&s, "y", n);
        for k in 0..4 {
            parallel_for(
                "set",
                RangePolicy::new(&s, 0..n),
                &mut y,
                set_to(round * 10 + k + 1),
            );
        }
        drop(y);
        let z = zeros::<i64>(&s, "z", n);
        let got = download(&z);
        let bad = got.iter().position(|&v| v != 0);
        assert_eq!(
            bad,
            None,
            "round {round}: z[{bad:?}] = {:?}",
            bad.map(|i| got[i])
        );
    }
}

#[test]
fn a_full_queue_makes_the_next_dispatch_wait() {
    let (s, emu) = counted();
    let mut y = zeros::<i64>(&s, "y", 1);
    emu.take_stats();
    for _ in 0..MAX_IN_FLIGHT {
        parallel_for("add", RangePolicy::new(&s, 0..1), &mut y, add_one());
    }
    assert_eq!(emu.stats().synchronizations, 0);
    parallel_for("add", RangePolicy::new(&s, 0..1), &mut y, add_one());
    assert_eq!(emu.take_stats().synchronizations, 1);
    assert_eq!(download(&y), vec![MAX_IN_FLIGHT as i64 + 1]);
}

// ----------------------------------------------- when a failure is reported

/// Both devices: the dispatch returns, the next synchronization point
/// reports the fault with the dispatch's label, kernel and Views, once.
#[test]
fn a_fault_is_reported_at_the_next_synchronization_naming_its_dispatch() {
    let s = own_space();
    let x = upload(&s, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&s, "y", 4);
    dispatch_a_fault(&s, &mut y, &x);
    let e = s.try_fence().unwrap_err();
    let DeviceError::Dispatch {
        label,
        kernel,
        views,
        ..
    } = &e
    else {
        panic!("{e:?}");
    };
    assert_eq!(
        (label.as_str(), kernel.as_str()),
        ("oob", "kernel `past_the_end`")
    );
    assert_eq!(views, &["y", "short"]);
    assert!(
        matches!(
            e.cause(),
            DeviceError::Fault {
                fault: Fault::OutOfBounds {
                    view: 2,
                    index: 4,
                    ..
                },
                ..
            }
        ),
        "{e}"
    );
    let text = e.to_string();
    assert!(text.contains("2 = \"short\""), "{text}");
    // Reported once; the device goes on (a GPU too: the failing thread
    // stopped without a trap, so the context is intact).
    s.try_fence().unwrap();
}

#[test]
fn fence_panics_with_the_report() {
    let s = own_space();
    let x = upload(&s, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&s, "y", 4);
    dispatch_a_fault(&s, &mut y, &x);
    let msg = panic_message(|| s.fence());
    assert!(msg.starts_with("Cuda::fence on the "), "{msg}");
    assert!(
        msg.contains("parallel dispatch \"oob\" of kernel `past_the_end`")
            && msg.contains("out of bounds")
            && msg.contains("\"short\""),
        "{msg}"
    );
}

#[test]
fn a_reduction_reports_the_failure_of_a_dispatch_before_it() {
    let s = own_space();
    let x = upload(&s, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&s, "y", 4);
    let ones = upload(&s, "ones", vec![1i64; 8]);
    dispatch_a_fault(&s, &mut y, &x);
    let msg = panic_message(|| {
        let _: i64 = parallel_reduce("sum", RangePolicy::new(&s, 0..8), Sum, sum_i64(&ones));
    });
    assert!(
        msg.contains("parallel dispatch \"oob\"") && msg.contains("out of bounds"),
        "{msg}"
    );
    assert!(msg.contains("[reported at the result of \"sum\"]"), "{msg}");
    assert!(
        msg.contains("the 1 launch issued after it did not run"),
        "{msg}"
    );
}

#[test]
fn a_copy_to_the_host_reports_the_failure() {
    let s = own_space();
    let x = upload(&s, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&s, "y", 4);
    dispatch_a_fault(&s, &mut y, &x);
    let msg = panic_message(|| {
        let _ = create_mirror_view_and_copy(&y);
    });
    assert!(
        msg.contains("parallel dispatch \"oob\"")
            && msg.contains("[reported at a copy between host and device]"),
        "{msg}"
    );
}

#[test]
fn dropping_views_after_a_failure_leaves_the_report_to_the_next_point() {
    let s = own_space();
    let x = upload(&s, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&s, "y", 4);
    dispatch_a_fault(&s, &mut y, &x);
    // A drop cannot report: it keeps the failure (and the memory goes to
    // the space's cache).
    drop(y);
    drop(x);
    let e = s.try_fence().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Dispatch { label, .. } if label == "oob"),
        "{e}"
    );
}

/// Emulator: what is queued after a failed dispatch does not run, as a
/// GPU's context refuses it; after the report the space runs again.
#[test]
fn dispatches_after_a_failed_one_do_not_run() {
    let (s, emu) = counted();
    let x = upload(&s, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&s, "y", 4);
    let mut z = zeros::<i64>(&s, "z", 4);
    emu.take_stats();
    dispatch_a_fault(&s, &mut y, &x);
    parallel_for("skipped", RangePolicy::new(&s, 0..4), &mut z, set_to(5));
    parallel_for("skipped", RangePolicy::new(&s, 0..4), &mut z, add_one());
    let e = s.try_fence().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Dispatch { label, skipped: 2, .. } if label == "oob"),
        "{e}"
    );
    assert_eq!(emu.take_stats().launches, 1, "only the failed one ran");
    assert_eq!(download(&z), vec![0; 4]);
    parallel_for("runs", RangePolicy::new(&s, 0..4), &mut z, set_to(5));
    assert_eq!(download(&z), vec![5; 4]);
}

// ------------------------------- several spaces over one device's failures

/// `s`'s two dispatches: "oob" reads past View "short" and fails; "skipped",
/// which would set `z` to 5s, is issued behind it and does not run.
fn fail_then_skip(s: &Cuda, y: &mut DView1<f64>, x: &DView1<f64>, z: &mut DView1<i64>) {
    dispatch_a_fault(s, y, x);
    parallel_for("skipped", RangePolicy::new(s, 0..4), z, set_to(5));
}

/// Another space over `s`'s device, which issues nothing.
fn bystander(s: &Cuda) -> Cuda {
    Cuda::with_device(s.device().clone())
}

fn assert_oob_with_one_skipped(e: &DeviceError) {
    assert!(
        matches!(e, DeviceError::Dispatch { label, skipped: 1, .. } if label == "oob"),
        "{e}"
    );
}

/// Both devices: dropping another space over the device synchronizes it,
/// but that space met no failure, so its drop takes none: the fence of the
/// space whose dispatches failed and were skipped still reports them.
#[test]
fn dropping_another_space_over_the_device_leaves_the_failure_to_this_one() {
    let s = own_space();
    let x = upload(&s, "short", vec![1.0; 4]);
    let (mut y, mut z) = (zeros::<f64>(&s, "y", 4), zeros::<i64>(&s, "z", 4));
    fail_then_skip(&s, &mut y, &x, &mut z);
    drop(bystander(&s));
    assert_oob_with_one_skipped(&s.try_fence().unwrap_err());
    s.try_fence().expect("reported once");
}

/// Both devices: after another space's drop, the copy of the skipped
/// dispatch's output is a synchronization point of `s`, and reports the
/// failure instead of handing back the zeros "skipped" never overwrote.
#[test]
fn a_copy_of_a_skipped_dispatchs_output_reports_the_failure_after_another_space_dropped() {
    let s = own_space();
    let x = upload(&s, "short", vec![1.0; 4]);
    let (mut y, mut z) = (zeros::<f64>(&s, "y", 4), zeros::<i64>(&s, "z", 4));
    fail_then_skip(&s, &mut y, &x, &mut z);
    drop(bystander(&s));
    let msg = panic_message(|| {
        let back = create_mirror_view_and_copy(&z);
        eprintln!("the copy returned {:?}", back.map(|m| m.as_view().to_vec()));
    });
    assert!(
        msg.contains("parallel dispatch \"oob\"")
            && msg.contains("the 1 launch issued after it did not run")
            && msg.contains("[reported at a copy between host and device]"),
        "{msg}"
    );
    s.try_fence().expect("reported once");
}

/// Both devices: another thread's fence on another space over the device
/// returns `Ok` (its space issued nothing), and `s`'s fence still reports
/// its failure; then `s` runs again.
#[test]
fn another_threads_fence_on_another_space_takes_nothing_from_this_one() {
    let s = own_space();
    let x = upload(&s, "short", vec![1.0; 4]);
    let (mut y, mut z) = (zeros::<f64>(&s, "y", 4), zeros::<i64>(&s, "z", 4));
    fail_then_skip(&s, &mut y, &x, &mut z);
    let other = bystander(&s);
    let theirs = std::thread::spawn(move || other.try_fence())
        .join()
        .expect("the other thread's fence returns");
    assert_eq!(theirs, Ok(()), "the failure met none of its dispatches");
    assert_oob_with_one_skipped(&s.try_fence().unwrap_err());
    assert_eq!(download(&z), vec![0; 4], "\"skipped\" did not run");
    parallel_for("runs", RangePolicy::new(&s, 0..4), &mut z, set_to(5));
    assert_eq!(download(&z), vec![5; 4]);
}

/// An emulator that runs `hook` once, right after the next launch returns:
/// to put another thread's synchronization between a dispatch's launch and
/// the read of its result, where a program's threads may put it.
#[derive(Debug)]
struct AfterLaunch {
    emu: EmuDevice,
    hook: Mutex<Option<Hook>>,
}

struct Hook(Box<dyn FnOnce() + Send>);

impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hook")
    }
}

impl AfterLaunch {
    fn new() -> Self {
        AfterLaunch {
            emu: EmuDevice::new().unwrap(),
            hook: Mutex::new(None),
        }
    }

    fn after_next_launch(&self, hook: impl FnOnce() + Send + 'static) {
        *self.hook.lock().unwrap() = Some(Hook(Box::new(hook)));
    }
}

// SAFETY: every method is the emulator's, which keeps the contract; the
// hook runs after a launch has returned and touches no device memory.
unsafe impl Device for AfterLaunch {
    fn name(&self) -> String {
        self.emu.name()
    }
    fn limits(&self) -> DeviceLimits {
        self.emu.limits()
    }
    fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer, DeviceError> {
        self.emu.alloc_zeroed(bytes)
    }
    fn free(&self, buffer: DeviceBuffer) -> Result<(), DeviceError> {
        self.emu.free(buffer)
    }
    fn copy_to_device(
        &self,
        dst: &mut DeviceBuffer,
        offset: usize,
        src: &[MaybeUninit<u8>],
    ) -> Result<(), DeviceError> {
        self.emu.copy_to_device(dst, offset, src)
    }
    fn copy_to_host(
        &self,
        dst: &mut [MaybeUninit<u8>],
        src: &DeviceBuffer,
        offset: usize,
    ) -> Result<(), DeviceError> {
        self.emu.copy_to_host(dst, src, offset)
    }
    fn copy_on_device(
        &self,
        dst: &mut DeviceBuffer,
        dst_offset: usize,
        src: &DeviceBuffer,
        src_offset: usize,
        bytes: usize,
    ) -> Result<(), DeviceError> {
        self.emu
            .copy_on_device(dst, dst_offset, src, src_offset, bytes)
    }
    fn zero(&self, buffer: &mut DeviceBuffer) -> Result<(), DeviceError> {
        self.emu.zero(buffer)
    }
    fn cache_bytes(&self) -> usize {
        self.emu.cache_bytes()
    }
    fn compile(&self, unit: &TranslationUnit, label: &str) -> Result<Module, DeviceError> {
        self.emu.compile(unit, label)
    }
    unsafe fn launch(
        &self,
        module: &Module,
        entry: &str,
        config: &LaunchConfig,
        args: &KernelArgs,
    ) -> Result<LaunchId, DeviceError> {
        // SAFETY: forwarded from the caller.
        let id = unsafe { self.emu.launch(module, entry, config, args) };
        let hook = self.hook.lock().unwrap().take();
        if let Some(Hook(hook)) = hook {
            hook();
        }
        id
    }
    fn synchronize_for(&self, launches: Launches<'_>) -> Result<(), DeviceError> {
        self.emu.synchronize_for(launches)
    }
}

/// A reduction issued behind a failed dispatch does not run; another
/// thread's fence on another space comes between its launch and the read
/// of its result, and takes nothing: the read reports the failure instead
/// of returning the zeroed result as the sum.
#[test]
fn a_reduction_skipped_behind_a_failure_reports_it_though_another_thread_fenced_first() {
    let dev = Arc::new(AfterLaunch::new());
    let s = Cuda::with_device(dev.clone());
    let x = upload(&s, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&s, "y", 4);
    let ones = upload(&s, "ones", vec![1i64; 8]);
    dispatch_a_fault(&s, &mut y, &x);
    let other = Cuda::with_device(dev.clone());
    let theirs = Arc::new(Mutex::new(None));
    let seen = theirs.clone();
    dev.after_next_launch(move || {
        let fenced = std::thread::spawn(move || other.try_fence()).join();
        *seen.lock().unwrap() = Some(fenced.expect("the other thread's fence returns"));
    });
    let msg = panic_message(|| {
        let sum: i64 = parallel_reduce("sum", RangePolicy::new(&s, 0..8), Sum, sum_i64(&ones));
        eprintln!("the reduction returned {sum}");
    });
    assert_eq!(*theirs.lock().unwrap(), Some(Ok(())), "the hook ran");
    assert!(
        msg.contains("parallel dispatch \"oob\"")
            && msg.contains("out of bounds")
            && msg.contains("[reported at the result of \"sum\"]"),
        "{msg}"
    );
    let sum: i64 = parallel_reduce("sum", RangePolicy::new(&s, 0..8), Sum, sum_i64(&ones));
    assert_eq!(sum, 8, "after the report the reduction runs");
}

/// Both devices: a space whose dispatch was issued behind another space's
/// failure, and so did not run, is told at its own fence, naming its
/// dispatch, after the failing space was told at its own; each once.
#[test]
fn a_space_whose_dispatch_was_skipped_behind_another_spaces_failure_is_told() {
    let a = own_space();
    let b = bystander(&a);
    let x = upload(&a, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&a, "y", 4);
    let mut z = upload(&b, "z", vec![7i64; 4]);
    dispatch_a_fault(&a, &mut y, &x);
    parallel_for("later", RangePolicy::new(&b, 0..4), &mut z, add_one());
    parallel_for("later", RangePolicy::new(&b, 0..4), &mut z, add_one());
    let e = a.try_fence().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Dispatch { label, skipped: 2, .. } if label == "oob"),
        "{e}"
    );
    a.try_fence().expect("reported once to a");
    let e = b.try_fence().unwrap_err();
    let DeviceError::Skipped {
        label,
        kernel,
        dispatches,
        error,
        ..
    } = &e
    else {
        panic!("{e:?}");
    };
    assert_eq!(
        (label.as_str(), kernel.as_str(), *dispatches),
        ("later", "kernel `add_one`", 2)
    );
    assert!(
        matches!(&**error, DeviceError::Queued { skipped: 2, .. }),
        "{error}"
    );
    let text = e.to_string();
    assert!(
        text.contains("parallel dispatch \"later\"")
            && text.contains("did not run, nor did the 1 dispatch of its space after it")
            && text.contains("(granule_for_past_the_end) failed"),
        "{text}"
    );
    assert!(
        matches!(
            e.cause(),
            DeviceError::Fault {
                fault: Fault::OutOfBounds { .. },
                ..
            }
        ),
        "{e}"
    );
    b.try_fence().expect("reported once to b");
    assert_eq!(download(&z), vec![7; 4], "neither \"later\" ran");
}

/// Both devices: a space whose dispatches all completed before another
/// space's failure is not told of it (though its fence is the device's
/// first synchronization since), nor is one whose dispatch ran after the
/// device resumed.
#[test]
fn a_space_whose_dispatches_completed_is_not_told_of_another_spaces_failure() {
    let a = own_space();
    let b = bystander(&a);
    let x = upload(&a, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&a, "y", 4);
    let mut z = upload(&b, "z", vec![7i64; 4]);
    parallel_for("before", RangePolicy::new(&b, 0..4), &mut z, add_one());
    dispatch_a_fault(&a, &mut y, &x);
    assert_eq!(
        b.try_fence(),
        Ok(()),
        "\"before\" completed before the failure"
    );
    parallel_for("after", RangePolicy::new(&b, 0..4), &mut z, add_one());
    let e = a.try_fence().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Dispatch { label, skipped: 0, .. } if label == "oob"),
        "{e}"
    );
    assert_eq!(
        b.try_fence(),
        Ok(()),
        "\"after\" ran once the device resumed"
    );
    assert_eq!(download(&z), vec![9; 4]);
}

/// Both devices: a dropped space's own unreported failure is printed by
/// its drop, and a failure that met another space too stays for it.
#[test]
fn a_dropped_space_answers_only_for_its_own_dispatches() {
    let a = own_space();
    let b = bystander(&a);
    let x = upload(&a, "short", vec![1.0; 4]);
    let mut y = zeros::<f64>(&a, "y", 4);
    let mut z = zeros::<i64>(&b, "z", 4);
    dispatch_a_fault(&a, &mut y, &x);
    parallel_for("later", RangePolicy::new(&b, 0..4), &mut z, set_to(5));
    drop((x, y));
    drop(a);
    let e = b.try_fence().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Skipped { label, .. } if label == "later"),
        "{e}"
    );
    assert_eq!(download(&z), vec![0; 4]);
}

// ------------------------------------------------------ the device itself

/// `set_to` compiled by `dev`.
fn set_to_module(dev: &EmuDevice) -> Module {
    let kernel = <set_to as KernelSource>::KERNEL;
    let unit = TranslationUnit::new(&[Instance::new(kernel, Pattern::For, &[])]).unwrap();
    dev.compile(&unit, "set_to").unwrap()
}

/// Launches `granule_for_set_to` over indices `0..end` of a View of the
/// 4 i64s of `y`: with `end` past 4, the kernel's bounds check fails.
fn launch_set_to(dev: &EmuDevice, module: &Module, y: &DeviceBuffer, end: u64, v: i64) -> LaunchId {
    let mut args = KernelArgs::new();
    args.scalar(0u64)
        .scalar(end)
        .view(y.address(), &[4], &[1], 1)
        .scalar(v);
    let config = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: the arguments are `granule_for_set_to`'s (begin, end, y, v);
    // `y` holds the 4 elements its View describes, and an index past them
    // fails the bounds check before any store.
    unsafe { dev.launch(module, "granule_for_set_to", &config, &args) }
        .expect("a launch that runs, or fails while it runs, is queued")
}

fn read_i64s(dev: &EmuDevice, y: &DeviceBuffer) -> Result<Vec<i64>, DeviceError> {
    let mut out = [0u8; 32];
    // SAFETY: `y` was zeroed, then written only by kernels.
    unsafe { dev.read_bytes(&mut out, y, 0) }?;
    Ok(out
        .chunks(8)
        .map(|c| i64::from_ne_bytes(c.try_into().unwrap()))
        .collect())
}

#[test]
fn a_device_holds_a_launch_failure_until_a_synchronization() {
    let dev = EmuDevice::new().unwrap();
    let module = set_to_module(&dev);
    let y = dev.alloc_zeroed(4 * 8).unwrap();
    let bad = launch_set_to(&dev, &module, &y, 5, 1);
    let after = launch_set_to(&dev, &module, &y, 4, 9);
    assert_eq!(after, LaunchId(bad.0 + 1));
    // A copy to the host waits and copies what the device holds, as a
    // GPU's does: the launch after the failed one did not run. Reporting
    // is a synchronization's.
    let got = read_i64s(&dev, &y).unwrap();
    assert!(!got.contains(&9), "{got:?}");
    let e = dev.synchronize().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Queued { launch, skipped: 1, .. } if *launch == bad),
        "{e}"
    );
    assert!(
        matches!(
            e.cause(),
            DeviceError::Fault {
                fault: Fault::OutOfBounds { index: 4, .. },
                ..
            }
        ),
        "{e}"
    );
    dev.synchronize().expect("reported once");
    launch_set_to(&dev, &module, &y, 4, 9);
    assert_eq!(read_i64s(&dev, &y).unwrap(), [9; 4]);
    dev.free(y).unwrap();
}

/// A synchronization names the launches its caller answers for: it is told
/// of a failure when one of them failed or was skipped behind it, once,
/// and the device forgets the failure when all of them were answered for.
#[test]
fn a_device_tells_each_caller_of_the_failure_its_launches_met() {
    let dev = EmuDevice::new().unwrap();
    let module = set_to_module(&dev);
    let y = dev.alloc_zeroed(4 * 8).unwrap();
    let done = launch_set_to(&dev, &module, &y, 4, 1);
    let bad = launch_set_to(&dev, &module, &y, 5, 2);
    let skipped = launch_set_to(&dev, &module, &y, 4, 3);
    assert_eq!(dev.synchronize_for(Launches::These(&[done])), Ok(()));
    // That synchronization resumed the device: this launch runs.
    let ran = launch_set_to(&dev, &module, &y, 4, 4);
    assert_eq!(dev.synchronize_for(Launches::These(&[ran])), Ok(()));
    // Each of the two launches the failure concerns is told of it (a
    // caller passes a launch until a synchronization reports its failure,
    // then no more).
    for mine in [skipped, bad] {
        let e = dev.synchronize_for(Launches::These(&[mine])).unwrap_err();
        assert!(
            matches!(&e, DeviceError::Queued { launch, skipped: 1, .. } if *launch == bad),
            "{e}"
        );
    }
    assert_eq!(dev.synchronize(), Ok(()), "answered for, so forgotten");
    assert_eq!(read_i64s(&dev, &y).unwrap(), [4; 4]);
    dev.free(y).unwrap();
}

#[test]
fn a_device_free_waits_and_keeps_the_failure() {
    let dev = EmuDevice::new().unwrap();
    let module = set_to_module(&dev);
    let y = dev.alloc_zeroed(4 * 8).unwrap();
    let other = dev.alloc_zeroed(8).unwrap();
    dev.take_stats();
    let bad = launch_set_to(&dev, &module, &y, 5, 1);
    dev.free(other).unwrap();
    assert_eq!(dev.stats().synchronizations, 1, "the free waited");
    let e = dev.synchronize().unwrap_err();
    assert!(
        matches!(&e, DeviceError::Queued { launch, .. } if *launch == bad),
        "{e}"
    );
    let st: EmuStats = dev.take_stats();
    assert_eq!(st.synchronizations, 1, "nothing was left to wait for");
    dev.free(y).unwrap();
}
