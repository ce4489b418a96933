//! The typed errors of a [`super::Device`].

use super::LaunchId;
use crate::nvrtc::Excerpt;
use std::fmt;
use std::time::Duration;

/// A CUDA thread: its block and its thread index within the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadId {
    /// `blockIdx` (x, y, z).
    pub block: (u32, u32, u32),
    /// `threadIdx` (x, y, z).
    pub thread: (u32, u32, u32),
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (bx, by, bz) = self.block;
        let (tx, ty, tz) = self.thread;
        write!(f, "block ({bx}, {by}, {bz}) thread ({tx}, {ty}, {tz})")
    }
}

/// Which memory a race is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    /// Global memory: a device buffer (`buffer` is its address, `offset`
    /// the byte within it; both 0 when no live buffer holds the address).
    Global {
        /// The device address of the buffer.
        buffer: u64,
        /// The byte offset in the buffer.
        offset: u64,
    },
    /// Dynamic shared memory (`extern __shared__`), at a byte offset.
    DynamicShared {
        /// The byte offset from the start of dynamic shared memory.
        offset: u64,
    },
    /// A static `__shared__` variable.
    StaticShared,
}

/// How two accesses conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceKind {
    /// Two plain (non-atomic, non-volatile) writes of the same bytes with
    /// no barrier between them, or from two blocks of one launch.
    WriteWrite,
    /// A plain read of bytes another thread of the block wrote since the
    /// last barrier.
    ReadAfterWrite,
    /// A plain write of bytes another thread of the block read since the
    /// last barrier (`first` is that reader): the reader may see either
    /// value on a GPU.
    WriteAfterRead,
}

/// A data race found by the emulator's checked mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    /// The conflict.
    pub kind: RaceKind,
    /// Where.
    pub memory: MemoryKind,
    /// The address of the second access.
    pub address: u64,
    /// Its size in bytes.
    pub bytes: u32,
    /// The thread whose access came first: the earlier writer, or for
    /// [`RaceKind::WriteAfterRead`] a thread that read the bytes.
    pub first: ThreadId,
    /// The thread whose access conflicted with it.
    pub second: ThreadId,
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            RaceKind::WriteWrite => "two unsynchronized writes",
            RaceKind::ReadAfterWrite => "a read of another thread's write with no barrier between",
            RaceKind::WriteAfterRead => {
                "a write of bytes another thread read with no barrier between"
            }
        };
        write!(f, "{what} of {} bytes at {:#x} (", self.bytes, self.address)?;
        match self.memory {
            MemoryKind::Global { buffer: 0, .. } => write!(f, "global memory")?,
            MemoryKind::Global { buffer, offset } => write!(
                f,
                "global memory, byte {offset} of the buffer at {buffer:#x}"
            )?,
            MemoryKind::DynamicShared { offset } => {
                write!(f, "dynamic shared memory, byte {offset}")?
            }
            MemoryKind::StaticShared => write!(f, "a static __shared__ variable")?,
        }
        write!(f, "): first {}, then {}", self.first, self.second)
    }
}

