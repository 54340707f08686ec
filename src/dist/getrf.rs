//! Distributed LU with partial pivoting for PDGETRF: the right-looking blocked LU of LAPACK's
//! DGETRF (panel GEPP, row interchanges, TRSM for the U block row, GEMM for the trailing matrix)
//! on `nb`×`nb` tiles dealt 2-D block-cyclically over the caller's P×Q grid ([`super::tiles2d`]),
//! generated on every rank and run owner-computes through [`DistSeq`] (seeds 000 §6). The
//! pivots are only known at run time, so the task graph is built not to depend on them: every
//! task and message exists whatever the pivots are, and the tasks read the pivots to know which
//! rows to move.
//!
//! For step k (k0 = k·nb, kb the panel's width, tk the rows of tile row k, r = min(kb, tk)
//! pivots), with `pk` the process row of tile row k:
//!
//! 1. PANEL(k) on the owner of tile (k, k): every tile (i, k), i ≥ k, is copied into a panel
//!    buffer (one per grid position, reused; the tiles of other process rows arrive as messages)
//!    and factored there by the backend's GEPP (DGETRF); a zero pivot records INFO = k0 + the
//!    kernel's INFO, smallest wins, and the factorization goes on, as LAPACK's does.
//! 2. PIV(k): a small buffer with the pivots and their composite permutation (below), so that
//!    ranks that only move rows never receive the panel.
//! 3. SCATTER: each tile (i, k) takes back its rows of the factored panel (tiles of another
//!    process row from one packed buffer per process row, so the panel crosses the network once).
//! 4. Every other tile column j: the interchanges of panel k on rows k0..M (for j < k these are
//!    LAPACK's later interchanges applied to the columns of L), then for j > k
//!    U(k, j) = L(k, k)⁻¹·A(k, j) (unit lower TRSM) and A(i, j) −= L(i, k)·U(k, j), i > k.
//!
//! The interchanges s ↔ piv(s), s = 0..r, applied in order, leave in the top block (rows 0..r
//! of the panel) rows from anywhere below, but every row from r on ends up either unchanged or
//! holding an original row of the top block (a row moved down is never moved again, since later
//! interchanges only swap rows ≥ their own index with a row ≥ r or inside the top block). So PIV
//! holds, for each top position t < r: the pivot, `src(t)` (the row that ends at t), and when
//! `src(t)` ≥ r, the top row that ends at position `src(t)`. Per column j:
//!
//! * EXTRACT, for each process row other than `pk` holding tiles (i, j), i > k: a task there
//!   copies the rows of its tiles that end in the top block into a small buffer X (r × jb);
//! * NEWTOP on the owner of (k, j): a buffer W (2·nb × (jb + 3)) gets the new tile (k, j) in its first
//!   rows (from the old tile, from the tiles below on the same rank, from the X's), solved with
//!   L(k, k) when j > k, and the old top rows in rows nb.. (what the tiles below receive);
//! * for j > k: COPY, (k, j) ← W; then for i > k one task per tile (i, j): the top rows it
//!   receives (from W), then the GEMM with L(i, k) and the U rows of W;
//! * for j < k: one task per process row writes its tiles of the column: (k, j) ← W, and the
//!   top rows each tile below receives.
//!
//! Program order makes the dependency lists right: EXTRACT and NEWTOP read the tiles before the
//! per-tile tasks write them, and COPY writes (k, j) after NEWTOP read it. Priorities follow
//! `algo::prio`: the panel, then tile column k+1 (look-ahead, so the next panel starts while the
//! trailing update goes on), then the other columns left to right; the interchanges left of the
//! panel come last.
//!
//! On a 1×Q grid (one process row) every tile column is on one rank, its tiles one below the
//! other in that rank's local matrix, so the step is LAPACK's blocked LU on column blocks
//! ([`one_row_step`]): SCATTER as one task, then column k+1 alone (look-ahead) and the rank's
//! other columns in blocks of about 256 adjacent local columns, one task each (DLASWP; right of
//! the panel TRSM and one GEMM), so the backend packs L once per block. A rank holding columns
//! right of the panel receives the factored panel buffer ((M+1)×nb: L and the pivots) in one
//! message per step; nothing else crosses the network. With P > 1 the panel tiles travel to and
//! from the panel's rank along the process column (one packed message per process row on the
//! way back), L tiles and the PIV buffer along the process rows, X's and W's along each process
//! column, as in ScaLAPACK.
//!
//! Extra copies: the panel in and out of its buffer, and per column and step the r rows of X,
//! the 2·nb rows of W and its copy into (k, j) (a few tiles' worth, against the column's GEMMs).
//! W carries the PIV content in 3 extra columns, and row interchanges left of the panel run as
//! one task per process row and column (they touch few rows of many tiles).
//!
//! After the sequence the pivots (kept by each panel's rank as it factors) are summed over the
//! grid (`MPI_Allreduce`) and written in ScaLAPACK's layout: IPIV(local row of global row
//! IA-1+s) = IA + (the sub(A) row swapped with row s), on every process of the process row
//! holding that row, for s < min(M, N). INFO is the minimum over the grid, the same everywhere.

