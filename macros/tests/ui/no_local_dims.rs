fn main() {
    let _ = granule_views::reshape_map!([] | [4]);
}
