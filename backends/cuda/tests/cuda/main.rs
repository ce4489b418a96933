//! granule-cuda's tests, one binary with one module per topic (run it with
//! `cargo test -p granule-cuda --test cuda`, a topic with a filter such as
//! `emu::`). Every test that launches runs on the CPU emulator or on the
//! space `GRANULE_CUDA` names; the NVRTC tests skip without NVRTC, and the
//! GPU tests without a driver, unless `GRANULE_REQUIRE_GPU=1`. A failing
//! GPU thread exits rather than trapping, so the device stays usable for
//! the tests after one whose kernel fails on purpose.

// Shared by the topics below.
mod launches;
mod targets;

// The device header and kernels under NVRTC.
mod nvrtc_toolchain;
mod semantics_device;
mod translated;

// The devices: the CPU emulator and a GPU through cudarc.
mod chunk_maps;
mod emu;
mod gpu;

// The Cuda space: memory, dispatch, drivers, asynchrony, soundness.
mod asynchrony;
mod compile_fail;
mod dispatch;
mod drivers;
mod fidelity;
mod soundness;
mod space;
