//! The typed error of an NVRTC compilation.

use std::fmt;

/// Lines of generated source shown around an error line.
const CONTEXT: usize = 3;

/// A window of the generated source around one `file(line): error` line of
/// the NVRTC log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excerpt {
    /// The failing line, 1-based.
    pub line: usize,
    /// `(line number, text)` of the failing line and its neighbours.
    pub lines: Vec<(usize, String)>,
}

impl Excerpt {
    /// The excerpt of `source` around 1-based `line`.
    pub(crate) fn around(source: &str, line: usize) -> Excerpt {
        let first = line.saturating_sub(CONTEXT).max(1);
        let lines = source
            .lines()
            .enumerate()
            .map(|(k, text)| (k + 1, text.to_string()))
            .skip(first - 1)
            .take(line + CONTEXT + 1 - first)
            .collect();
        Excerpt { line, lines }
    }
}

impl fmt::Display for Excerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, text) in &self.lines {
            let mark = if *n == self.line { ">" } else { " " };
            writeln!(f, "{mark}{n:6} | {text}")?;
        }
        Ok(())
    }
}

/// Why NVRTC could not produce PTX or a CUBIN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NvrtcError {
    /// `libnvrtc.so.12` could not be loaded.
    Missing,
    /// An NVRTC call failed outside compilation proper.
    Api {
        /// The NVRTC function.
        call: &'static str,
        /// NVRTC's result code, as text.
        code: String,
    },
    /// The source did not compile.
    Compile {
        /// The program name used in the log's `name(line)` prefixes.
        program: String,
        /// The options passed to NVRTC.
        options: Vec<String>,
        /// NVRTC's log.
        log: String,
        /// The generated source around each error line of the log.
        excerpts: Vec<Excerpt>,
    },
}

impl NvrtcError {
    /// A compilation failure, with excerpts for every `program(line): error`
    /// line of the log.
    pub(crate) fn compile(program: &str, options: &[String], log: String, source: &str) -> Self {
        let excerpts = error_lines(program, &log)
            .into_iter()
            .map(|line| Excerpt::around(source, line))
            .collect();
        NvrtcError::Compile {
            program: program.to_string(),
            options: options.to_vec(),
            log,
            excerpts,
        }
    }
}

/// The distinct line numbers of the log's `program(line): error` lines.
fn error_lines(program: &str, log: &str) -> Vec<usize> {
    let prefix = format!("{program}(");
    let mut lines: Vec<usize> = log
        .lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix(&prefix)?;
            let (num, tail) = rest.split_once(')')?;
            tail.contains("error").then(|| num.parse().ok())?
        })
        .collect();
    lines.dedup();
    lines
}

impl fmt::Display for NvrtcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NvrtcError::Missing => write!(
                f,
                "NVRTC (libnvrtc.so.12) could not be loaded: run scripts/install-nvrtc.sh \
                 and put the directory it prints on LD_LIBRARY_PATH"
            ),
            NvrtcError::Api { call, code } => write!(f, "NVRTC call {call} failed: {code}"),
            NvrtcError::Compile {
                program,
                options,
                log,
                excerpts,
            } => {
                writeln!(
                    f,
                    "NVRTC failed to compile {program} (options: {})",
                    options.join(" ")
                )?;
                writeln!(f, "{}", log.trim_end())?;
                for e in excerpts {
                    writeln!(f, "--> {program}:{}", e.line)?;
                    write!(f, "{e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for NvrtcError {}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "a\nb\nc\nd\ne\nf\ng\nh\n";

    #[test]
    fn excerpt_is_clamped_at_the_start_and_marks_the_line() {
        let e = Excerpt::around(SRC, 2);
        assert_eq!(e.lines.first().unwrap().0, 1);
        assert_eq!(e.lines.last().unwrap().0, 5);
        assert!(e.to_string().contains(">     2 | b"));
    }

    #[test]
    fn excerpt_is_clamped_at_the_end() {
        let e = Excerpt::around(SRC, 8);
        assert_eq!(
            e.lines.iter().map(|l| l.0).collect::<Vec<_>>(),
            vec![5, 6, 7, 8]
        );
    }

    #[test]
    fn error_lines_ignore_warnings_and_other_files() {
        let log = "k.cu(12): error: identifier \"x\" is undefined\n\
                   k.cu(3): warning #177-D: unused\n\
                   other.cu(5): error: nope\n\
                   k.cu(12): error: again\n\
                   k.cu(40): error: last\n";
        assert_eq!(error_lines("k.cu", log), vec![12, 40]);
    }

    #[test]
    fn display_shows_log_and_excerpt() {
        let err = NvrtcError::compile(
            "k.cu",
            &["-std=c++17".into()],
            "k.cu(4): error: bad\n".into(),
            SRC,
        );
        let text = err.to_string();
        assert!(text.contains("k.cu(4): error: bad"), "{text}");
        assert!(text.contains("--> k.cu:4"), "{text}");
        assert!(text.contains(">     4 | d"), "{text}");
    }
}
