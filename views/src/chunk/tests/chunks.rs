//! Chunked Views: writes land where the map says, bad accesses panic with
//! what a user needs, and two-level division works in parallel.

use crate::chunk::{
    BlockToThread, ChunkError, GridToBlock, GridToThread, Map2D, MapContinuousLinear, MapLinear,
    ScopedIds,
};
use crate::layout::LayoutLeft;
use crate::{View1, View2};

fn thread(count: usize, g: usize) -> ScopedIds<GridToThread> {
    ScopedIds::linear(count, g).unwrap()
}

#[test]
fn thread_parts_write_exactly_their_elements() {
    let mut y = View1::<usize>::zeros("y", 12).unwrap();
    for g in 0..4 {
        let mut part = y.chunk_mut(MapLinear::new(1), thread(4, g)).unwrap();
        for k in 0..3 {
            part[k] += 100 + g;
        }
        assert_eq!(part.get_mut(3), None);
    }
    assert_eq!(y.to_vec(), (0..12).map(|e| 100 + e % 4).collect::<Vec<_>>());
}

#[test]
#[should_panic(
    expected = "View \"y\": local index 2 is not valid for thread (x 1, y 0, z 0) of (4, 1, 1)"
)]
fn invalid_access_panics_with_label_local_and_ids() {
    let mut y = View1::<f64>::zeros("y", 8).unwrap();
    let mut part = y
        .chunk_mut(MapContinuousLinear::new(2), thread(4, 1))
        .unwrap();
    part[2] = 1.0;
}

#[test]
#[should_panic(
    expected = "View \"y\": local index 1 of thread (x 3, y 0, z 0) of (4, 1, 1) maps to global index 7, out of bounds for extents [7]"
)]
fn out_of_bounds_panics_with_label_index_and_extents() {
    let mut y = View1::<f64>::zeros("y", 7).unwrap();
    let mut part = y
        .chunk_mut(MapContinuousLinear::new(2), thread(4, 3))
        .unwrap();
    part[0] = 1.0;
    part[1] = 1.0;
}

#[test]
fn get_reports_invalid_and_out_of_bounds_as_none() {
    let mut y = View1::<f64>::zeros("y", 7).unwrap();
    let mut part = y
        .chunk_mut(MapContinuousLinear::new(2), thread(4, 3))
        .unwrap();
    assert!(part.get(0).is_some());
    assert_eq!((part.get(1), part.get(2)), (None, None));
    assert_eq!(
        (part.global_index(0), part.global_index(1)),
        (Some(6), None)
    );
    assert!(part.get_mut(1).is_none());
}

#[test]
fn violated_preconditions_refuse_to_chunk() {
    let mut y = View1::<f64>::zeros("y", 8).unwrap();
    let ids = ScopedIds::<GridToThread>::new([2, 2, 1], [0, 1, 0]).unwrap();
    let err = y.chunk_mut(MapLinear::new(1), ids).unwrap_err();
    assert!(matches!(
        err,
        ChunkError::Precondition {
            map: "MapLinear",
            dims: [2, 2, 1],
            ..
        }
    ));
    assert!(y.chunk(MapLinear::new(1), ids).is_err());
    assert!(y
        .chunked(Map2D::new(3))
        .share::<GridToThread>([2, 1, 2])
        .is_err());
}

#[test]
fn multi_dimensional_views_use_row_major_linear_indices() {
    let mut a = View2::<i32, LayoutLeft>::zeros("a", [3, 4]).unwrap();
    let mut rows = a.chunked(MapContinuousLinear::new(4));
    for r in 0..3 {
        let mut row = rows
            .part(ScopedIds::<GridToThread>::linear(3, r).unwrap())
            .unwrap();
        for c in 0..4 {
            row[c] = (10 * r + c) as i32;
        }
    }
    assert_eq!(a[[2, 1]], 21);
    assert_eq!(a.to_vec(), [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23]);
}

#[test]
fn map_2d_parts_index_with_pairs() {
    let mut y = View1::<u8>::zeros("grid", 20).unwrap();
    for x in 0..2 {
        for t in 0..2 {
            let ids = ScopedIds::<GridToThread>::new([2, 2, 1], [x, t, 0]).unwrap();
            let mut part = y.chunk_mut(Map2D::new(5), ids).unwrap();
            for a in 0..3 {
                for b in 0..2 {
                    if let Some(e) = part.get_mut([a, b]) {
                        *e = (1 + x + 2 * t) as u8;
                    }
                }
            }
        }
    }
    assert_eq!(&y.to_vec()[..10], [1, 2, 1, 2, 1, 3, 4, 3, 4, 3]);
}

