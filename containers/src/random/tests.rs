//! Statistical checks of the generators, with fixed seeds so that they are
//! deterministic: the thresholds are quantiles the streams would fail
//! about once in a million seeds if they were truly random, so a failure
//! means a broken generator or seeding, not bad luck.

use super::*;
use granule_core::Serial;
use granule_views::View1;

const STATES: usize = 64;
const DRAWS: usize = 4096;

/// Pearson's chi-square statistic of `counts` against equal expectations.
fn chi_square(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum()
}

/// The chi-square quantile of 63 degrees of freedom at 1 - 10^-6, by
/// Wilson and Hilferty's approximation k (1 - 2/(9k) + z sqrt(2/(9k)))^3
/// with z = 4.75 (the normal's 1 - 10^-6 quantile): 131.7.
const CHI2_63_1E6: f64 = 131.7;

fn uniformity<G: RandomGenerator>(mut draw: impl FnMut(usize) -> G, bin: impl Fn(&mut G) -> usize) {
    let mut counts = [0u64; 64];
    for s in 0..STATES {
        let mut g = draw(s);
        for _ in 0..DRAWS {
            counts[bin(&mut g)] += 1;
        }
    }
    let chi2 = chi_square(&counts);
    assert!(
        chi2 < CHI2_63_1E6,
        "chi-square {chi2} over 64 bins >= {CHI2_63_1E6}"
    );
}

#[test]
fn xorshift64_is_uniform() {
    let pool = XorShift64Pool::with_states("chi2", 1, STATES).unwrap();
    uniformity(|s| pool.state_at(s), |g| g.urand_in(0, 64) as usize);
    uniformity(|s| pool.state_at(s), |g| (g.drand() * 64.0) as usize);
    uniformity(|s| pool.state_at(s), |g| (g.frand() * 64.0) as usize);
    // The low bits too: the scrambling multiply leaves them weakest.
    uniformity(|s| pool.state_at(s), |g| (g.urand64() & 63) as usize);
}

#[test]
fn xorshift1024_is_uniform() {
    let pool = XorShift1024Pool::with_states("chi2", 1, STATES).unwrap();
    uniformity(|s| pool.state_at(s), |g| g.urand_in(0, 64) as usize);
    uniformity(|s| pool.state_at(s), |g| (g.drand() * 64.0) as usize);
    uniformity(|s| pool.state_at(s), |g| (g.urand64() & 63) as usize);
}

/// Pearson's correlation of two equally long samples.
fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// For independent streams the sample correlation of n pairs is about
/// normal with standard deviation 1/sqrt(n) (1/64 for 4096 draws). Over
/// the 63 neighbouring pairs a bound of 5.5 sigma is exceeded with
/// probability about 63 * 4e-8: a failure is a real correlation.
fn neighbours_uncorrelated<G: RandomGenerator>(draw: impl Fn(usize) -> G) {
    let streams: Vec<Vec<f64>> = (0..STATES)
        .map(|s| {
            let mut g = draw(s);
            (0..DRAWS).map(|_| g.drand()).collect()
        })
        .collect();
    let bound = 5.5 / (DRAWS as f64).sqrt();
    for s in 1..STATES {
        let r = correlation(&streams[s - 1], &streams[s]);
        assert!(
            r.abs() < bound,
            "states {} and {s}: correlation {r} >= {bound}",
            s - 1
        );
    }
}

#[test]
fn neighbouring_states_are_uncorrelated() {
    for seed in [0, 1, u64::MAX] {
        let p64 = XorShift64Pool::with_states("corr", seed, STATES).unwrap();
        neighbours_uncorrelated(|s| p64.state_at(s));
        let p1024 = XorShift1024Pool::with_states("corr", seed, STATES).unwrap();
        neighbours_uncorrelated(|s| p1024.state_at(s));
    }
}

#[test]
fn fill_random_neighbours_are_uncorrelated_and_uniform() {
    let pool = XorShift64Pool::with_states("fill", 3, 1).unwrap();
    let n = STATES * DRAWS;
    let mut x = View1::<f64>::zeros("x", n).unwrap();
    fill_random_on(&Serial, &mut x, &pool, 0.0..1.0).unwrap();
    let v = x.to_vec();
    // Lag-1 correlation of elements i and i + 1 (n - 1 pairs): the bound
    // is 5.5 / sqrt(n) as above.
    let r = correlation(&v[..n - 1], &v[1..]);
    assert!(r.abs() < 5.5 / (n as f64).sqrt(), "lag-1 correlation {r}");
    let mut counts = [0u64; 64];
    v.iter().for_each(|u| counts[(u * 64.0) as usize] += 1);
    assert!(chi_square(&counts) < CHI2_63_1E6);
}

