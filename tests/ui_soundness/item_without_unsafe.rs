// Turning parts into a `&mut` is the driver's job: `item` takes `unsafe`.
use granule::base::write::{WriteParts, Writes};
use granule::prelude::*;

fn main() {
    let mut y = View1::<f64>::zeros("y", 4).unwrap();
    let parts = (&mut y).into_parts("item", 4usize);
    let a: &mut f64 = parts.item(0usize);
    *a = 1.0;
}