use super::redistribute::Shape;
use super::tasks::{DistSeq, TileGrid};
use super::tiles2d::{self, Cyclic, Finished};
use super::Stats;
use crate::algo::prio;
use crate::api::scalapack::{Desc, GridInfo};
use crate::backend::mpi::SystemOperation;
use crate::config::Config;
use crate::error::Error;
use crate::kernels::{self, Diag, Dir, Side, Trans, Uplo};
use crate::tile::{Raw, View, ViewMut};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

/// PDGETRF on 2-D tiles for a process inside the grid; the arguments have passed the checks
/// and M, N > 0.
#[allow(clippy::too_many_arguments)]
pub fn pdgetrf(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<f64>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    ipiv: Raw<i32>,
    g: &GridInfo,
    nb: usize,
    shape: Shape,
) -> (Result<(), Error>, Stats) {
    let (mu, nu) = (m as usize, n as usize);
    let kmin = mu.min(nu);
    let fail = Arc::new(AtomicI32::new(i32::MAX));
    // Pivots of the panels this rank factored, as 0-based rows of sub(A); zero elsewhere.
    let found = Arc::new(Mutex::new(vec![0i32; kmin]));
    let (f, pv) = (fail.clone(), found.clone());
    let (run, info, stats) = tiles2d::run(
        cfg,
        (mu, nu),
        a,
        (ia, ja),
        desca,
        g,
        nb,
        shape,
        |tg, cyc, me| Buffers::new(cyc, me, tg, mu, nu, nb),
        |ds, cyc, b| generate(ds, cyc, b, f, pv),
        |fin: &Finished| {
            // The same INFO and pivots everywhere.
            let local_info = fail.load(Ordering::SeqCst);
            let mut info = i32::MAX;
            fin.grid.comm.all_reduce_into(&local_info, &mut info, SystemOperation::min());
            let mine = found.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let mut piv = vec![0i32; kmin];
            fin.grid.comm.all_reduce_into(&mine[..], &mut piv[..], SystemOperation::sum());
            for (s, &p) in piv.iter().enumerate() {
                if fin.rows.owner[s] == fin.grid.myrow {
                    // The row that sub(A) row s was swapped with, as a 1-based row of the global A.
                    ipiv.set(fin.rows.local[s], ia + p);
                }
            }
            info
        },
    );
    let result = match run {
        Err(e) => Err(e),
        Ok(()) if info != i32::MAX => Err(Error::Numerical(info)),
        Ok(()) => Ok(()),
    };
    (result, stats)
}

/// The extra tiles of the LU, by id. Buffers are reused from step to step (their versions order
/// the uses), except the packed panel parts, whose height shrinks with the step.
struct Buffers {
    /// Panel buffer ((M+1)×nb: the panel's rows from the top, its pivots in row M) and PIV buffer
    /// (nb×3) of each grid position that owns a diagonal tile, at `prow·Q + pcol`.
    panel: Vec<Option<usize>>,
    piv: Vec<Option<usize>>,
    /// W (2·nb×jb) of tile column j on process row pr, at `pr + j·P`.
    w: Vec<Option<usize>>,
    /// X (nb×jb) of tile column j on process row pr, at `pr + j·P` (P > 1 only).
    x: Vec<Option<usize>>,
    /// For each step, the packed panel rows of each other process row: (process row, id).
    packed: Vec<Vec<(usize, usize)>>,
}

