//! scratch
use granule::algorithms::*;
use granule::prelude::*;
use granule::Cuda;
use std::sync::Arc;

#[kernel]
fn nonzero(x: i32) -> bool {
    x != 0
}

fn main() {
    let emu = Arc::new(granule_cuda::emu::EmuDevice::new().unwrap());
    let s = Cuda::with_device(emu.clone());
    let n = 1usize << 20;
    let data: Vec<i32> = (0..n as i32).map(|i| (i.wrapping_mul(7919)) % 3).collect();
    let x =
        View1::<i32, LayoutRight, _>::from_vec_in(s.memory_space(), "x", n, data.clone()).unwrap();
    let mut y = View1::<i32, LayoutRight, _>::zeros_in(s.memory_space(), "y", n).unwrap();
    emu.take_stats();
    let t0 = std::time::Instant::now();
    inclusive_scan(&s, &x, &mut y, Sum, None).unwrap();
    let st = emu.take_stats();
    println!(
        "scan: {} launches {:.3} words {:?}",
        st.launches,
        st.words_per_element(4, n as u64),
        t0.elapsed()
    );
    let t0 = std::time::Instant::now();
    let k = copy_if(&s, &x, &mut y, nonzero()).unwrap();
    let st = emu.take_stats();
    println!(
        "copy_if: kept {} {} launches {:.3} words {:?}",
        k as f64 / n as f64,
        st.launches,
        st.words_per_element(4, n as u64),
        t0.elapsed()
    );
    let keys: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761).rotate_left(7))
        .collect();
    let mut kv =
        View1::<u32, LayoutRight, _>::from_vec_in(s.memory_space(), "k", n, keys.clone()).unwrap();
    emu.take_stats();
    let t0 = std::time::Instant::now();
    sort(&s, &mut kv).unwrap();
    let st = emu.take_stats();
    println!(
        "sort: {} launches {:.3} words {:?}",
        st.launches,
        st.words_per_element(4, n as u64),
        t0.elapsed()
    );
    let mut e = keys.clone();
    e.sort();
    assert_eq!(create_mirror_view_and_copy(&kv).unwrap().to_vec(), e);
    let mut kv =
        View1::<u32, LayoutRight, _>::from_vec_in(s.memory_space(), "k", n, keys.clone()).unwrap();
    let mut vv = View1::<u32, LayoutRight, _>::from_vec_in(
        s.memory_space(),
        "v",
        n,
        (0..n as u32).collect(),
    )
    .unwrap();
    emu.take_stats();
    let t0 = std::time::Instant::now();
    sort_by_key(&s, &mut kv, &mut vv).unwrap();
    let st = emu.take_stats();
    println!(
        "sort_by_key: {} launches {:.3} words {:?}",
        st.launches,
        st.words_per_element(4, n as u64),
        t0.elapsed()
    );
}
