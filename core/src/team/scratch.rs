//! Scratch memory: a per-worker arena, reused across dispatches, carved
//! into per-team and per-thread regions at levels 0 and 1.

use crate::error::ScratchError;
use granule_views::{Pod, ViewMut};
use std::cell::Cell;
use std::marker::PhantomData;

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// A reusable, 64-byte aligned buffer that a worker lends to the teams it
/// runs. It grows when a policy needs more and never shrinks, so
/// dispatches after the first allocate nothing.
///
/// ```
/// use granule_core::team::ScratchArena;
/// let mut a = ScratchArena::default();
/// a.reserve(1000);
/// assert!(a.capacity() >= 1000);
/// ```
#[derive(Default)]
pub struct ScratchArena {
    lines: Vec<Line>,
}

impl std::fmt::Debug for ScratchArena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScratchArena")
            .field("capacity", &self.capacity())
            .finish()
    }
}

impl ScratchArena {
    /// Makes room for at least `bytes` bytes.
    pub fn reserve(&mut self, bytes: usize) {
        let lines = bytes.div_ceil(64);
        if self.lines.len() < lines {
            self.lines.resize(lines, Line([0; 64]));
        }
    }
    /// Bytes available.
    pub fn capacity(&self) -> usize {
        self.lines.len() * 64
    }
    pub(crate) fn base(&mut self) -> *mut u8 {
        self.lines.as_mut_ptr().cast()
    }
}

/// One scratch region of a team or thread: a bump allocator over bytes
/// borrowed from an arena for the duration of a team.
pub(crate) struct Region<'a> {
    base: *mut u8,
    size: usize,
    used: Cell<usize>,
    _arena: PhantomData<&'a mut [u8]>,
}

impl<'a> Region<'a> {
    /// # Safety
    /// `base..base+size` must be valid for reads and writes, 64-byte
    /// aligned, and accessed by nothing else for `'a`.
    pub(crate) unsafe fn new(base: *mut u8, size: usize) -> Self {
        Region {
            base,
            size,
            used: Cell::new(0),
            _arena: PhantomData,
        }
    }

    pub(crate) fn empty() -> Self {
        Region {
            base: std::ptr::NonNull::<Line>::dangling().as_ptr().cast(),
            size: 0,
            used: Cell::new(0),
            _arena: PhantomData,
        }
    }

    /// A zero-filled View of `extents` carved from the region.
    pub(crate) fn view<T: Pod, const R: usize>(
        &self,
        level: usize,
        scope: &'static str,
        extents: [usize; R],
    ) -> Result<ViewMut<'_, T, R>, ScratchError> {
        let align = std::mem::align_of::<T>().min(64);
        let start = self.used.get().next_multiple_of(align);
        let count = extents.iter().try_fold(1usize, |a, &e| a.checked_mul(e));
        let bytes = count.and_then(|c| c.checked_mul(std::mem::size_of::<T>()));
        let available = self.size - self.used.get();
        let err = |requested| ScratchError {
            level,
            scope,
            requested,
            available,
        };
        let (Some(count), Some(bytes)) = (count, bytes) else {
            return Err(err(usize::MAX));
        };
        let end = start
            .checked_add(bytes)
            .filter(|&e| e <= self.size)
            .ok_or(err(bytes + (start - self.used.get())))?;
        self.used.set(end);
        // SAFETY: `start..end` lies inside the region (checked above), which
        // the constructor lends exclusively for 'a; bump allocation never
        // hands the same bytes out twice; `start` is aligned for T since
        // the base is 64-byte aligned. Zeroing makes every byte initialized,
        // and the all-zero pattern is a valid T (Pod contract).
        let slice = unsafe {
            let p = self.base.add(start);
            std::ptr::write_bytes(p, 0, bytes);
            std::slice::from_raw_parts_mut(p.cast::<T>(), count)
        };
        let label = if scope == "team" {
            "team_scratch"
        } else {
            "thread_scratch"
        };
        Ok(ViewMut::from_slice_mut(label, slice, extents)
            .expect("a compact slice of exactly the View's size"))
    }
}

thread_local! {
    static WORKER_ARENA: std::cell::RefCell<Option<ScratchArena>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's reusable arena, grown to `bytes`. A nested
/// call on the same thread (a team kernel that dispatches teams) gets a
/// fresh arena instead, so no two teams ever share scratch.
pub fn with_worker_arena<R>(bytes: usize, f: impl FnOnce(&mut ScratchArena) -> R) -> R {
    let mut arena = WORKER_ARENA
        .with(|a| a.borrow_mut().take())
        .unwrap_or_default();
    arena.reserve(bytes);
    let result = f(&mut arena);
    WORKER_ARENA.with(|a| *a.borrow_mut() = Some(arena));
    result
}