impl Buffers {
    fn new(cyc: &Cyclic, me: usize, tg: &mut TileGrid, m: usize, n: usize, nb: usize) -> Buffers {
        let (p, q) = (cyc.p, cyc.q);
        let (mt, nt) = (tg.mt, tg.nt);
        let kt = m.min(n).div_ceil(nb);
        let mut b = Buffers {
            panel: vec![None; p * q],
            piv: vec![None; p * q],
            w: vec![None; p * nt],
            x: vec![None; p * nt],
            packed: Vec::with_capacity(kt),
        };
        for k in 0..kt {
            let (pk, qk) = (cyc.row_of(k), cyc.col_of(k));
            let diag = cyc.rank(pk, qk);
            let at = pk * q + qk;
            if b.panel[at].is_none() {
                b.panel[at] = Some(tg.add(m + 1, nb, diag, me));
                b.piv[at] = Some(tg.add(nb, 3, diag, me));
            }
            // The other process rows holding tiles below row k: those of tile rows k+1..k+P-1.
            let others: Vec<usize> = (k + 1..mt.min(k + p)).map(|i| cyc.row_of(i)).collect();
            let mut packed = Vec::new();
            for &pr in &others {
                let rows: usize = (k + 1..mt).filter(|&i| cyc.row_of(i) == pr).map(|i| tg.rows(i)).sum();
                packed.push((pr, tg.add(rows, tg.cols(k), diag, me)));
            }
            b.packed.push(packed);
            for j in (0..nt).filter(|&j| j != k) {
                let jb = tg.cols(j);
                let wi = pk + j * p;
                if b.w[wi].is_none() {
                    b.w[wi] = Some(tg.add(2 * nb, jb + 3, cyc.rank(pk, cyc.col_of(j)), me));
                }
                for &pr in &others {
                    if b.x[pr + j * p].is_none() {
                        b.x[pr + j * p] = Some(tg.add(nb, jb, cyc.rank(pr, cyc.col_of(j)), me));
                    }
                }
            }
        }
        b
    }
}

/// The composite row permutation of one panel's interchanges, read from a PIV buffer: for each
/// top position t < r, the panel row that ends at t (`src`) and, when that row comes from r or
/// below, the top row that ends in its place (`fill`). Rows are relative to the panel's first.
struct Perm {
    src: Vec<usize>,
    fill: Vec<Option<usize>>,
}

impl Perm {
    /// The permutation of the 1-based pivots `piv` (one per top position), applied in order.
    fn of(piv: &[i32]) -> Perm {
        let r = piv.len();
        // Only the rows the interchanges touch: position -> the original row now there.
        let mut at: HashMap<usize, usize> = HashMap::new();
        for (s, &pv) in piv.iter().enumerate() {
            let t = pv as usize - 1;
            if t != s {
                let a = *at.get(&s).unwrap_or(&s);
                let b = *at.get(&t).unwrap_or(&t);
                at.insert(s, b);
                at.insert(t, a);
            }
        }
        let src: Vec<usize> = (0..r).map(|t| *at.get(&t).unwrap_or(&t)).collect();
        let fill = src.iter().map(|&s| (s >= r).then(|| at[&s])).collect();
        Perm { src, fill }
    }

    /// The PIV buffer's content: per top position t, the pivot, `src(t)` and `fill(t)` (−1 for
    /// none), as exact small integers.
    fn write(piv: &[i32], mut out: ViewMut<f64>) {
        let perm = Perm::of(piv);
        for (t, &pv) in piv.iter().enumerate() {
            out.set(t, 0, pv as f64);
            out.set(t, 1, perm.src[t] as f64);
            out.set(t, 2, perm.fill[t].map_or(-1.0, |f| f as f64));
        }
    }

