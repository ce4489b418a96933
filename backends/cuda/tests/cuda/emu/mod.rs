//! The emulator device runs the generated CUDA C++ (header, drivers,
//! kernels) on the CPU: launch geometry, the reduce and scan drivers across
//! many blocks, warp collectives, the race detector, faults, and the
//! global-memory counts. One module per topic; this one holds the
//! hand-written kernels and launches they share.

// The kernels are used through their generated statics only.
#![allow(dead_code)]
// The golden kernels spell constructs out on purpose, to exercise the
// translator.
#![allow(clippy::nonminimal_bool)]

use granule::prelude::*;
use granule_cuda::codegen::{Instance, Pattern};
use granule_cuda::device_api::{
    as_uninit, Device, DeviceBuffer, DeviceError, Fault, KernelArgs, LaunchConfig, MemoryKind,
    RaceKind, ThreadId,
};
use granule_cuda::emu::{EmuDevice, EmuOptions, EmuStats};
use granule_cuda::kernel::{DeviceKernel, DeviceLayout, KernelPattern, Param, ParamKind};
use std::time::Duration;

use crate::launches::*;

fn device() -> EmuDevice {
    EmuDevice::new().unwrap_or_else(|e| panic!("{e}"))
}

/// A `#[kernel]`-shaped range kernel written by hand: index first, then
/// `outs` u32 outputs, then one u32 atomic View `a` if `atomic`.
fn hand_kernel(
    name: &'static str,
    params: &'static [Param],
    source: &'static str,
) -> &'static DeviceKernel {
    // SAFETY: every caller in these modules passes a source that defines
    // the function `params` describe and writes only what they give it.
    Box::leak(Box::new(unsafe {
        DeviceKernel::new(name, KernelPattern::For, &[], params, source, &[])
    }))
}

const INDEX: Param = Param {
    name: "i",
    kind: ParamKind::Index,
    cpp: "granule::usize",
};
const fn out(name: &'static str) -> Param {
    Param {
        name,
        kind: ParamKind::Out,
        cpp: "granule::u32",
    }
}
const fn atomic(name: &'static str) -> Param {
    Param {
        name,
        kind: ParamKind::Atomic { rank: 1 },
        cpp: "granule::u32",
    }
}

/// Launches the For entry of a kernel with one u32 output over `0..n`.
fn run_one_output(
    dev: &EmuDevice,
    kernel: &'static DeviceKernel,
    n: usize,
    cfg: LaunchConfig,
) -> Result<Vec<u32>, DeviceError> {
    let module = dev.compile(
        &unit(&[Instance::new(kernel, Pattern::For, &[])]),
        kernel.name,
    )?;
    let y = dev.alloc_zeroed(n * 4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &y, n, 1);
    let entry = format!("granule_for_{}", kernel.name);
    // SAFETY: begin, end and the output View over y's n elements are the
    // entry's parameters.
    let r = unsafe { dev.launch_and_wait(&module, &entry, &cfg, &args) };
    let v = download::<u32, _>(dev, &y, n);
    dev.free(y).unwrap();
    r.map(|()| v)
}

// One-word kernels: a body over a u32 word of global memory, as the
// checked mode's and the time limit's tests write them.

static GLOBAL: [Param; 2] = [INDEX, atomic("h")];

fn global_word_kernel(name: &'static str, body: &str) -> &'static DeviceKernel {
    let source = format!(
        "__device__ void {name}(granule::usize i, granule::AtomicView<granule::u32, 1> h) {{\n  {body}\n}}\n"
    );
    hand_kernel(name, &GLOBAL, Box::leak(source.into_boxed_str()))
}

fn run_on_word(
    dev: &EmuDevice,
    k: &'static DeviceKernel,
    n: usize,
    cfg: LaunchConfig,
) -> Result<u32, DeviceError> {
    let module = dev.compile(&unit(&[Instance::new(k, Pattern::For, &[])]), k.name)?;
    let h = dev.alloc_zeroed(4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &h, 1, 9);
    let entry = format!("granule_for_{}", k.name);
    // SAFETY: (begin, end, an atomic View of one u32 over h).
    let r = unsafe { dev.launch_and_wait(&module, &entry, &cfg, &args) };
    let v = download::<u32, _>(dev, &h, 1)[0];
    dev.free(h).unwrap();
    r.map(|()| v)
}

static WORD: [Param; 3] = [INDEX, out("y"), atomic("h")];

/// A kernel `name(i, y, h)` whose `body` sees `t` (threadIdx.x), `y` (its
/// own u32 output) and `w` (plain access to word 0 of the 4-word `h`).
fn word_kernel(name: &'static str, body: &str) -> &'static DeviceKernel {
    let source = format!(
        "__device__ void {name}(granule::usize i, granule::u32& y, \
         granule::AtomicView<granule::u32, 1> h) {{\n\
           const granule::u32 t = threadIdx.x;\n\
           granule::u32* w = h.at(0ull);\n\
           {body}\n\
         }}\n"
    );
    hand_kernel(name, &WORD, Box::leak(source.into_boxed_str()))
}

/// Runs `k` with one index per thread of `cfg`; returns `h`'s 4 words.
fn run_word(
    dev: &EmuDevice,
    k: &'static DeviceKernel,
    cfg: LaunchConfig,
) -> Result<Vec<u32>, DeviceError> {
    let module = dev.compile(&unit(&[Instance::new(k, Pattern::For, &[])]), k.name)?;
    let n = (cfg.blocks() * cfg.block_threads()) as usize;
    let (y, h) = (
        dev.alloc_zeroed(n * 4).unwrap(),
        dev.alloc_zeroed(16).unwrap(),
    );
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &y, n, 1);
    view1(&mut args, &h, 4, 2);
    let entry = format!("granule_for_{}", k.name);
    // SAFETY: (begin, end, an output View of n u32 over y, an atomic View
    // of 4 u32 over h).
    let r = unsafe { dev.launch_and_wait(&module, &entry, &cfg, &args) };
    let words = download::<u32, _>(dev, &h, 4);
    dev.free(y).unwrap();
    dev.free(h).unwrap();
    r.map(|()| words)
}

mod atomics;
mod collectives;
mod failures;
mod races;
mod ranges;
mod reduce_scan;
mod sectors;
mod teams;
