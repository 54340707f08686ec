//! Accelerators the runtime schedules tile kernels onto, their memory managers, and the choice of
//! whether a call uses them at all.
//!
//! The structure follows Song and Dongarra (seeds 000 §4–5, 001 §3–4): every device has its own
//! ready queue served by one *management thread*; a task runs where its output tile lives
//! (owner-compute, [`crate::runtime`]'s placement); there is no stealing between host and
//! devices. Data moves lazily and only in the direction needed, under the memory manager of Park
//! and Perumalla's libaccelmm (seeds 003, [`memory`]).
//!
//! A device is anything implementing [`Device`]: memory allocation in bytes, copies of one host
//! tile in and out, execution of a [`DeviceOp`] on device buffers, and synchronisation. Two
//! implementations: [`cuda`] (cudarc, dynamically loaded; compiled and unit-tested here, not
//! yet run on a GPU in this project) and the [`emulated`] accelerator, a device with its own
//! memory arena and a hard capacity whose kernels are the host BLAS run on its own copies. The emulated device is part of the product: it is how
//! every path except the CUDA calls themselves is tested on machines without a GPU.
//!
//! # How a task carries a device kernel
//!
//! An algorithm declares a task's tiles as usual and attaches a data description of the same work:
//!
//! ```ignore
//! Task::new("gemm").read(&a, m, k).read(&a, n, k).rw(&a, m, n)
//!     .device_op(DeviceOp::Gemm { ta: Trans::No, tb: Trans::Yes, alpha: -1.0, a: Tiles::one(0),
//!                                 b: Tiles::one(1), beta: 1.0, c: Tiles::one(2), k: kb })
//! ```
//!
//! Operands name the task's declared tiles *by position* (the order of `read`/`rw`/... calls, a
//! tile declared twice keeping its first position); a multi-tile operand ([`Tiles::stack`]) is a
//! run of consecutive positions holding consecutive tile rows of one tile column, which the
//! kernel sees as one column-major block. The host closure stays the task's body on the host; a
//! task without a device op always runs on the host.

pub mod cuda;
pub mod emulated;
pub mod lower;
pub mod memory;

use crate::config::Config;
use crate::error::Error;
use crate::kernels::{Diag, Dir, Side, Trans, Uplo};
use crate::scalar::Coef;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

/// A run of a task's declared tiles: positions `first .. first + count` (in declaration order),
/// consecutive tile rows of one tile column, seen by a kernel as one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiles {
    pub first: usize,
    pub count: usize,
}

impl Tiles {
    /// The single declared tile at position `p`.
    pub const fn one(p: usize) -> Self {
        Tiles { first: p, count: 1 }
    }
    /// `count` declared tiles from position `first` on, stacked vertically.
    pub const fn stack(first: usize, count: usize) -> Self {
        Tiles { first, count }
    }
    pub(crate) fn positions(self) -> std::ops::Range<usize> {
        self.first..self.first + self.count
    }
}

/// A tile kernel described as data, so that any device can run it on its own copies of the
/// operands. Shapes come from the operand tiles; where a kernel uses only a leading part of an
/// operand the description says how much (`k` of GEMM, the triangle of TRSM is the leading square
/// of A matching B).
#[derive(Clone, Debug, PartialEq)]
pub enum DeviceOp {
    /// C ← α·op(A)·op(B) + β·C; C is the whole tile, op(A) its leading c.m×k part and op(B) the
    /// leading k×c.n part.
    Gemm { ta: Trans, tb: Trans, alpha: Coef, a: Tiles, b: Tiles, beta: Coef, c: Tiles, k: usize },
    /// C ← α·op(A)·op(A)ᵀ + β·C on the `uplo` triangle of the square tile C.
    Syrk { uplo: Uplo, trans: Trans, alpha: f64, a: Tiles, beta: f64, c: Tiles },
    /// B ← α·op(A)⁻¹·B (left) or α·B·op(A)⁻¹ (right), A the leading square of its tile.
    Trsm { side: Side, uplo: Uplo, trans: Trans, diag: Diag, alpha: f64, a: Tiles, b: Tiles },
    /// Cholesky of one square tile. A local failure at column i becomes
    /// `Error::Numerical(info_base + i)`.
    Potrf { uplo: Uplo, a: Tiles, info_base: i32 },
    /// Row interchanges on a block `a` (a stack of tiles): `count` pivots read from column 0 of
    /// the f64 tile `ipiv` (exact small integers), each minus `ipiv_base`, are block-local
    /// 1-based rows (LASWP of an LU step).
    Laswp { a: Tiles, ipiv: Tiles, ipiv_base: i32, count: usize, dir: Dir },
    /// The row interchanges of several LU steps on the block `a` (host only), in order: step s
    /// swaps, for its `steps[s].1` pivots read from column 0 of pivot buffer s of the stack
    /// `piv` (1-based, relative to row `steps[s].0` of `a`), rows from `steps[s].0` on.
    LaswpSteps { a: Tiles, piv: Tiles, steps: Vec<(usize, usize)> },
    /// C ← (I − V·Tᵀ·Vᵀ)·C (DLARFB 'L','T','F','C'); V and C are stacks of the same rows, `k`
    /// reflectors, T the leading k×k of its tile.
    Larfb { v: Tiles, k: usize, t: Tiles, c: Tiles },

    // Gathered panels (the QR's and the LU's on ranks): host-only ops.
    /// `p` ← the rows of the stack `col`, one below the other (a panel gathered in one buffer).
    Gather { p: Tiles, col: Tiles },
    /// `a` ← rows `row .. row + a.m` of `src` (a gathered panel's rows back into their tile).
    Scatter { a: Tiles, src: Tiles, row: usize },