    fn read(v: &View<f64>, r: usize) -> Perm {
        let src = (0..r).map(|t| v.get(t, 1) as usize).collect();
        let fill = (0..r).map(|t| v.get(t, 2)).map(|f| (f >= 0.0).then_some(f as usize)).collect();
        Perm { src, fill }
    }
}

/// Row `si` of `a` into row `di` of `b` (the first `b.n` columns).
fn copy_row(a: &View<f64>, si: usize, b: &mut ViewMut<f64>, di: usize) {
    for c in 0..b.n {
        b.set(di, c, a.get(si, c));
    }
}

/// Steps 3 and 4 of step k on a 1×Q grid: SCATTER as one task (the tiles (k.., k) ← the factored
/// panel), then the other tile columns in blocks of adjacent local columns of one rank (column
/// k+1 alone first: the look-ahead), one task each: the interchanges with DLASWP, and right of
/// the panel the TRSM of the U rows and one GEMM below them, about `CHUNK` columns wide so that
/// the backend packs L once per block rather than once per tile column. L and the pivots come
/// from the panel buffer on another rank (one message per step and rank), or, on the panel's own
/// rank, from the scattered tiles and the PIV buffer (so that the next use of the panel buffer
/// waits for nothing but the scatter and the sends).
fn one_row_step(ds: &mut DistSeq, cyc: &Cyclic, k: usize, pbuf: usize, pivb: usize) {
    /// Columns of one update task, about.
    const CHUNK: usize = 256;
    let g = ds.grid;
    let (m, nb, mt, nt) = (g.m, g.nb, g.mt, g.nt);
    let (k0, kb) = (k * nb, g.cols(k));
    let (mk, r) = (m - k0, kb.min(m - k0));
    let diag = cyc.rank(0, cyc.col_of(k));
    let panel_col: Vec<usize> = (k..mt).map(|i| g.id(i, k)).collect();
    ds.submit_runs("scatter", prio(nt, k, 3), [mk, kb, 0], &[&[pbuf]], &panel_col, move |x, w| {
        kernels::copy(x[0].sub(0, 0, mk, kb), w);
        Ok(())
    });
    // The blocks: column k+1, then per process column its other columns right of the panel, then
    // its columns left of it, each in order (adjacent in the rank's local matrix) and cut into
    // blocks of about CHUNK columns.
    let per = (CHUNK / nb).max(1);
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    if k + 1 < nt {
        blocks.push(vec![k + 1]);
    }
    for side in [(k + 2..nt).collect::<Vec<_>>(), (0..k).collect()] {
        for c in 0..cyc.q {
            let js: Vec<usize> = side.iter().copied().filter(|&j| cyc.col_of(j) == c).collect();
            blocks.extend(js.chunks(per).map(|b| b.to_vec()));
        }
    }
    for js in blocks {
        let right = js[0] > k;
        let width: usize = js.iter().map(|&j| g.cols(j)).sum();
        let pr = if !right {
            0
        } else if js[0] == k + 1 {
            prio(nt, k, 2)
        } else {
            prio(nt, js[0], 0)
        };
        let local = cyc.rank(0, cyc.col_of(js[0])) == diag;
        let tiles: Vec<usize> =
            js.iter().flat_map(|&j| (k..mt).map(move |i| (i, j))).map(|(i, j)| g.id(i, j)).collect();
        let pivs = [pivb];
        let reads: Vec<&[usize]> =
            if local { vec![&panel_col, &pivs] } else { vec![std::slice::from_ref(&pbuf)] };
        let name = if right { "update" } else { "swap" };
        ds.submit_runs(name, pr, [mk, width, if right { r } else { 0 }], &reads, &tiles, move |x, mut w| {
            let (l, piv): (View<f64>, Vec<i32>) = if local {
                (x[0], (0..r).map(|c| x[1].get(c, 0) as i32).collect())
            } else {
                (x[0].sub(0, 0, mk, kb), (0..r).map(|c| x[0].get(m, c) as i32).collect())
            };
            kernels::laswp(w.sub_mut(0, 0, mk, width), &piv, Dir::Forward);
            if right {
                let (mut u, below) = w.split_rows(r);
                kernels::trsm(
                    Side::Left,
                    Uplo::Lower,
                    Trans::No,
                    Diag::Unit,
                    1.0,
                    l.sub(0, 0, r, r),
                    u.sub_mut(0, 0, r, width),
                );
                if below.m > 0 {
                    kernels::gemm(
                        Trans::No,
                        Trans::No,
                        -1.0,
                        l.sub(r, 0, mk - r, r),
                        u.as_view(),
                        1.0,
                        below,
                    );
                }
            }
            Ok(())
        });
    }
}

