//! The pools and their generators.

use super::bits::{
    mix64, state_word, unit_f32, unit_f64, xorshift64_next, XORSHIFT1024_STAR, XORSHIFT64_STAR,
};
use super::range::{check_float, check_int};
use super::RandomError;
use std::fmt::Debug;
use std::ops::{Add, Mul, Sub};
use std::sync::Arc;

/// What pools have in common: a label, a number of states, the key the
/// states derive from, and how to take and give back a state.
///
/// A state is not taken from a shared store as in Kokkos: state `i` is
/// computed from (seed, `i`) each time it is asked for, so two work items
/// never share a mutable state and the numbers of work item `i` do not
/// depend on the space, the thread count or the schedule.
pub trait RandomPool: Clone + Send + Sync {
    /// The generator `get_state` hands out.
    type Generator<'p>: RandomGenerator
    where
        Self: 'p;
    /// The pool's label, named by its errors and panics.
    fn label(&self) -> &str;
    /// How many states the pool has (`get_state` takes `0..num_states()`).
    fn num_states(&self) -> usize;
    /// The key that the states derive from (a mix of the seed).
    fn key(&self) -> u64;
    /// The generator of state `index`, or an error naming the pool if
    /// `index >= num_states()`.
    fn try_get_state(&self, index: usize) -> Result<Self::Generator<'_>, RandomError>;
    /// The generator of state `index`: in a kernel, the work item's index
    /// (or the team's league rank, or a `UniqueToken` id), so that the same
    /// work item draws the same numbers on every space.
    ///
    /// # Panics
    /// If `index >= num_states()`, naming the pool.
    #[track_caller]
    fn get_state(&self, index: usize) -> Self::Generator<'_> {
        self.try_get_state(index).unwrap_or_else(|e| panic!("{e}"))
    }
    /// Gives a generator back. It ends the generator's use (it is moved
    /// in); nothing is stored, since a state is recomputed from the seed
    /// whenever it is asked for (see the module's "Differences from Kokkos").
    fn free_state(&self, _generator: Self::Generator<'_>) {}
}

/// The draws every generator offers, built on its 64-bit output.
///
/// ```
/// use granule::containers::random::{RandomGenerator, RandomPool, XorShift64Pool};
/// let pool = XorShift64Pool::new("rng", 12345, 4)?;
/// let mut g = pool.get_state(2);
/// let die = g.urand_range(1, 7);
/// assert!((1..7).contains(&die));
/// let x = g.drand_range(-1.0, 1.0);
/// assert!((-1.0..1.0).contains(&x));
/// pool.free_state(g);
/// # Ok::<(), granule::containers::random::RandomError>(())
/// ```
pub trait RandomGenerator {
    /// The label of the pool the generator came from.
    fn label(&self) -> &str;
    /// The next 64 uniform bits.
    fn urand64(&mut self) -> u64;

