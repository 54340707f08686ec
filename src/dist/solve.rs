//! Distributed triangular solves for PDPOTRS and PDGETRS: sub(B) ← op(T₂)⁻¹·op(T₁)⁻¹·P·sub(B)
//! with the factors PDPOTRF / PDGETRF left in sub(A), on 2-D tiles run owner-computes through
//! `DistSeq` (seeds 000 §6).
//!
//! * Cholesky, A = L·Lᵀ (uplo L): L·Y = B, then Lᵀ·X = Y; A = Uᵀ·U (uplo U): Uᵀ·Y = B, then U·X = Y.
//! * LU, P·A = L·U (TRANS = N): X = U⁻¹·L⁻¹·P·B (L unit lower); TRANS = C: X = Pᵀ·L⁻ᴴ·U⁻ᴴ·B;
//!   TRANS = T (the same as C for real A): for complex A, Aᵀ·X = B is Aᴴ·X̄ = B̄, so B is
//!   conjugated on its way into tiles and X on its way back, around the adjoint solve.
//!
//! Generic over the element type ([`DistElem`]): PDPOTRS and PDGETRS are the f64 instances, the
//! other types' P?POTRS and P?GETRS the others; a complex Cholesky factor is A = L·Lᴴ (Uᴴ·U).
//!
//! Layout. sub(A)'s part the solves read (the `uplo` triangle for Cholesky, all of it for LU) moves
//! into `nb`×`nb` tiles dealt 2-D cyclically from the process holding sub(A)(1,1), as in
//! [`super::potrf`]. sub(B) (N×NRHS) moves into tiles with the same row tiling, so row tile i of B
//! is on the process row of row tile i of A (ScaLAPACK requires sub(B) to start on sub(A)'s process
//! row), and columns cut by `nb` dealt over process columns from the one holding sub(B)(1,1). The
//! B tiles are extra tiles of the same [`TileGrid`]. Only B comes back; A is never written (with
//! tiles of the caller's block size it is read in place).
//!
//! Substitution: the generator of `algo::trsm` (the one DPOTRS and DGETRS run), both passes in
//! one sequence; every task writes one B tile and runs on its owner, the A tiles it reads and
//! the solved B tiles arrive as tile messages.
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
use super::tasks::{run_sequence, LocalTile, TileGrid};
use super::{DistElem, Stats};
use crate::algo::trsm::{self, Pass};
use crate::api::scalapack::{numroc, Desc, GridInfo};
use crate::backend::mpi::SystemOperation;
use crate::config::Config;
use crate::error::Error;
use crate::kernels::{Diag, Trans, Uplo};
use crate::tile::{Elem, Raw};
use std::time::Instant;

/// sub(A) and sub(B) as the caller passed them.
pub struct Operands<'a, T: Elem = f64> {
    pub n: i32,
    pub nrhs: i32,
    pub a: Raw<T>,
    pub ia: i32,
    pub ja: i32,
    pub desca: &'a Desc,
    pub b: Raw<T>,
    pub ib: i32,
    pub jb: i32,
    pub descb: &'a Desc,
}

/// P?POTRS on tiles for a process inside the grid; the arguments have passed the checks and
/// N, NRHS > 0.
pub fn potrs<T: DistElem>(
    cfg: &Config,
    uplo: u8,
    ops: &Operands<T>,
    g: &GridInfo,
    nb: usize,
) -> (Result<(), Error>, Stats) {
    let grid = Grid::from_context(ops.desca.ctxt(), g);
    let ul = if uplo.eq_ignore_ascii_case(&b'U') { Uplo::Upper } else { Uplo::Lower };
    let part = if ul == Uplo::Lower { Part::Lower } else { Part::Upper };
    let passes = crate::algo::potrs::passes(ul);
    solve(cfg, &grid, ops, part, passes, Perm::None, false, nb)
}

/// P?GETRS on tiles for a process inside the grid; the arguments have passed the checks and
/// N, NRHS > 0. `Err(reason)` (the same on every rank) when the pivots cannot be applied as a
/// permutation of sub(B)'s rows (see the module doc): the caller forwards the call.
pub fn getrs<T: DistElem>(
    cfg: &Config,
    trans: u8,
    ops: &Operands<T>,
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
    // Aᵀ·X = B of a complex A as Aᴴ·X̄ = B̄.
    let conj = T::COMPLEX && trans.eq_ignore_ascii_case(&b'T');
    let (r, mut st) = solve(cfg, &grid, ops, Part::Full, passes, perm, conj, nb);
    st.redistribution_s += gather;
    Ok((r, st))
}

