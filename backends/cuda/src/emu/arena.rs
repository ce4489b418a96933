//! The emulator's global memory: one address range reserved for the
//! process, from which every emulator device allocates.
//!
//! One contiguous range makes "is this address global memory?" a single
//! comparison in the runtime's memory hooks, and gives checked mode a
//! shadow range beside it (32 bytes of shadow per 4-byte word) at a fixed
//! offset. Both are reserved `PROT_NONE` and made accessible per
//! allocation, so freed memory faults instead of being silently reused,
//! and untouched memory costs nothing.

use super::ffi;
use crate::device_api::DeviceError;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Allocation granularity: whole pages, so that protection is per buffer.
const PAGE: usize = 4096;
/// Shadow bytes per byte of global memory (runtime.cpp's 32-byte
/// `GlobalCell` per word: last writer, the phase's readers, footprint).
pub(crate) const SHADOW_RATIO: usize = 8;
/// Launch ids are 20 bits in the shadow cells; 0 means "never written".
const LAUNCH_IDS: u64 = (1 << 20) - 1;

struct Live {
    len: usize,
    requested: usize,
    owner: u64,
}

struct State {
    /// Free ranges: offset -> length.
    free: BTreeMap<usize, usize>,
    /// Allocations: offset -> what was given.
    live: BTreeMap<usize, Live>,
}

/// The reserved range and its allocator.
pub(crate) struct Arena {
    base: usize,
    bytes: usize,
    shadow: usize,
    state: Mutex<State>,
    launches: AtomicU64,
    /// The barrier phases handed out so far (runtime.cpp's `next_phase`
    /// counts them, from every module, through [`Arena::phase_counter`]).
    phases: AtomicU64,
    /// runtime.cpp's `StackPool`: the process's fiber stacks, shared by
    /// every module (see [`Arena::stack_pool`]).
    stacks: Box<[AtomicU64; STACK_POOL_WORDS]>,
}

/// `sizeof(StackPool)` in runtime.cpp, in u64s: a lock and a count, then
/// 16 slots of a base address and a capacity.
const STACK_POOL_WORDS: usize = 1 + 2 * 16;

static ARENA: OnceLock<Result<Arena, String>> = OnceLock::new();

/// The process's arena, reserved on first use.
pub(crate) fn arena() -> Result<&'static Arena, DeviceError> {
    ARENA
        .get_or_init(Arena::reserve)
        .as_ref()
        .map_err(|reason| DeviceError::Unavailable {
            device: "emulator".into(),
            reason: reason.clone(),
        })
}

fn ptr(addr: usize) -> *mut c_void {
    std::ptr::with_exposed_provenance_mut(addr)
}

