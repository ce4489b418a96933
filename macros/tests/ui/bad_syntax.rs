fn main() {
    let _ = granule_views::reshape_map!([3] | [2] => layout: [i0, x0]);
    let _ = granule_views::reshape_map!([(3, 4, 5)] | [2]);
    let _ = granule_views::reshape_map!([3] | [2] => offset: 1, offset: 2);
}
