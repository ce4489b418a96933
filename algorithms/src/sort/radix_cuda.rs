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
use granule_views::{create_mirror_view_and_copy, LayoutRight, View1};

/// Threads per block and keys per thread: RADIX_BLOCK, RADIX_ITEMS of
/// radix.cuh.
const BLOCK: u32 = 512;
const ITEMS: u64 = 16;

/// Keys below this count use 32-bit tile status words (2 state bits,
/// 30 bits of offset); more use 64-bit ones.
const NARROW_STATUS: usize = 1 << 30;

const SOURCE: &str = include_str!("radix.cuh");

// SAFETY: `radix_histogram` reads keys(i) for i < n (the host passes the
// View's length) and adds to hist(j) for j < 8 * sizeof(K) / 8 * 256, the
// length of the histogram View the host allocates; shared counters are
// zeroed and flushed between barriers; any 1-D geometry.
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
        // SAFETY: `radix_pass` reads kin(i) (vin(i)) for i < n and writes
        // every key once to kout (vout) below n (the host passes Views of
        // n elements, distinct memory for input and output), hist(row *
        // 256 + d) for d < 256 (the host's histogram has a row per key
        // byte); its tail is sized below (`pass`), with RADIX_BLOCK
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
                    DriverParam { name: "shift", kind: K::Scalar, cpp: "granule::u32" },
                    DriverParam { name: "row", kind: K::Scalar, cpp: "granule::u32" },
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
    "granule_algo::radix_pass<K, K, W, false>(n, shift, row, smem, hist, kin, kout, kin, kout, status, tiles);",
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
    "granule_algo::radix_pass<K, V, W, true>(n, shift, row, smem, hist, kin, kout, vin, vout, status, tiles);",
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

/// The digit passes to run, from the counts of every pass (a row of 256
/// per key byte): those whose digit the keys do not all share, plus one
/// that they do when that makes the count even.
fn passes(counts: &[u64], n: u64) -> Vec<u32> {
    let rows: Vec<&[u64]> = counts.chunks(256).collect();
    let shared = |p: usize| rows[p].contains(&n);
    let mut run: Vec<u32> = (0..rows.len())
        .filter(|&p| !shared(p))
        .map(|p| p as u32)
        .collect();
    if run.len() % 2 == 1 {
        let extra = (0..rows.len())
            .find(|&p| shared(p))
            .expect("an odd count of passes leaves one out");
        run.push(extra as u32);
        run.sort_unstable();
    }
    run
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
            K::BYTES * 256,
        )?;
        histogram(self, label, &keys, &mut hist);
        let counts = create_mirror_view_and_copy(&hist)?.to_vec();
        let run = passes(&counts, n as u64);
        if run.is_empty() {
            return Ok(());
        }
        let mut b = Buffers {
            keys: output_arg(&keys),
            values: values.as_ref().map(output_arg),
            tmp_keys: View1::zeros_in(mem.clone(), "radix sort (keys)", n)?,
            tmp_values: match &values {
                Some(_) => Some(View1::zeros_in(mem, "radix sort (values)", n)?),
                None => None,
            },
        };
        for (k, &p) in run.iter().enumerate() {
            pass::<K, V>(self, label, (n, p), &hist, &mut b, k % 2 == 1);
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
    let grid = tiles(n, u64::from(BLOCK) * ITEMS);
    // SAFETY: radix_histogram has no workspace and runs any geometry.
    unsafe { l.run(&config(grid, BLOCK, 0)) };
}

/// Digit pass `p` (byte p of the keys' radix bits), from the caller's
/// Views to the temporary ones, or back when `back`.
fn pass<K: CudaRadixKey, V: DeviceElement>(
    cuda: &Cuda,
    label: &str,
    (n, p): (usize, u32),
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
    l.scalar(n as u64).scalar(8 * p).scalar(p).scalar(shared);
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
    fn shared_digits_are_skipped_in_pairs() {
        let row = |full: bool| {
            let mut r = vec![0u64; 256];
            if full {
                r[7] = 10;
            } else {
                r[1] = 4;
                r[2] = 6;
            }
            r
        };
        let counts = |f: [bool; 4]| f.iter().flat_map(|&s| row(s)).collect::<Vec<_>>();
        assert_eq!(passes(&counts([false; 4]), 10), [0, 1, 2, 3]);
        assert_eq!(passes(&counts([true; 4]), 10), Vec::<u32>::new());
        assert_eq!(passes(&counts([false, true, true, true]), 10), [0, 1]);
        assert_eq!(passes(&counts([true, false, false, true]), 10), [1, 2]);
    }
}
