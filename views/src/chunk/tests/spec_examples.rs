//! Every example of the chunk maps' specification (SeGuRu's maps, whose
//! formulas their types' docs give), with the owner tables the
//! specification prints for them.

use crate::chunk::{
    owner_table, owners, ChunkError, Map2D, MapContinuousLinear, MapLinear, ReshapeMap,
};
use crate::reshape_map;

/// Parses a table as the spec prints it: `[0,0,_,1]`.
fn table(s: &str) -> Vec<Option<usize>> {
    s.trim_matches(['[', ']'])
        .split(',')
        .map(|e| e.trim().parse().ok())
        .collect()
}

/// 4 threads, 3 locals each, 12 elements: the setting of the reshape examples.
fn reshape_table(map: Result<ReshapeMap, ChunkError>) -> Vec<Option<usize>> {
    owner_table(map.expect("valid reshape map"), 4, 3, 12)
}

#[test]
fn map_linear_examples() {
    assert_eq!(
        owner_table(MapLinear::new(2), 4, 8, 8),
        table("[0, 0, 1, 1, 2, 2, 3, 3]")
    );
    assert_eq!(
        owner_table(MapLinear::new(1), 4, 8, 8),
        table("[0, 1, 2, 3, 0, 1, 2, 3]")
    );
}

#[test]
fn map_continuous_linear_owns_one_block_per_thread() {
    for width in 1..5 {
        let o = owner_table(MapContinuousLinear::new(width), 4, width + 2, 4 * width + 3);
        for (e, owner) in o.iter().enumerate() {
            assert_eq!(
                *owner,
                (e < 4 * width).then_some(e / width),
                "width {width}, element {e}"
            );
        }
    }
}

#[test]
fn map_2d_example() {
    let locals: Vec<[usize; 2]> = (0..2).flat_map(|b| (0..3).map(move |a| [a, b])).collect();
    let o = owners(&Map2D::new(5), [2, 2, 1], &locals, 20).unwrap();
    let (x_of, y_of) = (|g: usize| g % 2, |g: usize| g / 2);
    let columns = |x: usize| {
        (0..5)
            .filter(|&c| o[c].map(x_of) == Some(x))
            .collect::<Vec<_>>()
    };
    assert_eq!(columns(0), [0, 2, 4]);
    assert_eq!(columns(1), [1, 3]);
    for row in 0..4 {
        assert!(
            (0..5).all(|c| o[row * 5 + c].map(y_of) == Some(row % 2)),
            "row {row}"
        );
    }
}

#[test]
fn reshape_named_examples() {
    assert_eq!(
        reshape_table(reshape_map!([3] | [4] => layout: [i0, t0])),
        table("[0,0,0,1,1,1,2,2,2,3,3,3]")
    );
    assert_eq!(
        reshape_table(reshape_map!([3] | [4] => layout: [t0, i0])),
        table("[0,1,2,3,0,1,2,3,0,1,2,3]")
    );
    assert_eq!(
        reshape_table(reshape_map!([3] | [2, 2] => layout: [i0, t1, t0])),
        table("[0,0,0,2,2,2,1,1,1,3,3,3]")
    );
    assert_eq!(
        reshape_table(reshape_map!([3] | [2, 2] => layout: [t1, i0, t0])),
        table("[0,2,0,2,0,2,1,3,1,3,1,3]")
    );
    assert_eq!(
        reshape_table(reshape_map!([3] | [2, 2] => layout: [i0, -t0, t1])),
        table("[1,1,1,0,0,0,3,3,3,2,2,2]")
    );
    assert_eq!(
        reshape_table(reshape_map!([3] | [2, (2, 1)] => layout: [i0, t0, t1])),
        table("[0,0,0,1,1,1,_,_,_,_,_,_]")
    );
    assert_eq!(
        reshape_table(reshape_map!([(3, 4)] | [2, 2] => layout: [i0, t0, t1])),
        table("[0,0,0,_,1,1,1,_,2,2,2,_]")
    );
}

#[test]
fn reshape_numeric_spelling_is_equivalent() {
    assert_eq!(
        reshape_map!([3] | [2, 2] => layout: [i0, t1, t0]),
        reshape_map!([3] | [2, 2] => layout: [0, 2, 1])
    );
    assert_eq!(
        reshape_table(reshape_map!([3] | [4] => layout: [1, 0])),
        table("[0,1,2,3,0,1,2,3,0,1,2,3]")
    );
    assert_eq!(
        reshape_table(reshape_map!([3] | [2, 2] => layout: [2, 0, 1])),
        table("[0,2,0,2,0,2,1,3,1,3,1,3]")
    );
    assert_eq!(
        reshape_table(reshape_map!([3] | [2, 2] => layout: [0, -1, 2])),
        table("[1,1,1,0,0,0,3,3,3,2,2,2]")
    );
    assert_eq!(
        reshape_table(reshape_map!([3] | [2, (2, 1)] => layout: [0, 1, 2])),
        table("[0,0,0,1,1,1,_,_,_,_,_,_]")
    );
    assert_eq!(
        reshape_table(reshape_map!([(3, 4)] | [2, 2] => layout: [0, 1, 2])),
        table("[0,0,0,_,1,1,1,_,2,2,2,_]")
    );
}

#[test]
fn reshape_minus_zero_reverses_the_first_dim() {
    let expected = table("[0,0,0,1,1,1,2,2,2,3,3,3]");
    let reversed = reshape_table(reshape_map!([3] | [4] => layout: [-0, t0]));
    assert_eq!(
        reversed, expected,
        "owners are unchanged; the order inside each block flips"
    );
    let map = reshape_map!([3] | [4] => layout: [-0, 1]).unwrap();
    let t = crate::chunk::ThreadIds::linear(4, 1).unwrap();
    use crate::chunk::ChunkMap;
    assert_eq!(
        (0..3).map(|k| map.map(k, &t)).collect::<Vec<_>>(),
        [Some(5), Some(4), Some(3)]
    );
    assert_eq!(map, reshape_map!([3] | [4] => layout: [-i0, t0]).unwrap());
}

#[test]
fn reshape_runtime_extents_offset_and_defaults() {
    let (d, n) = (1 + 2, 2);
    let runtime = reshape_map!([d] | [n, (n, n - 1)] => layout: [i0, t0, t1]);
    assert_eq!(reshape_table(runtime), table("[0,0,0,1,1,1,_,_,_,_,_,_]"));
    let shifted = reshape_map!([3] | [2] => offset: d * 2, layout: [i0, t0]).unwrap();
    assert_eq!(
        owner_table(shifted, 2, 3, 12),
        table("[_,_,_,_,_,_,0,0,0,1,1,1]")
    );
    assert_eq!(
        reshape_map!([3] | [4]),
        reshape_map!([3] | [4] => layout: [i0, t0], offset: 0)
    );
}

#[test]
fn reshape_zero_extents_are_runtime_errors() {
    let zero = std::hint::black_box(0);
    assert_eq!(
        reshape_map!([zero] | [4]),
        Err(ChunkError::ZeroExtent {
            side: "local",
            dim: 0
        })
    );
    assert_eq!(
        reshape_map!([3] | [2, (2, zero)]),
        Err(ChunkError::ZeroExtent {
            side: "thread",
            dim: 1
        })
    );
}
