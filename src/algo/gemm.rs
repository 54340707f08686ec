//! C ← α·op(A)·op(B) + β·C on tiles (DGEMM's tile path, used with devices): one task per C tile
//! and chunk of the inner dimension, each a [`Op::Gemm`] reading a row panel of op(A) and a
//! column panel of op(B). With one chunk (the usual case: the inner size fits a device's memory
//! with room to spare) each C tile is one task that reads one tile of A (all of op(A)'s rows of
//! that tile row) and one of B; with several, a C tile's tasks form a chain (the first applies β,
//! the others accumulate). Where each task runs is the runtime's business (the product's
//! allocation, [`crate::runtime::alloc`]); the generator only states the work.

use crate::graph::{Graph, Op, Spec, TileId, Tiles};
use crate::kernels::Trans;
use crate::scalar::Coef;

/// A product to generate: op flags, scalars, and the inner dimension's chunk widths.
#[derive(Clone, Debug)]
pub struct Product {
    pub ta: Trans,
    pub tb: Trans,
    pub alpha: Coef,
    pub beta: Coef,
    /// Width of each chunk of the inner dimension (k), in order; they sum to k.
    pub chunks: Vec<usize>,
}

/// Submits the product's tasks to `g`, whose matrix is C: `a(i, kk)` names the tile of A holding
/// op(A)'s tile row i, chunk kk; `b(kk, j)` the tile of B holding op(B)'s chunk kk of tile
/// column j. Tiles in column-major order of C, each C tile's chunks in order.
pub fn generate(
    g: &mut impl Graph,
    p: &Product,
    a: impl Fn(usize, usize) -> TileId,
    b: impl Fn(usize, usize) -> TileId,
) {
    let t = g.tiling().clone();
    for j in 0..t.nt() {
        for i in 0..t.mt() {
            for (kk, &k) in p.chunks.iter().enumerate() {
                let beta = if kk == 0 { p.beta } else { Coef::from(1.0) };
                let op = Op::Gemm {
                    ta: p.ta,
                    tb: p.tb,
                    alpha: p.alpha,
                    a: Tiles::one(1),
                    b: Tiles::one(2),
                    beta,
                    c: Tiles::one(0),
                    k,
                };
                g.submit(Spec {
                    op,
                    prio: 0,
                    step: 0,
                    dims: [t.rows(i), t.cols(j), k],
                    writes: &[t.id(i, j)],
                    reads: &[a(i, kk), b(kk, j)],
                });
            }
        }
    }
}