/// The blocked right-looking LU over 2-D tiles, owner-computes.
fn generate(
    ds: &mut DistSeq,
    cyc: &Cyclic,
    bufs: &Buffers,
    fail: Arc<AtomicI32>,
    found: Arc<Mutex<Vec<i32>>>,
) {
    let g = ds.grid;
    let (m, n, nb, mt, nt) = (g.m, g.n, g.nb, g.mt, g.nt);
    let (p, q) = (cyc.p, cyc.q);
    let kt = m.min(n).div_ceil(nb);
    for k in 0..kt {
        let (k0, kb, tk) = (k * nb, g.cols(k), g.rows(k));
        let r = kb.min(tk);
        let (pk, qk) = (cyc.row_of(k), cyc.col_of(k));
        let pbuf = bufs.panel[pk * q + qk].expect("a panel buffer");
        let pivb = bufs.piv[pk * q + qk].expect("a pivot buffer");
        let top = prio(nt, k, 3);

        // 1. PANEL(k).
        let col: Vec<usize> = (k..mt).map(|i| g.id(i, k)).collect();
        let (f, pv) = (fail.clone(), found.clone());
        ds.submit_ids("getrf", top, [m - k0, kb, 0], &col, pbuf, move |x, mut w| {
            for (d, t) in x.iter().enumerate() {
                kernels::copy(*t, w.sub_mut(d * nb, 0, t.m, kb));
            }
            let mut piv = vec![0i32; r];
            let info = kernels::getrf_slice(w.sub_mut(0, 0, m - k0, kb), &mut piv);
            if info > 0 {
                f.fetch_min(k0 as i32 + info, Ordering::SeqCst);
            }
            let mut mine = pv.lock().unwrap_or_else(|e| e.into_inner());
            for (c, &s) in piv.iter().enumerate() {
                w.set(m, c, s as f64);
                mine[k0 + c] = (k0 + s as usize - 1) as i32;
            }
            Ok(())
        });

        // 2. PIV(k).
        ds.submit_ids("pivots", top, [r, 3, 0], &[pbuf], pivb, move |x, w| {
            let piv: Vec<i32> = (0..r).map(|c| x[0].get(m, c) as i32).collect();
            Perm::write(&piv, w);
            Ok(())
        });

        // On one process row every tile column is on one rank, its tiles one below the other in
        // that rank's local matrix: the whole step is column tasks, as LAPACK's blocked LU.
        if p == 1 {
            one_row_step(ds, cyc, k, pbuf, pivb);
            continue;
        }

        // 3. SCATTER, through one packed buffer per other process row.
        let mut packed_of: HashMap<usize, usize> = HashMap::new();
        for &(pr, id) in &bufs.packed[k] {
            // Panel rows of the tiles of process row pr, in order.
            let parts: Vec<(usize, usize)> =
                (k + 1..mt).filter(|&i| cyc.row_of(i) == pr).map(|i| ((i - k) * nb, g.rows(i))).collect();
            ds.submit_ids("pack", top, [parts.len() * nb, kb, 0], &[pbuf], id, move |x, mut w| {
                let mut at = 0;
                for &(from, rows) in &parts {
                    kernels::copy(x[0].sub(from, 0, rows, kb), w.sub_mut(at, 0, rows, kb));
                    at += rows;
                }
                Ok(())
            });
            packed_of.insert(pr, id);
        }
        for i in k..mt {
            let pr = cyc.row_of(i);
            let (src, from) = match packed_of.get(&pr) {
                // Tiles of process row pr come after one another, all full but the last.
                Some(&id) if pr != pk => (id, (i - k) / p * nb),
                _ => (pbuf, (i - k) * nb),
            };
            let rows = g.rows(i);
            ds.submit_ids("scatter", top, [rows, kb, 0], &[src], g.id(i, k), move |x, w| {
                kernels::copy(x[0].sub(from, 0, rows, kb), w);
                Ok(())
            });
        }

        // 4. The other tile columns.
        for j in (0..nt).filter(|&j| j != k) {
            let jb = g.cols(j);
            let right = j > k;
            let (p_top, p_tile, p_copy) =
                if right { (prio(nt, j, 2), prio(nt, j, 1), prio(nt, j, 0)) } else { (0, 0, 0) };
            let wb = bufs.w[pk + j * p].expect("a W buffer");
            // Tiles below row k by process row (row pk's are on W's rank and read directly).
            let mut xs: Vec<(usize, usize)> = Vec::new(); // (process row, X id)
            for d in 1..p.min(mt - k) {
                let pr = cyc.row_of(k + d);
                let tiles: Vec<usize> = (k + d..mt).step_by(p).collect();
                let xb = bufs.x[pr + j * p].expect("an X buffer");
                // a. EXTRACT: the rows of process row pr's tiles that end in the top block.
                let mut reads = vec![pivb];
                reads.extend(tiles.iter().map(|&i| g.id(i, j)));
                let at: HashMap<usize, usize> = tiles.iter().enumerate().map(|(c, &i)| (i, c)).collect();
                ds.submit_ids("extract", p_top, [r, jb, 0], &reads, xb, move |x, mut w| {
                    let perm = Perm::read(&x[0], r);
                    for (t, &s) in perm.src.iter().enumerate() {
                        if let Some(&c) = at.get(&(k + s / nb)) {
                            copy_row(&x[1 + c], s % nb, &mut w, t);
                        }
                    }
                    Ok(())
                });
                xs.push((pr, xb));
            }
            let mine: Vec<usize> = (k + p..mt).step_by(p).collect();
            // b. NEWTOP: the new tile (k, j) into W, the old top rows below it.
            let mut reads = vec![g.id(k, j), pivb];
            reads.extend(mine.iter().map(|&i| g.id(i, j)));
            reads.extend(xs.iter().map(|&(_, xb)| xb));
            if right {
                reads.push(g.id(k, k));
            }
            let nmine = mine.len();
            let local: HashMap<usize, usize> = mine.iter().enumerate().map(|(c, &i)| (i, 2 + c)).collect();
            let xrow: HashMap<usize, usize> =
                xs.iter().enumerate().map(|(c, &(pr, _))| (pr, 2 + nmine + c)).collect();
            let rk: Vec<usize> = (0..p).map(|d| cyc.row_of(k + d)).collect();
            ds.submit_ids("newtop", p_top, [r, jb, r], &reads, wb, move |x, mut wall| {
                let old = x[0];
                // The PIV content travels on in W, so the per-tile tasks read W only.
                kernels::copy(x[1].sub(0, 0, r, 3), wall.sub_mut(0, jb, r, 3));
                let perm = Perm::read(&x[1], r);
                let mut w = wall.sub_mut(0, 0, 2 * nb, jb);
                kernels::copy(old, w.sub_mut(0, 0, tk, jb));
                for (t, &s) in perm.src.iter().enumerate() {
                    let i = k + s / nb;
                    if i == k {
                        copy_row(&old, s, &mut w, t);
                    } else if let Some(&c) = local.get(&i) {
                        copy_row(&x[c], s % nb, &mut w, t);
                    } else {
                        // Process row of tile row i: rk[(i - k) mod P].
                        let c = xrow[&rk[(i - k) % rk.len()]];
                        copy_row(&x[c], t, &mut w, t);
                    }
                    if let Some(f) = perm.fill[t] {
                        if s < tk {
                            copy_row(&old, f, &mut w, s);
                        }
                    }
                }
                for t in 0..r {
                    copy_row(&old, t, &mut w, nb + t);
                }
                if right {
                    let l = x[x.len() - 1];
                    kernels::trsm(
                        Side::Left,
                        Uplo::Lower,
                        Trans::No,
                        Diag::Unit,
                        1.0,
                        l.sub(0, 0, r, r),
                        w.sub_mut(0, 0, r, jb),
                    );
                }
                Ok(())
            });
            if !right {
                // c, d. Left of the panel only rows move: one task per process row writes (k, j)
                // from W and puts the displaced top rows into its tiles below.
                for d in 0..p.min(mt - k) {
                    let tiles: Vec<usize> = (k + d..mt).step_by(p).collect();
                    let writes: Vec<usize> = tiles.iter().map(|&i| g.id(i, j)).collect();
                    ds.submit_multi(
                        "swap",
                        0,
                        [tiles.len() * nb, jb, 0],
                        &[wb],
                        &writes,
                        move |x, mut outs| {
                            let wv = x[0];
                            let perm = Perm::read(&wv.sub(0, jb, r, 3), r);
                            for (out, &i) in outs.iter_mut().zip(&tiles) {
                                if i == k {
                                    kernels::copy(wv.sub(0, 0, tk, jb), out.sub_mut(0, 0, tk, jb));
                                }
                                for (&s, &f) in perm.src.iter().zip(&perm.fill) {
                                    if let Some(f) = f {
                                        if i > k && k + s / nb == i {
                                            copy_row(&wv, nb + f, out, s % nb);
                                        }
                                    }
                                }
                            }
                            Ok(())
                        },
                    );
                }
                continue;
            }
            // d. COPY: (k, j) <- W (read by nobody before the end).
            ds.submit_ids("copy", p_copy, [tk, jb, 0], &[wb], g.id(k, j), move |x, w| {
                kernels::copy(x[0].sub(0, 0, tk, jb), w);
                Ok(())
            });
            // c, e. Each tile below: the top rows it receives, then the trailing update.
            for i in k + 1..mt {
                let (lsrc, lrow) = (g.id(i, k), 0);
                ds.submit_ids(
                    "gemm",
                    p_tile,
                    [g.rows(i), jb, r],
                    &[wb, lsrc],
                    g.id(i, j),
                    move |x, mut w| {
                        let wv = x[0];
                        let perm = Perm::read(&wv.sub(0, jb, r, 3), r);
                        for (&s, &f) in perm.src.iter().zip(&perm.fill) {
                            if let Some(f) = f {
                                if k + s / nb == i {
                                    copy_row(&wv, nb + f, &mut w, s % nb);
                                }
                            }
                        }
                        kernels::gemm(
                            Trans::No,
                            Trans::No,
                            -1.0,
                            x[1].sub(lrow, 0, w.m, r),
                            wv.sub(0, 0, r, jb),
                            1.0,
                            w,
                        );
                        Ok(())
                    },
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::Rng;

    /// The sequential interchanges applied to rows 0..len: the original row at each position.
    fn applied(piv: &[i32], len: usize) -> Vec<usize> {
        let mut rows: Vec<usize> = (0..len).collect();
        for (s, &pv) in piv.iter().enumerate() {
            rows.swap(s, pv as usize - 1);
        }
        rows
    }

    #[test]
    fn perm_matches_the_sequential_interchanges() {
        let mut rng = Rng::new(7);
        for case in 0..2000 {
            let len = 1 + case % 23;
            let r = 1 + (case / 23) % len.min(9);
            // Pivots as GEPP makes them: piv(s) - 1 >= s; often inside the top block.
            let piv: Vec<i32> = (0..r)
                .map(|s| {
                    let u = (rng.next() + 1.0) / 2.0;
                    let hi = if case % 3 == 0 { r } else { len };
                    (s + (u * (hi - s) as f64) as usize + 1) as i32
                })
                .collect();
            let want = applied(&piv, len);
            let perm = Perm::of(&piv);
            // Rebuild the final rows from the top sources and the fills only.
            let mut got: Vec<usize> = (0..len).collect();
            for t in 0..r {
                got[t] = perm.src[t];
                match perm.fill[t] {
                    Some(f) => {
                        assert!(perm.src[t] >= r && f < r, "case {case}: {piv:?}");
                        got[perm.src[t]] = f;
                    }
                    None => assert!(perm.src[t] < r, "case {case}: {piv:?}"),
                }
            }
            assert_eq!(got, want, "case {case}: pivots {piv:?}");
        }
    }
}
