//! `all_reduce` with granule's reducers, of one value or of a View
//! element-wise.

use crate::error::Result;
use crate::wire::{bytes_of, Wire};
use granule_core::reducer::Reducer;
use granule_views::storage::StorageMut;
use granule_views::{deep_copy, HostSpace, Layout, SpaceCopy, View, ViewBase};
use mpi::collective::UserOperation;
use mpi::datatype::{DynBuffer, DynBufferMut};
use mpi::traits::*;

/// Joins the partial results of every rank with `reducer` and gives each
/// rank the same total (MPI_Allreduce with the reducer's `join` as a
/// user operation).
///
/// The operation is declared non-commutative, so MPI combines the ranks'
/// values in rank order (the standard's promise for such operations): a
/// custom `join` need not commute. Floating-point sums may still group
/// differently with another number of ranks. `value` is a rank's
/// unfinalized partial result (what `join` accepts); the reducer's
/// `finalize` is applied once to the total.
///
/// ```
/// use granule_core::reducer::{MinLoc, Sum, ValLocScalar};
/// use granule_mpi::{all_reduce, run};
/// use mpi::traits::*;
/// run(|world| {
///     let rank = world.rank() as f64;
///     let total: f64 = all_reduce(world, &Sum, rank);
///     let size = world.size() as f64;
///     assert_eq!(total, size * (size - 1.0) / 2.0);
///     let lowest = all_reduce(world, &MinLoc, ValLocScalar { val: -rank, loc: world.rank() });
///     assert_eq!(lowest.loc, world.size() - 1);
///     Ok::<(), granule_mpi::CommError>(())
/// });
/// ```
pub fn all_reduce<T, Red, C>(comm: &C, reducer: &Red, value: T) -> T
where
    T: Wire,
    Red: Reducer<T>,
    C: Communicator,
{
    let mut total = [value];
    join_across(comm, reducer, &[value], &mut total);
    let [mut total] = total;
    reducer.finalize(&mut total);
    total
}

/// Joins a host slice element-wise across the ranks in place (every
/// rank gets the rank-ordered join of all ranks' elements). The slices
/// of all ranks must have the same length.
pub fn all_reduce_slice<T, Red, C>(comm: &C, reducer: &Red, values: &mut [T])
where
    T: Wire,
    Red: Reducer<T>,
    C: Communicator,
{
    let mine = values.to_vec();
    join_across(comm, reducer, &mine, values);
    for v in values.iter_mut() {
        reducer.finalize(v);
    }
}

/// Joins a View element-wise across the ranks in place: element `idx` of
/// every rank's View becomes the rank-ordered join of the ranks' elements
/// `idx`. The Views of all ranks must have the same extents.
///
/// A View on a device (CudaSpace) is staged through a host buffer: MPI
/// is not assumed to read device memory. Host Views are staged too
/// unless they are contiguous and row-major.
///
/// ```
/// use granule_core::reducer::Max;
/// use granule_mpi::{all_reduce_view, run};
/// use granule_views::View1;
/// use mpi::traits::*;
/// run(|world| {
///     let r = world.rank();
///     let mut v = View1::<i32>::from_fn("v", 3, |i| r * i as i32)?;
///     all_reduce_view(world, &Max, &mut v)?;
///     assert_eq!(v.to_vec(), [0, world.size() - 1, 2 * (world.size() - 1)]);
///     Ok::<(), granule_mpi::CommError>(())
/// });
/// ```
pub fn all_reduce_view<S, const R: usize, L, Red, C>(
    comm: &C,
    reducer: &Red,
    view: &mut ViewBase<S, R, L>,
) -> Result<()>
where
    S: StorageMut,
    S::Elem: Wire + granule_views::Element,
    S::Space: SpaceCopy<HostSpace>,
    HostSpace: SpaceCopy<S::Space>,
    L: Layout,
    Red: Reducer<S::Elem>,
    C: Communicator,
{
    let mut staged = View::<S::Elem, R>::zeros(view.label(), view.extents())?;
    deep_copy(&mut staged, view)?;
    let slice = staged
        .as_mut_slice()
        .expect("a freshly allocated LayoutRight View is contiguous");
    all_reduce_slice(comm, reducer, slice);
    deep_copy(view, &staged)?;
    Ok(())
}

/// MPI_Allreduce of `mine` into `total` with `join` in rank order, in
/// the values' travelling form ([`Wire::Bytes`]).
fn join_across<T, Red, C>(comm: &C, reducer: &Red, mine: &[T], total: &mut [T])
where
    T: Wire,
    Red: Reducer<T>,
    C: Communicator,
{
    assert_eq!(
        mine.len(),
        total.len(),
        "all_reduce: send and result lengths differ"
    );
    let datatype = bytes_of::<T>();
    let count = i32::try_from(mine.len()).expect("all_reduce: more than 2^31 elements in one call");
    let outgoing: Vec<T::Bytes> = mine.iter().map(|v| v.to_wire()).collect();
    let mut incoming = vec![<T::Bytes as bytemuck::Zeroable>::zeroed(); total.len()];
    // MPI hands the operation `invec` (the lower ranks' part) and `inoutvec`
    // (the higher ranks'); the result, left in `inoutvec`, is in ⊕ inout.
    let op = UserOperation::associative(|lower: DynBuffer, higher: DynBufferMut| {
        let n = lower.len();
        let lower = lower.as_ptr() as *const T::Bytes;
        let mut higher = higher;
        let higher = higher.as_mut_ptr() as *mut T::Bytes;
        for k in 0..n {
            // SAFETY: MPI gives both buffers `n` elements of the datatype,
            // `size_of::<T::Bytes>()` bytes each; every bit pattern is a
            // valid `T::Bytes` (Pod), whichever rank wrote them; MPI's
            // buffers may be unaligned, hence the unaligned reads and write.
            unsafe {
                let mut acc = T::from_wire(lower.add(k).read_unaligned());
                reducer.join(&mut acc, &T::from_wire(higher.add(k).read_unaligned()));
                higher.add(k).write_unaligned(acc.to_wire());
            }
        }
    });
    // SAFETY: both buffers hold `count` values of `T::Bytes`, which the
    // datatype describes as `size_of::<T::Bytes>()` opaque bytes each,
    // none uninitialised (Pod); they live until the blocking call returns.
    let (send, mut recv) = unsafe {
        (
            DynBuffer::from_raw(outgoing.as_ptr(), count, datatype.as_ref()),
            DynBufferMut::from_raw(incoming.as_mut_ptr(), count, datatype.as_ref()),
        )
    };
    comm.all_reduce_into(&send, &mut recv, &op);
    for (t, r) in total.iter_mut().zip(incoming) {
        *t = T::from_wire(r);
    }
}
