//! Property tests: scans with integer operators equal the sequential
//! fold; compaction's count and order; sorts give a sorted permutation.

macro_rules! prop_tests {
    () => {
        mod props {
            use super::*;
            use proptest::prelude::*;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(24))]

                #[test]
                fn integer_scans_equal_the_fold(data in proptest::collection::vec(any::<u32>(), 0..40_000), init in any::<Option<u32>>()) {
                    let s = space();
                    let x = view_in(&s, "x", data.clone());
                    let mut y = view_in(&s, "y", vec![0u32; data.len()]);
                    for inclusive in [true, false] {
                        let t = if inclusive { inclusive_scan(&s, &x, &mut y, BOr, init) } else { exclusive_scan(&s, &x, &mut y, BAnd, init) }.unwrap();
                        let expect = if inclusive { seq_scan(&data, &BOr, init, true) } else { seq_scan(&data, &BAnd, init, false) };
                        prop_assert_eq!((read(&y), t), expect);
                    }
                    let wide: Vec<u64> = data.iter().map(|&v| v as u64).collect();
                    let x = view_in(&s, "x", wide.clone());
                    let mut y = view_in(&s, "y", vec![0u64; wide.len()]);
                    let t = inclusive_scan(&s, &x, &mut y, Sum, None).unwrap();
                    prop_assert_eq!((read(&y), t), seq_scan(&wide, &Sum, None, true));
                }

                #[test]
                fn compaction_keeps_count_and_order(data in proptest::collection::vec(any::<i16>(), 0..40_000), cut in any::<i16>()) {
                    let s = space();
                    let x = view_in(&s, "x", data.clone());
                    let mut y = view_in(&s, "y", vec![0i16; data.len()]);
                    let k = copy_if(&s, &x, &mut y, below_i16(cut)).unwrap();
                    let expect: Vec<i16> = data.iter().copied().filter(|&v| v < cut).collect();
                    prop_assert_eq!(&read(&y)[..k], &expect[..]);
                }

                #[test]
                fn sorts_give_sorted_permutations(data in proptest::collection::vec(any::<i64>(), 0..40_000)) {
                    let s = space();
                    let mut x = view_in(&s, "x", data.clone());
                    sort(&s, &mut x).unwrap();
                    let mut expect = data.clone();
                    expect.sort_unstable();
                    prop_assert_eq!(read(&x), expect.clone());
                    let mut y = view_in(&s, "y", data);
                    sort_by(&s, &mut y, less()).unwrap();
                    prop_assert_eq!(read(&y), expect);
                }
            }
        }
    };
}
