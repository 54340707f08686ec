//! Distributed triangular solves for PDPOTRS and PDGETRS: sub(B) ← op(T₂)⁻¹·op(T₁)⁻¹·P·sub(B)
//! with the factors PDPOTRF / PDGETRF left in sub(A), on 2-D tiles run owner-computes through
//! [`DistSeq`] (seeds 000 §6; the tile substitution of `algo::trsm`).
//!
//! * Cholesky, A = L·Lᵀ (uplo L): L·Y = B, then Lᵀ·X = Y; A = Uᵀ·U (uplo U): Uᵀ·Y = B, then U·X = Y.
//! * LU, P·A = L·U (TRANS = N): X = U⁻¹·L⁻¹·P·B (L unit lower); TRANS = T or C (the same for
//!   real A): X = Pᵀ·L⁻ᵀ·U⁻ᵀ·B.
//!
//! Layout. sub(A)'s part the solves read (the `uplo` triangle for Cholesky, all of it for LU) moves
//! into `nb`×`nb` tiles dealt 2-D cyclically from the process holding sub(A)(1,1), as in
//! [`super::potrf`]. sub(B) (N×NRHS) moves into tiles with the same row tiling, so row tile i of B
//! is on the process row of row tile i of A (ScaLAPACK requires sub(B) to start on sub(A)'s process
//! row), and columns cut by `nb` dealt over process columns from the one holding sub(B)(1,1). The
//! B tiles are extra tiles of the same [`TileGrid`]. Only B comes back; A is never written (with
//! tiles of the caller's block size it is read in place).
//!
//! Substitution. A forward pass (lower and not transposed, or upper and transposed) walks k
//! upward: `B(k,c) ← op(A(k,k))⁻¹·B(k,c)` (TRSM), then `B(m,c) -= op(A)(m,k)·B(k,c)` for m > k
//! (GEMM), with op(A)(m,k) = A(m,k) or A(k,m)ᵀ; a backward pass walks k downward with m < k.
//! Every task writes one B tile and runs on its owner; the A tiles it reads and the solved B(k,c)
//! arrive as tile messages. A TRSM's priority is highest in its step and a GEMM's follows the step
//! that will solve its target, so the update into the next diagonal tile and that tile's solve run
//! before the rest of the trailing updates.
//!
//! Row interchanges (LU). IPIV is ScaLAPACK's: at the local row of global row IA+s, on every
//! process of the process row holding it, the global row that row s was swapped with. The whole
//! vector is gathered (`MPI_Allreduce`); the sequential swaps become one permutation, applied while
//! B moves: for TRANS = N on the way into tiles (caller row i goes to tile row pos(i)), for TRANS =
//! T on the way back (caller row i is read from tile row pos(i)), so no row moves between ranks
//! besides the redistribution itself. Pivots that differ between the process columns holding
//! copies of IPIV, or that point outside sub(A), have no exact meaning in this layout (the reference
//! would swap with rows outside sub(B)); the caller then forwards the call to ScaLAPACK.

use super::grid::Grid;
use super::layout::Axis;
use super::local::LocalTiles;
use super::redistribute::{exchange, CallerArray, Layout, Part, Shape};
use super::tasks::{run_sequence, DistSeq, LocalTile, TileGrid};
use super::Stats;
use crate::algo::prio;
use crate::api::scalapack::{numroc, Desc, GridInfo};
use crate::backend::mpi::SystemOperation;
use crate::config::Config;
use crate::error::Error;
use crate::kernels::{self, Diag, Side, Trans, Uplo};
use crate::tile::Raw;
use std::time::Instant;

/// One triangular solve of the two: B ← op(A's `uplo` triangle)⁻¹·B.
#[derive(Clone, Copy, Debug)]
struct Pass {
    uplo: Uplo,
    trans: Trans,
    diag: Diag,
}

