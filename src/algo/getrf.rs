//! Tile LU with partial pivoting, right-looking, with LAPACK's GEPP semantics (the blocked
//! DGETRF of LAPACK, run as tile tasks in the manner of seeds 000 §3 and PLASMA's pzgetrf; not
//! the incremental or tournament pivoting of the tile-QR papers, whose pivots differ from
//! LAPACK's): one task generator for every runtime (`?getrf`/`?gesv` of the four types in shared
//! memory, `pdgetrf` on every rank, `hetla-sim`). The generator names ops, not types: in shared
//! memory the same tasks run in f32, f64, c32 or c64 ([`getrf`], [`getrs`]); the ops of tile
//! columns on several places, split panels and CALU too.
//!
//! Rows are cut like columns, so with o = `col_offset(k)` tile (k, k) starts at (o, o). For panel
//! k (tile column k, w its width, mk = M − o rows, r = min(w, mk) pivots):
//!
//! 1. PANEL: GEPP on the mk×w block (DGETRF: it picks the pivots over the whole remaining column,
//!    as LAPACK does, and when w > r, M < N's last panel, applies them and the unit-lower solve to
//!    the rest of the block). The pivots, their composite permutation and the panel's INFO go to
//!    a small pivot buffer (`DeviceOp::LuPanel`). [`Panel::InPlace`] factors the tiles themselves
//!    (they must be one block: shared memory); [`Panel::Gathered`] copies them into a buffer P
//!    first, factors P and scatters it back, so P crosses the network once per rank that needs L.
//! 2. Every other tile column j gets the r interchanges on rows o..M (left of the panel too,
//!    because LAPACK's `ipiv` describes P·A = L·U with the *final* L, whose rows carry every later
//!    interchange); right of it then U(k, j) = L(k, k)⁻¹·A(k, j) (unit lower TRSM) and
//!    A(i, j) −= L(i, k)·U(k, j) for i > k (GEMM). How, depends on where the column's tiles are
//!    ([`Graph::place`]):
//!    * **one place** (shared memory; a process row of ranks): with `fused`, one task per block
//!      of adjacent tile columns of one place (as `cut` says; column k+1 alone, the
//!      look-ahead) does all three on data that stays in cache (`DeviceOp::LuUpdate`; left of the
//!      panel `DeviceOp::Laswp`), reading L from the panel's tiles or from P. Without `fused`
//!      (devices in shared memory) the interchanges, the TRSM and the GEMM are separate device
//!      kernels (`Laswp`, `Trsm`, `Gemm`) on single tile columns.
//!    * **several places** (2-D block-cyclic ranks): the pivots are only known at run time, so
//!      the graph is built not to depend on them: every task and message exists whatever the
//!      pivots are. The interchanges leave in the top block (rows 0..r) rows from anywhere below,
//!      but every row from r on ends up unchanged or holding an original top row
//!      (`kernels::Perm`). So each other place copies the rows it gives to the top block into a
//!      buffer X (`LuExtract`); the place of tile (k, j) builds W (`LuNewTop`): the new tile
//!      (k, j), solved with L(k, k) right of the panel, and below it the old top rows; then each
//!      place updates its tiles of the column in one task (`LuFill`): tile (k, j) ← W, the rows
//!      that receive an old top row, and right of the panel the GEMM with L(i, k).
//!
//! Lookahead comes from priorities ([`prio_step`], an estimate of each task's bottom level):
//! column k+1's work outranks the rest of step k, so panel k+1 can start while the trailing
//! update of step k is still running, and an early step's update of a far column is not left
//! behind later steps of nearer columns (which made the last column's updates a serial tail);
//! the interchanges left of the panel matter to nobody until the end and run last.
//!
//! INFO: each panel's pivot buffer holds its INFO (first zero pivot, local); the whole-matrix
//! INFO is the smallest `o + local`, read after the run. Like LAPACK, the factorization still
//! completes; a zero pivot is not a failure of the task graph.

use super::prio;
pub use super::{Fuse, Panel};
use crate::config::Pivoting;
use crate::device::LuSrc;
use crate::graph::op::OpElem;
use crate::graph::prio_step;
use crate::graph::{Graph, Op, Spec, TileId, Tiles};
use crate::kernels::{self, Diag, Dir, Side, Trans, Uplo};
use crate::runtime::shared::{Buffers, SharedGraph};
use crate::runtime::{Seq, Task};
use crate::scalar::{Coef, Scalar};
use crate::tile::TiledMatrix;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

/// LAPACK's INFO for an LU factorization in progress: the whole-matrix index of the first exactly
/// zero pivot, 0 while there is none. Shared between the tasks that read the pivot buffers and
/// the caller.
#[derive(Clone, Debug, Default)]
pub struct ZeroPivot(Arc<AtomicI32>);

impl ZeroPivot {
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps the smaller of the recorded index and `i` (> 0).
    pub fn record(&self, i: i32) {
        debug_assert!(i > 0);
        let _ = self
            .0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |cur| (cur == 0 || i < cur).then_some(i));
    }

    /// Forgets what was recorded: a call redone without a failed device starts afresh.
    pub fn clear(&self) {
        self.0.store(0, Ordering::Release);
    }

    /// The first zero pivot (1-based), or 0. Final once the sequence has been waited for.
    pub fn get(&self) -> i32 {
        self.0.load(Ordering::Acquire)
    }
}

/// How a runtime wants the LU's tasks cut, and how the LU pivots.
#[derive(Clone, Copy, Debug)]
pub struct Lu {
    pub pivot: Pivoting,
    /// Where a GEPP panel is factored (a CALU panel never moves: its rows nominate candidates
    /// where they are).
    pub panel: Panel,
    /// One task per column block does interchanges, TRSM and GEMM (hosts); else separate device
    /// kernels per tile column (needs [`Panel::InPlace`]).
    pub fused: bool,
    /// Tile columns of one place per fused task (column k+1 is always alone).
    pub cut: Fuse,
    /// CALU: leaves of a panel column that is in one place, at most (the threads that can run
    /// them side by side; each further leaf costs a merge).
    pub leaves: usize,
    /// GEPP with [`Panel::InPlace`]: the widest leaf of the recursive panel (a quarter of the
    /// panel's width if that is less), whose updates run as `leaves` tasks side by side; 0: the
    /// panel is one task.
    pub leaf: usize,
    /// GEPP: a panel whose tiles are in several places is factored where its rows are, column by
    /// column (`split_panel`), instead of as `panel` says.
    pub split: bool,
}

/// One panel of the run: its pivot buffer (r×4, see `DeviceOp::LuPanel`), its first row o and
/// its number of pivots r.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub piv: TileId,
    pub off: usize,
    pub r: usize,
}

impl Step {
    /// The pivots as 0-based whole-matrix rows and the whole-matrix INFO (0 if none), from the
    /// pivot buffer's column-major values (integers held as [`Scalar::from_index`] stores them).
    pub fn read<T: Scalar>(&self, buf: &[T]) -> (Vec<usize>, i32) {
        let rows = (0..self.r).map(|t| self.off + buf[t].index() as usize - 1).collect();
        let local = buf[3 * self.r].index();
        (rows, if local > 0 { self.off as i32 + local } else { 0 })
    }
}

/// The factorization's pivots, as 0-based whole-matrix rows (0 for the panels whose buffer
/// `buffer` does not have), and its INFO (the first zero pivot among them, if any), from the
/// pivot buffers of `steps` (min(M, N) pivots in all).
pub fn gather_pivots<T: Scalar>(
    steps: &[Step],
    kmin: usize,
    mut buffer: impl FnMut(TileId) -> Option<Vec<T>>,
) -> (Vec<i32>, Option<i32>) {
    let mut rows = vec![0i32; kmin];
    let mut info: Option<i32> = None;
    for s in steps {
        if let Some(buf) = buffer(s.piv) {
            let (r, zero) = s.read(&buf);
            for (t, &row) in r.iter().enumerate() {
                rows[s.off + t] = row as i32;
            }
            if zero > 0 {
                info = Some(info.map_or(zero, |i| i.min(zero)));
            }
        }
    }
    (rows, info)
}

/// The X and W buffers of tile columns on several places, per (place, tile column), and the
/// candidate buffers of split panels, per place, reused from step to step (their versions order
/// the uses).
#[derive(Default)]
struct RowBuffers {
    x: HashMap<(usize, usize), TileId>,
    w: HashMap<(usize, usize), TileId>,
    cand: HashMap<usize, [TileId; 3]>,
}

/// The number of LU steps (panels) of the tiling: tile columns starting left of min(M, N).
fn panel_count(t: &crate::graph::Tiling) -> usize {
    let kmin = t.m().min(t.n());
    (0..t.nt()).take_while(|&k| t.col_offset(k) < kmin).count()
}

