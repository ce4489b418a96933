//! One launch: checking it, handing it to the runtime, and turning the
//! runtime's report into counts or a typed error.

use super::compile::{Entry, Library};
use super::{EmuDevice, EmuStats};
use crate::device::ErrorRecord;
use crate::device_api::{
    DeviceError, Fault, KernelArgs, LaunchConfig, MemoryKind, Race, RaceKind, ThreadId,
};
use std::ffi::{c_void, CStr};

/// `void granule_emu_thunk_<entry>(void** args)`.
pub(crate) type ThunkFn = unsafe extern "C" fn(*mut *mut c_void);
/// `void granule_emu_launch(Params*)`.
pub(crate) type LaunchFn = unsafe extern "C" fn(*mut Params);

/// runtime.cpp's `Params`, field for field.
#[repr(C)]
pub(crate) struct Params {
    thunk: Option<ThunkFn>,
    args: *mut *mut c_void,
    grid: [u32; 3],
    block: [u32; 3],
    smem_bytes: u64,
    arena_base: u64,
    arena_bytes: u64,
    shadow_base: u64,
    launch_id: u64,
    timeout_ns: u64,
    phase_counter: u64,
    stack_pool: u64,
    workers: u32,
    checked: u32,
    sectors: u32,
    unused: u32,
    loads: u64,
    stores: u64,
    load_bytes: u64,
    store_bytes: u64,
    atomics: u64,
    atomic_bytes: u64,
    read_bytes: u64,
    written_bytes: u64,
    load_sectors: u64,
    load_ideal: u64,
    store_sectors: u64,
    store_ideal: u64,
    status: u32,
    race_kind: u32,
    race_space: u32,
    race_size: u32,
    race_addr: u64,
    race_offset: u64,
    first_block: u64,
    first_thread: u64,
    second_block: u64,
    second_thread: u64,
    message: [u8; 512],
}

const OK: u32 = 0;
const TRAPPED: u32 = 1;
const RACE: u32 = 2;
const DEADLOCK: u32 = 3;
const TIMEOUT: u32 = 4;
// The other statuses (5, an internal failure; 6, a dynamic shared memory
// access past the launch's bytes) become DeviceError::Launch with the
// runtime's message.

/// Blocks are 30 bits in the shadow cells.
const MAX_BLOCKS: u64 = 1 << 30;

fn unflatten(k: u64, (x, y, _): (u32, u32, u32)) -> (u32, u32, u32) {
    let (x, y) = (u64::from(x), u64::from(y));
    // Each part is below its extent, a u32.
    ((k % x) as u32, (k / x % y) as u32, (k / x / y) as u32)
}

/// The entry `entry` of `lib`, once the launch is one the emulator runs:
/// what a GPU refuses before queueing anything is refused here too.
pub(crate) fn check<'l>(
    lib: &'l Library,
    label: &str,
    entry: &str,
    config: &LaunchConfig,
    args: &KernelArgs,
) -> Result<&'l Entry, DeviceError> {
    let invalid = |reason: String| DeviceError::InvalidLaunch {
        label: label.to_string(),
        entry: entry.to_string(),
        reason,
    };
    let e = lib.entries.get(entry).ok_or_else(|| {
        let mut entries: Vec<String> = lib.entries.keys().cloned().collect();
        entries.sort();
        DeviceError::UnknownEntry {
            label: label.to_string(),
            entry: entry.to_string(),
            entries,
        }
    })?;
    EmuDevice::LIMITS.check(config).map_err(invalid)?;
    if config.blocks() >= MAX_BLOCKS {
        return Err(invalid(format!(
            "the emulator runs grids of fewer than {MAX_BLOCKS} blocks, not {}",
            config.blocks()
        )));
    }
    args.check_params(&e.sizes).map_err(invalid)?;
    Ok(e)
}

