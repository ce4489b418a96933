// Hole 2, for `#[device] struct` fields and reducer values: the C++
// struct was made from the spelling, the host layout from the type.
#![allow(non_camel_case_types)]
use granule_core::kernel::device;

type f64 = f32;

#[device(crate = granule_core)]
#[derive(Clone, Copy)]
pub struct Moments {
    pub sum: f64,
    pub count: u32,
}

fn main() {}
