use granule_views::chunk::{Chain, GridToBlock, ScopedIds, WarpToThread};

fn main() {
    // A Grid->Block scope cannot be followed by a Warp->Thread scope.
    let _named: Option<Chain<GridToBlock, WarpToThread>> = None;
    let block = ScopedIds::<GridToBlock>::linear(2, 0).unwrap();
    let lane = ScopedIds::<WarpToThread>::linear(32, 0).unwrap();
    let _ = block.then(lane);
}