    // Householder QR (`algo::geqrf`): host-only ops ([`DeviceOp::on_device`] is false), so no
    // device ever receives them.
    /// DGEQRF on the block `a` (a stack): its first `kb` columns become R above the diagonal and
    /// the reflectors below it, the rest of the block (when wider) gets Hᵀ; T (kb×kb) goes to the
    /// leading rows of `tt`, tau to column 0 of its rows kb..2·kb. Two outputs: `a` and `tt`.
    QrPanel { a: Tiles, kb: usize, tt: Tiles },
    /// S ← Σ_t V_tᵀ·C_t over the `offs.len()` tiles of `c` (each a block of its own, not a
    /// stack), V_t the rows `offs[t]..` of the first `k` columns of `v` (unit lower trapezoidal
    /// where `offs[t]` = 0); S is the leading k×n of `s`.
    QrVtc { s: Tiles, v: Tiles, k: usize, c: Tiles, offs: Vec<usize> },
    /// W ← Tᵀ·(W + Σ others) on the leading k×n of `w` (each of `others` a block of its own),
    /// T the leading k×k of `t`.
    QrTw { w: Tiles, t: Tiles, k: usize, others: Tiles },
    /// C ← C − V·W, V the rows `off..` of the first `k` columns of `v` (unit lower trapezoidal
    /// where `off` = 0), W the leading k×n of `w`.
    QrVw { c: Tiles, v: Tiles, k: usize, w: Tiles, off: usize },

    // LU with partial pivoting (`algo::getrf`): host-only ops. A panel's pivot buffer `piv`
    // (at least r×4, r = the panel's pivots) holds, per top position t < r, the block-local
    // 1-based pivot in column 0, in column 1 the panel row that ends at t after all r
    // interchanges, in column 2 (when that row is r or below) the top row that ends in its
    // place, else −1, and in entry (0, 3) the panel's INFO (first zero pivot, 1-based, or 0);
    // all exact small integers (`kernels::getrf::Perm`).
    /// GEPP (DGETRF) on the block `a` (a stack): r = min(rows, columns) pivots; the pivot
    /// buffer written as above. Two outputs: `a` and `piv`.
    LuPanel { a: Tiles, piv: Tiles },
    /// A leaf of the recursive panel (`algo::getrf`): `a` is the whole panel (a stack, rows from
    /// its top); GEPP on its columns c0..c0 + n, rows c0.. (DGETRF), those interchanges applied
    /// to the panel's other columns (rows c0..), the pivots (panel-local, 1-based) into rows
    /// c0..c0 + n of column 0 of `piv`, INFO into (0, 3) unless an earlier leaf set it; the last
    /// leaf (c0 + n = the panel's pivots) completes the buffer as [`DeviceOp::LuPanel`] leaves
    /// it. Two outputs: `a` and `piv`.
    LuLeaf { a: Tiles, piv: Tiles, c0: usize, n: usize },
    /// The update of one block of rows of the recursive panel after its columns c0..c1 were
    /// factored, on columns c1..c2. Without `u`, `a` starts at the panel's top: its rows c0..c1 of
    /// columns c1..c2 ← L⁻¹·(them), L the unit lower triangle of rows and columns c0..c1, then
    /// its rows c1.. of columns c1..c2 −= (their columns c0..c1)·(those solved rows). With `u`
    /// (the panel's top tile, solved already), all of `a`'s rows of columns c1..c2 −= (their
    /// columns c0..c1)·(`u`'s rows c0..c1 of columns c1..c2).
    LuSplitUpdate { a: Tiles, u: Option<Tiles>, c0: usize, c1: usize, c2: usize },
    /// One block of whole tile columns right of panel k (tile rows k.. of each, column by column,
    /// one block in memory): the panel's `r` interchanges from `piv`, then its top r rows ←
    /// L₁₁⁻¹·(them) (unit lower, the leading r×r of `l`) and the rows below −= L₂₁·(top rows),
    /// L₂₁ the rows r.. of `l`'s first r columns.
    LuUpdate { a: Tiles, l: Tiles, piv: Tiles, r: usize },
    /// `x` row t ← the row that ends at top position t, for t < r, when it lies in one of the
    /// tiles `c` (each a block of its own; tile c starts `offs[c]` rows below the panel's top).
    LuExtract { x: Tiles, piv: Tiles, c: Tiles, offs: Vec<usize> },
    /// W of one tile column of a panel step whose tiles are in several places: rows 0..h (h =
    /// `old`'s height, tile (k, j)) get the new tile (k, j), every row that ends there from where
    /// `from` says (tile row k + i of the column: `from[i]`; tile row i starts `offs[i]` rows
    /// below the panel's top), then, when `l` (tile (k, k)) is given, its top r rows ←
    /// L₁₁⁻¹·(them); rows h..h + r get the old top rows (what the rows below receive).
    LuNewTop {
        w: Tiles,
        old: Tiles,
        piv: Tiles,
        others: Tiles,
        from: Vec<LuSrc>,
        offs: Vec<usize>,
        l: Option<Tiles>,
    },
    /// The tiles `c` (one block: tile rows of one column in one place; tile b starts `rows[b].0`
    /// rows below the panel's top and has `rows[b].1` rows) after a panel step on several places:
    /// a first tile that is tile row k (`rows[0].0` = 0) ← rows 0..h of W (h = tile row k's
    /// height); every other row that the interchanges move a top row into ← that row (W's rows
    /// h..); then, when `l` is given (the panel's L at the rows of the tiles below tile row k),
    /// those tiles −= L·(W's top r rows).
    /// With `solve` (CALU's panel column) the rows below the panel's top r instead become
    /// L₂₁ ← (them)·U₁₁⁻¹, U₁₁ the upper triangle of W's top r×r (a zero pivot divides nothing,
    /// as in LAPACK's DGETF2).
    LuFill {
        c: Tiles,
        w: Tiles,
        piv: Tiles,
        l: Option<Tiles>,
        rows: Vec<(usize, usize)>,
        h: usize,
        solve: bool,
    },

