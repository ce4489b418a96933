use granule_views::chunk::{BlockToThread, GridToBlock, MapLinear, ScopedIds};

fn main() {
    let mut y = granule_views::View1::<f64>::zeros("y", 8).unwrap();
    let ids = ScopedIds::<BlockToThread>::linear(2, 0).unwrap();
    let mut part = y.chunk_mut(MapLinear::new(1), ids).unwrap();
    // A thread's part cannot be divided among the blocks of a grid.
    let grid = ScopedIds::<GridToBlock>::linear(2, 0).unwrap();
    let _ = part.chunk_mut(MapLinear::new(1), grid);
}
