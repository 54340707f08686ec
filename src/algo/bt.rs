//! Block tridiagonal systems (`dbttrf`, `dbttrs`, `dbtsv`; seed 003): N block rows of M×M
//! blocks, row x holding A_x = A(x, x−1) (x ≥ 1), D_x = A(x, x) and C_x = A(x, x+1) (x ≤ N−2).
//! Every task works on whole M×M blocks (or an M×NRHS block of B); pivoting happens only inside
//! the diagonal blocks' LUs (GEPP), so the block elimination itself is unpivoted, as in block
//! Thomas and block cyclic reduction everywhere.
//!
//! Storage the generators name by [`Ids`]: `d[x]` = D_x, `dl[x]` = A(x+1, x) (so A_x is
//! `dl[x−1]`), `du[x]` = C_x, `piv[x]` an M×1 block of pivots for D_x (exact small integers),
//! `af[2x]`, `af[2x+1]` two M×M blocks per row of extra factor storage, `b[x]` the M×NRHS rows
//! of B of block row x.
//!
//! # One elimination, three orders
//!
//! Every method eliminates the rows one at a time in some order (a [`Schedule`]: levels of
//! eliminations that are independent of each other, and the row left at the end). When row i
//! is eliminated, its neighbours are the nearest rows not yet eliminated on each side, l and r
//! (either may be missing); with A_i, C_i, C_l, A_r the current couplings (i to l, i to r, l to
//! i, r to i) and P_i·D_i = L_i·U_i (GEPP):
//!
//! ```text
//!   F_i = D_i⁻¹·A_i            G_i = D_i⁻¹·C_i                     (kept in dl[i−1], du[i])
//!   D_l ← D_l − C_l·F_i        D_r ← D_r − A_r·G_i
//!   with both neighbours:      C_l ← −C_l·G_i  (l now couples to r),  A_r ← −A_r·F_i
//! ```
//!
//! The solves need C_l and A_r as they were: with both neighbours (whose couplings the
//! elimination overwrites) they go to `af[2i]` and `af[2i+1]` first; a one-sided elimination
//! leaves its coupling as it was, and nothing writes it afterwards ([`Ids::saved`]). This is
//! block Gaussian elimination of the matrix with its rows and columns taken in elimination order,
//! so its stability is that of block LU without block pivoting (fine for block diagonally
//! dominant matrices, the usual case; pivoting inside the blocks handles blocks that need it).
//!
//! * **Block cyclic reduction** ([`Method::Cyclic`]). Level ℓ numbers the rows still active 0, 1,
//!   2, …; every row at an odd position p is eliminated, with l at p − 1 (always there) and r at
//!   p + 1 (when there is one). The rows at even positions form a block tridiagonal system of
//!   ⌈n/2⌉ rows, the next level's; row 0 is left at the end. The eliminations of a level are
//!   independent (a row's two updates of D_l are ordered by the runtime): ⌈log₂ N⌉ levels of
//!   N/2^(ℓ+1) parallel eliminations, each one LU (⅔M³), two solves of M columns (4M³) and four
//!   GEMMs (8M³): about 2.7 times the flops of block Thomas.
//! * **Block Thomas** ([`Method::Thomas`]): rows 0, 1, …, N − 2 in turn, each with only r; row
//!   N − 1 is left. One LU, one solve and one GEMM per row (4.7M³), no parallelism between rows.
//! * **Twisted block Thomas** ([`Method::Twisted`]): level t eliminates row t from the top (only
//!   r) and row N − 1 − t from the bottom (only l), meeting at row h = ⌊N/2⌋, which is left: the
//!   flops of block Thomas in two independent chains (the "burn at both ends" order).
//! * **Partitioned** ([`partitioned`], the distributed `pdbttrf`; seed 003 solves over MPI ranks
//!   by block cyclic reduction). The rows are cut into Q contiguous parts [s_q, e_q) (rank q's).
//!   Each part first eliminates its own rows, needing nothing from another part: the first part
//!   top down (i = s, …, e − 2, with r = i + 1 only: block Thomas), keeping e − 1; the last part
//!   bottom up (i = e − 1, …, s + 1, with l = i − 1 only), keeping s; every other part keeps both
//!   s and e − 1 and eliminates i = s + 1, …, e − 2 top down with l = s and r = i + 1, so that s
//!   gains the coupling to the next row at every step (C_s ← −C_s·G_i, the "spike", and
//!   D_s −= C_s·F_i); level t holds the t-th elimination of every part. What is left is block
//!   tridiagonal on the kept rows (e₀ − 1; s_q, e_q − 1 for the middle parts; the last part's s;
//!   at most 2Q − 2 rows, one when Q = 1), each coupled only to the next kept row: the Schur
//!   complement of the eliminated rows (`partitioned_interior_is_the_schur_complement` checks it
//!   on a dense copy). Block cyclic reduction then solves that system; its eliminations have
//!   neighbours in other parts, so they are the only tasks whose blocks cross between ranks (the
//!   couplings and diagonal blocks of the kept rows, F_i and G_i). Flops: the first and last
//!   parts' rows as block Thomas (4.7M³ each), the middle parts' rows and the reduced system's as
//!   cyclic reduction (12.7M³); with Q = 2 this is twisted block Thomas meeting at the parts'
//!   boundary.
//!
//! Solve A·X = B: levels in order, for each eliminated i: y_i = D_i⁻¹·b_i (into b_i),
//! b_l −= C_l·y_i, b_r −= A_r·y_i; then b_last ← D_last⁻¹·b_last; levels in reverse, for each
//! eliminated i: x_i = y_i − F_i·x_l − G_i·x_r.
//!
//! Solve Aᵀ·X = B (the same elimination applied to Aᵀ, whose blocks are the transposes):
//! levels in order, b_l −= F_iᵀ·b_i, b_r −= G_iᵀ·b_i (F_iᵀ = A_iᵀ·D_i⁻ᵀ, so the solve with D_i
//! is inside; b_i is kept for the way back); then b_last ← D_last⁻ᵀ·b_last; levels in reverse,
//! x_i = D_i⁻ᵀ·(b_i − C_lᵀ·x_l − A_rᵀ·x_r).
//!
//! Failure: an exactly zero pivot in the LU of the diagonal block of row x (local row j, 1-based)
//! reports INFO = x·M + j (of several in one level, the smallest); the tasks of that level and
//! later ones are skipped.

use crate::graph::{Graph, Op, Spec, TileId, Tiles};
use crate::kernels::Trans;
use crate::runtime::inline::InlineGraph;
use crate::runtime::shared::SharedGraph;
use crate::runtime::Seq;
use crate::tile::TiledMatrix;

/// Which elimination order the factors come from (they are not interchangeable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Block Thomas: one row after the other, top to bottom.
    Thomas,
    /// Twisted block Thomas: from both ends at once, meeting in the middle row.
    Twisted,
    /// Block cyclic reduction: odd rows of the active rows first, level by level.
    Cyclic,
}

impl Method {
    /// The number stored in the factor's header (the last entry of `dbttrf`'s AF).
    pub fn code(self) -> f64 {
        match self {
            Method::Thomas => 1.0,
            Method::Cyclic => 2.0,
            Method::Twisted => 3.0,
        }
    }
    pub fn from_code(c: f64) -> Option<Self> {
        [Method::Thomas, Method::Cyclic, Method::Twisted].into_iter().find(|m| m.code() == c)
    }
}

/// One eliminated block row and its active neighbours at that time (none on a side when every
/// row on that side is eliminated already).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elim {
    pub i: usize,
    pub l: Option<usize>,
    pub r: Option<usize>,
}

/// An elimination order: levels of independent eliminations, and the row left at the end.
pub struct Schedule {
    pub levels: Vec<Vec<Elim>>,
    pub last: usize,
    /// In a [`partitioned`] order, the levels before the reduced system's (every neighbour in
    /// the eliminated row's part); 0 in the others.
    pub local_levels: usize,
}

/// The elimination order of `method` on `n` ≥ 1 block rows.
pub fn schedule(method: Method, n: usize) -> Schedule {
    match method {
        Method::Thomas => Schedule {
            levels: (0..n - 1).map(|x| vec![Elim { i: x, l: None, r: Some(x + 1) }]).collect(),
            last: n - 1,
            local_levels: 0,
        },
        Method::Twisted => {
            let h = n / 2;
            let levels = (0..h.max(n - 1 - h))
                .map(|t| {
                    let top = (t < h).then_some(Elim { i: t, l: None, r: Some(t + 1) });
                    let x = n - 1 - t;
                    let bottom = (x > h).then_some(Elim { i: x, l: Some(x - 1), r: None });
                    top.into_iter().chain(bottom).collect()
                })
                .collect();
            Schedule { levels, last: h, local_levels: 0 }
        }
        Method::Cyclic => {
            let mut levels = Vec::new();
            let last = cyclic_levels((0..n).collect(), &mut levels);
            Schedule { levels, last, local_levels: 0 }
        }
    }
}

