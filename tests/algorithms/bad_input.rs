//! Bad input: mismatched lengths and too-small outputs are typed errors
//! that name the Views, and nothing is written.

macro_rules! bad_input_tests {
    () => {
        #[test]
        fn short_outputs_and_mismatched_lengths_are_errors_before_any_write() {
            let s = space();
            let x = view_in(&s, "input", (0..100i64).collect());
            let mut short = view_in(&s, "short", vec![-1i64; 99]);
            let untouched = |v: &View1<i64, LayoutRight, _>| read(v).iter().all(|&e| e == -1);
            let is_too_small = |e: AlgorithmError| {
                let text = e.to_string();
                assert!(
                    text.contains("\"short\" [99]") && text.contains("100"),
                    "{text}"
                );
                matches!(
                    e,
                    AlgorithmError::OutputTooSmall {
                        output_len: 99,
                        needed: 100,
                        ..
                    }
                )
            };
            assert!(is_too_small(
                inclusive_scan(&s, &x, &mut short, Sum, None).unwrap_err()
            ));
            assert!(is_too_small(
                exclusive_scan(&s, &x, &mut short, Sum, None).unwrap_err()
            ));
            assert!(is_too_small(
                transform_inclusive_scan(&s, &x, &mut short, Sum, None, identity()).unwrap_err()
            ));
            assert!(is_too_small(
                copy_if(&s, &x, &mut short, always()).unwrap_err()
            ));
            let mut ok = view_in(&s, "ok", vec![-1i64; 100]);
            assert!(is_too_small(
                partition_copy(&s, &x, &mut ok, &mut short, always()).unwrap_err()
            ));
            let flags = view_in(&s, "flags", vec![1u8; 100]);
            assert!(is_too_small(
                compact_by_flags(&s, &x, &flags, &mut short).unwrap_err()
            ));
            // the counted form needs room for the kept elements only
            let mut tiny = view_in(&s, "tiny", vec![-1i64; 9]);
            let e = copy_if_counted(&s, &x, &mut tiny, under(10)).unwrap_err();
            assert!(
                e.to_string().contains("\"tiny\" [9]") && e.to_string().contains("10 elements"),
                "{e}"
            );
            assert!(untouched(&short) && untouched(&ok) && untouched(&tiny));

            let bad_flags = view_in(&s, "bad_flags", vec![1u8; 101]);
            let e = compact_by_flags(&s, &x, &bad_flags, &mut ok).unwrap_err();
            assert!(matches!(
                e,
                AlgorithmError::LengthMismatch {
                    first_len: 100,
                    second_len: 101,
                    ..
                }
            ));
            assert!(
                e.to_string().contains("\"input\" [100]")
                    && e.to_string().contains("\"bad_flags\" [101]")
            );
            let mut keys = view_in(&s, "keys", vec![3u32, 2, 1]);
            let mut values = view_in(&s, "values", vec![0u32; 4]);
            let e = sort_by_key(&s, &mut keys, &mut values).unwrap_err();
            assert!(
                e.to_string().contains("\"keys\" [3]") && e.to_string().contains("\"values\" [4]"),
                "{e}"
            );
            assert_eq!((read(&keys), read(&values)), (vec![3, 2, 1], vec![0; 4]));
            assert!(untouched(&ok));
        }
    };
}
