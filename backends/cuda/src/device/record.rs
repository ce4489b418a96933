//! The host's copy of the header's `ErrorRecord`: the first device-side
//! failure of a launch (bounds, division, assertion, chunk precondition),
//! which both devices decode the same way into a [`Fault`].
//!
//! Where the record lives differs: the emulator reads each module's own
//! `granule_error`; a GPU gives every module it loads the device address
//! of one record in mapped pinned host memory (through the module's
//! `granule_error_at`), which the host reads as plain memory after a
//! synchronization, without a copy out of device memory (which a lost
//! context could not make). The message is therefore copied into the
//! record's `text` by the device, not read through the `message` pointer.

use crate::device_api::Fault;

/// Bytes of the record's message copy, its NUL included.
pub(crate) const TEXT_BYTES: usize = 512;
/// `flags`: the first failing thread has written and fenced the record.
pub(crate) const RECORD_COMPLETE: u32 = 1;
/// `flags`: `text` holds only the first `TEXT_BYTES - 1` bytes of the
/// message.
pub(crate) const RECORD_TRUNCATED: u32 = 2;

/// The header's `ErrorRecord` (error.cuh), field for field.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct ErrorRecord {
    pub(crate) code: u32,
    pub(crate) view: u32,
    pub(crate) rank: u64,
    pub(crate) index: u64,
    pub(crate) extent: u64,
    /// The message's device address; informative only (the host reads
    /// `text`).
    pub(crate) message: u64,
    pub(crate) args: [u64; 6],
    pub(crate) kinds: [u32; 6],
    pub(crate) nargs: u32,
    pub(crate) flags: u32,
    pub(crate) text: [u8; TEXT_BYTES],
}

// The header static_asserts the same size; the tests below check every
// offset against the header with the host compiler.
const _: () = assert!(std::mem::size_of::<ErrorRecord>() == 632);

impl ErrorRecord {
    /// No failure: all zero, as the device finds it.
    pub(crate) const EMPTY: ErrorRecord = ErrorRecord {
        code: 0,
        view: 0,
        rank: 0,
        index: 0,
        extent: 0,
        message: 0,
        args: [0; 6],
        kinds: [0; 6],
        nargs: 0,
        flags: 0,
        text: [0; TEXT_BYTES],
    };

    /// Reads the record at `at` and zeroes it for the next launch.
    ///
    /// # Safety
    /// `at` points to a live, aligned record that no kernel writes during
    /// the call. Volatile because kernels wrote it behind the compiler's back.
    pub(crate) unsafe fn take(at: *mut ErrorRecord) -> ErrorRecord {
        // SAFETY: per the contract; every bit pattern is a valid record.
        let r = unsafe { std::ptr::read_volatile(at) };
        // SAFETY: as above; all-zero is the empty record.
        unsafe { std::ptr::write_volatile(at, ErrorRecord::EMPTY) };
        r
    }

    /// What the kernel recorded.
    pub(crate) fn fault(&self) -> Fault {
        match self.code {
            0 => Fault::Trap,
            1 => Fault::OutOfBounds {
                view: self.view,
                dim: self.rank,
                index: self.index,
                extent: self.extent,
            },
            2 => Fault::DivisionByZero,
            3 => Fault::DivisionOverflow,
            4 => Fault::ClampBounds,
            5 => Fault::Assertion {
                line: self.rank,
                message: self.message_text(),
            },
            6 => Fault::ChunkPrecondition {
                view: self.view,
                id: self.index,
                count: self.extent,
            },
            7 => Fault::MapSlotEmpty {
                view: self.view,
                index: self.index,
                capacity: self.extent,
            },
            8 => Fault::SegmentBounds {
                view: self.view,
                segment: self.rank,
                index: self.index,
                len: self.extent,
            },
            9 => Fault::ArrayIndex {
                index: self.index,
                len: self.extent,
            },
            c => Fault::Unknown(c),
        }
    }

    /// The assertion's message, formatted with its recorded values.
    fn message_text(&self) -> String {
        let len = self.text.iter().position(|&b| b == 0).unwrap_or(TEXT_BYTES);
        if len == 0 {
            return "assertion failed".to_string();
        }
        let text = String::from_utf8_lossy(&self.text[..len]);
        let n = (self.nargs as usize).min(self.args.len());
        let mut out = format_message(&text, &self.args[..n], &self.kinds[..n]);
        if self.flags & RECORD_TRUNCATED != 0 {
            out.push_str(&format!(
                " [...: the device keeps the first {} bytes of a message]",
                TEXT_BYTES - 1
            ));
        }
        if self.flags & RECORD_COMPLETE == 0 {
            out.push_str(" [the kernel stopped before the record was complete]");
        }
        out
    }
}

/// A message template recorded with values (see the header's
/// `ErrorRecord`): `{}` and `{:?}` take the values in order, `{{` and `}}`
/// are braces, anything else is text; a placeholder without a value stays.
fn format_message(template: &str, args: &[u64], kinds: &[u32]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut values = args.iter().zip(kinds);
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        let (debug, len) = if rest.starts_with("{}") {
            (false, 2)
        } else if rest.starts_with("{:?}") {
            (true, 4)
        } else if rest.starts_with("{{") || rest.starts_with("}}") {
            out.push(c);
            rest = &rest[2..];
            continue;
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        match values.next() {
            Some((&bits, &kind)) => out.push_str(&format_value(bits, kind, debug)),
            None => out.push_str(&rest[..len]),
        }
        rest = &rest[len..];
    }
    out
}

