//! Warp collectives, and dynamic shared memory with the barriers that
//! order it.

use super::*;

static WARP_OPS: [Param; 6] = [
    INDEX,
    out("sum"),
    out("up"),
    out("down"),
    out("bcast"),
    out("ballot"),
];

#[test]
fn warp_shuffles_and_ballots_exchange_within_warps() {
    let dev = device();
    let k = hand_kernel(
        "warp_ops",
        &WARP_OPS,
        "__device__ void warp_ops(granule::usize i, granule::u32& sum, granule::u32& up, \
         granule::u32& down, granule::u32& bcast, granule::u32& ballot) {\n\
           const granule::u32 v = (granule::u32)i;\n\
           granule::u32 s = v;\n\
           for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);\n\
           sum = s;\n\
           up = __shfl_up_sync(0xffffffffu, v, 1, 8);\n\
           down = __shfl_down_sync(0xffffffffu, v, 3);\n\
           bcast = __shfl_sync(0xffffffffu, v, 5, 16);\n\
           ballot = __ballot_sync(0xffffffffu, v % 3u == 0u);\n\
         }\n",
    );
    let module = dev
        .compile(&unit(&[Instance::new(k, Pattern::For, &[])]), "warp_ops")
        .unwrap();
    let (grid, block) = (3u32, 64u32);
    let n = (grid * block) as usize;
    let outs: Vec<DeviceBuffer> = (0..5).map(|_| dev.alloc_zeroed(n * 4).unwrap()).collect();
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    for (id, b) in outs.iter().enumerate() {
        view1(&mut args, b, n, id as u32);
    }
    // SAFETY: (begin, end, five u32 outputs of n elements).
    unsafe {
        dev.launch_and_wait(
            &module,
            "granule_for_warp_ops",
            &config(grid, block, 0),
            &args,
        )
    }
    .unwrap();
    let got: Vec<Vec<u32>> = outs
        .iter()
        .map(|b| download::<u32, _>(&dev, b, n))
        .collect();
    for i in 0..n as u32 {
        let base = i & !31;
        let ballot = (0..32)
            .filter(|j| (base + j) % 3 == 0)
            .fold(0u32, |m, j| m | 1 << j);
        let expect = [
            32 * base + 496,
            if i % 8 >= 1 { i - 1 } else { i },
            if i % 32 + 3 < 32 { i + 3 } else { i },
            (i & !15) + 5,
            ballot,
        ];
        for (op, e) in expect.iter().enumerate() {
            assert_eq!(got[op][i as usize], *e, "op {op}, i = {i}");
        }
    }
    for b in outs {
        dev.free(b).unwrap();
    }
}

/// The kernel `rotate_synced` (or `rotate_racy`, without the barrier):
/// each thread writes its index to shared memory, then reads its
/// neighbour's.
pub(super) static ROTATE: [Param; 2] = [INDEX, out("y")];

pub(super) fn rotate_source(barrier: bool) -> &'static str {
    Box::leak(
        format!(
            "__device__ void rotate_{0}(granule::usize i, granule::u32& y) {{\n\
               granule::u32* buf = (granule::u32*)granule::granule_dyn_smem;\n\
               buf[threadIdx.x] = (granule::u32)i;\n\
               {1}\n\
               y = buf[(threadIdx.x + blockDim.x - 1) % blockDim.x];\n\
             }}\n",
            if barrier { "synced" } else { "racy" },
            if barrier { "__syncthreads();" } else { "" }
        )
        .into_boxed_str(),
    )
}

#[test]
fn dynamic_shared_memory_is_per_block_and_barriers_order_it() {
    let dev = device();
    let k = hand_kernel("rotate_synced", &ROTATE, rotate_source(true));
    let (grid, block) = (5, 96);
    let n = (grid * block) as usize;
    let y = run_one_output(&dev, k, n, config(grid, block, block * 4)).unwrap();
    for i in 0..n as u32 {
        let t = i % block;
        assert_eq!(y[i as usize], i - t + (t + block - 1) % block, "i = {i}");
    }
}

#[test]
fn dynamic_shared_memory_past_the_launchs_bytes_fails_the_launch() {
    let dev = device();
    let k = hand_kernel("rotate_synced", &ROTATE, rotate_source(true));
    let err = run_one_output(&dev, k, 96, config(1, 96, 95 * 4)).unwrap_err();
    let DeviceError::Launch { reason, .. } = &err else {
        panic!("expected a launch failure, got {err}");
    };
    assert!(
        reason.contains("thread 95 of block (0, 0, 0) accessed bytes 380..384")
            && reason.contains("past the launch's 380 bytes"),
        "{reason}"
    );
}
