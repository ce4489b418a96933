fn main() {
    let _ = granule_views::reshape_map!([3] | [2, 2] => layout: [i0, t0, t2]);
    let _ = granule_views::reshape_map!([3] | [2, 2] => layout: [0, -3, 1]);
    let _ = granule_views::reshape_map!([3, 2] | [4] => layout: [i2, i0, t0]);
}
