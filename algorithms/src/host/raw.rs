//! Raw access to the elements of host Views, shared by worker threads.
//!
//! The algorithms' block protocols decide who touches which element when
//! (each one says how in its SAFETY comments); these types only carry the
//! pointer, length and stride, and check indices against the length.

use crate::io::{Input, Output};
use granule_views::{Element, HostAccessible};

/// Elements an algorithm reads: `len` of them, `stride` apart.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Src<T> {
    ptr: *const T,
    pub(crate) len: usize,
    stride: usize,
}

/// Elements an algorithm writes (and, in place, reads).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dst<T> {
    ptr: *mut T,
    pub(crate) len: usize,
    stride: usize,
}

// SAFETY: plain descriptions of host memory; every access through them is
// an unsafe method whose contract rules out data races.
unsafe impl<T: Element> Send for Src<T> {}
// SAFETY: as above.
unsafe impl<T: Element> Sync for Src<T> {}
// SAFETY: as above.
unsafe impl<T: Element> Send for Dst<T> {}
// SAFETY: as above.
unsafe impl<T: Element> Sync for Dst<T> {}

impl<T: Element> Src<T> {
    /// The elements of a host Input.
    pub(crate) fn of<M: HostAccessible>(input: &Input<'_, T, M>) -> Self {
        Src {
            ptr: input.ptr,
            len: input.len,
            stride: input.stride,
        }
    }

    /// Reads an Output's elements (an in-place algorithm's input).
    pub(crate) fn of_output<M: HostAccessible>(output: &Output<'_, T, M>) -> Self {
        Src {
            ptr: output.ptr,
            len: output.len,
            stride: output.stride,
        }
    }

    /// Whether consecutive elements are adjacent (the fast paths).
    pub(crate) fn contiguous(&self) -> bool {
        self.stride == 1 || self.len <= 1
    }

    /// Element `i`.
    ///
    /// # Safety
    /// No thread writes element `i` during the call.
    #[inline(always)]
    pub(crate) unsafe fn get(&self, i: usize) -> T {
        assert!(i < self.len, "index {i} out of a View of {}", self.len);
        // SAFETY: in bounds, so inside the View's span; the caller rules
        // out concurrent writes.
        unsafe { *self.ptr.add(i * self.stride) }
    }

    /// Elements `lo..hi` as a slice, when contiguous.
    ///
    /// # Safety
    /// The View is contiguous, and no thread writes `lo..hi` while the
    /// slice lives.
    #[inline]
    pub(crate) unsafe fn slice<'s>(&self, lo: usize, hi: usize) -> &'s [T] {
        assert!(lo <= hi && hi <= self.len && self.contiguous());
        // SAFETY: `lo..hi` is inside the View, contiguous, and not written
        // while the slice lives (the caller's promise).
        unsafe { std::slice::from_raw_parts(self.ptr.add(lo), hi - lo) }
    }

    /// Prefetches elements `lo..hi` (clipped to the View) into L2 when the
    /// View is contiguous; a hint, so nothing else is required.
    #[inline(always)]
    pub(crate) fn prefetch(&self, lo: usize, hi: usize) {
        let hi = hi.min(self.len);
        if self.contiguous() && lo < hi {
            let size = std::mem::size_of::<T>();
            super::stream::prefetch(self.ptr.wrapping_add(lo).cast(), (hi - lo) * size);
        }
    }

    /// Elements `lo..hi` copied into `buf` (at least `hi - lo` long).
    ///
    /// # Safety
    /// No thread writes `lo..hi` during the call.
    #[inline]
    pub(crate) unsafe fn gather<'s>(&self, lo: usize, hi: usize, buf: &'s mut [T]) -> &'s [T] {
        let buf = &mut buf[..hi - lo];
        if self.contiguous() {
            // SAFETY: forwarded contract; the slice ends before we return.
            buf.copy_from_slice(unsafe { self.slice(lo, hi) });
        } else {
            for (k, b) in buf.iter_mut().enumerate() {
                // SAFETY: forwarded contract.
                *b = unsafe { self.get(lo + k) };
            }
        }
        buf
    }

    /// Elements `lo..hi`: the View's own memory when contiguous, else
    /// gathered into `buf` (which must hold `hi - lo` elements).
    ///
    /// # Safety
    /// No thread writes `lo..hi` while the slice lives.
    #[inline]
    pub(crate) unsafe fn block<'s>(&self, lo: usize, hi: usize, buf: &'s mut [T]) -> &'s [T] {
        if self.contiguous() {
            // SAFETY: forwarded contract.
            return unsafe { self.slice(lo, hi) };
        }
        let buf = &mut buf[..hi - lo];
        for (k, b) in buf.iter_mut().enumerate() {
            // SAFETY: forwarded contract.
            *b = unsafe { self.get(lo + k) };
        }
        buf
    }
}

