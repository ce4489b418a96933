//! Whole radix sorts on the host spaces against a sequential stable sort:
//! every shape of split (one global pass, two, three, by a plan, buckets
//! of equal keys, keys alone and with values at any byte of their lines),
//! reached with inputs of a few MB through a small bucket limit.

use super::*;

/// A xorshift stream, so the test needs no dependency.
pub(in crate::sort) fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// `n` keys, two thirds of them in `0..1000` and the rest random: the
/// bucket of the small ones is too large for a test bucket, and splits
/// once more (two global passes).
fn skewed(r: &mut impl FnMut() -> u64, n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| match i % 3 {
            0 => r() as u32,
            _ => (r() % 1000) as u32,
        })
        .collect()
}

/// Sorts `keys` with values recording their index on `exec`, checks
/// the first digit's shift and the global passes taken (`None` when
/// all keys are equal), and compares with a sequential stable sort; then
/// sorts the keys alone.
fn check<E: HostExec, K: RadixKey>(exec: &E, keys: &[K], want: Option<(u32, usize)>) {
    check_within(exec, keys, want, TEST_BUCKET);
}

/// [`check`] with buckets of at most `limit` bytes.
fn check_within<E: HostExec, K: RadixKey>(
    exec: &E,
    keys: &[K],
    want: Option<(u32, usize)>,
    limit: usize,
) {
    let n = keys.len();
    let mut k = Scratch::<K>::new("t", n).unwrap();
    let mut v = Scratch::<u32>::new("t", n).unwrap();
    let (dk, dv) = (k.dst(), v.dst());
    for (i, &key) in keys.iter().enumerate() {
        // SAFETY: in bounds, our own buffers.
        unsafe { (dk.put(i, key), dv.put(i, i as u32)) };
    }
    // SAFETY: the buffers are written and ours.
    let top = unsafe { survey(exec, "t", &dk.as_src(), 8 * K::BYTES as u32) }.map(|s| s.shift);
    // SAFETY: as above.
    let passes = unsafe { radix_sort_within(exec, "t", (dk, Some(dv)), limit).unwrap() };
    assert_eq!(top.map(|t| (t, passes)), want, "first digit and passes");
    assert!(want.is_some() || passes == 0);
    let mut expect: Vec<(K, u32)> = keys.iter().copied().zip(0..).collect();
    expect.sort_by_key(|&(key, _)| key.to_radix()); // stable
    let (sk, sv) = (k.src(), v.src());
    // SAFETY: as above.
    let got: Vec<(K, u32)> = (0..n).map(|i| unsafe { (sk.get(i), sv.get(i)) }).collect();
    // Compared by bits: NaN keys are not equal to themselves.
    let bits = |kv: &[(K, u32)]| {
        kv.iter()
            .map(|&(k, v)| (k.to_radix(), v))
            .collect::<Vec<_>>()
    };
    assert!(
        bits(&got) == bits(&expect),
        "sort_by_key of {n} keys differs"
    );

    let mut k = Scratch::<K>::new("t", n).unwrap();
    let dk = k.dst();
    for (i, &key) in keys.iter().enumerate() {
        // SAFETY: as above.
        unsafe { dk.put(i, key) };
    }
    // SAFETY: as above.
    unsafe { radix_sort_within::<E, K, u32>(exec, "t", (dk, None), limit).unwrap() };
    let sk = k.src();
    // SAFETY: as above.
    let got: Vec<u64> = (0..n).map(|i| unsafe { sk.get(i).to_radix() }).collect();
    let expect: Vec<u64> = expect.into_iter().map(|(key, _)| key.to_radix()).collect();
    assert!(got == expect, "sort of {n} keys differs");
}

/// The bucket limit of [`check`]'s sorts: small, so that inputs of a
/// few MB reach every shape of split.
const TEST_BUCKET: usize = 1 << 21;

