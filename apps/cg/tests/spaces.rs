//! The one driver on every space: the same residual history and solution,
//! bit for bit, on Serial and Rayon at 1, 2 and 3 threads (the driver
//! outside the pool and on it); on Cuda (the emulator in the test
//! command) the same bits on every run, and the host's history to
//! rounding (its float reductions group their terms by the device's
//! launch geometry, as the determinism guide says).

use granule::prelude::*;
use granule_cg::{run, Config, Report};

fn small() -> Config {
    Config {
        nx: 5,
        ny: 4,
        nz: 3,
        ..Config::default()
    }
}

fn same(a: &Report, b: &Report, what: &str) {
    assert_eq!(a.residuals, b.residuals, "{what}: residual history");
    assert_eq!(a.iterations, b.iterations, "{what}: iterations");
    assert_eq!(a.x, b.x, "{what}: solution");
}

#[cfg(feature = "rayon")]
#[test]
fn serial_and_rayon_give_the_same_bits() {
    let cfg = small();
    let serial = run(&Serial, &cfg).unwrap();
    assert_eq!(serial.rows, 120);
    for threads in 1..=3 {
        let space = granule::Rayon::new(threads).unwrap();
        let rayon = run(&space, &cfg).unwrap();
        same(&serial, &rayon, &format!("{threads} threads"));
        let on_pool = space.install(|| run(&space, &cfg)).unwrap();
        same(
            &serial,
            &on_pool,
            &format!("{threads} threads, on the pool"),
        );
    }
}

#[cfg(feature = "cuda")]
#[test]
fn cuda_repeats_its_bits_and_follows_the_hosts_history() {
    let cfg = small();
    let host = run(&Serial, &cfg).unwrap();
    let space = granule::Cuda::from_env().unwrap();
    let cuda = run(&space, &cfg).unwrap();
    same(&cuda, &run(&space, &cfg).unwrap(), "cuda, run twice");
    assert_eq!(cuda.iterations, host.iterations);
    for (c, h) in cuda.residuals.iter().zip(&host.residuals) {
        if h.1 > 1e-10 {
            assert!(
                ((c.1 - h.1) / h.1).abs() < 1e-9,
                "iteration {}: {c:?} against {h:?}",
                h.0
            );
        }
    }
    for (i, (c, h)) in cuda.x.iter().zip(&host.x).enumerate() {
        assert!((c - h).abs() < 1e-12, "x[{i}]: {c} against {h}");
    }
}

#[test]
fn an_empty_mesh_is_an_error_naming_the_flags() {
    let cfg = Config {
        ny: 0,
        ..Config::default()
    };
    let e = run(&Serial, &cfg).unwrap_err().to_string();
    assert!(e.contains("10 x 0 x 10") && e.contains("--ny"), "{e}");
}

/// `--stream-matrix` times a read of the matrix after the solve, and
/// leaves the solve as it was.
#[test]
fn the_matrix_stream_is_timed_only_when_asked() {
    let plain = run(&Serial, &small()).unwrap();
    assert_eq!(plain.timings.stream_matrix, None);
    let cfg = Config {
        stream_matrix: true,
        ..small()
    };
    let streamed = run(&Serial, &cfg).unwrap();
    assert!(streamed
        .timings
        .stream_matrix
        .is_some_and(|t| t > std::time::Duration::ZERO));
    same(&plain, &streamed, "with the stream");
}
