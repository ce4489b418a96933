fn main() {
    let _ = granule_views::reshape_map!([3, 4] | [] => layout: [i0, i1]);
}
