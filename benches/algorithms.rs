//! granule-algorithms and the `parallel_scan` pattern on the Rayon space
//! (2 threads) against baselines measured in the same run: a sequential
//! loop, a 1-thread and a 2-thread copy of the same bytes (the 2-thread
//! one bounds an algorithm whose bytes fit in cache), and the bound of
//! every streaming algorithm beyond the cache, a 2-thread copy of the same
//! bytes with non-temporal (streaming) stores. The i64 scan also runs the
//! sequential loop on two independent halves in two threads: not a scan of
//! the whole, the ceiling of a 2-thread one; and the floor of the
//! `parallel_scan` pattern beyond the cache, a 2-thread in-place add of
//! the input to the output (the pattern hands its functor each output as
//! a `&mut`, so every output line is read before it is written, 24 bytes
//! per element against the streaming copy's 16). Sorts run beside the standard
//! library's `sort_unstable` and the multithreaded `voracious_radix_sort`
//! and `rdst` in a 2-thread pool. Throughput is in bytes, so criterion
//! prints GB/s. The streaming baselines work in host-space memory, as the
//! algorithms' Views do (on huge pages when large, see
//! `granule_views::space::HUGE_PAGE_THRESHOLD`), so that a bound moves its
//! bytes on the same pages as what it bounds; the sorts all work in
//! `Vec`s.
//!
//! `cargo bench -p granule-bench --bench algorithms` measures 2^20 and
//! 2^27 (sorts at 2^24); `GRANULE_BENCH_SWEEP=1` sweeps 2^10..2^27 and
//! 2^k - 3.

// criterion_group! generates undocumented items.
#![allow(missing_docs)]

use criterion::{
    black_box, criterion_group, criterion_main, BatchSize, BenchmarkGroup, Criterion, Throughput,
};
use granule::algorithms::{copy_if, exclusive_scan, sort, sort_by_key};
use granule::prelude::*;
use rayon::prelude::*;
use std::time::Duration;

const THREADS: usize = 2;

/// The sizes to measure: `default`, or the full sweep.
fn sizes(default: &[usize]) -> Vec<usize> {
    if std::env::var_os("GRANULE_BENCH_SWEEP").is_some() {
        (10..=27)
            .flat_map(|k| [(1usize << k) - 3, 1 << k])
            .collect()
    } else {
        default.to_vec()
    }
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .expect("pool")
}

fn name(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        format!(
            "2^{}-{}",
            n.next_power_of_two().trailing_zeros(),
            n.next_power_of_two() - n
        )
    }
}

/// A group's name: `family`, the element type and the size.
fn typed_group<T>(family: &str, n: usize) -> String {
    format!("{family}_{}_{}", std::any::type_name::<T>(), name(n))
}

fn configure(g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, bytes: usize) {
    g.throughput(Throughput::Bytes(bytes as u64));
    if bytes > 64 << 20 {
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(4));
    } else {
        g.warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
    }
}

/// Copies `src` to `dst` with non-temporal stores (16-byte aligned part).
fn copy_streaming(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len());
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        let n = dst.len();
        let head = dst.as_ptr().align_offset(16).min(n);
        dst[..head].copy_from_slice(&src[..head]);
        let mut k = head;
        while k + 64 <= n {
            // SAFETY: k + 64 <= n for both slices; dst + k is 16-byte
            // aligned (head made it so and k grows by 64); loads may be
            // unaligned. SSE2 is in the x86-64 baseline.
            unsafe {
                let (d, s) = (
                    dst.as_mut_ptr().add(k).cast::<__m128i>(),
                    src.as_ptr().add(k).cast::<__m128i>(),
                );
                _mm_stream_si128(d, _mm_loadu_si128(s));
                _mm_stream_si128(d.add(1), _mm_loadu_si128(s.add(1)));
                _mm_stream_si128(d.add(2), _mm_loadu_si128(s.add(2)));
                _mm_stream_si128(d.add(3), _mm_loadu_si128(s.add(3)));
            }
            k += 64;
        }
        dst[k..].copy_from_slice(&src[k..]);
        // SAFETY: a fence has no preconditions; it orders the streaming stores.
        unsafe { _mm_sfence() };
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
}

