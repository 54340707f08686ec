//! Tile DGELS: least squares and minimum-norm solutions, with LAPACK's DGELS semantics for
//! full-rank A. For m ≥ n through the Householder QR of [`super::geqrf`], which leaves A exactly
//! as LAPACK's DGELS does (DGEQRF's output); for m < n through the tile QR of [`super::tileqr`]
//! (Song & Dongarra, seeds 000 §3.1) of Aᵀ.
//!
//! Let F be the tall matrix that is factored, F = Q·R (R upper triangular): F = A when m ≥ n,
//! F = Aᵀ when m < n. Every case is one of two problems on F (B has max(m, n) = rows(F) rows):
//!
//! - least squares min‖F·X − B‖ (TRANS = 'N' with m ≥ n, TRANS = 'T' with m < n):
//!   B ← Qᵀ·B, then R·X = B(1:n_F). Rows n_F+1.. of B keep Qᵀ·B's tail, whose column sums of
//!   squares are the residual sums of squares.
//! - minimum norm Fᵀ·X = B (TRANS = 'T' with m ≥ n, TRANS = 'N' with m < n, where A = Rᵀ·Qᵀ):
//!   Rᵀ·Y = B(1:n_F), B(n_F+1:) ← 0, B ← Q·B.
//!
//! For m < n this uses the tile QR of a transposed copy of A rather than separate LQ kernels:
//! the numbers are those of a tile LQ of A (DGELQT is QR of the transpose), and the copy is
//! written back transposed, so A ends with L in its lower triangle, as LAPACK's DGELQF leaves
//! it, and the tile reflectors stored row-wise above it.
//!
//! Before the triangular solve every diagonal element of R is checked; the first exact zero,
//! i, fails the call with INFO = i, as LAPACK's DTRTRS does, and B is left as it stood then.

use super::{geqrf, ormqr, prio, tileqr, trsm, Panel};
use crate::error::Error;
use crate::graph::op::OpElem;
use crate::kernels::{self, Diag, Side, Trans, Uplo};
use crate::runtime::shared::{Buffers, SharedGraph};
use crate::runtime::{Seq, Task};
use crate::tile::{Part, TiledMatrix, Workspace};

/// What a tile DGELS needs besides A and B: the T factors and, when m < n, the copy of Aᵀ. It
/// must outlive the sequence the call runs in.
pub struct GelsWork<T: OpElem = f64> {
    /// m < n: the tile QR's T factors.
    t: Workspace<T>,
    at: Option<Workspace<T>>,
    /// m ≥ n: the Householder QR's buffers (T and tau of each panel), `None` otherwise.
    qr: Option<Buffers<T>>,
}

impl<T: OpElem> GelsWork<T> {
    /// Work for an m×n A in nb×nb tiles with inner block `ib`.
    pub fn new(m: usize, n: usize, nb: usize, ib: usize) -> Self {
        if m >= n {
            // Householder QR in LAPACK's DGEQRF format, its buffers made as it runs.
            return GelsWork { t: Workspace::new(0, 0, 1, 1), at: None, qr: Some(Buffers::default()) };
        }
        let (fm, fn_) = (m.max(n), m.min(n));
        let at = Some(Workspace::new(n, m, nb, nb));
        GelsWork { t: tileqr::t_workspace(fm, fn_, nb, ib), at, qr: None }
    }
}

