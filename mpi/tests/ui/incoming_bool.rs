// The buffer an `Incoming` hands to rsmpi's receives takes another
// process's bytes too, so it is refused for `bool` as `receive_into` is.
use granule_core::Serial;
use granule_mpi::Incoming;
use granule_views::View1;

fn main() {
    let mut flags = View1::<bool>::zeros("flags", 4).unwrap();
    let mut landing = Incoming::into(&Serial, &mut flags).unwrap();
    let _bytes = landing.as_mut_slice();
}