/// The LU's tasks, submitted to `g` in program order; returns each panel's [`Step`].
pub fn generate(g: &mut impl Graph, lu: &Lu) -> Vec<Step> {
    assert!(lu.fused || lu.panel == Panel::InPlace, "separate device kernels read L from the panel's tiles");
    let t = g.tiling().clone();
    let (m, mt, nt) = (t.m(), t.mt(), t.nt());
    let panels = panel_count(&t);
    let maxw = (0..nt).map(|j| t.cols(j)).chain((0..mt).map(|i| t.rows(i))).max().unwrap_or(0);
    let mut bufs = RowBuffers::default();
    let mut steps = Vec::with_capacity(panels);
    let mut deferred: Vec<LeftSwaps> = Vec::new();
    // Tile columns of one place per update or interchange task.
    let cut = if lu.fused { lu.cut } else { Fuse::ONE };
    for k in 0..panels {
        if g.stopped() {
            break;
        }
        let off = t.col_offset(k);
        assert_eq!(t.row_offset(k), off, "LU needs rows and columns cut alike");
        let (w, mk) = (t.cols(k), m - off);
        let r = w.min(mk);
        let diag = t.id(k, k);
        let col: Vec<TileId> = (k..mt).map(|i| t.id(i, k)).collect();
        let pv = g.buffer(r, 4, diag);
        steps.push(Step { piv: pv, off, r });
        // 1. The panel; `l` is where the updates read L from.
        let l: Vec<TileId> = match (lu.pivot, lu.panel) {
            (Pivoting::Calu, _) => {
                tslu_panel(g, &t, k, pv, maxw, lu.leaves, &mut bufs);
                col.clone()
            }
            (Pivoting::Gepp, _) if lu.split && super::rows_by_place(g, &t, k, k).len() > 1 => {
                split_panel(g, &t, k, pv, maxw, &mut bufs);
                col.clone()
            }
            (Pivoting::Gepp, Panel::InPlace)
                if lu.leaf > 0 && lu.leaves > 1 && mk >= w && col.len() > 1 && w > 1 =>
            {
                // Narrow tiles get narrower leaves (at least four per panel).
                let leaf = lu.leaf.min((w / 4).max(1));
                recursive_panel(g, &t, k, pv, (lu.leaves, leaf), prio_step(mt, panels, k, k, 3));
                col.clone()
            }
            (Pivoting::Gepp, panel) => {
                let factor = |a, piv| Op::LuPanel { a, piv };
                super::factor_panel(
                    g,
                    &t,
                    k,
                    panel,
                    pv,
                    factor,
                    (prio_step(mt, panels, k, k, 3), prio_step(mt, panels, k, k, 2)),
                )
            }
        };
        // 2. The other tile columns: right of the panel (k + 1 first), then left of it; columns
        // in several places at once, those in one place in blocks of adjacent columns of a place.
        let (mut next, mut right, mut left) = (false, Vec::new(), Vec::new());
        for j in (k + 1..nt).chain(0..k) {
            let groups = super::rows_by_place(g, &t, k, j);
            if groups.len() > 1 {
                several_places(g, &t, k, j, pv, &groups, maxw, &mut bufs);
            } else if j == k + 1 {
                next = true;
            } else if j > k {
                right.push(j);
            } else {
                left.push(j);
            }
        }
        if next {
            one_place_block(g, &t, k, &[k + 1], false, pv, &l, lu.fused);
        }
        for (_, cols) in super::by_place(g, right.iter().map(|&j| (j, t.id(k, j)))) {
            for block in cut.blocks(&cols) {
                one_place_block(g, &t, k, block, false, pv, &l, lu.fused);
            }
        }
        if lu.fused {
            // Left of the panel the interchanges wait, to be applied a few steps at once.
            deferred.push(LeftSwaps { k, pv, off, r, cols: left });
            if deferred.len() == LEFT_BATCH {
                flush_left(g, &t, &mut deferred, cut.width);
            }
        } else {
            for (_, cols) in super::by_place(g, left.iter().map(|&j| (j, t.id(k, j)))) {
                for block in cut.blocks(&cols) {
                    one_place_block(g, &t, k, block, true, pv, &l, lu.fused);
                }
            }
        }
    }
    flush_left(g, &t, &mut deferred, cut.width);
    steps
}

/// Steps whose interchanges left of the panel are applied together, at most (hosts). Each step
/// on its own passes once over all of L's rows below it, a cache miss per swapped row of each
/// column; applied together, a block of columns stays in cache across the steps' swaps
/// ([`Op::LaswpSteps`]). Nobody reads L before the end, so the wait costs nothing.
pub const LEFT_BATCH: usize = 4;

/// One step's interchanges still to be applied left of its panel: the step, its pivot buffer,
/// first row and number of pivots, and the tile columns (in one place each) that wait for them.
struct LeftSwaps {
    k: usize,
    pv: TileId,
    off: usize,
    r: usize,
    cols: Vec<usize>,
}

/// Submits the interchanges of the `pending` steps left of their panels: one task per block of
/// adjacent tile columns of one place (at most `per`) that wait for the same steps, applying
/// them in step order on the rows from the first step's panel down.
fn flush_left(g: &mut impl Graph, t: &crate::graph::Tiling, pending: &mut Vec<LeftSwaps>, per: usize) {
    let (m, mt) = (t.m(), t.mt());
    let mut cols: Vec<usize> = pending.iter().flat_map(|p| p.cols.iter().copied()).collect();
    cols.sort_unstable();
    cols.dedup();
    // Columns grouped by the steps they wait for (indices into `pending`, in step order).
    let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for j in cols {
        let waits: Vec<usize> = (0..pending.len()).filter(|&e| pending[e].cols.contains(&j)).collect();
        match groups.iter_mut().find(|(w, _)| *w == waits) {
            Some((_, js)) => js.push(j),
            None => groups.push((waits, vec![j])),
        }
    }
    for (waits, js) in groups {
        let first = &pending[waits[0]];
        let (k0, off0) = (first.k, first.off);
        let last_k = pending[*waits.last().expect("a column waits for a step")].k;
        let steps: Vec<(usize, usize)> =
            waits.iter().map(|&e| (pending[e].off - off0, pending[e].r)).collect();
        let pivs: Vec<TileId> = waits.iter().map(|&e| pending[e].pv).collect();
        for (_, js) in super::by_place(g, js.iter().map(|&j| (j, t.id(k0, j)))) {
            for block in js.chunks(per) {
                let tiles: Vec<TileId> =
                    block.iter().flat_map(|&j| (k0..mt).map(move |i| t.id(i, j))).collect();
                let width: usize = block.iter().map(|&j| t.cols(j)).sum();
                let c = tiles.len();
                let op = Op::LaswpSteps {
                    a: Tiles::stack(0, c),
                    piv: Tiles::stack(c, pivs.len()),
                    steps: steps.clone(),
                };
                let dims = [m - off0, width, steps.len()];
                g.submit(Spec { op, prio: 0, step: last_k, dims, writes: &tiles, reads: &pivs });
            }
        }
    }
    pending.clear();
}

/// Columns per block of a split panel (`split_panel`): one column at a time inside a block
/// (rank-1 updates on the block's columns only, which stay in cache), one GEMM per block for the
/// columns right of it.
pub const SPLIT_BLOCK: usize = 32;

/// Widest leaf of the recursive panel on hosts: GEPP over the whole panel height on at most
/// this many columns at a time, in one task (narrower leaves cost more tasks and narrower GEMMs).
pub const LEAF: usize = 32;

/// GEPP panel k as a recursive LU (Toledo's, and LAPACK's DGETRF2) cut into tasks so that its
/// BLAS-3 part runs on `threads` cores: the left half of the columns factored (recursively),
/// the right half updated, the right half factored (recursively). A leaf ([`Op::LuLeaf`], at
/// most `leaf` columns) picks its pivots over the whole remaining column, exactly the rows
/// DGETRF's would, and swaps the panel's other columns at once; each update
/// ([`Op::LuSplitUpdate`]) is one task for the panel's top tile (the unit lower solve, then its
/// rows below) and `threads` tasks for runs of adjacent tiles below it (a GEMM each, reading
/// the top tile's solved rows). The panel's tiles must be one block (shared memory); rows and
/// columns of tile (k, k) hold the whole w×w top of the panel (mk ≥ w).
fn recursive_panel(
    g: &mut impl Graph,
    t: &crate::graph::Tiling,
    k: usize,
    pv: TileId,
    (threads, leaf): (usize, usize),
    pp: i64,
) {
    let (mt, w) = (t.mt(), t.cols(k));
    let col: Vec<TileId> = (k..mt).map(|i| t.id(i, k)).collect();
    let mk = t.m() - t.col_offset(k);
    // Runs of adjacent tiles below the top one, about equal in rows.
    let below: Vec<usize> = (k + 1..mt).collect();
    let runs: Vec<&[usize]> = {
        let total: usize = below.iter().map(|&i| t.rows(i)).sum();
        let per = total.div_ceil(threads.max(1));
        let mut runs = Vec::new();
        let (mut start, mut acc) = (0, 0);
        for (x, &i) in below.iter().enumerate() {
            acc += t.rows(i);
            if acc >= per || x + 1 == below.len() {
                runs.push(&below[start..=x]);
                (start, acc) = (x + 1, 0);
            }
        }
        runs
    };
    // Depth-first over (c0, n): a block of columns is a leaf, or its halves with the update of
    // the right half by the left one in between. Pending work is kept as a stack of items.
    enum Item {
        Block(usize, usize),
        Update(usize, usize, usize),
    }
    let mut todo = vec![Item::Block(0, w)];
    while let Some(item) = todo.pop() {
        match item {
            Item::Block(c0, n) if n <= leaf => {
                let writes: Vec<TileId> = col.iter().copied().chain([pv]).collect();
                let op = Op::LuLeaf { a: Tiles::stack(0, col.len()), piv: Tiles::one(col.len()), c0, n };
                g.submit(Spec { op, prio: pp, step: k, dims: [mk - c0, n, 0], writes: &writes, reads: &[] });
            }
            Item::Block(c0, n) => {
                // Halves, the left one a multiple of 8 columns where that leaves both non-empty.
                let n1 = if n >= 32 { (n / 2).div_ceil(8) * 8 } else { n / 2 };
                todo.push(Item::Block(c0 + n1, n - n1));
                todo.push(Item::Update(c0, c0 + n1, c0 + n));
                todo.push(Item::Block(c0, n1));
            }
            Item::Update(c0, c1, c2) => {
                let (n1, n2) = (c1 - c0, c2 - c1);
                let op = Op::LuSplitUpdate { a: Tiles::one(0), u: None, c0, c1, c2 };
                let dims = [t.rows(k) - c0, n2, n1];
                g.submit(Spec { op, prio: pp, step: k, dims, writes: &[col[0]], reads: &[] });
                for run in &runs {
                    let writes: Vec<TileId> = run.iter().map(|&i| t.id(i, k)).collect();
                    let rows: usize = run.iter().map(|&i| t.rows(i)).sum();
                    let op = Op::LuSplitUpdate {
                        a: Tiles::stack(0, writes.len()),
                        u: Some(Tiles::one(writes.len())),
                        c0,
                        c1,
                        c2,
                    };
                    g.submit(Spec {
                        op,
                        prio: pp,
                        step: k,
                        dims: [rows, n2, n1],
                        writes: &writes,
                        reads: &[col[0]],
                    });
                }
            }
        }
    }
}