#[test]
fn normal_has_mean_zero_and_variance_one() {
    let pool = XorShift64Pool::with_states("normal", 9, 1).unwrap();
    let mut g = pool.state_at(0);
    let n = 100_000;
    let xs: Vec<f64> = (0..n).map(|_| g.normal()).collect();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    // Standard errors: 1/sqrt(n) = 0.0032 for the mean, sqrt(2/n) = 0.0045
    // for the variance; 5 of them.
    assert!(mean.abs() < 0.016, "mean {mean}");
    assert!((var - 1.0).abs() < 0.023, "variance {var}");
}

#[test]
fn same_seed_same_numbers_different_seeds_differ() {
    let a = XorShift1024Pool::with_states("a", 5, 4).unwrap();
    let b = XorShift1024Pool::with_states("b", 5, 4).unwrap();
    let c = XorShift1024Pool::with_states("c", 6, 4).unwrap();
    let take = |p: &XorShift1024Pool| -> Vec<u64> {
        let mut g = p.state_at(3);
        (0..100).map(|_| g.urand64()).collect()
    };
    assert_eq!(take(&a), take(&b));
    assert_ne!(take(&a), take(&c));
    assert_ne!(take(&a), take(&a.renewed()));
}

#[test]
fn ranges_stay_inside_and_reach_both_ends() {
    let pool = XorShift64Pool::with_states("r", 11, 1).unwrap();
    let mut g = pool.state_at(0);
    let mut seen = [false; 3];
    for _ in 0..1000 {
        let v = g.urand64_in(u64::MAX - 3, u64::MAX);
        seen[(v - (u64::MAX - 3)) as usize] = true;
        let f = g.frand_in(-2.0, -1.0);
        assert!((-2.0..-1.0).contains(&f));
    }
    assert_eq!(seen, [true; 3]);
}

#[test]
fn bad_input_is_a_typed_error_or_a_panic_naming_the_pool() {
    assert_eq!(
        XorShift1024Pool::with_states("empty", 0, 0).unwrap_err(),
        RandomError::EmptyPool {
            label: "empty".into()
        }
    );
    let pool = XorShift64Pool::with_states("bad", 0, 2).unwrap();
    assert!(matches!(
        pool.try_state_at(2),
        Err(RandomError::StateOutOfRange {
            index: 2,
            num_states: 2,
            ..
        })
    ));
    let mut g = pool.state_at(0);
    for (lo, hi) in [
        (1.0, 1.0),
        (2.0, 1.0),
        (f32::NAN, 1.0),
        (0.0, f32::INFINITY),
        (f32::MIN, f32::MAX),
    ] {
        let e = g.try_frand_in(lo, hi).unwrap_err();
        assert!(
            matches!(e, RandomError::InvalidRange { .. }) && e.to_string().contains("\"bad\""),
            "{e}"
        );
    }
    assert!(g.try_urand_in(3, 3).is_err());
    let mut x = View1::<f32>::zeros("x", 4).unwrap();
    let e = fill_random_on(&Serial, &mut x, &pool, 1.0..0.0).unwrap_err();
    assert!(e.to_string().contains("cannot draw from 1.0..0.0"), "{e}");
    let panic = std::panic::catch_unwind(|| pool.state_at(0).drand_in(1.0, 0.0)).unwrap_err();
    let msg = panic.downcast_ref::<String>().unwrap();
    assert!(msg.contains("random pool \"bad\""), "{msg}");
}

#[test]
fn fill_random_integers_are_uniform_over_seeds() {
    for seed in [0, 1, u64::MAX] {
        let pool = XorShift64Pool::with_states("fill", seed, 1).unwrap();
        let mut x = View1::<u32>::zeros("x", STATES * DRAWS).unwrap();
        fill_random_on(&Serial, &mut x, &pool, 0..64).unwrap();
        let mut counts = [0u64; 64];
        x.to_vec().iter().for_each(|&u| counts[u as usize] += 1);
        let chi2 = chi_square(&counts);
        assert!(chi2 < CHI2_63_1E6, "seed {seed}: chi-square {chi2}");
    }
}

/// The fill's stream is part of what a seed promises (the same numbers on
/// every space and in every version): these are its first elements for
/// seed 2024, SplitMix64 outputs of the key mix64(2024 ^ 0x5eed..), as an
/// independent implementation of SplitMix64 computes them. A change here
/// is a change of every user's results.
#[test]
fn fill_random_stream_is_pinned() {
    let pool = XorShift64Pool::with_states("golden", 2024, 1).unwrap();
    let mut x = View1::<u64>::zeros("x", 4).unwrap();
    fill_random_on(&Serial, &mut x, &pool, 0..u64::MAX).unwrap();
    let words = [
        0xcd9f_de3f_a042_2413,
        0xf8bc_ae5a_5a25_300c,
        0xe7e3_14c7_ae95_4fa2,
        0x54ea_d695_196d_1acc,
    ];
    assert_eq!(x.to_vec(), words);
    // Doubles: -1 + 2 u, u the top 53 bits of the same words.
    let mut d = View1::<f64>::zeros("d", 2).unwrap();
    fill_random_on(&Serial, &mut d, &pool, -1.0..1.0).unwrap();
    let bits: Vec<u64> = d.to_vec().iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, [4_603_637_557_071_712_392, 4_606_671_333_103_143_244]);
}

