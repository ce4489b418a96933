// A subview borrows its parent: it cannot outlive it.
use granule_views::{View2, ALL};

fn main() {
    let row = {
        let a = View2::<i32>::zeros("a", [2, 2]).unwrap();
        a.subview((0, ALL)).unwrap()
    };
    let _ = row[0];
}