/// The baselines of a streaming algorithm moving `bytes` (read + write):
/// a 1-thread memcpy, a 2-thread memcpy (the bound while the bytes fit in
/// cache, where streaming stores would send them to memory) and the bound
/// beyond the cache, a 2-thread streaming copy, each of `bytes / 2` bytes.
fn copy_baselines(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    pool: &rayon::ThreadPool,
    bytes: usize,
) {
    let half = bytes / 2;
    let src = View1::<u8>::full("src", half, 1).expect("src");
    let mut dst = View1::<u8>::full("dst", half, 0).expect("dst");
    let (src, dst) = (
        src.as_slice().expect("src"),
        dst.as_mut_slice().expect("dst"),
    );
    g.bench_function("copy_1_thread", |b| {
        b.iter(|| dst.copy_from_slice(black_box(src)))
    });
    g.bench_function("copy_2_threads", |b| {
        b.iter(|| per_thread(pool, dst, black_box(src), |d, s| d.copy_from_slice(s)))
    });
    g.bench_function("bound_streaming_copy_2_threads", |b| {
        b.iter(|| per_thread(pool, dst, black_box(src), copy_streaming))
    });
}

/// `f` on each of [`THREADS`] equal parts of `dst` and `src`, one part
/// per thread of `pool`; returns what it returns, part by part.
fn per_thread<T: Send + Sync, R: Send>(
    pool: &rayon::ThreadPool,
    dst: &mut [T],
    src: &[T],
    f: impl Fn(&mut [T], &[T]) -> R + Sync,
) -> Vec<R> {
    let part = dst.len().div_ceil(THREADS).max(1);
    pool.install(|| {
        dst.par_chunks_mut(part)
            .zip(src.par_chunks(part))
            .map(|(d, s)| f(d, s))
            .collect()
    })
}

fn seq_exclusive<T: Copy + std::ops::AddAssign + Default>(src: &[T], dst: &mut [T]) -> T {
    let mut acc = T::default();
    for (o, &v) in dst.iter_mut().zip(src) {
        *o = acc;
        acc += v;
    }
    acc
}

fn scans(c: &mut Criterion) {
    let space = Rayon::new(THREADS).expect("space");
    let pool = pool();
    for n in sizes(&[1 << 20, 1 << 27]) {
        let a = View1::<i64>::from_fn("a", n, |i| (i % 7) as i64).expect("a");
        let mut out = View1::<i64>::zeros("out", n).expect("out");
        let mut g = c.benchmark_group(format!("scan_exclusive_i64_{}", name(n)));
        configure(&mut g, n * 16);
        g.bench_function("granule_exclusive_scan", |b| {
            b.iter(|| exclusive_scan(&space, &a, &mut out, Sum, None).expect("scan"))
        });
        g.bench_function("granule_parallel_scan_pattern", |b| {
            b.iter(|| -> i64 {
                parallel_scan(
                    "scan",
                    RangePolicy::new(&space, 0..n),
                    &mut out,
                    |i, o: &mut i64, p: &mut i64, last: bool| {
                        let v = a[i];
                        if last {
                            *o = *p;
                        }
                        *p += v;
                    },
                )
            })
        });
        let mut d = View1::<i64>::full("d", n, 0).expect("d");
        let (src, dst) = (a.as_slice().expect("a"), d.as_mut_slice().expect("d"));
        g.bench_function("sequential_loop", |b| {
            b.iter(|| seq_exclusive(black_box(src), dst))
        });
        // Not a scan of the whole (the second half misses the first's
        // total): the ceiling of any 2-thread scan, two independent halves.
        g.bench_function("sequential_loop_on_halves_2_threads", |b| {
            b.iter(|| per_thread(&pool, dst, black_box(src), |d, s| seq_exclusive(s, d)))
        });
        // The floor of the pattern beyond the cache: its functor gets each
        // output as a `&mut i64`, which may be read, so every output line is
        // read before it is written (the streaming copy's bound assumes it
        // is not). Two threads add the input to the output in place.
        g.bench_function("floor_read_modify_write_2_threads", |b| {
            b.iter(|| {
                per_thread(&pool, dst, black_box(src), |d, s| {
                    for (o, &v) in d.iter_mut().zip(s) {
                        *o = o.wrapping_add(v);
                    }
                })
            })
        });
        copy_baselines(&mut g, &pool, n * 16);
        g.finish();

        float_scan(c, &space, &pool, n, |i| (i % 1000) as f64 * 0.5);
        float_scan(c, &space, &pool, n, |i| (i % 1000) as f32 * 0.5);
    }
}

