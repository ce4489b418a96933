//! The radix sort on Cuda, Onesweep style (`radix.cuh`): one launch
//! counts every pass's digits, then one launch per 8-bit digit pass, the
//! keys (and values) going back and forth between the caller's Views and
//! temporary ones. A pass whose digit all keys share would leave them in
//! place, so it is skipped (the counts, read back after the first launch,
//! say which), unless the passes left would number an odd count: then one
//! of them runs anyway, so that the keys end in the caller's View.

use super::{RadixKey, SortImpl};
use crate::device::{bytes, config, instance, launch, output_arg, tiles, DeviceElement};
use crate::io::Output;
use crate::AlgorithmError;
use granule_cuda::codegen::driver::{DeviceDriver, DriverParam, DriverParamKind as K};
use granule_cuda::kernel::{DeviceScalar, ViewArg};
use granule_cuda::{Cuda, CudaSpace};
use granule_views::{LayoutRight, View1};

/// Threads per block and keys per thread: RADIX_BLOCK, RADIX_ITEMS of
/// radix.cuh.
const BLOCK: u32 = 512;
const ITEMS: u64 = 16;

/// Keys below this count use 32-bit tile status words (2 state bits,
/// 30 bits of offset); more use 64-bit ones.
const NARROW_STATUS: usize = 1 << 30;

const SOURCE: &str = include_str!("radix.cuh");

// SAFETY: `radix_histogram` reads keys(i) for i < n (the host passes the
// View's length) and adds to hist(j) for j < sizeof(K) * 256 and to the
// block counter after them; the last block's thread 0 reads the counts
// (volatile, after every block's adds and fences) and writes the plan:
// all below radix_hist_len(sizeof(K)), the length of the histogram View
// the host allocates (`hist_len`); shared counters are zeroed and flushed
// between barriers; any 1-D geometry.
static HISTOGRAM: DeviceDriver = unsafe {
    DeviceDriver::new(
        "radix_histogram",
        &["K"],
        None,
        &[
            DriverParam {
                name: "n",
                kind: K::Scalar,
                cpp: "granule::u64",
            },
            DriverParam {
                name: "keys",
                kind: K::Input,
                cpp: "K",
            },
            DriverParam {
                name: "hist",
                kind: K::Output,
                cpp: "granule::u64",
            },
        ],
        &[],
        SOURCE,
        "granule_algo::radix_histogram<K>(n, keys, hist);",
    )
};

/// A pass driver: keys only, or keys and values.
macro_rules! pass_driver {
    ($stat:ident, $name:literal, [$($g:literal),*], [$($view:expr),*], $call:literal, $bounds:literal) => {
        // SAFETY: `radix_pass` reads its plan word hist(sizeof(K) * 256 +
        // k) (the host passes k < sizeof(K)) and, when the plan has a pass
        // for it, reads kin(i) (vin(i)) for i < n and writes every key
        // once to kout (vout) below n (the host passes Views of n
        // elements, distinct memory for input and output), hist(row * 256
        // + d) for d < 256 and a row below sizeof(K) (the host's histogram
        // has a row per key byte, then the plan); its tail is sized below (`pass`), with RADIX_BLOCK
        // threads and radix_smem bytes of shared memory, both checked on
        // the device; it waits only on tiles claimed before its own. The
        // launch bounds name RADIX_BLOCK, the block it checks, and a
        // constant count of blocks.
        static $stat: DeviceDriver = unsafe {
            DeviceDriver::new(
                $name,
                &[$($g),*],
                None,
                &[
                    DriverParam { name: "n", kind: K::Scalar, cpp: "granule::u64" },
                    DriverParam { name: "k", kind: K::Scalar, cpp: "granule::u32" },
                    DriverParam { name: "smem", kind: K::Scalar, cpp: "granule::u64" },
                    DriverParam { name: "hist", kind: K::Input, cpp: "granule::u64" },
                    $($view,)*
                    DriverParam { name: "status", kind: K::Workspace, cpp: "W" },
                    DriverParam { name: "tiles", kind: K::Workspace, cpp: "granule::u32" },
                ],
                &[],
                SOURCE,
                $call,
            )
            .with_launch_bounds($bounds)
        };
    };
}

