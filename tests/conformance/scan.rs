//! parallel_scan: the Kokkos contract, inclusive/exclusive, in place,
//! custom join and init.

macro_rules! scan_tests {
    () => {
        /// 1001 indices in chunks of every kind; and outputs past
        /// `FETCH_WRITES_BYTES` (two i64 Views of 2^20 + 37 elements),
        /// which take the host spaces' path that asks for the written
        /// lines ahead of the final pass.
        #[test]
        fn scan_int_exclusive_inclusive_total() {
            let s = space();
            let sizes: [(usize, &[usize]); 2] =
                [(1001, &[0, 1, 7, 64, 1000]), ((1 << 20) + 37, &[0])];
            for (n, chunks) in sizes {
                let a = View1::<i64, LayoutRight, _>::from_fn_in(s.memory_space(), "a", n, |i| {
                    i as i64
                })
                .unwrap();
                for &chunk in chunks {
                    let mut ex =
                        View1::<i64, LayoutRight, _>::full_in(s.memory_space(), "ex", n, -1)
                            .unwrap();
                    let mut inc =
                        View1::<i64, LayoutRight, _>::full_in(s.memory_space(), "inc", n, -1)
                            .unwrap();
                    let total = parallel_scan(
                        "scan",
                        RangePolicy::new(&s, 0..n).with_chunk_size(chunk),
                        (&mut ex, &mut inc),
                        exclusive_and_inclusive(&a),
                    );
                    let n64 = n as i64;
                    assert_eq!(total, n64 * (n64 - 1) / 2, "n {n}, chunk {chunk}");
                    let ex = create_mirror_view_and_copy(&ex).unwrap();
                    let inc = create_mirror_view_and_copy(&inc).unwrap();
                    for i in 0..n {
                        let i64_ = i as i64;
                        let at = format_args!("{i}, n {n}, chunk {chunk}");
                        assert_eq!(ex[i], i64_ * (i64_ - 1) / 2, "exclusive {at}");
                        assert_eq!(inc[i], i64_ * (i64_ + 1) / 2, "inclusive {at}");
                    }
                }
            }
        }

        /// The total is the scan's own last value, bit for bit (Kokkos
        /// returns the last inclusive value, from the same accumulator),
        /// though the blocks' regrouped prefixes round differently.
        #[test]
        fn a_float_scans_total_is_its_last_value() {
            let s = space();
            // Two inputs, each of which made a space's total differ from its
            // last value in the last bit.
            let inputs: [fn(usize) -> f32; 2] = [
                |i| 1.0 / (1.0 + (i % 977) as f32),
                |i| ((i * 2_654_435_761) % 1000) as f32 * 1e-3 + 0.1,
            ];
            for (n, input) in [1usize, 4097, 16_385, 123_457]
                .into_iter()
                .flat_map(|n| inputs.map(|f| (n, f)))
            {
                let x = View1::<f32, LayoutRight, _>::from_fn_in(s.memory_space(), "x", n, input)
                    .unwrap();
                let mut y =
                    View1::<f32, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
                let total = parallel_scan(
                    "f32 total",
                    RangePolicy::new(&s, 0..n),
                    &mut y,
                    inclusive_f32_of(&x),
                );
                let y = create_mirror_view_and_copy(&y).unwrap();
                assert_eq!(
                    total.to_bits(),
                    y[n - 1].to_bits(),
                    "n {n}: {total} vs {}",
                    y[n - 1]
                );
            }
        }

        #[test]
        fn scan_float_and_double_small_sizes() {
            let s = space();
            for n in [13usize, 17, 34, 59] {
                for chunk in [0, 4] {
                    let mut ex32 =
                        View1::<f32, LayoutRight, _>::zeros_in(s.memory_space(), "ex32", n)
                            .unwrap();
                    let t32 = parallel_scan(
                        "f32",
                        RangePolicy::new(&s, 0..n).with_chunk_size(chunk),
                        &mut ex32,
                        exclusive_index_f32(),
                    );
                    let mut in64 =
                        View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "in64", n)
                            .unwrap();
                    let t64 = parallel_scan(
                        "f64",
                        RangePolicy::new(&s, 0..n).with_chunk_size(chunk),
                        &mut in64,
                        inclusive_index_f64(),
                    );
                    let ex32 = create_mirror_view_and_copy(&ex32).unwrap();
                    let in64 = create_mirror_view_and_copy(&in64).unwrap();
                    for i in 0..n {
                        assert_eq!(ex32[i], (i * i.saturating_sub(1) / 2) as f32, "n {n} i {i}");
                        assert_eq!(in64[i], (i * (i + 1) / 2) as f64, "n {n} i {i}");
                    }
                    assert_eq!(
                        (t32, t64),
                        ((n * (n - 1) / 2) as f32, (n * (n - 1) / 2) as f64)
                    );
                }
            }
        }

        #[test]
        fn scan_in_place_exclusive() {
            let s = space();
            for chunk in [0, 3] {
                let mut x =
                    View1::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "x", 10, |i| {
                        0.5 * i as f64
                    })
                    .unwrap();
                let total = parallel_scan(
                    "in-place",
                    RangePolicy::new(&s, 0..10).with_chunk_size(chunk),
                    &mut x,
                    exclusive_in_place(),
                );
                assert_eq!(
                    create_mirror_view_and_copy(&x).unwrap().to_vec(),
                    vec![0.0, 0.0, 0.5, 1.5, 3.0, 5.0, 7.5, 10.5, 14.0, 18.0]
                );
                assert_eq!(total, 22.5);
            }
        }

        #[test]
        fn scan_product_with_init_one() {
            let s = space();
            let expect = vec![1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880];
            for chunk in [0, 3] {
                let mut f =
                    View1::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "fact", 10).unwrap();
                let t = parallel_scan_with(
                    "fact",
                    RangePolicy::new(&s, 0..10).with_chunk_size(chunk),
                    Prod,
                    &mut f,
                    factorials(),
                );
                let f = create_mirror_view_and_copy(&f).unwrap();
                assert_eq!((f.to_vec(), t), (expect.clone(), 3_628_800));
            }
        }

        #[test]
        fn scan_one_final_call_per_index_and_pure_non_final_calls() {
            let s = space();
            let n = 100_000;
            let mut finals =
                View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "finals", n).unwrap();
            let mut non_final =
                View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "non-final", n).unwrap();
            let nf = non_final.atomic().unwrap();
            let total: u64 = parallel_scan(
                "count",
                RangePolicy::new(&s, 0..n).with_chunk_size(1000),
                &mut finals,
                count_calls(&nf),
            );
            assert_eq!(total, n as u64);
            let finals = create_mirror_view_and_copy(&finals).unwrap();
            let non_final = create_mirror_view_and_copy(&non_final).unwrap();
            assert!(finals.to_vec().iter().all(|&c| c == 1));
            assert!(non_final.to_vec().iter().all(|&c| c <= 1));
        }

        #[test]
        fn scan_empty_range_and_offset_begin() {
            let s = space();
            let mut y =
                View1::<i32, LayoutRight, _>::full_in(s.memory_space(), "y", 6, -1).unwrap();
            let t: i32 = parallel_scan("empty", RangePolicy::new(&s, 3..3), &mut y, count_only());
            assert_eq!(t, 0);
            let t: i32 = parallel_scan(
                "offset",
                RangePolicy::new(&s, 2..6).with_chunk_size(1),
                &mut y,
                exclusive_index_i32(),
            );
            let y = create_mirror_view_and_copy(&y).unwrap();
            assert_eq!((y.to_vec(), t), (vec![-1, -1, 0, 2, 5, 9], 14));
        }

        #[test]
        fn an_empty_scan_needs_no_elements_of_its_written_view() {
            let s = space();
            let mut none =
                View1::<i32, LayoutRight, _>::zeros_in(s.memory_space(), "none", 0).unwrap();
            let t: i32 = parallel_scan(
                "empty at 5",
                RangePolicy::new(&s, 5..5),
                &mut none,
                exclusive_index_i32(),
            );
            assert_eq!(t, 0);
        }
    };
}

