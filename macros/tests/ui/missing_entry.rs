fn main() {
    let _ = granule_views::reshape_map!([3] | [2, 2] => layout: [i0, t1]);
}
