//! Tile algorithms: plain loops over tile indices that submit tasks. They know nothing of
//! threads, devices or MPI; they state what each task reads and writes, what it computes and how
//! urgent it is ([`crate::graph::prio`]), and the runtime does the rest. `potrf`, `getrf`,
//! `geqrf` and `trsm` are generators over [`crate::graph::Graph`], run by the shared-memory, the
//! distributed and the simulated runtimes alike; `gels`'s tile QR and `potrs` still submit to a
//! [`crate::runtime::Seq`] directly.

pub mod bt;
pub mod gels;
pub mod gemm;
pub mod geqrf;
pub mod getrf;
pub mod getri;
pub mod ormqr;
pub mod potrf;
pub mod potrs;
pub mod tileqr;
pub mod trsm;
pub mod trtri;

pub(crate) use crate::graph::prio;
use crate::graph::{Graph, Op, Spec, TileId, Tiles, Tiling};

/// Where a panel is factored (QR and LU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// On its tiles (which must be one block: in one place, adjacent in memory).
    InPlace,
    /// In a buffer the tiles are gathered into, then scattered back.
    Gathered,
}

#[cfg(test)]
pub(crate) mod testutil;

/// `items` grouped by the place ([`Graph::place`]) of the tile each names, places in order of
/// first appearance, items in their order.
pub(crate) fn by_place(
    g: &impl Graph,
    items: impl IntoIterator<Item = (usize, TileId)>,
) -> Vec<(usize, Vec<usize>)> {
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (x, id) in items {
        let pl = g.place(id);
        match groups.iter_mut().find(|gr| gr.0 == pl) {
            Some(gr) => gr.1.push(x),
            None => groups.push((pl, vec![x])),
        }
    }
    groups
}

/// Tile rows `k..` of tile column `j` grouped by place (tile (k, j)'s place first).
pub(crate) fn rows_by_place(g: &impl Graph, t: &Tiling, k: usize, j: usize) -> Vec<(usize, Vec<usize>)> {
    by_place(g, (k..t.mt()).map(|i| (i, t.id(i, j))))
}

/// Panel k (tile rows k.. of tile column k) factored by the op `factor(a, second)` makes, which
/// writes the panel block `a` and a second output `second` (a buffer): in place on the tiles
/// ([`Panel::InPlace`]), or gathered into a buffer P on the place of tile (k, k), factored there
/// and scattered back at priority `scatter_prio` ([`Panel::Gathered`]). Returns where the
/// factored panel is read from: its tiles, or P.
pub(crate) fn factor_panel(
    g: &mut impl Graph,
    t: &Tiling,
    k: usize,
    panel: Panel,
    second: TileId,
    factor: impl Fn(Tiles, Tiles) -> Op,
    (panel_prio, scatter_prio): (i64, i64),
) -> Vec<TileId> {
    let mt = t.mt();
    let off = t.col_offset(k);
    let (w, mk) = (t.cols(k), t.m() - off);
    let diag = t.id(k, k);
    let col: Vec<TileId> = (k..mt).map(|i| t.id(i, k)).collect();
    let c = col.len();
    let (pp, dims) = (panel_prio, [mk, w, 0]);
    match panel {
        Panel::InPlace => {
            let writes: Vec<TileId> = col.iter().copied().chain([second]).collect();
            let op = factor(Tiles::stack(0, c), Tiles::one(c));
            g.submit(Spec { op, prio: pp, step: k, dims, writes: &writes, reads: &[] });
            col
        }
        Panel::Gathered => {
            let p = g.buffer(mk, w, diag);
            let op = Op::Gather { p: Tiles::one(0), col: Tiles::stack(1, c) };
            g.submit(Spec { op, prio: pp, step: k, dims, writes: &[p], reads: &col });
            let op = factor(Tiles::one(0), Tiles::one(1));
            g.submit(Spec { op, prio: pp, step: k, dims, writes: &[p, second], reads: &[] });
            for i in k..mt {
                let op = Op::Scatter { a: Tiles::one(0), src: Tiles::one(1), row: t.row_offset(i) - off };
                let (writes, dims) = ([t.id(i, k)], [t.rows(i), w, 0]);
                g.submit(Spec { op, prio: scatter_prio, step: k, dims, writes: &writes, reads: &[p] });
            }
            vec![p]
        }
    }
}
