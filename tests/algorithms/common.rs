//! Helpers shared by every instantiation: sizes, a seeded generator,
//! Views in a space's memory, and reading them back.

use granule::prelude::*;

/// Sizes every test runs: the edges, and 2^k and 2^k - 3 around the
/// block sizes (16 Ki for scans and compaction, 32 Ki for radix passes).
pub fn sizes() -> Vec<usize> {
    let mut v = vec![0, 1, 2, 31, 32, 33];
    for k in [6, 10, 14, 15, 16] {
        v.extend([(1 << k) - 3, 1 << k]);
    }
    v
}

/// [`sizes`] plus 2^k and 2^k - 3 up to k = 20, for the algorithms the
/// issue names (scan, compaction, sort).
pub fn all_sizes() -> Vec<usize> {
    let mut v = sizes();
    for k in [17, 18, 20] {
        v.extend([(1 << k) - 3, 1 << k]);
    }
    v
}

/// The length of a test sized past a host cache or streaming threshold:
/// `n` on every space but the emulator (`cuda` shadows it).
pub fn past_the_caches(n: usize) -> usize {
    n
}

/// A small, seeded xorshift generator: the same values on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// `n` values from `f` of the generator's output.
    pub fn vec<T>(&mut self, n: usize, mut f: impl FnMut(u64) -> T) -> Vec<T> {
        (0..n).map(|_| f(self.next())).collect()
    }
}

/// A rank-1 View in `space`'s memory holding `data`.
pub fn view_in<S: ExecutionSpace, T: Element>(
    space: &S,
    label: &str,
    data: Vec<T>,
) -> View1<T, LayoutRight, S::MemorySpace>
where
    S::MemorySpace: SpaceCopy<HostSpace>,
{
    let n = data.len();
    View1::<T, LayoutRight, _>::from_vec_in(space.memory_space(), label, n, data).unwrap()
}

/// A View's elements, read through a mirror.
pub fn read<T: Element, L: Layout, M: MemorySpace>(v: &View1<T, L, M>) -> Vec<T>
where
    HostSpace: SpaceCopy<M>,
{
    create_mirror_view_and_copy(v).unwrap().to_vec()
}

pub use granule::views::SpaceCopy;

/// The Rayon space of `threads` threads, one per process.
#[cfg(feature = "rayon")]
pub fn rayon_space(threads: usize) -> granule::Rayon {
    use std::sync::OnceLock;
    static SPACES: [OnceLock<granule::Rayon>; 4] = [const { OnceLock::new() }; 4];
    SPACES[threads]
        .get_or_init(|| granule::Rayon::new(threads).expect("a rayon pool"))
        .clone()
}

/// The Cuda space of the suite, one per process: the emulator unless
/// `GRANULE_CUDA` names a GPU.
#[cfg(feature = "cuda")]
pub fn cuda_space() -> granule::Cuda {
    use std::sync::OnceLock;
    static SPACE: OnceLock<granule::Cuda> = OnceLock::new();
    SPACE
        .get_or_init(|| {
            granule::Cuda::from_env_or(granule::CudaSelection::Emulator).expect("a Cuda space")
        })
        .clone()
}

/// Sequential inclusive (or exclusive) scan reference.
pub fn seq_scan<T: Copy, R: Reducer<T>>(
    x: &[T],
    op: &R,
    init: Option<T>,
    inclusive: bool,
) -> (Vec<T>, T) {
    let mut acc = init.unwrap_or_else(|| op.init());
    let mut out = Vec::with_capacity(x.len());
    for v in x {
        if inclusive {
            op.join(&mut acc, v);
            out.push(acc);
        } else {
            out.push(acc);
            op.join(&mut acc, v);
        }
    }
    (out, acc)
}