/// GEPP panel k whose tiles are in several places, factored where its rows are: column by column
/// inside blocks of [`SPLIT_BLOCK`] columns, each place finishes the previous column on its rows
/// and nominates its candidate for the next ([`Op::LuColumn`], one task per place and column), and
/// every place's candidate goes to every other place, so each place picks the same pivot from the
/// same candidates (the largest magnitude, the lowest row among equals: LAPACK's pivots) without
/// a second round trip; at a block's end each place updates the columns right of it (U₁₂ from the
/// pivot rows it received, one GEMM). One exchange per column in place of a gather and a scatter
/// of the whole panel, which could pay where a panel is tall on many places; slower on every grid
/// measured (see `api::scalapack::lu_split`). The pivot buffer `pv` is filled on the place of
/// tile (k, k).
fn split_panel(
    g: &mut impl Graph,
    t: &crate::graph::Tiling,
    k: usize,
    pv: TileId,
    maxw: usize,
    bufs: &mut RowBuffers,
) {
    let (m, mt) = (t.m(), t.mt());
    let off = t.col_offset(k);
    let (w, mk) = (t.cols(k), m - off);
    let r = w.min(mk);
    let pp = prio_step(mt, panel_count(t), k, k, 3);
    assert_eq!(r, w, "a panel on several places is taller than its top tile");
    let groups = super::rows_by_place(g, t, k, k);
    // Per place: two candidate buffers, for even and odd columns (column j's tasks read every
    // place's column j − 1 candidates while writing their own for column j), and its copy of
    // the pivot rows.
    let mut cands: Vec<[TileId; 3]> = Vec::with_capacity(groups.len());
    for (pl, rows) in &groups {
        let with = t.id(rows[0], k);
        let crows = kernels::Candidate::rows(maxw);
        cands.push(*bufs.cand.entry(*pl).or_insert_with(|| {
            [g.buffer(crows, 2, with), g.buffer(crows, 2, with), g.buffer(maxw, maxw, with)]
        }));
    }
    // The end of column c's block.
    let c1 = |c: usize| ((c / SPLIT_BLOCK + 1) * SPLIT_BLOCK).min(r);
    for j in 0..=r {
        for (x, (_, rows)) in groups.iter().enumerate() {
            let mut writes: Vec<TileId> = rows.iter().map(|&i| t.id(i, k)).collect();
            let nr = writes.len();
            writes.extend([cands[x][j % 2], cands[x][2]]);
            if x == 0 {
                writes.push(pv);
            }
            let reads: Vec<TileId> =
                if j > 0 { cands.iter().map(|c| c[(j - 1) % 2]).collect() } else { Vec::new() };
            let op = Op::LuColumn {
                a: Tiles::stack(0, nr),
                cand: Tiles::one(nr),
                urows: Tiles::one(nr + 1),
                piv: (x == 0).then_some(Tiles::one(nr + 2)),
                others: Tiles::stack(writes.len(), reads.len()),
                rows: rows.iter().map(|&i| (t.row_offset(i) - off, t.rows(i))).collect(),
                j,
                r,
                block: SPLIT_BLOCK,
            };
            let height: usize = rows.iter().map(|&i| t.rows(i)).sum();
            // The rank-1 update on the rest of column j − 1's block; at a block's end its GEMM.
            let dims = match j {
                0 => [height, 0, 0],
                j if j == c1(j - 1) => [height, w - j, SPLIT_BLOCK.min(j)],
                j => [height, c1(j - 1) - j, 1],
            };
            g.submit(Spec { op, prio: pp, step: k, dims, writes: &writes, reads: &reads });
        }
    }
}

/// CALU's panel k (TSLU, seed 004 after Grigori, Demmel and Xiang): each leaf (a run of adjacent
/// tiles of the panel column where the column is in one place, as many leaves as run side by
/// side; else each place's tiles of it) nominates its
/// GEPP pivot rows; a binary tree of GEPP on stacked candidates picks the w winners (the
/// diagonal's leaf first, so the root is on the place of tile (k, k)); the root orders them and
/// factors them (L₁₁, U₁₁) and writes the interchanges into the pivot buffer `pv`; then the
/// column's rows move as any other column's do, with L₁₁/U₁₁ on top and L₂₁ = A₂₁·U₁₁⁻¹ below.
fn tslu_panel(
    g: &mut impl Graph,
    t: &crate::graph::Tiling,
    k: usize,
    pv: TileId,
    maxw: usize,
    nleaves: usize,
    bufs: &mut RowBuffers,
) {
    let (m, mt) = (t.m(), t.mt());
    let off = t.col_offset(k);
    let (w, mk) = (t.cols(k), m - off);
    let r = w.min(mk);
    let (h, diag, pp) = (t.rows(k), t.id(k, k), prio_step(mt, panel_count(t), k, k, 3));
    let rel = |i: usize| t.row_offset(i) - off;
    let groups = super::rows_by_place(g, t, k, k);
    // One place: up to `nleaves` leaves of adjacent tiles (as many as run side by side: each
    // further leaf costs a merge); else a leaf per place.
    let leaves: Vec<Vec<usize>> = if groups.len() == 1 {
        let rows: Vec<usize> = (k..mt).collect();
        rows.chunks(rows.len().div_ceil(nleaves.max(1))).map(|c| c.to_vec()).collect()
    } else {
        groups.iter().map(|gr| gr.1.clone()).collect()
    };
    let mut level: Vec<TileId> = Vec::with_capacity(leaves.len());
    for rows in &leaves {
        let cand = g.buffer(w, w + 1, t.id(rows[0], k));
        let reads: Vec<TileId> = rows.iter().map(|&i| t.id(i, k)).collect();
        let height: usize = rows.iter().map(|&i| t.rows(i)).sum();
        let op = Op::CaluLeaf {
            cand: Tiles::one(0),
            a: Tiles::stack(1, rows.len()),
            rows: rows.iter().map(|&i| (rel(i), t.rows(i))).collect(),
        };
        g.submit(Spec { op, prio: pp, step: k, dims: [height, w, 0], writes: &[cand], reads: &reads });
        level.push(cand);
    }
    while level.len() > 1 {
        let mut next = Vec::with_capacity(level.len().div_ceil(2));
        for pair in level.chunks(2) {
            if let [a, b] = *pair {
                let op = Op::CaluMerge { cand: Tiles::one(0), others: Tiles::one(1) };
                g.submit(Spec { op, prio: pp, step: k, dims: [2 * w, w, 0], writes: &[a], reads: &[b] });
            }
            next.push(pair[0]);
        }
        level = next;
    }
    let f = g.buffer(r, w, diag);
    let op = Op::CaluRoot { f: Tiles::one(0), piv: Tiles::one(1), cand: Tiles::one(2) };
    g.submit(Spec { op, prio: pp, step: k, dims: [r, w, 0], writes: &[f, pv], reads: &[level[0]] });
    let wb = *bufs.w.entry((g.place(diag), k)).or_insert_with(|| g.buffer(2 * maxw, w, diag));
    let op = Op::CaluTop { w: Tiles::one(0), old: Tiles::one(1), piv: Tiles::one(2), f: Tiles::one(3) };
    g.submit(Spec { op, prio: pp, step: k, dims: [h, w, 0], writes: &[wb], reads: &[diag, pv, f] });
    // Each tile (one place) or each place's tiles: the rows it receives, then L₂₁.
    for rows in &leaves {
        let writes: Vec<TileId> = rows.iter().map(|&i| t.id(i, k)).collect();
        let nr = writes.len();
        let op = Op::LuFill {
            c: Tiles::stack(0, nr),
            w: Tiles::one(nr),
            piv: Tiles::one(nr + 1),
            l: None,
            rows: rows.iter().map(|&i| (rel(i), t.rows(i))).collect(),
            h,
            solve: true,
        };
        let height: usize = rows.iter().map(|&i| t.rows(i)).sum();
        g.submit(Spec { op, prio: pp, step: k, dims: [height, w, r], writes: &writes, reads: &[wb, pv] });
    }
}

