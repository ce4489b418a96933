//! A tour of Views: layouts, subviews, deep_copy, mirrors and atomics.
//! It checks its own results and exits non-zero if any is wrong.

use granule::prelude::*;

fn main() -> Result<(), ViewError> {
    // A 4x6 row-major matrix and a column-major copy of it.
    let a = View2::<f64>::from_fn("A", [4, 6], |[i, j]| (10 * i + j) as f64)?;
    let mut at = View2::<f64, LayoutLeft>::zeros("A_left", [4, 6])?;
    deep_copy(&mut at, &a)?;
    assert_eq!(at.as_slice().unwrap()[1], 10.0, "column-major memory");

    // Row 2 keeps LayoutRight; column 3 becomes strided.
    let row = a.subview((2, ALL))?;
    let col = a.subview((ALL, 3))?;
    println!("row 2    = {:?} (stride {})", row.to_vec(), row.stride(0));
    println!("column 3 = {:?} (stride {})", col.to_vec(), col.stride(0));
    assert_eq!(row.to_vec(), vec![20.0, 21.0, 22.0, 23.0, 24.0, 25.0]);
    assert_eq!(col.to_vec(), vec![3.0, 13.0, 23.0, 33.0]);

    // Errors name what went wrong.
    let err = a.subview((ALL, 4..9)).unwrap_err();
    println!("error: {err}");

    // A histogram filled from two threads through atomics.
    let mut hist = View1::<u64>::zeros("hist", 8)?;
    let h = hist.atomic()?;
    std::thread::scope(|s| {
        for t in 0..2 {
            s.spawn(move || {
                (0..80_000u64)
                    .filter(|i| i % 2 == t)
                    .for_each(|i| h.add((i % 8) as usize, 1))
            });
        }
    });
    println!("histogram = {:?}", hist.to_vec());
    assert!(hist.to_vec().iter().all(|&c| c == 10_000));

    let m = create_mirror_view(&hist)?;
    assert!(m.is_same(), "host Views mirror themselves");
    println!("views tour: all checks passed");
    Ok(())
}
