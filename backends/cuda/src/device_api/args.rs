//! Kernel arguments as `cuLaunchKernel` takes them: one pointer per
//! parameter to that parameter's bytes. This is the single Rust statement
//! of how the entry points' parameter types (the device header's `View`,
//! `AtomicView`, `Chunked`, `TeamScratch`, `MdRange` and scalars) are laid
//! out; every device packs arguments through it.

/// Scalars that cross to the device as their bytes: the primitive
/// numbers and `bool` (one byte, as C++'s).
pub trait ArgScalar: Copy + private::Sealed {
    /// Appends the value's native-endian bytes.
    fn append(self, out: &mut Vec<u8>);
}

mod private {
    pub trait Sealed {}
}

macro_rules! arg_scalar {
    ($($t:ty),*) => { $(
        impl private::Sealed for $t {}
        impl ArgScalar for $t {
            fn append(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_ne_bytes());
            }
        }
    )* };
}
arg_scalar!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, usize, isize);

impl private::Sealed for bool {}
impl ArgScalar for bool {
    fn append(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
}

/// The arguments of one launch, in parameter order.
///
/// Each argument is kept 8-byte aligned, as the largest alignment of any
/// parameter type the generated entry points use.
///
/// ```
/// use granule_cuda::device_api::KernelArgs;
/// let mut args = KernelArgs::new();
/// args.scalar(0u64).scalar(2.5f64).view(0x1000, &[4, 3], &[3, 1], 7);
/// // data, 2 extents, 2 strides, id and padding
/// assert_eq!(args.sizes(), [8, 8, 48]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelArgs {
    /// Each argument's bytes, in 8-byte words (so the storage is aligned).
    words: Vec<Vec<u64>>,
    /// Each argument's size in bytes (`sizeof` of the C++ parameter).
    sizes: Vec<usize>,
}

impl KernelArgs {
    /// No arguments.
    pub fn new() -> Self {
        KernelArgs::default()
    }

