//! Bad input: each gives a typed error or a panic naming the problem.

macro_rules! bad_input_tests {
    () => {
        #[test]
        fn bad_range_begin_after_end() {
            let s = space();
            let e = RangePolicy::try_new(&s, 9..2).unwrap_err();
            assert_eq!(e, PolicyError::RangeBounds { begin: 9, end: 2 });
            assert!(e.to_string().contains("begin 9") && e.to_string().contains("end 2"));
            let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                RangePolicy::new(&s, 5..1)
            }))
            .unwrap_err();
            assert!(p
                .downcast_ref::<String>()
                .unwrap()
                .contains("begin 5 is greater than end 1"));
        }

        // One past each of the space's limits (on the host spaces, whose
        // limits `team_limits_of_host_spaces` pins: a team of 2, 1 MiB + 1
        // of level 0, usize::MAX per thread of level 1).
        #[test]
        fn bad_team_sizes_and_scratch() {
            let s = space();
            assert!(matches!(
                TeamPolicy::try_new(&s, 10, 0),
                Err(PolicyError::ZeroTeamSize { .. })
            ));
            let max = s.team_size_max();
            let e = TeamPolicy::try_new(&s, 10, max + 1).unwrap_err();
            assert!(
                matches!(
                    e,
                    PolicyError::TeamSizeTooLarge { requested, max: m, .. }
                        if requested == max + 1 && m == max
                ),
                "{e}"
            );
            let max0 = s.scratch_size_max(0);
            let e = TeamPolicy::new(&s, 10, AUTO)
                .with_scratch_size(0, PerTeam(max0 + 1))
                .unwrap_err();
            assert_eq!(
                e,
                PolicyError::ScratchTooLarge {
                    level: 0,
                    requested: max0 + 1,
                    max: max0
                }
            );
            let p = TeamPolicy::new(&s, 10, AUTO);
            // The most per thread whose team total still fits in usize.
            let per_thread = usize::MAX / p.team_size();
            let e = p.with_scratch_size(1, PerThread(per_thread)).unwrap_err();
            assert!(matches!(e, PolicyError::ScratchTooLarge { level: 1, .. }));
        }

        #[test]
        fn bad_mdrange_rank() {
            let s = space();
            assert_eq!(
                MDRangePolicy::try_new(&s, [0], [3]).unwrap_err(),
                PolicyError::MDRangeRank { rank: 1 }
            );
            assert_eq!(
                MDRangePolicy::try_new(&s, [0; 7], [3; 7]).unwrap_err(),
                PolicyError::MDRangeRank { rank: 7 }
            );
            assert!(MDRangePolicy::try_new(&s, [0; 6], [3; 6]).is_ok());
        }

        #[test]
        fn bad_write_to_a_view_smaller_than_the_range() {
            let s = space();
            let mut y =
                View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "short", 10).unwrap();
            let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                parallel_for("too-far", RangePolicy::new(&s, 0..11), &mut y, set_one())
            }))
            .unwrap_err();
            let msg = p.downcast_ref::<String>().unwrap();
            assert!(
                msg.contains("\"too-far\"") && msg.contains("\"short\"") && msg.contains("[10]"),
                "{msg}"
            );
        }

        #[test]
        fn bad_index_past_a_row() {
            // The kernel fails on a device: a space no other test shares
            // keeps the report for this one.
            let s = own_space();
            let mut f =
                View2::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "forces", [4, 2]).unwrap();
            let x = View2::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "x", [4, 3]).unwrap();
            let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // pair_forces writes three components: a row of two is short.
                parallel_for("short-rows", RangePolicy::new(&s, 0..4), &mut f, pair_forces(&x));
                s.fence();
            }))
            .unwrap_err();
            let msg = crate::soundness::message(&*p);
            assert!(msg.contains("\"forces\"") && msg.contains('2'), "{msg}");
        }

        #[test]
        fn bad_index_past_a_segment() {
            // The kernel fails on a device: a space no other test shares
            // keeps the report for this one.
            let s = own_space();
            let starts =
                View1::<usize, LayoutRight, _>::from_fn_in(s.memory_space(), "starts", 4, |i| {
                    2 * i
                })
                .unwrap();
            // Six elements and room for one more: the write past segment 2
            // lands inside the View, and only the segment's bound stops it.
            let mut v =
                View1::<f64, LayoutRight, _>::zeros_in(s.memory_space(), "marks", 7).unwrap();
            let offsets = Offsets::new(&starts).unwrap();
            let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                parallel_for(
                    "past-segments",
                    RangePolicy::new(&s, 2..3),
                    offsets.segments(&mut v).unwrap(),
                    one_past_the_segment(),
                );
                s.fence();
            }))
            .unwrap_err();
            let msg = crate::soundness::message(&*p);
            assert!(
                msg.contains("\"marks\"") && msg.contains("segment 2") && msg.contains("index 2"),
                "{msg}"
            );
        }

        #[test]
        fn bad_offsets_are_typed_errors_in_every_memory_space() {
            let s = space();
            let make = |label: &str, v: Vec<usize>| {
                View1::<usize, LayoutRight, _>::from_fn_in(s.memory_space(), label, v.len(), |i| {
                    v[i]
                })
                .unwrap()
            };
            let down = make("down", vec![0, 3, 5, 4, 6]);
            assert_eq!(
                Offsets::new(&down).unwrap_err(),
                SegmentError::Decreasing {
                    offsets: "down".into(),
                    index: 2,
                    value: 5,
                    next: 4
                }
            );
            let empty = make("empty", vec![]);
            assert!(matches!(
                Offsets::new(&empty),
                Err(SegmentError::NoEntries { .. })
            ));
            let long = make("long", vec![1, 2, 9]);
            let mut v = View1::<u8, LayoutRight, _>::zeros_in(s.memory_space(), "v", 8).unwrap();
            let err = Offsets::new(&long).unwrap().segments(&mut v).unwrap_err();
            assert_eq!(
                err.to_string(),
                "offsets \"long\" end at 9, past the extent 8 of View \"v\""
            );
        }

        #[test]
        fn bad_write_outside_the_team_chunk() {
            // The kernel fails on a device: a space no other test shares
            // keeps the report for this one.
            let s = own_space();
            let mut y =
                View1::<i32, LayoutRight, _>::zeros_in(s.memory_space(), "rows", 12).unwrap();
            let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                parallel_for(
                    "unowned",
                    TeamPolicy::new(&s, 3, AUTO),
                    y.chunked(MapContinuousLinear::new(4)),
                    write_past_team_chunk(),
                );
                // An asynchronous space reports the failure here.
                s.fence();
            }))
            .unwrap_err();
            let msg = crate::soundness::message(&*p);
            assert!(msg.contains("rows") && msg.contains('4'), "{msg}");
            // the unowned writes (elements 4 and 8, the next teams' first) never happened
            let y = create_mirror_view_and_copy(&y).unwrap();
            assert_eq!((y[4], y[8]), (0, 0));
        }
    };
}
