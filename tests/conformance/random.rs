//! Random number pools: `fill_random` and the device draws give, on every
//! space, the bits the host computes for the same seed and index (so the
//! streams are reproducible per seed and equal across spaces, whatever the
//! thread count), and bad input is a typed error on the host and fails the
//! kernel inside one. Uniformity and the independence of neighbouring
//! states are tested beside the generators (granule-containers'
//! `random::tests`).

use granule::containers::random::device::*;
use granule::containers::random::device1024::*;
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
        folded ^= ((xorshift64_rand(s) as u64) << 1) ^ xorshift64_rand64(s) as u64;
        total += xorshift64_drand(s) + xorshift64_frand(s) as f64;
    }
    *bits = folded;
    *sum = total;
}

/// The range draws and normal deviates of state `i`, through the device
/// functions: integers folded together, floats summed, normals summed
/// apart (their `ln` and `sqrt` may differ in the last bits on a GPU).
/// The drand range is a parameter, so that a bad one can fail the kernel.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn random_range_draws(
    i: usize,
    ints: &mut u64,
    floats: &mut f64,
    normals: &mut f64,
    key: u64,
    states: usize,
    m: usize,
    lo: f64,
    hi: f64,
) {
    let mut s = xorshift64_state(key, states, i);
    let mut folded = 0u64;
    let mut total = 0.0;
    let mut gauss = 0.0;
    // A span just above 2^63 rejects almost half the draws.
    let top = (1u64 << 63) + 5;
    for _draw in 0..m {
        folded = folded.rotate_left(7) ^ xorshift64_urand64_in(s, 3, top);
        s = xorshift64_after_urand64_in(s, 3, top);
        folded = folded.rotate_left(7) ^ xorshift64_urand_in(s, 10, 17) as u64;
        s = xorshift64_after_urand_in(s, 10, 17);
        total += xorshift64_drand_in(s, lo, hi);
        s = xorshift64_after_drand_in(s, lo, hi);
        total += xorshift64_frand_in(s, 0.25, 0.5) as f64;
        s = xorshift64_after_frand_in(s, 0.25, 0.5);
        gauss += xorshift64_normal(s);
        s = xorshift64_after_normal(s);
    }
    // The state after the draws continues the host generator's stream.
    s = xorshift64_next(s);
    *ints = folded.rotate_left(7) ^ xorshift64_urand64(s);
    *floats = total;
    *normals = gauss;
}

/// `m` rounds of every draw of XorShift1024* state `i`, through the
/// device form of the generator (a `#[device] struct` passed along):
/// integers folded together, uniform floats summed, normals summed apart.
#[kernel]
pub fn random_streams_1024(
    i: usize,
    ints: &mut u64,
    floats: &mut f64,
    normals: &mut f64,
    key: u64,
    states: usize,
    m: usize,
) {
    let mut g = xorshift1024_state(key, states, i);
    let mut folded = 0u64;
    let mut total = 0.0;
    let mut gauss = 0.0;
    let top = (1u64 << 63) + 5;
    for _draw in 0..m {
        g = xorshift1024_next(g);
        folded = folded.rotate_left(7) ^ xorshift1024_urand64(g) ^ xorshift1024_urand(g) as u64;
        folded ^= ((xorshift1024_rand(g) as u64) << 1) ^ xorshift1024_rand64(g) as u64;
        total += xorshift1024_drand(g) + xorshift1024_frand(g) as f64;
        folded = folded.rotate_left(7) ^ xorshift1024_urand64_in(g, 3, top);
        g = xorshift1024_after_urand64_in(g, 3, top);
        folded = folded.rotate_left(7) ^ xorshift1024_urand_in(g, 10, 17) as u64;
        g = xorshift1024_after_urand_in(g, 10, 17);
        total += xorshift1024_drand_in(g, -2.0, 3.0);
        g = xorshift1024_after_drand_in(g, -2.0, 3.0);
        total += xorshift1024_frand_in(g, 0.25, 0.5) as f64;
        g = xorshift1024_after_frand_in(g, 0.25, 0.5);
        gauss += xorshift1024_normal(g);
        g = xorshift1024_after_normal(g);
    }
    *ints = folded;
    *floats = total;
    *normals = gauss;
}

