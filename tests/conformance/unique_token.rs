//! UniqueToken: ids are in range and no two concurrent holders share one,
//! on every space (kernels acquire and release through `&UniqueToken`);
//! the default size is the space's concurrency; a zero size is a typed
//! error. The host-only tests cover what only a host space has: guards,
//! the rows lent through them, and raw releases that are refused.

use granule::containers::UniqueToken;
use granule::prelude::*;

/// Holds an id while checking that nobody else holds it: `holders[id]`
/// counts the holders of each id (it must go from 0 to 1), `uses[id]` the
/// work items that held it; `bad[0]` counts ids out of range, `bad[1]`
/// ids held twice at once.
#[kernel]
pub fn token_hold(
    _i: usize,
    token: &UniqueToken,
    holders: &AtomicView<'_, u32, 1>,
    uses: &AtomicView<'_, u64, 1>,
    bad: &AtomicView<'_, u32, 1>,
) {
    let id = token.acquire();
    if id >= token.size() {
        bad.add(0, 1);
    } else {
        if holders.fetch_add(id, 1) != 0 {
            bad.add(1, 1);
        }
        uses.add(id, 1);
        holders.sub(id, 1);
        token.release(id);
    }
}

/// Releases an id nobody holds.
#[kernel]
pub fn token_release_free(_i: usize, token: &UniqueToken) {
    token.release(token.size() - 1);
}

/// The kernels above, for the NVRTC compile tests.
#[allow(dead_code)]
pub const TOKEN_KERNELS: &[&granule::kernel::DeviceKernel] =
    kernel_list![token_hold, token_release_free];

macro_rules! unique_token_tests {
    () => {
        mod unique_token_portable {
            use super::*;
            use crate::unique_token::*;
            use granule::containers::{TokenError, UniqueToken};

            /// Runs `n` holders on a token of `size` ids (the space's
            /// concurrency when `None`); returns the uses per id.
            fn hold(size: Option<usize>, n: usize) -> Vec<u64> {
                let s = space();
                let token = match size {
                    Some(k) => UniqueToken::with_size_on(&s, k).unwrap(),
                    None => UniqueToken::new_on(&s).unwrap(),
                };
                let m = token.size();
                let mut holders =
                    View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "holders", m).unwrap();
                let mut uses =
                    View1::<u64, LayoutRight, _>::zeros_in(s.memory_space(), "uses", m).unwrap();
                let mut bad =
                    View1::<u32, LayoutRight, _>::zeros_in(s.memory_space(), "bad", 2).unwrap();
                parallel_for(
                    "hold",
                    RangePolicy::new(&s, 0..n),
                    (),
                    token_hold(
                        &token,
                        &holders.atomic().unwrap(),
                        &uses.atomic().unwrap(),
                        &bad.atomic().unwrap(),
                    ),
                );
                let bad = create_mirror_view_and_copy(&bad).unwrap().to_vec();
                assert_eq!(bad, [0, 0], "[ids out of range, ids held twice]");
                let holders = create_mirror_view_and_copy(&holders).unwrap().to_vec();
                assert!(holders.iter().all(|&h| h == 0), "every id released");
                create_mirror_view_and_copy(&uses).unwrap().to_vec()
            }

            #[test]
            fn token_ids_are_in_range_and_never_shared() {
                let s = space();
                let uses = hold(None, 5_000);
                assert_eq!(uses.len(), s.concurrency().max(1));
                assert_eq!(uses.iter().sum::<u64>(), 5_000);
            }

            #[test]
            fn token_ids_are_unique_under_contention() {
                // Fewer ids than threads: holders wait for one another.
                for size in [1, 3] {
                    let uses = hold(Some(size), 2_000);
                    assert_eq!(uses.len(), size);
                    assert_eq!(uses.iter().sum::<u64>(), 2_000);
                }
            }

            #[test]
            fn token_size_is_the_space_concurrency() {
                let s = space();
                let token = UniqueToken::new_on(&s).unwrap();
                assert_eq!(token.size(), s.concurrency().max(1));
                assert_eq!(UniqueToken::with_size_on(&s, 7).unwrap().size(), 7);
            }

            #[test]
            fn token_zero_size_is_a_typed_error() {
                let s = space();
                let e = UniqueToken::with_size_on(&s, 0).unwrap_err();
                assert_eq!(e, TokenError::ZeroSize);
                assert!(e.to_string().contains("at least one id"), "{e}");
            }

            #[test]
            fn token_release_of_a_free_id_fails_the_kernel() {
                let s = own_space();
                let token = UniqueToken::with_size_on(&s, 2).unwrap();
                let payload = crate::soundness::panic_of("token_release_free", move || {
                    parallel_for(
                        "release_free",
                        RangePolicy::new(&s, 0..1),
                        (),
                        token_release_free(&token),
                    );
                    s.fence();
                });
                let msg = crate::soundness::message(&*payload);
                assert!(
                    msg.contains("release of id 1") && msg.contains("not held"),
                    "{msg}"
                );
            }
        }
    };
}

