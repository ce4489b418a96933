//! The cost model of a halo-exchanged 7-point stencil (see the crate
//! docs' "Cost model" section for the projection it gives).

/// A network: per-message latency and per-link bandwidth (full duplex).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Network {
    /// Bytes per second one rank can send (and, at once, receive).
    pub bandwidth: f64,
    /// Seconds per message, independent of its size.
    pub latency: f64,
}

/// The largest block of a decomposition: `global / dims` rounded up.
pub fn largest_block(global: [usize; 3], dims: [usize; 3]) -> [usize; 3] {
    std::array::from_fn(|a| global[a].div_ceil(dims[a]))
}

/// Faces a rank with neighbours on every cut side exchanges per step:
/// two per axis that is cut (one when that axis has two blocks, the
/// ends of the line having one neighbour; the model takes the worst
/// rank, which is an inner one when the axis has more than two blocks).
pub fn faces(dims: [usize; 3]) -> usize {
    dims.iter()
        .map(|&d| match d {
            1 => 0,
            2 => 1,
            _ => 2,
        })
        .sum()
}

/// Bytes the busiest rank sends per step (and receives as many): each of
/// its faces, the largest block's, of `element` bytes per cell.
///
/// ```
/// use granule_mpi::cost_model::halo_bytes;
/// // 128^3 on 2 ranks: one 128 x 128 face of f64 each way.
/// assert_eq!(halo_bytes([128; 3], [2, 1, 1], 8), 128 * 128 * 8);
/// // 1024^3 on 4 x 4 x 4 ranks: six 256 x 256 faces.
/// assert_eq!(halo_bytes([1024; 3], [4, 4, 4], 8), 6 * 256 * 256 * 8);
/// ```
pub fn halo_bytes(global: [usize; 3], dims: [usize; 3], element: usize) -> usize {
    let b = largest_block(global, dims);
    let face = |a: usize| (0..3).filter(|&o| o != a).map(|o| b[o]).product::<usize>();
    (0..3)
        .map(|a| {
            let sides = faces([dims[a], 1, 1]);
            sides * face(a) * element
        })
        .sum()
}

/// The projected parallel efficiency of one step: compute time over
/// compute plus exchange plus the amortized reduction, with no overlap
/// (the lower bound). `cell_rate` is cell updates per second per rank,
/// `reduce_every` the steps between two ⟨T⟩ reductions (an allreduce of
/// one value: 2 log2(P) latencies).
///
/// ```
/// use granule_mpi::cost_model::{efficiency, Network};
/// let net = Network { bandwidth: 12.5e9, latency: 2e-6 };
/// let e = efficiency([1024; 3], [16, 16, 16], 8, 2e9, net, 100);
/// assert!((0.82..0.83).contains(&e), "{e}");
/// ```
pub fn efficiency(
    global: [usize; 3],
    dims: [usize; 3],
    element: usize,
    cell_rate: f64,
    network: Network,
    reduce_every: usize,
) -> f64 {
    let b = largest_block(global, dims);
    let compute = b.iter().product::<usize>() as f64 / cell_rate;
    let messages = faces(dims) as f64;
    let exchange =
        messages * network.latency + halo_bytes(global, dims, element) as f64 / network.bandwidth;
    let ranks = dims.iter().product::<usize>() as f64;
    let reduce = 2.0 * ranks.log2() * network.latency / reduce_every.max(1) as f64;
    compute / (compute + exchange + reduce)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NET: Network = Network {
        bandwidth: 12.5e9,
        latency: 2e-6,
    };

    /// The figures the crate docs quote.
    #[test]
    fn the_documented_projection() {
        let table: Vec<(usize, usize, f64)> = [4, 8, 16]
            .map(|d| {
                let dims = [d; 3];
                let e = efficiency([1024; 3], dims, 8, 2e9, NET, 100);
                (d * d * d, halo_bytes([1024; 3], dims, 8), e)
            })
            .to_vec();
        assert_eq!(table[0].1, 3_145_728);
        assert_eq!(table[1].1, 786_432);
        assert_eq!(table[2].1, 196_608);
        let percent: Vec<u32> = table
            .iter()
            .map(|t| (t.2 * 1000.0).round() as u32)
            .collect();
        assert_eq!(percent, [970, 933, 823]);
    }

    #[test]
    fn an_uncut_grid_exchanges_nothing() {
        assert_eq!(halo_bytes([64; 3], [1, 1, 1], 8), 0);
        assert_eq!(efficiency([64; 3], [1, 1, 1], 8, 1e9, NET, 10), 1.0);
        assert_eq!(halo_bytes([64, 64, 64], [1, 3, 1], 8), 2 * 64 * 64 * 8);
    }
}
