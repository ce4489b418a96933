//! TeamPolicy: member API, collectives, scratch, nested ranges, single,
//! and team writes through chunk maps.

macro_rules! team_tests {
    () => {
        #[test]
        fn team_reduce_of_global_thread_ids() {
            let s = space();
            let league = 1000usize;
            let p = TeamPolicy::new(&s, league, AUTO);
            let t = league * p.team_size();
            let r: usize = parallel_reduce("team-reduce", p, Sum, global_thread_ids());
            assert_eq!(r, t * (t - 1) / 2);
        }

        #[test]
        fn team_reductions_of_tuples() {
            let s = space();
            let (league, n) = (300usize, 77usize);
            let at = |[l, j]: [usize; 2]| ((l * 13 + j * 7) % 101) as f64;
            let a =
                View2::<f64, LayoutRight, _>::from_fn_in(s.memory_space(), "a", [league, n], at)
                    .unwrap();
            let p = TeamPolicy::new(&s, league, AUTO);
            let threads = (league * p.team_size()) as u64;
            let (sum, peak, count): (f64, f64, u64) =
                parallel_reduce("row-stats", p, (Sum, Max, Sum), row_sum_and_peak(&a));
            let want: f64 = (0..league)
                .flat_map(|l| (0..n).map(move |j| at([l, j])))
                .sum();
            assert_eq!((sum, peak, count), (want, 100.0, threads));
        }

        #[test]
        fn team_reductions_of_device_structs() {
            let s = space();
            let (league, n) = (200usize, 77usize);
            let a = View2::<f64, LayoutRight, _>::from_fn_in(
                s.memory_space(),
                "a",
                [league, n],
                |[l, j]| (l + j) as f64,
            )
            .unwrap();
            let p = TeamPolicy::new(&s, league, AUTO);
            // Row l's mean is l + 38: integers all the way, so exact.
            let sum: f64 = parallel_reduce("row-means", p, Sum, row_means(&a));
            let want: f64 = (0..league).map(|l| (l + 38) as f64).sum();
            assert_eq!(sum, want);
        }

        #[test]
        fn team_threads_write_their_own_scratch_slots() {
            let s = space();
            let league = 123usize;
            let p = TeamPolicy::new(&s, league, AUTO);
            let ts = p.team_size();
            let p = p.with_scratch_size(0, PerTeam(8 * ts)).unwrap();
            let sum: u64 = parallel_reduce("slots", p, Sum, neighbour_slots());
            let want: u64 = (0..league)
                .flat_map(|l| (0..ts).map(move |r| (1000 * l + r) as u64))
                .sum();
            assert_eq!(sum, want);
        }

        #[test]
        fn team_threads_write_their_scratch_rows_lane_by_lane() {
            let s = space();
            let (league, w) = (77usize, 6usize);
            let p = TeamPolicy::new(&s, league, AUTO)
                .with_vector_length(2)
                .unwrap();
            let ts = p.team_size();
            let p = p.with_scratch_size(0, PerTeam(8 * ts * w)).unwrap();
            let sum: u64 = parallel_reduce("rows", p, Sum, neighbour_rows(w));
            let want: u64 = (0..league)
                .flat_map(|l| {
                    (0..ts).flat_map(move |r| (0..w).map(move |k| (1000 * l + 10 * r + k) as u64))
                })
                .sum();
            assert_eq!(sum, want);
        }

        #[test]
        fn team_nested_team_thread_range_scan() {
            let s = space();
            let (m_, n) = (163usize, 128usize);
            let a = View2::<i64, LayoutRight, _>::from_fn_in(
                s.memory_space(),
                "a",
                [m_, n],
                |[l, i]| (l * n + i) as i64,
            )
            .unwrap();
            let mut out =
                View2::<i64, LayoutRight, _>::zeros_in(s.memory_space(), "out", [m_, n]).unwrap();
            parallel_for(
                "nested-scan",
                TeamPolicy::new(&s, m_, AUTO)
                    .with_scratch_size(0, PerTeam(n * 8))
                    .unwrap(),
                out.chunked(MapContinuousLinear::new(n)),
                nested_row_scan(n, &a),
            );
            let out = create_mirror_view_and_copy(&out).unwrap();
            for l in 0..m_ {
                for j in 0..n {
                    let expect = ((j + 1) * l * n + j * (j + 1) / 2) as i64;
                    assert_eq!(out[[l, j]], expect, "out({l}, {j})");
                }
            }
        }

        #[test]
        fn team_y_a_x_with_all_ones() {
            let s = space();
            let (rows, cols, teams) = (8192usize, 2048usize, 64usize);
            let y =
                View1::<f64, LayoutRight, _>::full_in(s.memory_space(), "y", rows, 1.0).unwrap();
            let x =
                View1::<f64, LayoutRight, _>::full_in(s.memory_space(), "x", cols, 1.0).unwrap();
            let a = View2::<f64, LayoutRight, _>::full_in(s.memory_space(), "A", [rows, cols], 1.0)
                .unwrap();
            let per = rows / teams;
            let r: f64 = parallel_reduce(
                "yAx",
                TeamPolicy::new(&s, teams, AUTO),
                Sum,
                y_a_x(per, cols, &y, &x, &a),
            );
            assert_eq!(r, 16_777_216.0);
        }

        #[test]
        fn team_collectives_and_single() {
            let s = space();
            let mut off =
                View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "acc", 1).unwrap();
            let mut out =
                View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "out", 50).unwrap();
            let g = off.atomic().unwrap();
            parallel_for(
                "collectives",
                TeamPolicy::new(&s, 50, AUTO),
                out.chunked(MapContinuousLinear::new(1)),
                collectives(&g),
            );
            assert_eq!(
                create_mirror_view_and_copy(&off).unwrap()[0],
                (1..=50).sum::<u64>()
            );
            let mut starts = create_mirror_view_and_copy(&out).unwrap().to_vec();
            starts.sort();
            starts.dedup();
            assert_eq!(starts.len(), 50);
        }

        #[test]
        fn team_scratch_views_per_team_and_thread() {
            let s = space();
            let p = TeamPolicy::new(&s, 37, AUTO)
                .with_scratch_size(0, (PerTeam(16 * 8), PerThread(4 * 4)))
                .unwrap()
                .with_scratch_size(1, PerTeam(1000))
                .unwrap();
            let total: i64 = parallel_reduce("scratch", p, Sum, scratch_views());
            let expect: i64 = (0..37)
                .map(|l| (0..16).map(|i| (l + i) as i64).sum::<i64>() + 3)
                .sum();
            assert_eq!(total, expect);
        }

        #[test]
        fn team_nested_reducers_and_vector_scan() {
            let s = space();
            let v = View2::<i32, LayoutRight, _>::from_fn_in(
                s.memory_space(),
                "v",
                [9, 50],
                |[l, i]| ((i * 37 + l * 11) % 50) as i32,
            )
            .unwrap();
            parallel_for(
                "nested",
                TeamPolicy::new(&s, 9, AUTO),
                (),
                nested_reducers_and_scans(&v),
            );
        }

        #[test]
        fn team_limits() {
            let s = space();
            let p = TeamPolicy::new(&s, 4, AUTO);
            assert!(p.scratch_size_max(1) >= p.scratch_size_max(0));
            let e: usize = parallel_reduce(
                "empty-league",
                TeamPolicy::new(&s, 0, AUTO),
                Sum,
                count_teams(),
            );
            assert_eq!(e, 0);
        }
    };
}

/// Host-space-only team tests (see `for_host_only_tests!`).
macro_rules! team_host_only_tests {
    () => {
        // Host-only: these are the host spaces' limits (one-thread teams, a
        // cache-sized level 0); a device has its own.
        #[test]
        fn team_limits_of_host_spaces() {
            let s = space();
            let p = TeamPolicy::new(&s, 4, AUTO);
            assert_eq!(
                (p.team_size_max(), p.team_size_recommended(), p.team_size()),
                (1, 1, 1)
            );
            assert_eq!(p.scratch_size_max(0), 1 << 20);
        }
    };
}
