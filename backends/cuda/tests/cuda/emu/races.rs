//! Checked mode: the race detector in global and shared memory, reads
//! before writes included, and what it lets through.

use super::collectives::{rotate_source, ROTATE};
use super::*;

#[test]
fn a_read_with_no_barrier_after_another_threads_write_is_a_race() {
    let dev = device();
    let k = hand_kernel("rotate_racy", &ROTATE, rotate_source(false));
    let err = run_one_output(&dev, k, 64, config(1, 64, 256)).unwrap_err();
    let DeviceError::Race { entry, race, .. } = &err else {
        panic!("expected a race, got {err}");
    };
    assert_eq!(entry, "granule_for_rotate_racy");
    assert_eq!(race.kind, RaceKind::ReadAfterWrite);
    assert_eq!(race.memory, MemoryKind::DynamicShared { offset: 0 });
    let thread = |t| ThreadId {
        block: (0, 0, 0),
        thread: (t, 0, 0),
    };
    assert_eq!((race.first, race.second), (thread(0), thread(1)));
    let text = err.to_string();
    assert!(
        text.contains("rotate_racy") && text.contains("dynamic shared memory, byte 0"),
        "{text}"
    );
}

static SHARED_RACE: [Param; 2] = [INDEX, out("y")];

#[test]
fn two_threads_writing_one_shared_word_race() {
    let dev = device();
    let k = hand_kernel(
        "shared_race",
        &SHARED_RACE,
        "__device__ void shared_race(granule::usize i, granule::u32& y) {\n\
           __shared__ granule::u32 s;\n\
           s = (granule::u32)i;\n\
           __syncthreads();\n\
           y = s;\n\
         }\n",
    );
    let err = run_one_output(&dev, k, 64, config(2, 32, 0)).unwrap_err();
    match &err {
        DeviceError::Race { race, .. } => {
            assert_eq!(race.kind, RaceKind::WriteWrite);
            assert_eq!(race.memory, MemoryKind::StaticShared);
            assert_eq!(race.first.block, race.second.block);
            assert_ne!(race.first.thread, race.second.thread);
        }
        e => panic!("expected a race, got {e}"),
    }
}

#[test]
fn plain_writes_of_one_global_word_race_and_atomic_ones_do_not() {
    let dev = device();
    let racy = global_word_kernel("racy_store", "*h.at(0ull) = (granule::u32)i;");
    let err = run_on_word(&dev, racy, 256, config(4, 64, 0)).unwrap_err();
    let DeviceError::Race { label, race, .. } = &err else {
        panic!("expected a race, got {err}");
    };
    assert_eq!(label, "racy_store");
    assert_eq!(race.kind, RaceKind::WriteWrite);
    assert!(
        matches!(race.memory, MemoryKind::Global { offset: 0, buffer } if buffer != 0),
        "{race:?}"
    );
    assert_ne!(race.first, race.second);
    let text = err.to_string();
    assert!(
        text.contains("granule_for_racy_store") && text.contains("thread ("),
        "{text}"
    );

    let counted = global_word_kernel("atomic_count", "granule::atomic_fetch_add(h.at(0ull), 1u);");
    assert_eq!(
        run_on_word(&dev, counted, 1000, config(4, 64, 0)).unwrap(),
        1000
    );
}

#[test]
fn unchecked_mode_lets_a_racy_kernel_finish() {
    let dev = EmuDevice::with_options(EmuOptions {
        checked: false,
        ..Default::default()
    })
    .unwrap();
    let racy = global_word_kernel("racy_store", "*h.at(0ull) = (granule::u32)i;");
    let last = run_on_word(&dev, racy, 256, config(4, 64, 0)).unwrap();
    assert!(last < 256);
}

