// Write parts are not Copy: the same parts cannot be handed to a dispatch
// twice (two `&mut` to one element in one work item).
use granule::base::write::Writes;
use granule::prelude::*;

fn main() {
    let mut y = View1::<f64>::zeros("y", 4).unwrap();
    let parts = (&mut y).into_parts("twice", 4usize);
    let _both = (parts, parts);
}