    /// Step `j` (0..=r) of a GEPP panel whose rows are in several places, on one place's tiles
    /// `a` of the panel column (one block; tile b starts `rows[b].0` rows below the panel's top
    /// and has `rows[b].1` rows; r = the panel's width), the way LAPACK's DGETRF goes: column by
    /// column inside blocks of `block` columns, a block's update of the columns right of it at
    /// its end. With j > 0 it first finishes column c = j − 1 from the candidates of every place
    /// for it (`others`, blocks of their own, this place's among them): the pivot is the largest
    /// magnitude, the lowest panel row among equals (IDAMAX over the whole column); that row and
    /// row c are exchanged where they are here, the rows below c of column c divided by the pivot
    /// (unless it is zero) and updated by the rank-1 product with the pivot row on the rest of
    /// c's block; the pivot row goes to row c of `urows` (this place's copy of the panel's
    /// pivot rows); when c ends a block, U₁₂ of the block from `urows` and the GEMM of the rows
    /// below it (`kernels::gepp_block_update`). With j < r it then writes into `cand` its
    /// candidate for column j ([`crate::kernels::Candidate`]). `piv`, given on the place of the
    /// panel's top tile, records the pivots; step r completes it as [`DeviceOp::LuPanel`] leaves
    /// it. Outputs: `a`, `cand`, `urows` and `piv`.
    LuColumn {
        a: Tiles,
        cand: Tiles,
        urows: Tiles,
        piv: Option<Tiles>,
        others: Tiles,
        rows: Vec<(usize, usize)>,
        j: usize,
        r: usize,
        block: usize,
    },

    // Tournament pivoting (CALU's TSLU panel, `algo::getrf`): host-only ops. A candidate buffer
    // holds up to w candidate rows of a w-wide panel: their values as they were before the panel
    // was factored (columns 0..w) and their panel row (column w; −1 in unused rows).
    /// GEPP on a copy of the block `a` (tile b of it starting `rows[b].0` rows below the panel's
    /// top, `rows[b].1` rows): its min(rows, w) pivot rows, in pivot order, into `cand`.
    CaluLeaf { cand: Tiles, a: Tiles, rows: Vec<(usize, usize)> },
    /// The candidates of `cand` and of each of `others` (each a block of its own) stacked, GEPP on
    /// a copy: the first min(count, w) pivot rows, in pivot order, into `cand`.
    CaluMerge { cand: Tiles, others: Tiles },
    /// The final candidates (`cand`, the r winners): GEPP on their values gives the order of the
    /// top rows and L₁₁, U₁₁ (into `f`, r×w); the interchanges that bring them to the top, their
    /// permutation and INFO into the pivot buffer `piv`. Two outputs: `f` and `piv`.
    CaluRoot { f: Tiles, piv: Tiles, cand: Tiles },
    /// W of the panel column: rows 0..h the panel's tile (k, k) after the interchanges, with the
    /// top r rows from `f` (L₁₁ and U₁₁); rows h..h + r the old top rows.
    CaluTop { w: Tiles, old: Tiles, piv: Tiles, f: Tiles },

    // Block tridiagonal systems (`algo::bt`): host-only ops on M×M blocks.
    /// GEPP (DGETRF) of the square block `a`; its interchanges (block-local, 1-based, as exact
    /// small integers) into column 0 of `piv`. A first exactly-zero pivot at local row i fails
    /// the step with `Error::Numerical(info_base + i)`. Two outputs: `a` and `piv`.
    BtLu { a: Tiles, piv: Tiles, info_base: i32 },
    /// DGETRS: B ← op(A)⁻¹·B, A given by [`DeviceOp::BtLu`]'s factors `lu` and pivots `piv`.
    BtSolve { b: Tiles, lu: Tiles, piv: Tiles, trans: Trans },
    // Inverses (`algo::trtri`, `algo::getri`): host-only ops.
    /// B ← α·op(A)·B (left) or α·B·op(A) (right), A the leading square of its tile, triangular.
    Trmm { side: Side, uplo: Uplo, trans: Trans, diag: Diag, alpha: f64, a: Tiles, b: Tiles },
    /// The inverse of the `uplo` triangle of the square tile `a`, in place (DTRTRI; the caller
    /// has ruled out a zero diagonal element).
    Trtri { uplo: Uplo, diag: Diag, a: Tiles },
    /// U·Uᵀ (upper) or Lᵀ·L (lower) of the triangle of the square tile `a`, into it (DLAUUM).
    Lauum { uplo: Uplo, a: Tiles },
    /// `w` ← the part of tile `a` strictly below the matrix's diagonal (all of it unless
    /// `diagonal`: then its strictly lower triangle, the rest of `w` zero), and that part of `a`
    /// ← 0 (DGETRI taking L's column out). Two outputs: `a` and `w`.
    LowerOut { a: Tiles, w: Tiles, diagonal: bool },
    /// DGETRI's column interchanges where a tile row's tiles are in several places: `x` column t
    /// ← column `cols[t].1` of the tile at position `a.first + cols[t].0` (`a`: tiles of one tile
    /// row in one place, each a block of its own), the columns another place's tiles receive.
    ColExtract { x: Tiles, a: Tiles, cols: Vec<(usize, usize)> },
    /// DGETRI's column interchanges on the block `a` (a tile row's tiles in one place, side by
    /// side; the whole tile row in shared memory): column c ← `src[c]`, a column of the block as
    /// it was or of one of the [`DeviceOp::ColExtract`] buffers `from`.
    ColFill { a: Tiles, from: Option<Tiles>, src: Vec<ColSrc> },

    // Q from DGEQRF's reflectors (`algo::ormqr`): host-only ops.
    /// T (the leading kb×kb of `t`, kb = tau.len()) of the block reflector of V, the first kb
    /// columns of the stack `v` (DLARFT 'F','C'), with the reflectors' scalars `tau`.
    QrT { t: Tiles, v: Tiles, tau: Vec<f64> },
    /// C ← op(H)·C (`side` Left; `c` a stack of tile rows of one column) or C·op(H) (Right; `c`
    /// tiles of one tile row side by side), H = I − V·T·Vᵀ with `k` reflectors in `v` (a stack,
    /// unit lower trapezoidal), T the leading k×k of `t` (DLARFB `side`, `trans`, 'F', 'C').
    QrApply { side: Side, trans: Trans, v: Tiles, k: usize, t: Tiles, c: Tiles },
    /// The block `a` (a whole tile column, a stack) ← rows 0..`row` zero, rows `row`.. the
    /// first columns of I − V·T·Vᵀ (the identity's columns when `vt` is `None`), V the `k`
    /// reflectors in `vt.0` (a block with the rows `row`..), T the leading k×k of `vt.1`.
    QrOrg { a: Tiles, row: usize, k: usize, vt: Option<(Tiles, Tiles)> },
}

