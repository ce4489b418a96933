//! Failures: deadlocks and divergent barriers, faults, compile errors,
//! refused launches, and the time limit.

use super::*;

static STUCK: [Param; 2] = [INDEX, out("y")];

#[test]
fn a_barrier_some_threads_never_reach_is_a_deadlock_not_a_hang() {
    let dev = device();
    let k = hand_kernel(
        "stuck",
        &STUCK,
        "__device__ void stuck(granule::usize i, granule::u32& y) {\n\
           granule::u32 v = (granule::u32)i;\n\
           if (threadIdx.x == 0) __syncthreads(); else v = __shfl_sync(0xffffffffu, v, 0);\n\
           y = v;\n\
         }\n",
    );
    let err = run_one_output(&dev, k, 32, config(1, 32, 0)).unwrap_err();
    let DeviceError::Deadlock { detail, .. } = &err else {
        panic!("expected a deadlock, got {err}");
    };
    assert!(
        detail.contains("1 threads wait at __syncthreads, 31 at a warp collective"),
        "{detail}"
    );
}

#[test]
fn an_index_past_the_extent_is_a_fault_naming_the_view() {
    let dev = device();
    let module = dev
        .compile(
            &unit(&[Instance::new(&__GRANULE_KERNEL_copy, Pattern::For, &[])]),
            "copy",
        )
        .unwrap();
    let xb = upload(&dev, &[1i32; 10]);
    let yb = dev.alloc_zeroed(12 * 4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(12u64);
    view1(&mut args, &yb, 12, 1);
    view1(&mut args, &xb, 10, 42);
    // SAFETY: (begin, end, y, x); the View x says 10 elements, so the
    // header's bounds check stops index 10 before it reads past xb.
    let err = unsafe { dev.launch_and_wait(&module, "granule_for_copy", &config(1, 16, 0), &args) }
        .unwrap_err();
    assert_eq!(
        err,
        DeviceError::Fault {
            label: "copy".into(),
            entry: "granule_for_copy".into(),
            fault: Fault::OutOfBounds {
                view: 42,
                dim: 0,
                index: 10,
                extent: 10
            },
        }
    );
    // The record was cleared: the next launch in range succeeds.
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(10u64);
    view1(&mut args, &yb, 12, 1);
    view1(&mut args, &xb, 10, 42);
    // SAFETY: as above, within bounds.
    unsafe { dev.launch_and_wait(&module, "granule_for_copy", &config(1, 16, 0), &args) }.unwrap();
    dev.free(xb).unwrap();
    dev.free(yb).unwrap();
}

static BROKEN: [Param; 2] = [INDEX, out("y")];

#[test]
fn a_compile_error_shows_the_log_and_the_failing_line() {
    let dev = device();
    let k = hand_kernel(
        "broken",
        &BROKEN,
        "__device__ void broken(granule::usize i, granule::u32& y) {\n\
           y = undefined_name + 1u;\n\
         }\n",
    );
    let u = unit(&[Instance::new(k, Pattern::For, &[])]);
    let err = dev.compile(&u, "broken kernel").unwrap_err();
    let DeviceError::Compile { log, excerpts, .. } = &err else {
        panic!("expected a compile error, got {err}");
    };
    assert!(log.contains("undefined_name"), "{log}");
    let line = u
        .source()
        .lines()
        .position(|l| l.contains("undefined_name"))
        .unwrap()
        + 1;
    assert_eq!(excerpts.first().map(|e| e.line), Some(line), "{err}");
    assert!(
        err.to_string()
            .contains(&format!("--> broken kernel.cu:{line}")),
        "{err}"
    );
}

#[test]
fn launches_the_device_cannot_run_are_refused_before_they_start() {
    let dev = device();
    let module = dev
        .compile(
            &unit(&[Instance::new(&__GRANULE_KERNEL_copy, Pattern::For, &[])]),
            "copy",
        )
        .unwrap();
    let mut short = KernelArgs::new();
    short.scalar(0u64).scalar(1u64);
    // SAFETY: refused before anything runs (checked below).
    let err =
        unsafe { dev.launch_and_wait(&module, "granule_for_copy", &config(1, 32, 0), &short) }
            .unwrap_err();
    assert!(
        matches!(&err, DeviceError::InvalidLaunch { reason, .. } if reason.contains("4 parameters of [8, 8, 32, 32] bytes")),
        "{err}"
    );
    // SAFETY: refused before anything runs.
    let err =
        unsafe { dev.launch_and_wait(&module, "granule_for_copy", &config(1, 2048, 0), &short) }
            .unwrap_err();
    assert!(matches!(err, DeviceError::InvalidLaunch { .. }), "{err}");
    // SAFETY: refused before anything runs.
    let err =
        unsafe { dev.launch_and_wait(&module, "granule_for_nothing", &config(1, 32, 0), &short) }
            .unwrap_err();
    assert!(
        matches!(&err, DeviceError::UnknownEntry { entries, .. } if entries == &["granule_for_copy"]),
        "{err}"
    );
}

#[test]
fn buffers_are_zeroed_bounds_checked_and_owned() {
    let dev = device();
    let other = device();
    let mut a = dev.alloc_zeroed(100).unwrap();
    let mut out = [7u8; 100];
    // SAFETY: `a` is freshly zeroed.
    unsafe { dev.read_bytes(&mut out, &a, 0) }.unwrap();
    assert_eq!(out, [0; 100]);
    let err = dev
        .copy_to_device(&mut a, 90, as_uninit(&[1; 20]))
        .unwrap_err();
    assert!(
        matches!(
            err,
            DeviceError::OutOfRange {
                offset: 90,
                bytes: 20,
                buffer_bytes: 100,
                ..
            }
        ),
        "{err}"
    );
    dev.copy_to_device(&mut a, 10, as_uninit(&[5; 20])).unwrap();
    let mut b = dev.alloc_zeroed(30).unwrap();
    dev.copy_on_device(&mut b, 0, &a, 5, 30).unwrap();
    let mut got = [0u8; 30];
    // SAFETY: `b` is zeroed, then copied from `a`, itself zeroed and
    // written from plain bytes.
    unsafe { dev.read_bytes(&mut got, &b, 0) }.unwrap();
    assert_eq!(got[..5], [0; 5]);
    assert_eq!(got[5..25], [5; 20]);
    // SAFETY: refused, as `b` is not `other`'s; its bytes are initialized
    // anyway (as above).
    let err = unsafe { other.read_bytes(&mut got, &b, 0) }.unwrap_err();
    assert!(matches!(err, DeviceError::UnknownBuffer { .. }), "{err}");
    dev.free(a).unwrap();
    dev.free(b).unwrap();
}

// ------------------------------------------------------------ time limit

#[test]
fn a_thread_that_never_yields_still_stops_at_the_time_limit() {
    let dev = EmuDevice::with_options(EmuOptions {
        timeout: Some(Duration::from_millis(200)),
        ..Default::default()
    })
    .unwrap();
    let forever = global_word_kernel(
        "forever",
        "if (i != 0) return;\n\
         for (granule::u32 k = 0;; ++k) *h.at(0ull) = k;",
    );
    let err = run_on_word(&dev, forever, 64, config(2, 32, 0)).unwrap_err();
    let DeviceError::Timeout { label, detail, .. } = &err else {
        panic!("expected a timeout, got {err}");
    };
    assert_eq!(label, "forever");
    assert!(detail.contains("block (0, 0, 0) thread 0"), "{detail}");
}

#[test]
fn loops_of_arithmetic_or_atomics_alone_stop_at_the_time_limit() {
    let dev = EmuDevice::with_options(EmuOptions {
        timeout: Some(Duration::from_millis(200)),
        ..Default::default()
    })
    .unwrap();
    // The translator starts every loop body with GRANULE_LOOP_TICK().
    let arithmetic = word_kernel(
        "spin_arith",
        "granule::u64 x = i;\nfor (;;) {\n  GRANULE_LOOP_TICK();\n  x = x * 6364136223846793005ull + 1ull;\n}",
    );
    let atomics = word_kernel("spin_atomic", "for (;;) granule::atomic_fetch_add(w, 1u);");
    for k in [arithmetic, atomics] {
        let err = run_word(&dev, k, config(2, 32, 0)).unwrap_err();
        let DeviceError::Timeout { label, detail, .. } = &err else {
            panic!("expected a timeout, got {err}");
        };
        assert_eq!(label, k.name);
        assert!(
            detail.contains("still running at the time limit"),
            "{detail}"
        );
    }
}

// ------------------------------------------------------ divergent barriers

/// The detail of the deadlock `r` must be.
fn deadlock(r: Result<Vec<u32>, DeviceError>) -> String {
    match r {
        Err(DeviceError::Deadlock { detail, .. }) => detail,
        Err(e) => panic!("expected a deadlock, got {e}"),
        Ok(_) => panic!("expected a deadlock, the launch succeeded"),
    }
}

#[test]
fn a_barrier_after_a_thread_exited_is_divergent() {
    let dev = device();
    let k = word_kernel(
        "exit_early",
        "if (t == 0u) return;\n__syncthreads();\ny = 1u;",
    );
    let detail = deadlock(run_word(&dev, k, config(1, 32, 0)));
    assert!(
        detail.starts_with(
            "divergent barrier: in block (0, 0, 0) threads 1-31 wait at the __syncthreads in "
        ) && detail.ends_with("but threads 0 exited before reaching it"),
        "{detail}"
    );
}

#[test]
fn halves_of_a_block_at_different_barriers_are_divergent() {
    let dev = device();
    let k = word_kernel(
        "two_barriers",
        "if (t < 16u) {\n  __syncthreads();\n  y = 1u;\n} else {\n  y = 2u;\n  __syncthreads();\n  y += 1u;\n}",
    );
    let detail = deadlock(run_word(&dev, k, config(1, 32, 0)));
    assert!(
        detail.starts_with(
            "divergent barrier: in block (0, 0, 0) threads 0-15 wait at the __syncthreads in `"
        ) && detail.contains(", threads 16-31 at the one in `"),
        "{detail}"
    );
    // Every thread at one barrier, in a branch they all take, is fine.
    let k = word_kernel(
        "uniform_barrier",
        "if (blockIdx.x == 0u) {\n  __syncthreads();\n  y = 1u;\n}",
    );
    run_word(&dev, k, config(2, 32, 0)).unwrap();
}

#[test]
fn lanes_at_different_warp_collectives_are_divergent() {
    let dev = device();
    let k = word_kernel(
        "two_collectives",
        "if (t < 16u) y = __shfl_sync(0xffffffffu, t, 0);\nelse y = __ballot_sync(0xffffffffu, 1);",
    );
    let detail = deadlock(run_word(&dev, k, config(1, 32, 0)));
    assert!(
        detail.starts_with(
            "divergent warp collective: in block (0, 0, 0) thread 0 waits at __shfl_sync"
        ) && detail.contains("thread 16 at __ballot_sync"),
        "{detail}"
    );
    // A mask may name lanes that have exited (CUDA allows it): they take
    // no part.
    let k = word_kernel(
        "exited_lanes",
        "if (t >= 16u) return;\ny = __shfl_sync(0xffffffffu, t + 100u, 3);",
    );
    run_word(&dev, k, config(1, 32, 0)).unwrap();
}
