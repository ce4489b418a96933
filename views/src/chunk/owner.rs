//! Owner tables: which thread owns each element, found by enumerating
//! every thread of a mocked scope. The evidence behind the maps' unsafe
//! impls, and the tables of the specification.

use super::error::ChunkError;
use super::ids::ThreadIds;
use super::map::ChunkMap;

/// The owner (linear thread id) of each element of an array of length
/// `len`, for a mocked 1-D scope of `threads` threads each using local
/// indices `0..locals_per_thread`; `None` where no thread owns the element.
/// Accesses the map marks invalid, or that fall at or past `len`, own nothing.
///
/// # Panics
/// If the map rejects a 1-D scope of `threads` threads, or if two accesses
/// reach one element (a broken map contract). Use [`owners`] for a `Result`.
///
/// ```
/// use granule_views::chunk::{owner_table, MapLinear};
/// assert_eq!(owner_table(MapLinear::new(2), 2, 2, 5), [Some(0), Some(0), Some(1), Some(1), None]);
/// ```
#[track_caller]
pub fn owner_table<M: ChunkMap<Local = usize>>(
    map: M,
    threads: usize,
    locals_per_thread: usize,
    len: usize,
) -> Vec<Option<usize>> {
    let locals: Vec<usize> = (0..locals_per_thread).collect();
    match owners(&map, [threads, 1, 1], &locals, len) {
        Ok(table) => table,
        Err(e) => panic!("owner_table of {map:?} over {threads} threads: {e}"),
    }
}

/// The owner (linear thread id) of each element of an array of length
/// `len`, enumerating every thread of a mocked scope of `dims` groups per
/// axis and every local index in `locals`.
///
/// Fails if the map rejects `dims`, or with [`ChunkError::Overlap`] if two
/// different (local, thread) accesses reach the same element.
///
/// ```
/// use granule_views::chunk::{owners, MapContinuousLinear};
/// let o = owners(&MapContinuousLinear::new(1), [2, 2, 1], &[0], 4)?;
/// assert_eq!(o, [Some(0), Some(1), Some(2), Some(3)]);
/// # Ok::<(), granule_views::chunk::ChunkError>(())
/// ```
pub fn owners<M: ChunkMap>(
    map: &M,
    dims: [usize; 3],
    locals: &[M::Local],
    len: usize,
) -> Result<Vec<Option<usize>>, ChunkError> {
    map.check(dims)?;
    let threads = ThreadIds::new(dims, [0; 3])?.count();
    let mut table: Vec<Option<(usize, usize)>> = vec![None; len];
    for g in 0..threads {
        let t = ThreadIds::from_linear(dims, g)?;
        for (li, &local) in locals.iter().enumerate() {
            let Some(slot) = map.map(local, &t).and_then(|e| table.get_mut(e)) else {
                continue;
            };
            if let Some((g0, l0)) = slot.replace((g, li)) {
                let global = map.map(local, &t).unwrap_or_default();
                let (first, second) =
                    ((g0, format!("{:?}", locals[l0])), (g, format!("{local:?}")));
                return Err(ChunkError::Overlap {
                    global,
                    first,
                    second,
                });
            }
        }
    }
    Ok(table.into_iter().map(|o| o.map(|(g, _)| g)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deliberately broken map: every thread gets element `local`.
    #[derive(Clone, Copy, Debug)]
    struct Broken;

    // SAFETY: it is NOT sound, on purpose; it never reaches a chunk, only
    // the checker, which must catch it.
    unsafe impl ChunkMap for Broken {
        type Local = usize;
        fn map(&self, local: usize, _t: &ThreadIds) -> Option<usize> {
            Some(local)
        }
        fn check(&self, _dims: [usize; 3]) -> Result<(), ChunkError> {
            Ok(())
        }
    }

    #[test]
    fn overlap_is_reported_with_both_owners() {
        let err = owners(&Broken, [2, 1, 1], &[0, 1], 4).unwrap_err();
        let expected = ChunkError::Overlap {
            global: 0,
            first: (0, "0".into()),
            second: (1, "0".into()),
        };
        assert_eq!(err, expected);
    }

    #[test]
    #[should_panic(expected = "owned by thread 0 (local 0) and by thread 1 (local 0)")]
    fn owner_table_panics_on_overlap() {
        owner_table(Broken, 2, 1, 4);
    }
}
