use granule_views::chunk::{GridToThread, MapLinear};

fn main() {
    let mut y = granule_views::View1::<f64>::zeros("y", 8).unwrap();
    let share = y.chunked(MapLinear::new(1)).share::<GridToThread>([4, 1, 1]).unwrap();
    // Two parts of one id would alias: asking for a part is unsafe.
    let mut a = share.part(0);
    a[0] = 1.0;
}
