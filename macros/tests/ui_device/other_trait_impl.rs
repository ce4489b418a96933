use granule::prelude::*;

#[derive(Clone, Copy)]
struct Thing;

// Only `impl Reducer<T> for R` blocks have a device form.
#[device]
impl Default for Thing {
    fn default() -> Self {
        Thing
    }
}

fn main() {}