/// Solves DGELS's problem for the m×n A and the max(m, n)×nrhs B (both tiled nb×nb, B with the
/// same row tiles as A). `trans` = No solves with A, Yes with Aᵀ.
pub fn gels<T: OpElem>(seq: &Seq, trans: Trans, a: &TiledMatrix<T>, b: &TiledMatrix<T>, w: &GelsWork<T>) {
    let (a, b) = (*a, *b);
    // The tile QR of `tileqr` and the transpose below assume uniform square tiles.
    let nb = a.cols.uniform_size().expect("DGELS needs uniform tiles");
    assert_eq!(a.rows, Part::uniform(nb), "DGELS tiles must be square");
    assert!(b.rows == a.rows && b.m == a.m.max(a.n), "B must have max(m, n) rows in A's row tiles");
    let t = w.t.tiles();
    // F, the tall matrix to factor.
    let f = match &w.at {
        None => a,
        Some(ws) => {
            let f = ws.tiles();
            assert!(f.m == a.n && f.n == a.m && f.rows == a.rows && f.cols == a.cols, "work does not fit A");
            for j in 0..a.nt() {
                for i in 0..a.mt() {
                    let task = Task::new("transpose")
                        .prio(prio(a.nt(), 0, 3))
                        .dims(a.tile_rows(i), a.tile_cols(j), 0)
                        .read(&a, i, j)
                        .write(&f, j, i);
                    seq.submit(task, move |c| {
                        let mut fji = c.tile_mut(&f, j, i);
                        kernels::transpose(c.tile(&a, i, j), fji.reborrow());
                        kernels::conj(fji);
                        Ok(())
                    });
                }
            }
            f
        }
    };
    let least_squares = (a.m >= a.n) == (trans == Trans::No);
    if let Some(store) = &w.qr {
        // m ≥ n: DGEQRF's Householder QR, A left in LAPACK's format (R above the diagonal, the
        // reflectors below it); Qᵀ·B or Q·B by DORMQR's tasks with the QR's own T factors.
        let mut g = SharedGraph::with_buffers(seq, &a, store);
        let ts = geqrf::generate(&mut g, Panel::InPlace, geqrf::shared_fuse(seq, &a));
        let c = g.attach(&b);
        let crows: Vec<usize> = (0..b.mt()).map(|i| b.tile_rows(i)).collect();
        let ccols: Vec<usize> = (0..b.nt()).map(|j| b.tile_cols(j)).collect();
        let mut apply_q = |trans| {
            ormqr::generate_ormqr_with_t(&mut g, Side::Left, trans, a.n, &ts, &c, b.mt(), &crows, &ccols)
        };
        if least_squares {
            apply_q(Trans::Yes);
        }
        check_diagonal(seq, &a, &b, None);
        let r = a.leading(a.n, a.n);
        let btop = b.leading(a.n, b.n);
        if least_squares {
            trsm::trsm_left(seq, Uplo::Upper, Trans::No, Diag::NonUnit, &r, &btop);
        } else {
            trsm::trsm_left(seq, Uplo::Upper, Trans::Yes, Diag::NonUnit, &r, &btop);
            zero_rows_from(seq, &b, a.n);
            apply_q(Trans::No);
        }
        return;
    }
    tileqr::factor(seq, &f, &t);
    if w.at.is_some() {
        // A ← Fᵀ: L = Rᵀ in A's lower triangle, the reflectors transposed above it.
        for j in 0..f.nt() {
            for i in 0..f.mt() {
                let task = Task::new("transpose")
                    .prio(0)
                    .dims(f.tile_rows(i), f.tile_cols(j), 0)
                    .read(&f, i, j)
                    .write(&a, j, i);
                seq.submit(task, move |c| {
                    let mut aji = c.tile_mut(&a, j, i);
                    kernels::transpose(c.tile(&f, i, j), aji.reborrow());
                    kernels::conj(aji);
                    Ok(())
                });
            }
        }
    }
    if least_squares {
        tileqr::apply(seq, Trans::Yes, &f, &t, &b);
    }
    check_diagonal(seq, &f, &b, (w.at.is_some()).then_some(&a));
    let r = f.leading(f.n, f.n);
    let btop = b.leading(f.n, b.n);
    if least_squares {
        trsm::trsm_left(seq, Uplo::Upper, Trans::No, Diag::NonUnit, &r, &btop);
    } else {
        trsm::trsm_left(seq, Uplo::Upper, Trans::Yes, Diag::NonUnit, &r, &btop);
        zero_rows_from(seq, &b, f.n);
        tileqr::apply(seq, Trans::No, &f, &t, &b);
    }
}

/// Fails the sequence with INFO = i when R(i, i) is the first exact zero on R's diagonal. The
/// task also waits for every earlier task on B (and on A, when A receives a copy), so a failure
/// leaves them complete, as LAPACK's driver leaves B after its last completed step.
fn check_diagonal<T: OpElem>(seq: &Seq, f: &TiledMatrix<T>, b: &TiledMatrix<T>, a: Option<&TiledMatrix<T>>) {
    let (f, nt) = (*f, f.nt());
    let mut task = Task::new("diagcheck").prio(prio(nt, nt, 3)).dims(f.n, 0, 0);
    for k in 0..nt {
        task = task.read(&f, k, k);
    }
    task = task.read_range(b, 0..b.mt(), 0..b.nt());
    if let Some(a) = a {
        task = task.read_range(a, 0..a.mt(), 0..a.nt());
    }
    seq.submit(task, move |c| {
        for k in 0..nt {
            let d = c.tile(&f, k, k);
            for i in 0..f.tile_cols(k) {
                if d.get(i, i) == T::zero() {
                    return Err(Error::Numerical((f.col_offset(k) + i + 1) as i32));
                }
            }
        }
        Ok(())
    });
}

/// B(r0.., :) ← 0.
fn zero_rows_from<T: OpElem>(seq: &Seq, b: &TiledMatrix<T>, r0: usize) {
    let b = *b;
    for i in b.tile_row_of(r0).min(b.mt())..b.mt() {
        let skip = r0.saturating_sub(b.row_offset(i));
        let rows = b.tile_rows(i);
        if skip >= rows {
            continue;
        }
        for j in 0..b.nt() {
            let task =
                Task::new("laset").prio(prio(b.mt(), i, 0)).dims(rows - skip, b.tile_cols(j), 0).rw(&b, i, j);
            seq.submit(task, move |c| {
                let mut tile = c.tile_mut(&b, i, j);
                let n = tile.n;
                kernels::zero(tile.sub_mut(skip, 0, rows - skip, n));
                Ok(())
            });
        }
    }
}
