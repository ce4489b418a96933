// The type checks cover element functions: with `type i64 = u8;` in
// scope the host function would compare bytes while the device compares
// 64-bit integers, so the glue's assertion that each spelling is the
// type the C++ names fails to compile (for the elements, the captures
// and the result alike).
#![allow(non_camel_case_types)]
use granule_core::kernel::kernel;

type i64 = u8;

#[kernel(crate = granule_core)]
fn above(x: i64, threshold: i64) -> bool {
    x > threshold
}

mod result {
    #![allow(non_camel_case_types)]
    use granule_core::kernel::kernel;

    type f32 = f64;

    #[kernel(crate = granule_core)]
    pub fn half(x: u32) -> f32 {
        x as f32 * 0.5
    }
}

fn main() {}
