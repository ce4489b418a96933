//! Views between ranks: strided subviews, layouts, every packed rank,
//! non-blocking, sizes; on Serial, Rayon and Cuda (the CPU emulator),
//! whose strided Views are packed and unpacked by kernels on the device.

mod common;

use common::Outcome;
use granule_core::{ExecutionSpace, Serial};
use granule_cuda::Cuda;
use granule_mpi::{receive_into, send, CommError, Incoming, Outgoing, Pack};
use granule_rayon::Rayon;
use granule_views::{
    create_mirror_view_and_copy, HostSpace, LayoutLeft, LayoutRight, MemorySpace, SpaceCopy, View,
    View1, View2, View3, ALL,
};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

fn value([i, j, k]: [usize; 3], rank: i32) -> f64 {
    (10_000 * rank as usize + 100 * i + 10 * j + k) as f64
}

/// The spaces every test runs on, by name.
trait Space<M: MemorySpace>:
    ExecutionSpace<MemorySpace = M>
    + Pack<f64, 1>
    + Pack<f64, 2>
    + Pack<f64, 3>
    + Pack<f64, 4>
    + Pack<f64, 5>
    + Pack<f64, 6>
    + Pack<i64, 1>
{
}
impl<X, M: MemorySpace> Space<M> for X where
    X: ExecutionSpace<MemorySpace = M>
        + Pack<f64, 1>
        + Pack<f64, 2>
        + Pack<f64, 3>
        + Pack<f64, 4>
        + Pack<f64, 5>
        + Pack<f64, 6>
        + Pack<i64, 1>
{
}

