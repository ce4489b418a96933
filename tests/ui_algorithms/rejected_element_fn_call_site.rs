// An element function whose body the translator rejects: the call below,
// which matches its signature, reports nothing more than that rejection.
use granule::prelude::*;

#[kernel]
fn long_decimal(v: i64) -> bool {
    v.to_string().len() > 3
}

fn main() {
    let x = View1::<i64>::zeros("x", 8).unwrap();
    let _ = count_if(&Serial, &x, long_decimal());
}