    /// Appends one argument of exactly these bytes.
    pub fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        for (w, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            *w = u64::from_ne_bytes(b);
        }
        self.words.push(words);
        self.sizes.push(bytes.len());
        self
    }

    /// A scalar parameter (`granule::u64 begin`, `granule::f64 a`, `bool`).
    pub fn scalar<T: ArgScalar>(&mut self, v: T) -> &mut Self {
        let mut b = Vec::with_capacity(8);
        v.append(&mut b);
        self.raw(&b)
    }

    /// A device pointer parameter (`T* partials__`).
    pub fn pointer(&mut self, address: u64) -> &mut Self {
        self.scalar(address)
    }

    /// A `granule::View<T, R, L>` (and the `View` inside an `AtomicView`):
    /// data pointer, R extents, R strides in elements, the View's id (the
    /// number error records name it by), padded to 8 bytes. Every layout
    /// is passed this way; for LayoutRight and LayoutLeft the strides are
    /// those the layout implies.
    ///
    /// # Panics
    /// If `extents` and `strides` differ in length or the rank is not
    /// 1..=8: the entry's View type fixes the rank, so this is a bug in the
    /// caller.
    pub fn view(&mut self, data: u64, extents: &[u64], strides: &[u64], id: u32) -> &mut Self {
        assert!(
            extents.len() == strides.len() && (1..=8).contains(&extents.len()),
            "a View argument has rank 1..=8 and one stride per extent (got {} extents, {} strides)",
            extents.len(),
            strides.len()
        );
        let mut b = Vec::with_capacity(16 + 16 * extents.len());
        b.extend_from_slice(&data.to_ne_bytes());
        for e in extents.iter().chain(strides) {
            b.extend_from_slice(&e.to_ne_bytes());
        }
        b.extend_from_slice(&id.to_ne_bytes());
        b.extend_from_slice(&[0; 4]);
        self.raw(&b)
    }

    /// A `granule::UnorderedMap<K, V>` (or `MapInserter<K, V>`): its
    /// states, keys, values and counters, each a rank-1 `View` (data
    /// pointer, length, stride 1, id), back to back.
    ///
    /// ```
    /// use granule_cuda::device_api::KernelArgs;
    /// let mut args = KernelArgs::new();
    /// args.map([(0x100, 8, 0), (0x200, 8, 1), (0x300, 8, 2), (0x400, 2, 3)]);
    /// assert_eq!(args.sizes(), [4 * 32]);
    /// ```
    pub fn map(&mut self, views: [(u64, u64, u32); 4]) -> &mut Self {
        let mut b = Vec::with_capacity(4 * 32);
        for (data, len, id) in views {
            let mut one = KernelArgs::new();
            one.view(data, &[len], &[1], id);
            b.extend_from_slice(&one.bytes(0));
        }
        self.raw(&b)
    }

    /// A `granule::Chunked<T, M>`: data pointer, element count, the View's
    /// id, then the map's fields (`MapIdentity` has none; a map's fields
    /// are 8-byte words, such as `MapContinuousLinear`'s width).
    pub fn chunked(&mut self, data: u64, size: u64, id: u32, map: &[u64]) -> &mut Self {
        let mut b = Vec::with_capacity(24 + 8 * map.len());
        b.extend_from_slice(&data.to_ne_bytes());
        b.extend_from_slice(&size.to_ne_bytes());
        b.extend_from_slice(&id.to_ne_bytes());
        b.extend_from_slice(&[0; 4]);
        for w in map {
            b.extend_from_slice(&w.to_ne_bytes());
        }
        self.raw(&b)
    }

    /// A `granule::TeamScratch`: bytes per team and per team thread at
    /// levels 0 and 1, and the level-1 global memory (0 when none).
    pub fn team_scratch(
        &mut self,
        team_bytes: [u64; 2],
        thread_bytes: [u64; 2],
        level1: u64,
    ) -> &mut Self {
        let mut b = Vec::with_capacity(40);
        for w in team_bytes.iter().chain(&thread_bytes).chain([&level1]) {
            b.extend_from_slice(&w.to_ne_bytes());
        }
        self.raw(&b)
    }

    /// A `granule::MdRange<R>`: the box's lower and upper corners, the
    /// tile extents, and the iteration order (`outer_left`: tiles are
    /// numbered with the first dimension fastest; `inner_left`: likewise
    /// for the indices within a tile).
    ///
    /// # Panics
    /// If the corners and tiles differ in rank: the entry's type fixes
    /// the rank, so this is a bug in the caller.
    pub fn md_range(
        &mut self,
        lo: &[u64],
        hi: &[u64],
        tile: &[u64],
        outer_left: bool,
        inner_left: bool,
    ) -> &mut Self {
        assert!(
            lo.len() == hi.len() && hi.len() == tile.len(),
            "an MdRange's corners and tiles have one rank"
        );
        let order = u64::from(outer_left) | u64::from(inner_left) << 1;
        let mut b = Vec::with_capacity(24 * lo.len() + 8);
        for w in lo.iter().chain(hi).chain(tile).chain([&order]) {
            b.extend_from_slice(&w.to_ne_bytes());
        }
        self.raw(&b)
    }

    /// The number of arguments.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// Each argument's size in bytes.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Argument `k`'s bytes.
    pub fn bytes(&self, k: usize) -> Vec<u8> {
        let mut b: Vec<u8> = self.words[k].iter().flat_map(|w| w.to_ne_bytes()).collect();
        b.truncate(self.sizes[k]);
        b
    }

    /// `Ok` when the arguments are exactly `params`, an entry's parameter
    /// sizes (its `granule::ParamTable`, which both devices read at load
    /// and check before every launch); otherwise the reason, naming both.
    ///
    /// ```
    /// use granule_cuda::device_api::KernelArgs;
    /// let mut args = KernelArgs::new();
    /// args.scalar(0u64).scalar(1.0f32);
    /// assert!(args.check_params(&[8, 4]).is_ok());
    /// assert!(args.check_params(&[8, 8]).unwrap_err().contains("[8, 8]"));
    /// ```
    pub fn check_params(&self, params: &[usize]) -> Result<(), String> {
        if self.sizes == params {
            return Ok(());
        }
        Err(format!(
            "the entry takes {} parameters of {:?} bytes, the arguments are {} of {:?} bytes",
            params.len(),
            params,
            self.len(),
            self.sizes
        ))
    }

    /// One pointer per argument to its (8-byte aligned) bytes: the
    /// `void** kernelParams` of `cuLaunchKernel`, valid while `self` is
    /// neither moved nor changed.
    pub fn pointers(&self) -> Vec<*mut std::ffi::c_void> {
        self.words
            .iter()
            .map(|w| w.as_ptr() as *mut std::ffi::c_void)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_keep_their_width_and_bytes() {
        let mut a = KernelArgs::new();
        a.scalar(true).scalar(-2i16).scalar(1.5f32).scalar(7u64);
        assert_eq!(a.sizes(), [1, 2, 4, 8]);
        assert_eq!(a.bytes(0), [1]);
        assert_eq!(a.bytes(1), (-2i16).to_ne_bytes());
        assert_eq!(a.bytes(2), 1.5f32.to_ne_bytes());
    }

    #[test]
    fn composite_layouts_match_the_header() {
        let mut a = KernelArgs::new();
        a.view(0x10, &[5], &[1], 3)
            .chunked(0x20, 9, 4, &[])
            .chunked(0x20, 9, 4, &[2])
            .team_scratch([1, 2], [3, 4], 0x30)
            .md_range(&[0, 0, 0], &[1, 2, 3], &[1, 1, 3], false, true);
        assert_eq!(a.sizes(), [32, 24, 32, 40, 80]);
        assert_eq!(&a.bytes(4)[72..80], &2u64.to_ne_bytes());
        let v = a.bytes(0);
        assert_eq!(&v[24..28], &3u32.to_ne_bytes());
        assert_eq!(&a.bytes(2)[24..32], &2u64.to_ne_bytes());
        assert_eq!(&a.bytes(3)[32..40], &0x30u64.to_ne_bytes());
    }

    #[test]
    fn pointers_are_aligned_and_point_at_the_bytes() {
        let mut a = KernelArgs::new();
        a.scalar(1u8).scalar(0x0102_0304u32);
        let p = a.pointers();
        assert!(p.iter().all(|p| p.addr().is_multiple_of(8)));
        // SAFETY: p[1] points at the second argument's words, alive in `a`.
        let v = unsafe { *(p[1] as *const u32) };
        assert_eq!(v, 0x0102_0304);
    }
}
