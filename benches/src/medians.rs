//! Each group's medians as text, with every benchmark's ratios to the
//! group's baselines: the figures `benches/RESULTS.md` quotes.

use crate::results::Medians;

/// The baselines a group's figures are quoted against, and how a ratio to
/// each reads: "of bound" is the bound's time over the benchmark's (at
/// most 1 for what the bound bounds), the others are speedups.
pub const BASELINES: [(&str, Ratio); 5] = [
    ("bound_streaming_copy_2_threads", Ratio::OfBound),
    ("sequential_loop", Ratio::Speedup("loop")),
    ("slice_sort_unstable", Ratio::Speedup("sort_unstable")),
    (
        "slice_sort_unstable_by_key_pairs",
        Ratio::Speedup("sort_unstable_by_key"),
    ),
    (
        "slice_sort_unstable_by_total_cmp",
        Ratio::Speedup("sort_unstable_by(total_cmp)"),
    ),
];

/// How a ratio to a baseline is written.
#[derive(Clone, Copy, Debug)]
pub enum Ratio {
    /// `of bound 0.990`.
    OfBound,
    /// `8.00x sort_unstable`, with the baseline's short name.
    Speedup(&'static str),
}

impl Ratio {
    fn show(self, ratio: f64) -> String {
        match self {
            Ratio::OfBound => format!("of bound {ratio:.3}"),
            Ratio::Speedup(name) => format!("{ratio:.2}x {name}"),
        }
    }
}

/// The lines of the table: each group's id, then one line per benchmark
/// (sorted by name) with its median in ms and its ratios to the group's
/// other baselines.
///
/// ```
/// use granule_bench::medians::table;
/// let groups = [("sort_u32_2^24".to_string(), [
///     ("granule_sort".to_string(), 43.5e6),
///     ("slice_sort_unstable".to_string(), 348e6),
/// ].into())].into();
/// assert_eq!(table(&groups), [
///     "sort_u32_2^24",
///     "  granule_sort                                   43.5 ms  8.00x sort_unstable",
///     "  slice_sort_unstable                             348 ms",
/// ]);
/// ```
pub fn table(groups: &Medians) -> Vec<String> {
    let mut lines = Vec::new();
    for (group, functions) in groups {
        lines.push(group.clone());
        for (name, &ns) in functions {
            let mut line = format!("  {name:40} {:>10} ms", significant(ns / 1e6, 4));
            for (base, ratio) in BASELINES {
                match functions.get(base) {
                    Some(&base_ns) if base != name => {
                        line.push_str("  ");
                        line.push_str(&ratio.show(base_ns / ns));
                    }
                    _ => {}
                }
            }
            lines.push(line);
        }
    }
    lines
}

/// `x` to `digits` significant digits without trailing zeros, in
/// scientific notation when its exponent is below -4 or at least `digits`
/// (C's and Python's `%g`).
pub fn significant(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = digits.max(1);
    // The exponent after rounding to `digits` digits (9.9996 is 10.00).
    let sci = format!("{:.*e}", digits - 1, x);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} writes an exponent");
    let exp: i32 = exp.parse().expect("{:e} writes an integer exponent");
    if exp < -4 || exp >= digits as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_zeros(mantissa), exp.abs())
    } else {
        let decimals = (digits as i32 - 1 - exp) as usize;
        trim_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

/// A decimal without the zeros after its point, nor the point if nothing
/// is left after it.
fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits_as_percent_g() {
        // Python's '%.4g' % x for each.
        let cases = [
            (43.5, "43.5"),
            (348.0, "348"),
            (0.5, "0.5"),
            (1.0, "1"),
            (9.99961, "10"),
            (1234.4, "1234"),
            (12_345.6, "1.235e+04"),
            (0.000_123_44, "0.0001234"),
            (0.000_012_34, "1.234e-05"),
            (-2.5, "-2.5"),
            (0.0, "0"),
        ];
        for (x, want) in cases {
            assert_eq!(significant(x, 4), want, "{x}");
        }
    }

    #[test]
    fn ratios_to_every_baseline_but_itself() {
        let groups: Medians = [(
            "scan_exclusive_i64_2^27".to_string(),
            [
                ("bound_streaming_copy_2_threads".to_string(), 99.0e6),
                ("granule_exclusive_scan".to_string(), 100.0e6),
                ("sequential_loop".to_string(), 250.0e6),
            ]
            .into(),
        )]
        .into();
        let lines = table(&groups);
        assert_eq!(lines.len(), 4);
        assert!(lines[1].ends_with("99 ms  2.53x loop"), "{}", lines[1]);
        assert!(
            lines[2].ends_with("100 ms  of bound 0.990  2.50x loop"),
            "{}",
            lines[2]
        );
        assert!(lines[3].ends_with("250 ms  of bound 0.396"), "{}", lines[3]);
    }
}
