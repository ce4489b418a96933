//! Scratch memory: a per-worker arena, reused across dispatches, carved
//! into per-team and per-thread regions at levels 0 and 1.

use crate::error::ScratchError;
use granule_views::{Element, ViewMut};
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
    ///
    /// # Panics
    /// If the allocation fails, naming the size (rather than aborting).
    pub fn reserve(&mut self, bytes: usize) {
        let lines = bytes.div_ceil(64);
        if self.lines.len() < lines {
            if let Err(e) = self.lines.try_reserve_exact(lines - self.lines.len()) {
                panic!("team scratch arena: cannot allocate {bytes} bytes: {e}");
            }
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

    /// A zero-filled View of `extents` carved from the region, aligned
    /// for `T` whatever its alignment.
    ///
    /// The region's base is 64-byte aligned. Up to 64, aligning the offset
    /// aligns the address. Above, the padding depends on the address, so
    /// the worst case (`align - 64` bytes) is counted and consumed: whether
    /// a request fits does not depend on where the arena was allocated.
    pub(crate) fn view<T: Element, const R: usize>(
        &self,
        level: usize,
        scope: &'static str,
        extents: [usize; R],
    ) -> Result<ViewMut<'_, T, R>, ScratchError> {
        let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
        let used = self.used.get();
        let overflow = || ScratchError::SizeOverflow {
            level,
            scope,
            extents: extents.to_vec(),
            elem_bytes: size,
            align,
        };
        let count = extents
            .iter()
            .try_fold(1usize, |a, &e| a.checked_mul(e))
            .ok_or_else(overflow)?;
        let bytes = count.checked_mul(size).ok_or_else(overflow)?;
        let label = if scope == "team" {
            "team_scratch"
        } else {
            "thread_scratch"
        };
        if bytes == 0 {
            // SAFETY: a dangling pointer is non-null and aligned for T,
            // which is all a slice of zero bytes (no elements, or ZSTs) needs.
            let slice = unsafe {
                std::slice::from_raw_parts_mut(std::ptr::NonNull::<T>::dangling().as_ptr(), count)
            };
            return Ok(ViewMut::from_slice_mut(label, slice, extents)
                .expect("a compact slice of exactly the View's size"));
        }
        let slack = align - align.min(64);
        let rel = used
            .checked_next_multiple_of(align.min(64))
            .ok_or_else(overflow)?;
        let reserved_end = rel
            .checked_add(slack)
            .and_then(|e| e.checked_add(bytes))
            .ok_or_else(overflow)?;
        if reserved_end > self.size {
            return Err(ScratchError::TooLarge {
                level,
                scope,
                requested: reserved_end - used,
                available: self.size - used,
            });
        }
        // rel <= size, so this address lies inside the region; from a
        // 64-byte aligned base at a multiple of 64 (when align > 64), the
        // next multiple of `align` is at most `slack` further.
        let addr = self.base as usize + rel;
        let pad = (align - addr % align) % align;
        debug_assert!(pad <= slack, "pad {pad} above slack {slack}");
        let start = rel + pad;
        self.used.set(reserved_end);
        // SAFETY: `start..start + bytes` lies inside `rel..reserved_end`,
        // which is inside the region (checked above) that the constructor
        // lends exclusively for 'a; bump allocation never hands the same
        // bytes out twice, since `used` moves past `reserved_end`. The
        // address base + start is a multiple of align_of::<T>() (`pad`).
        // Zeroing makes every byte initialized, and the all-zero pattern
        // is a valid T (`Element: Zeroable`).
        let slice = unsafe {
            let p = self.base.add(start);
            std::ptr::write_bytes(p, 0, bytes);
            std::slice::from_raw_parts_mut(p.cast::<T>(), count)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, granule_views::Zeroable)]
    #[bytemuck(crate = "granule_views::bytemuck")]
    #[repr(C, align(128))]
    struct Wide([u8; 128]);

    #[derive(Clone, Copy, Debug, PartialEq, granule_views::Zeroable)]
    #[bytemuck(crate = "granule_views::bytemuck")]
    #[repr(C, align(256))]
    struct Wider(u64);

    /// A 512-byte aligned buffer, so a region can start at a chosen
    /// distance (a multiple of 64) from a 512-byte boundary.
    #[repr(C, align(512))]
    struct Buf([u8; 4096]);

    /// Scratch aligned to `min(align, 64)` would give a type aligned to
    /// 128 a misaligned reference half the time. Regions
    /// at every 64-byte phase of a 512-byte boundary, several allocations
    /// in a row with small ones in between: every View is aligned, holds
    /// its own bytes, and the same requests fit in each phase.
    #[test]
    fn views_honour_alignment_above_64_at_every_base_phase() {
        let mut buf = Box::new(Buf([0; 4096]));
        let mut used_per_phase = vec![];
        for phase in (0..512).step_by(64) {
            // SAFETY: phase + 2048 <= 4096, so the region is inside `buf`,
            // 64-byte aligned, and used only here.
            let region = unsafe { Region::new(buf.0.as_mut_ptr().add(phase), 2048) };
            let mut wides = vec![];
            let mut tags = region.view::<u8, 1>(0, "team", [1]).unwrap();
            tags[0] = 1;
            for n in [1, 3, 1] {
                let mut v = region.view::<Wide, 1>(0, "team", [n]).unwrap();
                assert_eq!(v.as_ptr() as usize % 128, 0, "phase {phase}, {n} Wide");
                for i in 0..n {
                    v[i] = Wide([wides.len() as u8 + 2; 128]);
                }
                wides.push(v);
                let mut gap = region.view::<u8, 1>(0, "team", [3]).unwrap();
                gap.fill(0xff);
            }
            let wider = region.view::<Wider, 2>(0, "team", [2, 1]).unwrap();
            assert_eq!(wider.as_ptr() as usize % 256, 0, "phase {phase}");
            for (k, v) in wides.iter().enumerate() {
                assert!(
                    v.to_vec().iter().all(|w| w.0 == [k as u8 + 2; 128]),
                    "phase {phase}"
                );
            }
            assert_eq!(tags[0], 1);
            used_per_phase.push(region.used.get());
        }
        assert!(
            used_per_phase.iter().all(|&u| u == used_per_phase[0]),
            "the space used depends on the base address: {used_per_phase:?}"
        );
    }

    #[test]
    fn padding_is_counted_and_overflow_is_typed() {
        let mut buf = Box::new(Buf([0; 4096]));
        // SAFETY: 256 bytes inside `buf`, 64-byte aligned, used only here.
        let region = unsafe { Region::new(buf.0.as_mut_ptr().add(64), 256) };
        // 128 bytes of Wide need up to 64 bytes of padding: 192 fit in 256.
        assert!(region.view::<Wide, 1>(1, "thread", [1]).is_ok());
        let e = region.view::<Wide, 1>(1, "thread", [1]).unwrap_err();
        assert_eq!(
            e,
            ScratchError::TooLarge {
                level: 1,
                scope: "thread",
                requested: 192,
                available: 64
            }
        );
        let e = region
            .view::<u64, 2>(0, "team", [usize::MAX, 2])
            .unwrap_err();
        assert!(
            matches!(e, ScratchError::SizeOverflow { elem_bytes: 8, .. }),
            "{e}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("team scratch level 0") && msg.contains("overflows usize"),
            "{msg}"
        );
        // Zero-byte Views take no room and still come out aligned.
        let empty = region.view::<Wide, 1>(0, "team", [0]).unwrap();
        assert_eq!(empty.as_ptr() as usize % 128, 0);
        assert_eq!(region.used.get(), 192);
    }
}