/// Host-space-only scan tests (see `for_host_only_tests!`).
macro_rules! scan_host_only_tests {
    () => {
        /// A functor that dispatches on another space while its block is
        /// being scanned: the thread waits in rayon, which may run another
        /// block's worker on top of it. The scan must finish regardless.
        #[cfg(feature = "rayon")]
        #[test]
        fn a_scan_whose_functor_dispatches_elsewhere_finishes() {
            let n = 200_000usize;
            let got = crate::soundness::within_deadline("nested dispatch", move || {
                let s = space();
                let other = granule::Rayon::new(2).unwrap();
                let mut y = View1::<u64>::zeros("y", n).unwrap();
                let non_final: Vec<_> = (0..n)
                    .map(|_| std::sync::atomic::AtomicU8::new(0))
                    .collect();
                let total = parallel_scan(
                    "scan with a nested dispatch",
                    RangePolicy::new(&s, 0..n),
                    &mut y,
                    |i: usize, yi: &mut u64, p: &mut u64, last: bool| {
                        if !last {
                            non_final[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        if !last && i % 4096 == 0 {
                            parallel_for("inner", RangePolicy::new(&other, 0..64), (), |_, ()| {});
                        }
                        *p += i as u64;
                        if last {
                            *yi = *p;
                        }
                    },
                );
                let most = non_final.into_iter().map(|c| c.into_inner()).max();
                (total, y[n - 1], y[1000], most.unwrap_or(0) <= 1)
            });
            let n64 = n as u64;
            // A block left while its functor waited and run again makes
            // no second non-final call for any index.
            assert_eq!(
                got,
                (
                    n64 * (n64 - 1) / 2,
                    n64 * (n64 - 1) / 2,
                    1000 * 1001 / 2,
                    true
                )
            );
        }

        /// A functor slower than the look-back's patience on block 0 makes
        /// the next blocks' workers leave them and run them again later;
        /// the second run makes no second non-final call for any index.
        #[test]
        fn a_block_left_behind_a_slow_functor_calls_each_index_once_non_final() {
            let s = space();
            let n = 8_000usize;
            let non_final: Vec<_> = (0..n)
                .map(|_| std::sync::atomic::AtomicU8::new(0))
                .collect();
            let mut y = View1::<u64>::zeros("y", n).unwrap();
            let total = parallel_scan(
                "slow block 0",
                RangePolicy::new(&s, 0..n).with_chunk_size(1000),
                &mut y,
                |i: usize, yi: &mut u64, p: &mut u64, last: bool| {
                    if !last {
                        non_final[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i == 0 {
                            std::thread::sleep(4 * granule::base::exec::lookback::PATIENCE);
                        }
                    }
                    *p += 1;
                    if last {
                        *yi = *p;
                    }
                },
            );
            assert_eq!((total, y[n - 1], y[0]), (n as u64, n as u64, 1));
            let twice: Vec<usize> = (0..n)
                .filter(|&i| non_final[i].load(std::sync::atomic::Ordering::Relaxed) > 1)
                .collect();
            assert!(
                twice.is_empty(),
                "indices called twice non-final: {twice:?}"
            );
        }

        // Host-only: `reducer::custom` builds its init and join from
        // closures, which exist only on the host (a device reducer is a
        // `#[device] impl Reducer`).
        #[test]
        fn scan_custom_closure_reducer_with_init_one() {
            let s = space();
            let expect = vec![1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880];
            for chunk in [0, 3] {
                let custom = reducer::custom(|| 1i64, |a: &mut i64, b: &i64| *a *= *b);
                let mut g = View1::<i64>::zeros("fact2", 10).unwrap();
                parallel_scan_with(
                    "fact2",
                    RangePolicy::new(&s, 0..10).with_chunk_size(chunk),
                    custom,
                    &mut g,
                    factorials(),
                );
                assert_eq!(g.to_vec(), expect);
            }
        }
    };
}