impl<T: Element> Dst<T> {
    /// The elements of a host Output.
    pub(crate) fn of<M: HostAccessible>(output: &Output<'_, T, M>) -> Self {
        Dst {
            ptr: output.ptr,
            len: output.len,
            stride: output.stride,
        }
    }

    /// Whether consecutive elements are adjacent.
    pub(crate) fn contiguous(&self) -> bool {
        self.stride == 1 || self.len <= 1
    }

    /// How many elements before element `i` the 64-byte line holding it
    /// starts (0 for a strided View, whose writes are not streamed).
    pub(crate) fn past_line(&self, i: usize) -> usize {
        let size = std::mem::size_of::<T>();
        if !self.contiguous() || size == 0 || 64 % size != 0 {
            return 0;
        }
        (self.ptr.wrapping_add(i) as usize % 64) / size
    }

    /// Elements `lo..hi` as a unique slice, when contiguous.
    ///
    /// # Safety
    /// The View is contiguous, and no other thread touches `lo..hi` while
    /// the slice lives.
    #[inline]
    pub(crate) unsafe fn slice_mut<'s>(&self, lo: usize, hi: usize) -> &'s mut [T] {
        assert!(lo <= hi && hi <= self.len && self.contiguous());
        // SAFETY: in bounds and contiguous; the caller makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(lo), hi - lo) }
    }

    /// Writes `src` to elements `lo..lo + src.len()`, with non-temporal
    /// stores when `stream` is set and the View is contiguous.
    ///
    /// # Safety
    /// No other thread touches those elements during the call.
    #[inline]
    pub(crate) unsafe fn write(&self, lo: usize, src: &[T], stream: bool) {
        let hi = lo.checked_add(src.len()).expect("block end overflows");
        assert!(
            hi <= self.len,
            "writing {lo}..{hi} of a View of {}",
            self.len
        );
        if self.contiguous() {
            // SAFETY: in bounds, contiguous, and unique (the caller's promise).
            let dst = unsafe { self.ptr.add(lo) };
            if stream {
                // SAFETY: `dst` is valid for `src.len()` writes and does
                // not overlap `src` (a thread's own staging buffer).
                unsafe { super::stream::copy_nt(dst, src) }
            } else {
                // SAFETY: as above.
                unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) }
            }
        } else {
            for (k, &v) in src.iter().enumerate() {
                // SAFETY: `lo + k < hi <= len`, so inside the span, and unique.
                unsafe { *self.ptr.add((lo + k) * self.stride) = v };
            }
        }
    }
}

/// A host buffer of `len` elements the sorts work in, not initialized
/// until written. Large ones lie on transparent huge pages and are kept
/// by the host pool for the next call ([`super::room`]).
pub(crate) struct Scratch<T> {
    room: super::room::Room,
    len: usize,
    _elements: std::marker::PhantomData<T>,
}

impl<T: Element> Scratch<T> {
    /// Room for `len` elements, or the allocation error naming `label`.
    pub(crate) fn new(label: &str, len: usize) -> Result<Self, crate::AlgorithmError> {
        let bytes = len.checked_mul(std::mem::size_of::<T>());
        let room = bytes
            .ok_or_else(|| format!("{len} elements overflow usize"))
            .and_then(|b| super::room::Room::new(b, std::mem::align_of::<T>()));
        let room = room.map_err(|reason| {
            crate::AlgorithmError::from(granule_views::ViewError::Allocation {
                label: format!("{label} (temporary)"),
                bytes: bytes.unwrap_or(usize::MAX),
                space: "HostSpace",
                reason,
            })
        })?;
        Ok(Scratch {
            room,
            len,
            _elements: std::marker::PhantomData,
        })
    }