/// Runs entry `e` of `lib` (from [`check`]) to completion.
///
/// # Safety
/// As [`crate::device_api::Device::launch`]: `args` match the entry and
/// the addresses they carry lie in live buffers that nothing else touches.
pub(crate) unsafe fn launch(
    dev: &EmuDevice,
    lib: &Library,
    e: &Entry,
    label: &str,
    entry: &str,
    config: &LaunchConfig,
    args: &KernelArgs,
) -> Result<EmuStats, DeviceError> {
    let (arena, options) = (dev.arena(), &dev.options);
    let mut pointers = args.pointers();
    let workers = u32::try_from(options.workers.max(1)).unwrap_or(u32::MAX);
    let timeout_ns = options
        .timeout
        .map_or(0, |t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX));
    let mut p = Params {
        thunk: Some(e.thunk),
        args: pointers.as_mut_ptr(),
        grid: [config.grid_dim.0, config.grid_dim.1, config.grid_dim.2],
        block: [config.block_dim.0, config.block_dim.1, config.block_dim.2],
        smem_bytes: u64::from(config.shared_mem_bytes),
        arena_base: arena.base() as u64,
        arena_bytes: arena.bytes() as u64,
        shadow_base: arena.shadow() as u64,
        launch_id: arena.next_launch(),
        timeout_ns,
        phase_counter: arena.phase_counter(),
        stack_pool: arena.stack_pool(),
        workers,
        checked: u32::from(options.checked),
        sectors: u32::from(options.sectors),
        unused: 0,
        loads: 0,
        stores: 0,
        load_bytes: 0,
        store_bytes: 0,
        atomics: 0,
        atomic_bytes: 0,
        read_bytes: 0,
        written_bytes: 0,
        load_sectors: 0,
        load_ideal: 0,
        store_sectors: 0,
        store_ideal: 0,
        status: OK,
        race_kind: 0,
        race_space: 0,
        race_size: 0,
        race_addr: 0,
        race_offset: 0,
        first_block: 0,
        first_thread: 0,
        second_block: 0,
        second_thread: 0,
        message: [0; 512],
    };
    let guard = lib.lock.lock();
    // SAFETY: `launch` is the library's runtime entry and `p` is a
    // complete Params (sizes checked at load); the thunk reads the
    // arguments through `pointers`, alive until after the call; what the
    // kernel does with the addresses in them is the caller's contract.
    unsafe { (lib.launch)(&mut p) };
    // Cleared after every failed launch, not only a trap: a record claimed
    // by a launch that a race or a timeout stopped would otherwise block
    // the next launch's first failure.
    let fault = if p.status == OK {
        None
    } else {
        // SAFETY: `error` is the record the library's `granule_error_at`
        // points to, written only by kernels of this library, none of
        // which is running (launches hold `lock`).
        Some(unsafe { ErrorRecord::take(lib.error) }.fault())
    };
    drop(guard);
    let stats = EmuStats {
        launches: 1,
        global_loads: p.loads,
        global_stores: p.stores,
        global_load_bytes: p.load_bytes,
        global_store_bytes: p.store_bytes,
        global_atomics: p.atomics,
        global_atomic_bytes: p.atomic_bytes,
        footprint_read_bytes: p.read_bytes,
        footprint_written_bytes: p.written_bytes,
        load_sectors: p.load_sectors,
        load_sectors_needed: p.load_ideal,
        store_sectors: p.store_sectors,
        store_sectors_needed: p.store_ideal,
        synchronizations: 0,
        allocations: 0,
        zeroed_bytes: 0,
    };
    let message = CStr::from_bytes_until_nul(&p.message)
        .map(|m| m.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (label, entry) = (label.to_string(), entry.to_string());
    match p.status {
        OK => Ok(stats),
        TRAPPED => Err(DeviceError::Fault {
            label,
            entry,
            fault: fault.unwrap_or(Fault::Trap),
        }),
        RACE => {
            let thread = |block: u64, thread: u64| ThreadId {
                block: unflatten(block, config.grid_dim),
                thread: unflatten(thread, config.block_dim),
            };
            let memory = match p.race_space {
                1 => {
                    let (buffer, offset) = arena
                        .locate(p.race_addr as usize)
                        .map_or((0, 0), |(b, o)| (b as u64, o as u64));
                    MemoryKind::Global { buffer, offset }
                }
                2 => MemoryKind::DynamicShared {
                    offset: p.race_offset,
                },
                _ => MemoryKind::StaticShared,
            };
            Err(DeviceError::Race {
                label,
                entry,
                race: Box::new(Race {
                    kind: match p.race_kind {
                        1 => RaceKind::WriteWrite,
                        3 => RaceKind::WriteAfterRead,
                        _ => RaceKind::ReadAfterWrite,
                    },
                    memory,
                    address: p.race_addr,
                    bytes: p.race_size,
                    first: thread(p.first_block, p.first_thread),
                    second: thread(p.second_block, p.second_thread),
                }),
            })
        }
        DEADLOCK => Err(DeviceError::Deadlock {
            label,
            entry,
            detail: message,
        }),
        TIMEOUT => Err(DeviceError::Timeout {
            label,
            entry,
            limit: options.timeout.unwrap_or_default(),
            detail: message,
        }),
        _ => Err(DeviceError::Launch {
            label,
            entry,
            reason: message,
        }),
    }
}
