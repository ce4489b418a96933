use granule_views::chunk::{GridToBlock, MapContinuousLinear, ScopedIds};

fn main() {
    let mut y = granule_views::View1::<f64>::zeros("y", 8).unwrap();
    let ids = ScopedIds::<GridToBlock>::linear(2, 0).unwrap();
    let block = y.chunk_mut(MapContinuousLinear::new(4), ids).unwrap();
    // A block's part is shared by its threads: it must be divided first.
    block[0] = 1.0;
}