fn every_shape<E: HostExec>(exec: &E) {
    let mut r = rng(0x9E37_79B9_7F4A_7C15);
    // Few distinct values spread over the top byte: many duplicates in
    // every bucket, so an unstable bucket sort would show.
    let spread: Vec<u32> = (0..400_000)
        .map(|_| (r() % 20_000) as u32 * 214_748)
        .collect();
    check(exec, &spread, Some((24, 1)));
    // Two thirds of the keys in one top-byte bucket of 3.2 MB, all of
    // them in 0..1000: a plan of bits 20..32 keeps them in one bucket
    // (with the other keys of top 12 bits 0), still too large, which a
    // plan of bits 8..20 cuts in four (a digit's passes would take
    // three: by bits 16..24, which the other keys vary, then 8..16).
    check(exec, &skewed(&mut r, 600_000), Some((24, 2)));
    // Two thirds of the keys equal, the rest random with another top
    // byte: a large bucket whose keys are all equal, left in order.
    let equal: Vec<u32> = (0..600_000)
        .map(|i| match i % 3 {
            0 => r() as u32 & 0x7fff_ffff,
            _ => 0xff00_0000,
        })
        .collect();
    check(exec, &equal, Some((24, 1)));
    // Two thirds of the keys differ only in the low byte, the rest
    // random: split down to the last byte, by a plan of 12 bits twice
    // (a digit's passes would take four).
    let repeated: Vec<u32> = (0..600_000)
        .map(|i| match i % 3 {
            0 => r() as u32,
            _ => 0xabcd_1200 | (r() % 4) as u32,
        })
        .collect();
    check(exec, &repeated, Some((24, 3)));
    // Keys in 0..2^20: the buckets are bits 12..20's, bits above
    // ignored.
    let low: Vec<i32> = (0..300_000).map(|_| (r() % (1 << 20)) as i32).collect();
    check(exec, &low, Some((12, 1)));
    let wide: Vec<u64> = (0..300_000).map(|_| r() % (1 << 44)).collect();
    check(exec, &wide, Some((36, 1)));
    let signed: Vec<i64> = (0..300_000)
        .map(|_| ((r() % 5000) as i64 - 2500) * 0x3_0000_0000_0001)
        .collect();
    check(exec, &signed, Some((56, 1)));
    // Two top-byte buckets (one per sign, exponents 1024 and up) of 2.4
    // MB each: the pass is planned by 12 bits instead, which cut them
    // small (a digit's pass would have split them again).
    let floats: Vec<f64> = (0..400_000).map(|_| (r() % 7000) as f64 - 3500.5).collect();
    check(exec, &floats, Some((56, 1)));
    let floats: Vec<f32> = (0..300_000).map(|_| f32::from_bits(r() as u32)).collect();
    check(exec, &floats, Some((24, 1)));
    let same = vec![7u64; 200_000];
    check(exec, &same, None);
    for n in [0, 1, 2, 3, 100, 5000] {
        let mut small: Vec<i64> = (0..n).map(|_| (r() % 50) as i64 - 25).collect();
        if n >= 2 {
            // Both signs, so the sign byte varies.
            (small[0], small[1]) = (3, -3);
        }
        let want = (n >= 2).then_some((56, 0));
        check(exec, &small, want);
    }
}

/// Floats in `0.0..1.0` put half their keys in exponent 126, which the
/// top varying 8 bits cut only in two: with buckets of 256 KiB, those
/// halves are too large, and a digit's pass would split them again.
/// The plan of 12 bits cuts every exponent in 32: one pass.
#[test]
fn floats_in_the_unit_interval_take_one_pass() {
    let mut r = rng(0x51_7CC1_B727_220A);
    let mut unit: Vec<f32> = (0..300_000)
        .map(|_| (r() >> 40) as f32 / (1u64 << 24) as f32)
        .collect();
    // A zero makes every exponent bit vary.
    unit[1000] = 0.0;
    check_within(&Serial, &unit, Some((22, 1)), 1 << 18);
    #[cfg(feature = "rayon")]
    check_within(
        &granule_rayon::Rayon::new(2).unwrap(),
        &unit,
        Some((22, 1)),
        1 << 18,
    );
}

#[test]
fn every_shape_sorts_stably_on_serial() {
    every_shape(&Serial);
}

#[cfg(feature = "rayon")]
#[test]
fn every_shape_sorts_stably_on_rayon() {
    every_shape(&granule_rayon::Rayon::new(2).unwrap());
}

/// A global pass streams whole lines of values only where they sit at
/// the keys' byte of their lines. Crowded keys take two passes, the
/// second into the View's parts: keys and values starting at the same
/// or at different bytes of a line, and values of another size, all
/// sort stably.
#[test]
fn values_at_any_byte_of_their_lines_sort_stably() {
    fn sort_parts<V: Element + PartialEq + std::fmt::Debug>(
        skip: (usize, usize),
        value: fn(u32) -> V,
    ) {
        let n = 600_000;
        let keys = skewed(&mut rng(0x2545_F491_4F6C_DD1D), n);
        let mut k = Scratch::<u32>::new("t", n + 16).unwrap();
        let mut v = Scratch::<V>::new("t", n + 16).unwrap();
        let (dk, dv) = (
            k.dst().part(skip.0, skip.0 + n),
            v.dst().part(skip.1, skip.1 + n),
        );
        for (i, &key) in keys.iter().enumerate() {
            // SAFETY: in bounds, our own buffers.
            unsafe { (dk.put(i, key), dv.put(i, value(i as u32))) };
        }
        // SAFETY: the parts are written and ours.
        let passes = unsafe { radix_sort_within(&Serial, "t", (dk, Some(dv)), TEST_BUCKET) };
        assert_eq!(passes.unwrap(), 2, "global passes");
        let mut want: Vec<(u32, u32)> = keys.into_iter().zip(0..).collect();
        want.sort_by_key(|&(key, _)| key); // stable
        let (sk, sv) = (dk.as_src(), dv.as_src());
        for (i, &(key, at)) in want.iter().enumerate() {
            // SAFETY: in bounds, sorted and returned.
            let got = unsafe { (sk.get(i), sv.get(i)) };
            assert_eq!(got, (key, value(at)), "element {i}, parts at {skip:?}");
        }
    }
    for skip in [(0, 0), (3, 3), (0, 5), (1, 0)] {
        sort_parts(skip, |i| i);
    }
    sort_parts((3, 3), |i| u16::try_from(i % 65_536).unwrap());
    sort_parts((0, 1), |i| u64::from(i) << 20);
}
