//! Views between ranks: strided subviews, layouts, non-blocking, sizes.

mod common;

use common::Outcome;
use granule_mpi::{receive_into, send, CommError, Incoming, Outgoing};
use granule_views::{LayoutLeft, View1, View2, View3, ALL};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

fn value([i, j, k]: [usize; 3], rank: i32) -> f64 {
    (10_000 * rank as usize + 100 * i + 10 * j + k) as f64
}

/// Rank r sends a strided subview of its grid to the next rank, which
/// sends back what it got; the round trip must give the subview back.
fn strided_round_trip(world: &SimpleCommunicator) -> Outcome {
    let (rank, size) = (world.rank(), world.size());
    let next = world.process_at_rank((rank + 1) % size);
    let prev = world.process_at_rank((rank + size - 1) % size);
    let grid = View3::<f64>::from_fn("grid", [4, 5, 6], |idx| value(idx, rank))?;
    let part = grid.subview((1..4, 2, 0..6))?; // strided: rows 5*6 apart
    assert!(!part.is_contiguous());
    let out = Outgoing::of(&part)?;
    let mut got = View2::<f64>::zeros("got", [3, 6])?;
    mpi::request::scope(|scope| -> Outcome {
        let sending = next.immediate_send(scope, out.as_slice());
        let mut landing = Incoming::into(&mut got)?;
        let status = prev.receive_into(landing.as_mut_slice());
        landing.finish(&status)?;
        sending.wait();
        Ok(())
    })?;
    let from = (rank + size - 1) % size;
    for i in 0..3 {
        for k in 0..6 {
            assert_eq!(
                got[[i, k]],
                value([i + 1, 2, k], from),
                "element ({i}, {k})"
            );
        }
    }
    // Back to where it came from, into a strided subview of a LayoutLeft View.
    let mut back = View3::<f64, LayoutLeft>::zeros("back", [4, 5, 6])?;
    mpi::request::scope(|scope| -> Outcome {
        let returning = prev.immediate_send(scope, got.as_slice().expect("contiguous"));
        let mut target = back.subview_mut((1..4, 2, ALL))?;
        receive_into(&next, 0, &mut target)?;
        returning.wait();
        Ok(())
    })?;
    for i in 1..4 {
        for k in 0..6 {
            assert_eq!(back[[i, 2, k]], value([i, 2, k], rank));
        }
    }
    assert_eq!(
        back[[0, 2, 0]],
        0.0,
        "cells outside the subview are untouched"
    );
    Ok(())
}

/// Blocking send of a contiguous View straight from its memory, and a
/// receive into a View of the wrong size, which must be an error naming it.
fn contiguous_and_size_mismatch(world: &SimpleCommunicator) -> Outcome {
    let (rank, size) = (world.rank(), world.size());
    let next = world.process_at_rank((rank + 1) % size);
    let prev = world.process_at_rank((rank + size - 1) % size);
    let v = View1::<i64>::from_fn("v", 10, |i| i as i64 * (rank as i64 + 1))?;
    let mut got = View1::<i64>::zeros("got", 10)?;
    let mut small = View1::<i64>::zeros("small", 12)?;
    let out = Outgoing::of(&v)?;
    mpi::request::scope(|scope| -> Outcome {
        assert!(
            matches!(out, Outgoing::InPlace(_)),
            "a contiguous host View is sent in place"
        );
        let a = next.immediate_send_with_tag(scope, out.as_slice(), 1);
        let b = next.immediate_send_with_tag(scope, out.as_slice(), 2);
        receive_into(&prev, 1, &mut got)?;
        match receive_into(&prev, 2, &mut small) {
            Err(CommError::SizeMismatch {
                label,
                expected: 12,
                received: 10,
                ..
            }) => assert_eq!(label, "small"),
            other => panic!("a 10-element message into a 12-element View gave {other:?}"),
        }
        a.wait();
        b.wait();
        Ok(())
    })?;
    let from = (rank + size - 1) % size;
    assert_eq!(
        got.to_vec(),
        (0..10).map(|i| i * (from as i64 + 1)).collect::<Vec<_>>()
    );
    // The blocking send, with its receive posted first (no deadlock).
    let mut again = vec![0i64; 10];
    mpi::request::scope(|scope| -> Outcome {
        let r = prev.immediate_receive_into_with_tag(scope, &mut again[..], 3);
        send(&next, 3, &v)?;
        r.wait();
        Ok(())
    })?;
    assert_eq!(again, got.to_vec());
    Ok(())
}

fn body(world: &SimpleCommunicator) -> Outcome {
    strided_round_trip(world)?;
    contiguous_and_size_mismatch(world)?;
    Ok(())
}

fn main() {
    common::main_for("p2p", body);
}
