//! Radix keys: the element types the radix sort orders by their bits.

/// A key the radix sort orders: it maps to unsigned bits whose order is
/// the key's order. Integers: their order (signed ones with the sign bit
/// flipped). Floats: [`total_cmp`](f64::total_cmp) order, which is
/// `-NaN < -inf < … < -0.0 < +0.0 < … < +inf < +NaN` (negative NaNs first,
/// positive NaNs — the usual `f64::NAN` — last, `-0.0` before `+0.0`).
///
/// ```
/// use granule::algorithms::RadixKey;
/// assert!((-1i32).to_radix() < 0i32.to_radix());
/// assert!((-0.0f64).to_radix() < 0.0f64.to_radix());
/// assert!(f32::INFINITY.to_radix() < f32::NAN.to_radix());
/// ```
///
/// The trait is sealed: the sort's line-aligned streaming stores rely on
/// each key being a primitive aligned to its size.
pub trait RadixKey: granule_views::Element + sealed::Sealed {
    /// Bytes of the key: one radix pass per byte.
    const BYTES: usize;
    /// The order-preserving bits, in the low `8 * BYTES` bits.
    fn to_radix(self) -> u64;
}

mod sealed {
    /// Only granule's key types are radix keys.
    pub trait Sealed {}
    macro_rules! sealed {
        ($($t:ty),*) => { $( impl Sealed for $t {} )* };
    }
    sealed!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);
}

macro_rules! unsigned_key {
    ($($t:ty),*) => { $(
        impl RadixKey for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn to_radix(self) -> u64 {
                self as u64
            }
        }
    )* };
}
unsigned_key!(u8, u16, u32, u64);

macro_rules! signed_key {
    ($($t:ty => $u:ty),*) => { $(
        impl RadixKey for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn to_radix(self) -> u64 {
                ((self as $u) ^ (1 << (<$u>::BITS - 1))) as u64
            }
        }
    )* };
}
signed_key!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

macro_rules! float_key {
    ($($t:ty => $u:ty),*) => { $(
        impl RadixKey for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn to_radix(self) -> u64 {
                let b = self.to_bits();
                let sign = 1 << (<$u>::BITS - 1);
                // Negative: all bits flipped (larger magnitude sorts first);
                // positive: the sign bit set (above every negative).
                (if b & sign != 0 { !b } else { b | sign }) as u64
            }
        }
    )* };
}
float_key!(f32 => u32, f64 => u64);

#[cfg(test)]
mod tests {
    use super::RadixKey;

    #[test]
    fn radix_order_is_total_cmp_order() {
        let xs = [
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.0,
            1.5,
            -1.5,
            f64::MIN_POSITIVE,
            -f64::MAX,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(a.to_radix().cmp(&b.to_radix()), a.total_cmp(&b), "{a} {b}");
            }
        }
        let is = [i64::MIN, -1, 0, 1, i64::MAX];
        for a in is {
            for b in is {
                assert_eq!(a.to_radix().cmp(&b.to_radix()), a.cmp(&b));
            }
        }
    }
}
