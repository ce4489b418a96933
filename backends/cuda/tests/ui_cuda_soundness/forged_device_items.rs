// Hole 3: `DeviceReducer`, `DeviceStruct` and `DeviceScalar` passed C++
// text (or a layout) that safe code could choose. The first two are
// `unsafe` traits now, `DeviceScalar` is sealed, and `DeviceFn` cannot
// be built without `unsafe`.
use granule_core::kernel::{DeviceFn, DeviceReducer, DeviceScalar, DeviceStruct};

#[derive(Clone, Copy)]
struct Mine;

static TEXT: DeviceFn = DeviceFn {
    name: "Mine",
    source: "struct Mine {};\n",
    deps: &[],
};

impl DeviceReducer for Mine {
    const DEVICE: &'static DeviceFn = &TEXT;
}

impl DeviceStruct for Mine {
    const DEVICE: &'static DeviceFn = &TEXT;
}

impl DeviceScalar for Mine {
    const CPP: &'static str = "int";
}

fn main() {}