impl Pass {
    /// Whether the substitution walks the tile rows upward.
    fn forward(&self) -> bool {
        (self.uplo == Uplo::Lower) == (self.trans == Trans::No)
    }
}

/// sub(A) and sub(B) as the caller passed them.
pub struct Operands<'a> {
    pub n: i32,
    pub nrhs: i32,
    pub a: Raw<f64>,
    pub ia: i32,
    pub ja: i32,
    pub desca: &'a Desc,
    pub b: Raw<f64>,
    pub ib: i32,
    pub jb: i32,
    pub descb: &'a Desc,
}

/// PDPOTRS on tiles for a process inside the grid; the arguments have passed the checks and
/// N, NRHS > 0.
pub fn pdpotrs(
    cfg: &Config,
    uplo: u8,
    ops: &Operands,
    g: &GridInfo,
    nb: usize,
) -> (Result<(), Error>, Stats) {
    let grid = Grid::from_context(ops.desca.ctxt(), g);
    let ul = if uplo.eq_ignore_ascii_case(&b'U') { Uplo::Upper } else { Uplo::Lower };
    let (part, passes) = match ul {
        Uplo::Lower => (
            Part::Lower,
            [
                Pass { uplo: Uplo::Lower, trans: Trans::No, diag: Diag::NonUnit },
                Pass { uplo: Uplo::Lower, trans: Trans::Yes, diag: Diag::NonUnit },
            ],
        ),
        Uplo::Upper => (
            Part::Upper,
            [
                Pass { uplo: Uplo::Upper, trans: Trans::Yes, diag: Diag::NonUnit },
                Pass { uplo: Uplo::Upper, trans: Trans::No, diag: Diag::NonUnit },
            ],
        ),
    };
    solve(cfg, &grid, ops, part, passes, Perm::None, nb)
}

/// PDGETRS on tiles for a process inside the grid; the arguments have passed the checks and
/// N, NRHS > 0. `Err(reason)` (the same on every rank) when the pivots cannot be applied as a
/// permutation of sub(B)'s rows (see the module doc): the caller forwards the call.
pub fn pdgetrs(
    cfg: &Config,
    trans: u8,
    ops: &Operands,
    ipiv: Raw<i32>,
    g: &GridInfo,
    nb: usize,
) -> Result<(Result<(), Error>, Stats), &'static str> {
    let grid = Grid::from_context(ops.desca.ctxt(), g);
    let t0 = Instant::now();
    let pos = permutation(&grid, ops, ipiv)?;
    let gather = t0.elapsed().as_secs_f64();
    let notrans = trans.eq_ignore_ascii_case(&b'N');
    let (passes, perm) = if notrans {
        (
            [
                Pass { uplo: Uplo::Lower, trans: Trans::No, diag: Diag::Unit },
                Pass { uplo: Uplo::Upper, trans: Trans::No, diag: Diag::NonUnit },
            ],
            Perm::In(pos),
        )
    } else {
        (
            [
                Pass { uplo: Uplo::Upper, trans: Trans::Yes, diag: Diag::NonUnit },
                Pass { uplo: Uplo::Lower, trans: Trans::Yes, diag: Diag::Unit },
            ],
            Perm::Out(pos),
        )
    };
    let (r, mut st) = solve(cfg, &grid, ops, Part::Full, passes, perm, nb);
    st.redistribution_s += gather;
    Ok((r, st))
}

