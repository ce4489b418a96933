use granule::prelude::*;

// The host and device layouts agree only under `repr(C)`.
#[device]
#[repr(packed)]
#[derive(Clone, Copy)]
struct Packed {
    a: u8,
    b: f64,
}

fn main() {}