/// Where [`DeviceOp::ColFill`] finds a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColSrc {
    /// Column c of the block itself, before the interchanges.
    Own(usize),
    /// Column c of the buffer at position p of `from`: (p, c).
    Buf(usize, usize),
}

/// Where [`DeviceOp::LuNewTop`] finds the rows of one tile row of the column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LuSrc {
    /// Tile row k itself (`old`).
    Old,
    /// Position p of `others`: the tile, read at its own rows.
    Tile(usize),
    /// Position p of `others`: an [`DeviceOp::LuExtract`] buffer, read at row t for top position t.
    Extracted(usize),
}

impl DeviceOp {
    /// The operand the kernel writes; the task is placed on the owner of its first tile.
    pub fn output(&self) -> Tiles {
        match *self {
            DeviceOp::Gemm { c, .. } | DeviceOp::Syrk { c, .. } | DeviceOp::Larfb { c, .. } => c,
            DeviceOp::Trsm { b, .. } => b,
            DeviceOp::Potrf { a, .. } | DeviceOp::Laswp { a, .. } | DeviceOp::LaswpSteps { a, .. } => a,
            DeviceOp::QrPanel { a, .. } | DeviceOp::Scatter { a, .. } => a,
            DeviceOp::Gather { p, .. } => p,
            DeviceOp::QrVtc { s, .. } => s,
            DeviceOp::QrTw { w, .. } => w,
            DeviceOp::QrVw { c, .. } => c,
            DeviceOp::LuPanel { a, .. } | DeviceOp::LuUpdate { a, .. } => a,
            DeviceOp::LuLeaf { a, .. } | DeviceOp::LuSplitUpdate { a, .. } => a,
            DeviceOp::LuExtract { x, .. } => x,
            DeviceOp::LuNewTop { w, .. } => w,
            DeviceOp::LuFill { c, .. } => c,
            DeviceOp::LuColumn { a, .. } => a,
            DeviceOp::CaluLeaf { cand, .. } | DeviceOp::CaluMerge { cand, .. } => cand,
            DeviceOp::CaluRoot { f, .. } => f,
            DeviceOp::CaluTop { w, .. } => w,
            DeviceOp::BtLu { a, .. } => a,
            DeviceOp::BtSolve { b, .. } => b,
            DeviceOp::Trmm { b, .. } => b,
            DeviceOp::Trtri { a, .. }
            | DeviceOp::Lauum { a, .. }
            | DeviceOp::LowerOut { a, .. }
            | DeviceOp::ColFill { a, .. } => a,
            DeviceOp::ColExtract { x, .. } => x,
            DeviceOp::QrT { t, .. } => t,
            DeviceOp::QrApply { c, .. } => c,
            DeviceOp::QrOrg { a, .. } => a,
        }
    }

    /// Whether a device may run the op (the QR, LU and inverse ops run on the host only).
    pub fn on_device(&self) -> bool {
        matches!(
            self,
            DeviceOp::Gemm { .. }
                | DeviceOp::Syrk { .. }
                | DeviceOp::Trsm { .. }
                | DeviceOp::Potrf { .. }
                | DeviceOp::Laswp { .. }
                | DeviceOp::Larfb { .. }
        )
    }

    /// Every operand (outputs included).
    pub fn operands(&self) -> Vec<Tiles> {
        match *self {
            DeviceOp::Gemm { a, b, c, .. } => vec![a, b, c],
            DeviceOp::Syrk { a, c, .. } => vec![a, c],
            DeviceOp::Trsm { a, b, .. } => vec![a, b],
            DeviceOp::Potrf { a, .. } => vec![a],
            DeviceOp::Laswp { a, ipiv, .. } => vec![a, ipiv],
            DeviceOp::LaswpSteps { a, piv, .. } => vec![a, piv],
            DeviceOp::Larfb { v, t, c, .. } => vec![v, t, c],
            DeviceOp::QrPanel { a, tt, .. } => vec![a, tt],
            DeviceOp::Gather { p, col } => vec![p, col],
            DeviceOp::Scatter { a, src, .. } => vec![a, src],
            DeviceOp::QrVtc { s, v, c, .. } => vec![s, v, c],
            DeviceOp::QrTw { w, t, others, .. } => vec![w, t, others],
            DeviceOp::QrVw { c, v, w, .. } => vec![c, v, w],
            DeviceOp::LuPanel { a, piv } => vec![a, piv],
            DeviceOp::LuLeaf { a, piv, .. } => vec![a, piv],
            DeviceOp::LuSplitUpdate { a, u, .. } => [a].into_iter().chain(u).collect(),
            DeviceOp::LuUpdate { a, l, piv, .. } => vec![a, l, piv],
            DeviceOp::LuExtract { x, piv, c, .. } => vec![x, piv, c],
            DeviceOp::LuNewTop { w, old, piv, others, l, .. } => {
                [w, old, piv, others].into_iter().chain(l).collect()
            }
            DeviceOp::LuFill { c, w, piv, l, .. } => [c, w, piv].into_iter().chain(l).collect(),
            DeviceOp::LuColumn { a, cand, urows, piv, others, .. } => {
                [a, cand, urows].into_iter().chain(piv).chain([others]).collect()
            }
            DeviceOp::CaluLeaf { cand, a, .. } => vec![cand, a],
            DeviceOp::CaluMerge { cand, others } => vec![cand, others],
            DeviceOp::CaluRoot { f, piv, cand } => vec![f, piv, cand],
            DeviceOp::CaluTop { w, old, piv, f } => vec![w, old, piv, f],
            DeviceOp::BtLu { a, piv, .. } => vec![a, piv],
            DeviceOp::BtSolve { b, lu, piv, .. } => vec![b, lu, piv],
            DeviceOp::Trmm { a, b, .. } => vec![a, b],
            DeviceOp::Trtri { a, .. } | DeviceOp::Lauum { a, .. } => vec![a],
            DeviceOp::ColExtract { x, a, .. } => vec![x, a],
            DeviceOp::ColFill { a, from, .. } => [a].into_iter().chain(from).collect(),
            DeviceOp::LowerOut { a, w, .. } => vec![a, w],
            DeviceOp::QrT { t, v, .. } => vec![t, v],
            DeviceOp::QrApply { v, t, c, .. } => vec![v, t, c],
            DeviceOp::QrOrg { a, vt, .. } => {
                [a].into_iter().chain(vt.into_iter().flat_map(|(v, t)| [v, t])).collect()
            }
        }
    }

