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
        fn team_nested_team_thread_range_scan() {
            let s = space();
            let (m_, n) = (163usize, 128usize);
            let a = View2::<i64>::from_fn("a", [m_, n], |[l, i]| (l * n + i) as i64).unwrap();
            let mut out = View2::<i64>::zeros("out", [m_, n]).unwrap();
            parallel_for(
                "nested-scan",
                TeamPolicy::new(&s, m_, AUTO),
                out.chunked(MapContinuousLinear::new(n)),
                nested_row_scan(n, &a),
            );
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
            let y = View1::<f64>::from_fn("y", rows, |_| 1.0).unwrap();
            let x = View1::<f64>::from_fn("x", cols, |_| 1.0).unwrap();
            let a = View2::<f64>::from_fn("A", [rows, cols], |_| 1.0).unwrap();
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
            let mut off = View1::<u64>::zeros("acc", 1).unwrap();
            let mut out = View1::<u64>::zeros("out", 50).unwrap();
            let g = off.atomic().unwrap();
            parallel_for(
                "collectives",
                TeamPolicy::new(&s, 50, AUTO),
                out.chunked(MapContinuousLinear::new(1)),
                collectives(&g),
            );
            assert_eq!(off[0], (1..=50).sum::<u64>());
            let mut starts = out.to_vec();
            starts.sort();
            starts.dedup();
            assert_eq!(starts.len(), 50);
        }

        // A closure: the device subset has level-0, rank-1 team scratch
        // only; thread scratch, level-1 and rank-2 scratch, and a scratch
        // allocation's `is_err()` / `to_vec()` are host-only for now.
        #[test]
        fn team_scratch_views_per_team_and_thread() {
            let s = space();
            let p = TeamPolicy::new(&s, 37, AUTO)
                .set_scratch_size(0, (PerTeam(16 * 8), PerThread(4 * 4)))
                .unwrap()
                .set_scratch_size(1, PerTeam(1000))
                .unwrap();
            let total: i64 = parallel_reduce("scratch", p, Sum, |m: &TeamMember, acc: &mut i64| {
                let mut t = m.team_scratch::<i64, 1>(0, 16).unwrap();
                let mut u = m.thread_scratch::<i32, 1>(0, 4).unwrap();
                let mut w = m.team_scratch::<u8, 2>(1, [10, 100]).unwrap();
                assert!(t.to_vec().iter().all(|&v| v == 0), "scratch starts zeroed");
                TeamVectorRange::new(m, 0..16)
                    .parallel_for(|i| t[i] = (m.league_rank() + i) as i64);
                u[3] = 2;
                w[[9, 99]] = 1;
                assert!(m.team_scratch::<u8, 1>(1, 1).is_err());
                *acc += ThreadVectorRange::new(m, 0..16)
                    .parallel_reduce(Sum, |i, s: &mut i64| *s += t[i])
                    + u[3] as i64
                    + w[[9, 99]] as i64;
            });
            let expect: i64 = (0..37)
                .map(|l| (0..16).map(|i| (l + i) as i64).sum::<i64>() + 3)
                .sum();
            assert_eq!(total, expect);
        }

        // A closure: the ValLocScalar accumulator (nested MaxLoc) and
        // ThreadVectorRange::parallel_scan_with are outside the device subset.
        #[test]
        fn team_nested_reducers_and_vector_scan() {
            let s = space();
            let v = View2::<i32>::from_fn("v", [9, 50], |[l, i]| ((i * 37 + l * 11) % 50) as i32)
                .unwrap();
            parallel_for(
                "nested",
                TeamPolicy::new(&s, 9, AUTO),
                (),
                |m: &TeamMember, ()| {
                    let l = m.league_rank();
                    let mx = TeamThreadRange::new(m, 0..50)
                        .parallel_reduce(MaxLoc, |i, a: &mut ValLocScalar<i32, usize>| {
                            a.update_max(v[[l, i]], i)
                        });
                    assert_eq!(mx.val, 49);
                    assert_eq!(v[[l, mx.loc]], 49);
                    let mn: i32 = TeamVectorRange::new(m, 0..50)
                        .parallel_reduce(Min, |i, a: &mut i32| *a = (*a).min(v[[l, i]]));
                    assert_eq!(mn, 0);
                    let prod = ThreadVectorRange::new(m, 0..5)
                        .parallel_scan_with(Prod, |i, p: &mut i64, _| *p *= i as i64 + 2);
                    assert_eq!(prod, 720);
                    let empty: f64 = ThreadVectorRange::new(m, 3..3)
                        .parallel_reduce(Sum, |_, a: &mut f64| *a += 1.0);
                    assert_eq!(empty, 0.0);
                },
            );
        }

        #[test]
        fn team_limits() {
            let s = space();
            let p = TeamPolicy::new(&s, 4, AUTO);
            assert_eq!(
                (p.team_size_max(), p.team_size_recommended(), p.team_size()),
                (1, 1, 1)
            );
            assert_eq!(p.scratch_size_max(0), 1 << 20);
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