/// The row permutation of sub(B) that IPIV's interchanges amount to: `pos[i]` is where row i of
/// sub(B) is after the swaps s ↔ IPIV(s) − IA for s = 0, 1, ..., N−1 in turn.
fn permutation<T: Elem>(grid: &Grid, ops: &Operands<T>, ipiv: Raw<i32>) -> Result<Vec<usize>, &'static str> {
    gather_swaps(grid, ops.n as usize, ops.ia, ops.desca, ipiv).map(|t| positions(&t))
}

/// PDGETRF's interchanges of the N×N sub(A) from IPIV in ScaLAPACK's layout (global row indices
/// at the local rows of the process row holding each row, replicated over process columns), as
/// 0-based rows of sub(A): entry s is IPIV(s) − IA. Collective over the grid; `Err(reason)`, the
/// same on every rank, when the process columns' copies differ or an entry points outside sub(A).
pub(crate) fn gather_swaps(
    grid: &Grid,
    n: usize,
    ia: i32,
    d: &Desc,
    ipiv: Raw<i32>,
) -> Result<Vec<usize>, &'static str> {
    let rows = Axis::block_cyclic(n, ia as usize - 1, d.mb() as usize, d.rsrc() as usize, grid.nprow);
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
    lo.iter()
        .map(|&v| usize::try_from(v - ia as i64).ok().filter(|&t| t < n))
        .collect::<Option<Vec<usize>>>()
        .ok_or("pivot-outside")
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
/// `conj`: B is conjugated into tiles and the solution conjugated back.
#[allow(clippy::too_many_arguments)]
fn solve<T: DistElem>(
    cfg: &Config,
    grid: &Grid,
    ops: &Operands<T>,
    part: Part,
    passes: [Pass; 2],
    perm: Perm,
    conj: bool,
    nb: usize,
) -> (Result<(), Error>, Stats) {
    let cj = |v: T| if conj { v.conj() } else { v };
    let (p, q, me) = (grid.nprow, grid.npcol, grid.me());
    let (n, nrhs) = (ops.n as usize, ops.nrhs as usize);
    let (da, db) = (ops.desca, ops.descb);
    let arow = Axis::block_cyclic(n, ops.ia as usize - 1, da.mb() as usize, da.rsrc() as usize, p);
    let acol = Axis::block_cyclic(n, ops.ja as usize - 1, da.nb() as usize, da.csrc() as usize, q);
    let brow = Axis::block_cyclic(n, ops.ib as usize - 1, db.mb() as usize, db.rsrc() as usize, p);
    let bcol = Axis::block_cyclic(nrhs, ops.jb as usize - 1, db.nb() as usize, db.csrc() as usize, q);
    let (r0, c0, cb0) = (arow.owner[0], acol.owner[0], bcol.owner[0]);
    debug_assert_eq!(brow.owner[0], r0, "the checks put sub(B) on sub(A)'s process row");
    let trow = Axis::tiles(n, nb, r0, p, false);
    let tbcol = Axis::tiles(nrhs, nb, cb0, q, false);
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
    let handles: Vec<Option<LocalTile<T>>> = (0..nt * nt)
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
    if atiles.shared() {
        tg.read_in_place(me, |i, j| atiles.remote(i, j));
    }
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
        |i: usize, j: usize| cj(blocal.get(brow.local[i], bcol.local[j])),
        |i: usize, j: usize, v: T| {
            let ((ti, oi), (tc, oc)) = (at[row_in[i]], bt[j]);
            let w = tg.extra_mut(bids[ti + tc * nt]).expect("a B tile of this rank");
            w.as_mut_slice()[oi + oc * edge(ti)] = v;
        },
    );
    let mut redist = t0.elapsed().as_secs_f64();

    // 2. The two substitutions.
    let bcols: Vec<usize> = (0..ct).map(bedge).collect();
    let mut run = run_sequence(cfg, grid, &tg, |ds| trsm::generate(ds, &passes, &bids, &bcols));
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
            cj(w.as_slice()[oi + oc * edge(ti)])
        },
        |i: usize, j: usize, v: T| blocal.set(brow.local[i], bcol.local[j], v),
    );
    redist += t1.elapsed().as_secs_f64();
    let stats = Stats::of(redist, &mut run, None);
    (run.result, stats)
}