const KIN: DriverParam = DriverParam {
    name: "kin",
    kind: K::Input,
    cpp: "K",
};
const KOUT: DriverParam = DriverParam {
    name: "kout",
    kind: K::Output,
    cpp: "K",
};

pass_driver!(
    PASS,
    "radix_pass",
    ["K", "W"],
    [KIN, KOUT],
    "granule_algo::radix_pass<K, K, W, false>(n, k, smem, hist, kin, kout, kin, kout, status, tiles);",
    "granule_algo::RADIX_BLOCK, granule_algo::radix_min_blocks<K, false>()"
);
pass_driver!(
    PASS_PAIRS,
    "radix_pass_pairs",
    ["K", "V", "W"],
    [
        KIN,
        KOUT,
        DriverParam { name: "vin", kind: K::Input, cpp: "V" },
        DriverParam { name: "vout", kind: K::Output, cpp: "V" }
    ],
    "granule_algo::radix_pass<K, V, W, true>(n, k, smem, hist, kin, kout, vin, vout, status, tiles);",
    "granule_algo::RADIX_BLOCK, granule_algo::radix_min_blocks<K, true>()"
);

/// The key types the device sorts: radix.cuh's `RadixBits` has them.
///
/// ```
/// fn sortable<K: granule::algorithms::sort::CudaRadixKey>() {}
/// sortable::<f64>();
/// sortable::<i32>();
/// ```
pub trait CudaRadixKey: RadixKey + DeviceElement + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! cuda_keys {
    ($($t:ty),*) => { $(
        impl sealed::Sealed for $t {}
        impl CudaRadixKey for $t {}
    )* };
}
cuda_keys!(u32, i32, f32, u64, i64, f64);

/// The histogram View's length: radix.cuh's `radix_hist_len`, a row of
/// 256 digit counts per key byte, the plan (a word per pass), a counter.
fn hist_len(key_bytes: usize) -> usize {
    key_bytes * 256 + key_bytes + 1
}

/// The caller's keys and values, and the temporary ones.
struct Buffers<'a, K: DeviceElement, V: DeviceElement> {
    keys: ViewArg<'a>,
    values: Option<ViewArg<'a>>,
    tmp_keys: View1<K, LayoutRight, CudaSpace>,
    tmp_values: Option<View1<V, LayoutRight, CudaSpace>>,
}

/// A temporary View's argument.
fn temp_arg<T: DeviceElement>(v: &mut View1<T, LayoutRight, CudaSpace>) -> ViewArg<'static> {
    let (n, address) = (v.extent(0), v.as_mut_ptr() as usize);
    ViewArg::of::<T>("radix sort (temporary)", address, &[n], &[1])
}

impl<K, V> SortImpl<K, V> for Cuda
where
    K: CudaRadixKey,
    V: DeviceElement,
{
    fn radix_sort(
        &self,
        label: &str,
        keys: Output<'_, K, CudaSpace>,
        values: Option<Output<'_, V, CudaSpace>>,
    ) -> Result<(), AlgorithmError> {
        let n = keys.len();
        if n < 2 {
            return Ok(());
        }
        let mem = self.memory_space();
        let mut hist = View1::<u64, LayoutRight, CudaSpace>::zeros_in(
            mem.clone(),
            "radix sort (digit counts)",
            hist_len(K::BYTES),
        )?;
        histogram(self, label, &keys, &mut hist);
        // SAFETY: the temporaries are read only by the passes, which come
        // in pairs (the plan's), the first of each writing every one of
        // their n elements (a permutation of the keys, and values) before
        // the second reads them; the host never reads them.
        let (tmp_keys, tmp_values) = unsafe {
            (
                View1::without_initializing_in(mem.clone(), "radix sort (keys)", n)?,
                match &values {
                    Some(_) => Some(View1::without_initializing_in(
                        mem,
                        "radix sort (values)",
                        n,
                    )?),
                    None => None,
                },
            )
        };
        let mut b = Buffers {
            keys: output_arg(&keys),
            values: values.as_ref().map(output_arg),
            tmp_keys,
            tmp_values,
        };
        // The device decides which launches sort (radix.cuh's plan): an
        // even number of them, the first ones, so the odd launches bring
        // the keys back to the caller's View, and the host never waits.
        for k in 0..K::BYTES as u32 {
            pass::<K, V>(self, label, (n, k), &hist, &mut b, k % 2 == 1);
        }
        Ok(())
    }
}