/// A failure the kernel recorded in `granule_error` before it trapped
/// (see the header's `ErrorRecord`), or a bare trap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// An index past a View's extent (`view` is the View's id;
    /// `0xffff_ffff` is a scratch request, with `dim` the level, `index`
    /// the bytes requested and `extent` the bytes left).
    OutOfBounds {
        /// The View's id.
        view: u32,
        /// The dimension.
        dim: u64,
        /// The index.
        index: u64,
        /// The extent.
        extent: u64,
    },
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// `MIN / -1`.
    DivisionOverflow,
    /// `clamp` with `lo > hi`.
    ClampBounds,
    /// A failed `assert!` (the message names file, line and kernel, then
    /// the condition or the custom message with its scalar arguments).
    Assertion {
        /// The source line.
        line: u64,
        /// The assertion's message.
        message: String,
    },
    /// A chunk map's precondition failed for the scope (`id` of `count`).
    ChunkPrecondition {
        /// The View's id.
        view: u32,
        /// The thread id in the scope.
        id: u64,
        /// The scope's thread count.
        count: u64,
    },
    /// `key_at`/`value_at` of a map slot that holds no entry (`view` is
    /// the id of the map's states View, which carries the map's label).
    MapSlotEmpty {
        /// The id of the map's states View.
        view: u32,
        /// The slot.
        index: u64,
        /// The map's capacity.
        capacity: u64,
    },
    /// An index past the length of a range kernel's `Segment`.
    SegmentBounds {
        /// The written View's id.
        view: u32,
        /// The segment (its work item).
        segment: u64,
        /// The index.
        index: u64,
        /// The segment's length.
        len: u64,
    },
    /// An index past the length of a kernel's local array, argument or
    /// constant (a `[T; N]` value; Rust panics with the same words).
    ArrayIndex {
        /// The index.
        index: u64,
        /// The array's length.
        len: u64,
    },
    /// A trap with no record.
    Trap,
    /// A record with a code this version does not know.
    Unknown(u32),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::OutOfBounds {
                view: 0xffff_ffff,
                dim,
                index,
                extent,
            } => write!(
                f,
                "a scratch request of {index} bytes at level {dim} does not fit ({extent} bytes left)"
            ),
            Fault::OutOfBounds {
                view,
                dim,
                index,
                extent,
            } => write!(
                f,
                "index {index} out of bounds in dimension {dim} (extent {extent}) of View #{view}"
            ),
            Fault::DivisionByZero => write!(f, "integer division by zero"),
            Fault::DivisionOverflow => write!(f, "integer division overflow (MIN / -1)"),
            Fault::ClampBounds => write!(f, "clamp called with lo > hi"),
            Fault::Assertion { message, .. } => write!(f, "{message}"),
            Fault::ChunkPrecondition { view, id, count } => write!(
                f,
                "chunk map precondition failed for View #{view} (thread {id} of {count})"
            ),
            Fault::MapSlotEmpty {
                view,
                index,
                capacity,
            } => write!(
                f,
                "slot {index} of the UnorderedMap of View #{view} holds no entry (capacity {capacity})"
            ),
            Fault::SegmentBounds {
                view,
                segment,
                index,
                len,
            } => write!(
                f,
                "index {index} is past the {len} elements of segment {segment} of View #{view}"
            ),
            Fault::ArrayIndex { index, len } => write!(
                f,
                "index out of bounds: the len is {len} but the index is {index} (an array value)"
            ),
            Fault::Trap => write!(f, "the kernel trapped"),
            Fault::Unknown(code) => write!(f, "device error code {code}"),
        }
    }
}