    /// The kernel's name, as the trace shows it.
    pub fn name(&self) -> &'static str {
        match self {
            DeviceOp::Gemm { .. } => "gemm",
            DeviceOp::Syrk { .. } => "syrk",
            DeviceOp::Trsm { .. } => "trsm",
            DeviceOp::Potrf { .. } => "potrf",
            DeviceOp::Laswp { .. } | DeviceOp::LaswpSteps { .. } => "laswp",
            DeviceOp::Larfb { .. } => "larfb",
            DeviceOp::QrPanel { .. } => "geqrf",
            DeviceOp::Gather { .. } => "gather",
            DeviceOp::Scatter { .. } => "scatter",
            DeviceOp::QrVtc { .. } => "qr-vtc",
            DeviceOp::QrTw { .. } => "qr-tw",
            DeviceOp::QrVw { .. } => "qr-vw",
            DeviceOp::LuPanel { .. } => "getrf",
            DeviceOp::LuLeaf { .. } => "getrf-leaf",
            DeviceOp::LuSplitUpdate { .. } => "getrf-update",
            DeviceOp::LuUpdate { .. } => "update",
            DeviceOp::LuExtract { .. } => "lu-extract",
            DeviceOp::LuNewTop { .. } => "lu-newtop",
            DeviceOp::LuFill { .. } => "lu-fill",
            DeviceOp::LuColumn { .. } => "getrf-column",
            DeviceOp::CaluLeaf { .. } => "calu-leaf",
            DeviceOp::CaluMerge { .. } => "calu-merge",
            DeviceOp::CaluRoot { .. } => "calu-root",
            DeviceOp::CaluTop { .. } => "calu-top",
            DeviceOp::BtLu { .. } => "bt-getrf",
            DeviceOp::BtSolve { .. } => "bt-getrs",
            DeviceOp::Trmm { .. } => "trmm",
            DeviceOp::Trtri { .. } => "trtri",
            DeviceOp::Lauum { .. } => "lauum",
            DeviceOp::LowerOut { .. } => "lower-out",
            DeviceOp::ColExtract { .. } => "col-extract",
            DeviceOp::ColFill { .. } => "col-swaps",
            DeviceOp::QrT { .. } => "larft",
            DeviceOp::QrApply { .. } => "larfb",
            DeviceOp::QrOrg { .. } => "org-q",
        }
    }

    /// Checks that every operand names declared tiles and that the output is declared writable;
    /// `writes[p]` says whether position p is writable. A violation is a bug in the algorithm.
    pub fn validate(&self, writes: &[bool]) {
        for t in self.operands() {
            assert!(t.count > 0 && t.first + t.count <= writes.len(), "{self:?}: operand {t:?} not declared");
        }
        for p in self.output().positions() {
            assert!(writes[p], "{self:?}: output position {p} is declared read-only");
        }
    }
}

/// A whole LAPACK factorization a device can run on a matrix it holds entirely ([`Device::factor`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Factor {
    /// xPOTRF of the `Uplo` triangle; the other triangle is neither read nor written.
    Potrf(Uplo),
    /// xGETRF, partial pivoting.
    Getrf,
    /// xGEQRF.
    Geqrf,
}

impl Factor {
    /// The type of the auxiliary output of a factorization of a matrix of `elem`: pivots (i32)
    /// or tau (the matrix's type; a Cholesky has none).
    pub fn aux_kind(self, elem: crate::tile::Kind) -> crate::tile::Kind {
        match self {
            Factor::Getrf => crate::tile::Kind::I32,
            Factor::Potrf(_) | Factor::Geqrf => elem,
        }
    }

    /// Bytes of the auxiliary output per element of `min(m, n)` (0 for a Cholesky).
    pub fn aux_elem(self, elem: crate::tile::Kind) -> usize {
        match self {
            Factor::Potrf(_) => 0,
            _ => self.aux_kind(elem).bytes(),
        }
    }
}

/// What [`Device::factor`] did.
#[derive(Debug)]
pub enum Solve {
    /// Factored: A and the auxiliary output hold the factorization, INFO 0.
    Done,
    /// Nothing written (no room, a device error before any write, INFO > 0, a non-finite
    /// diagonal); the reason, for the verbose line. The call runs its usual way.
    Declined(&'static str),
    /// The device failed while A was being copied back: part of A is overwritten.
    Broken(Error),
}

/// Why a device solver's result is not kept, if it is not: INFO > 0 (a singular or indefinite
/// matrix), or a non-finite diagonal (NaN or Inf input): LAPACK answers those its own way, so the
/// call runs on tiles from the untouched input.
/// `diag`: the diagonal's entries as their parts in f64 ([`parts`]).
pub fn declined(info: i32, diag: &[f64]) -> Option<&'static str> {
    if info != 0 {
        Some("info")
    } else if !diag.iter().all(|d| d.is_finite()) {
        Some("not-finite")
    } else {
        None
    }
}

/// The real and imaginary parts (real types: the value) of the packed elements of `kind` (a
/// floating type) in `bytes`, as f64 (exact for every type).
pub fn parts(kind: crate::tile::Kind, bytes: &[u8]) -> Vec<f64> {
    use crate::tile::Kind;
    let f32s = || bytes.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap()) as f64).collect();
    let f64s = || bytes.chunks_exact(8).map(|c| f64::from_ne_bytes(c.try_into().unwrap())).collect();
    match kind {
        Kind::F32 | Kind::C32 => f32s(),
        Kind::F64 | Kind::C64 => f64s(),
        Kind::I32 => unreachable!("integer blocks have no parts"),
    }
}