#[cfg(test)]
mod tests {
    use super::super::tasks::local_ranks;
    use super::*;
    use crate::algo::testutil::{cfg, eps, fnorm, Rng};
    use crate::runtime::Seq;
    use crate::tile::TiledMatrix;

    /// y = op(T)·x for the triangle of the n×n `a` that `pass` reads (unit diagonal if asked).
    fn apply(a: &[f64], n: usize, pass: &Pass, x: &[f64]) -> Vec<f64> {
        let t = |i: usize, k: usize| {
            let inside = if pass.uplo == Uplo::Lower { i >= k } else { i <= k };
            if i == k && pass.diag == Diag::Unit {
                1.0
            } else if inside {
                a[i + k * n]
            } else {
                0.0
            }
        };
        (0..n)
            .map(|i| (0..n).map(|k| if pass.trans == Trans::No { t(i, k) } else { t(k, i) } * x[k]).sum())
            .collect()
    }

    /// The triangular-solve generator's `passes` over the n×n `a` and n×nrhs `b0` on in-process
    /// ranks of a p×q grid, B's tiles as extra tiles on the process row of their tile row (as
    /// PDPOTRS and PDGETRS deal them), and the shared-memory runtime's on the same input: (X on
    /// the ranks, X in shared memory). Asserts that every rank succeeds, every message sent is
    /// received and A is only read.
    fn distributed_and_shared<T: DistElem>(
        a: &[T],
        b0: &[T],
        (n, nrhs, nb): (usize, usize, usize),
        (p, q): (usize, usize),
        passes: &[Pass; 2],
        what: &str,
    ) -> (Vec<T>, Vec<T>) {
        use crate::tile::View;
        let (nt, ct) = (n.div_ceil(nb), nrhs.div_ceil(nb));
        let edge = |i: usize| nb.min(n - i * nb);
        let bedge = |c: usize| nb.min(nrhs - c * nb);
        let mut extras = Vec::new();
        for c in 0..ct {
            for i in 0..nt {
                let v: Vec<T> = (0..bedge(c))
                    .flat_map(|cc| (0..edge(i)).map(move |r| (i * nb + r, c * nb + cc)))
                    .map(|(r, cc)| b0[r + cc * n])
                    .collect();
                extras.push((edge(i), bedge(c), (i % p) * q + c % q, v));
            }
        }
        let ids: Vec<usize> = (0..nt * ct).map(|x| nt * nt + x).collect();
        let bcols: Vec<usize> = (0..ct).map(bedge).collect();
        let mut aa = a.to_vec();
        let runs = local_ranks::run_mn(&mut aa, (n, n), nb, (p, q), &|_, _| true, &extras, &|ds| {
            trsm::generate(ds, passes, &ids, &bcols)
        });
        assert!(runs.iter().all(|r| r.result.is_ok()), "{what}");
        let sent: usize = runs.iter().map(|r| r.sent).sum();
        assert_eq!(sent, runs.iter().map(|r| r.received).sum::<usize>(), "{what}");
        assert!(aa == a, "{what}: A is only read");
        let mut x = vec![T::zero(); n * nrhs];
        for c in 0..ct {
            for i in 0..nt {
                let w = runs.iter().find_map(|r| r.buffers.get(&ids[i + c * nt])).expect("B tile");
                let v = View::from_slice(w.as_slice(), edge(i), bedge(c), edge(i));
                for cc in 0..bedge(c) {
                    for r in 0..edge(i) {
                        x[i * nb + r + (c * nb + cc) * n] = v.get(r, cc);
                    }
                }
            }
        }
        let (mut sa, mut sx) = (a.to_vec(), b0.to_vec());
        // SAFETY: the vectors hold the n×n and n×nrhs matrices until the wait.
        let ta = unsafe { TiledMatrix::from_raw(sa.as_mut_ptr(), n, n, n, nb, nb) };
        let tb = unsafe { TiledMatrix::from_raw(sx.as_mut_ptr(), n, nrhs, n, nb, nb) };
        let seq = Seq::new(&cfg(2));
        trsm::solve(&seq, passes, &ta, &tb);
        seq.wait().unwrap();
        (x, sx)
    }