/// Why a device operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// The device cannot be used at all (no driver, no host compiler).
    Unavailable {
        /// Which device.
        device: String,
        /// Why, and what to install.
        reason: String,
    },
    /// Device memory could not be allocated.
    Alloc {
        /// The bytes requested.
        bytes: usize,
        /// Why.
        reason: String,
    },
    /// A buffer that is not a live allocation of this device.
    UnknownBuffer {
        /// Its address.
        address: u64,
    },
    /// A copy past the end of a buffer.
    OutOfRange {
        /// Which side of which copy.
        what: &'static str,
        /// The byte offset.
        offset: usize,
        /// The bytes copied.
        bytes: usize,
        /// The buffer's size.
        buffer_bytes: usize,
    },
    /// The generated source did not compile.
    Compile {
        /// The module's label.
        label: String,
        /// The compiler and its options.
        command: String,
        /// The compiler's output.
        log: String,
        /// The source around each line the log reports an error on.
        excerpts: Vec<Excerpt>,
    },
    /// A compiled module could not be loaded.
    Load {
        /// The module's label.
        label: String,
        /// Why.
        reason: String,
    },
    /// The module has no such entry point.
    UnknownEntry {
        /// The module's label.
        label: String,
        /// The entry asked for.
        entry: String,
        /// The entries the module has.
        entries: Vec<String>,
    },
    /// A launch the device refuses before running anything: geometry past
    /// the limits, arguments that do not match the entry's parameters, a
    /// module of another device.
    InvalidLaunch {
        /// The module's label.
        label: String,
        /// The entry.
        entry: String,
        /// Why.
        reason: String,
    },
    /// The kernel faulted (bounds, division, assertion, trap).
    Fault {
        /// The module's label.
        label: String,
        /// The entry.
        entry: String,
        /// What the kernel recorded.
        fault: Fault,
    },
    /// Checked mode found a data race; the launch stopped.
    Race {
        /// The module's label.
        label: String,
        /// The entry.
        entry: String,
        /// The two accesses (boxed: the rest of the enum is small).
        race: Box<Race>,
    },
    /// Threads of a block wait for each other forever (a barrier or warp
    /// collective that some threads never reach), or a divergent barrier
    /// or collective, undefined on a GPU: threads of one block waiting at
    /// different `__syncthreads` calls, or at one that others exited
    /// without reaching, or lanes meeting at different warp collectives.
    Deadlock {
        /// The module's label.
        label: String,
        /// The entry.
        entry: String,
        /// Who waits where.
        detail: String,
    },
    /// The launch ran past the device's time limit.
    Timeout {
        /// The module's label.
        label: String,
        /// The entry.
        entry: String,
        /// The limit.
        limit: Duration,
        /// Where it was.
        detail: String,
    },
    /// Any other launch failure.
    Launch {
        /// The module's label.
        label: String,
        /// The entry.
        entry: String,
        /// Why.
        reason: String,
    },
    /// A launch failed after [`Device::launch`](super::Device::launch) had
    /// queued it. Launches are asynchronous, so the failure is reported by
    /// a later synchronization ([`Device::synchronize_for`](super::Device::synchronize_for)
    /// of a launch it concerns), which names the launch.
    Queued {
        /// The launch, by its number on the device.
        launch: LaunchId,
        /// Launches issued after it on the device, which did not run.
        skipped: u64,
        /// What the launch reported (a fault, a race, ..).
        error: Box<DeviceError>,
    },
    /// A dispatch of a Cuda space failed on the device after the dispatch
    /// had returned: the space's next synchronization point (a fence, a
    /// reduction or scan result, a copy between host and device) reports
    /// it, naming the dispatch.
    Dispatch {
        /// The dispatch's label.
        label: String,
        /// What it ran: "kernel `axpy`", or a driver of a crate above and
        /// its element functions ("driver `copy_if` with `odd`").
        kernel: String,
        /// The device's name.
        device: String,
        /// The labels of the dispatch's Views, by the id the device's
        /// errors give them (the first is View #1).
        views: Vec<String>,
        /// Launches issued after it on the device, which did not run.
        skipped: u64,
        /// What the device reported.
        error: Box<DeviceError>,
    },
    /// A dispatch of a Cuda space did not run: an earlier launch on its
    /// device (another space's, or a direct user's) failed, and the device
    /// ran nothing issued after it until its next synchronization. The
    /// space's next synchronization point reports it, naming the first
    /// such dispatch of the space.
    Skipped {
        /// The dispatch's label.
        label: String,
        /// What it ran (as [`DeviceError::Dispatch`]'s `kernel`).
        kernel: String,
        /// The device's name.
        device: String,
        /// The space's dispatches that did not run, this one the first.
        dispatches: u64,
        /// The failure that stopped them: a [`DeviceError::Queued`]
        /// naming the launch that failed.
        error: Box<DeviceError>,
    },
}

impl DeviceError {
    /// The device's own error: what a [`DeviceError::Queued`],
    /// [`DeviceError::Dispatch`] or [`DeviceError::Skipped`] report wraps,
    /// or the error itself.
    ///
    /// ```
    /// use granule_cuda::device_api::{DeviceError, Fault, LaunchId};
    /// let fault = DeviceError::Fault { label: "k".into(), entry: "e".into(), fault: Fault::Trap };
    /// let queued = DeviceError::Queued { launch: LaunchId(4), skipped: 0, error: Box::new(fault.clone()) };
    /// assert_eq!(queued.cause(), &fault);
    /// assert_eq!(fault.cause(), &fault);
    /// ```
    pub fn cause(&self) -> &DeviceError {
        match self {
            DeviceError::Queued { error, .. }
            | DeviceError::Dispatch { error, .. }
            | DeviceError::Skipped { error, .. } => error.cause(),
            other => other,
        }
    }

    /// Whether this is the report of queued work that failed or did not
    /// run ([`DeviceError::Queued`], [`DeviceError::Dispatch`],
    /// [`DeviceError::Skipped`]), which a synchronization gives, rather
    /// than the failure of the operation itself.
    ///
    /// ```
    /// use granule_cuda::device_api::{DeviceError, Fault, LaunchId};
    /// let fault = DeviceError::Fault { label: "k".into(), entry: "e".into(), fault: Fault::Trap };
    /// assert!(!fault.is_queued_failure());
    /// let queued = DeviceError::Queued { launch: LaunchId(4), skipped: 0, error: Box::new(fault) };
    /// assert!(queued.is_queued_failure());
    /// ```
    pub fn is_queued_failure(&self) -> bool {
        matches!(
            self,
            DeviceError::Queued { .. } | DeviceError::Dispatch { .. } | DeviceError::Skipped { .. }
        )
    }
}