impl Arena {
    /// Reserves global memory and its shadow, trying smaller sizes where
    /// the address space is limited (`ulimit -v`).
    fn reserve() -> Result<Arena, String> {
        for gib in [64usize, 16, 4, 1] {
            let bytes = gib << 30;
            let total = bytes * (1 + SHADOW_RATIO);
            // SAFETY: a fresh anonymous PROT_NONE mapping at an address of
            // the kernel's choosing; it overlaps nothing and is never
            // unmapped (the arena lives for the process).
            let m = unsafe {
                ffi::mmap(
                    std::ptr::null_mut(),
                    total,
                    ffi::PROT_NONE,
                    ffi::MAP_PRIVATE | ffi::MAP_ANONYMOUS | ffi::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if m as isize == -1 {
                continue;
            }
            let base = m.expose_provenance();
            return Ok(Arena {
                base,
                bytes,
                shadow: base + bytes,
                state: Mutex::new(State {
                    free: BTreeMap::from([(0, bytes)]),
                    live: BTreeMap::new(),
                }),
                launches: AtomicU64::new(0),
                phases: AtomicU64::new(0),
                stacks: Box::new([const { AtomicU64::new(0) }; STACK_POOL_WORDS]),
            });
        }
        Err("could not reserve address space for the emulator's global memory".into())
    }

    /// The first address of global memory.
    pub(crate) fn base(&self) -> usize {
        self.base
    }

    /// The size of global memory.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The address of the process's barrier-phase counter, which the
    /// runtime increments atomically (a phase names a block between two
    /// barriers in the shadow's reader records, so it is unique across
    /// launches and modules).
    pub(crate) fn phase_counter(&self) -> u64 {
        self.phases.as_ptr().expose_provenance() as u64
    }

    /// The address of the process's pool of fiber stacks (runtime.cpp's
    /// `StackPool`, zeroed here, then only touched by the runtime under its
    /// lock): modules share it, so the stacks a process maps stay few.
    pub(crate) fn stack_pool(&self) -> u64 {
        self.stacks.as_ptr().expose_provenance() as u64
    }

    /// The first address of the shadow.
    pub(crate) fn shadow(&self) -> usize {
        self.shadow
    }

    fn state(&self) -> parking_lot::MutexGuard<'_, State> {
        // A panic while holding the lock leaves the maps consistent (every
        // update is a single insert or remove), which is what makes a
        // non-poisoning lock right here.
        self.state.lock()
    }

    /// Makes `[offset, offset + len)` and its shadow accessible or not.
    fn protect(&self, offset: usize, len: usize, prot: i32) -> Result<(), String> {
        for (at, n) in [
            (self.base + offset, len),
            (self.shadow + offset * SHADOW_RATIO, len * SHADOW_RATIO),
        ] {
            // SAFETY: the range lies inside the arena's own mapping.
            if unsafe { ffi::mprotect(ptr(at), n, prot) } != 0 {
                return Err(format!(
                    "mprotect failed: {}",
                    std::io::Error::last_os_error()
                ));
            }
        }
        Ok(())
    }

    /// `bytes` zeroed bytes for device `owner`; returns the address.
    pub(crate) fn alloc(&self, bytes: usize, owner: u64) -> Result<usize, DeviceError> {
        let err = |reason: String| DeviceError::Alloc { bytes, reason };
        let len = bytes
            .max(1)
            .checked_next_multiple_of(PAGE)
            .ok_or_else(|| err("the size overflows".into()))?;
        let mut st = self.state();
        let (&at, &free_len) = st.free.iter().find(|(_, &l)| l >= len).ok_or_else(|| {
            err(format!(
                "the emulator's global memory ({} GiB) has no free range that large",
                self.bytes >> 30
            ))
        })?;
        self.protect(at, len, ffi::PROT_READ | ffi::PROT_WRITE)
            .map_err(err)?;
        st.free.remove(&at);
        if free_len > len {
            st.free.insert(at + len, free_len - len);
        }
        st.live.insert(
            at,
            Live {
                len,
                requested: bytes,
                owner,
            },
        );
        Ok(self.base + at)
    }

    /// Releases the allocation at `addr`; its pages read as zero again when
    /// reused.
    pub(crate) fn free(&self, addr: usize, owner: u64) -> Result<(), DeviceError> {
        let mut st = self.state();
        let at = addr.wrapping_sub(self.base);
        match st.live.get(&at) {
            Some(l) if l.owner == owner => {}
            _ => {
                return Err(DeviceError::UnknownBuffer {
                    address: addr as u64,
                })
            }
        }
        let Some(live) = st.live.remove(&at) else {
            unreachable!("checked above");
        };
        for (p, n) in [
            (self.base + at, live.len),
            (self.shadow + at * SHADOW_RATIO, live.len * SHADOW_RATIO),
        ] {
            // SAFETY: the range is the freed allocation (or its shadow)
            // inside the arena; dropping its pages is what freeing means.
            unsafe { ffi::madvise(ptr(p), n, ffi::MADV_DONTNEED) };
        }
        // A failure to re-protect only loses the fault on use-after-free.
        let _ = self.protect(at, live.len, ffi::PROT_NONE);
        let (mut start, mut len) = (at, live.len);
        if let Some((&prev, &plen)) = st.free.range(..at).next_back() {
            if prev + plen == at {
                st.free.remove(&prev);
                start = prev;
                len += plen;
            }
        }
        if let Some(&nlen) = st.free.get(&(at + live.len)) {
            st.free.remove(&(at + live.len));
            len += nlen;
        }
        st.free.insert(start, len);
        Ok(())
    }

    /// The requested size of the live allocation of `owner` at `addr`.
    pub(crate) fn size_of(&self, addr: usize, owner: u64) -> Result<usize, DeviceError> {
        match self.state().live.get(&addr.wrapping_sub(self.base)) {
            Some(l) if l.owner == owner => Ok(l.requested),
            _ => Err(DeviceError::UnknownBuffer {
                address: addr as u64,
            }),
        }
    }

    /// The allocation holding `addr`: its address and the offset in it.
    pub(crate) fn locate(&self, addr: usize) -> Option<(usize, usize)> {
        let at = addr.checked_sub(self.base)?;
        let st = self.state();
        let (&start, live) = st.live.range(..=at).next_back()?;
        (at < start + live.len).then_some((self.base + start, at - start))
    }

    /// The pointer for `len` bytes at `offset` of the live allocation at
    /// `addr`, after checking the range.
    pub(crate) fn range(
        &self,
        what: &'static str,
        addr: usize,
        owner: u64,
        offset: usize,
        len: usize,
    ) -> Result<*mut u8, DeviceError> {
        let size = self.size_of(addr, owner)?;
        crate::device_api::check_range(what, size, offset, len)?;
        Ok(ptr(addr + offset).cast())
    }

    /// A fresh launch id for the shadow cells. When the ids wrap, every
    /// shadow cell is cleared, so no cell can name a launch that reused
    /// its id.
    pub(crate) fn next_launch(&self) -> u64 {
        let n = self.launches.fetch_add(1, Ordering::Relaxed);
        let id = n % LAUNCH_IDS + 1;
        if id == 1 && n != 0 {
            let st = self.state();
            for (&at, live) in &st.live {
                // SAFETY: the shadow of a live allocation, inside the
                // arena's mapping; dropping its pages zeroes the cells.
                unsafe {
                    ffi::madvise(
                        ptr(self.shadow + at * SHADOW_RATIO),
                        live.len * SHADOW_RATIO,
                        ffi::MADV_DONTNEED,
                    )
                };
            }
        }
        id
    }
}