#[test]
fn blocks_run_concurrently_so_they_can_wait_on_each_other() {
    // Each block publishes its flag and waits for the other's: this ends
    // only if both blocks run at once.
    let handshake = global_word_kernel(
        "handshake",
        "volatile granule::u32* f = h.at(0ull);\n\
         if (threadIdx.x != 0) return;\n\
         f[blockIdx.x] = 1u;\n\
         while (f[1u - blockIdx.x] == 0u) {}",
    );
    let two = device();
    let module = two
        .compile(
            &unit(&[Instance::new(handshake, Pattern::For, &[])]),
            "handshake",
        )
        .unwrap();
    let flags = two.alloc_zeroed(8).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(64u64);
    view1(&mut args, &flags, 2, 9);
    // SAFETY: (begin, end, an atomic View of two u32 over flags).
    unsafe { two.launch_and_wait(&module, "granule_for_handshake", &config(2, 32, 0), &args) }
        .unwrap();
    assert_eq!(download::<u32, _>(&two, &flags, 2), [1, 1]);

    // One worker runs the blocks one after the other: the first waits
    // forever, and the time limit ends the launch with a typed error.
    let one = EmuDevice::with_options(EmuOptions {
        workers: 1,
        timeout: Some(Duration::from_millis(300)),
        ..Default::default()
    })
    .unwrap();
    let mine = one.alloc_zeroed(8).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(64u64);
    view1(&mut args, &mine, 2, 9);
    // SAFETY: as above, over `mine`.
    let err =
        unsafe { one.launch_and_wait(&module, "granule_for_handshake", &config(2, 32, 0), &args) }
            .unwrap_err();
    assert!(matches!(err, DeviceError::Timeout { .. }), "{err}");
    two.free(flags).unwrap();
    one.free(mine).unwrap();
}

// ------------------------------------------------ reads before writes

fn thread(t: u32) -> ThreadId {
    ThreadId {
        block: (0, 0, 0),
        thread: (t, 0, 0),
    }
}

/// The race `r` must be, with its first and second threads.
fn expect_race(
    r: Result<Vec<u32>, DeviceError>,
    kind: RaceKind,
    first: u32,
    second: u32,
) -> MemoryKind {
    let err = r.expect_err("a race");
    let DeviceError::Race { race, .. } = &err else {
        panic!("expected a race, got {err}");
    };
    assert_eq!(race.kind, kind, "{err}");
    assert_eq!(
        (race.first, race.second),
        (thread(first), thread(second)),
        "{err}"
    );
    race.memory
}

#[test]
fn a_write_after_another_threads_read_is_a_race_in_every_memory() {
    let dev = device();
    // Thread 0 runs first (fibers run in order), so its read precedes
    // thread 1's write: a GPU could run them in either order.
    let cases = [
        ("war_global", "if (t == 0u) y = *w;\nif (t == 1u) *w = 5u;"),
        (
            "war_dynamic",
            "granule::u32* s = (granule::u32*)granule::granule_dyn_smem;\n\
             if (t == 0u) y = s[1];\nif (t == 1u) s[1] = 5u;",
        ),
        (
            "war_static",
            "__shared__ granule::u32 s;\nif (t == 0u) y = s;\nif (t == 1u) s = 5u;",
        ),
    ];
    for (name, body) in cases {
        let r = run_word(&dev, word_kernel(name, body), config(1, 32, 16));
        let memory = expect_race(r, RaceKind::WriteAfterRead, 0, 1);
        match name {
            "war_global" => assert!(
                matches!(memory, MemoryKind::Global { offset: 0, .. }),
                "{memory:?}"
            ),
            "war_dynamic" => assert_eq!(memory, MemoryKind::DynamicShared { offset: 4 }),
            _ => assert_eq!(memory, MemoryKind::StaticShared),
        }
    }
    let err = run_word(&dev, word_kernel("war_text", cases[0].1), config(1, 32, 0)).unwrap_err();
    assert!(
        err.to_string()
            .contains("a write of bytes another thread read"),
        "{err}"
    );
}