    /// The next 32 uniform bits (the top half of a 64-bit draw, the
    /// scrambled generators' best bits).
    fn urand(&mut self) -> u32 {
        (self.urand64() >> 32) as u32
    }
    /// A uniform u64 in `start..end`, without modulo bias (draws below
    /// 2^64 mod (end - start) are rejected).
    ///
    /// # Panics
    /// If `start >= end`, naming the pool.
    #[track_caller]
    fn urand64_range(&mut self, start: u64, end: u64) -> u64 {
        self.try_urand64_range(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`urand64_range`](Self::urand64_range), with an error instead of a panic.
    fn try_urand64_range(&mut self, start: u64, end: u64) -> Result<u64, RandomError> {
        check_int(self.label(), start, end, start < end)?;
        Ok(start + below(self, end - start))
    }
    /// A uniform u32 in `start..end`.
    ///
    /// # Panics
    /// If `start >= end`, naming the pool.
    #[track_caller]
    fn urand_range(&mut self, start: u32, end: u32) -> u32 {
        self.try_urand_range(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`urand_range`](Self::urand_range), with an error instead of a panic.
    fn try_urand_range(&mut self, start: u32, end: u32) -> Result<u32, RandomError> {
        check_int(self.label(), start, end, start < end)?;
        Ok(start + below(self, u64::from(end - start)) as u32)
    }
    /// A uniform f32 in [0, 1), a multiple of 2^-24.
    fn frand(&mut self) -> f32 {
        unit_f32(self.urand64())
    }
    /// A uniform f32 in `[start, end)`.
    ///
    /// # Panics
    /// If the range is empty, reversed, not finite or wider than f32's
    /// largest value, naming the pool.
    #[track_caller]
    fn frand_range(&mut self, start: f32, end: f32) -> f32 {
        self.try_frand_range(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`frand_range`](Self::frand_range), with an error instead of a panic.
    fn try_frand_range(&mut self, start: f32, end: f32) -> Result<f32, RandomError> {
        uniform_in(self, start, end, (end - start).is_finite(), Self::frand)
    }
    /// A uniform f64 in [0, 1), a multiple of 2^-53.
    fn drand(&mut self) -> f64 {
        unit_f64(self.urand64())
    }
    /// A uniform f64 in `[start, end)`.
    ///
    /// # Panics
    /// As [`frand_range`](Self::frand_range).
    #[track_caller]
    fn drand_range(&mut self, start: f64, end: f64) -> f64 {
        self.try_drand_range(start, end)
            .unwrap_or_else(|e| panic!("{e}"))
    }
    /// [`drand_range`](Self::drand_range), with an error instead of a panic.
    fn try_drand_range(&mut self, start: f64, end: f64) -> Result<f64, RandomError> {
        uniform_in(self, start, end, (end - start).is_finite(), Self::drand)
    }
    /// A standard normal deviate (Marsaglia's polar method, one of the
    /// pair kept, as Kokkos does). It calls `ln` and `sqrt`, so on a GPU
    /// its bits may differ from the host's within the bounds of the kernel
    /// README's "Bounded functions"; the uniform draws are bit-identical.
    fn normal(&mut self) -> f64 {
        loop {
            let u = 2.0 * self.drand() - 1.0;
            let v = 2.0 * self.drand() - 1.0;
            let s = u * u + v * v;
            if s < 1.0 && s != 0.0 {
                return u * (-2.0 * s.ln() / s).sqrt();
            }
        }
    }
    /// A normal deviate of mean `mean` and standard deviation `std_dev`.
    fn normal_with(&mut self, mean: f64, std_dev: f64) -> f64 {
        mean + std_dev * self.normal()
    }
}

/// A uniform float in `[start, end)` from `unit`'s draws in [0, 1), after
/// checking the range (`width_finite`: `end - start` is finite). A draw
/// that rounds up to `end` is rejected, so `end` is never returned.
fn uniform_in<G, T>(
    g: &mut G,
    start: T,
    end: T,
    width_finite: bool,
    unit: fn(&mut G) -> T,
) -> Result<T, RandomError>
where
    G: RandomGenerator + ?Sized,
    T: Copy + Debug + PartialOrd + Add<Output = T> + Sub<Output = T> + Mul<Output = T>,
{
    check_float(g.label(), start, end, width_finite)?;
    loop {
        let v = start + (end - start) * unit(g);
        if v < end {
            return Ok(v);
        }
    }
}

/// A uniform draw in `0..span` (`span > 0`), by rejection.
fn below<G: RandomGenerator + ?Sized>(g: &mut G, span: u64) -> u64 {
    let threshold = super::bits::reject_below(span);
    loop {
        let r = g.urand64();
        if r >= threshold {
            return r % span;
        }
    }
}

/// The pool's fields both kinds share.
#[derive(Clone, Debug)]
struct Common {
    label: Arc<str>,
    key: u64,
    num_states: usize,
}

impl Common {
    fn new(label: &str, seed: u64, num_states: usize, max: u64) -> Result<Self, RandomError> {
        if num_states == 0 {
            return Err(RandomError::EmptyPool {
                label: label.to_string(),
            });
        }
        if num_states as u64 > max {
            return Err(RandomError::TooManyStates {
                label: label.to_string(),
                num_states,
                max,
            });
        }
        // The key is mixed so that nearby seeds (1, 2, 3, ..) give
        // unrelated pools, and seed s + GOLDEN does not give pool s's
        // states shifted by one.
        Ok(Self {
            label: label.into(),
            key: mix64(seed ^ 0x5eed_5eed_5eed_5eed),
            num_states,
        })
    }
    fn check(&self, index: usize) -> Result<(), RandomError> {
        if index < self.num_states {
            Ok(())
        } else {
            Err(RandomError::StateOutOfRange {
                label: self.label.to_string(),
                index,
                num_states: self.num_states,
            })
        }
    }
}

macro_rules! pool_common {
    ($pool:ident, $max:expr, $why:literal) => {
        impl $pool {
            #[doc = concat!("The most states a pool can have: ", $why, ".")]
            pub const MAX_STATES: u64 = $max;

            /// A pool of `num_states` states seeded with `seed`, or
            /// [`RandomError::EmptyPool`] if `num_states` is 0, or
            /// [`RandomError::TooManyStates`] above
            #[doc = concat!("[`", stringify!($pool), "::MAX_STATES`].")]
            pub fn new(label: &str, seed: u64, num_states: usize) -> Result<Self, RandomError> {
                Common::new(label, seed, num_states, $max).map(|common| Self { common })
            }
            /// A pool of the same size whose streams are independent of
            /// this one's: what a program that draws in several dispatches
            /// uses for the next one, since asking a pool for state `i`
            /// again gives state `i`'s numbers again.
            pub fn renewed(&self) -> Self {
                let mut common = self.common.clone();
                common.key = mix64(common.key ^ 0xa5a5_a5a5_a5a5_a5a5);
                Self { common }
            }
        }
    };
}

/// Kokkos's `Random_XorShift64_Pool`: states of 64 bits, XorShift64*
/// (period 2^64 - 1 per state). Cheap to derive, the pool for most uses.
///
/// ```
/// use granule::containers::random::{RandomGenerator, RandomPool, XorShift64Pool};
/// let pool = XorShift64Pool::new("rng", 7, 1024)?;
/// let a = pool.get_state(5).urand64();
/// let b = pool.get_state(5).urand64();
/// assert_eq!(a, b); // state 5 is a function of (seed, 5)
/// assert_ne!(a, pool.get_state(6).urand64());
/// # Ok::<(), granule::containers::random::RandomError>(())
/// ```
#[derive(Clone, Debug)]
pub struct XorShift64Pool {
    common: Common,
}

pool_common!(
    XorShift64Pool,
    u64::MAX,
    "state `i` is word `i` of the pool's counter, distinct for every index"
);

/// A XorShift64* generator, taken from an [`XorShift64Pool`].
#[derive(Clone, Debug)]
pub struct XorShift64<'p> {
    state: u64,
    label: &'p str,
}

impl RandomGenerator for XorShift64<'_> {
    fn label(&self) -> &str {
        self.label
    }
    fn urand64(&mut self) -> u64 {
        self.state = xorshift64_next(self.state);
        self.state.wrapping_mul(XORSHIFT64_STAR)
    }
}

impl RandomPool for XorShift64Pool {
    type Generator<'p> = XorShift64<'p>;
    fn label(&self) -> &str {
        &self.common.label
    }
    fn num_states(&self) -> usize {
        self.common.num_states
    }
    fn key(&self) -> u64 {
        self.common.key
    }
    fn try_get_state(&self, index: usize) -> Result<XorShift64<'_>, RandomError> {
        self.common.check(index)?;
        Ok(XorShift64 {
            state: state_word(self.common.key, index as u64),
            label: &self.common.label,
        })
    }
}