/// Element `i` of `fill_random`'s f64 fill, computed inside a kernel.
#[kernel]
pub fn random_fill_element(i: usize, y: &mut f64, key: u64, lo: f64, hi: f64) {
    *y = fill_element_f64(key, i as u64, lo, hi);
}

macro_rules! random_tests {
    () => {
        mod random {
            use super::space;
            use granule::containers::random::{
                fill_random_on, RandomError, RandomGenerator, RandomPool, XorShift1024Pool,
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
                    fill_random_on(&s, &mut v, $pool, $lo..$hi).unwrap();
                    create_mirror_view_and_copy(&v).unwrap().to_vec()
                }};
            }

            #[test]
            fn random_fill_floats_are_the_counter_based_elements_bitwise() {
                use granule::containers::random::device::{fill_element_f32, fill_element_f64};
                let pool = XorShift64Pool::with_states("fill", 20261124, 1).unwrap();
                let d = filled!(f64, &pool, -3.5, 1e3);
                let f = filled!(f32, &pool, 0.25f32, 0.5f32);
                for i in 0..N {
                    let want = fill_element_f64(pool.key(), i as u64, -3.5, 1e3);
                    assert_eq!(d[i].to_bits(), want.to_bits(), "f64 element {i}");
                    let want = fill_element_f32(pool.key(), i as u64, 0.25, 0.5);
                    assert_eq!(f[i].to_bits(), want.to_bits(), "f32 element {i}");
                }
                // The same elements from a kernel of the user's.
                let s = space();
                let mut y =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "y", N).unwrap();
                let k = crate::random::random_fill_element(pool.key(), -3.5, 1e3);
                parallel_for("elements", RangePolicy::new(&s, 0..N), &mut y, k);
                let y = create_mirror_view_and_copy(&y).unwrap().to_vec();
                assert!(y.iter().zip(&d).all(|(a, b)| a.to_bits() == b.to_bits()));
            }

            /// A strided View (a column) and a contiguous one longer than
            /// a host block, filled on the space: element i is the element
            /// function's i, also for the range whose first draws round to
            /// its end half the time (the redraws).
            #[test]
            fn random_fill_of_strided_and_long_views_is_the_element_function() {
                use granule::containers::random::device::fill_element_f64;
                let pool = XorShift64Pool::with_states("fill", 11, 1).unwrap();
                let s = space();
                let narrow = f64::from_bits(1.0f64.to_bits() + 1);
                for (lo, hi) in [(-1.0, 1.0), (1.0, narrow)] {
                    let mut m =
                        View2::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "m", [N, 3])
                            .unwrap();
                    fill_random_on(&s, &mut m.subview_mut((ALL, 1)).unwrap(), &pool, lo..hi).unwrap();
                    let m = create_mirror_view_and_copy(&m).unwrap().to_vec();
                    let mut long =
                        View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "long", 40_000)
                            .unwrap();
                    fill_random_on(&s, &mut long, &pool, lo..hi).unwrap();
                    let long = create_mirror_view_and_copy(&long).unwrap().to_vec();
                    for i in 0..N {
                        let want = fill_element_f64(pool.key(), i as u64, lo, hi).to_bits();
                        assert_eq!(m[3 * i + 1].to_bits(), want, "column element {i}");
                        assert_eq!(m[3 * i], 0.0, "outside the column");
                    }
                    for (i, v) in long.iter().enumerate() {
                        let want = fill_element_f64(pool.key(), i as u64, lo, hi).to_bits();
                        assert_eq!(v.to_bits(), want, "element {i} of {lo}..{hi}");
                    }
                }
            }

            #[test]
            fn random_fill_elements_are_the_pools_state_words() {
                use granule::containers::random::device::{fill_element_below, xorshift64_state};
                let pool = XorShift64Pool::with_states("fill", 7, N).unwrap();
                // Over 0..u64::MAX only the word 0 is rejected (it never
                // occurs: state words are not zero) and u64::MAX wraps to
                // 0, so element i is state i's word.
                let all = filled!(u64, &pool, 0, u64::MAX);
                for (i, &v) in all.iter().enumerate() {
                    let word = xorshift64_state(pool.key(), N, i);
                    assert_eq!(v, word % u64::MAX, "u64 element {i}");
                }
                // A span just above 2^63 rejects almost half the first
                // draws, so the redraws run on every space.
                let (lo, hi) = (3, (1u64 << 63) + 5);
                let u = filled!(u64, &pool, lo, hi);
                let w = filled!(u32, &pool, 10u32, 17u32);
                let i = filled!(i64, &pool, i64::MIN, i64::MAX);
                let j = filled!(i32, &pool, -5i32, 5i32);
                let span = (i64::MAX as i128 - i64::MIN as i128) as u64;
                for k in 0..N {
                    let at = |span| fill_element_below(pool.key(), k as u64, span);
                    assert_eq!(u[k], lo + at(hi - lo), "u64 element {k}");
                    assert_eq!(w[k], 10 + at(7) as u32, "u32 element {k}");
                    assert_eq!(
                        i[k],
                        i64::MIN.wrapping_add(at(span) as i64),
                        "i64 element {k}"
                    );
                    assert_eq!(j[k], -5 + at(10) as i32, "i32 element {k}");
                }
                assert!(u.iter().any(|&x| x >= 1 << 62) && u.iter().any(|&x| x < 1 << 62));
            }

            #[test]
            fn random_fill_depends_on_the_seed_only() {
                // Same seed, other pool kind and size: the same values.
                let a = XorShift64Pool::with_states("a", 99, 1).unwrap();
                let b = XorShift1024Pool::with_states("b", 99, 1000).unwrap();
                assert_eq!(filled!(u64, &a, 0, 1000), filled!(u64, &b, 0, 1000));
                assert_ne!(
                    filled!(u64, &a, 0, 1000),
                    filled!(u64, &a.renewed(), 0, 1000)
                );
            }

            #[test]
            fn random_bad_input_is_a_typed_error() {
                assert!(matches!(
                    XorShift64Pool::with_states("p", 1, 0),
                    Err(RandomError::EmptyPool { .. })
                ));
                // State i of a XorShift1024 pool is words 16 i..16 i + 16 of
                // its 64-bit counter: past 2^60 states, two would share one.
                let e = XorShift1024Pool::with_states("p", 7, usize::MAX).unwrap_err();
                assert!(
                    matches!(e, RandomError::TooManyStates { max, .. } if max == 1 << 60),
                    "{e}"
                );
                assert!(e.to_string().contains("random pool \"p\""), "{e}");
                let most = XorShift1024Pool::with_states("most", 7, 1 << 60).unwrap();
                let draws = |i: usize| {
                    let mut g = most.state_at(i);
                    (0..64).map(|_| g.urand64()).collect::<Vec<_>>()
                };
                assert_ne!(draws(3), draws(3 + (1 << 59)));
                assert_ne!(draws(0), draws((1 << 60) - 1));
                assert!(XorShift64Pool::with_states("p", 7, usize::MAX).is_ok());
                let pool = XorShift64Pool::with_states("p", 1, 4).unwrap();
                let s = space();
                let mut f =
                    View1::<f32, LayoutRight, _>::zeros_in(s.memory_space(), "f", 8).unwrap();
                for (lo, hi) in [
                    (1.0, 1.0),
                    (1.0, 0.0),
                    (f32::NAN, 1.0),
                    (-f32::MAX, f32::MAX),
                ] {
                    let e = fill_random_on(&s, &mut f, &pool, lo..hi).unwrap_err();
                    assert!(matches!(e, RandomError::InvalidRange { .. }), "{e}");
                    assert!(e.to_string().contains("random pool \"p\""), "{e}");
                }
                let mut u =
                    View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "u", 8).unwrap();
                assert!(fill_random_on(&s, &mut u, &pool, 5..5).is_err());
                // Nothing was written.
                let f = create_mirror_view_and_copy(&f).unwrap().to_vec();
                assert!(f.iter().all(|&x| x == 0.0));
            }

            #[test]
            fn random_device_generator_matches_the_host_generator_bitwise() {
                let s = space();
                let (n, m) = (N, 20);
                let pool = XorShift64Pool::with_states("streams", 42, n).unwrap();
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
                    let mut g = pool.state_at(i);
                    let (mut folded, mut total) = (0u64, 0.0);
                    for _ in 0..m {
                        // Each draw reads one state: clones give its four forms.
                        let u = g.clone().urand64() ^ u64::from(g.clone().urand());
                        folded = folded.rotate_left(7) ^ u;
                        let r = ((g.clone().rand() as u64) << 1) ^ g.clone().rand64() as u64;
                        folded ^= r;
                        total += g.clone().drand() + f64::from(g.clone().frand());
                        g.urand64();
                    }
                    assert_eq!(bits[i], folded, "work item {i}");
                    assert_eq!(sum[i].to_bits(), total.to_bits(), "work item {i}");
                }
            }

            /// The XorShift1024* generator inside a kernel: every draw
            /// kind, past several turns of its 16-word ring, equals the
            /// host generator's (normals to 1e-12: `ln` and `sqrt` may
            /// round differently on a GPU).
            #[test]
            fn random_device_xorshift1024_matches_the_host_generator() {
                let s = space();
                let (n, m) = (64, 9);
                let pool = XorShift1024Pool::with_states("streams", 77, n).unwrap();
                let mut ints =
                    View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "ints", n).unwrap();
                let mut floats =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "floats", n).unwrap();
                let mut normals =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "normals", n).unwrap();
                let k = crate::random::random_streams_1024(pool.key(), n, m);
                parallel_for(
                    "streams 1024",
                    RangePolicy::new(&s, 0..n),
                    (&mut ints, &mut floats, &mut normals),
                    k,
                );
                let ints = create_mirror_view_and_copy(&ints).unwrap();
                let floats = create_mirror_view_and_copy(&floats).unwrap();
                let normals = create_mirror_view_and_copy(&normals).unwrap();
                let top = (1u64 << 63) + 5;
                for i in 0..n {
                    let mut g = pool.state_at(i);
                    let (mut folded, mut total, mut gauss) = (0u64, 0.0, 0.0);
                    for _ in 0..m {
                        let u = g.clone().urand64() ^ u64::from(g.clone().urand());
                        folded = folded.rotate_left(7) ^ u;
                        let r = ((g.clone().rand() as u64) << 1) ^ g.clone().rand64() as u64;
                        folded ^= r;
                        total += g.clone().drand() + f64::from(g.clone().frand());
                        g.urand64();
                        folded = folded.rotate_left(7) ^ g.urand64_in(3, top);
                        folded = folded.rotate_left(7) ^ u64::from(g.urand_in(10, 17));
                        total += g.drand_in(-2.0, 3.0);
                        total += f64::from(g.frand_in(0.25, 0.5));
                        gauss += g.normal();
                    }
                    assert_eq!(ints[i], folded, "work item {i}");
                    assert_eq!(floats[i].to_bits(), total.to_bits(), "work item {i}");
                    let err = (normals[i] - gauss).abs() / gauss.abs().max(1.0);
                    assert!(
                        err < 1e-12,
                        "work item {i}: normals {} vs {gauss}",
                        normals[i]
                    );
                }
            }

            /// Runs `random_range_draws` on space `$s` over `0..$n`: its
            /// three outputs, read back.
            macro_rules! range_draws {
                ($s:expr, $pool:expr, $n:expr, $m:expr, $lo:expr, $hi:expr) => {{
                    let (s, pool, n) = ($s, $pool, $n);
                    let mut ints =
                        View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "ints", n)
                            .unwrap();
                    let mut floats =
                        View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "floats", n)
                            .unwrap();
                    let mut normals =
                        View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "normals", n)
                            .unwrap();
                    let k = crate::random::random_range_draws(
                        pool.key(),
                        pool.num_states(),
                        $m,
                        $lo,
                        $hi,
                    );
                    parallel_for(
                        "ranges",
                        RangePolicy::new(s, 0..n),
                        (&mut ints, &mut floats, &mut normals),
                        k,
                    );
                    s.fence();
                    (
                        create_mirror_view_and_copy(&ints).unwrap().to_vec(),
                        create_mirror_view_and_copy(&floats).unwrap().to_vec(),
                        create_mirror_view_and_copy(&normals).unwrap().to_vec(),
                    )
                }};
            }

            #[test]
            fn random_device_range_draws_and_normals_match_the_host_methods() {
                let s = space();
                let (n, m) = (256, 8);
                let pool = XorShift64Pool::with_states("ranges", 31, n).unwrap();
                let (ints, floats, normals) = range_draws!(&s, &pool, n, m, -3.5, 1e3);
                let top = (1u64 << 63) + 5;
                for i in 0..n {
                    let mut g = pool.state_at(i);
                    let (mut folded, mut total, mut gauss) = (0u64, 0.0, 0.0);
                    for _ in 0..m {
                        folded = folded.rotate_left(7) ^ g.urand64_in(3, top);
                        folded = folded.rotate_left(7) ^ u64::from(g.urand_in(10, 17));
                        total += g.drand_in(-3.5, 1e3);
                        total += f64::from(g.frand_in(0.25, 0.5));
                        gauss += g.normal();
                    }
                    folded = folded.rotate_left(7) ^ g.urand64();
                    assert_eq!(ints[i], folded, "work item {i}");
                    assert_eq!(floats[i].to_bits(), total.to_bits(), "work item {i}");
                    // ln and sqrt are exact on the host spaces and the
                    // emulator; a GPU may differ in the last bits.
                    let tolerance = 1e-12 * (1.0 + gauss.abs());
                    assert!((normals[i] - gauss).abs() <= tolerance, "work item {i}");
                }
            }

            #[test]
            fn random_bad_range_fails_the_kernel() {
                let pool = XorShift64Pool::with_states("ranges", 1, 4).unwrap();
                for (lo, hi) in [(1.0, 0.0), (f64::NAN, 1.0), (-f64::MAX, f64::MAX)] {
                    // The kernel fails on a device: a space of its own keeps
                    // the report for this test.
                    let s = super::own_space();
                    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        range_draws!(&s, &pool, 4, 1, lo, hi);
                    }))
                    .unwrap_err();
                    let msg = crate::soundness::message(&*p);
                    assert!(
                        msg.contains("random pool: cannot draw from")
                            && msg.contains("the range must be finite with start below end"),
                        "{lo}..{hi}: {msg}"
                    );
                }
            }

            #[test]
            fn random_bad_state_index_fails_the_kernel() {
                // The kernel fails on a device: a space of its own keeps
                // the report for this test.
                let s = super::own_space();
                let pool = XorShift64Pool::with_states("small", 1, 10).unwrap();
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
                let msg = crate::soundness::message(&*p);
                assert!(
                    msg.contains("state 10 asked for, but the pool has 10 states"),
                    "{msg}"
                );
            }

            #[test]
            fn random_fill_of_an_empty_view_is_a_no_op() {
                let pool = XorShift64Pool::with_states("p", 1, 1).unwrap();
                let s = space();
                let mut v =
                    View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "e", 0).unwrap();
                fill_random_on(&s, &mut v, &pool, 0.0..1.0).unwrap();
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
            let pool = XorShift1024Pool::with_states("mc", 5, n).unwrap();
            let mut v = View1::<f64>::zeros("v", n).unwrap();
            parallel_for(
                "draw",
                RangePolicy::new(&s, 0..n),
                &mut v,
                |i, v: &mut f64| {
                    let mut g = pool.state_at(i);
                    *v = (0..10).map(|_| g.normal()).sum::<f64>();
                    pool.free_state(g);
                },
            );
            for i in [0, 1, 999, n - 1] {
                let mut g = pool.state_at(i);
                let want: f64 = (0..10).map(|_| g.normal()).sum();
                assert_eq!(v[i].to_bits(), want.to_bits(), "work item {i}");
            }
        }
    };
}
