//! Who holds which element: the caller's 2-D block-cyclic layout (ScaLAPACK descriptor) and the
//! library's tile layout over the same grid.
//!
//! Both are products of two 1-D maps, one per dimension. For sub(A) = A(IA:IA+N-1, JA:JA+N-1),
//! index s (0-based inside sub(A)) of a dimension with block `mb`, source process `src` over
//! `p` processes is global index g = IA-1+s, held by process `(src + g/mb) mod p` at local index
//! `(g/mb/p)·mb + g mod mb`. The library's tiles are `nb`×`nb` blocks of sub(A), dealt cyclically
//! starting at the process that holds sub(A)'s first element, so when `nb` equals the caller's
//! block size (and sub(A) starts on a block boundary) every tile is already where its owner is.

/// The map of one dimension of sub(A): for each index, the process holding it and (in the
/// caller's layout) its local index.
pub struct Axis {
    pub owner: Vec<usize>,
    pub local: Vec<usize>,
}

impl Axis {
    /// The caller's block-cyclic map of `n` indices starting at global index `first` (0-based).
    pub fn block_cyclic(n: usize, first: usize, mb: usize, src: usize, p: usize) -> Axis {
        let mut owner = Vec::with_capacity(n);
        let mut local = Vec::with_capacity(n);
        for s in 0..n {
            let g = first + s;
            owner.push((src + g / mb) % p);
            local.push((g / mb / p) * mb + g % mb);
        }
        Axis { owner, local }
    }

    /// The library's tile map: tile t = s / nb on process [`deal`]`(t, origin, p, reflect)`.
    /// Local indices are not used (tiles are stored one by one).
    pub fn tiles(n: usize, nb: usize, origin: usize, p: usize, reflect: bool) -> Axis {
        let owner = (0..n).map(|s| deal(s / nb, origin, p, reflect)).collect();
        Axis { owner, local: Vec::new() }
    }

    /// The indices this process (`me`) holds, in increasing order.
    pub fn held_by(&self, me: usize) -> Vec<usize> {
        (0..self.owner.len()).filter(|&s| self.owner[s] == me).collect()
    }
}

/// The process of tile `t` of a dimension dealt over `p` processes from `origin`: cyclically,
/// (origin + t) mod p; or `reflect`ed, back and forth (0, 1, …, p−1, p−1, …, 1, 0, 0, 1, …
/// from the origin), which gives every process one tile of each pair of mirrored positions.
/// The work of a triangular inverse on tile column j (and row i) shrinks with the distance from
/// the diagonal's start, so the cyclic deal gives process 0 the most: 54.8% of PDTRTRI's flops
/// on a 1×2 grid with 16 tile columns (traced), against about 50.5% reflected.
pub fn deal(t: usize, origin: usize, p: usize, reflect: bool) -> usize {
    if !reflect {
        return (origin + t) % p;
    }
    let u = (origin + t) % (2 * p);
    if u < p {
        u
    } else {
        2 * p - 1 - u
    }
}

/// For tiles dealt by `owner` (the process of each tile, in order), each tile's index among its
/// process's tiles: the local tile row or column where that process keeps it.
pub fn local_tiles(owner: &[usize]) -> Vec<usize> {
    let mut seen: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    owner
        .iter()
        .map(|&o| {
            let k = seen.entry(o).or_insert(0);
            *k += 1;
            *k - 1
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_cyclic_matches_numroc_and_indxg2p() {
        use crate::api::scalapack::{indxg2p, numroc};
        let (m, mb, p) = (23usize, 4usize, 3usize);
        for src in 0..p {
            let ax = Axis::block_cyclic(m, 0, mb, src, p);
            for s in 0..m {
                assert_eq!(ax.owner[s] as i32, indxg2p(s as i32 + 1, mb as i32, src as i32, p as i32));
            }
            for me in 0..p {
                let held = ax.held_by(me);
                assert_eq!(held.len() as i32, numroc(m as i32, mb as i32, me as i32, src as i32, p as i32));
                // Local indices of a process are 0, 1, 2, ... in global order.
                for (k, &s) in held.iter().enumerate() {
                    assert_eq!(ax.local[s], k);
                }
            }
        }
    }

    #[test]
    fn reflected_deals_go_back_and_forth_and_balance_a_triangle() {
        let owners: Vec<usize> = (0..8).map(|t| deal(t, 0, 2, true)).collect();
        assert_eq!(owners, [0, 1, 1, 0, 0, 1, 1, 0]);
        let owners: Vec<usize> = (0..7).map(|t| deal(t, 1, 3, true)).collect();
        assert_eq!(owners, [1, 2, 2, 1, 0, 0, 1]);
        assert_eq!((0..5).map(|t| deal(t, 1, 2, false)).collect::<Vec<_>>(), [1, 0, 1, 0, 1]);
        assert_eq!(local_tiles(&[0, 1, 1, 0, 0, 1]), [0, 0, 1, 1, 2, 2]);
        // Work (nt − j)² per tile column j of 16, dealt over 2: cyclic 816 : 680, reflected
        // 756 : 740.
        let share = |reflect: bool| {
            let mut w = [0usize; 2];
            for j in 0..16 {
                w[deal(j, 0, 2, reflect)] += (16 - j) * (16 - j);
            }
            w
        };
        assert_eq!(share(false), [816, 680]);
        assert_eq!(share(true), [756, 740]);
    }
}