/// The row permutation of sub(B) that IPIV's interchanges amount to: `pos[i]` is where row i of
/// sub(B) is after the swaps s ↔ IPIV(s) − IA for s = 0, 1, ..., N−1 in turn.
fn permutation(grid: &Grid, ops: &Operands, ipiv: Raw<i32>) -> Result<Vec<usize>, &'static str> {
    let n = ops.n as usize;
    let d = ops.desca;
    let rows = Axis::block_cyclic(n, ops.ia as usize - 1, d.mb() as usize, d.rsrc() as usize, grid.nprow);
    let held = rows.held_by(grid.myrow);
    // Each process contributes the entries of its rows, as v and −v, so that one MIN reduction
    // gives the smallest and the largest value over the process columns' copies.
    let len = held.last().map_or(0, |&s| rows.local[s] + 1);
    let piv = ipiv.matrix(len, 1, len.max(1));
    let mut mine = vec![i64::MAX; 2 * n];
    for &s in &held {
        let v = piv.get(rows.local[s], 0) as i64;
        mine[s] = v;
        mine[n + s] = -v;
    }
    let mut all = vec![0i64; 2 * n];
    grid.comm.all_reduce_into(&mine[..], &mut all[..], SystemOperation::min());
    let (lo, hi) = all.split_at(n);
    if lo.iter().zip(hi).any(|(&l, &h)| l != -h) {
        return Err("pivots-differ");
    }
    let targets: Option<Vec<usize>> =
        lo.iter().map(|&v| usize::try_from(v - ops.ia as i64).ok().filter(|&t| t < n)).collect();
    targets.map(|t| positions(&t)).ok_or("pivot-outside")
}

/// `pos[i]`: where row i ends up after swapping rows s and `swaps[s]` for s = 0, 1, ... in turn.
fn positions(swaps: &[usize]) -> Vec<usize> {
    // Swap an index array the same way: afterwards position t holds original row idx[t].
    let mut idx: Vec<usize> = (0..swaps.len()).collect();
    for (s, &t) in swaps.iter().enumerate() {
        idx.swap(s, t);
    }
    let mut pos = vec![0usize; swaps.len()];
    for (t, &i) in idx.iter().enumerate() {
        pos[i] = t;
    }
    pos
}

/// Where the row permutation is applied: none, on the way into tiles, or on the way back.
enum Perm {
    None,
    In(Vec<usize>),
    Out(Vec<usize>),
}