#[test]
fn a_read_after_another_threads_write_is_a_race_in_global_and_static_shared_memory() {
    let dev = device();
    let global = word_kernel("raw_global", "if (t == 0u) *w = 5u;\nif (t == 1u) y = *w;");
    let memory = expect_race(
        run_word(&dev, global, config(1, 32, 0)),
        RaceKind::ReadAfterWrite,
        0,
        1,
    );
    assert!(
        matches!(memory, MemoryKind::Global { offset: 0, .. }),
        "{memory:?}"
    );
    let shared = word_kernel(
        "raw_static",
        "__shared__ granule::u32 s;\nif (t == 0u) s = 5u;\nif (t == 1u) y = s;",
    );
    let memory = expect_race(
        run_word(&dev, shared, config(1, 32, 0)),
        RaceKind::ReadAfterWrite,
        0,
        1,
    );
    assert_eq!(memory, MemoryKind::StaticShared);
}

#[test]
fn a_word_read_by_several_threads_then_written_by_one_of_them_is_a_race() {
    let dev = device();
    // Every lane reads, then (after a warp collective, so every read came
    // first) lane 0, the first reader, writes: lane 1 read it too.
    let k = word_kernel(
        "several_readers",
        "y = *w;\n__syncwarp();\nif (t == 0u) *w = y + 1u;",
    );
    expect_race(
        run_word(&dev, k, config(1, 32, 0)),
        RaceKind::WriteAfterRead,
        1,
        0,
    );
    // A later reader writes: the first reader names the race.
    let k = word_kernel(
        "later_reader",
        "y = *w;\n__syncwarp();\nif (t == 7u) *w = y + 1u;",
    );
    expect_race(
        run_word(&dev, k, config(1, 32, 0)),
        RaceKind::WriteAfterRead,
        0,
        7,
    );
    let k = word_kernel(
        "several_shared",
        "__shared__ granule::u32 s;\ny = s;\n__syncwarp();\nif (t == 0u) s = y + 1u;",
    );
    expect_race(
        run_word(&dev, k, config(1, 32, 0)),
        RaceKind::WriteAfterRead,
        1,
        0,
    );
}

#[test]
fn reads_and_writes_that_do_not_conflict_are_not_races() {
    let dev = device();
    // Each thread reads and writes its own word, or its own byte of one
    // word (byte masks keep sub-word neighbours apart).
    let own = word_kernel("own_word", "y = y + t;\nif (t < 4u) { w[t] = w[t] + 1u; }");
    assert_eq!(run_word(&dev, own, config(1, 32, 0)).unwrap(), [1, 1, 1, 1]);
    let bytes = word_kernel(
        "own_byte",
        "unsigned char* b = (unsigned char*)w;\nif (t < 4u) b[t] = (unsigned char)(b[t] + t + 1u);",
    );
    assert_eq!(
        run_word(&dev, bytes, config(1, 32, 0)).unwrap()[0],
        0x0403_0201
    );
    // A barrier between the read and the other thread's write, in global
    // and shared memory.
    let synced = word_kernel(
        "synced_war",
        "__shared__ granule::u32 s;\nif (t == 0u) { y = *w + s; }\n__syncthreads();\n\
         if (t == 1u) { *w = 5u; s = 5u; }",
    );
    assert_eq!(run_word(&dev, synced, config(1, 32, 0)).unwrap()[0], 5);
    // Reads and writes of the same shared address by different blocks are
    // different memory: one worker runs both blocks on one thread-local
    // copy.
    let one = EmuDevice::with_options(EmuOptions {
        workers: 1,
        ..Default::default()
    })
    .unwrap();
    let blocks = word_kernel(
        "blocks_war",
        "__shared__ granule::u32 s;\nif (blockIdx.x == 0u && t == 0u) y = s;\n\
         if (blockIdx.x == 1u && t == 1u) s = 5u;",
    );
    run_word(&one, blocks, config(2, 32, 0)).unwrap();
    // Atomics and volatile accesses never race.
    let atomics = word_kernel(
        "atomic_war",
        "if (t == 0u) y = *(volatile granule::u32*)w;\nif (t == 1u) granule::atomic_fetch_add(w, 2u);",
    );
    assert_eq!(run_word(&dev, atomics, config(1, 32, 0)).unwrap()[0], 2);
}
