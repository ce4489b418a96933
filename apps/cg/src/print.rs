//! Numbers and reports as miniFE prints them.
//!
//! ```
//! use granule_cg::print::g6;
//! assert_eq!(g6(182.69912), "182.699");
//! assert_eq!(g6(4.7e-7), "4.7e-07");
//! assert_eq!(g6(0.000123456789), "0.000123457");
//! assert_eq!(g6(2.0), "2");
//! ```

/// `v` as a C++ stream writes a `double` by default (`%g`, six
/// significant digits), so that residual lines compare as text.
pub fn g6(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` writes an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` writes an integer exponent");
    if (-4..6).contains(&exp) {
        let decimals = (5 - exp) as usize;
        trim(&format!("{v:.decimals$}")).to_string()
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    }
}

/// Drops a fraction's trailing zeros, and its point if nothing is left.
fn trim(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::g6;

    #[test]
    fn g6_writes_what_a_cpp_stream_writes() {
        for (v, want) in [
            (1.0e-15, "1e-15"),
            (2.71828459, "2.71828"),
            (123456.7, "123457"),
            (1234567.0, "1.23457e+06"),
            (-0.5, "-0.5"),
            (9.9999996, "10"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
        ] {
            assert_eq!(g6(v), want, "{v}");
        }
    }
}
