//! The Cuda drivers' launches and global-memory words per element, from
//! the emulator's counters (an emulator of their own, whatever
//! `GRANULE_CUDA` says: counting is the emulator's), against their
//! bounds at 2^20 elements: one launch for a scan or a compaction, the
//! fewest words a launch can move plus a margin for its tile states.

use crate::common::{read, view_in, Rng};
use crate::functions::below;
use granule::algorithms::{copy_if, inclusive_scan, reduce, sort, sort_by_key};
use granule::prelude::*;
use granule_cuda::emu::{EmuDevice, EmuStats};
use std::sync::{Arc, OnceLock};

const N: usize = 1 << 20;

/// A Cuda space over a counting emulator, shared by these tests (the
/// counters are taken around each call, and the tests of this file run
/// one at a time through `COUNTED`).
fn counted<R>(f: impl FnOnce(&granule::Cuda) -> R) -> (R, EmuStats) {
    let (r, _, s) = counted_call(|_| (), move |c, ()| f(c));
    (r, s)
}

/// `call` on a counting space, after `setup` (whose Views' copies to the
/// device are not counted): its result, the setup's, and its counts.
fn counted_call<V, R>(
    setup: impl FnOnce(&granule::Cuda) -> V,
    call: impl FnOnce(&granule::Cuda, &mut V) -> R,
) -> (R, V, EmuStats) {
    static SPACE: OnceLock<(Arc<EmuDevice>, granule::Cuda)> = OnceLock::new();
    static COUNTED: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let (emu, cuda) = SPACE.get_or_init(|| {
        let emu = Arc::new(EmuDevice::new().expect("an emulator"));
        (emu.clone(), granule::Cuda::with_device(emu))
    });
    let _one = COUNTED.lock().unwrap_or_else(|e| e.into_inner());
    let mut v = setup(cuda);
    cuda.fence();
    emu.take_stats();
    let r = call(cuda, &mut v);
    (r, v, emu.take_stats())
}

fn report(what: &str, s: &EmuStats, word: u64) -> f64 {
    let words = s.words_per_element(word, N as u64);
    println!(
        "{what}: {} launch(es), {words:.3} words per element",
        s.launches
    );
    words
}

#[test]
fn a_scan_of_2_20_i32_is_one_launch_of_at_most_2_1_words_per_element() {
    let mut rng = Rng::new(51);
    let data = rng.vec(N, |r| (r % 7) as i32 - 3);
    let (total, s) = counted(|c| {
        let x = view_in(c, "x", data.clone());
        let mut y = view_in(c, "y", vec![0i32; N]);
        inclusive_scan(c, &x, &mut y, Sum, None).unwrap()
    });
    assert_eq!(total, data.iter().sum::<i32>());
    let words = report("inclusive_scan of 2^20 i32", &s, 4);
    assert_eq!(s.launches, 1);
    assert!(words <= 2.1, "{words}");
}

#[test]
fn a_compaction_keeping_two_thirds_is_one_launch_near_the_bound() {
    let mut rng = Rng::new(52);
    let data = rng.vec(N, |r| (r % 3) as i32);
    let ((kept, got), s) = counted(|c| {
        let x = view_in(c, "x", data.clone());
        let mut y = view_in(c, "y", vec![0i32; N]);
        // v < 2 keeps the values 0 and 1: two thirds
        let k = copy_if(c, &x, &mut y, below(2)).unwrap();
        (k, read(&y))
    });
    let expect: Vec<i32> = data.iter().copied().filter(|&v| v < 2).collect();
    assert_eq!(&got[..kept], &expect[..]);
    let fraction = kept as f64 / N as f64;
    let words = report("copy_if of 2^20 i32", &s, 4);
    assert_eq!(s.launches, 1);
    assert!(
        words <= 1.05 + fraction + 0.1,
        "{words} (kept {fraction:.3})"
    );
}

#[test]
fn a_radix_sort_of_2_20_u32_is_five_launches_near_the_bound() {
    let mut rng = Rng::new(53);
    let keys = rng.vec(N, |r| r as u32);
    let (got, s) = counted(|c| {
        let mut k = view_in(c, "k", keys.clone());
        sort(c, &mut k).unwrap();
        read(&k)
    });
    let mut expect = keys.clone();
    expect.sort_unstable();
    assert_eq!(got, expect);
    let words = report("sort of 2^20 u32", &s, 4);
    assert!(s.launches <= 5, "{} launches", s.launches);
    assert!(words <= 9.5, "{words}");

    let ((k, v), s) = counted(|c| {
        let mut k = view_in(c, "k", keys.clone());
        let mut v = view_in(c, "v", (0..N as u32).collect());
        sort_by_key(c, &mut k, &mut v).unwrap();
        (read(&k), read(&v))
    });
    assert_eq!(k, expect);
    assert!(v.iter().zip(&k).all(|(&i, &key)| keys[i as usize] == key));
    let words = report("sort_by_key of 2^20 u32 pairs", &s, 4);
    assert!(s.launches <= 5, "{} launches", s.launches);
    assert!(words <= 17.5, "{words}");
}

