//! The key types of an [`UnorderedMap`](super::UnorderedMap) and the hash
//! that places them.

use granule_views::Element;

mod sealed {
    pub trait Sealed {}
}

/// Integer types a map can be keyed by. The hash is part of the contract
/// every space shares: a key lands in the same home slot on Serial, Rayon
/// and Cuda, so the same inserts give the same layout wherever probes do
/// not race.
///
/// ```
/// use granule::containers::MapKey;
/// assert_eq!(7u64.home_slot(16), MapKey::home_slot(7u64, 16));
/// assert!(12345u32.home_slot(10) < 10);
/// ```
pub trait MapKey: Element + Eq + sealed::Sealed {
    /// The key's bits, widened to 64 (sign-extended for signed types).
    fn bits(self) -> u64;

    /// The key's hash: the 64-bit finalizer of MurmurHash3, which spreads
    /// consecutive integers over the whole range.
    #[inline]
    fn hash(self) -> u64 {
        let mut h = self.bits();
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }

    /// The first slot probed for this key in a map of `capacity` slots
    /// (0 when the capacity is 0).
    #[inline]
    fn home_slot(self, capacity: usize) -> usize {
        if capacity == 0 {
            0
        } else {
            (self.hash() % capacity as u64) as usize
        }
    }
}

macro_rules! map_key {
    ($($t:ty),*) => { $(
        impl sealed::Sealed for $t {}
        impl MapKey for $t {
            #[inline]
            fn bits(self) -> u64 {
                self as u64
            }
        }
    )* };
}
map_key!(u32, u64, i32, i64, usize);

#[cfg(test)]
mod tests {
    use super::MapKey;

    #[test]
    fn signed_keys_hash_as_their_sign_extended_bits() {
        assert_eq!((-1i32).bits(), u64::MAX);
        assert_eq!((-1i32).hash(), (-1i64).hash());
        assert_eq!(7u32.hash(), 7u64.hash());
        assert_eq!(7usize.hash(), 7u64.hash());
    }

    #[test]
    fn consecutive_keys_spread_over_the_slots() {
        // 1000 consecutive keys into 1000 slots: a good hash leaves about
        // 1000/e empty; linear keys modulo 1000 would leave none.
        let mut used = vec![false; 1000];
        for k in 0u64..1000 {
            used[k.home_slot(1000)] = true;
        }
        let empty = used.iter().filter(|u| !**u).count();
        assert!((300..440).contains(&empty), "{empty} empty home slots");
        assert_eq!(5u64.home_slot(0), 0);
    }
}
