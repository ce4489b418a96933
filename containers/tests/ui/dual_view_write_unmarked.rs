// The sides of a DualView are written only through view_host_mut /
// view_device_mut, which mark them modified: the read accessors give
// shared borrows.
use granule_containers::DualView;
use granule_views::HostSpace;

fn main() {
    let dv = DualView::<f64, 1>::zeros_in(HostSpace, "dv", 4).unwrap();
    dv.view_host().fill(1.0);
    dv.view_device().fill(2.0);
}