/// The end of a report whose launch stopped the ones after it.
fn skipped_note(f: &mut fmt::Formatter<'_>, skipped: u64) -> fmt::Result {
    match skipped {
        0 => Ok(()),
        1 => write!(f, "; the 1 launch issued after it did not run"),
        n => write!(f, "; the {n} launches issued after it did not run"),
    }
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::Unavailable { device, reason } => {
                write!(f, "the {device} device is unavailable: {reason}")
            }
            DeviceError::Alloc { bytes, reason } => {
                write!(f, "device allocation of {bytes} bytes failed: {reason}")
            }
            DeviceError::UnknownBuffer { address } => write!(
                f,
                "the buffer at {address:#x} is not a live allocation of this device \
                 (freed already, or made by another device)"
            ),
            DeviceError::OutOfRange {
                what,
                offset,
                bytes,
                buffer_bytes,
            } => write!(
                f,
                "{what}: {bytes} bytes at offset {offset} do not fit in a buffer of {buffer_bytes} bytes"
            ),
            DeviceError::Compile {
                label,
                command,
                log,
                excerpts,
            } => {
                writeln!(f, "`{label}` failed to compile ({command})")?;
                writeln!(f, "{}", log.trim_end())?;
                for e in excerpts {
                    writeln!(f, "--> {label}.cu:{}", e.line)?;
                    write!(f, "{e}")?;
                }
                Ok(())
            }
            DeviceError::Load { label, reason } => {
                write!(f, "`{label}` compiled but could not be loaded: {reason}")
            }
            DeviceError::UnknownEntry {
                label,
                entry,
                entries,
            } => write!(
                f,
                "`{label}` has no entry point `{entry}`; it has: {}",
                entries.join(", ")
            ),
            DeviceError::InvalidLaunch {
                label,
                entry,
                reason,
            } => write!(f, "launch of `{label}` ({entry}) refused: {reason}"),
            DeviceError::Fault {
                label,
                entry,
                fault,
            } => write!(f, "kernel `{label}` ({entry}) failed: {fault}"),
            DeviceError::Race { label, entry, race } => {
                write!(f, "data race in kernel `{label}` ({entry}): {race}")
            }
            DeviceError::Deadlock {
                label,
                entry,
                detail,
            } => write!(f, "kernel `{label}` ({entry}) deadlocked: {detail}"),
            DeviceError::Timeout {
                label,
                entry,
                limit,
                detail,
            } => write!(
                f,
                "kernel `{label}` ({entry}) did not finish within {limit:?}: {detail}"
            ),
            DeviceError::Launch {
                label,
                entry,
                reason,
            } => write!(f, "launch of `{label}` ({entry}) failed: {reason}"),
            DeviceError::Queued {
                launch,
                skipped,
                error,
            } => {
                write!(f, "launch {launch} failed after it was queued: {error}")?;
                skipped_note(f, *skipped)
            }
            DeviceError::Dispatch {
                label,
                kernel,
                device,
                views,
                skipped,
                error,
            } => {
                let ids: Vec<String> = views
                    .iter()
                    .enumerate()
                    .map(|(k, l)| format!("{} = \"{l}\"", k + 1))
                    .collect();
                write!(
                    f,
                    "parallel dispatch \"{label}\" of {kernel} on Cuda ({device}) \
                     failed: {} (View ids: {})",
                    error.cause(),
                    ids.join(", ")
                )?;
                skipped_note(f, *skipped)
            }
            DeviceError::Skipped {
                label,
                kernel,
                device,
                dispatches,
                error,
            } => {
                write!(
                    f,
                    "parallel dispatch \"{label}\" of {kernel} on Cuda ({device}) did not run"
                )?;
                match dispatches.saturating_sub(1) {
                    0 => {}
                    1 => write!(f, ", nor did the 1 dispatch of its space after it")?,
                    n => write!(f, ", nor did the {n} dispatches of its space after it")?,
                }
                write!(f, ", because an earlier launch on the device failed: {error}")
            }
        }
    }
}

impl std::error::Error for DeviceError {}