/// The interchanges (and right of the panel the TRSM and GEMM) of panel k on the adjacent tile
/// columns `js` of one place.
#[allow(clippy::too_many_arguments)]
fn one_place_block(
    g: &mut impl Graph,
    t: &crate::graph::Tiling,
    k: usize,
    js: &[usize],
    left: bool,
    pv: TileId,
    l: &[TileId],
    fused: bool,
) {
    let (m, mt) = (t.m(), t.mt());
    let off = t.col_offset(k);
    let (mk, r) = (m - off, t.cols(k).min(m - off));
    let tiles: Vec<TileId> =
        js.iter().flat_map(|&j| (k..mt).map(move |i| (i, j))).map(|(i, j)| t.id(i, j)).collect();
    let width: usize = js.iter().map(|&j| t.cols(j)).sum();
    let c = tiles.len();
    let pri = if left { 0 } else { prio_step(mt, panel_count(t), k, js[0], 2) };
    if left || !fused {
        // The interchanges alone (left of the panel; or the first of three device kernels).
        for &j in if fused { &js[..1] } else { js } {
            let (writes, wd): (Vec<TileId>, usize) = if fused {
                (tiles.clone(), width)
            } else {
                ((k..mt).map(|i| t.id(i, j)).collect(), t.cols(j))
            };
            let op = Op::Laswp {
                a: Tiles::stack(0, writes.len()),
                ipiv: Tiles::one(writes.len()),
                ipiv_base: 0,
                count: r,
                dir: Dir::Forward,
            };
            g.submit(Spec { op, prio: pri, step: k, dims: [mk, wd, r], writes: &writes, reads: &[pv] });
        }
        if left {
            return;
        }
    }
    if fused {
        let reads: Vec<TileId> = l.iter().copied().chain([pv]).collect();
        let op = Op::LuUpdate {
            a: Tiles::stack(0, c),
            l: Tiles::stack(c, l.len()),
            piv: Tiles::one(c + l.len()),
            r,
        };
        g.submit(Spec { op, prio: pri, step: k, dims: [mk, width, r], writes: &tiles, reads: &reads });
        return;
    }
    // Separate kernels: U(k, j) = L(k, k)⁻¹·A(k, j), then one GEMM over the tiles below.
    let j = js[0];
    let nn = t.cols(j);
    let op = Op::Trsm {
        side: Side::Left,
        uplo: Uplo::Lower,
        trans: Trans::No,
        diag: Diag::Unit,
        alpha: 1.0,
        a: Tiles::one(1),
        b: Tiles::one(0),
    };
    g.submit(Spec { op, prio: pri, step: k, dims: [r, nn, 0], writes: &[t.id(k, j)], reads: &[t.id(k, k)] });
    if k + 1 < mt {
        let below = mt - k - 1;
        let writes: Vec<TileId> = (k + 1..mt).map(|i| t.id(i, j)).collect();
        let reads: Vec<TileId> = (k + 1..mt).map(|i| t.id(i, k)).chain([t.id(k, j)]).collect();
        let op = Op::Gemm {
            ta: Trans::No,
            tb: Trans::No,
            alpha: Coef::from(-1.0),
            a: Tiles::stack(below, below),
            b: Tiles::one(2 * below),
            beta: Coef::from(1.0),
            c: Tiles::stack(0, below),
            k: r,
        };
        let dims = [m - t.row_offset(k + 1), nn, r];
        g.submit(Spec {
            op,
            prio: prio_step(mt, panel_count(t), k, j, 0),
            step: k,
            dims,
            writes: &writes,
            reads: &reads,
        });
    }
}

/// Panel k's interchanges (and right of the panel the TRSM and GEMM) on tile column j, whose
/// tiles k.. are in several places (`groups`: place and tile rows, the place of tile (k, j)
/// first): X per other place, W on the place of tile (k, j), one fill task per place.
#[allow(clippy::too_many_arguments)]
fn several_places(
    g: &mut impl Graph,
    t: &crate::graph::Tiling,
    k: usize,
    j: usize,
    pv: TileId,
    groups: &[(usize, Vec<usize>)],
    maxw: usize,
    bufs: &mut RowBuffers,
) {
    let (m, mt) = (t.m(), t.mt());
    let off = t.col_offset(k);
    let (mk, r, h, jb) = (m - off, t.cols(k).min(m - off), t.rows(k), t.cols(j));
    let right = j > k;
    assert!(!right || r == h, "right of a panel, tile row k is as tall as the panel is wide");
    let (p_top, p_fill) = if right {
        (prio_step(mt, panel_count(t), k, j, 2), prio_step(mt, panel_count(t), k, j, 1))
    } else {
        (0, 0)
    };
    let rel = |i: usize| t.row_offset(i) - off;
    // a. The rows each other place gives to the top block.
    let mut xs: Vec<(usize, TileId)> = Vec::new();
    for (pl, rows) in &groups[1..] {
        let x = *bufs.x.entry((*pl, j)).or_insert_with(|| g.buffer(maxw, jb, t.id(rows[0], j)));
        let reads: Vec<TileId> = std::iter::once(pv).chain(rows.iter().map(|&i| t.id(i, j))).collect();
        let op = Op::LuExtract {
            x: Tiles::one(0),
            piv: Tiles::one(1),
            c: Tiles::stack(2, rows.len()),
            offs: rows.iter().map(|&i| rel(i)).collect(),
        };
        g.submit(Spec { op, prio: p_top, step: k, dims: [r, jb, 0], writes: &[x], reads: &reads });
        xs.push((*pl, x));
    }
    // b. W on the place of tile (k, j).
    let wb = *bufs.w.entry((groups[0].0, j)).or_insert_with(|| g.buffer(2 * maxw, jb, t.id(k, j)));
    let mine: Vec<usize> = groups[0].1.iter().copied().filter(|&i| i > k).collect();
    let mut others: Vec<TileId> = mine.iter().map(|&i| t.id(i, j)).collect();
    others.extend(xs.iter().map(|&(_, x)| x));
    let from: Vec<LuSrc> = (k..mt)
        .map(|i| {
            if i == k {
                LuSrc::Old
            } else if let Some(p) = mine.iter().position(|&x| x == i) {
                LuSrc::Tile(p)
            } else {
                let pl = g.place(t.id(i, j));
                LuSrc::Extracted(mine.len() + xs.iter().position(|&(q, _)| q == pl).expect("an X per place"))
            }
        })
        .collect();
    let offs: Vec<usize> = (k..mt).map(rel).chain([mk]).collect();
    let no = others.len();
    let mut reads: Vec<TileId> = vec![t.id(k, j), pv];
    reads.extend(&others);
    if right {
        reads.push(t.id(k, k));
    }
    let op = Op::LuNewTop {
        w: Tiles::one(0),
        old: Tiles::one(1),
        piv: Tiles::one(2),
        others: Tiles::stack(3, no),
        from,
        offs,
        l: right.then_some(Tiles::one(3 + no)),
    };
    let dims = [r, jb, if right { r } else { 0 }];
    g.submit(Spec { op, prio: p_top, step: k, dims, writes: &[wb], reads: &reads });
    // c. Each place's tiles of the column.
    for (_, rows) in groups {
        let writes: Vec<TileId> = rows.iter().map(|&i| t.id(i, j)).collect();
        let below: Vec<TileId> =
            if right { rows.iter().filter(|&&i| i > k).map(|&i| t.id(i, k)).collect() } else { vec![] };
        let nr = writes.len();
        let reads: Vec<TileId> = [wb, pv].into_iter().chain(below.iter().copied()).collect();
        let op = Op::LuFill {
            c: Tiles::stack(0, nr),
            w: Tiles::one(nr),
            piv: Tiles::one(nr + 1),
            l: (!below.is_empty()).then_some(Tiles::stack(nr + 2, below.len())),
            rows: rows.iter().map(|&i| (rel(i), t.rows(i))).collect(),
            h,
            solve: false,
        };
        let height: usize = rows.iter().map(|&i| t.rows(i)).sum();
        g.submit(Spec { op, prio: p_fill, step: k, dims: [height, jb, r], writes: &writes, reads: &reads });
    }
}

/// Factors the M×N matrix `a` (rows and columns cut by the same partition) in place as
/// P·A = L·U, writing LAPACK's row interchanges into `ipiv` (min(M, N)×1, its rows cut like A's)
/// and the first zero pivot into `info`, by partial pivoting or CALU's tournament pivoting (any
/// element type). The pivot buffers live in `store`, which must
/// outlive the sequence.
#[allow(clippy::too_many_arguments)]
pub fn getrf<T: OpElem>(
    seq: &Seq,
    pivot: Pivoting,
    threads: usize,
    a: &TiledMatrix<T>,
    ipiv: &TiledMatrix<i32>,
    info: &ZeroPivot,
    store: &Buffers<T>,
) {
    let (a, ipiv) = (*a, *ipiv);
    assert!(a.square_tiles(), "LU needs rows and columns cut alike");
    let kmin = a.m.min(a.n);
    assert!(
        ipiv.m == kmin && ipiv.n == 1 && ipiv.rows == a.rows,
        "ipiv must be min(M,N)×1 with A's row tiles"
    );
    let mut g = SharedGraph::with_buffers(seq, &a, store);
    let leaf = if threads > 1 { LEAF } else { 0 };
    let lu = Lu {
        pivot,
        panel: Panel::InPlace,
        fused: !seq.has_devices(),
        cut: Fuse::lu(threads),
        leaves: threads,
        leaf,
        split: false,
    };
    for (k, s) in generate(&mut g, &lu).into_iter().enumerate() {
        let pv = g.buffer_matrix(s.piv);
        let info = info.clone();
        // LAPACK's ipiv (whole-matrix rows, 1-based) and INFO from the pivot buffer, at the end.
        let task = Task::new("pivots").prio(0).dims(s.r, 1, 0).read(&pv, 0, 0).write(&ipiv, k, 0);
        seq.submit(task, move |c| {
            let v = c.tile(&pv, 0, 0);
            let buf: Vec<T> = (0..4).flat_map(|col| (0..s.r).map(move |t| v.get(t, col))).collect();
            let (rows, zero) = s.read(&buf);
            let mut p = c.tile_mut(&ipiv, k, 0);
            assert_eq!(p.m, s.r, "ipiv's tile k holds panel k's pivots");
            for (t, &row) in rows.iter().enumerate() {
                p.set(t, 0, row as i32 + 1);
            }
            if zero > 0 {
                info.record(zero);
            }
            Ok(())
        });
    }
}

/// What [`getrs`] solves with, xGETRS's TRANS: A (`N`), Aᵀ (`T`) or Aᴴ (`C`; in the real
/// types the same as Aᵀ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solve {
    Plain,
    Transposed,
    Adjoint,
}

impl Solve {
    /// xGETRS's TRANS character (either case), or `None` for an invalid one.
    pub fn parse(c: u8) -> Option<Solve> {
        match c.to_ascii_uppercase() {
            b'N' => Some(Solve::Plain),
            b'T' => Some(Solve::Transposed),
            b'C' => Some(Solve::Adjoint),
            _ => None,
        }
    }
}

