//! kokkos-tutorials `unordered_map`: a mesh partition knows its entities
//! by global ids, scattered over a large range, and numbers them locally
//! 0..n. An UnorderedMap from global to local ids, filled by a kernel
//! from every work item at once, answers the lookups of the other kernels.
//! The global id of local entity `i` is `i`'s 32 bits with their bytes
//! reversed, so consecutive entities land far apart.
//!
//! Flags: `-n` entities (default 20000), `-load` the map's capacity per
//! entity (default 2).
//!
//! It checks that every insert succeeded, that every global id maps back
//! to its local id, and that ids of other entities are absent; it exits
//! non-zero on a mismatch.

#[allow(dead_code)]
#[path = "tutorial/common.rs"]
mod common;

use granule::containers::{MapInserter, UnorderedMap};
use granule::prelude::*;

/// `x` with its four bytes in reverse order.
#[device]
fn byte_reverse(x: u32) -> u32 {
    (x & 0xff) << 24 | ((x >> 8) & 0xff) << 16 | ((x >> 16) & 0xff) << 8 | x >> 24
}

/// The global id of local entity `i`.
#[kernel]
pub fn global_id(i: usize, g: &mut u64) {
    *g = byte_reverse(i as u32) as u64;
}

/// Maps entity `i`'s global id to `i`; writes 1 if the map was full.
#[kernel]
pub fn insert_global(i: usize, failed: &mut u32, ids: &MapInserter<'_, u64, u32>, g: &View1<u64>) {
    let r = ids.insert(g[i], i as u32);
    *failed = if r.failed() { 1 } else { 0 };
}

/// The local id of entity `i`, found by its global id.
#[kernel]
pub fn to_local(i: usize, local: &mut u32, ids: &UnorderedMap<u64, u32>, g: &View1<u64>) {
    *local = ids.value_at(ids.find(g[i]));
}

/// Counts the global ids of entities `n..2n`, which the map must not hold.
#[kernel(reduce)]
pub fn count_foreign(i: usize, ids: &UnorderedMap<u64, u32>, n: usize, acc: &mut u64) {
    if !ids.exists(byte_reverse((i + n) as u32) as u64) {
        *acc += 1;
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The example's flags (`--help` lists them).
const FLAGS: &[common::Flag] = &[
    common::Flag::new(&["-n"], "20000", "keys"),
    common::Flag::new(&["-load"], "2", "capacity per key"),
];

fn main() -> Result<()> {
    let flags = common::Flags::parse(&[FLAGS]);
    let n: usize = flags.value("-n");
    let load: usize = flags.value("-load");
    assert!(n > 0 && n <= 1 << 31, "-n must be in 1..=2^31");
    let space = DefaultExecutionSpace::default();
    println!("  on {}", common::describe(&space));
    let range = || RangePolicy::new(&space, 0..n);

    let mut g = View1::zeros_on(&space, "global_ids", n)?;
    parallel_for("global_ids", range(), &mut g, global_id());

    let mut ids = UnorderedMap::<u64, u32, _>::new_on(&space, "global_to_local", load * n)?;
    let mut failed = View1::zeros_on(&space, "failed", n)?;
    let (_, t_insert) = common::timed(&space, || {
        parallel_for(
            "insert",
            range(),
            &mut failed,
            insert_global(&ids.inserter(), &g),
        );
    });
    let mut local = View1::zeros_on(&space, "local_ids", n)?;
    let (_, t_find) = common::timed(&space, || {
        parallel_for("to_local", range(), &mut local, to_local(&ids, &g));
    });
    let foreign: u64 = parallel_reduce("foreign", range(), Sum, count_foreign(&ids, n));

    let mut errors = 0;
    let full = create_mirror_view_and_copy(&failed)?
        .to_vec()
        .iter()
        .filter(|&&f| f != 0)
        .count();
    let host = ids.host_mirror()?;
    println!(
        "map: {} entries in {} slots, insert {} s, lookup {} s",
        host.size(),
        host.capacity(),
        common::g(t_insert),
        common::g(t_find)
    );
    if full != 0 || host.failed_insert() || host.size() != n {
        println!(
            "  Error: {full} inserts failed; the map holds {} of {n} ids",
            host.size()
        );
        errors += 1;
    }
    let local = create_mirror_view_and_copy(&local)?.to_vec();
    let wrong = local
        .iter()
        .enumerate()
        .filter(|&(i, &l)| l as usize != i)
        .count();
    if wrong != 0 {
        println!("  Error: {wrong} global ids map to the wrong local id");
        errors += 1;
    }
    if foreign != n as u64 {
        println!(
            "  Error: {} ids of other entities were found in the map",
            n as u64 - foreign
        );
        errors += 1;
    }
    let sample = [0usize, 1, n / 2, n - 1].map(|i| (i, (i as u32).swap_bytes()));
    for (i, gid) in sample {
        println!("  local {i:>8} <-> global {gid:>10}");
        if host.get(u64::from(gid)) != Some(i as u32) {
            println!("  Error: global id {gid} does not map to {i} on the host");
            errors += 1;
        }
    }
    if errors > 0 {
        std::process::exit(1);
    }
    println!("All ids checked and verified.");
    Ok(())
}
