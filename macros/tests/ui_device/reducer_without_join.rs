use granule::prelude::*;

#[derive(Clone, Copy)]
struct Count;

// `join` has no default on the device (nor on the host).
#[device]
impl Reducer<u64> for Count {
    fn init(&self) -> u64 {
        0
    }
}

fn main() {}