/// One recorded value as Rust's `{}` (or `{:?}`) would show it.
fn format_value(bits: u64, kind: u32, debug: bool) -> String {
    let float = f64::from_bits(bits);
    match (kind, debug) {
        (1, _) => bits.to_string(),
        (2, _) => (bits as i64).to_string(),
        // An f32 widened to f64 exactly; narrowing gives it back.
        (3, false) => (float as f32).to_string(),
        (3, true) => format!("{:?}", float as f32),
        (4, false) => float.to_string(),
        (4, true) => format!("{float:?}"),
        (5, _) => (bits != 0).to_string(),
        _ => format!("<value {bits:#x} of kind {kind}>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn templates_take_values_in_order() {
        let args = [(-3i64) as u64, 0.5f64.to_bits(), 1, 7];
        let kinds = [2, 4, 5, 1];
        assert_eq!(
            format_message("a {} b {:?} {{c}} {} {:x} {} {}", &args, &kinds),
            "a -3 b 0.5 {c} true {:x} 7 {}"
        );
        assert_eq!(format_message("{}", &[1.0f64.to_bits()], &[4]), "1");
        assert_eq!(format_message("{:?}", &[1.0f64.to_bits()], &[4]), "1.0");
        let tenth = f64::from(0.1f32).to_bits();
        assert_eq!(format_message("{}", &[tenth], &[3]), "0.1");
    }

    /// Every field's offset, as the header must have it.
    fn offsets() -> [(&'static str, usize); 12] {
        [
            ("code", offset_of!(ErrorRecord, code)),
            ("view", offset_of!(ErrorRecord, view)),
            ("rank", offset_of!(ErrorRecord, rank)),
            ("index", offset_of!(ErrorRecord, index)),
            ("extent", offset_of!(ErrorRecord, extent)),
            ("message", offset_of!(ErrorRecord, message)),
            ("args", offset_of!(ErrorRecord, args)),
            ("kinds", offset_of!(ErrorRecord, kinds)),
            ("nargs", offset_of!(ErrorRecord, nargs)),
            ("flags", offset_of!(ErrorRecord, flags)),
            ("text", offset_of!(ErrorRecord, text)),
            ("sizeof", std::mem::size_of::<ErrorRecord>()),
        ]
    }

    #[test]
    fn the_older_fields_keep_their_offsets() {
        // The layout before the message copy (120 bytes, `flags` was tail
        // padding): a record written by an older header still decodes.
        let want = [0, 4, 8, 16, 24, 32, 40, 88, 112, 116, 120, 632];
        let got: Vec<usize> = offsets().iter().map(|&(_, o)| o).collect();
        assert_eq!(got, want);
    }

    /// The header's record as the host C++ compiler (the emulator's) lays
    /// it out: every offset, and the size, equal Rust's. NVRTC has no
    /// `offsetof`; the header's own `static_assert` checks the size there,
    /// and both compilers follow the same LP64 layout rules.
    #[test]
    fn the_header_lays_out_the_record_as_rust_does() {
        // The shim includes <stddef.h>, which defines offsetof.
        let mut probe = format!("{}\n{}\n", crate::emu::SHIM, crate::device::HEADER);
        for (field, offset) in offsets() {
            let expr = if field == "sizeof" {
                "sizeof(granule::ErrorRecord)".to_string()
            } else {
                format!("offsetof(granule::ErrorRecord, {field})")
            };
            probe.push_str(&format!(
                "static_assert({expr} == {offset}, \"{field}\");\n"
            ));
        }
        let cxx = std::env::var("GRANULE_EMU_CXX").unwrap_or_else(|_| "g++".into());
        let dir = std::env::temp_dir().join(format!("granule-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("probe.cpp");
        std::fs::write(&file, probe).unwrap();
        let out = std::process::Command::new(&cxx)
            .args(["-std=c++20", "-fsyntax-only", "-w"])
            .arg(&file)
            .output()
            .unwrap_or_else(|e| panic!("`{cxx}` (the emulator's compiler) cannot run: {e}"));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn assertion(text: &[u8], flags: u32) -> String {
        let mut r = ErrorRecord::EMPTY;
        r.code = 5;
        r.rank = 7;
        r.flags = flags;
        r.text[..text.len()].copy_from_slice(text);
        match r.fault() {
            Fault::Assertion { line: 7, message } => message,
            f => panic!("{f:?}"),
        }
    }

    #[test]
    fn assertions_read_the_copied_text() {
        assert_eq!(assertion(b"", RECORD_COMPLETE), "assertion failed");
        assert_eq!(
            assertion(b"k.rs:3:5: boom", RECORD_COMPLETE),
            "k.rs:3:5: boom"
        );
        assert_eq!(
            assertion(b"k.rs:3:5: bo", 0),
            "k.rs:3:5: bo [the kernel stopped before the record was complete]"
        );
        let long = [b'x'; TEXT_BYTES - 1];
        let cut = assertion(&long, RECORD_COMPLETE | RECORD_TRUNCATED);
        assert!(cut.starts_with(&"x".repeat(TEXT_BYTES - 1)), "{cut}");
        assert!(
            cut.ends_with("keeps the first 511 bytes of a message]"),
            "{cut}"
        );
    }

    #[test]
    fn array_index_reads_as_rusts_panic() {
        let mut r = ErrorRecord::EMPTY;
        r.code = 9;
        r.index = 5;
        r.extent = 3;
        assert_eq!(r.fault(), Fault::ArrayIndex { index: 5, len: 3 });
        assert!(r
            .fault()
            .to_string()
            .starts_with("index out of bounds: the len is 3 but the index is 5"));
    }

    #[test]
    fn take_reads_then_clears() {
        let mut r = ErrorRecord::EMPTY;
        r.code = 2;
        // SAFETY: `r` is a live local record nothing else touches.
        let got = unsafe { ErrorRecord::take(&mut r) };
        assert_eq!(got.fault(), Fault::DivisionByZero);
        assert_eq!(r.code, 0);
    }
}
