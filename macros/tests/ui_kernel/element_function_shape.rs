// Element functions take their elements by value, capture scalars and
// read Views, write nothing, and return their value.
use granule::prelude::*;

#[kernel]
fn writes(x: i64, out: &mut i64) -> bool {
    *out = x;
    true
}

#[kernel(binary)]
fn one_element(x: i64) -> bool {
    x > 0
}

#[kernel(unary)]
fn returns_nothing(x: i64) {
    let _ = x;
}

#[kernel(reduce)]
fn reduction_that_returns(i: usize, acc: &mut f64) -> f64 {
    *acc += i as f64;
    *acc
}

fn main() {}