/// Rank r sends a strided subview of its grid (on `space`) to the next
/// rank, which sends back what it got; the round trip must give the
/// subview back, into a strided subview of a LayoutLeft View.
fn strided_round_trip<X, M>(world: &SimpleCommunicator, space: &X) -> Outcome
where
    X: Space<M>,
    M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
    HostSpace: SpaceCopy<M>,
{
    let (rank, size) = (world.rank(), world.size());
    let next = world.process_at_rank((rank + 1) % size);
    let prev = world.process_at_rank((rank + size - 1) % size);
    let grid =
        View3::<f64, LayoutRight, M>::from_fn_in(space.memory_space(), "grid", [4, 5, 6], |idx| {
            value(idx, rank)
        })?;
    let part = grid.subview((1..4, 2, 0..6))?; // strided: rows 5*6 apart
    assert!(!part.is_contiguous());
    let out = Outgoing::of(space, &part)?;
    let mut got = View2::<f64, LayoutRight, M>::zeros_in(space.memory_space(), "got", [3, 6])?;
    mpi::request::scope(|scope| -> Outcome {
        let sending = next.immediate_send(scope, out.as_slice());
        let mut landing = Incoming::into(space, &mut got)?;
        let status = prev.receive_into(landing.as_mut_slice());
        landing.finish(&status)?;
        sending.wait();
        Ok(())
    })?;
    let from = (rank + size - 1) % size;
    let seen = create_mirror_view_and_copy(&got)?;
    let seen = seen.as_view();
    for i in 0..3 {
        for k in 0..6 {
            assert_eq!(
                seen[[i, k]],
                value([i + 1, 2, k], from),
                "element ({i}, {k})"
            );
        }
    }
    let mut back = View3::<f64, LayoutLeft, M>::zeros_in(space.memory_space(), "back", [4, 5, 6])?;
    let returning = seen.to_vec();
    mpi::request::scope(|scope| -> Outcome {
        let sending = prev.immediate_send(scope, &returning[..]);
        let mut target = back.subview_mut((1..4, 2, ALL))?;
        receive_into(space, &next, 0, &mut target)?;
        sending.wait();
        Ok(())
    })?;
    let back = create_mirror_view_and_copy(&back)?;
    let back = back.as_view();
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

/// A LayoutLeft View of every rank the kernels pack (2 to 6; rank 1
/// through a strided column), sent to the next rank, which receives it
/// into a LayoutLeft View again (unpacked by the same kernels) and
/// checks it element by element.
fn every_rank<X, M>(world: &SimpleCommunicator, space: &X) -> Outcome
where
    X: Space<M>,
    M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
    HostSpace: SpaceCopy<M>,
{
    let (rank, size) = (world.rank(), world.size());
    let next = world.process_at_rank((rank + 1) % size);
    let prev = world.process_at_rank((rank + size - 1) % size);
    let from = (rank + size - 1) % size;
    // A value naming the rank and the whole index, row-major weights.
    fn tag<const R: usize>(idx: [usize; R], rank: i32) -> f64 {
        idx.iter().fold(rank as f64, |a, &i| 10.0 * a + i as f64)
    }
    macro_rules! round {
        ($r:literal, $ext:expr) => {{
            let ext: [usize; $r] = $ext;
            let mine = View::<f64, $r, LayoutLeft, M>::from_fn_in(
                space.memory_space(),
                "mine",
                ext,
                |idx| tag(idx, rank),
            )?;
            let mut theirs =
                View::<f64, $r, LayoutLeft, M>::zeros_in(space.memory_space(), "theirs", ext)?;
            let out = Outgoing::of(space, &mine)?;
            assert!(
                matches!(out, Outgoing::Packed(_)),
                "rank {}: LayoutLeft is not row-major",
                $r
            );
            mpi::request::scope(|scope| -> Outcome {
                let sending = next.immediate_send_with_tag(scope, out.as_slice(), $r);
                receive_into(space, &prev, $r, &mut theirs)?;
                sending.wait();
                Ok(())
            })?;
            let expect = View::<f64, $r, LayoutLeft>::from_fn("expect", ext, |idx| tag(idx, from))?;
            let seen = create_mirror_view_and_copy(&theirs)?;
            assert_eq!(seen.to_vec(), expect.to_vec(), "rank-{} View", $r);
        }};
    }
    round!(2, [3, 4]);
    round!(3, [2, 3, 4]);
    round!(4, [2, 3, 1, 2]);
    round!(5, [2, 1, 3, 2, 2]);
    round!(6, [2, 2, 1, 2, 3, 2]);
    // Rank 1: a column of a row-major matrix, stride 5.
    let m =
        View2::<f64, LayoutRight, M>::from_fn_in(space.memory_space(), "m", [4, 5], |[i, j]| {
            tag([i, j], rank)
        })?;
    let mut col = View1::<f64, LayoutRight, M>::zeros_in(space.memory_space(), "col", 4)?;
    let column = m.subview((ALL, 3))?;
    let out = Outgoing::of(space, &column)?;
    mpi::request::scope(|scope| -> Outcome {
        let sending = next.immediate_send_with_tag(scope, out.as_slice(), 1);
        receive_into(space, &prev, 1, &mut col)?;
        sending.wait();
        Ok(())
    })?;
    let seen = create_mirror_view_and_copy(&col)?;
    assert_eq!(
        seen.to_vec(),
        (0..4).map(|i| tag([i, 3], from)).collect::<Vec<_>>()
    );
    Ok(())
}

/// Blocking send of a contiguous View (straight from its memory on the
/// host), and a receive into a View of the wrong size, which must be an
/// error naming it.
fn contiguous_and_size_mismatch<X, M>(world: &SimpleCommunicator, space: &X) -> Outcome
where
    X: Space<M>,
    M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
    HostSpace: SpaceCopy<M>,
{
    let (rank, size) = (world.rank(), world.size());
    let next = world.process_at_rank((rank + 1) % size);
    let prev = world.process_at_rank((rank + size - 1) % size);
    let mem = space.memory_space();
    let v = View1::<i64, LayoutRight, M>::from_fn_in(mem.clone(), "v", 10, |i| {
        i as i64 * (rank as i64 + 1)
    })?;
    let mut got = View1::<i64, LayoutRight, M>::zeros_in(mem.clone(), "got", 10)?;
    let mut small = View1::<i64, LayoutRight, M>::zeros_in(mem, "small", 12)?;
    let out = Outgoing::of(space, &v)?;
    assert_eq!(
        matches!(out, Outgoing::InPlace(_)),
        M::IS_HOST_ACCESSIBLE,
        "a contiguous host View is sent in place, a device View is staged"
    );
    mpi::request::scope(|scope| -> Outcome {
        let a = next.immediate_send_with_tag(scope, out.as_slice(), 1);
        let b = next.immediate_send_with_tag(scope, out.as_slice(), 2);
        receive_into(space, &prev, 1, &mut got)?;
        match receive_into(space, &prev, 2, &mut small) {
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
    let got = create_mirror_view_and_copy(&got)?.to_vec();
    assert_eq!(
        got,
        (0..10).map(|i| i * (from as i64 + 1)).collect::<Vec<_>>()
    );
    // The blocking send, with its receive posted first (no deadlock).
    let mut again = vec![0i64; 10];
    mpi::request::scope(|scope| -> Outcome {
        let r = prev.immediate_receive_into_with_tag(scope, &mut again[..], 3);
        send(space, &next, 3, &v)?;
        r.wait();
        Ok(())
    })?;
    assert_eq!(again, got);
    Ok(())
}

fn on<X, M>(world: &SimpleCommunicator, space: &X) -> Outcome
where
    X: Space<M>,
    M: MemorySpace + SpaceCopy<HostSpace> + SpaceCopy<M>,
    HostSpace: SpaceCopy<M>,
{
    strided_round_trip(world, space)?;
    every_rank(world, space)?;
    contiguous_and_size_mismatch(world, space)?;
    Ok(())
}

fn body(world: &SimpleCommunicator) -> Outcome {
    on(world, &Serial)?;
    on(world, &Rayon::default())?;
    on(world, &Cuda::emulated()?)?;
    Ok(())
}

fn main() {
    common::main_for("p2p", body);
}
