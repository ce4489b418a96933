use granule::prelude::*;

// A GPU thread has no stack sized for recursion, and the emulator runs one
// on a 64 KiB fiber: a `#[device]` function may not call itself.
#[device]
fn depth(n: u64) -> u64 {
    if n == 0 {
        0
    } else {
        1 + depth(n - 1)
    }
}

#[kernel]
fn levels(i: usize, y: &mut u64) {
    *y = depth(i as u64);
}

fn main() {}
