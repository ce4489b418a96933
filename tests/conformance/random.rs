//! Random number pools: `fill_random` gives, on every space, the bits of
//! the host generator of the same seed and index (so the streams are
//! reproducible per seed and equal across spaces, whatever the thread
//! count), and rejects bad input with typed errors. Uniformity and the
//! independence of neighbouring states are tested beside the generators
//! (granule-containers' `random::tests`).

use granule::containers::random::device::*;
use granule::prelude::*;

/// The first `m` draws of state `i` through the device form of the
/// generator: their 64-bit outputs folded together, and the sum of their
/// doubles and floats.
#[kernel]
pub fn random_streams(i: usize, bits: &mut u64, sum: &mut f64, key: u64, states: usize, m: usize) {
    let mut s = xorshift64_state(key, states, i);
    let mut folded = 0u64;
    let mut total = 0.0;
    for _draw in 0..m {
        s = xorshift64_next(s);
        folded = folded.rotate_left(7) ^ xorshift64_urand64(s) ^ xorshift64_urand(s) as u64;
        total += xorshift64_drand(s) + xorshift64_frand(s) as f64;
    }
    *bits = folded;
    *sum = total;
}

macro_rules! random_tests {
    () => {
        mod random {
            use super::space;
            use granule::containers::random::{
                fill_random, RandomError, RandomGenerator, RandomPool, XorShift1024Pool,
                XorShift64Pool,
            };
            use granule::prelude::*;

            /// Not a multiple of any block or chunk size.
            const N: usize = 3001;

            /// `fill_random` of a fresh View of `T` on the space, read back.
            macro_rules! filled {
                ($t:ty, $pool:expr, $lo:expr, $hi:expr) => {{
                    let s = space();
                    let mut v =
                        View1::<$t, LayoutRight, _>::zeros_in(s.memory_space(), "r", N).unwrap();
                    fill_random(&s, &mut v, $pool, $lo, $hi).unwrap();
                    create_mirror_view_and_copy(&v).unwrap().to_vec()
                }};
            }

            #[test]
            fn random_fill_floats_match_the_host_generator_bitwise() {
                let pool = XorShift64Pool::new("fill", 20261124, N).unwrap();
                let d = filled!(f64, &pool, -3.5, 1e3);
                let f = filled!(f32, &pool, 0.25f32, 0.5f32);
                for i in 0..N {
                    let want = pool.get_state(i).drand_range(-3.5, 1e3);
                    assert_eq!(d[i].to_bits(), want.to_bits(), "f64 element {i}");
                    let want = pool.get_state(i).frand_range(0.25, 0.5);
                    assert_eq!(f[i].to_bits(), want.to_bits(), "f32 element {i}");
                }
            }

            #[test]
            fn random_fill_integers_match_the_host_generator() {
                let pool = XorShift64Pool::new("fill", 7, N).unwrap();
                // A span just above 2^63 rejects almost half the draws, so
                // the rejection loop runs on every space.
                let (lo, hi) = (3, (1u64 << 63) + 5);
                let u = filled!(u64, &pool, lo, hi);
                let w = filled!(u32, &pool, 10u32, 17u32);
                let i = filled!(i64, &pool, i64::MIN, i64::MAX);
                let j = filled!(i32, &pool, -5i32, 5i32);
                for k in 0..N {
                    assert_eq!(
                        u[k],
                        pool.get_state(k).urand64_range(lo, hi),
                        "u64 element {k}"
                    );
                    assert_eq!(
                        w[k],
                        pool.get_state(k).urand_range(10, 17),
                        "u32 element {k}"
                    );
                    let span = (i64::MAX as i128 - i64::MIN as i128) as u64;
                    let want =
                        i64::MIN.wrapping_add(pool.get_state(k).urand64_range(0, span) as i64);
                    assert_eq!(i[k], want, "i64 element {k}");
                    let want = -5 + pool.get_state(k).urand_range(0, 10) as i32;
                    assert_eq!(j[k], want, "i32 element {k}");
                }
            }

            #[test]
            fn random_fill_depends_on_the_seed_only() {
                // Same seed, other pool kind and size: the same values.
                let a = XorShift64Pool::new("a", 99, 1).unwrap();
                let b = XorShift1024Pool::new("b", 99, 1000).unwrap();
                assert_eq!(filled!(u64, &a, 0, 1000), filled!(u64, &b, 0, 1000));
                assert_ne!(
                    filled!(u64, &a, 0, 1000),
                    filled!(u64, &a.renewed(), 0, 1000)
                );
            }

            #[test]
            fn random_bad_input_is_a_typed_error() {
                assert!(matches!(
                    XorShift64Pool::new("p", 1, 0),
                    Err(RandomError::EmptyPool { .. })
                ));
                let pool = XorShift64Pool::new("p", 1, 4).unwrap();
                let s = space();
                let mut f =
                    View1::<f32, LayoutRight, _>::zeros_in(s.memory_space(), "f", 8).unwrap();
                for (lo, hi) in [
                    (1.0, 1.0),
                    (1.0, 0.0),
                    (f32::NAN, 1.0),
                    (-f32::MAX, f32::MAX),
                ] {
                    let e = fill_random(&s, &mut f, &pool, lo, hi).unwrap_err();
                    assert!(matches!(e, RandomError::InvalidRange { .. }), "{e}");
                    assert!(e.to_string().contains("random pool \"p\""), "{e}");
                }
                let mut u =
                    View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "u", 8).unwrap();
                assert!(fill_random(&s, &mut u, &pool, 5, 5).is_err());
                // Nothing was written.
                let f = create_mirror_view_and_copy(&f).unwrap().to_vec();
                assert!(f.iter().all(|&x| x == 0.0));
            }

            #[test]
            fn random_device_generator_matches_the_host_generator_bitwise() {
                let s = space();
                let (n, m) = (N, 20);
                let pool = XorShift64Pool::new("streams", 42, n).unwrap();
                let mut bits =
                    View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "bits", n).unwrap();
                let mut sum =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "sum", n).unwrap();
                let k = crate::random::random_streams(pool.key(), pool.num_states(), m);
                parallel_for(
                    "streams",
                    RangePolicy::new(&s, 0..n),
                    (&mut bits, &mut sum),
                    k,
                );
                let bits = create_mirror_view_and_copy(&bits).unwrap();
                let sum = create_mirror_view_and_copy(&sum).unwrap();
                for i in 0..n {
                    let mut g = pool.get_state(i);
                    let (mut folded, mut total) = (0u64, 0.0);
                    for _ in 0..m {
                        // Each draw reads one state: clones give its four forms.
                        let u = g.clone().urand64() ^ u64::from(g.clone().urand());
                        folded = folded.rotate_left(7) ^ u;
                        total += g.clone().drand() + f64::from(g.clone().frand());
                        g.urand64();
                    }
                    assert_eq!(bits[i], folded, "work item {i}");
                    assert_eq!(sum[i].to_bits(), total.to_bits(), "work item {i}");
                }
            }

            #[test]
            fn random_bad_state_index_fails_the_kernel() {
                // The kernel fails on a device: a space of its own keeps
                // the report for this test.
                let s = super::own_space();
                let pool = XorShift64Pool::new("small", 1, 10).unwrap();
                let mut bits =
                    View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "bits", 11).unwrap();
                let mut sum =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "sum", 11).unwrap();
                let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let k = crate::random::random_streams(pool.key(), pool.num_states(), 1);
                    parallel_for(
                        "streams",
                        RangePolicy::new(&s, 0..11),
                        (&mut bits, &mut sum),
                        k,
                    );
                    s.fence();
                }))
                .unwrap_err();
                let msg = p
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or(p.downcast_ref::<&str>().copied())
                    .unwrap();
                assert!(
                    msg.contains("state 10 asked for, but the pool has 10 states"),
                    "{msg}"
                );
            }

            #[test]
            fn random_fill_of_an_empty_view_is_a_no_op() {
                let pool = XorShift64Pool::new("p", 1, 1).unwrap();
                let s = space();
                let mut v =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "e", 0).unwrap();
                fill_random(&s, &mut v, &pool, 0.0, 1.0).unwrap();
            }
        }
    };
}

macro_rules! random_host_only_tests {
    () => {
        /// Host only: closures draw from a generator directly (on Cuda the
        /// draws run inside `fill_random`'s kernels).
        #[test]
        fn random_generators_in_closures_give_each_work_item_its_stream() {
            use granule::containers::random::{RandomGenerator, RandomPool, XorShift1024Pool};
            let s = space();
            let n = 2000;
            let pool = XorShift1024Pool::new("mc", 5, n).unwrap();
            let mut v = View1::<f64>::zeros("v", n).unwrap();
            parallel_for(
                "draw",
                RangePolicy::new(&s, 0..n),
                &mut v,
                |i, v: &mut f64| {
                    let mut g = pool.get_state(i);
                    *v = (0..10).map(|_| g.normal()).sum::<f64>();
                    pool.free_state(g);
                },
            );
            for i in [0, 1, 999, n - 1] {
                let mut g = pool.get_state(i);
                let want: f64 = (0..10).map(|_| g.normal()).sum();
                assert_eq!(v[i].to_bits(), want.to_bits(), "work item {i}");
            }
        }
    };
}