/// Solves op(A)·X = B with the factors P·A = L·U from [`getrf`] (xGETRS): A n×n (rows and columns
/// cut alike), `ipiv` n×1 and B n×nrhs with A's row tiles. `Plain`: B ← U⁻¹·L⁻¹·P·B;
/// `Adjoint`: B ← Pᵀ·L⁻ᴴ·U⁻ᴴ·B; `Transposed`: the same with Aᵀ, which in a complex type is the
/// adjoint solve on B̄, conjugated back (`kernels::conj`; in the real types it is `Adjoint`).
pub fn getrs<T: OpElem>(
    seq: &Seq,
    solve: Solve,
    a: &TiledMatrix<T>,
    ipiv: &TiledMatrix<i32>,
    b: &TiledMatrix<T>,
) {
    let (a, ipiv, b) = (*a, *ipiv, *b);
    assert_eq!(a.m, a.n);
    assert_eq!(b.m, a.n);
    assert!(ipiv.m == a.n && ipiv.n == 1 && ipiv.rows == a.rows, "ipiv must be n×1 with A's row tiles");
    match solve {
        Solve::Plain => {
            // Above every TRSM step of `trsm_left` ((nt − step)·4 + 2): the swaps gate them all.
            swap_rows(seq, &ipiv, &b, Dir::Forward, prio(a.nt(), 0, 3), false);
            super::trsm::trsm_left(seq, Uplo::Lower, Trans::No, Diag::Unit, &a, &b);
            super::trsm::trsm_left(seq, Uplo::Upper, Trans::No, Diag::NonUnit, &a, &b);
        }
        Solve::Transposed | Solve::Adjoint => {
            let conj = solve == Solve::Transposed && T::COMPLEX;
            if conj {
                conj_columns(seq, &b, prio(a.nt(), 0, 3));
            }
            super::trsm::trsm_left(seq, Uplo::Upper, Trans::Yes, Diag::NonUnit, &a, &b);
            super::trsm::trsm_left(seq, Uplo::Lower, Trans::Yes, Diag::Unit, &a, &b);
            // Last in the sequence; nothing waits on them.
            swap_rows(seq, &ipiv, &b, Dir::Backward, 0, conj);
        }
    }
}

/// Applies all of `ipiv`'s interchanges to B, one task per tile column of B, then with `conj`
/// conjugates it.
fn swap_rows<T: Scalar>(
    seq: &Seq,
    ipiv: &TiledMatrix<i32>,
    b: &TiledMatrix<T>,
    dir: Dir,
    p: i64,
    conj: bool,
) {
    let (ipiv, b) = (*ipiv, *b);
    let (pt, mt, nt) = (ipiv.mt(), b.mt(), b.nt());
    for j in 0..nt {
        let t = Task::new("laswp")
            .prio(p)
            .dims(b.m, b.tile_cols(j), ipiv.m)
            .read_range(&ipiv, 0..pt, 0..1)
            .rw_range(&b, 0..mt, j..j + 1);
        seq.submit(t, move |c| {
            let piv = c.region(&ipiv, 0..pt, 0..1);
            let rows: Vec<i32> = (0..piv.m).map(|r| piv.get(r, 0)).collect();
            let mut bj = c.region_mut(&b, 0..mt, j..j + 1);
            kernels::laswp(bj.reborrow(), &rows, dir);
            if conj {
                kernels::conj(bj);
            }
            Ok(())
        });
    }
}

