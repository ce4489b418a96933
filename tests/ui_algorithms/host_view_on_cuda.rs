// An algorithm on Cuda takes Views of the device's memory: a host View
// does not compile.
use granule::prelude::*;
use granule::algorithms::reduce;

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let x = View1::<f64>::zeros("x", 8).unwrap();
    let _ = reduce(&cuda, &x, Sum, None);
}