/// Runs a [`Device::factor`] body `run` on two buffers of `dev`, the packed matrix (`a.bytes()`)
/// and the auxiliary output (`min(m, n)` pivots or tau), freed again after it; declined when
/// the device has no room for them.
pub fn with_solver_buffers<D: Device + ?Sized>(
    dev: &D,
    f: Factor,
    a: &HostBlock,
    run: impl FnOnce(&DevBuf, &DevBuf) -> Solve,
) -> Solve {
    let Some(buf) = dev.alloc(a.bytes()) else { return Solve::Declined("no-room") };
    let Some(xbuf) = dev.alloc((a.m.min(a.n) * f.aux_elem(a.elem)).max(16)) else {
        dev.free(buf);
        return Solve::Declined("no-room");
    };
    let outcome = run(&buf, &xbuf);
    dev.free(xbuf);
    dev.free(buf);
    outcome
}

/// Copies packed column bytes `off..off + data.len()` of an n×n matrix (leading dimension n,
/// elements of `b.elem`) into the host block `b`, but only the entries of the `uplo` triangle
/// (diagonal included): a xPOTRF leaves the other triangle as the caller had it.
///
/// # Safety
/// `b.ptr` must be writable for the triangle of its shape (`b.m == b.n`).
pub unsafe fn unpack_triangle(data: &[u8], b: &HostBlock, off: usize, uplo: Uplo) {
    let sz = b.elem.bytes();
    assert!(b.m == b.n && off.is_multiple_of(sz) && data.len().is_multiple_of(sz));
    let n = b.m;
    let (first, last) = (off / sz, (off + data.len()) / sz);
    let mut e = first;
    while e < last {
        let (j, i) = (e / n, e % n);
        // The run of column j from row i up to the column's end or the data's end.
        let end = (e + (n - i)).min(last);
        let (lo, hi) = match uplo {
            Uplo::Lower => (i.max(j), i + (end - e)),
            Uplo::Upper => (i, (i + (end - e)).min(j + 1)),
        };
        if lo < hi {
            // SAFETY: rows lo..hi of column j lie in the triangle of the caller's block; the
            // source bytes are inside `data` (element e + (lo − i) up to `end`).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    data.as_ptr().add((e + lo - i - first) * sz),
                    b.ptr.add((j * b.ld + lo) * sz),
                    (hi - lo) * sz,
                )
            };
        }
        e = end;
    }
}

/// A buffer in a device's memory. `addr` means what the device says (a byte offset into the
/// emulated arena, a `CUdeviceptr` for CUDA); `bytes` is its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevBuf {
    pub addr: u64,
    pub bytes: usize,
}

/// One tile in host memory: `m`×`n` elements of type `elem`, column-major with leading
/// dimension `ld` (in elements) at `ptr`. Copies in and out move exactly these bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostBlock {
    pub ptr: *mut u8,
    pub m: usize,
    pub n: usize,
    pub ld: usize,
    pub elem: crate::tile::Kind,
}

// SAFETY: a HostBlock is an address and a shape. Who may touch the memory and when is decided by
// the runtime's dependency lists (a task owns the tiles it declared while it runs) and by the
// memory manager's lock (copies of a tile never overlap a task using it).
unsafe impl Send for HostBlock {}
// SAFETY: as above.
unsafe impl Sync for HostBlock {}

impl HostBlock {
    /// Bytes of the packed tile (what a device buffer for it holds).
    pub fn bytes(&self) -> usize {
        self.m * self.n * self.elem.bytes()
    }
}

/// A tile resident on a device: its buffer, packed column-major (leading dimension `m`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevTile {
    pub buf: DevBuf,
    pub m: usize,
    pub n: usize,
    pub elem: crate::tile::Kind,
}

/// What the runtime needs from an accelerator.
///
/// Ordering contract: `copy_in` and `execute` may be asynchronous, but run in the order issued
/// from the device's management thread; `sync` returns once all of them have completed (host
/// memory given to `copy_in` must stay valid until then). `copy_out` is synchronous (the host
/// holds the data when it returns) and may be called from any thread, for a buffer no kernel is
/// using: the memory manager calls it for write-backs and for host tasks that need a tile back.
pub trait Device: Send + Sync {
    /// `emu0`, `cuda1`, ...: interned with [`intern`], shown in the trace and the verbose line.
    fn name(&self) -> &'static str;
    /// Total device memory in bytes (the memory manager keeps a reserve below it).
    fn memory(&self) -> usize;
    /// A buffer of `bytes`, or `None` when the device has no room (the manager then evicts).
    fn alloc(&self, bytes: usize) -> Option<DevBuf>;
    /// Returns a buffer from [`Device::alloc`].
    fn free(&self, buf: DevBuf);
    /// Copies the host tile `src` into `dst` (packed).
    ///
    /// # Safety
    /// `src` must be readable for its shape until the next [`Device::sync`] and not written
    /// meanwhile; `dst` must come from this device's `alloc` and hold `src.bytes()`.
    unsafe fn copy_in(&self, src: &HostBlock, dst: &DevBuf) -> Result<(), Error>;
    /// Copies the packed tile in `src` to host tile `dst`; complete on return.
    ///
    /// # Safety
    /// `dst` must be writable for its shape and accessed by no one else during the call; `src`
    /// must hold `dst.bytes()` and no kernel may be writing it.
    unsafe fn copy_out(&self, src: &DevBuf, dst: &HostBlock) -> Result<(), Error>;
    /// Runs `op` on the resident operand tiles; `args[p]` is the task's declared position p.
    /// Returns the kernel's INFO (POTRF), 0 otherwise.
    fn execute(&self, op: &DeviceOp, args: &[DevTile]) -> Result<i32, Error>;
    /// Waits for every copy and kernel issued so far.
    fn sync(&self) -> Result<(), Error>;
    /// Whether this device implements `op`; tasks it cannot run go back to the host.
    fn supports(&self, _op: &DeviceOp) -> bool {
        true
    }
    /// Whether [`Device::factor`] runs whole factorizations here.
    fn has_solver(&self) -> bool {
        false
    }
    /// The whole factorization `f` of the host matrix `a` on this device (a vendor solver; an
    /// emulated device runs the host's LAPACK on its copy): copied in, factored, and copied back
    /// only where it succeeded with INFO 0 and a finite diagonal (anything else LAPACK answers
    /// its own way: [`Solve::Declined`], nothing written). `aux` receives the pivots (`min(m, n)`
    /// i32, 1-based) of [`Factor::Getrf`] or tau (`min(m, n)` of the matrix's type) of
    /// [`Factor::Geqrf`].
    ///
    /// # Safety
    /// `a` must be readable and writable for its shape and `aux` writable for
    /// `min(m, n)` elements, both unshared during the call.
    unsafe fn factor(&self, _f: Factor, _a: &HostBlock, _aux: *mut u8) -> Solve {
        Solve::Declined("no solver")
    }
    /// Measured DGEMM rate in flop/s (measured once per process per device kind and cached).
    fn gemm_rate(&self) -> f64;
    /// Host↔device bandwidth in bytes/s used by the cost model.
    fn link_bandwidth(&self) -> f64;
}

