//! The pools and their generators.

use super::bits::{mix64, state_word, xorshift64_next, XORSHIFT1024_STAR, XORSHIFT64_STAR};
use super::stored::Stored;
use super::{RandomError, RandomGenerator};
use granule_core::ExecutionSpace;
use parking_lot::MutexGuard;
use std::sync::Arc;

/// What pools have in common: a label, a number of states, the key the
/// states derive from, and two ways to take a state.
///
/// [`get_state`](Self::get_state) is Kokkos's: the pool finds a free
/// state among those it keeps, the generator advances it, and
/// [`free_state`](Self::free_state) (or dropping the generator) keeps the
/// advanced state for the next user. Which work item gets which state
/// depends on the threads' timing, as in Kokkos.
///
/// [`state_at`](Self::state_at) is granule's reproducible form: state `i`
/// computed from (seed, `i`) each time it is asked for, so that the
/// numbers of work item `i` do not depend on the space, the thread count
/// or the schedule, and are those the [`device`](super::device) functions
/// compute inside a `#[kernel]`.
pub trait RandomPool: Clone + Send + Sync {
    /// The generator `get_state` and `state_at` hand out.
    type Generator<'p>: RandomGenerator
    where
        Self: 'p;
    /// The pool's label, named by its errors and panics.
    fn label(&self) -> &str;
    /// How many states the pool has (`state_at` takes `0..num_states()`).
    fn num_states(&self) -> usize;
    /// The key that the states derive from (a mix of the seed).
    fn key(&self) -> u64;
    /// A free state of the pool (Kokkos's `get_state()`), waiting while
    /// all are taken. The generator holds the state until it is given
    /// back with [`free_state`](Self::free_state) or dropped, which keeps
    /// the advanced state: the next `get_state` continues its stream.
    fn get_state(&self) -> Self::Generator<'_>;
    /// The generator of state `index` as computed from the seed, or an
    /// error naming the pool if `index >= num_states()`.
    fn try_state_at(&self, index: usize) -> Result<Self::Generator<'_>, RandomError>;
    /// The generator of state `index` as computed from the seed, ignoring
    /// what `get_state`'s users drew from it: in a kernel, the work item's
    /// index (or the team's league rank, or a `UniqueToken` id), so that
    /// the same work item draws the same numbers on every space.
    ///
    /// # Panics
    /// If `index >= num_states()`, naming the pool.
    #[track_caller]
    fn state_at(&self, index: usize) -> Self::Generator<'_> {
        self.try_state_at(index).unwrap_or_else(|e| panic!("{e}"))
    }
    /// Gives a generator back (Kokkos's `free_state`): a state from
    /// `get_state` is kept as the generator left it, one from `state_at`
    /// is forgotten. Dropping the generator does the same.
    fn free_state(&self, generator: Self::Generator<'_>) {
        drop(generator);
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

            /// A pool seeded with `seed` of one state per work item that
            /// `space` runs at once (its concurrency), as Kokkos sizes a
            /// pool made from a seed alone. Its label is the type's name.
            pub fn new<S: ExecutionSpace>(space: &S, seed: u64) -> Self {
                let states = space.concurrency().max(1);
                Self::with_states(stringify!($pool), seed, states)
                    .expect("a space's concurrency is a valid number of states")
            }
            /// A pool labelled `label` of `num_states` states seeded with
            /// `seed`: sized for [`state_at`](RandomPool::state_at) by
            /// work item, or [`RandomError::EmptyPool`] if `num_states` is
            /// 0, or [`RandomError::TooManyStates`] above
            #[doc = concat!("[`", stringify!($pool), "::MAX_STATES`].")]
            pub fn with_states(
                label: &str,
                seed: u64,
                num_states: usize,
            ) -> Result<Self, RandomError> {
                Common::new(label, seed, num_states, $max).map(|common| Self {
                    common,
                    stored: Arc::default(),
                })
            }
            /// A pool of the same size and label whose streams are
            /// independent of this one's: what a program that draws by
            /// `state_at` in several dispatches uses for the next one,
            /// since asking a pool for state `i` again gives state `i`'s
            /// numbers again.
            pub fn renewed(&self) -> Self {
                let mut common = self.common.clone();
                common.key = mix64(common.key ^ 0xa5a5_a5a5_a5a5_a5a5);
                Self {
                    common,
                    stored: Arc::default(),
                }
            }
        }
    };
}

/// Kokkos's `Random_XorShift64_Pool`: states of 64 bits, XorShift64*
/// (period 2^64 - 1 per state). Cheap to derive, the pool for most uses.
///
/// ```
/// use granule::containers::random::{RandomGenerator, RandomPool, XorShift64Pool};
/// let pool = XorShift64Pool::with_states("rng", 7, 1024)?;
/// let a = pool.state_at(5).urand64();
/// let b = pool.state_at(5).urand64();
/// assert_eq!(a, b); // state 5 is a function of (seed, 5)
/// assert_ne!(a, pool.state_at(6).urand64());
/// # Ok::<(), granule::containers::random::RandomError>(())
/// ```
#[derive(Clone, Debug)]
pub struct XorShift64Pool {
    common: Common,
    stored: Arc<Stored<u64>>,
}