/// The histogram launch: every pass's digit counts into `hist`.
fn histogram<K: CudaRadixKey>(
    cuda: &Cuda,
    label: &str,
    keys: &Output<'_, K, CudaSpace>,
    hist: &mut View1<u64, LayoutRight, CudaSpace>,
) {
    let n = keys.len();
    let mut l = launch(cuda, label, instance(&HISTOGRAM, vec![K::CPP], None));
    l.scalar(n as u64);
    // SAFETY: `keys` holds the call's unique borrow (read only here);
    // `hist` is this call's own zeroed View.
    unsafe { l.input(output_arg(keys)).output(temp_arg(hist)) };
    // SAFETY: radix_histogram has no workspace and runs any geometry.
    unsafe { l.run(&config(histogram_grid(cuda, n), BLOCK, 0)) };
}

/// The histogram's blocks: one per tile of keys, but no more than the
/// device holds at once. Each block flushes up to 256 global atomics per
/// key byte when it ends, so blocks that walk many tiles (its grid-stride
/// loop) flush far fewer than a block per tile would.
fn histogram_grid(cuda: &Cuda, n: usize) -> u64 {
    let l = cuda.device().limits();
    let resident = u64::from(l.multiprocessor_count)
        * u64::from((l.max_threads_per_multiprocessor / BLOCK).max(1));
    tiles(n, u64::from(BLOCK) * ITEMS).min(resident.max(1))
}

