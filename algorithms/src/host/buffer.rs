//! Per-thread staging buffers, reused across calls: a block's gathered
//! input or staged output lives here while it is in cache. Nothing is
//! allocated per dispatch once a thread has its buffers. They are
//! block-sized and typed, so the host pool (granule-views' `space`, which
//! keeps freed large allocations for their page faults) does not hold
//! them.

use granule_views::Element;
use std::any::TypeId;
use std::cell::RefCell;
use std::mem::MaybeUninit;

/// 64 bytes, 64-byte aligned: the unit buffers are made of. Its bytes are
/// `MaybeUninit` because a buffer holds values of any element type,
/// whose padding bytes are uninitialised.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([MaybeUninit<u8>; 64]);

/// A line of zeros.
const ZEROS: Line = Line([MaybeUninit::new(0); 64]);

/// A buffer and the element type whose values it holds (`None`: zeros).
struct Buf {
    lines: Vec<Line>,
    holds: Option<TypeId>,
}

thread_local! {
    /// Buffers not in use on this thread. A nested algorithm call (from a
    /// predicate) finds them taken and makes its own.
    static POOL: RefCell<Vec<Buf>> = const { RefCell::new(Vec::new()) };
}

/// How many idle buffers a thread keeps.
const IDLE_PER_THREAD: usize = 4;

/// Calls `f` with a buffer of `len` elements of `T`, from this thread's
/// pool when one is free. Its contents are valid values of `T` (zeros, or
/// what an earlier call left), never bytes of another type.
pub(crate) fn with_buffer<T: Element, R>(len: usize, f: impl FnOnce(&mut [T]) -> R) -> R {
    let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
    if len == 0 {
        // Nothing to hold: no buffer of the pool is taken (and cleared).
        return f(&mut []);
    }
    if size == 0 || align > 64 {
        // Zero-sized or over-aligned elements: a plain vector of zeros.
        let mut v = vec![T::zeroed(); len];
        return f(&mut v);
    }
    let bytes = len.checked_mul(size).expect("buffer size overflows usize");
    let lines = bytes.div_ceil(64);
    let tid = TypeId::of::<T>();
    let mut buf = POOL
        .with(|p| take(&mut p.borrow_mut(), tid, lines))
        .unwrap_or(Buf {
            lines: Vec::new(),
            holds: None,
        });
    if buf.holds != Some(tid) || buf.lines.len() < lines {
        // Bytes of another type may not be valid values of T: zero them.
        buf.lines.clear();
        buf.lines.resize(lines.max(buf.lines.capacity()), ZEROS);
        buf.holds = Some(tid);
    }
    // SAFETY: the lines hold at least `len * size` bytes, 64-byte aligned
    // (so aligned for T, align <= 64), all either zero or written as T
    // values by an earlier holder of this buffer (`holds` says so); the
    // buffer is owned by this call, so the slice is unique.
    let slice = unsafe { std::slice::from_raw_parts_mut(buf.lines.as_mut_ptr().cast::<T>(), len) };
    let r = f(slice);
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < IDLE_PER_THREAD {
            p.push(buf);
        }
    });
    r
}

/// The idle buffer that already holds `T` values and is large enough,
/// else the last one returned: a sort alternating buffers of two types
/// would otherwise clear a large buffer for every use.
fn take(pool: &mut Vec<Buf>, tid: TypeId, lines: usize) -> Option<Buf> {
    let fits = |b: &Buf| b.holds == Some(tid) && b.lines.len() >= lines;
    match pool.iter().rposition(fits) {
        Some(k) => Some(pool.remove(k)),
        None => pool.pop(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_and_never_reinterpreted() {
        let p1 = with_buffer::<u64, _>(100, |b| {
            b[7] = 42;
            b.as_ptr() as usize
        });
        let (p2, v) = with_buffer::<u64, _>(50, |b| (b.as_ptr() as usize, b[7]));
        assert_eq!(
            (p1, v),
            (p2, 42),
            "same type: the buffer comes back as left"
        );
        let v = with_buffer::<bool, _>(100, |b| b.iter().any(|&x| x));
        assert!(!v, "another type sees zeros");
        let nested = with_buffer::<u8, _>(10, |a| {
            with_buffer::<u8, _>(10, |b| a.as_ptr() != b.as_ptr())
        });
        assert!(nested);
    }

    #[test]
    fn each_type_finds_its_own_buffer_again() {
        with_buffer::<u64, _>(1000, |a| {
            a[5] = 9;
            with_buffer::<u32, _>(10, |_| ());
        });
        // The u32 buffer came back last; a u32 use takes it, not the
        // u64 one, which then keeps what it held.
        with_buffer::<u32, _>(10, |_| ());
        let v = with_buffer::<u64, _>(1000, |a| a[5]);
        assert_eq!(v, 9, "the u64 buffer was taken by u32 and cleared");
    }
}
