//! Checking the ranges draws are taken from.

use super::RandomError;
use std::fmt::Debug;

fn invalid<T: Debug>(label: &str, start: T, end: T, reason: &'static str) -> RandomError {
    RandomError::InvalidRange {
        label: label.to_string(),
        start: format!("{start:?}"),
        end: format!("{end:?}"),
        reason,
    }
}

/// An integer range `start..end` must hold a value (`ordered`: start < end).
pub(super) fn check_int<T: Debug>(
    label: &str,
    start: T,
    end: T,
    ordered: bool,
) -> Result<(), RandomError> {
    if ordered {
        Ok(())
    } else {
        Err(invalid(
            label,
            start,
            end,
            "the range is empty (start must be below end)",
        ))
    }
}

/// A float range `start..end` must be finite, non-empty, and of a finite
/// width (`width_finite`), or `start + width * u` would not be uniform in it.
pub(super) fn check_float<T: Debug + PartialOrd + Copy>(
    label: &str,
    start: T,
    end: T,
    width_finite: bool,
) -> Result<(), RandomError> {
    // A NaN bound compares as None, so it fails here too.
    if start.partial_cmp(&end) != Some(std::cmp::Ordering::Less) {
        return Err(invalid(
            label,
            start,
            end,
            "the range is empty or not a number (start must be below end)",
        ));
    }
    if !width_finite {
        return Err(invalid(
            label,
            start,
            end,
            "the bounds or the width end - start are not finite",
        ));
    }
    Ok(())
}