/// The host's waits inside one call of each algorithm (its Views made
/// before the count, read after it): one for a result the call returns
/// (a scan's total, a compaction's count), none for the radix sort (the
/// device plans its passes from the digit counts).
#[test]
fn the_algorithms_wait_for_the_device_only_for_what_they_return() {
    let mut rng = Rng::new(54);
    let data = rng.vec(N, |r| (r % 3) as i32);
    let keys = rng.vec(N, |r| r as u32);
    let input = |c: &granule::Cuda| {
        (
            view_in(c, "x", data.clone()),
            view_in(c, "y", vec![0i32; N]),
        )
    };
    let (_, _, scan) = counted_call(input, |c, (x, y)| {
        inclusive_scan(c, x, y, Sum, None).unwrap()
    });
    let (_, _, compact) = counted_call(input, |c, (x, y)| copy_if(c, x, y, below(2)).unwrap());
    let (_, k, sorted) = counted_call(
        |c| view_in(c, "k", keys.clone()),
        |c, k| sort(c, k).unwrap(),
    );
    let mut expect = keys.clone();
    expect.sort_unstable();
    assert_eq!(read(&k), expect);
    println!(
        "host synchronizations per call: inclusive_scan {}, copy_if {}, sort {}",
        scan.synchronizations, compact.synchronizations, sorted.synchronizations
    );
    assert_eq!(scan.synchronizations, 1, "the scan's total");
    assert_eq!(compact.synchronizations, 1, "the count kept");
    assert_eq!(sorted.synchronizations, 0, "a sort returns nothing");
}

/// A sort's temporary keys are written whole by its first pass, so the
/// space hands them out without zeroing them: a second sort of 2^20 keys,
/// which finds its buffers in the space's cache, zeroes only its digit
/// states and counts, far less than the keys' 4 MiB.
#[test]
fn a_sort_zeroes_only_what_it_reads_before_writing() {
    let mut rng = Rng::new(55);
    let keys = rng.vec(N, |r| r as u32);
    let sort_once = || {
        counted_call(
            |c| view_in(c, "k", keys.clone()),
            |c, k| sort(c, k).unwrap(),
        )
        .2
    };
    sort_once();
    let again = sort_once();
    let states = (N as u64).div_ceil(8192) * 256 * 4 * 4;
    println!(
        "a second sort of 2^20 u32 zeroes {} bytes (digit states {states})",
        again.zeroed_bytes
    );
    assert!(
        again.zeroed_bytes < 2 * states,
        "{} bytes zeroed",
        again.zeroed_bytes
    );
    let keys_bytes = 4 * N as u64;
    assert!(
        again.zeroed_bytes < keys_bytes / 4,
        "{} bytes zeroed",
        again.zeroed_bytes
    );
}

/// A reduction of a unit-stride View loads 16 bytes a thread at a time: a
/// load instruction per four f32 (and per two f64), not per element.
#[test]
fn a_reduction_loads_16_bytes_at_a_time() {
    let mut rng = Rng::new(56);
    let narrow = rng.vec(N, |r| (r % 9) as f32);
    let wide: Vec<f64> = narrow.iter().map(|&v| f64::from(v)).collect();
    let (sum, _, s) = counted_call(
        |c| view_in(c, "x", narrow.clone()),
        |c, x| reduce(c, x, Sum, None),
    );
    assert_eq!(sum, narrow.iter().sum::<f32>());
    let per = s.global_loads as f64 / N as f64;
    let (sum, _, w) = counted_call(
        |c| view_in(c, "x", wide.clone()),
        |c, x| reduce(c, x, Sum, None),
    );
    assert_eq!(sum, wide.iter().sum::<f64>());
    let per_wide = w.global_loads as f64 / N as f64;
    println!("reduce of 2^20: {per:.3} loads per f32, {per_wide:.3} per f64");
    assert!(per < 0.26, "{per} loads per f32");
    assert!(per_wide < 0.51, "{per_wide} loads per f64");
}