#[test]
fn more_bad_input_is_a_typed_error_naming_the_pool() {
    assert!(matches!(
        XorShift64Pool::with_states("none", 3, 0),
        Err(RandomError::EmptyPool { label }) if label == "none"
    ));
    let pool = XorShift1024Pool::with_states("wide", 0, 3).unwrap();
    let e = pool.try_state_at(3).unwrap_err();
    assert!(e.to_string().contains("\"wide\": state 3 asked for"), "{e}");
    let mut g = pool.state_at(2);
    for (lo, hi) in [
        (0.0, f64::NAN),
        (f64::NAN, f64::NAN),
        (1.0, 1.0),
        (-f64::MAX, f64::MAX),
    ] {
        let e = g.try_drand_in(lo, hi).unwrap_err();
        assert!(e.to_string().contains("random pool \"wide\""), "{e}");
    }
    assert!(matches!(
        g.try_urand64_in(9, 2),
        Err(RandomError::InvalidRange { .. })
    ));
    let panic = std::panic::catch_unwind(|| pool.state_at(7)).unwrap_err();
    let msg = panic.downcast_ref::<String>().unwrap();
    assert!(msg.contains("random pool \"wide\": state 7"), "{msg}");
}

#[test]
fn get_state_keeps_each_state_advanced_for_the_next_user() {
    let pool = XorShift64Pool::with_states("kept", 5, 1).unwrap();
    let mut fresh = pool.state_at(0);
    let want: Vec<u64> = (0..4).map(|_| fresh.urand64()).collect();
    let mut g = pool.get_state();
    let first = [g.urand64(), g.urand64()];
    pool.free_state(g);
    // Dropping gives the state back as well.
    let second = {
        let mut g = pool.get_state();
        [g.urand64(), g.urand64()]
    };
    assert_eq!([first, second].concat(), want);
    // state_at ignores what get_state's users drew.
    assert_eq!(pool.state_at(0).urand64(), want[0]);
    // A clone shares the kept states, a renewed pool has its own.
    assert_ne!(pool.clone().get_state().urand64(), want[0]);
    assert_ne!(pool.renewed().get_state().urand64(), want[0]);
}

#[test]
fn generators_held_at_once_have_distinct_states() {
    let pool = XorShift1024Pool::with_states("held", 8, 3).unwrap();
    let firsts: Vec<u64> = (0..3).map(|i| pool.state_at(i).urand64()).collect();
    let mut held: Vec<_> = (0..3).map(|_| pool.get_state()).collect();
    let mut got: Vec<u64> = held.iter_mut().map(|g| g.urand64()).collect();
    got.sort_unstable();
    let mut want = firsts.clone();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[cfg(feature = "rayon")]
#[test]
fn a_pool_from_a_space_has_one_state_per_concurrent_work_item() {
    let rayon = granule_rayon::Rayon::new(3).unwrap();
    let pool = XorShift64Pool::new(&rayon, 1);
    assert_eq!(pool.num_states(), 3);
    assert_eq!(pool.label(), "XorShift64Pool");
    assert_eq!(XorShift1024Pool::new(&Serial, 1).num_states(), 1);
    // Every thread of the space draws through get_state at once.
    let n = 10_000;
    let mut x = View1::<f64>::zeros("x", n).unwrap();
    granule_core::pattern::parallel_for(
        "draw",
        granule_core::RangePolicy::new(&rayon, 0..n),
        &mut x,
        |_i: usize, y: &mut f64| {
            let mut g = pool.get_state();
            *y = g.drand_to(2.0);
        },
    );
    let x = x.to_vec();
    assert!(x.iter().all(|v| (0.0..2.0).contains(v)));
    let mean = x.iter().sum::<f64>() / n as f64;
    assert!((mean - 1.0).abs() < 0.05, "mean {mean}");
}

#[test]
fn kokkos_draw_forms_stay_in_their_ranges() {
    let pool = XorShift64Pool::with_states("forms", 3, 1).unwrap();
    let mut g = pool.state_at(0);
    let (mut low, mut high) = (false, false);
    for _ in 0..10_000 {
        assert!(g.rand() >= 0);
        assert!(g.rand64() >= 0);
        assert!(g.urand_to(7) < 7);
        assert!(g.urand64_to(3) < 3);
        assert!((0..5).contains(&g.rand_to(5)));
        assert!((0..5).contains(&g.rand64_to(5)));
        let r = g.rand_in(-3, 2);
        assert!((-3..2).contains(&r));
        low |= r == -3;
        high |= r == 1;
        let _ = g.rand64_in(i64::MIN, i64::MAX);
        assert!((0.0..0.5).contains(&g.frand_to(0.5)));
        assert!((0.0..1e-3).contains(&g.drand_to(1e-3)));
    }
    assert!(low && high, "rand_in reaches both ends");
    assert!(g.try_rand_in(2, -3).is_err());
    assert!(g.try_rand64_in(0, 0).is_err());
}