    /// For the passes of both routines, in double: X on in-process ranks equals the
    /// shared-memory runtime's, and op(T₁)·op(T₂)·X = B to a few n·eps
    /// ([`distributed_and_shared`] checks the messages and that A is only read).
    #[test]
    fn solves_on_local_ranks_match_shared_memory() {
        let pass = |uplo, trans, diag| Pass { uplo, trans, diag };
        let cases = [
            crate::algo::potrs::passes(Uplo::Lower),
            crate::algo::potrs::passes(Uplo::Upper),
            [pass(Uplo::Lower, Trans::No, Diag::Unit), pass(Uplo::Upper, Trans::No, Diag::NonUnit)],
            [pass(Uplo::Upper, Trans::Yes, Diag::NonUnit), pass(Uplo::Lower, Trans::Yes, Diag::Unit)],
        ];
        for &(p, q) in &[(1, 1), (1, 2), (2, 1), (2, 2), (3, 2)] {
            for &(n, nrhs, nb) in &[(23, 5, 4), (37, 11, 5), (9, 3, 3), (1, 2, 1)] {
                for (ci, passes) in cases.iter().enumerate() {
                    let what = format!("grid {p}x{q} n {n} nrhs {nrhs} nb {nb} case {ci}");
                    let mut rng = Rng::new((n * 17 + nrhs + nb * 5 + p * 3 + q + ci) as u64);
                    let mut a = rng.matrix(n, n, n);
                    for i in 0..n {
                        a[i + i * n] += 2.0 * n as f64;
                    }
                    let b0 = rng.matrix(n, nrhs, n);
                    let (x, sx) = distributed_and_shared(&a, &b0, (n, nrhs, nb), (p, q), passes, &what);
                    let d = x.iter().zip(&sx).map(|(u, v)| (u - v).abs()).fold(0.0, f64::max);
                    let xn = fnorm(&x, n, nrhs, n);
                    assert!(
                        d <= 10.0 * n as f64 * eps() * xn.max(1.0),
                        "{what}: differs from shared memory by {d}"
                    );
                    // B = op(T₁)·op(T₂)·X.
                    let mut r2 = 0.0;
                    for c in 0..nrhs {
                        let y = apply(&a, n, &passes[1], &x[c * n..(c + 1) * n]);
                        let z = apply(&a, n, &passes[0], &y);
                        r2 += z
                            .iter()
                            .zip(&b0[c * n..(c + 1) * n])
                            .map(|(u, v)| (u - v) * (u - v))
                            .sum::<f64>();
                    }
                    let tn = fnorm(&a, n, n, n) + (n as f64).sqrt();
                    let scaled = r2.sqrt() / (tn * tn * xn * n as f64 * eps());
                    assert!(scaled < 10.0, "{what}: scaled residual {scaled}");
                }
            }
        }
    }

    /// The same in single, single complex and double complex (a transposed pass is the
    /// adjoint): the solution is the shared-memory runtime's to a few ε of the type.
    #[test]
    fn solves_in_other_types_on_local_ranks_match_shared_memory() {
        use crate::scalar::{c32, c64};
        fn each<T: DistElem>() {
            let ty = std::any::type_name::<T>();
            let pass = |uplo, trans, diag| Pass { uplo, trans, diag };
            let cases = [
                crate::algo::potrs::passes(Uplo::Lower),
                crate::algo::potrs::passes(Uplo::Upper),
                [pass(Uplo::Upper, Trans::Yes, Diag::NonUnit), pass(Uplo::Lower, Trans::Yes, Diag::Unit)],
            ];
            for &(p, q) in &[(1, 2), (2, 2), (3, 2)] {
                let (n, nrhs, nb) = (23, 7, 4);
                for (ci, passes) in cases.iter().enumerate() {
                    let what = format!("{ty} grid {p}x{q} case {ci}");
                    let mut rng = Rng::new((ci * 31 + p * 3 + q) as u64);
                    let mut a: Vec<T> = rng.values(n, n, n);
                    for i in 0..n {
                        a[i + i * n] = a[i + i * n].add(T::from_f64(2.0 * n as f64));
                    }
                    let b0: Vec<T> = rng.values(n, nrhs, n);
                    let (x, sx) = distributed_and_shared(&a, &b0, (n, nrhs, nb), (p, q), passes, &what);
                    let d = crate::algo::testutil::rel(&x, &sx);
                    assert!(d < 50.0 * n as f64 * T::eps(), "{what}: differs from shared memory by {d}");
                    assert!(x != b0, "{what}: B was solved");
                }
            }
        }
        each::<f32>();
        each::<c32>();
        each::<c64>();
    }

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