pool_common!(
    XorShift64Pool,
    u64::MAX,
    "state `i` is word `i` of the pool's counter, distinct for every index"
);

/// A XorShift64* generator, taken from an [`XorShift64Pool`].
#[derive(Debug)]
pub struct XorShift64<'p> {
    state: u64,
    label: &'p str,
    /// The kept state it came from (`get_state`), written back on drop.
    kept: Option<MutexGuard<'p, u64>>,
}

/// A copy of the generator's current state, which draws the same numbers
/// as it; the copy keeps nothing (dropping it gives no state back).
impl Clone for XorShift64<'_> {
    fn clone(&self) -> Self {
        XorShift64 {
            state: self.state,
            label: self.label,
            kept: None,
        }
    }
}

impl Drop for XorShift64<'_> {
    fn drop(&mut self) {
        if let Some(kept) = self.kept.as_mut() {
            **kept = self.state;
        }
    }
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
    fn get_state(&self) -> XorShift64<'_> {
        let key = self.common.key;
        let kept = self
            .stored
            .take(self.common.num_states, |i| state_word(key, i as u64));
        XorShift64 {
            state: *kept,
            label: &self.common.label,
            kept: Some(kept),
        }
    }
    fn try_state_at(&self, index: usize) -> Result<XorShift64<'_>, RandomError> {
        self.common.check(index)?;
        Ok(XorShift64 {
            state: state_word(self.common.key, index as u64),
            label: &self.common.label,
            kept: None,
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
/// let pool = XorShift1024Pool::with_states("rng", 7, 16)?;
/// let mut g = pool.state_at(3);
/// let sum: f64 = (0..1000).map(|_| g.drand()).sum();
/// assert!((sum / 1000.0 - 0.5).abs() < 0.05);
/// # Ok::<(), granule::containers::random::RandomError>(())
/// ```
#[derive(Clone, Debug)]
pub struct XorShift1024Pool {
    common: Common,
    stored: Arc<Stored<Ring>>,
}

pool_common!(
    XorShift1024Pool,
    STATES_1024,
    "2^60, since state `i` is words `16 i..16 i + 16` of the pool's 64-bit counter, which must not wrap onto another state's"
);

/// A XorShift1024* state: its 16 words and the position in their ring.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Ring {
    words: [u64; 16],
    p: usize,
}

impl Ring {
    /// State `index` of the pool of key `key`: words `16 index ..
    /// 16 index + 15` of its counter, distinct for every state and word,
    /// since the pools bound the states by 2^60.
    fn at(key: u64, index: usize) -> Self {
        let base = index as u64 * 16;
        Ring {
            words: std::array::from_fn(|k| state_word(key, base + k as u64)),
            p: 0,
        }
    }
}

/// A XorShift1024* generator, taken from an [`XorShift1024Pool`].
#[derive(Debug)]
pub struct XorShift1024<'p> {
    ring: Ring,
    label: &'p str,
    /// The kept state it came from (`get_state`), written back on drop.
    kept: Option<MutexGuard<'p, Ring>>,
}

/// A copy of the generator's current state, as for [`XorShift64`].
impl Clone for XorShift1024<'_> {
    fn clone(&self) -> Self {
        XorShift1024 {
            ring: self.ring,
            label: self.label,
            kept: None,
        }
    }
}

impl Drop for XorShift1024<'_> {
    fn drop(&mut self) {
        if let Some(kept) = self.kept.as_mut() {
            **kept = self.ring;
        }
    }
}

impl RandomGenerator for XorShift1024<'_> {
    fn label(&self) -> &str {
        self.label
    }
    fn urand64(&mut self) -> u64 {
        let Ring { words, p } = &mut self.ring;
        let s0 = words[*p];
        *p = (*p + 1) & 15;
        let mut s1 = words[*p];
        s1 ^= s1 << 31;
        words[*p] = s1 ^ s0 ^ (s1 >> 11) ^ (s0 >> 30);
        words[*p].wrapping_mul(XORSHIFT1024_STAR)
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
    fn get_state(&self) -> XorShift1024<'_> {
        let key = self.common.key;
        let kept = self
            .stored
            .take(self.common.num_states, |i| Ring::at(key, i));
        XorShift1024 {
            ring: *kept,
            label: &self.common.label,
            kept: Some(kept),
        }
    }
    fn try_state_at(&self, index: usize) -> Result<XorShift1024<'_>, RandomError> {
        self.common.check(index)?;
        Ok(XorShift1024 {
            ring: Ring::at(self.common.key, index),
            label: &self.common.label,
            kept: None,
        })
    }
}
