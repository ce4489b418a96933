// The rows borrow the View uniquely: nothing reads it while a holder may
// be writing its row.
use granule::containers::UniqueToken;
use granule::prelude::*;

fn main() {
    let mut token = UniqueToken::with_size_on(&Serial, 1).unwrap();
    let mut v = View2::<u32>::zeros("v", [1, 4]).unwrap();
    let rows = token.rows(&mut v).unwrap();
    let mut g = rows.acquire();
    g.row_mut()[0] = v[[0, 0]];
}
