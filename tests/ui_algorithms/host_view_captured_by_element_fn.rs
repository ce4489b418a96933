// An element function's captured View must live where the algorithm
// runs: a host View captured by a predicate given to Cuda does not
// compile, and the message names both memory spaces.
use granule::prelude::*;
use granule::algorithms::count_if;

#[kernel]
fn listed(i: u32, table: &View1<bool>) -> bool {
    table[i as usize]
}

fn main() {
    let cuda = Cuda::emulated().unwrap();
    let table = View1::<bool>::zeros("table", 8).unwrap();
    let x = View1::<u32, LayoutRight, CudaSpace>::zeros_in(cuda.memory_space(), "x", 8).unwrap();
    let _ = count_if(&cuda, &x, listed(&table));
}