/// The two passes on sub(B) with the factor in sub(A)'s `part`; collective over the grid.
fn solve(
    cfg: &Config,
    grid: &Grid,
    ops: &Operands,
    part: Part,
    passes: [Pass; 2],
    perm: Perm,
    nb: usize,
) -> (Result<(), Error>, Stats) {
    let (p, q, me) = (grid.nprow, grid.npcol, grid.me());
    let (n, nrhs) = (ops.n as usize, ops.nrhs as usize);
    let (da, db) = (ops.desca, ops.descb);
    let arow = Axis::block_cyclic(n, ops.ia as usize - 1, da.mb() as usize, da.rsrc() as usize, p);
    let acol = Axis::block_cyclic(n, ops.ja as usize - 1, da.nb() as usize, da.csrc() as usize, q);
    let brow = Axis::block_cyclic(n, ops.ib as usize - 1, db.mb() as usize, db.rsrc() as usize, p);
    let bcol = Axis::block_cyclic(nrhs, ops.jb as usize - 1, db.nb() as usize, db.csrc() as usize, q);
    let (r0, c0, cb0) = (arow.owner[0], acol.owner[0], bcol.owner[0]);
    debug_assert_eq!(brow.owner[0], r0, "the checks put sub(B) on sub(A)'s process row");
    let trow = Axis::tiles(n, nb, r0, p);
    let tbcol = Axis::tiles(nrhs, nb, cb0, q);
    let (nt, ct) = (n.div_ceil(nb), nrhs.div_ceil(nb));
    let edge = |t: usize| nb.min(n - t * nb);
    let bedge = |c: usize| nb.min(nrhs - c * nb);

    // A's tiles in `part` (the others are never read).
    let in_part = |i: usize, j: usize| match part {
        Part::Lower => i >= j,
        Part::Upper => i <= j,
        Part::Full => true,
    };
    let mut owner = vec![0usize; nt * nt];
    for j in 0..nt {
        for i in 0..nt {
            owner[i + j * nt] = grid.rank_of((r0 + i) % p, (c0 + j) % q);
        }
    }

    // 1. Caller layout -> tiles: A's part (in place when the tiles are its blocks; A is only
    // read, so it is never converted back), then B (rows permuted for PDGETRS with TRANS = N).
    let g = GridInfo { nprow: p as i32, npcol: q as i32, myrow: grid.myrow as i32, mycol: grid.mycol as i32 };
    let alocal = {
        let mloc = numroc(da.m(), da.mb(), g.myrow, da.rsrc(), g.nprow) as usize;
        let nloc = numroc(da.n(), da.nb(), g.mycol, da.csrc(), g.npcol) as usize;
        ops.a.matrix(mloc, nloc, da.lld() as usize)
    };
    let blocal = {
        let mloc = numroc(db.m(), db.mb(), g.myrow, db.rsrc(), g.nprow) as usize;
        let nloc = numroc(db.n(), db.nb(), g.mycol, db.csrc(), g.npcol) as usize;
        ops.b.matrix(mloc, nloc, db.lld() as usize)
    };
    let aligned = nb == da.mb() as usize
        && nb == da.nb() as usize
        && (ops.ia as usize - 1).is_multiple_of(nb)
        && (ops.ja as usize - 1).is_multiple_of(nb);
    let atiles =
        LocalTiles::new(grid, CallerArray { a: alocal, rows: &arow, cols: &acol }, nb, part, aligned);
    let handles: Vec<Option<LocalTile>> = (0..nt * nt)
        .map(|t| {
            let (i, j) = (t % nt, t / nt);
            (owner[t] == me && in_part(i, j)).then(|| atiles.tile(i, j))
        })
        .collect();
    let t0 = Instant::now();
    // Tile index and offset of every row and column of B, so the per-element closures do no
    // division.
    let at: Vec<(usize, usize)> = (0..n).map(|i| (i / nb, i % nb)).collect();
    let bt: Vec<(usize, usize)> = (0..nrhs).map(|j| (j / nb, j % nb)).collect();
    let mut tg = TileGrid::square(n, nb, owner, handles);
    // B's tiles: tile (i, c) is extra tile `bids[i + c·nt]`.
    let mut bids = vec![0usize; nt * ct];
    for c in 0..ct {
        for i in 0..nt {
            let o = grid.rank_of((r0 + i) % p, (cb0 + c) % q);
            bids[i + c * nt] = tg.add(edge(i), bedge(c), o, me);
        }
    }
    // Tile row of each row of sub(B), in and out (the identity but where the permutation acts).
    let ident: Vec<usize> = (0..n).collect();
    let (row_in, row_out) = match &perm {
        Perm::None => (&ident, &ident),
        Perm::In(pos) => (pos, &ident),
        Perm::Out(pos) => (&ident, pos),
    };
    let axis_in = Axis { owner: row_in.iter().map(|&t| trow.owner[t]).collect(), local: Vec::new() };
    let axis_out = Axis { owner: row_out.iter().map(|&t| trow.owner[t]).collect(), local: Vec::new() };
    let bcaller = Layout { rows: &brow, cols: &bcol, shape: Shape::Grid };
    exchange(
        grid,
        Part::Full,
        &bcaller,
        &Layout { rows: &axis_in, cols: &tbcol, shape: Shape::Grid },
        |i: usize, j: usize| blocal.get(brow.local[i], bcol.local[j]),
        |i: usize, j: usize, v: f64| {
            let ((ti, oi), (tc, oc)) = (at[row_in[i]], bt[j]);
            let w = tg.extra_mut(bids[ti + tc * nt]).expect("a B tile of this rank");
            w.as_mut_slice()[oi + oc * edge(ti)] = v;
        },
    );
    let mut redist = t0.elapsed().as_secs_f64();

    // 2. The two substitutions.
    let run = run_sequence(cfg, grid, &tg, |ds| generate(ds, &passes, &bids, ct));
    // A's tiles are no longer used (they are dropped only now: the tasks read them).
    redist += atiles.discard();

    // 3. B's tiles -> caller layout (rows permuted back for PDGETRS with TRANS = T).
    let t1 = Instant::now();
    exchange(
        grid,
        Part::Full,
        &Layout { rows: &axis_out, cols: &tbcol, shape: Shape::Grid },
        &bcaller,
        |i: usize, j: usize| {
            let ((ti, oi), (tc, oc)) = (at[row_out[i]], bt[j]);
            let w = tg.extra(bids[ti + tc * nt]).expect("a B tile of this rank");
            w.as_slice()[oi + oc * edge(ti)]
        },
        |i: usize, j: usize, v: f64| blocal.set(brow.local[i], bcol.local[j], v),
    );
    redist += t1.elapsed().as_secs_f64();
    (
        run.result,
        Stats { redistribution_s: redist, sent: run.sent, received: run.received, devices: run.devices },
    )
}

