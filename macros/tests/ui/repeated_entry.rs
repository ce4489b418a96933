fn main() {
    let _ = granule_views::reshape_map!([3] | [2, 2] => layout: [i0, t1, -t1]);
    let _ = granule_views::reshape_map!([3] | [2, 2] => layout: [t0, i0, 0]);
}
