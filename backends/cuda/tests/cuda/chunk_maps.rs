//! The device's chunk maps (chunk.cuh) give the same owner tables as
//! the Rust maps of granule_views::chunk: every (thread, local index) pair
//! is mapped on the emulator, and the owner of each element is compared
//! with `owner_table`, which also proves the device maps injective (an
//! element reached twice is counted twice).

use granule::base::team::MapIdentity;
use granule::chunk::{owner_table, MapContinuousLinear};
use granule_cuda::codegen::{Instance, Pattern};
use granule_cuda::device_api::{Device, KernelArgs};
use granule_cuda::emu::EmuDevice;
use granule_cuda::kernel::{DeviceKernel, KernelPattern, Param, ParamKind};

use crate::launches::*;

const fn scalar(name: &'static str) -> Param {
    Param {
        name,
        kind: ParamKind::Scalar,
        cpp: "granule::u64",
    }
}
const fn atomic(name: &'static str) -> Param {
    Param {
        name,
        kind: ParamKind::Atomic { rank: 1 },
        cpp: "granule::u32",
    }
}

static PARAMS: [Param; 6] = [
    Param {
        name: "t",
        kind: ParamKind::Index,
        cpp: "granule::usize",
    },
    scalar("threads"),
    scalar("locals"),
    scalar("width"),
    atomic("count"),
    atomic("owner"),
];

/// Thread `t` of `threads` maps each local index with the device map
/// (`width` 0: MapIdentity, else MapContinuousLinear{width}) and records
/// itself as the owner of every element it reaches.
// SAFETY: a hand-written test kernel: its source defines the function its
// parameters describe, and it writes only what they give it.
static OWNERS: DeviceKernel = unsafe {
    DeviceKernel::new(
        "owners",
        KernelPattern::For,
        &[],
        &PARAMS,
        r#"
__device__ void owners(granule::usize t, granule::u64 threads, granule::u64 locals, granule::u64 width,
                       granule::AtomicView<granule::u32, 1> count, granule::AtomicView<granule::u32, 1> owner) {
  const granule::ThreadIds ids{t, threads};
  for (granule::u64 k = 0; k < locals; ++k) {
    granule::u64 g = 0;
    const bool ok = width == 0ull ? granule::MapIdentity{}.map(k, ids, g)
                                  : granule::MapContinuousLinear{width}.map(k, ids, g);
    if (ok && g < count.extent(0)) {
      atomicAdd(count.at(g), 1u);
      atomicExch(owner.at(g), (granule::u32)t);
    }
  }
}
"#,
        &[],
    )
};

/// The device's owner table: `None` where no thread reaches the element.
fn device_owners(
    dev: &EmuDevice,
    threads: usize,
    locals: usize,
    width: usize,
    len: usize,
) -> Vec<Option<usize>> {
    let module = dev
        .compile(
            &unit(&[Instance::new(&OWNERS, Pattern::For, &[])]),
            "owners",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let count = dev.alloc_zeroed(len.max(1) * 4).unwrap();
    let owner = dev.alloc_zeroed(len.max(1) * 4).unwrap();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(threads as u64);
    args.scalar(threads as u64)
        .scalar(locals as u64)
        .scalar(width as u64);
    view1(&mut args, &count, len, 1);
    view1(&mut args, &owner, len, 2);
    // SAFETY: (begin, end, threads, locals, width, count, owner) as the
    // entry takes them; both Views hold `len` u32.
    unsafe { dev.launch_and_wait(&module, "granule_for_owners", &config(2, 32, 0), &args) }
        .unwrap_or_else(|e| panic!("{e}"));
    let counts = download::<u32, _>(dev, &count, len);
    let owners = download::<u32, _>(dev, &owner, len);
    dev.free(count).unwrap();
    dev.free(owner).unwrap();
    counts
        .iter()
        .zip(&owners)
        .enumerate()
        .map(|(g, (&c, &o))| {
            assert!(
                c <= 1,
                "element {g} reached {c} times: the device map is not injective"
            );
            (c == 1).then_some(o as usize)
        })
        .collect()
}

#[test]
fn device_maps_give_the_rust_owner_tables() {
    let dev = EmuDevice::new().unwrap_or_else(|e| panic!("{e}"));
    for threads in [1usize, 2, 3, 31, 32, 33, 64] {
        for width in [1usize, 2, 5, 8] {
            for locals in [width - 1, width, width + 2] {
                let len = threads * width + 3;
                let rust = owner_table(MapContinuousLinear::new(width), threads, locals, len);
                let device = device_owners(&dev, threads, locals, width, len);
                assert_eq!(
                    device, rust,
                    "MapContinuousLinear({width}), {threads} threads, {locals} locals"
                );
            }
        }
    }
    for threads in [1usize, 2] {
        let rust = owner_table(MapIdentity, 1, 5, 7);
        if threads == 1 {
            assert_eq!(device_owners(&dev, 1, 5, 0, 7), rust, "MapIdentity");
        } else {
            // The Rust map refuses scopes of several threads; the device
            // map reaches nothing there.
            assert!(device_owners(&dev, threads, 5, 0, 7)
                .iter()
                .all(Option::is_none));
        }
    }
}