/// Both substitutions on every column tile of B, owner-computes. `bid[i + c·nt]` is the id of
/// B's tile (i, c); a tile read by another rank in both passes travels once per pass, as two
/// versions (the message engine queues them in order).
fn generate(ds: &mut DistSeq, passes: &[Pass; 2], bid: &[usize], ct: usize) {
    let nt = ds.grid.nt;
    let steps = 2 * nt;
    for (pi, &Pass { uplo, trans, diag }) in passes.iter().enumerate() {
        let forward = passes[pi].forward();
        // The step (over both passes) at which tile row i is solved.
        let step_of = |i: usize| pi * nt + if forward { i } else { nt - 1 - i };
        for s in 0..nt {
            let k = if forward { s } else { nt - 1 - s };
            let kb = ds.grid.rows(k);
            let akk = ds.grid.id(k, k);
            for c in 0..ct {
                let w = bid[k + c * nt];
                let cols = ds.grid.dims(w).1;
                ds.submit_ids("trsm", prio(steps, step_of(k), 3), [kb, cols, 0], &[akk], w, move |x, w| {
                    kernels::trsm(Side::Left, uplo, trans, diag, 1.0, x[0], w);
                    Ok(())
                });
            }
            let targets: Vec<usize> = if forward { (k + 1..nt).collect() } else { (0..k).collect() };
            for m in targets {
                // op(A)(m, k): stored at (m, k) when not transposed, at (k, m) when transposed.
                let aid = if trans == Trans::No { ds.grid.id(m, k) } else { ds.grid.id(k, m) };
                let mb = ds.grid.rows(m);
                for c in 0..ct {
                    let (src, w) = (bid[k + c * nt], bid[m + c * nt]);
                    let cols = ds.grid.dims(w).1;
                    let pr = prio(steps, step_of(m), 1);
                    ds.submit_ids("gemm", pr, [mb, cols, kb], &[aid, src], w, move |x, w| {
                        kernels::gemm(trans, Trans::No, -1.0, x[0], x[1], 1.0, w);
                        Ok(())
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::Rng;

    #[test]
    fn positions_match_sequential_row_swaps() {
        let mut rng = Rng::new(7);
        for n in [1usize, 2, 5, 17] {
            // Pivots as LU leaves them (swaps[s] >= s), and arbitrary ones.
            for lu in [true, false] {
                let swaps: Vec<usize> = (0..n)
                    .map(|s| {
                        let lo = if lu { s } else { 0 };
                        lo + (((rng.next() + 1.0) / 2.0 * (n - lo) as f64) as usize).min(n - lo - 1)
                    })
                    .collect();
                let mut rows: Vec<usize> = (0..n).collect();
                for (s, &t) in swaps.iter().enumerate() {
                    rows.swap(s, t);
                }
                let pos = positions(&swaps);
                for i in 0..n {
                    assert_eq!(rows[pos[i]], i, "n={n} swaps={swaps:?}");
                }
            }
        }
    }
}