macro_rules! unique_token_host_only_tests {
    () => {
        mod unique_token_host {
            use super::*;
            use granule::containers::{TokenError, UniqueToken};
            use std::sync::atomic::{AtomicU32, Ordering};

            #[test]
            fn token_guards_hold_distinct_ids_and_release_on_drop() {
                // Host-only: guards live in host code, holding host locks.
                let s = space();
                let token = UniqueToken::with_size_on(&s, 4).unwrap();
                let counts: Vec<AtomicU32> = (0..4).map(|_| AtomicU32::new(0)).collect();
                parallel_for("guards", RangePolicy::new(&s, 0..4_000), (), |_i, ()| {
                    let g = token.acquire_guard();
                    assert!(g.id() < 4);
                    assert_eq!(counts[g.id()].fetch_add(1, Ordering::SeqCst), 0);
                    std::hint::black_box(&g);
                    counts[g.id()].fetch_sub(1, Ordering::SeqCst);
                });
                let all: Vec<_> = (0..4).map(|_| token.acquire_guard()).collect();
                let mut ids: Vec<usize> = all.iter().map(|g| g.id()).collect();
                ids.sort();
                assert_eq!(ids, [0, 1, 2, 3]);
                assert_eq!(token.try_acquire(), None);
                drop(all);
                assert!(token.try_acquire().is_some());
            }

            #[test]
            fn token_rows_give_each_holder_its_own_row() {
                // Host-only: the rows are `&mut` slices of host memory.
                let s = space();
                let mut token = UniqueToken::new_on(&s).unwrap();
                let bins = 7;
                let mut partial = View2::<u64>::zeros("partial", [token.size(), bins]).unwrap();
                let rows = token.rows(&mut partial).unwrap();
                parallel_for("rows", RangePolicy::new(&s, 0..10_000), (), |i, ()| {
                    let mut g = rows.acquire();
                    let row = g.row_mut();
                    // A read-modify-write that a second writer would break.
                    let v = row[i % bins];
                    std::hint::black_box(&v);
                    row[i % bins] = v + 1;
                });
                let mut per_bin = vec![0u64; bins];
                for (k, v) in partial.to_vec().into_iter().enumerate() {
                    per_bin[k % bins] += v;
                }
                let want: Vec<u64> = (0..bins)
                    .map(|b| (0..10_000).filter(|i| i % bins == b).count() as u64)
                    .collect();
                assert_eq!(per_bin, want);
            }

            #[test]
            fn token_rows_need_a_row_per_id() {
                let s = space();
                let mut token = UniqueToken::with_size_on(&s, 3).unwrap();
                let mut v = View2::<u32>::zeros("two_rows", [2, 5]).unwrap();
                let e = token.rows(&mut v).unwrap_err();
                assert_eq!(
                    e,
                    TokenError::TooFewRows {
                        label: "two_rows".into(),
                        rows: 2,
                        size: 3
                    }
                );
                assert!(e.to_string().contains("two_rows"), "{e}");
            }

            #[test]
            fn token_raw_release_is_checked() {
                let s = space();
                let token = UniqueToken::with_size_on(&s, 2).unwrap();
                assert_eq!(
                    token.try_release(0),
                    Err(TokenError::NotHeld { id: 0, size: 2 })
                );
                assert_eq!(
                    token.try_release(2),
                    Err(TokenError::OutOfRange { id: 2, size: 2 })
                );
                let id = token.acquire();
                assert_eq!(token.try_release(id), Ok(()));
                assert_eq!(
                    token.try_release(id),
                    Err(TokenError::NotHeld { id, size: 2 })
                );
            }

            #[test]
            fn token_works_from_outside_the_pool() {
                // Host-only: plain threads besides the space's own.
                let s = space();
                let token = UniqueToken::new_on(&s).unwrap();
                let held: Vec<AtomicU32> = (0..token.size()).map(|_| AtomicU32::new(0)).collect();
                std::thread::scope(|sc| {
                    for _ in 0..3 {
                        sc.spawn(|| {
                            for _ in 0..2_000 {
                                let g = token.acquire_guard();
                                assert_eq!(held[g.id()].fetch_add(1, Ordering::SeqCst), 0);
                                held[g.id()].fetch_sub(1, Ordering::SeqCst);
                            }
                        });
                    }
                });
                assert!(held.iter().all(|h| h.load(Ordering::SeqCst) == 0));
            }
        }
    };
}