    fn first(&self) -> *mut u8 {
        self.room.ptr()
    }

    /// The buffer as a destination (contiguous). Reading it through
    /// [`src`](Self::src) is allowed only where it has been written.
    pub(crate) fn dst(&mut self) -> Dst<T> {
        Dst {
            ptr: self.first().cast(),
            len: self.len,
            stride: 1,
        }
    }

    /// The buffer as a source, for elements already written.
    pub(crate) fn src(&mut self) -> Src<T> {
        Src {
            ptr: self.first().cast_const().cast(),
            len: self.len,
            stride: 1,
        }
    }
}

impl<T: Element> Dst<T> {
    /// Elements `lo..hi`, as a destination of their own (element 0 is
    /// element `lo` here).
    ///
    /// # Panics
    /// If `lo..hi` is not inside the View.
    pub(crate) fn part(&self, lo: usize, hi: usize) -> Dst<T> {
        assert!(
            lo <= hi && hi <= self.len,
            "part {lo}..{hi} of a View of {}",
            self.len
        );
        Dst {
            ptr: self.ptr.wrapping_add(lo * self.stride),
            len: hi - lo,
            stride: self.stride,
        }
    }

    /// Reads the destination's elements (the sorts work in place).
    pub(crate) fn as_src(&self) -> Src<T> {
        Src {
            ptr: self.ptr,
            len: self.len,
            stride: self.stride,
        }
    }

    /// Writes `src` to elements `lo..lo + src.len()` of a contiguous
    /// destination with streaming stores, unchecked against the length.
    ///
    /// # Safety
    /// Those elements exist, the View is contiguous, and no other thread
    /// touches them during the call.
    #[inline(always)]
    pub(crate) unsafe fn write_nt(&self, lo: usize, src: &[T]) {
        debug_assert!(lo + src.len() <= self.len && self.contiguous());
        // SAFETY: the caller's contract; `src` is a buffer of ours.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.add(lo), src.len()) }
    }

    /// The address of element `i` of a contiguous destination, unchecked.
    ///
    /// # Safety
    /// `i <= len` and the View is contiguous.
    #[inline(always)]
    pub(crate) unsafe fn ptr_at(&self, i: usize) -> *mut T {
        debug_assert!(i <= self.len && self.contiguous());
        // SAFETY: inside (or one past) the View's span.
        unsafe { self.ptr.add(i) }
    }

    /// Writes `v` to element `i` of a contiguous destination, unchecked.
    ///
    /// # Safety
    /// `i < len`, the View is contiguous, and no other thread touches
    /// element `i` during the call.
    #[inline(always)]
    pub(crate) unsafe fn put(&self, i: usize, v: T) {
        debug_assert!(i < self.len && self.contiguous());
        // SAFETY: the caller's contract.
        unsafe { self.ptr.add(i).write(v) }
    }

    /// Element `i` of a strided destination.
    ///
    /// # Safety
    /// No other thread touches element `i` during the call.
    pub(crate) unsafe fn set(&self, i: usize, v: T) {
        assert!(i < self.len, "index {i} out of a View of {}", self.len);
        // SAFETY: in bounds; the caller makes the access unique.
        unsafe { self.ptr.add(i * self.stride).write(v) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_line_counts_the_elements_before_in_the_line() {
        let mut u64s = Scratch::<u64>::new("u64s", 100).expect("scratch");
        let d = u64s.dst();
        let first = (0..8).find(|&i| d.past_line(i) == 0).expect("a line start");
        for i in 0..90 {
            // SAFETY: `i <= len`; only the address is taken.
            let at = unsafe { d.ptr_at(i) } as usize;
            assert_eq!(d.past_line(i), (at % 64) / 8, "u64 {i}");
            if i >= first {
                assert_eq!(d.past_line(i), (i - first) % 8, "u64 {i}");
            }
        }
        let mut u32s = Scratch::<u32>::new("u32s", 100).expect("scratch");
        let d = u32s.dst();
        for i in 0..90 {
            // SAFETY: as above.
            let at = unsafe { d.ptr_at(i) } as usize;
            assert_eq!(d.past_line(i), (at % 64) / 4, "u32 {i}");
        }
    }
}