#[test]
fn two_level_shares_write_in_parallel() {
    let (teams, team_size, row) = (3, 2, 6);
    let mut y = View1::<usize>::zeros("y", teams * row).unwrap();
    let league = y
        .chunked(MapContinuousLinear::new(row))
        .share::<GridToBlock>([teams, 1, 1])
        .unwrap();
    std::thread::scope(|s| {
        for l in 0..teams {
            let league = &league;
            s.spawn(move || {
                // SAFETY: one spawned thread per league rank, each asking once.
                let mut team = unsafe { league.part(l) };
                let members = team
                    .chunked(MapLinear::new(1))
                    .unwrap()
                    .share::<BlockToThread>([team_size, 1, 1])
                    .unwrap();
                std::thread::scope(|s| {
                    for m in 0..team_size {
                        let members = &members;
                        s.spawn(move || {
                            // SAFETY: one spawned thread per team rank, each asking once.
                            let mut mine = unsafe { members.part(m) };
                            for k in 0..row / team_size {
                                mine[k] = 100 * l + 10 * m + k;
                            }
                        });
                    }
                });
            });
        }
    });
    let expected: Vec<usize> = (0..teams * row)
        .map(|e| 100 * (e / row) + 10 * (e % row % team_size) + e % row / team_size)
        .collect();
    assert_eq!(y.to_vec(), expected);
}

#[test]
fn read_chunks_chain_to_thread_level() {
    let x = View1::<u32>::from_fn("x", 12, |i| i as u32).unwrap();
    let block = x
        .chunk(
            MapContinuousLinear::new(6),
            ScopedIds::<GridToBlock>::linear(2, 1).unwrap(),
        )
        .unwrap();
    let t = block
        .chunk(
            MapLinear::new(2),
            ScopedIds::<BlockToThread>::linear(3, 2).unwrap(),
        )
        .unwrap();
    assert_eq!((t[0], t[1]), (10, 11));
    assert_eq!(t.get(2), None);
    assert_eq!(t.global_index(1), Some(11));
}

#[test]
#[should_panic(expected = "thread ids [3, 0, 0] are outside the scope's dims [3, 1, 1]")]
fn shared_part_past_the_scope_panics() {
    let mut y = View1::<u8>::zeros("y", 3).unwrap();
    let share = y
        .chunked(MapLinear::new(1))
        .share::<GridToThread>([3, 1, 1])
        .unwrap();
    // SAFETY: single-threaded; the call panics before handing out anything.
    let _ = unsafe { share.part(3) };
}

#[test]
fn device_space_views_chunk_into_handles_with_their_addresses() {
    use crate::space::foreign::Foreign;
    use crate::{LayoutRight, ALL};
    let mut right = View2::<u16, LayoutRight, Foreign>::zeros_in(Foreign, "r", [3, 5]).unwrap();
    let base = right.as_ptr() as usize;
    {
        let rows = right.chunked(MapContinuousLinear::new(5));
        assert_eq!(
            (rows.label(), rows.len(), rows.is_empty()),
            ("r", 15, false)
        );
        assert_eq!(*rows.map(), MapContinuousLinear::new(5));
        assert_eq!(rows.data_address(), base);
        assert!(rows.is_contiguous());
    }
    // A column of a row-major View: element k is 5k elements in, so a
    // device may not address it linearly.
    let mut col = right.subview_mut((ALL, 2)).unwrap();
    let c = col.chunked(MapLinear::new(1));
    assert_eq!((c.len(), c.data_address()), (3, base + 2 * 2));
    assert!(!c.is_contiguous());
    // One row of it is linear again.
    let mut row = right.subview_mut((1, 1..4)).unwrap();
    let r = row.chunked(MapLinear::new(1));
    assert_eq!((r.len(), r.data_address()), (3, base + 6 * 2));
    assert!(r.is_contiguous());

    let mut left = View2::<f64, LayoutLeft, Foreign>::zeros_in(Foreign, "l", [2, 3]).unwrap();
    assert!(!left.chunked(MapLinear::new(1)).is_contiguous());
    let mut empty = View1::<f64, LayoutRight, Foreign>::zeros_in(Foreign, "e", 0).unwrap();
    let e = empty.chunked(MapLinear::new(1));
    assert!(e.is_empty() && e.is_contiguous());
}
