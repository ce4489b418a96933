// Hole 3: `KernelSource` was a safe trait and `DeviceKernel` a plain
// struct whose `source` is pasted into the translation unit, so safe code
// ran its own C++ on the device. Both now need `unsafe`.
use granule_core::kernel::{DeviceKernel, KernelPattern, KernelSource};

struct Forged;

static EVIL: DeviceKernel = DeviceKernel {
    name: "evil",
    pattern: KernelPattern::For,
    generics: &[],
    params: &[],
    source: "__device__ void evil() { *(int*)0 = 1; }\n",
    deps: &[],
    one_lane: None,
};

impl KernelSource for Forged {
    const KERNEL: &'static DeviceKernel = &EVIL;
}

fn main() {}
