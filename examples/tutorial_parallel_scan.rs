//! kokkos-tutorials `parallel_scan`: factorials by a scan whose combine is
//! not addition. The scan's reducer has its own `init` (the identity 1)
//! and `join` (multiplication), as a Kokkos scan functor defines
//! `init`/`join`; so that any length can be checked exactly, products are
//! taken modulo the prime 2^31 − 1, and `fact[i]` is (i+1)! mod p.
//!
//! The reducer is a `#[device] impl Reducer`, so the same scan runs on
//! Cuda (the single-pass look-back scan combines with it there).
//!
//! Flags: `-N e` elements = 2^e (default 2^14, small
//! for the emulator), `-nrepeat n` (default
//! 10).
//!
//! It checks every element against a host loop and exits non-zero on a
//! mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::prelude::*;

/// The modulus: a prime, so no factorial below it is 0, and small enough
/// that a product of two residues fits in a u64.
#[device]
pub const FACTORIAL_MODULUS: u64 = 2_147_483_647;

/// Multiplication modulo [`FACTORIAL_MODULUS`], starting from 1.
#[derive(Clone, Copy)]
pub struct ModularProduct;

#[device]
impl Reducer<u64> for ModularProduct {
    fn init(&self) -> u64 {
        1
    }
    fn join(&self, dst: &mut u64, src: &u64) {
        *dst = *dst * *src % FACTORIAL_MODULUS;
    }
}

/// The inclusive scan: element i contributes the factor i + 1.
#[kernel(scan)]
pub fn factorial_scan(i: usize, fact: &mut u64, partial: &mut u64, last: bool) {
    *partial = *partial * ((i as u64 + 1) % FACTORIAL_MODULUS) % FACTORIAL_MODULUS;
    if last {
        *fact = *partial;
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-N"], "14", "elements = 2^N"),
    common::Flag::new(&["-nrepeat"], "10", "repetitions"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[FLAGS]);
    let n = flags.pow2("-N").expect("-N has a default");
    let nrepeat: usize = flags.value("-nrepeat");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));
    let mut fact = View1::zeros_on(&space, "fact", n)?;

    let mut total = 0;
    let (_, time) = common::timed(&space, || {
        for _ in 0..nrepeat {
            let policy = RangePolicy::new(&space, 0..n);
            total = parallel_scan_with(
                "factorial",
                policy,
                ModularProduct,
                &mut fact,
                factorial_scan(),
            );
        }
    });

    let got = create_mirror_view_and_copy(&fact)?;
    let mut expect = 1u64;
    let mut bad = 0usize;
    for i in 0..n {
        expect = expect * (i as u64 + 1) % FACTORIAL_MODULUS;
        if got[i] != expect {
            if bad < 5 {
                println!("  Error: fact({i}) = {} != {expect}", got[i]);
            }
            bad += 1;
        }
    }
    if total != expect {
        println!("  Error: total {total} != {expect}");
        bad += 1;
    }
    for i in [0, 4, 9, 19].into_iter().filter(|&i| i < n) {
        println!("  ({}! mod p) = {}", i + 1, got[i]);
    }
    common::print_bandwidth("", &format!("N( {n} )"), nrepeat, 8 * n, time);
    if bad > 0 {
        println!("  {bad} wrong element(s)");
        std::process::exit(1);
    }
    Ok(())
}