/// Block cyclic reduction of the active rows `active` (in order, each coupled only to its
/// neighbours in the list): appends its levels to `levels`, returns the row left at the end.
fn cyclic_levels(mut active: Vec<usize>, levels: &mut Vec<Vec<Elim>>) -> usize {
    while active.len() > 1 {
        let lev = (1..active.len())
            .step_by(2)
            .map(|p| Elim { i: active[p], l: Some(active[p - 1]), r: active.get(p + 1).copied() })
            .collect();
        levels.push(lev);
        active = active.iter().step_by(2).copied().collect();
    }
    active[0]
}

/// The partitioned elimination order over `parts`: contiguous, non-empty ranges of block rows,
/// in order, covering 0..N (part q is rank q's rows in `pdbttrf`). See the module's docs;
/// [`Schedule::local_levels`] of its levels have no neighbour outside their part.
pub fn partitioned(parts: &[std::ops::Range<usize>]) -> Schedule {
    let q = parts.len();
    assert!(q > 0 && parts.iter().all(|p| p.start < p.end), "hetla: parts must be non-empty");
    assert!(parts.windows(2).all(|w| w[0].end == w[1].start) && parts[0].start == 0, "hetla: parts in order");
    let mut chains: Vec<Vec<Elim>> = Vec::with_capacity(q);
    let mut kept = Vec::with_capacity(2 * q);
    for (k, p) in parts.iter().enumerate() {
        let (s, e) = (p.start, p.end);
        if k == 0 {
            // Top down, keeping the last row (with one part: block Thomas).
            chains.push((s..e - 1).map(|x| Elim { i: x, l: None, r: Some(x + 1) }).collect());
            kept.push(e - 1);
        } else if k == q - 1 {
            // Bottom up, keeping the first row.
            chains.push((s + 1..e).rev().map(|x| Elim { i: x, l: Some(x - 1), r: None }).collect());
            kept.push(s);
        } else {
            // Top down between the two kept rows: every row couples to s when it goes.
            chains.push(
                (s + 1..e.saturating_sub(1)).map(|x| Elim { i: x, l: Some(s), r: Some(x + 1) }).collect(),
            );
            kept.push(s);
            if e - 1 > s {
                kept.push(e - 1);
            }
        }
    }
    let local_levels = chains.iter().map(Vec::len).max().unwrap_or(0);
    let mut levels: Vec<Vec<Elim>> =
        (0..local_levels).map(|t| chains.iter().filter_map(|c| c.get(t).copied()).collect()).collect();
    let last = cyclic_levels(kept, &mut levels);
    Schedule { levels, last, local_levels }
}

impl Schedule {
    /// Flops of the factorization in this order on `m`×`m` blocks: per elimination one LU
    /// (⅔m³), per neighbour one solve and one GEMM (4m³), with both neighbours two GEMMs more
    /// (4m³); the last row's LU.
    pub fn factor_flops(&self, m: usize) -> f64 {
        let per = |e: &Elim| {
            let sides = e.l.is_some() as u32 + e.r.is_some() as u32;
            2.0 / 3.0 + 4.0 * sides as f64 + if sides == 2 { 4.0 } else { 0.0 }
        };
        let units: f64 = self.levels.iter().flatten().map(per).sum::<f64>() + 2.0 / 3.0;
        units * (m as f64).powi(3)
    }
    /// Flops of one solve with `nrhs` columns: per elimination one solve with D_i and two GEMMs
    /// per neighbour (2m²·nrhs each); the last row's solve.
    pub fn solve_flops(&self, m: usize, nrhs: usize) -> f64 {
        let per = |e: &Elim| 1.0 + 2.0 * (e.l.is_some() as u32 + e.r.is_some() as u32) as f64;
        let units: f64 = self.levels.iter().flatten().map(per).sum::<f64>() + 1.0;
        units * 2.0 * (m * m * nrhs) as f64
    }
}

/// The blocks a generator works on, by id (see the module's storage).
pub struct Ids {
    pub d: Vec<TileId>,
    pub dl: Vec<TileId>,
    pub du: Vec<TileId>,
    pub af: Vec<TileId>,
    pub piv: Vec<TileId>,
    pub b: Vec<TileId>,
}

impl Ids {
    /// Where the solves find C_l and A_r of elimination `e` as they were before it: with both
    /// neighbours, the copies in `af[2i]`, `af[2i+1]` (the elimination overwrites the couplings
    /// with the new one between l and r); with one, the coupling itself (`du[l]` or `dl[r−1]`),
    /// which nothing writes afterwards: every row on the other side of i is gone, so that
    /// neighbour never again has a neighbour on that side, to couple to or to be eliminated
    /// towards.
    pub fn saved(&self, e: &Elim) -> (Option<TileId>, Option<TileId>) {
        let both = e.l.is_some() && e.r.is_some();
        let c = e.l.map(|l| if both { self.af[2 * e.i] } else { self.du[l] });
        let a = e.r.map(|r| if both { self.af[2 * e.i + 1] } else { self.dl[r - 1] });
        (c, a)
    }
}

fn gemm(ta: Trans, alpha: f64, beta: f64, k: usize) -> Op {
    Op::Gemm {
        ta,
        tb: Trans::No,
        alpha: alpha.into(),
        a: Tiles::one(1),
        b: Tiles::one(2),
        beta: beta.into(),
        c: Tiles::one(0),
        k,
    }
}

/// Submits `c ← α·op(a)·b + β·c`.
#[allow(clippy::too_many_arguments)]
fn sub_gemm(
    g: &mut impl Graph,
    ta: Trans,
    alpha: f64,
    beta: f64,
    (m, n): (usize, usize),
    c: TileId,
    a: TileId,
    b: TileId,
    prio: i64,
    step: usize,
) {
    let op = gemm(ta, alpha, beta, m);
    g.submit(Spec { op, prio, step, dims: [m, n, m], writes: &[c], reads: &[a, b] });
}

fn lu(g: &mut impl Graph, m: usize, ids: &Ids, x: usize, prio: i64, step: usize) {
    let op = Op::BtLu { a: Tiles::one(0), piv: Tiles::one(1), info_base: (x * m) as i32 };
    g.submit(Spec { op, prio, step, dims: [m, m, 0], writes: &[ids.d[x], ids.piv[x]], reads: &[] });
}

/// Submits `b ← op(D_x)⁻¹·b` for a block `b` of `cols` columns.
#[allow(clippy::too_many_arguments)]
fn solve_with(
    g: &mut impl Graph,
    m: usize,
    cols: usize,
    ids: &Ids,
    x: usize,
    b: TileId,
    trans: Trans,
    prio: i64,
    step: usize,
) {
    let op = Op::BtSolve { b: Tiles::one(0), lu: Tiles::one(1), piv: Tiles::one(2), trans };
    g.submit(Spec { op, prio, step, dims: [m, cols, 0], writes: &[b], reads: &[ids.d[x], ids.piv[x]] });
}

fn copy(g: &mut impl Graph, m: usize, dst: TileId, src: TileId, prio: i64, step: usize) {
    let op = Op::Gather { p: Tiles::one(0), col: Tiles::stack(1, 1) };
    g.submit(Spec { op, prio, step, dims: [m, m, 0], writes: &[dst], reads: &[src] });
}

