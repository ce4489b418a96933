// Hole 2: the translator read types by their spelling. With
// `type u64 = u8;` in scope the host used u8 and the device u64, writing 8
// bytes per element of a u8 View; with `type u8 = bool;`, `!x` became
// `~x` and the host read back bools holding 255. The glue now asserts that
// every spelling the translator read is the type the C++ names.
#![allow(non_camel_case_types)]
use granule_core::kernel::kernel;

type u64 = u8;

#[kernel(crate = granule_core)]
fn widen(i: usize, y: &mut u64) {
    *y = i as u64;
}

mod flags {
    use granule_core::kernel::kernel;
    use granule_core::prelude::*;

    type u8 = bool;

    #[kernel(crate = granule_core)]
    pub fn flip(i: usize, y: &mut u8, x: &View1<u8>) {
        *y = !x[i];
    }
}

fn main() {}
