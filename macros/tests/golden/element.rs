// Element functions: per-element user code an algorithm calls. The
// leading parameters are the elements (`Element`), the rest captures.
#[kernel]
fn above(x: i64, threshold: i64) -> bool {
    x > threshold
}

#[kernel(binary)]
fn by_low_byte(a: u32, b: u32) -> bool {
    (a & 0xff) < (b & 0xff)
}

#[kernel]
fn lookup(i: u32, table: &View1<f64>, scale: f64) -> f64 {
    assert!(i < 1000, "index {} out of the table", i);
    table[i as usize] * scale
}

#[kernel(binary)]
fn less_than<T: PartialOrd>(a: T, b: T) -> bool {
    a < b
}