/// The factorization's tasks for block rows of `m`×`m` blocks, in the order `sch`.
pub fn generate_factor(g: &mut impl Graph, sch: &Schedule, m: usize, ids: &Ids) {
    let top = sch.levels.len();
    for (lv, elims) in sch.levels.iter().enumerate() {
        if g.stopped() {
            return;
        }
        // Earlier levels first; within one, the LUs before their solves and updates.
        let p = |b: i64| (top - lv) as i64 * 4 + b;
        for e in elims {
            lu(g, m, ids, e.i, p(3), lv);
        }
        for &Elim { i, l, r } in elims {
            let mm = (m, m);
            let (sc, sa) = ids.saved(&Elim { i, l, r });
            let both = l.is_some() && r.is_some();
            // F_i = D_i⁻¹·A_i; D_l −= C_l·F_i (C_l saved first when it is overwritten below).
            let f = l.zip(sc).map(|(l, saved_c)| {
                let fi = ids.dl[i - 1];
                solve_with(g, m, m, ids, i, fi, Trans::No, p(2), lv);
                if both {
                    copy(g, m, saved_c, ids.du[l], p(2), lv);
                }
                sub_gemm(g, Trans::No, -1.0, 1.0, mm, ids.d[l], saved_c, fi, p(1), lv);
                (l, fi, saved_c)
            });
            // G_i = D_i⁻¹·C_i; D_r −= A_r·G_i (A_r saved first when it is overwritten below).
            let gr = r.zip(sa).map(|(r, saved_a)| {
                let gi = ids.du[i];
                solve_with(g, m, m, ids, i, gi, Trans::No, p(2), lv);
                if both {
                    copy(g, m, saved_a, ids.dl[r - 1], p(2), lv);
                }
                sub_gemm(g, Trans::No, -1.0, 1.0, mm, ids.d[r], saved_a, gi, p(1), lv);
                (r, gi, saved_a)
            });
            // Both neighbours: they now couple to each other.
            if let (Some((l, fi, saved_c)), Some((r, gi, saved_a))) = (f, gr) {
                sub_gemm(g, Trans::No, -1.0, 0.0, mm, ids.du[l], saved_c, gi, p(0), lv);
                sub_gemm(g, Trans::No, -1.0, 0.0, mm, ids.dl[r - 1], saved_a, fi, p(0), lv);
            }
        }
    }
    if !g.stopped() {
        lu(g, m, ids, sch.last, 3, top);
    }
}

/// The solve's tasks (`trans`: A or Aᵀ) with the factors of [`generate_factor`] in the same order
/// `sch`, on B's blocks `ids.b` of `nrhs` columns.
pub fn generate_solve(g: &mut impl Graph, sch: &Schedule, trans: Trans, m: usize, nrhs: usize, ids: &Ids) {
    for phase in [Phase::Forward, Phase::Last, Phase::Backward] {
        generate_solve_phase(g, sch, phase, trans, m, nrhs, ids);
    }
}

/// The three parts of a solve, in this order: every elimination's forward step (levels in
/// order), the solve with the last row's block, every elimination's backward step (levels in
/// reverse).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Forward,
    Last,
    Backward,
}

/// One [`Phase`] of [`generate_solve`].
pub fn generate_solve_phase(
    g: &mut impl Graph,
    sch: &Schedule,
    phase: Phase,
    trans: Trans,
    m: usize,
    nrhs: usize,
    ids: &Ids,
) {
    let mn = (m, nrhs);
    let b = &ids.b;
    let (no, yes) = (Trans::No, Trans::Yes);
    let top = sch.levels.len() as i64;
    match phase {
        Phase::Forward => {
            for (lv, elims) in sch.levels.iter().enumerate() {
                let p = |b: i64| (2 * top + 1 - lv as i64) * 2 + b;
                for e in elims {
                    let (Elim { i, l, r }, (sc, sa)) = (*e, ids.saved(e));
                    if trans == Trans::No {
                        // y_i into b_i, then its neighbours' right-hand sides.
                        solve_with(g, m, nrhs, ids, i, b[i], no, p(1), 0);
                        if let (Some(l), Some(c)) = (l, sc) {
                            sub_gemm(g, no, -1.0, 1.0, mn, b[l], c, b[i], p(0), 0);
                        }
                        if let (Some(r), Some(a)) = (r, sa) {
                            sub_gemm(g, no, -1.0, 1.0, mn, b[r], a, b[i], p(0), 0);
                        }
                    } else {
                        // F_iᵀ·b_i = A_iᵀ·D_i⁻ᵀ·b_i: b_i itself stays for the way back.
                        if let Some(l) = l {
                            sub_gemm(g, yes, -1.0, 1.0, mn, b[l], ids.dl[i - 1], b[i], p(0), 0);
                        }
                        if let Some(r) = r {
                            sub_gemm(g, yes, -1.0, 1.0, mn, b[r], ids.du[i], b[i], p(0), 0);
                        }
                    }
                }
            }
        }
        Phase::Last => solve_with(g, m, nrhs, ids, sch.last, b[sch.last], trans, 0, 0),
        Phase::Backward => {
            for (lv, elims) in sch.levels.iter().enumerate().rev() {
                let p = |b: i64| (lv as i64 + 1) * 2 + b;
                for e in elims {
                    let (Elim { i, l, r }, (sc, sa)) = (*e, ids.saved(e));
                    if trans == Trans::No {
                        if let Some(l) = l {
                            sub_gemm(g, no, -1.0, 1.0, mn, b[i], ids.dl[i - 1], b[l], p(0), 0);
                        }
                        if let Some(r) = r {
                            sub_gemm(g, no, -1.0, 1.0, mn, b[i], ids.du[i], b[r], p(0), 0);
                        }
                    } else {
                        if let (Some(l), Some(c)) = (l, sc) {
                            sub_gemm(g, yes, -1.0, 1.0, mn, b[i], c, b[l], p(0), 0);
                        }
                        if let (Some(r), Some(a)) = (r, sa) {
                            sub_gemm(g, yes, -1.0, 1.0, mn, b[i], a, b[r], p(0), 0);
                        }
                        solve_with(g, m, nrhs, ids, i, b[i], yes, p(1), 0);
                    }
                }
            }
        }
    }
}

/// A twisted order cut into its two chains, each as an order of its own (one elimination per
/// level, the same last row): the top chain (rows 0, 1, …, each with only r), the bottom chain
/// (rows N − 1, N − 2, …, each with only l) but its last elimination, and that one (row h + 1,
/// whose l is the last row h, which the top chain's last elimination also updates). `None` for
/// any other order, or too few rows to have both chains.
pub fn twisted_chains(sch: &Schedule) -> Option<[Schedule; 3]> {
    let (mut top, mut bottom) = (Vec::new(), Vec::new());
    for level in &sch.levels {
        for &e in level {
            match (e.l, e.r) {
                (None, Some(r)) if r == e.i + 1 => top.push(vec![e]),
                (Some(l), None) if l + 1 == e.i => bottom.push(vec![e]),
                _ => return None,
            }
        }
    }
    let ends_at_last = |c: &[Vec<Elim>], next: fn(&Elim) -> Option<usize>| {
        c.last().and_then(|lv| next(&lv[0])) == Some(sch.last)
    };
    if !ends_at_last(&top, |e| e.r) || !ends_at_last(&bottom, |e| e.l) {
        return None;
    }
    let tail = bottom.split_off(bottom.len() - 1);
    let of = |levels| Schedule { levels, last: sch.last, local_levels: 0 };
    Some([of(top), of(bottom), of(tail)])
}

/// The blocks of an N-row factorization numbered as tiles of one tile row, D, DL, DU, AF, the
/// pivots, in that order (no B): for a runtime that only counts tasks and bytes, the simulator.
/// Returns the number of blocks and their ids.
pub fn tile_row_ids(n: usize) -> (usize, Ids) {
    let counts = [n, n.saturating_sub(1), n.saturating_sub(1), 2 * n, n];
    let mut start = 0;
    let mut runs = counts.iter().map(|&k| {
        start += k;
        (start - k..start).collect::<Vec<TileId>>()
    });
    let mut next = || runs.next().expect("five runs");
    let ids = Ids { d: next(), dl: next(), du: next(), af: next(), piv: next(), b: Vec::new() };
    (counts.iter().sum(), ids)
}

/// A block tridiagonal matrix in this process, as one-tile-row matrices of M×M tiles (tile
/// (0, x) is block x): `d` (N blocks), `dl`, `du` (N − 1 each; `None` when N = 1), `af` (2N
/// blocks) and `piv` (M×N, tile (0, x) = the M pivots of D_x).
pub struct Blocks {
    pub n: usize,
    pub m: usize,
    pub d: TiledMatrix<f64>,
    pub dl: Option<TiledMatrix<f64>>,
    pub du: Option<TiledMatrix<f64>>,
    pub af: TiledMatrix<f64>,
    pub piv: TiledMatrix<f64>,
}

fn ids_with(
    s: &Blocks,
    b: Option<&TiledMatrix<f64>>,
    mut attach: impl FnMut(&TiledMatrix<f64>) -> Vec<TileId>,
) -> Ids {
    let d: Vec<TileId> = (0..s.n).collect();
    let dl = s.dl.as_ref().map(&mut attach).unwrap_or_default();
    let du = s.du.as_ref().map(&mut attach).unwrap_or_default();
    let af = attach(&s.af);
    let piv = attach(&s.piv);
    let b = b.map(&mut attach).unwrap_or_default();
    Ids { d, dl, du, af, piv, b }
}

