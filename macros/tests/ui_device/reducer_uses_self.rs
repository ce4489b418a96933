use granule::prelude::*;

#[derive(Clone, Copy)]
struct Scaled {
    factor: f64,
}

// A device reducer is stateless: its value cannot come from `self`.
#[device]
impl Reducer<f64> for Scaled {
    fn init(&self) -> f64 {
        self.factor
    }
    fn join(&self, dst: &mut f64, src: &f64) {
        *dst += *src;
    }
}

fn main() {}
