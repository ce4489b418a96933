//! Atomics of every width and type, combined across blocks.

use super::*;

include!("../../../../../macros/tests/golden/histogram.rs");

static ATOMICS64: [Param; 4] = [
    INDEX,
    Param {
        name: "s",
        kind: ParamKind::Atomic { rank: 1 },
        cpp: "granule::i64",
    },
    Param {
        name: "u",
        kind: ParamKind::Atomic { rank: 1 },
        cpp: "granule::u64",
    },
    Param {
        name: "f",
        kind: ParamKind::Atomic { rank: 1 },
        cpp: "granule::f64",
    },
];

#[test]
fn atomics_of_every_width_and_type_combine_across_blocks() {
    let dev = device();
    let k = hand_kernel(
        "atomics64",
        &ATOMICS64,
        "__device__ void atomics64(granule::usize i, granule::AtomicView<granule::i64, 1> s, \
         granule::AtomicView<granule::u64, 1> u, granule::AtomicView<granule::f64, 1> f) {\n\
           const granule::i64 v = (granule::i64)i - 500;\n\
           granule::atomic_fetch_min(s.at(0ull), v);\n\
           granule::atomic_fetch_max(s.at(1ull), v);\n\
           granule::atomic_fetch_min(u.at(0ull), (granule::u64)i + 7ull);\n\
           granule::atomic_fetch_max(u.at(1ull), (granule::u64)i << 40);\n\
           granule::atomic_fetch_add(u.at(2ull), 3ull);\n\
           granule::atomic_fetch_add(f.at(0ull), 0.5);\n\
         }\n",
    );
    let n = 1000usize;
    let module = dev
        .compile(
            &unit(&[
                Instance::new(k, Pattern::For, &[]),
                Instance::new(&__GRANULE_KERNEL_histogram, Pattern::For, &[]),
            ]),
            "atomics",
        )
        .unwrap();
    let s = upload(&dev, &[i64::MAX, i64::MIN]);
    let u = upload(&dev, &[u64::MAX as i64, 0, 0]);
    let f = upload(&dev, &[0.0f64]);
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &s, 2, 1);
    view1(&mut args, &u, 3, 2);
    view1(&mut args, &f, 1, 3);
    // SAFETY: (begin, end, three atomic Views over s, u, f).
    unsafe { dev.launch_and_wait(&module, "granule_for_atomics64", &config(5, 64, 0), &args) }
        .unwrap();
    assert_eq!(download::<i64, _>(&dev, &s, 2), [-500, 499]);
    let got_u: Vec<u64> = download::<i64, _>(&dev, &u, 3)
        .iter()
        .map(|&v| v as u64)
        .collect();
    assert_eq!(got_u, [7, 999 << 40, 3 * n as u64]);
    assert_eq!(download::<f64, _>(&dev, &f, 1), [0.5 * n as f64]);

    // f32 min/max and exchange are CAS loops in the header.
    let x32: Vec<f32> = (0..n)
        .map(|i| ((i * 37) % 101) as f32 * 0.25 + 1.0)
        .collect();
    let xb = upload(&dev, &x32);
    let h = dev.alloc_zeroed(16 * 4).unwrap();
    let m = upload(&dev, &[f32::MIN, f32::MAX, 0.0, 0.0, 0.0]);
    let (lo, width) = (1.0f32, 2.0f32);
    let mut args = KernelArgs::new();
    args.scalar(0u64).scalar(n as u64);
    view1(&mut args, &xb, n, 1);
    args.scalar(lo).scalar(width);
    view1(&mut args, &h, 16, 2);
    view1(&mut args, &m, 5, 3);
    // SAFETY: (begin, end, x, lo, width, h, m) as granule_for_histogram
    // takes them, over 16 bins and 5 f32.
    unsafe { dev.launch_and_wait(&module, "granule_for_histogram", &config(3, 128, 0), &args) }
        .unwrap();
    let mut expect = [0u32; 16];
    for v in &x32 {
        expect[(((v - lo) / width) as usize).min(15)] += 1;
    }
    assert_eq!(download::<u32, _>(&dev, &h, 16), expect);
    let got = download::<f32, _>(&dev, &m, 5);
    let (max, min) = x32
        .iter()
        .fold((f32::MIN, f32::MAX), |(a, b), &v| (a.max(v), b.min(v)));
    assert_eq!((got[0], got[1]), (max, min));
    assert!(x32.contains(&got[2]), "the last exchange stores some x");
    for b in [s, u, f, xb, h, m] {
        dev.free(b).unwrap();
    }
}