/// `exclusive_scan` of a float type beside its sequential loop and the
/// copies of the same bytes.
fn float_scan<T>(
    c: &mut Criterion,
    space: &Rayon,
    pool: &rayon::ThreadPool,
    n: usize,
    at: fn(usize) -> T,
) where
    T: Element + Default + std::ops::AddAssign + granule::reducer::ReductionIdentity,
{
    let x = View1::<T>::from_fn("x", n, at).expect("x");
    let mut y = View1::<T>::zeros("y", n).expect("y");
    let bytes = n * 2 * std::mem::size_of::<T>();
    let mut g = c.benchmark_group(typed_group::<T>("scan_exclusive", n));
    configure(&mut g, bytes);
    g.bench_function("granule_exclusive_scan", |b| {
        b.iter(|| exclusive_scan(space, &x, &mut y, Sum, None).expect("scan"))
    });
    let mut d = View1::<T>::full("d", n, T::default()).expect("d");
    let (src, dst) = (x.as_slice().expect("x"), d.as_mut_slice().expect("d"));
    g.bench_function("sequential_loop", |b| {
        b.iter(|| seq_exclusive(black_box(src), dst))
    });
    copy_baselines(&mut g, pool, bytes);
    g.finish();
}

fn compaction(c: &mut Criterion) {
    let space = Rayon::new(THREADS).expect("space");
    let pool = pool();
    for n in sizes(&[1 << 20, 1 << 27]) {
        // values in 0..3, keep the nonzero ones (the course project's test)
        compact(c, &space, &pool, n, |i| zero_one_two(i) as i64);
        compact(c, &space, &pool, n, |i| zero_one_two(i) as i32);
    }
}

/// Element `i` of a compaction's input: 0, 1 or 2, scattered.
fn zero_one_two(i: usize) -> usize {
    (i.wrapping_mul(2654435761) >> 7) % 3
}

/// `copy_if` of the nonzero elements of a View of `T` beside its
/// sequential loop, a read of the input and the copies of the same bytes.
fn compact<T>(
    c: &mut Criterion,
    space: &Rayon,
    pool: &rayon::ThreadPool,
    n: usize,
    at: fn(usize) -> T,
) where
    T: Element + Default + PartialEq + std::ops::BitXor<Output = T>,
{
    let x = View1::<T>::from_fn("x", n, at).expect("x");
    let mut y = View1::<T>::zeros("y", n).expect("y");
    let src = x.as_slice().expect("x");
    let zero = T::default();
    let kept = src.iter().filter(|&&v| v != zero).count();
    let bytes = (n + kept) * std::mem::size_of::<T>();
    let mut g = c.benchmark_group(typed_group::<T>("copy_if", n));
    configure(&mut g, bytes);
    g.bench_function("granule_copy_if", |b| {
        b.iter(|| copy_if(space, &x, &mut y, move |v: T| v != zero).expect("copy_if"))
    });
    let mut d = View1::<T>::full("d", n, zero).expect("d");
    let dst = d.as_mut_slice().expect("d");
    g.bench_function("sequential_loop", |b| {
        b.iter(|| {
            let mut k = 0;
            for &v in black_box(src) {
                dst[k] = v;
                k += usize::from(v != zero);
            }
            k
        })
    });
    // The input read once by two threads (folded, nothing written): no
    // compaction of it can take less.
    let part = n.div_ceil(THREADS);
    g.bench_function("read_input_2_threads", |b| {
        b.iter(|| {
            pool.install(|| {
                black_box(src)
                    .par_chunks(part)
                    .map(|c| c.iter().fold(zero, |a, &v| a ^ v))
                    .reduce(|| zero, |a, b| a ^ b)
            })
        })
    });
    copy_baselines(&mut g, pool, bytes);
    g.finish();
}

