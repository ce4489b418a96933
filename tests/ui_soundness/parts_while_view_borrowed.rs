// While parts are alive the View stays uniquely borrowed: it cannot be
// read or written beside them.
use granule::base::write::Writes;
use granule::prelude::*;

fn main() {
    let mut y = View1::<f64>::zeros("y", 4).unwrap();
    let parts = (&mut y).into_parts("alias", 4usize);
    y[0] = 1.0;
    drop(parts);
}
