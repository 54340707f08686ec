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

/// How many trailing tile columns of one place one update task takes: the QR's DLARFB
/// ([`geqrf`]) and the LU's fused interchanges, TRSM and GEMM ([`getrf`]).
///
/// DLARFB's first product, W = Cᵀ·V, has the panel's whole height as its inner dimension and
/// only C's width by the panel's width as its result: OpenBLAS runs that shape at about 80% of
/// its square-GEMM rate for one tile column of 384, 95% for eight side by side (one thread,
/// AVX-512, OpenBLAS 0.3.21). So a place's trailing columns are updated several at a time. The
/// LU's GEMM packs L once per task, so it gains from two columns at a time, where there are
/// enough columns to share out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fuse {
    /// Tile columns per task, at most (column k + 1, the next panel's, is always alone).
    pub width: usize,
    /// Tasks per step and place, at least (while there are columns): the threads' share of the
    /// trailing update must not shrink to one big task each.
    pub tasks: usize,
}

impl Fuse {
    /// One task per tile column (devices, ranks, the tests' reference cut).
    pub const ONE: Fuse = Fuse { width: 1, tasks: 1 };

    /// The QR's cut for `threads` host workers on tiles of `nb` columns: blocks of up to about
    /// 3072 columns, at least one per thread and step (at n = 6000 on two threads, 1536 and two per
    /// thread measured alike, within 1%; one column per task 7% slower).
    pub fn qr(nb: usize, threads: usize) -> Fuse {
        Fuse { width: (3072 / nb.max(1)).max(1), tasks: threads.max(1) }
    }

    /// The LU's cut for `threads` host workers: two tile columns per task, unless that leaves
    /// fewer than two tasks per thread. Interleaved on two AVX-512 threads: n = 6000 (tiles of
    /// 384) 128-130 GFLOP/s with one column per task, 134-135 with two, 131-132 with four;
    /// n = 3000 (256) 111-113 against 118; at n = 1500 (six tile columns) two columns per task
    /// took 15% longer than one, hence the floor on the task count.
    pub fn lu(threads: usize) -> Fuse {
        Fuse { width: 2, tasks: 2 * threads.max(1) }
    }

    /// `cols` (adjacent tile columns of one place) cut into nearly equal blocks.
    pub(crate) fn blocks(self, cols: &[usize]) -> Vec<&[usize]> {
        if cols.is_empty() {
            return Vec::new();
        }
        let count = cols.len().div_ceil(self.width.max(1)).max(self.tasks.min(cols.len()));
        let (per, extra) = (cols.len() / count, cols.len() % count);
        let mut out = Vec::with_capacity(count);
        let mut at = 0;
        for b in 0..count {
            let w = per + usize::from(b < extra);
            out.push(&cols[at..at + w]);
            at += w;
        }
        out
    }
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