/// granule's sort of `keys` and the two radix peers' 2-thread sorts, in
/// group `g` (whose throughput is the keys' bytes).
fn radix_sorts<K>(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    space: &Rayon,
    pool: &rayon::ThreadPool,
    keys: &[K],
) where
    K: granule::algorithms::RadixKey + rdst::RadixKey,
    K: voracious_radix_sort::Radixable<K> + voracious_radix_sort::RadixKey,
    Rayon: granule::algorithms::sort::SortImpl<K, K>,
{
    use rdst::RadixSort as _;
    use voracious_radix_sort::RadixSort as _;
    let n = keys.len();
    configure(g, std::mem::size_of_val(keys));
    let batch = BatchSize::LargeInput;
    g.bench_function("granule_sort", |b| {
        b.iter_batched_ref(
            || keys.to_vec(),
            |k| {
                sort(
                    space,
                    &mut ViewMut::<K, 1>::from_slice_mut("k", k, n).expect("view"),
                )
                .expect("sort")
            },
            batch,
        )
    });
    g.bench_function("voracious_mt_sort_2_threads", |b| {
        b.iter_batched_ref(
            || keys.to_vec(),
            |k| pool.install(|| k.voracious_mt_sort(THREADS)),
            batch,
        )
    });
    g.bench_function("rdst_2_threads", |b| {
        b.iter_batched_ref(
            || keys.to_vec(),
            |k| pool.install(|| k.radix_sort_unstable()),
            batch,
        )
    });
}

/// Group `group`: granule's sort of float `keys`, its radix peers and
/// `sort_unstable_by(total_cmp)`.
fn float_sorts(
    c: &mut Criterion,
    (space, pool): (&Rayon, &rayon::ThreadPool),
    group: &str,
    keys: &[f32],
) {
    let mut g = c.benchmark_group(group);
    radix_sorts(&mut g, space, pool, keys);
    g.bench_function("slice_sort_unstable_by_total_cmp", |b| {
        b.iter_batched_ref(
            || keys.to_vec(),
            |k| k.sort_unstable_by(f32::total_cmp),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn sorts(c: &mut Criterion) {
    let space = Rayon::new(THREADS).expect("space");
    let pool = pool();
    let batch = BatchSize::LargeInput;
    for n in sizes(&[1 << 24]) {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let keys: Vec<u32> = (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u32
            })
            .collect();
        let mut g = c.benchmark_group(format!("sort_u32_{}", name(n)));
        radix_sorts(&mut g, &space, &pool, &keys);
        g.bench_function("slice_sort_unstable", |b| {
            b.iter_batched_ref(|| keys.clone(), |k| k.sort_unstable(), batch)
        });
        g.finish();

        // Floats in 0..1: half of them share one exponent, which the top
        // 8 varying bits cut in two to eight; the sort plans its buckets
        // by 12 bits instead.
        let unit: Vec<f32> = keys
            .iter()
            .map(|&k| (k >> 8) as f32 / (1 << 24) as f32)
            .collect();
        float_sorts(
            c,
            (&space, &pool),
            &format!("sort_f32_unit_{}", name(n)),
            &unit,
        );

        // Normal floats (Box-Muller on pairs of the keys): both signs, a
        // few exponents crowding the top byte's buckets.
        let uniform = |k: u32| ((k >> 8) as f32 + 0.5) / (1 << 24) as f32;
        let normal: Vec<f32> = (keys.chunks_exact(2))
            .flat_map(|p| {
                let (u, v) = (uniform(p[0]), uniform(p[1]));
                let r = (-2.0 * u.ln()).sqrt();
                let t = std::f32::consts::TAU * v;
                [r * t.cos(), r * t.sin()]
            })
            .collect();
        float_sorts(
            c,
            (&space, &pool),
            &format!("sort_f32_normal_{}", name(n)),
            &normal,
        );

        let values: Vec<u32> = (0..n as u32).collect();
        let mut g = c.benchmark_group(format!("sort_by_key_u32_u32_{}", name(n)));
        configure(&mut g, n * 8);
        g.bench_function("granule_sort_by_key", |b| {
            b.iter_batched_ref(
                || (keys.clone(), values.clone()),
                |(k, v)| {
                    let mut kv = ViewMut::<u32, 1>::from_slice_mut("k", k, n).expect("keys");
                    let mut vv = ViewMut::<u32, 1>::from_slice_mut("v", v, n).expect("values");
                    sort_by_key(&space, &mut kv, &mut vv).expect("sort")
                },
                batch,
            )
        });
        let pairs: Vec<(u32, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
        g.bench_function("slice_sort_unstable_by_key_pairs", |b| {
            b.iter_batched_ref(
                || pairs.clone(),
                |p| p.sort_unstable_by_key(|kv| kv.0),
                batch,
            )
        });
        g.finish();
    }
}

criterion_group!(benches, scans, compaction, sorts);
criterion_main!(benches);