fn shared_ids(g: &mut SharedGraph, s: &Blocks, b: Option<&TiledMatrix<f64>>) -> Ids {
    ids_with(s, b, |t| g.attach(t))
}

/// The shared-memory factorization of `s` in the order `sch`, on the tasks of `seq`.
pub fn factor(seq: &Seq, sch: &Schedule, s: &Blocks) {
    let mut g = SharedGraph::new(seq, &s.d);
    let ids = shared_ids(&mut g, s, None);
    generate_factor(&mut g, sch, s.m, &ids);
}

/// The shared-memory solve with `s`'s factors on `b` ((N·M)×NRHS in M×NRHS tiles), on the tasks
/// of `seq`.
pub fn solve(seq: &Seq, sch: &Schedule, trans: Trans, s: &Blocks, b: &TiledMatrix<f64>) {
    let mut g = SharedGraph::new(seq, &s.d);
    let ids = shared_ids(&mut g, s, Some(b));
    generate_solve(&mut g, sch, trans, s.m, b.n, &ids);
}

/// [`factor`] with every task run at once on the calling thread (`runtime::inline`): the
/// sequential block LU.
pub fn factor_inline(sch: &Schedule, s: &Blocks) -> Result<(), crate::error::Error> {
    let mut g = InlineGraph::new(&s.d);
    let ids = ids_with(s, None, |t| g.attach(t));
    generate_factor(&mut g, sch, s.m, &ids);
    g.finish()
}

/// [`solve`] with every task run at once on the calling thread.
pub fn solve_inline(
    sch: &Schedule,
    trans: Trans,
    s: &Blocks,
    b: &TiledMatrix<f64>,
) -> Result<(), crate::error::Error> {
    inline_phases(sch, &[Phase::Forward, Phase::Last, Phase::Backward], trans, s, b)
}

/// [`solve_inline`] of a twisted order with its two chains on two threads (this one and one
/// more), each running its chain's tasks at once: the same tasks as [`solve_inline`]. The chains
/// touch different blocks of B, but for the last row's (h), which both forward sweeps update:
/// the bottom chain's step that updates it runs after the top chain's, on this thread. Falls
/// back to [`solve_inline`] for any other order.
///
/// Why: a solve with few right-hand sides streams the factors from memory once (three M×M
/// blocks per row), and on the development machine one core reads 9.6 GB/s, two 16–17.
pub fn solve_inline_two_chains(
    sch: &Schedule,
    trans: Trans,
    s: &Blocks,
    b: &TiledMatrix<f64>,
) -> Result<(), crate::error::Error> {
    let Some([top, bottom, tail]) = twisted_chains(sch) else {
        return solve_inline(sch, trans, s, b);
    };
    // The other chain runs under this thread's floating-point control settings, and the flags
    // its arithmetic raises are this call's (`crate::fenv`), as a task's are.
    let ctl = crate::fenv::control();
    let both = |phase: Phase, second: &Schedule| {
        std::thread::scope(|scope| {
            let other =
                scope.spawn(|| crate::fenv::under(ctl, || inline_phases(second, &[phase], trans, s, b)));
            let mine = inline_phases(&top, &[phase], trans, s, b);
            // The other thread's panic, if any, goes on to the caller's thread.
            let (theirs, raised) = other.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            crate::fenv::note(raised);
            mine.and(theirs)
        })
    };
    both(Phase::Forward, &bottom)?;
    inline_phases(&tail, &[Phase::Forward, Phase::Last], trans, s, b)?;
    let whole_bottom =
        Schedule { levels: [bottom.levels, tail.levels].concat(), last: sch.last, local_levels: 0 };
    both(Phase::Backward, &whole_bottom)
}

