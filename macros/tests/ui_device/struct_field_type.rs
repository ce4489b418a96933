use granule::prelude::*;

// A `#[device] struct` holds scalars only: the device has no heap.
#[device]
#[derive(Clone, Copy)]
struct Sample {
    value: f64,
    label: &'static str,
}

fn main() {}
