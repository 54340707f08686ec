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

    /// The library's tile map: tile t = s / nb on process (origin + t) mod p. Local indices are
    /// not used (tiles are stored one by one).
    pub fn tiles(n: usize, nb: usize, origin: usize, p: usize) -> Axis {
        let owner = (0..n).map(|s| (origin + s / nb) % p).collect();
        Axis { owner, local: Vec::new() }
    }

    /// The indices this process (`me`) holds, in increasing order.
    pub fn held_by(&self, me: usize) -> Vec<usize> {
        (0..self.owner.len()).filter(|&s| self.owner[s] == me).collect()
    }
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
}