/// Launch `k` of the passes (the plan's k-th digit pass, or nothing),
/// from the caller's Views to the temporary ones, or back when `back`.
fn pass<K: CudaRadixKey, V: DeviceElement>(
    cuda: &Cuda,
    label: &str,
    (n, k): (usize, u32),
    hist: &View1<u64, LayoutRight, CudaSpace>,
    b: &mut Buffers<'_, K, V>,
    back: bool,
) {
    let pairs = b.values.is_some();
    let w = if n < NARROW_STATUS {
        u32::CPP
    } else {
        u64::CPP
    };
    let inst = match pairs {
        true => instance(&PASS_PAIRS, vec![K::CPP, V::CPP, w], None),
        false => instance(&PASS, vec![K::CPP, w], None),
    };
    let mut l = launch(cuda, label, inst);
    // radix_smem: the tile's keys and values (at most 16 bytes a key).
    let per_key = K::SIZE + if pairs { V::SIZE } else { 0 };
    let shared = u64::from(BLOCK) * ITEMS * per_key as u64;
    l.scalar(n as u64).scalar(k).scalar(shared);
    let hist_arg = ViewArg::of::<u64>(
        "radix sort (digit counts)",
        hist.as_ptr() as usize,
        &[hist.extent(0)],
        &[1],
    );
    let tk = temp_arg(&mut b.tmp_keys);
    let tv = b.tmp_values.as_mut().map(temp_arg);
    let (kin, kout) = if back {
        (tk, b.keys.clone())
    } else {
        (b.keys.clone(), tk)
    };
    // SAFETY: the histogram is this call's View, read only; the keys
    // (values) move between the caller's uniquely borrowed View and
    // this call's temporary one, distinct memory of n elements each.
    unsafe {
        l.input(hist_arg).input(kin).output(kout);
        if let (Some(v), Some(tv)) = (&b.values, tv) {
            let (vin, vout) = if back {
                (tv, v.clone())
            } else {
                (v.clone(), tv)
            };
            l.input(vin).output(vout);
        }
    }
    let ntiles = tiles(n, u64::from(BLOCK) * ITEMS);
    let word = if n < NARROW_STATUS { 4 } else { 8 };
    l.workspace(bytes(label, "digit states", ntiles * 256, word));
    l.workspace(4);
    // SAFETY: the tail is radix.cuh's: 256 zeroed status words of W per
    // tile, the tile counter; RADIX_BLOCK threads and radix_smem bytes.
    unsafe { l.run(&config(ntiles, BLOCK, shared)) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::nvrtc_check::{compiles_everywhere, resource_table, Launched};

    #[test]
    fn the_radix_drivers_compile_for_gpus() {
        let mut insts = Vec::new();
        for k in [u32::CPP, i32::CPP, f32::CPP, u64::CPP, i64::CPP, f64::CPP] {
            insts.push(instance(&HISTOGRAM, vec![k], None));
            insts.push(instance(&PASS, vec![k, u32::CPP], None));
            insts.push(instance(&PASS_PAIRS, vec![k, u8::CPP, u64::CPP], None));
        }
        compiles_everywhere("radix.cu", &insts);
    }

    #[test]
    fn gpu_resources_of_the_radix_drivers() {
        let tile = u64::from(BLOCK) * ITEMS;
        let mut rows = Vec::new();
        for (k, size) in [(u32::CPP, 4), (f32::CPP, 4), (u64::CPP, 8), (f64::CPP, 8)] {
            let row = |inst, per_key: u64| Launched {
                inst,
                threads: BLOCK,
                shared: tile * per_key,
            };
            rows.push(row(instance(&HISTOGRAM, vec![k], None), 0));
            rows.push(row(instance(&PASS, vec![k, u32::CPP], None), size));
            let pairs = instance(&PASS_PAIRS, vec![k, u32::CPP, u32::CPP], None);
            rows.push(row(pairs, size + 4));
        }
        resource_table("radix.cu", &rows, true);
    }

    #[test]
    fn the_histogram_takes_a_block_per_tile_up_to_what_the_device_holds() {
        let cuda = Cuda::emulated().expect("an emulator");
        let tile = BLOCK as usize * ITEMS as usize;
        assert_eq!(histogram_grid(&cuda, 1), 1);
        assert_eq!(histogram_grid(&cuda, 100 * tile + 1), 101);
        // The emulator has an H100's 132 multiprocessors of 2048 threads.
        assert_eq!(histogram_grid(&cuda, 1 << 28), 132 * 4);
    }

    /// The plan the histogram's last block writes: the passes whose digit
    /// the keys do not all share, and one they share when that makes the
    /// count even.
    #[test]
    fn the_device_plans_the_passes_whose_digits_the_keys_do_not_share() {
        let cuda = Cuda::emulated().expect("an emulator");
        let none = 256;
        let n = 3 * BLOCK as usize * ITEMS as usize + 5;
        type Case = (fn(u32) -> u32, [u64; 4]);
        let cases: [Case; 4] = [
            (|i| i.wrapping_mul(2_654_435_761), [0, 1, 2, 3]),
            (|_| 0x0102_0304, [none; 4]),
            (|i| i % 200, [0, 1, none, none]),
            (|i| (i % 97) << 8 | (i % 89) << 16 | 7, [1, 2, none, none]),
        ];
        for (key, plan) in cases {
            let host: Vec<u32> = (0..n as u32).map(key).collect();
            let mut keys =
                View1::<u32, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "keys", n)
                    .unwrap();
            granule_views::deep_copy(&mut keys, &View1::<u32>::from_vec("host", n, host).unwrap())
                .unwrap();
            let mut hist = View1::<u64, LayoutRight, CudaSpace>::zeros_in(
                cuda.memory_space(),
                "hist",
                hist_len(4),
            )
            .unwrap();
            histogram(&cuda, "plan", &Output::of(&mut keys), &mut hist);
            let h = granule_views::create_mirror_view_and_copy(&hist)
                .unwrap()
                .to_vec();
            assert_eq!(
                h[1024..1028],
                plan,
                "{:x?}",
                &(0..4).map(key).collect::<Vec<_>>()
            );
            assert_eq!(
                h[1028],
                tiles(n, u64::from(BLOCK) * ITEMS),
                "every block counted itself"
            );
        }
    }
}