/// The `phases` of the solve in the order `sch`, run at once on this thread.
fn inline_phases(
    sch: &Schedule,
    phases: &[Phase],
    trans: Trans,
    s: &Blocks,
    b: &TiledMatrix<f64>,
) -> Result<(), crate::error::Error> {
    let mut g = InlineGraph::new(&s.d);
    let ids = ids_with(s, Some(b), |t| g.attach(t));
    for &phase in phases {
        generate_solve_phase(&mut g, sch, phase, trans, s.m, b.n, &ids);
    }
    g.finish()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::backend::lapack as bk;
    use crate::config::Config;
    use crate::error::Error;
    use crate::tile::Workspace;

    /// A block tridiagonal test matrix: blocks as the routines store them.
    #[derive(Clone)]
    pub(crate) struct Bt {
        pub n: usize,
        pub m: usize,
        pub dl: Vec<f64>,
        pub d: Vec<f64>,
        pub du: Vec<f64>,
    }

    /// Kinds of test matrices.
    #[derive(Clone, Copy, Debug)]
    pub(crate) enum Kind {
        /// Random blocks, the diagonal ones made block diagonally dominant.
        Dominant,
        /// As `Dominant`, then the rows of every diagonal block reversed and its diagonal made
        /// small: every LU needs its row interchanges.
        Pivoting,
    }

    impl Bt {
        pub fn random(n: usize, m: usize, kind: Kind, seed: u64) -> Bt {
            let mut rng = Rng::new(seed);
            let mm = m * m;
            let off = n.saturating_sub(1) * mm;
            let dl: Vec<f64> = (0..off).map(|_| rng.next()).collect();
            let du: Vec<f64> = (0..off).map(|_| rng.next()).collect();
            let mut d: Vec<f64> = (0..n * mm).map(|_| rng.next()).collect();
            for x in 0..n {
                let blk = &mut d[x * mm..(x + 1) * mm];
                for j in 0..m {
                    blk[j + j * m] += 3.0 * m as f64;
                }
                if let Kind::Pivoting = kind {
                    // Reverse the rows, then shrink what lands on the diagonal.
                    for j in 0..m {
                        for i in 0..m / 2 {
                            blk.swap(i + j * m, m - 1 - i + j * m);
                        }
                        if 2 * j + 1 != m {
                            blk[j + j * m] *= 1e-3;
                        }
                    }
                }
            }
            Bt { n, m, dl, d, du }
        }
        pub fn order(&self) -> usize {
            self.n * self.m
        }
        /// Entry (row, col) of the whole matrix.
        pub fn get(&self, row: usize, col: usize) -> f64 {
            let (m, mm) = (self.m, self.m * self.m);
            let (x, i, y, j) = (row / m, row % m, col / m, col % m);
            if x == y {
                self.d[x * mm + i + j * m]
            } else if x == y + 1 {
                self.dl[y * mm + i + j * m]
            } else if y == x + 1 {
                self.du[x * mm + i + j * m]
            } else {
                0.0
            }
        }
        pub fn dense(&self) -> Vec<f64> {
            let nn = self.order();
            let mut a = vec![0.0; nn * nn];
            for j in 0..nn {
                for i in 0..nn {
                    a[i + j * nn] = self.get(i, j);
                }
            }
            a
        }
        /// max_j Σ_i |a_ij| (the 1-norm), over the nonzero band only.
        pub fn norm1(&self) -> f64 {
            let (nn, m) = (self.order(), self.m);
            (0..nn)
                .map(|j| {
                    let lo = (j / m).saturating_sub(1) * m;
                    let hi = ((j / m + 2) * m).min(nn);
                    (lo..hi).map(|i| self.get(i, j).abs()).sum::<f64>()
                })
                .fold(0.0, f64::max)
        }
        /// ‖op(A)·X − B‖₁ / (‖A‖₁·‖X‖₁·n·ε), column-wise maxima.
        pub fn residual(&self, trans: Trans, x: &[f64], b: &[f64], nrhs: usize, ldb: usize) -> f64 {
            let (nn, m) = (self.order(), self.m);
            let mut worst: f64 = 0.0;
            for c in 0..nrhs {
                let xc = &x[c * ldb..c * ldb + nn];
                let mut r1 = 0.0;
                for i in 0..nn {
                    let lo = (i / m).saturating_sub(1) * m;
                    let hi = ((i / m + 2) * m).min(nn);
                    let mut s = -b[c * ldb + i];
                    for (j, xj) in xc.iter().enumerate().take(hi).skip(lo) {
                        let a = if trans == Trans::No { self.get(i, j) } else { self.get(j, i) };
                        s += a * xj;
                    }
                    r1 += s.abs();
                }
                let x1: f64 = xc.iter().map(|v| v.abs()).sum();
                worst = worst.max(r1 / (self.norm1() * x1.max(f64::MIN_POSITIVE) * nn as f64 * eps()));
            }
            worst
        }
        /// The whole matrix in LAPACK's band storage for DGBSV (kl = ku = 2M − 1).
        pub fn band(&self) -> (Vec<f64>, usize, usize) {
            let nn = self.order();
            let k = (2 * self.m).saturating_sub(1);
            let ldab = 2 * k + k + 1;
            let mut ab = vec![0.0; ldab * nn];
            for j in 0..nn {
                for i in j.saturating_sub(k)..(j + k + 1).min(nn) {
                    ab[k + k + i - j + j * ldab] = self.get(i, j);
                }
            }
            (ab, k, ldab)
        }
    }

    /// X from LAPACK's DGBSV on the band form (transposed systems: on the transposed matrix).
    pub(crate) fn reference_gbsv(
        a: &Bt,
        trans: Trans,
        b: &[f64],
        nrhs: usize,
        ldb: usize,
    ) -> (Vec<f64>, i32) {
        let at = if trans == Trans::Yes { a.transposed() } else { a.clone() };
        let (mut ab, k, ldab) = at.band();
        let nn = a.order();
        let mut x = b.to_vec();
        let mut ipiv = vec![0i32; nn.max(1)];
        let mut info = 0;
        let (n, kk, r, la, lb) = (nn as i32, k as i32, nrhs as i32, ldab as i32, ldb as i32);
        let _blas = crate::backend::BlasThreadsGuard::new();
        // SAFETY: ab is ldab×nn, ipiv nn, x ldb×nrhs with ldb ≥ nn, as DGBSV documents.
        unsafe {
            bk::dgbsv(
                &n,
                &kk,
                &kk,
                &r,
                ab.as_mut_ptr(),
                &la,
                ipiv.as_mut_ptr(),
                x.as_mut_ptr(),
                &lb,
                &mut info,
            )
        };
        (x, info)
    }

    impl Bt {
        /// Aᵀ, stored the same way.
        pub fn transposed(&self) -> Bt {
            let (m, mm) = (self.m, self.m * self.m);
            let tr = |v: &[f64]| -> Vec<f64> {
                let mut o = v.to_vec();
                for x in 0..v.len() / mm.max(1) {
                    for j in 0..m {
                        for i in 0..m {
                            o[x * mm + j + i * m] = v[x * mm + i + j * m];
                        }
                    }
                }
                o
            };
            Bt { n: self.n, m, dl: tr(&self.du), d: tr(&self.d), du: tr(&self.dl) }
        }
    }

    /// X from a dense DGESV (op(A) formed explicitly).
    pub(crate) fn reference_gesv(a: &Bt, trans: Trans, b: &[f64], nrhs: usize, ldb: usize) -> Vec<f64> {
        let at = if trans == Trans::Yes { a.transposed() } else { a.clone() };
        let nn = a.order();
        let mut d = at.dense();
        let mut x = b.to_vec();
        let mut ipiv = vec![0i32; nn.max(1)];
        let mut info = 0;
        let (n, r, l, lb) = (nn as i32, nrhs as i32, nn.max(1) as i32, ldb as i32);
        // Threaded OpenBLAS's LU overflows a test thread's stack: one thread.
        let _blas = crate::backend::BlasThreadsGuard::new();
        // SAFETY: d is nn×nn, ipiv nn, x ldb×nrhs with ldb ≥ nn.
        unsafe { bk::dgesv(&n, &r, d.as_mut_ptr(), &l, ipiv.as_mut_ptr(), x.as_mut_ptr(), &lb, &mut info) };
        assert_eq!(info, 0);
        x
    }

    /// Factors (method) and solves in place on copies of `a`'s arrays, as the routines would.
    struct Run {
        dl: Vec<f64>,
        d: Vec<f64>,
        du: Vec<f64>,
        af: Vec<f64>,
        piv: Workspace<f64>,
    }

    fn blocks(r: &mut Run, n: usize, m: usize) -> Blocks {
        let mk = |v: &mut Vec<f64>, k: usize| {
            // SAFETY: v holds k blocks of m×m, i.e. an m×(k·m) matrix with leading dimension m.
            unsafe { TiledMatrix::from_raw(v.as_mut_ptr(), m, k * m, m, m, m) }
        };
        Blocks {
            n,
            m,
            d: mk(&mut r.d, n),
            dl: (n > 1).then(|| mk(&mut r.dl, n - 1)),
            du: (n > 1).then(|| mk(&mut r.du, n - 1)),
            af: mk(&mut r.af, 2 * n),
            piv: r.piv.tiles(),
        }
    }

    fn factor_run(a: &Bt, method: Method, threads: usize) -> (Run, Result<(), Error>) {
        factor_run_in(a, &schedule(method, a.n), threads)
    }

    fn factor_run_in(a: &Bt, sch: &Schedule, threads: usize) -> (Run, Result<(), Error>) {
        let (n, m) = (a.n, a.m);
        let mut r = Run {
            dl: a.dl.clone(),
            d: a.d.clone(),
            du: a.du.clone(),
            af: vec![0.0; 2 * n * m * m],
            piv: Workspace::new(m, n, m, 1),
        };
        let s = blocks(&mut r, n, m);
        // Concurrent tasks call the backend: one BLAS thread each, as the routines run them.
        let _blas = crate::backend::BlasThreadsGuard::new();
        let seq = Seq::new(&cfg(threads));
        factor(&seq, sch, &s);
        let res = seq.wait();
        (r, res)
    }

    fn solve_run(r: &mut Run, a: &Bt, method: Method, trans: Trans, b: &mut [f64], nrhs: usize, ldb: usize) {
        solve_run_in(r, a, &schedule(method, a.n), trans, b, nrhs, ldb)
    }

    #[allow(clippy::too_many_arguments)]
    fn solve_run_in(
        r: &mut Run,
        a: &Bt,
        sch: &Schedule,
        trans: Trans,
        b: &mut [f64],
        nrhs: usize,
        ldb: usize,
    ) {
        let (n, m) = (a.n, a.m);
        let s = blocks(r, n, m);
        // SAFETY: b is ldb×nrhs with ldb ≥ n·m.
        let bt = unsafe {
            TiledMatrix::from_raw_parts(
                b.as_mut_ptr(),
                n * m,
                nrhs,
                ldb,
                crate::tile::Part::uniform(m),
                crate::tile::Part::uniform(nrhs.max(1)),
            )
        };
        let _blas = crate::backend::BlasThreadsGuard::new();
        let seq = Seq::new(&cfg(3));
        solve(&seq, sch, trans, &s, &bt);
        seq.wait().unwrap();
    }

    fn check(n: usize, m: usize, nrhs: usize, kind: Kind, method: Method) {
        check_in(n, m, nrhs, kind, &schedule(method, n), &format!("{method:?}"));
    }

    fn check_in(n: usize, m: usize, nrhs: usize, kind: Kind, sch: &Schedule, method: &str) {
        let a = Bt::random(n, m, kind, (n * 1000 + m * 10 + nrhs) as u64);
        let nn = n * m;
        let ldb = nn + 2;
        let mut rng = Rng::new(nn as u64 + 5);
        let b0 = rng.matrix(nn, nrhs, ldb);
        let (mut r, res) = factor_run_in(&a, sch, 3);
        res.unwrap();
        for trans in [Trans::No, Trans::Yes] {
            let mut x = b0.clone();
            solve_run_in(&mut r, &a, sch, trans, &mut x, nrhs, ldb);
            let res = a.residual(trans, &x, &b0, nrhs, ldb);
            assert!(res < 20.0, "n {n} m {m} nrhs {nrhs} {kind:?} {method} {trans:?}: residual {res}");
            // The same solution as DGBSV on the band form (and DGESV when small).
            let (xg, info) = reference_gbsv(&a, trans, &b0, nrhs, ldb);
            assert_eq!(info, 0);
            let xn: f64 = xg.iter().map(|v| v.abs()).fold(0.0, f64::max);
            let cond_tol = 1e-8 * xn.max(1.0);
            for c in 0..nrhs {
                for i in 0..nn {
                    let (u, v) = (x[i + c * ldb], xg[i + c * ldb]);
                    assert!(
                        (u - v).abs() <= cond_tol,
                        "n {n} m {m} {kind:?} {method} {trans:?}: x[{i}] {u} vs dgbsv {v}"
                    );
                }
                // Rows nn..ldb of B untouched.
                for i in nn..ldb {
                    assert_eq!(x[i + c * ldb], GUARD);
                }
            }
            if nn <= 200 {
                let xd = reference_gesv(&a, trans, &b0, nrhs, ldb);
                for i in 0..nn {
                    assert!((x[i] - xd[i]).abs() <= cond_tol, "dgesv x[{i}]");
                }
            }
        }
    }

    /// Every row but the last eliminated once, each with the nearest rows not yet eliminated
    /// on each side as its neighbours.
    fn check_order(sch: &Schedule, n: usize, what: &str) {
        let mut seen: Vec<usize> = sch.levels.iter().flatten().map(|e| e.i).chain([sch.last]).collect();
        seen.sort();
        assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{what}");
        let mut gone = vec![false; n];
        for lev in &sch.levels {
            for e in lev {
                let l = (0..e.i).rev().find(|&x| !gone[x]);
                let r = (e.i + 1..n).find(|&x| !gone[x]);
                assert_eq!((e.l, e.r), (l, r), "{what}: row {}", e.i);
            }
            for e in lev {
                gone[e.i] = true;
            }
        }
    }

    /// Rank r's rows [r·K, min(N, (r+1)·K)), K = ⌈N/P⌉, the ranks holding some.
    pub(crate) fn rank_parts(n: usize, p: usize) -> Vec<std::ops::Range<usize>> {
        let k = n.div_ceil(p);
        (0..p).map(|r| (r * k).min(n)..((r + 1) * k).min(n)).filter(|r| !r.is_empty()).collect()
    }

    #[test]
    fn schedules_eliminate_every_row_but_the_last_once() {
        for method in [Method::Cyclic, Method::Thomas, Method::Twisted] {
            for n in [1usize, 2, 3, 7, 8, 64, 257] {
                let sch = schedule(method, n);
                check_order(&sch, n, &format!("{method:?} n {n}"));
                let want = match method {
                    Method::Cyclic => (n as f64).log2().ceil() as usize,
                    Method::Thomas => n - 1,
                    Method::Twisted => n / 2,
                };
                assert_eq!(sch.levels.len(), want, "{method:?} n {n}: levels");
            }
        }
        for p in 1..=6 {
            for n in [1usize, 2, 3, 5, 7, 8, 13, 23, 64, 257] {
                let parts = rank_parts(n, p);
                let sch = partitioned(&parts);
                let what = format!("partitioned n {n} p {p}");
                check_order(&sch, n, &what);
                // The local levels keep to their parts; then cyclic reduction of the kept rows.
                let part = |x: usize| parts.iter().position(|r| r.contains(&x)).unwrap();
                for e in sch.levels[..sch.local_levels].iter().flatten() {
                    assert!(e.l.iter().chain(&e.r).all(|&y| part(y) == part(e.i)), "{what}: row {}", e.i);
                }
                let q = parts.len();
                let kept = n - sch.levels[..sch.local_levels].iter().map(Vec::len).sum::<usize>();
                let mids: usize =
                    parts.iter().take(q.saturating_sub(1)).skip(1).map(|r| r.len().min(2)).sum();
                assert_eq!(kept, if q == 1 { 1 } else { 2 + mids }, "{what}: kept rows");
                let want = sch.local_levels + (kept as f64).log2().ceil() as usize;
                assert_eq!(sch.levels.len(), want, "{what}: levels");
                let longest = parts.iter().map(|r| r.len()).max().unwrap();
                assert!(sch.local_levels < longest, "{what}: local levels");
            }
        }
        // Two parts: twisted block Thomas meeting at the boundary (same eliminations).
        let sch = partitioned(&[0..4, 4..7]);
        let tw: Vec<Vec<Elim>> = vec![
            vec![Elim { i: 0, l: None, r: Some(1) }, Elim { i: 6, l: Some(5), r: None }],
            vec![Elim { i: 1, l: None, r: Some(2) }, Elim { i: 5, l: Some(4), r: None }],
            vec![Elim { i: 2, l: None, r: Some(3) }],
            vec![Elim { i: 4, l: Some(3), r: None }],
        ];
        assert_eq!((sch.levels, sch.last, sch.local_levels), (tw, 3, 3));
        // Flops: block Thomas 4⅔m³ a row, cyclic reduction 12⅔m³ an elimination with both.
        let th = schedule(Method::Thomas, 10);
        assert!((th.factor_flops(1) - (9.0 * 14.0 / 3.0 + 2.0 / 3.0)).abs() < 1e-12);
        assert!((th.solve_flops(2, 3) - (9.0 * 3.0 + 1.0) * 24.0).abs() < 1e-12);
    }

    /// What the eliminations of `a`'s rows other than `kept` leave on the rows `kept` (blocks of
    /// the factorization's arrays `r`) is the dense Schur complement of those rows,
    /// S = A_KK − A_KE·A_EE⁻¹·A_EK, and S is block tridiagonal over `kept`: D of each kept row
    /// in `d`, its coupling to the next kept row in `du`, to the previous in `dl` (block x − 1).
    fn assert_schur_complement(a: &Bt, r: &Run, kept: &[usize]) {
        let (n, m) = (a.n, a.m);
        let nn = a.order();
        let full = a.dense();
        let ev: Vec<usize> = (0..nn).filter(|&g| kept.contains(&(g / m))).collect();
        let od: Vec<usize> = (0..nn).filter(|&g| !kept.contains(&(g / m))).collect();
        let (ne, no) = (ev.len(), od.len());
        let mut aoo = vec![0.0; no * no];
        let mut aoe = vec![0.0; no * ne];
        for (q, &gj) in od.iter().enumerate() {
            for (p, &gi) in od.iter().enumerate() {
                aoo[p + q * no] = full[gi + gj * nn];
            }
        }
        for (q, &gj) in ev.iter().enumerate() {
            for (p, &gi) in od.iter().enumerate() {
                aoe[p + q * no] = full[gi + gj * nn];
            }
        }
        if no > 0 {
            let mut ipiv = vec![0i32; no];
            let mut info = 0;
            let _blas = crate::backend::BlasThreadsGuard::new();
            // SAFETY: square no×no system with ne right-hand sides, arrays of those sizes.
            unsafe {
                bk::dgesv(
                    &(no as i32),
                    &(ne as i32),
                    aoo.as_mut_ptr(),
                    &(no as i32),
                    ipiv.as_mut_ptr(),
                    aoe.as_mut_ptr(),
                    &(no as i32),
                    &mut info,
                )
            };
            assert_eq!(info, 0);
        }
        let s = |p: usize, q: usize| {
            let mut v = full[ev[p] + ev[q] * nn];
            for (t, &go) in od.iter().enumerate() {
                v -= full[ev[p] + go * nn] * aoe[t + q * no];
            }
            v
        };
        let mm = m * m;
        let k = kept.len();
        let scale = a.norm1();
        for (red, &x) in kept.iter().enumerate() {
            for j in 0..m {
                for i in 0..m {
                    let close = |u: f64, v: f64| (u - v).abs() < 1e-13 * scale;
                    let want = s(red * m + i, red * m + j);
                    assert!(close(r.d[x * mm + i + j * m], want), "D_{x}({i},{j}) n {n} kept {kept:?}");
                    if red + 1 < k {
                        let want = s(red * m + i, (red + 1) * m + j);
                        assert!(close(r.du[x * mm + i + j * m], want), "C_{x}({i},{j}) kept {kept:?}");
                    }
                    if red > 0 {
                        let want = s(red * m + i, (red - 1) * m + j);
                        assert!(close(r.dl[(x - 1) * mm + i + j * m], want), "A_{x}({i},{j}) kept {kept:?}");
                    }
                    // Nothing beyond the neighbours: the kept rows are block tridiagonal.
                    for far in (0..k).filter(|&f| f + 1 < red || f > red + 1) {
                        assert!(s(red * m + i, far * m + j).abs() < 1e-13 * scale, "S not tridiagonal");
                    }
                }
            }
        }
    }

    /// The per-level formulas on a dense copy: one level of cyclic reduction, done by hand on
    /// the whole matrix, leaves the Schur complement of the eliminated rows equal to the reduced
    /// block tridiagonal system the generator keeps (D, couplings), checked on level 0.
    #[test]
    fn one_level_equals_the_schur_complement() {
        let (n, m) = (5, 3);
        let a = Bt::random(n, m, Kind::Pivoting, 42);
        let (r, res) = factor_run_steps(&a, &schedule(Method::Cyclic, n), 1);
        res.unwrap();
        assert_schur_complement(&a, &r, &[0, 2, 4]);
    }

    /// The partitioned order's local levels (each rank's own rows, the spikes of the middle
    /// parts included) leave the Schur complement of the rows they eliminate on the kept rows:
    /// the reduced system the ranks then solve by cyclic reduction.
    #[test]
    fn partitioned_interior_is_the_schur_complement() {
        for &(n, p, m) in
            &[(13usize, 3usize, 3usize), (23, 4, 2), (10, 4, 3), (7, 2, 4), (9, 5, 2), (6, 1, 3)]
        {
            let a = Bt::random(n, m, Kind::Pivoting, 7 + n as u64);
            let parts = rank_parts(n, p);
            let sch = partitioned(&parts);
            let (r, res) = factor_run_steps(&a, &sch, sch.local_levels);
            res.unwrap();
            let gone: Vec<usize> = sch.levels[..sch.local_levels].iter().flatten().map(|e| e.i).collect();
            let kept: Vec<usize> = (0..n).filter(|x| !gone.contains(x)).collect();
            assert_schur_complement(&a, &r, &kept);
        }
    }

    /// The first `steps` levels of the factorization in the order `sch` alone.
    fn factor_run_steps(a: &Bt, sch: &Schedule, steps: usize) -> (Run, Result<(), Error>) {
        struct Upto<'g, 's>(&'g mut SharedGraph<'s>, usize);
        impl Graph for Upto<'_, '_> {
            fn tiling(&self) -> &crate::graph::Tiling {
                self.0.tiling()
            }
            fn submit(&mut self, t: Spec) {
                if t.step < self.1 {
                    self.0.submit(t)
                }
            }
            fn buffer(&mut self, rows: usize, cols: usize, with: TileId) -> TileId {
                self.0.buffer(rows, cols, with)
            }
        }
        let (n, m) = (a.n, a.m);
        let mut r = Run {
            dl: a.dl.clone(),
            d: a.d.clone(),
            du: a.du.clone(),
            af: vec![0.0; 2 * n * m * m],
            piv: Workspace::new(m, n, m, 1),
        };
        let s = blocks(&mut r, n, m);
        let _blas = crate::backend::BlasThreadsGuard::new();
        let seq = Seq::new(&cfg(2));
        {
            let mut g = SharedGraph::new(&seq, &s.d);
            let ids = shared_ids(&mut g, &s, None);
            generate_factor(&mut Upto(&mut g, steps), sch, m, &ids);
        }
        let res = seq.wait();
        (r, res)
    }

    #[test]
    fn bt_solves_match_dgbsv_and_dgesv() {
        for method in [Method::Cyclic, Method::Thomas, Method::Twisted] {
            for &n in &[1usize, 2, 3, 7, 64] {
                for &m in &[1usize, 5, 32] {
                    for nrhs in [1, 3] {
                        for kind in [Kind::Dominant, Kind::Pivoting] {
                            check(n, m, nrhs, kind, method);
                        }
                    }
                }
            }
        }
    }

    /// The partitioned order (pdbttrf's) on 1-5 parts of the rows: DGBSV's solution, A and Aᵀ.
    #[test]
    fn bt_partitioned_solves_match_dgbsv_and_dgesv() {
        for p in 1..=5usize {
            for &n in &[1usize, 2, 3, 7, 13, 64] {
                for &m in &[1usize, 5, 32] {
                    for kind in [Kind::Dominant, Kind::Pivoting] {
                        let sch = partitioned(&rank_parts(n, p));
                        check_in(n, m, 1 + 2 * (n % 2), kind, &sch, &format!("partitioned p {p}"));
                    }
                }
            }
        }
    }

    /// The same factors and solutions from the tasks and from the inline (sequential) run.
    /// The two-chain inline solve against the one-thread one, on twisted factors (both chains, a
    /// bottom chain of only the step into the last row, none) and on orders it does not split.
    #[test]
    fn two_chain_solve_equals_one_thread() {
        assert!(twisted_chains(&schedule(Method::Thomas, 9)).is_none());
        assert!(twisted_chains(&schedule(Method::Cyclic, 9)).is_none());
        assert!(twisted_chains(&schedule(Method::Twisted, 2)).is_none());
        let [top, bottom, tail] = twisted_chains(&schedule(Method::Twisted, 9)).unwrap();
        assert_eq!((top.levels.len(), bottom.levels.len(), tail.levels.len()), (4, 3, 1));
        assert_eq!(tail.levels[0][0], Elim { i: 5, l: Some(4), r: None });
        let _blas = crate::backend::BlasThreadsGuard::new();
        for method in [Method::Twisted, Method::Thomas] {
            for &(n, m, nrhs) in &[(1, 3, 1), (2, 4, 2), (3, 5, 1), (8, 5, 3), (65, 8, 2)] {
                let a = Bt::random(n, m, Kind::Pivoting, 7);
                let (mut r, res) = factor_run(&a, method, 2);
                res.unwrap();
                let ldb = n * m + 3;
                for trans in [Trans::No, Trans::Yes] {
                    let b0 = Rng::new(4).matrix(ldb, nrhs, ldb);
                    let (mut x1, mut x2) = (b0.clone(), b0.clone());
                    for (x, two) in [(&mut x1, false), (&mut x2, true)] {
                        // SAFETY: x is ldb×nrhs with ldb ≥ n·m.
                        let bt = unsafe {
                            TiledMatrix::from_raw_parts(
                                x.as_mut_ptr(),
                                n * m,
                                nrhs,
                                ldb,
                                crate::tile::Part::uniform(m),
                                crate::tile::Part::uniform(nrhs),
                            )
                        };
                        let s = blocks(&mut r, n, m);
                        let sch = schedule(method, n);
                        if two {
                            solve_inline_two_chains(&sch, trans, &s, &bt)
                        } else {
                            solve_inline(&sch, trans, &s, &bt)
                        }
                        .unwrap();
                    }
                    let what = format!("{method:?} n={n} m={m} nrhs={nrhs} {trans:?}");
                    assert!(a.residual(trans, &x2, &b0, nrhs, ldb) < 20.0, "{what}: residual");
                    for (e, (p, q)) in x1.iter().zip(&x2).enumerate() {
                        if e % ldb >= n * m {
                            assert_eq!(q, &b0[e], "{what}: padding written");
                        }
                        // The last row's two updates may come in the other order.
                        assert!((p - q).abs() <= 1e-12 * p.abs().max(1.0), "{what}: {p} vs {q}");
                    }
                }
            }
        }
    }

    #[test]
    fn bt_inline_equals_tasks() {
        for method in [Method::Thomas, Method::Twisted, Method::Cyclic] {
            for &(n, m, nrhs) in &[(1, 3, 1), (7, 5, 3), (64, 8, 2)] {
                let a = Bt::random(n, m, Kind::Pivoting, 5);
                let (mut r, res) = factor_run(&a, method, 3);
                res.unwrap();
                let mut q = Run {
                    dl: a.dl.clone(),
                    d: a.d.clone(),
                    du: a.du.clone(),
                    af: vec![0.0; 2 * n * m * m],
                    piv: Workspace::new(m, n, m, 1),
                };
                let s = blocks(&mut q, n, m);
                factor_inline(&schedule(method, n), &s).unwrap();
                assert_eq!(
                    (&q.d, &q.dl, &q.du, q.piv.as_slice()),
                    (&r.d, &r.dl, &r.du, r.piv.as_slice()),
                    "{method:?}"
                );
                for trans in [Trans::No, Trans::Yes] {
                    let b0 = Rng::new(3).matrix(n * m, nrhs, n * m);
                    let (mut x1, mut x2) = (b0.clone(), b0.clone());
                    solve_run(&mut r, &a, method, trans, &mut x1, nrhs, n * m);
                    // SAFETY: x2 is (n·m)×nrhs.
                    let bt = unsafe {
                        TiledMatrix::from_raw_parts(
                            x2.as_mut_ptr(),
                            n * m,
                            nrhs,
                            n * m,
                            crate::tile::Part::uniform(m),
                            crate::tile::Part::uniform(nrhs),
                        )
                    };
                    let s = blocks(&mut q, n, m);
                    solve_inline(&schedule(method, n), trans, &s, &bt).unwrap();
                    assert_eq!(x1, x2, "{method:?} {trans:?}");
                }
            }
        }
        // A failure stops the inline run at once, with the same INFO.
        let mut a = Bt::random(5, 4, Kind::Dominant, 8);
        a.d[..16].fill(0.0);
        let mut q = Run {
            dl: a.dl.clone(),
            d: a.d.clone(),
            du: a.du.clone(),
            af: vec![0.0; 160],
            piv: Workspace::new(4, 5, 4, 1),
        };
        let s = blocks(&mut q, 5, 4);
        assert_eq!(factor_inline(&schedule(Method::Thomas, 5), &s), Err(Error::Numerical(1)));
    }

    /// The generator on the distributed runtime (`dist::tasks`, ranks as threads over channels):
    /// P = 1..4 ranks holding contiguous block rows [r·K, (r+1)·K), K = ⌈N/P⌉ (ranks with one row
    /// or none included); the factors and the solution equal the shared-memory run's, exactly.
    #[test]
    fn bt_on_in_process_ranks_equals_shared_memory() {
        use crate::dist::comm::LocalTransport;
        use crate::dist::tasks::{run_on, LocalTile, TileGrid};
        // `None`: the partitioned order over the ranks, as pdbttrf runs it.
        for method in [Some(Method::Cyclic), Some(Method::Twisted), Some(Method::Thomas), None] {
            for p in 1..=4usize {
                for &(n, m, nrhs) in &[(7usize, 5usize, 2usize), (5, 3, 1), (2, 4, 1), (9, 2, 1), (13, 3, 2)]
                {
                    let sch = match method {
                        Some(meth) => schedule(meth, n),
                        None => partitioned(&rank_parts(n, p)),
                    };
                    let sch = &sch;
                    let a = Bt::random(n, m, Kind::Pivoting, 11 + n as u64);
                    let (mut want, res) = factor_run_in(&a, sch, 2);
                    res.unwrap();
                    let nn = n * m;
                    let b0 = Rng::new(4).matrix(nn, nrhs, nn);
                    let mut xs = b0.clone();
                    solve_run_in(&mut want, &a, sch, Trans::No, &mut xs, nrhs, nn);
                    let k = n.div_ceil(p);
                    let owner = |x: usize| x / k;
                    let mm = m * m;
                    // Per rank: (its D, DL, DU blocks and B rows, as (block, values)) after the run.
                    type Out = Vec<(char, usize, Vec<f64>)>;
                    // Between the two sequences: a rank's solve messages must not reach a rank
                    // still in the factorization (each distributed call is its own exchange).
                    let barrier = std::sync::Barrier::new(p);
                    let outs: Vec<Out> = std::thread::scope(|sc| {
                        let hs: Vec<_> = LocalTransport::world(p)
                            .into_iter()
                            .enumerate()
                            .map(|(me, mut tr)| {
                                let (a, b0, barrier) = (&a, &b0, &barrier);
                                sc.spawn(move || {
                                    let mut d = Workspace::<f64>::new(m, nn, m, m);
                                    d.as_mut_slice().copy_from_slice(&a.d);
                                    let local: Vec<Option<LocalTile>> = (0..n)
                                        .map(|x| {
                                            (owner(x) == me).then(|| LocalTile { m: d.tiles(), i: 0, j: x })
                                        })
                                        .collect();
                                    let mut tg =
                                        TileGrid::new((m, m), (nn, m), (0..n).map(owner).collect(), local);
                                    let add =
                                        |tg: &mut TileGrid, rows: usize, cols: usize, o: usize, v: &[f64]| {
                                            let id = tg.add(rows, cols, o, me);
                                            if let Some(w) = tg.extra_mut(id) {
                                                w.as_mut_slice().copy_from_slice(v);
                                            }
                                            id
                                        };
                                    let dl: Vec<TileId> = (0..n - 1)
                                        .map(|x| {
                                            add(&mut tg, m, m, owner(x + 1), &a.dl[x * mm..(x + 1) * mm])
                                        })
                                        .collect();
                                    let du: Vec<TileId> = (0..n - 1)
                                        .map(|x| add(&mut tg, m, m, owner(x), &a.du[x * mm..(x + 1) * mm]))
                                        .collect();
                                    let zero = vec![0.0; mm];
                                    let af: Vec<TileId> =
                                        (0..2 * n).map(|t| add(&mut tg, m, m, owner(t / 2), &zero)).collect();
                                    let piv: Vec<TileId> =
                                        (0..n).map(|x| add(&mut tg, m, 1, owner(x), &zero[..m])).collect();
                                    let b: Vec<TileId> = (0..n)
                                        .map(|x| {
                                            let v: Vec<f64> = (0..nrhs)
                                                .flat_map(|c| {
                                                    b0[c * nn + x * m..c * nn + (x + 1) * m].to_vec()
                                                })
                                                .collect();
                                            add(&mut tg, m, nrhs, owner(x), &v)
                                        })
                                        .collect();
                                    let ids = Ids { d: (0..n).collect(), dl, du, af, piv, b };
                                    let cfg = Config::with_threads(2);
                                    let r = run_on(&cfg, me, &mut tr, &tg, |ds| {
                                        generate_factor(ds, sch, m, &ids)
                                    });
                                    assert!(r.result.is_ok() && r.info.is_none(), "rank {me}: factor");
                                    barrier.wait();
                                    let r = run_on(&cfg, me, &mut tr, &tg, |ds| {
                                        generate_solve(ds, sch, Trans::No, m, nrhs, &ids)
                                    });
                                    assert!(r.result.is_ok(), "rank {me}: solve");
                                    let mut out: Out = Vec::new();
                                    for x in (0..n).filter(|&x| owner(x) == me) {
                                        out.push(('d', x, d.as_slice()[x * mm..(x + 1) * mm].to_vec()));
                                        out.push(('b', x, tg.extra(ids.b[x]).unwrap().as_slice().to_vec()));
                                        if x + 1 < n {
                                            out.push((
                                                'u',
                                                x,
                                                tg.extra(ids.du[x]).unwrap().as_slice().to_vec(),
                                            ));
                                        }
                                        if x > 0 {
                                            out.push((
                                                'l',
                                                x - 1,
                                                tg.extra(ids.dl[x - 1]).unwrap().as_slice().to_vec(),
                                            ));
                                        }
                                    }
                                    // Every rank's channel stays open until all have finished.
                                    (out, tr)
                                })
                            })
                            .collect();
                        let all: Vec<_> =
                            hs.into_iter().map(|h| h.join().expect("a rank panicked")).collect();
                        all.into_iter().map(|(o, _)| o).collect()
                    });
                    let mut seen = 0;
                    for (kind, x, v) in outs.into_iter().flatten() {
                        let w: Vec<f64> = match kind {
                            'd' => want.d[x * mm..(x + 1) * mm].to_vec(),
                            'u' => want.du[x * mm..(x + 1) * mm].to_vec(),
                            'l' => want.dl[x * mm..(x + 1) * mm].to_vec(),
                            _ => (0..nrhs)
                                .flat_map(|c| xs[c * nn + x * m..c * nn + (x + 1) * m].to_vec())
                                .collect(),
                        };
                        assert_eq!(v, w, "{method:?} P {p} n {n}: block {kind}{x}");
                        seen += 1;
                    }
                    assert_eq!(seen, 2 * n + 2 * (n - 1), "every block compared once");
                }
            }
        }
    }

    #[test]
    fn bt_large_cases() {
        for method in [Method::Cyclic, Method::Thomas, Method::Twisted] {
            check(257, 5, 3, Kind::Pivoting, method);
            check(257, 1, 1, Kind::Dominant, method);
            check(7, 100, 3, Kind::Pivoting, method);
            check(2, 100, 1, Kind::Dominant, method);
        }
        check(64, 100, 1, Kind::Pivoting, Method::Cyclic);
        check(257, 32, 1, Kind::Dominant, Method::Cyclic);
    }

    #[test]
    fn bt_singular_diagonal_block_reports_its_row() {
        let (n, m) = (7, 5);
        for method in [Method::Cyclic, Method::Thomas, Method::Twisted] {
            // Row 3 is eliminated first by cyclic reduction, row 0 first by both Thomas: those
            // blocks are factored as given. Column 2 of the block zero: the third pivot is zero.
            let x = if method == Method::Cyclic { 3 } else { 0 };
            let mut a = Bt::random(n, m, Kind::Dominant, 9);
            for i in 0..m {
                a.d[x * m * m + i + 2 * m] = 0.0;
            }
            let (_, res) = factor_run(&a, method, 3);
            assert_eq!(res, Err(Error::Numerical((x * m + 3) as i32)), "{method:?}");
        }
    }

    #[test]
    fn bt_on_one_and_two_emulated_devices_small_memory() {
        for count in [1, 2] {
            for mem in [16 << 20, 24 << 10] {
                on_devices(TestDevices { count, mem, host_share: 0.0 }, || {
                    check(64, 32, 3, Kind::Pivoting, Method::Cyclic);
                    check(7, 5, 1, Kind::Dominant, Method::Thomas);
                    check(9, 32, 3, Kind::Pivoting, Method::Twisted);
                    check(3, 100, 1, Kind::Dominant, Method::Cyclic);
                });
            }
        }
    }
}
