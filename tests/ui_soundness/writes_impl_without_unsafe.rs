// Adding a kind of written object is a promise about borrows: implementing
// `Writes` takes `unsafe impl`.
use granule::base::write::{ViewParts, Writes};

struct Fake;

impl Writes<usize> for Fake {
    type Parts = ViewParts<'static, f64, 1>;
    fn into_parts(self, _label: &str, _bound: usize) -> Self::Parts {
        panic!("never built")
    }
}

fn main() {}