/// The states of a XorShift1024* pool at most: each takes 16 words of the
/// 64-bit counter.
pub(crate) const STATES_1024: u64 = 1 << 60;

/// Kokkos's `Random_XorShift1024_Pool`: states of 1024 bits, XorShift1024*
/// (period 2^1024 - 1 per state), for long streams per work item. A state
/// costs 16 derivations, so take it once per work item, not per draw.
///
/// ```
/// use granule::containers::random::{RandomGenerator, RandomPool, XorShift1024Pool};
/// let pool = XorShift1024Pool::new("rng", 7, 16)?;
/// let mut g = pool.get_state(3);
/// let sum: f64 = (0..1000).map(|_| g.drand()).sum();
/// assert!((sum / 1000.0 - 0.5).abs() < 0.05);
/// # Ok::<(), granule::containers::random::RandomError>(())
/// ```
#[derive(Clone, Debug)]
pub struct XorShift1024Pool {
    common: Common,
}

pool_common!(
    XorShift1024Pool,
    STATES_1024,
    "2^60, since state `i` is words `16 i..16 i + 16` of the pool's 64-bit counter, which must not wrap onto another state's"
);

/// A XorShift1024* generator, taken from an [`XorShift1024Pool`].
#[derive(Clone, Debug)]
pub struct XorShift1024<'p> {
    state: [u64; 16],
    p: usize,
    label: &'p str,
}

impl RandomGenerator for XorShift1024<'_> {
    fn label(&self) -> &str {
        self.label
    }
    fn urand64(&mut self) -> u64 {
        let s0 = self.state[self.p];
        self.p = (self.p + 1) & 15;
        let mut s1 = self.state[self.p];
        s1 ^= s1 << 31;
        self.state[self.p] = s1 ^ s0 ^ (s1 >> 11) ^ (s0 >> 30);
        self.state[self.p].wrapping_mul(XORSHIFT1024_STAR)
    }
}

impl RandomPool for XorShift1024Pool {
    type Generator<'p> = XorShift1024<'p>;
    fn label(&self) -> &str {
        &self.common.label
    }
    fn num_states(&self) -> usize {
        self.common.num_states
    }
    fn key(&self) -> u64 {
        self.common.key
    }
    fn try_get_state(&self, index: usize) -> Result<XorShift1024<'_>, RandomError> {
        self.common.check(index)?;
        // Words 16 i .. 16 i + 15 of the pool's counter: distinct for
        // every state and word, since `new` bounds the states by 2^60.
        let base = index as u64 * 16;
        let state = std::array::from_fn(|k| state_word(self.common.key, base + k as u64));
        Ok(XorShift1024 {
            state,
            p: 0,
            label: &self.common.label,
        })
    }
}
