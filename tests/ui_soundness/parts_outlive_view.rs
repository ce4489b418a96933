// Write parts borrow their View: keeping them after the View is dropped
// (and writing through them) must not compile.
use granule::base::write::Writes;
use granule::prelude::*;

fn main() {
    let parts = {
        let mut y = View1::<f64>::zeros("y", 4).unwrap();
        (&mut y).into_parts("outlive", 4usize)
    };
    drop(parts);
}