/// The error a device kernel returns when the device has no memory left for its workspace,
/// before it changed any operand: the runtime may free device memory and retry, or run the task
/// on the host ([`is_out_of_memory`]).
pub fn out_of_memory() -> Error {
    Error::Runtime(OUT_OF_MEMORY.to_string())
}

/// Whether `e` is [`out_of_memory`]'s error.
pub fn is_out_of_memory(e: &Error) -> bool {
    matches!(e, Error::Runtime(s) if s == OUT_OF_MEMORY)
}

const OUT_OF_MEMORY: &str = "device out of memory for kernel workspace";

/// The error of a device that failed (a driver or library call returned an error, or the device
/// code panicked): `what` says which call and why. The device has taken itself out of service;
/// what it held is lost, so the memory manager puts the caller's tiles back as they were
/// ([`memory::Directory::flush`]) and the call is redone without it.
pub fn device_failure(what: &str) -> Error {
    Error::Runtime(format!("{DEVICE_FAILED}{what}"))
}

/// Whether `e` is [`device_failure`]'s error.
pub fn is_device_failure(e: &Error) -> bool {
    matches!(e, Error::Runtime(s) if s.starts_with(DEVICE_FAILED))
}

const DEVICE_FAILED: &str = "device failure: ";

/// Interns a device name so trace events can keep a `&'static str`.
pub fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut g = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = g.get_or_insert_with(HashSet::new);
    if let Some(&s) = set.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    set.insert(s);
    s
}

/// The devices a sequence uses and how the work is split.
pub struct Plan {
    pub devices: Vec<Arc<dyn Device>>,
    /// Fraction of tile columns kept on the host, 0..=1.
    pub host_share: f64,
    /// CALU's split (seed 004): the host owns the `d` tile columns from the step's panel on and
    /// the devices the rest, so each step one updated column moves back to the host
    /// ([`crate::runtime::placement::Placement::owner_at`]); `None`: the static split by
    /// `host_share`.
    pub window: Option<usize>,
    /// A matrix product's static allocation of its C tiles to the nodes
    /// ([`crate::runtime::alloc`]): tasks writing a tile of that matrix run on its owner, and
    /// with stealing, idle workers take tasks of other nodes (EffectiveSteal).
    pub alloc: Option<Arc<crate::runtime::alloc::Allocation>>,
    /// A factorization's trailing-update allocation (`HETLA_UPDATE_ALLOC=nrrp`): the tiles of
    /// the matrix named by [`crate::runtime::Seq::allocate`] belong to the owners of this
    /// pattern, repeated over them, instead of the column placement.
    pub pattern: Option<Arc<crate::runtime::alloc::Pattern>>,
}

/// Work of one call for the cost model: nominal flops and bytes of the matrices it touches, and
/// its matrix's columns (for splits that depend on them).
#[derive(Clone, Copy, Debug)]
pub struct Work {
    pub flops: f64,
    pub bytes: f64,
    pub cols: usize,
}

/// The devices `cfg` asks for, opened for one sequence: the CUDA devices `cfg.gpus` selects
/// (none when CUDA is unavailable: [`cuda::open`] says why under `HETLA_VERBOSE` and the call runs
/// on the CPU; none either when the calling thread rounds otherwise than to nearest or flushes
/// subnormals, see [`crate::fenv::device_arithmetic`]), then `cfg.emulate_gpus` emulated accelerators of `cfg.emulate_gpu_mem` bytes
/// each. Each sequence gets fresh device sessions, so a device's memory table never outlives a
/// call (CUDA contexts, streams and measured rates are kept per process).
pub fn open(cfg: &Config) -> Vec<Arc<dyn Device>> {
    // A GPU rounds to nearest and keeps subnormals whatever the calling thread asks for: under
    // another rounding mode or FTZ/DAZ the call keeps to host threads, which compute under the
    // caller's settings (`fenv`). Emulated devices run on host threads and stay.
    let mut devs = if crate::fenv::device_arithmetic() { cuda::open(cfg) } else { Vec::new() };
    devs.extend(
        (0..cfg.emulate_gpus)
            .map(|i| Arc::new(emulated::Emulated::new(i, cfg.emulate_gpu_mem)) as Arc<dyn Device>),
    );
    devs
}

/// DGEMM rate of one host core in flop/s, measured once per process (single-threaded backend
/// BLAS, 128³ products for at least 5 ms).
pub fn host_core_rate() -> f64 {
    static R: OnceLock<f64> = OnceLock::new();
    *R.get_or_init(|| measure_gemm_rate(128))
}

/// Times repeated n×n×n DGEMMs on host memory; flop/s.
pub(crate) fn measure_gemm_rate(n: usize) -> f64 {
    use crate::tile::Workspace;
    let w = Workspace::<f64>::new(n, 3 * n, n, n);
    let t = w.tiles();
    // SAFETY: the workspace is owned here and nothing else uses it; the three n×n tiles are
    // disjoint.
    let (a, b, c) =
        unsafe { (t.raw_block(0..1, 0..1).view(), t.raw_block(0..1, 1..2).view(), t.raw_block(0..1, 2..3)) };
    let t0 = std::time::Instant::now();
    let mut reps = 0u32;
    while reps < 2 || t0.elapsed().as_secs_f64() < 0.005 {
        // SAFETY: as above; C is written by this loop only.
        crate::kernels::gemm(Trans::No, Trans::No, 1.0, a, b, 0.0, unsafe { c.view_mut() });
        reps += 1;
    }
    2.0 * (n as f64).powi(3) * reps as f64 / t0.elapsed().as_secs_f64().max(1e-9)
}

