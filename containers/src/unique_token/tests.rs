//! Unit tests of the host lock protocol.

use super::{locks, TokenError, UniqueToken};
use granule_core::Serial;
use granule_views::HostSpace;
use std::sync::atomic::{AtomicU32, Ordering};

#[test]
fn host_locks_are_padded_for_thread_sized_tokens_only() {
    let pad = locks::stride::<HostSpace>(1);
    assert!(pad * 4 >= 64, "two locks never share a cache line");
    #[cfg(target_arch = "x86_64")]
    assert_eq!(pad, 32, "a line pair apart on x86-64");
    assert_eq!(locks::stride::<HostSpace>(1024), pad);
    assert_eq!(locks::stride::<HostSpace>(1025), 1);
}

#[test]
fn every_id_is_handed_out_once_until_released() {
    let token = UniqueToken::with_size_on(&Serial, 3).unwrap();
    let mut ids: Vec<usize> = (0..3).map(|_| token.try_acquire().unwrap()).collect();
    assert_eq!(token.try_acquire(), None);
    ids.sort();
    assert_eq!(ids, [0, 1, 2]);
    token.release(1);
    assert_eq!(token.try_acquire(), Some(1));
}

#[test]
fn a_thread_gets_back_the_id_it_held_last() {
    let token = UniqueToken::with_size_on(&Serial, 5).unwrap();
    let first = token.acquire();
    token.release(first);
    for _ in 0..10 {
        let id = token.acquire();
        assert_eq!(id, first);
        token.release(id);
    }
}

#[test]
fn releases_are_checked() {
    let token = UniqueToken::with_size_on(&Serial, 1).unwrap();
    assert_eq!(
        token.try_release(0),
        Err(TokenError::NotHeld { id: 0, size: 1 })
    );
    assert_eq!(
        token.try_release(1),
        Err(TokenError::OutOfRange { id: 1, size: 1 })
    );
    let g = token.acquire_guard();
    assert_eq!(token.try_acquire(), None);
    drop(g);
    assert_eq!(token.try_acquire(), Some(0));
}

#[test]
fn more_threads_than_ids_never_share_one() {
    let token = UniqueToken::with_size_on(&Serial, 2).unwrap();
    let held = [AtomicU32::new(0), AtomicU32::new(0)];
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..5_000 {
                    let g = token.acquire_guard();
                    assert_eq!(held[g.id()].fetch_add(1, Ordering::SeqCst), 0);
                    held[g.id()].fetch_sub(1, Ordering::SeqCst);
                }
            });
        }
    });
    assert!(held.iter().all(|h| h.load(Ordering::SeqCst) == 0));
}