/// B ← B̄, one task per tile column of B.
fn conj_columns<T: Scalar>(seq: &Seq, b: &TiledMatrix<T>, p: i64) {
    let b = *b;
    let mt = b.mt();
    for j in 0..b.nt() {
        let t = Task::new("conj").prio(p).dims(b.m, b.tile_cols(j), 0).rw_range(&b, 0..mt, j..j + 1);
        seq.submit(t, move |c| {
            kernels::conj(c.region_mut(&b, 0..mt, j..j + 1));
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::backend::lapack as bk;
    use crate::error::Error;
    use crate::kernels::Trans;
    use crate::tile::Part;

    use crate::scalar::{c32, c64};

    /// Runs `f` for each of the four element types.
    macro_rules! each_type {
        ($f:ident $(, $arg:expr)*) => {{
            $f::<f64>($($arg),*);
            $f::<f32>($($arg),*);
            $f::<c32>($($arg),*);
            $f::<c64>($($arg),*);
        }};
    }

    /// Runs the tile LU on `a` in place; returns (ipiv, sequence result, INFO).
    fn tile_getrf<T: OpElem>(
        m: usize,
        n: usize,
        a: &mut [T],
        ld: usize,
        nb: usize,
        threads: usize,
    ) -> (Vec<i32>, Result<(), Error>, i32) {
        tile_getrf_part(m, n, a, ld, Part::uniform(nb), threads)
    }

    fn tile_getrf_part<T: OpElem>(
        m: usize,
        n: usize,
        a: &mut [T],
        ld: usize,
        part: Part,
        threads: usize,
    ) -> (Vec<i32>, Result<(), Error>, i32) {
        let k = m.min(n);
        let mut ipiv = vec![-7i32; k.max(1)];
        let ta = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), m, n, ld, part, part) };
        let tp =
            unsafe { TiledMatrix::from_raw_parts(ipiv.as_mut_ptr(), k, 1, k.max(1), part, Part::uniform(1)) };
        let info = ZeroPivot::new();
        let seq = Seq::new(&cfg(threads));
        let store = Buffers::default();
        getrf(&seq, Pivoting::Gepp, 3, &ta, &tp, &info, &store);
        let r = seq.wait();
        ipiv.truncate(k);
        (ipiv, r, info.get())
    }

    /// (a.re·b.re − a.im·b.im, a.re·b.im + a.im·b.re).
    fn mul((ar, ai): (f64, f64), (br, bi): (f64, f64)) -> (f64, f64) {
        (ar * br - ai * bi, ar * bi + ai * br)
    }

    /// ‖P·A − L·U‖_F / (max(m,n)·‖A‖_F·ε), with P from `ipiv` and L, U read from `f` (in f64
    /// arithmetic, ε the type's).
    fn lu_residual<T: Scalar>(m: usize, n: usize, a: &[T], f: &[T], ld: usize, ipiv: &[i32]) -> f64 {
        let k = m.min(n);
        let mut pa: Vec<(f64, f64)> =
            (0..n).flat_map(|j| (0..m).map(move |i| (i, j))).map(|(i, j)| parts(a[i + j * ld])).collect();
        for (r, &p) in ipiv.iter().enumerate() {
            let p = p as usize - 1;
            for j in 0..n {
                pa.swap(r + j * m, p + j * m);
            }
        }
        let l = |i: usize, t: usize| -> (f64, f64) {
            match i.cmp(&t) {
                std::cmp::Ordering::Greater => parts(f[i + t * ld]),
                std::cmp::Ordering::Equal => (1.0, 0.0),
                std::cmp::Ordering::Less => (0.0, 0.0),
            }
        };
        let u = |t: usize, j: usize| -> (f64, f64) {
            if t <= j {
                parts(f[t + j * ld])
            } else {
                (0.0, 0.0)
            }
        };
        let mut d = vec![0.0f64; 2 * m * n];
        for j in 0..n {
            for i in 0..m {
                let (mut sr, mut si) = (0.0, 0.0);
                for t in 0..k.min(i + 1).min(j + 1) {
                    let (pr, pi) = mul(l(i, t), u(t, j));
                    sr += pr;
                    si += pi;
                }
                let (ar, ai) = pa[i + j * m];
                (d[2 * (i + j * m)], d[2 * (i + j * m) + 1]) = (ar - sr, ai - si);
            }
        }
        fnorm(&d, 2 * m * n, 1, 2 * m * n)
            / (m.max(n) as f64 * fnorm(a, m, n, ld).max(f64::MIN_POSITIVE) * T::eps())
    }

    fn check_random<T: OpElem>(m: usize, n: usize, ld: usize, nb: usize, threads: usize) {
        check_random_part::<T>(m, n, ld, Part::uniform(nb), threads)
    }

    fn check_random_part<T: OpElem>(m: usize, n: usize, ld: usize, part: Part, threads: usize) {
        let nb = part.big();
        let mut rng = Rng::new((m * 1000 + n * 10 + nb) as u64);
        let a0 = rng.values::<T>(m, n, ld);
        check_against_backend(m, n, ld, &a0, part, threads);
    }

    /// The tile LU of `a0` against the backend's xGETRF: INFO and ipiv equal, a small residual,
    /// nothing outside the matrix written.
    fn check_against_backend<T: OpElem>(m: usize, n: usize, ld: usize, a0: &[T], part: Part, threads: usize) {
        let nb = part.big();
        let what = format!("{} m {m} n {n} nb {nb}", std::any::type_name::<T>());
        let (_, piv_ref, info_ref) = reference_getrf(m, n, a0, ld);
        let mut a = a0.to_vec();
        let (piv, r, info) = tile_getrf_part(m, n, &mut a, ld, part, threads);
        r.unwrap();
        assert_eq!(info, info_ref, "{what}: INFO");
        assert_eq!(piv, piv_ref, "{what}: ipiv differs from the backend's");
        let res = lu_residual(m, n, a0, &a, ld, &piv);
        assert!(res < 10.0, "{what}: scaled residual {res}");
        assert_untouched_outside(a0, &a, m, n, ld, None);
    }

    /// The largest |x − y| (modulus) over two arrays.
    fn max_diff<T: Scalar>(x: &[T], y: &[T]) -> f64 {
        x.iter()
            .zip(y)
            .map(|(&p, &q)| {
                let ((pr, pi), (qr, qi)) = (parts(p), parts(q));
                (pr - qr).hypot(pi - qi)
            })
            .fold(0.0, f64::max)
    }

    /// The generator with blocks of several tile columns per update task (as the ranks of one
    /// process row run it) on the shared-memory runtime, in every type: the same pivots as the
    /// backend, factors equal to rounding, nothing outside the matrix touched.
    #[test]
    fn column_blocks_give_the_backend_pivots() {
        each_type!(column_blocks_in);
    }

    fn column_blocks_in<T: OpElem>() {
        for &(m, n, nb, chunk, tasks) in
            &[(37, 37, 4, 3, 1), (50, 23, 5, 2, 1), (23, 50, 5, 4, 1), (64, 64, 8, 8, 1), (61, 61, 4, 2, 4)]
        {
            let what = format!("{} m {m} n {n} nb {nb} chunk {chunk}", std::any::type_name::<T>());
            let ld = m + 2;
            let a0 = Rng::new((m * 7 + n * 3 + chunk) as u64).values::<T>(m, n, ld);
            let (f, piv_ref, info_ref) = reference_getrf(m, n, &a0, ld);
            let mut a = a0.clone();
            let ta = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), m, n, ld, nb, nb) };
            let store = Buffers::default();
            let seq = Seq::new(&cfg(3));
            let mut g = SharedGraph::with_buffers(&seq, &ta, &store);
            let steps = generate(
                &mut g,
                &Lu {
                    pivot: Pivoting::Gepp,
                    panel: Panel::InPlace,
                    fused: true,
                    cut: Fuse { width: chunk, tasks },
                    leaves: 1,
                    leaf: 0,
                    split: false,
                },
            );
            let bufs: Vec<TiledMatrix<T>> = steps.iter().map(|s| g.buffer_matrix(s.piv)).collect();
            drop(g);
            seq.wait().unwrap();
            let of: HashMap<TileId, TiledMatrix<T>> = steps.iter().map(|s| s.piv).zip(bufs).collect();
            let (rows, info) = gather_pivots(&steps, m.min(n), |id| Some(store.values(&of[&id])));
            let (piv, info): (Vec<i32>, i32) = (rows.iter().map(|&r| r + 1).collect(), info.unwrap_or(0));
            assert_eq!((piv.clone(), info), (piv_ref, info_ref), "{what}");
            // 1e-12 in f64: about 9000 ε.
            let d = max_diff(&a, &f);
            assert!(d < 9000.0 * T::eps(), "{what}: factors differ by {d}");
            assert!(lu_residual(m, n, &a0, &a, ld, &piv) < 10.0);
            assert_untouched_outside(&a0, &a, m, n, ld, None);
        }
    }

    /// The tile LU with the given pivoting on `a` (m×n, leading dimension ld, tiles of nb):
    /// (ipiv, INFO).
    fn tile_lu<T: OpElem>(
        pivot: Pivoting,
        m: usize,
        n: usize,
        a: &mut [T],
        ld: usize,
        nb: usize,
    ) -> (Vec<i32>, i32) {
        let k = m.min(n);
        let mut ipiv = vec![-7i32; k.max(1)];
        let part = Part::uniform(nb);
        let ta = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), m, n, ld, part, part) };
        let tp =
            unsafe { TiledMatrix::from_raw_parts(ipiv.as_mut_ptr(), k, 1, k.max(1), part, Part::uniform(1)) };
        let info = ZeroPivot::new();
        let store = Buffers::default();
        // Single-threaded backend under the tasks, as the library's entry points arrange.
        let _blas = crate::backend::BlasThreadsGuard::new();
        let seq = Seq::new(&cfg(3));
        getrf(&seq, pivot, 3, &ta, &tp, &info, &store);
        seq.wait().unwrap();
        ipiv.truncate(k);
        (ipiv, info.get())
    }

    /// CALU (tournament pivoting) against GEPP on the same matrices: random, graded (columns
    /// scaled over 12 orders of magnitude), ill-conditioned (a random matrix times a diagonal
    /// from 1 to 1e-13 times another) and tall-skinny: a valid LAPACK ipiv, the backward error
    /// ‖PA − LU‖₁/(‖A‖₁·n·ε) within 4× of GEPP's (and small), the growth factor printed next to
    /// GEPP's; the backend's DGETRS solves with CALU's factors.
    #[test]
    fn calu_backward_error_is_within_4x_of_gepp() {
        calu_backward_cases::<f64>(&[
            (37, 37, 5, 0),
            (100, 100, 16, 0),
            (300, 300, 32, 0),
            (300, 300, 32, 1),
            (300, 300, 32, 2),
            (600, 40, 8, 0),
            (500, 64, 16, 2),
            (40, 90, 8, 0),
            (1000, 1000, 100, 0),
            (4000, 4000, 256, 0),
        ]);
    }

    fn calu_backward_cases<T: OpElem>(cases: &[(usize, usize, usize, usize)]) {
        let ty = std::any::type_name::<T>();
        for &(m, n, nb, kind) in cases {
            let ld = m + 1;
            let mut rng = Rng::new((m * 5 + n + nb * 3 + kind) as u64);
            let mut a0 = rng.values::<T>(m, n, ld);
            let scale = |x: T, s: f64| x.mul(T::from_f64(s));
            match kind {
                1 => (0..n).for_each(|j| {
                    (0..m).for_each(|i| {
                        a0[i + j * ld] = scale(a0[i + j * ld], 10f64.powf(-12.0 * j as f64 / n as f64))
                    })
                }),
                2 => {
                    // A = X·D·Y with D from 1 to 1e-13: condition about 1e13.
                    let x = rng.values::<T>(m, m, m);
                    let y = rng.values::<T>(m, n, m);
                    let mut dy = y.clone();
                    for i in 0..m {
                        let d = 10f64.powf(-13.0 * i as f64 / m as f64);
                        (0..n).for_each(|j| dy[i + j * m] = scale(dy[i + j * m], d));
                    }
                    let mut prod = vec![T::zero(); m * n];
                    crate::kernels::gemm(
                        Trans::No,
                        Trans::No,
                        T::one(),
                        crate::tile::View::from_slice(&x, m, m, m),
                        crate::tile::View::from_slice(&dy, m, n, m),
                        T::zero(),
                        crate::tile::ViewMut::from_slice(&mut prod, m, n, m),
                    );
                    (0..n).for_each(|j| (0..m).for_each(|i| a0[i + j * ld] = prod[i + j * m]));
                }
                _ => {}
            }
            let what = format!("{ty} m {m} n {n} nb {nb} kind {kind}");
            let (mut g, mut c) = (a0.clone(), a0.clone());
            let (gp, gi) = tile_lu(Pivoting::Gepp, m, n, &mut g, ld, nb);
            let (cp, ci) = tile_lu(Pivoting::Calu, m, n, &mut c, ld, nb);
            assert_eq!((gi, ci), (0, 0), "{what}: INFO");
            assert!(
                cp.iter().enumerate().all(|(t, &p)| p as usize > t && p as usize <= m),
                "{what}: CALU ipiv {cp:?}"
            );
            let (eg, ec) =
                (lu_backward_error(m, n, &a0, &g, ld, &gp), lu_backward_error(m, n, &a0, &c, ld, &cp));
            let (gg, gc) = (lu_growth(m, n, &a0, &g, ld), lu_growth(m, n, &a0, &c, ld));
            eprintln!("{what}: backward error GEPP {eg:.3} CALU {ec:.3}; growth GEPP {gg:.3} CALU {gc:.3}");
            assert!(
                ec <= 4.0 * eg.max(0.25) && ec < 10.0,
                "{what}: CALU backward error {ec} against GEPP's {eg}"
            );
            assert_untouched_outside(&a0, &c, m, n, ld, None);
            if m == n {
                // The backend's ?GETRS with CALU's factors and ipiv.
                let x0: Vec<T> = (0..n).map(|i| T::from_f64(1.0 + i as f64 / n as f64)).collect();
                let mut b = vec![T::zero(); n];
                for j in 0..n {
                    for i in 0..n {
                        b[i] = b[i].add(a0[i + j * ld].mul(x0[j]));
                    }
                }
                let mut info = 0;
                // SAFETY: c holds the n×n factors (leading dimension ld), cp n pivots, b n values.
                unsafe {
                    bk::getrs::<T>(
                        bk::ch(b'N'),
                        &(n as i32),
                        &1,
                        c.as_ptr(),
                        &(ld as i32),
                        cp.as_ptr(),
                        b.as_mut_ptr(),
                        &(n as i32),
                        &mut info,
                    )
                };
                assert_eq!(info, 0);
                if kind == 0 {
                    // 1e-8 in f64 (about 4.5e7 ε): the random matrices' conditions are modest.
                    let err = b.iter().zip(&x0).map(|(&x, &y)| x.sub(y).abs().into()).fold(0.0, f64::max);
                    assert!(err < 4.5e7 * T::eps(), "{what}: ?GETRS with CALU's factors is off by {err}");
                }
            }
        }
    }

    /// CALU in single real, single complex and double complex, by the same checks as the f64
    /// tests around it on smaller cases: random, graded, ill-conditioned (1e13: numerically
    /// singular in single precision, where the rule still holds CALU to GEPP), tall and wide;
    /// and the zero columns' INFO.
    #[test]
    fn calu_in_every_type() {
        fn each<T: OpElem>() {
            calu_backward_cases::<T>(&[
                (37, 37, 5, 0),
                (100, 100, 16, 0),
                (120, 120, 16, 1),
                (120, 120, 16, 2),
                (300, 60, 8, 0),
                (40, 90, 8, 0),
            ]);
            calu_singular_cases::<T>();
        }
        each::<f32>();
        each::<c32>();
        each::<c64>();
    }

    /// CALU on exactly singular matrices: zero columns (one, several, the first, the last) and a
    /// zero matrix give LAPACK's INFO (the first zero pivot of U is where GEPP's is) and factors
    /// free of NaN and Inf.
    #[test]
    fn calu_on_singular_matrices_gives_lapack_info() {
        calu_singular_cases::<f64>();
    }

    fn calu_singular_cases<T: OpElem>() {
        let ty = std::any::type_name::<T>();
        for &(m, n, nb, ref zero) in &[
            (30, 30, 4, vec![11]),
            (30, 30, 4, vec![0]),
            (30, 30, 4, vec![29]),
            (40, 25, 6, vec![3, 4, 17]),
            (25, 40, 6, vec![7, 30]),
            (12, 12, 5, (0..12).collect::<Vec<_>>()),
        ] {
            let what = format!("{ty} m {m} n {n} zero columns {zero:?}");
            let mut a0 = Rng::new((m * 3 + n + zero.len()) as u64).values::<T>(m, n, m);
            for &j in zero {
                (0..m).for_each(|i| a0[i + j * m] = T::zero());
            }
            let (_, _, info_ref) = reference_getrf(m, n, &a0, m);
            let mut c = a0.clone();
            let (cp, ci) = tile_lu(Pivoting::Calu, m, n, &mut c, m, nb);
            assert_eq!(ci, info_ref, "{what}: INFO");
            assert!(
                c.iter().all(|&x| parts(x).0.is_finite() && parts(x).1.is_finite()),
                "{what}: NaN or Inf in the factors"
            );
            assert!(lu_backward_error(m, n, &a0, &c, m, &cp) < 10.0, "{what}");
        }
    }

    #[test]
    fn square_and_rectangular_match_backend_pivots() {
        each_type!(square_and_rectangular_in);
    }

    fn square_and_rectangular_in<T: OpElem>() {
        for &(m, n, nb) in &[
            (1, 1, 3),
            (2, 2, 3),
            (2, 1, 3),
            (1, 2, 3),
            (1, 9, 3),
            (9, 1, 3),
            (7, 7, 3),
            (37, 37, 5),
            (64, 64, 8),
            (50, 23, 8),
            (23, 50, 8),
            (23, 50, 5),
            (41, 40, 8),
            (40, 41, 8),
            (100, 37, 16),
            (37, 100, 16),
            (90, 90, 13),
        ] {
            check_random::<T>(m, n, m + 3, nb, 3);
        }
    }

    #[test]
    fn one_tile_and_one_thread() {
        each_type!(one_tile_and_one_thread_in);
    }

    fn one_tile_and_one_thread_in<T: OpElem>() {
        check_random::<T>(30, 30, 30, 64, 1);
        check_random::<T>(33, 21, 35, 5, 1);
    }

    /// An exactly singular M×N matrix whose factorization has no rounding at all: P·A = L0·U0 with
    /// a chosen pivot sequence, unit-lower L0 with off-diagonal entries in {0, ±1/4, ±1/2} (so
    /// each pivot is the unique largest entry of its column), U0 with small integer entries,
    /// power-of-two diagonal, and the rows listed in `zero` entirely zero. In a complex type L0
    /// also takes ±i/4, i/2 and (1 + i)/4 (|re| + |im| ≤ 1/2, so |l·u| stays below |u| in
    /// ICAMAX's measure) and U0 imaginary parts (its diagonal ±2i, −i among the choices). Every
    /// elimination step is then exact in any order of operations, so any GEPP must return exactly
    /// this ipiv, L0 and U0, and INFO = first zero row + 1. Returns (A, ipiv, expected factors).
    fn exact_singular<T: Scalar>(
        m: usize,
        n: usize,
        ld: usize,
        zero: &[usize],
        seed: u64,
    ) -> (Vec<T>, Vec<i32>, Vec<T>) {
        let k = m.min(n);
        let mut rng = Rng::new(seed);
        let mut pick = |choices: &[(f64, f64)]| {
            let r = ((rng.next() + 1.0) / 2.0 * choices.len() as f64) as usize;
            choices[r.min(choices.len() - 1)]
        };
        let re = |v: &[f64]| -> Vec<(f64, f64)> { v.iter().map(|&x| (x, 0.0)).collect() };
        let (mut lc, mut dc, mut uc) = (
            re(&[0.0, 0.25, -0.25, 0.5, -0.5]),
            re(&[1.0, -1.0, 2.0, -2.0, 4.0, -4.0]),
            re(&[0.0, 1.0, -1.0, 2.0, -3.0, 4.0]),
        );
        if T::COMPLEX {
            lc.extend([(0.0, 0.25), (0.0, -0.25), (0.0, 0.5), (0.25, 0.25)]);
            dc.extend([(0.0, 2.0), (0.0, -1.0)]);
            uc.extend([(0.0, 1.0), (1.0, -2.0), (-3.0, 1.0)]);
        }
        let (mut l0, mut u0) = (vec![(0.0, 0.0); m * k], vec![(0.0, 0.0); k * n]);
        for t in 0..k {
            l0[t + t * m] = (1.0, 0.0);
            if zero.contains(&t) {
                // A zero pivot leaves LAPACK's column of multipliers as the (zero) column itself.
                continue;
            }
            for i in t + 1..m {
                l0[i + t * m] = pick(&lc);
            }
            u0[t + t * k] = pick(&dc);
            for j in t + 1..n {
                u0[t + j * k] = pick(&uc);
            }
        }
        // ipiv: a pivot row at or below each step; a zero step must keep its own row, since the
        // first largest entry of an all-zero column is the diagonal one.
        let mut ipiv = vec![0i32; k];
        for (t, p) in ipiv.iter_mut().enumerate() {
            let r = if zero.contains(&t) {
                t
            } else {
                t + ((pick(&re(&[0.0, 0.3, 0.6, 0.99])).0 * (m - t) as f64) as usize)
            };
            *p = (r.min(m - 1) + 1) as i32;
        }
        // P·A = L0·U0, so A = Pᵀ·(L0·U0): undo the swaps in reverse order.
        let mut lu = vec![(0.0, 0.0); m * n];
        for j in 0..n {
            for i in 0..m {
                lu[i + j * m] = (0..k).fold((0.0, 0.0), |(sr, si), t| {
                    let (pr, pi) = mul(l0[i + t * m], u0[t + j * k]);
                    (sr + pr, si + pi)
                });
            }
        }
        for t in (0..k).rev() {
            let p = ipiv[t] as usize - 1;
            for j in 0..n {
                lu.swap(t + j * m, p + j * m);
            }
        }
        let v = |(r, i): (f64, f64)| T::from_parts(r, i);
        let mut a = vec![guard::<T>(); ld * n];
        let mut f = vec![guard::<T>(); ld * n];
        for j in 0..n {
            for i in 0..m {
                a[i + j * ld] = v(lu[i + j * m]);
                f[i + j * ld] = v(if i > j { l0[i + j * m] } else { u0[i + j * k] });
            }
        }
        (a, ipiv, f)
    }

    #[test]
    fn exactly_singular_matrices_give_lapack_info_and_exact_factors() {
        each_type!(exactly_singular_cases, None);
    }

    /// The exact singular cases with their own uniform tiles, or all with `part`.
    fn exactly_singular_cases<T: OpElem>(part: Option<Part>) {
        let name = std::any::type_name::<T>();
        for &(m, n, nb, ref zero) in &[
            (20, 20, 5, vec![7]),
            (20, 20, 5, vec![5, 6]),
            (20, 20, 5, vec![19]),
            (20, 20, 5, vec![0]),
            (31, 17, 4, vec![3, 16]),
            (17, 31, 4, vec![12]),
            (17, 31, 4, vec![16]),
            (33, 33, 8, vec![8, 9, 10, 31]),
        ] {
            let ld = m + 2;
            let (a0, piv0, f0) = exact_singular::<T>(m, n, ld, zero, (m * n + zero[0]) as u64);
            let (f_ref, piv_ref, info_ref) = reference_getrf(m, n, &a0, ld);
            let mut a = a0.clone();
            let (piv, r, info) = tile_getrf_part(m, n, &mut a, ld, part.unwrap_or(Part::uniform(nb)), 3);
            r.unwrap();
            let want = zero[0] as i32 + 1;
            assert_eq!(info_ref, want, "{name}: the backend disagrees with the construction");
            assert_eq!(info, want, "{name} m {m} n {n} zero {zero:?}: INFO");
            assert_eq!(piv, piv0, "{name} m {m} n {n} zero {zero:?}: ipiv");
            assert_eq!(piv_ref, piv0, "{name}: the backend disagrees with the construction");
            assert!(a == f0, "{name} m {m} n {n} zero {zero:?}: factors are not exact");
            assert!(f_ref == f0, "{name}: the backend's factors are not exact either");
        }
    }

    #[test]
    fn ties_give_lapack_pivots() {
        each_type!(ties_in);
    }

    /// Entries ±1 and ±2 (in a complex type also ±i, 1 + i, −2i, 1 − i: equal |re| + |im| at
    /// different moduli): many exact ties in the first columns of every panel, which LAPACK's
    /// IxAMAX breaks by the first row (measuring |re| + |im| in the complex types); the recursive
    /// panel (leaves of 1..32 columns, updates side by side) must pick the same rows as the
    /// backend's xGETRF.
    fn ties_in<T: OpElem>() {
        for &(m, n, nb, threads) in &[
            (37, 37, 5, 3),
            (64, 40, 8, 2),
            (90, 90, 16, 3),
            (150, 100, 64, 2),
            (300, 260, 128, 3),
            (260, 300, 128, 2),
        ] {
            let ld = m + 2;
            let mut rng = Rng::new((m * 7 + n) as u64);
            let mut a0 = rng.values::<T>(m, n, ld);
            let choices: &[(f64, f64)] = if T::COMPLEX {
                &[
                    (-2.0, 0.0),
                    (-1.0, 0.0),
                    (1.0, 0.0),
                    (2.0, 0.0),
                    (0.0, 1.0),
                    (1.0, 1.0),
                    (0.0, -2.0),
                    (1.0, -1.0),
                ]
            } else {
                &[(-2.0, 0.0), (-1.0, 0.0), (1.0, 0.0), (2.0, 0.0)]
            };
            for j in 0..n {
                for i in 0..m {
                    let (x, _) = parts(a0[i + j * ld]);
                    let (re, im) = choices[(x.abs() * 1e6) as usize % choices.len()];
                    a0[i + j * ld] = T::from_parts(re, im);
                }
            }
            check_against_backend(m, n, ld, &a0, Part::uniform(nb), threads);
        }
    }

    #[test]
    fn zero_columns_rows_and_matrix_give_backend_info() {
        each_type!(zero_columns_rows_and_matrix_in);
    }

    fn zero_columns_rows_and_matrix_in<T: OpElem>() {
        let name = std::any::type_name::<T>();
        let cases: &[(usize, usize, &[usize], &[usize])] = &[
            // (m, n, zero columns, zero rows)
            (25, 25, &[0], &[]),
            (25, 25, &[4], &[]),
            (25, 25, &[5, 12], &[]),
            (25, 25, &[24], &[]),
            (25, 25, &[], &[3]),
            (25, 25, &[], &[3, 20]),
            (30, 18, &[9], &[]),
            (30, 18, &[], &[0, 1, 2]),
            (18, 30, &[17], &[]),
            (18, 30, &[20], &[4]),
        ];
        for &(m, n, cols, rows) in cases {
            let ld = m + 1;
            let mut rng = Rng::new((m + n) as u64);
            let mut a0 = rng.values::<T>(m, n, ld);
            for &c in cols {
                (0..m).for_each(|i| a0[i + c * ld] = T::zero());
            }
            for &r in rows {
                (0..n).for_each(|j| a0[r + j * ld] = T::zero());
            }
            let (_, piv_ref, info_ref) = reference_getrf(m, n, &a0, ld);
            let mut a = a0.clone();
            let (piv, r, info) = tile_getrf(m, n, &mut a, ld, 5, 3);
            r.unwrap();
            assert_eq!(info, info_ref, "{name} m {m} n {n} cols {cols:?} rows {rows:?}");
            assert!(info > 0 || !cols.iter().any(|&c| c < m.min(n)), "a zero column must be reported");
            assert_eq!(piv, piv_ref, "{name} m {m} n {n} cols {cols:?} rows {rows:?}: ipiv");
            let res = lu_residual(m, n, &a0, &a, ld, &piv);
            assert!(res < 10.0, "{name} m {m} n {n}: scaled residual {res}");
            assert_untouched_outside(&a0, &a, m, n, ld, None);
        }
        for &(m, n) in &[(1, 1), (12, 12), (12, 7), (7, 12)] {
            let mut a = vec![T::zero(); m * n];
            let (piv_ref, info_ref) = {
                let (_, p, i) = reference_getrf(m, n, &a, m);
                (p, i)
            };
            let (piv, r, info) = tile_getrf(m, n, &mut a, m, 3, 3);
            r.unwrap();
            assert_eq!((info, &piv), (info_ref, &piv_ref), "{name} zero {m}×{n}");
            assert_eq!(info, 1);
            assert!(a.iter().all(|&x| x == T::zero()));
        }
    }

    #[test]
    fn nan_input_returns() {
        each_type!(nan_input_in);
    }

    fn nan_input_in<T: OpElem>() {
        for &(m, n, at) in &[(20, 20, (3, 3)), (20, 20, (19, 0)), (20, 13, (0, 12)), (13, 20, (7, 19))] {
            let mut rng = Rng::new(3);
            let mut a = rng.values::<T>(m, n, m);
            a[at.0 + at.1 * m] = T::from_f64(f64::NAN);
            let (piv, r, _) = tile_getrf(m, n, &mut a, m, 4, 3);
            r.unwrap();
            assert!(piv.iter().all(|&p| p >= 1 && p as usize <= m), "pivots out of range: {piv:?}");
            assert!(a.iter().any(|&x| {
                let (re, im) = parts(x);
                re.is_nan() || im.is_nan()
            }));
        }
    }

    #[test]
    fn getrs_matches_backend_solve_on_the_same_factors() {
        each_type!(getrs_cases, Part::uniform(6));
    }

    /// The tile solve with the backend's factors against the backend's xGETRS, TRANS = N, T, C.
    fn getrs_cases<T: OpElem>(part: Part) {
        let name = std::any::type_name::<T>();
        let (n, nrhs, lda, ldb) = (47, 9, 50, 49);
        let mut rng = Rng::new(11);
        let a0 = rng.values::<T>(n, n, lda);
        let (f, piv, info) = reference_getrf(n, n, &a0, lda);
        assert_eq!(info, 0);
        for (tc, solve) in [(b'N', Solve::Plain), (b'T', Solve::Transposed), (b'C', Solve::Adjoint)] {
            let b0 = rng.values::<T>(n, nrhs, ldb);
            let mut want = b0.clone();
            let mut info = 0;
            // SAFETY: sizes as declared.
            unsafe {
                bk::getrs::<T>(
                    bk::ch(tc),
                    &(n as i32),
                    &(nrhs as i32),
                    f.as_ptr(),
                    &(lda as i32),
                    piv.as_ptr(),
                    want.as_mut_ptr(),
                    &(ldb as i32),
                    &mut info,
                )
            };
            assert_eq!(info, 0);
            let (mut fa, mut fp, mut b) = (f.clone(), piv.clone(), b0.clone());
            let ta = unsafe { TiledMatrix::from_raw_parts(fa.as_mut_ptr(), n, n, lda, part, part) };
            let tp = unsafe { TiledMatrix::from_raw_parts(fp.as_mut_ptr(), n, 1, n, part, Part::uniform(1)) };
            let tb =
                unsafe { TiledMatrix::from_raw_parts(b.as_mut_ptr(), n, nrhs, ldb, part, Part::uniform(4)) };
            let seq = Seq::new(&cfg(3));
            getrs(&seq, solve, &ta, &tp, &tb);
            seq.wait().unwrap();
            let scale = fnorm(&want, n, nrhs, ldb);
            let d: Vec<(f64, f64)> = want
                .iter()
                .zip(&b)
                .map(|(&x, &y)| {
                    let ((xr, xi), (yr, yi)) = (parts(x), parts(y));
                    (xr - yr, xi - yi)
                })
                .collect();
            let dn = d.iter().map(|&(r, i)| r * r + i * i).sum::<f64>().sqrt();
            let err = dn / (scale * n as f64 * T::eps());
            assert!(err < 100.0, "{name} {solve:?}: difference from the backend's solve {err}");
            assert!(fa == f, "{name}: A must not change");
            assert_eq!(fp, piv, "{name}: ipiv must not change");
            assert_untouched_outside(&b0, &b, n, nrhs, ldb, None);
        }
    }

    #[test]
    fn corrupt_ipiv_fails_cleanly() {
        let (n, nb) = (10, 4);
        let mut a = Rng::new(1).spd(n, n);
        let mut b = vec![1.0; n];
        let mut piv: Vec<i32> = (1..=n as i32).collect();
        piv[3] = n as i32 + 5;
        let ta = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), n, n, n, nb, nb) };
        let tp = unsafe { TiledMatrix::from_raw(piv.as_mut_ptr(), n, 1, n, nb, 1) };
        let tb = unsafe { TiledMatrix::from_raw(b.as_mut_ptr(), n, 1, n, nb, nb) };
        let seq = Seq::new(&cfg(2));
        getrs(&seq, Solve::Plain, &ta, &tp, &tb);
        assert!(matches!(seq.wait(), Err(Error::Runtime(_))));
    }

    #[test]
    fn on_one_two_three_emulated_devices() {
        for_device_setups(|| {
            square_and_rectangular_in::<f64>();
            one_tile_and_one_thread_in::<f64>();
            exactly_singular_cases::<f64>(None);
            zero_columns_rows_and_matrix_in::<f64>();
            nan_input_in::<f64>();
            getrs_cases::<f64>(Part::uniform(6));
            corrupt_ipiv_fails_cleanly();
            // The other types' tasks on the devices as f64's: unfused (interchanges, TRSM and
            // GEMM as separate ops), the interchanges reading pivots as each type stores them.
            exactly_singular_cases::<c64>(None);
            exactly_singular_cases::<f32>(None);
            square_and_rectangular_in::<f32>();
            square_and_rectangular_in::<c32>();
            square_and_rectangular_in::<c64>();
            calu_backward_cases::<c32>(&[(37, 37, 5, 0), (120, 40, 8, 2)]);
            calu_on_singular_matrices_gives_lapack_info();
            calu_backward_cases::<f64>(&[(37, 37, 5, 0), (100, 100, 16, 1), (120, 40, 8, 2), (40, 90, 8, 0)]);
        });
    }

    #[test]
    fn hybrid_partitions_on_one_two_three_emulated_devices() {
        for_hybrid_setups(|part| {
            for &(m, n) in &[(1, 1), (2, 9), (9, 2), (37, 37), (50, 23), (23, 50), (41, 40), (64, 61)] {
                check_random_part::<f64>(m, n, m + 3, part, 3);
            }
            exactly_singular_cases::<f64>(Some(part));
            getrs_cases::<f64>(part);
            check_random_part::<c32>(41, 40, 44, part, 3);
        });
    }

    #[test]
    fn trailing_updates_run_on_the_devices() {
        let (m, n, nb) = (70, 61, 8);
        let mut rng = Rng::new(99);
        let a0 = rng.matrix(m, n, m);
        let (_, piv_ref, _) = reference_getrf(m, n, &a0, m);
        let mut a = a0.clone();
        let mut ipiv = vec![0i32; n];
        let ta = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), m, n, m, nb, nb) };
        let tp = unsafe { TiledMatrix::from_raw(ipiv.as_mut_ptr(), n, 1, n, nb, 1) };
        let mut c = cfg(3).with_emulated(2, 1 << 20);
        c.host_share = Some(0.25);
        let seq = Seq::new(&c);
        let store = Buffers::default();
        getrf(&seq, Pivoting::Gepp, 3, &ta, &tp, &ZeroPivot::new(), &store);
        let (r, stats) = seq.wait_stats();
        r.unwrap();
        assert_eq!(ipiv, piv_ref);
        assert!(lu_residual(m, n, &a0, &a, m, &ipiv) < 10.0);
        for s in &stats {
            assert!(s.tasks > 0 && s.host_fallbacks == 0, "{s:?}");
        }
    }
}