/// Fixed cost of using devices in one call, per device (management thread start, the first
/// allocations, the final synchronisation), in seconds.
pub(crate) const DEVICE_STARTUP_S: f64 = 100e-6;

/// The host's share of the tile columns, 001 appendix A.1: B_h = B·R_cpu/(R_cpu + R_gpu·G), with
/// R_cpu the rate of all host workers and the devices' rates summed (they may differ).
pub fn host_share(cfg: &Config, devices: &[Arc<dyn Device>]) -> f64 {
    if let Some(s) = cfg.host_share {
        return s.clamp(0.0, 1.0);
    }
    let r_cpu = host_core_rate() * cfg.threads as f64;
    let r_dev: f64 = devices.iter().map(|d| d.gemm_rate()).sum();
    r_cpu / (r_cpu + r_dev)
}

/// Whether a call with `work` should use `devices`, by this model: with a share of the work on
/// the devices the compute time goes from `flops/R_cpu` to `flops/(R_cpu + ΣR_dev)`; the price is
/// moving the data in and back once (`2·bytes / bandwidth`, the slowest link) plus
/// `DEVICE_STARTUP_S` per device. Devices are used when the time saved exceeds the price.
pub fn worth_using(cfg: &Config, devices: &[Arc<dyn Device>], work: Work) -> bool {
    if devices.is_empty() {
        return false;
    }
    let r_cpu = host_core_rate() * cfg.threads as f64;
    let r_dev: f64 = devices.iter().map(|d| d.gemm_rate()).sum();
    let bw = devices.iter().map(|d| d.link_bandwidth()).fold(f64::INFINITY, f64::min);
    let saved = work.flops / r_cpu - work.flops / (r_cpu + r_dev);
    let price = 2.0 * work.bytes / bw + DEVICE_STARTUP_S * devices.len() as f64;
    saved > price
}

/// Per device, what one sequence moved: bytes each way, transfers, evictions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DevStats {
    pub device: &'static str,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub copies_in: u64,
    pub copies_out: u64,
    pub evictions: u64,
    /// Device tasks run on the device, and those sent back to the host (no room, unsupported).
    pub tasks: u64,
    pub host_fallbacks: u64,
    /// Tasks this device took from another node's queue (EffectiveSteal).
    pub steals: u64,
}

impl DevStats {
    /// `dev=emu0:in=12.5MB,out=3.1MB,evict=4,tasks=90` for the verbose line (KB below 0.1 MB;
    /// `,host_fallbacks=N` when tasks had to go back to the host).
    pub fn verbose(&self) -> String {
        let size = |b: u64| {
            if b >= 100_000 {
                format!("{:.1}MB", b as f64 / 1e6)
            } else {
                format!("{:.1}KB", b as f64 / 1e3)
            }
        };
        let mut fallback = if self.host_fallbacks > 0 {
            format!(",host_fallbacks={}", self.host_fallbacks)
        } else {
            String::new()
        };
        if self.steals > 0 {
            fallback += &format!(",steals={}", self.steals);
        }
        format!(
            "dev={}:in={},out={},evict={},tasks={}{fallback}",
            self.device,
            size(self.bytes_in),
            size(self.bytes_out),
            self.evictions,
            self.tasks
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpack_triangle_writes_its_triangle_only_whatever_the_pieces() {
        let (n, ld) = (5, 7);
        let packed: Vec<f64> = (0..n * n).map(|x| x as f64).collect();
        let bytes: Vec<u8> = packed.iter().flat_map(|v| v.to_ne_bytes()).collect();
        for uplo in [Uplo::Lower, Uplo::Upper] {
            for piece in [1, 3, 4, 25] {
                let mut host = vec![-1.0; ld * n];
                let b = HostBlock {
                    ptr: host.as_mut_ptr() as *mut u8,
                    m: n,
                    n,
                    ld,
                    elem: crate::tile::Kind::F64,
                };
                for off in (0..n * n).step_by(piece) {
                    let end = (off + piece).min(n * n);
                    // SAFETY: `host` holds ld·n elements.
                    unsafe { unpack_triangle(&bytes[off * 8..end * 8], &b, off * 8, uplo) };
                }
                for j in 0..n {
                    for i in 0..ld {
                        let inside = i < n && if uplo == Uplo::Lower { i >= j } else { i <= j };
                        let want = if inside { (i + j * n) as f64 } else { -1.0 };
                        assert_eq!(host[i + j * ld], want, "{uplo:?}, pieces of {piece}: ({i}, {j})");
                    }
                }
            }
        }
    }

    #[test]
    fn interned_names_are_shared() {
        let a = intern("emu7");
        let b = intern(&format!("emu{}", 7));
        assert!(std::ptr::eq(a, b));
    }

    #[test]
    fn validate_refuses_read_only_outputs() {
        let op = DeviceOp::Potrf { uplo: Uplo::Lower, a: Tiles::one(0), info_base: 0 };
        op.validate(&[true]);
        let r = std::panic::catch_unwind(|| op.validate(&[false]));
        assert!(r.is_err());
        let r = std::panic::catch_unwind(|| op.validate(&[]));
        assert!(r.is_err());
    }

    #[test]
    fn cost_model_keeps_tiny_calls_on_the_host() {
        let mut cfg = Config::with_threads(2);
        cfg.emulate_gpus = 1;
        let devs = open(&cfg);
        // A 4×4 Cholesky: nothing to gain, everything to move.
        assert!(!worth_using(&cfg, &devs, Work { flops: 21.0, bytes: 128.0, cols: 4 }));
        // A large one: the saved compute dwarfs the transfers.
        let n = 8000.0f64;
        assert!(worth_using(
            &cfg,
            &devs,
            Work { flops: n * n * n / 3.0, bytes: 8.0 * n * n, cols: n as usize }
        ));
        assert!(!worth_using(&cfg, &[], Work { flops: n * n * n, bytes: 1.0, cols: 1 }));
    }
}
