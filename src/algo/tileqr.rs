//! Tile QR with communication-avoiding kernels (Song & Dongarra, seeds 000 §3.1; PLASMA's
//! pdgeqrf and pdormqr), for drivers whose Q stays internal (DGELS).
//!
//! A (m×n, m ≥ n) is cut into square nb×nb tiles. For each panel k:
//!
//! ```text
//!   GEQRT  A[k][k] = Q_kk·R_kk                      reflectors below the diagonal, T in T[k][k]
//!   GEMQRT A[k][j] ← Q_kkᵀ·A[k][j]          j > k
//!   TSQRT  [R_kk; A[m][k]] = Q_mk·[R_kk; 0]  m > k  (R_kk is the top kb×kb of A[k][k]),
//!                                                   reflector lower parts in A[m][k], T in T[m][k]
//!   TSMQR  [A[k][j]; A[m][j]] ← Q_mkᵀ·[..]   m > k, j > k
//! ```
//!
//! so R ends up in the upper triangle of A, as LAPACK's DGEQRF leaves it, while Q is the product
//! of the tile reflectors (V below the diagonal of diagonal tiles, V in whole sub-diagonal tiles,
//! and the ib×nb block factors T in a [`Workspace`] of T tiles). That is not LAPACK's
//! Householder-vector-plus-tau format, which is why it only serves routines that never hand Q
//! out (ARCHITECTURE.md, decision 4).
//!
//! Q is applied to a matrix B with the same row tiles by the same loops over B's column tiles:
//! Qᵀ·B walks panels forward (GEMQRT then the TSMQRs of rows k+1..), Q·B walks them backward in
//! the reverse order.

use super::prio;
use crate::error::Error;
use crate::kernels::{self, Trans};
use crate::runtime::{Seq, Task};
use crate::scalar::Scalar;
use crate::tile::{Part, TiledMatrix, Workspace};

/// Storage for the T factors of the tile QR of an m×n matrix in nb×nb tiles with inner block
/// `ib`: one ib×nb tile per tile of A.
pub fn t_workspace<T: Scalar>(m: usize, n: usize, nb: usize, ib: usize) -> Workspace<T> {
    let ib = ib.clamp(1, nb);
    Workspace::new(m.div_ceil(nb).max(1) * ib, n.div_ceil(nb).max(1) * nb, ib, nb)
}

/// The inner block of a T workspace from [`t_workspace`] (its uniform row tile size).
fn inner_block<T: Scalar>(t: &TiledMatrix<T>) -> usize {
    t.rows.uniform_size().expect("T workspace from t_workspace")
}

fn kernel_result(name: &str, info: i32) -> Result<(), Error> {
    if info == 0 {
        Ok(())
    } else {
        Err(Error::Runtime(format!("{name} rejected argument {}", -info)))
    }
}

/// Factors A = Q·R in place (m ≥ n), T factors into `t` (from [`t_workspace`]).
pub fn factor<T: Scalar>(seq: &Seq, a: &TiledMatrix<T>, t: &TiledMatrix<T>) {
    let (a, t) = (*a, *t);
    let nb = a.cols.uniform_size().expect("tile QR here needs uniform tiles");
    assert_eq!(a.rows, Part::uniform(nb), "tile QR needs square tiles");
    assert!(a.m >= a.n, "tile QR here factors tall or square matrices");
    assert!(t.cols == a.cols && t.mt() >= a.mt() && t.nt() >= a.nt(), "T workspace does not fit A");
    let ib = inner_block(&t);
    let (mt, nt) = (a.mt(), a.nt());
    for k in 0..nt {
        if seq.failed() {
            return;
        }
        let kb = a.tile_cols(k);
        let t1 =
            Task::new("geqrt").prio(prio(nt, k, 3)).dims(a.tile_rows(k), kb, 0).rw(&a, k, k).write(&t, k, k);
        seq.submit(t1, move |c| {
            kernel_result("dgeqrt", kernels::geqrt(ib, c.tile_mut(&a, k, k), c.tile_mut(&t, k, k)))
        });
        for j in k + 1..nt {
            let t2 = Task::new("gemqrt")
                .prio(prio(nt, j, 1))
                .dims(a.tile_rows(k), a.tile_cols(j), kb)
                .read(&a, k, k)
                .read(&t, k, k)
                .rw(&a, k, j);
            seq.submit(t2, move |c| {
                let info =
                    kernels::gemqrt(Trans::Yes, ib, c.tile(&a, k, k), c.tile(&t, k, k), c.tile_mut(&a, k, j));
                kernel_result("dgemqrt", info)
            });
        }
        for m in k + 1..mt {
            let t3 = Task::new("tsqrt")
                .prio(prio(nt, k, 2))
                .dims(a.tile_rows(m), kb, 0)
                .rw(&a, k, k)
                .rw(&a, m, k)
                .write(&t, m, k);
            seq.submit(t3, move |c| {
                let mut akk = c.tile_mut(&a, k, k);
                let info =
                    kernels::tpqrt(ib, akk.sub_mut(0, 0, kb, kb), c.tile_mut(&a, m, k), c.tile_mut(&t, m, k));
                kernel_result("dtpqrt", info)
            });
            for j in k + 1..nt {
                let nj = a.tile_cols(j);
                let t4 = Task::new("tsmqr")
                    .prio(prio(nt, j, 0))
                    .dims(a.tile_rows(m), nj, kb)
                    .read(&a, m, k)
                    .read(&t, m, k)
                    .rw(&a, k, j)
                    .rw(&a, m, j);
                seq.submit(t4, move |c| {
                    let mut akj = c.tile_mut(&a, k, j);
                    let info = kernels::tpmqrt(
                        Trans::Yes,
                        ib,
                        c.tile(&a, m, k),
                        c.tile(&t, m, k),
                        akj.sub_mut(0, 0, kb, nj),
                        c.tile_mut(&a, m, j),
                    );
                    kernel_result("dtpmqrt", info)
                });
            }
        }
    }
}

/// B ← Qᴴ·B (`trans` = Yes; Qᵀ·B for the real types) or Q·B (No), with Q from [`factor`] on `a` and `t`. B has A's rows
/// and row tiles; its columns may be tiled freely.
pub fn apply<T: Scalar>(seq: &Seq, trans: Trans, a: &TiledMatrix<T>, t: &TiledMatrix<T>, b: &TiledMatrix<T>) {
    let (a, t, b) = (*a, *t, *b);
    assert!(b.m == a.m && b.rows == a.rows, "B must have A's rows and row tiles");
    let ib = inner_block(&t);
    let (mt, nt) = (a.mt(), a.nt());
    // One panel's worth of work on B: the diagonal tile's reflectors and those of the tiles
    // below it. Qᵀ applies the diagonal block first, Q applies it last, in reverse row order.
    let panel = |k: usize, step: usize| {
        let kb = a.tile_cols(k);
        let p = prio(nt, step, 0);
        let diag = |j: usize| {
            let t1 = Task::new("gemqrt")
                .prio(p + 1)
                .dims(b.tile_rows(k), b.tile_cols(j), kb)
                .read(&a, k, k)
                .read(&t, k, k)
                .rw(&b, k, j);
            seq.submit(t1, move |c| {
                let info =
                    kernels::gemqrt(trans, ib, c.tile(&a, k, k), c.tile(&t, k, k), c.tile_mut(&b, k, j));
                kernel_result("dgemqrt", info)
            });
        };
        let pair = |m: usize, j: usize| {
            let nj = b.tile_cols(j);
            let t2 = Task::new("tsmqr")
                .prio(p)
                .dims(b.tile_rows(m), nj, kb)
                .read(&a, m, k)
                .read(&t, m, k)
                .rw(&b, k, j)
                .rw(&b, m, j);
            seq.submit(t2, move |c| {
                let mut bkj = c.tile_mut(&b, k, j);
                let info = kernels::tpmqrt(
                    trans,
                    ib,
                    c.tile(&a, m, k),
                    c.tile(&t, m, k),
                    bkj.sub_mut(0, 0, kb, nj),
                    c.tile_mut(&b, m, j),
                );
                kernel_result("dtpmqrt", info)
            });
        };
        match trans {
            Trans::Yes => {
                (0..b.nt()).for_each(diag);
                for m in k + 1..mt {
                    (0..b.nt()).for_each(|j| pair(m, j));
                }
            }
            Trans::Transpose => unreachable!("a QR application is Q or its adjoint"),
            Trans::No => {
                for m in (k + 1..mt).rev() {
                    (0..b.nt()).for_each(|j| pair(m, j));
                }
                (0..b.nt()).for_each(diag);
            }
        }
    };
    for step in 0..nt {
        if seq.failed() {
            return;
        }
        let k = if trans == Trans::Yes { step } else { nt - 1 - step };
        panel(k, step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;

    /// Factors a random m×n A, then checks Qᵀ·A0 = R (zero below the diagonal), Q·R = A0, and
    /// Q·(Qᵀ·B) = B, all to a few n·eps.
    fn check(m: usize, n: usize, nb: usize, ib: usize, threads: usize) {
        let lda = m + 2;
        let mut rng = Rng::new((m * 1000 + n * 10 + nb) as u64);
        let a0 = rng.matrix(m, n, lda);
        let mut a = a0.clone();
        let tw = t_workspace(m, n, nb, ib);
        let ta = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), m, n, lda, nb, nb) };
        // Apply Qᵀ to a copy of A0 (with a different column tiling), and Q to that result.
        let mut c = a0.clone();
        let tc = unsafe { TiledMatrix::from_raw(c.as_mut_ptr(), m, n, lda, nb, 4) };
        let seq = Seq::new(&cfg(threads));
        factor(&seq, &ta, &tw.tiles());
        apply(&seq, Trans::Yes, &ta, &tw.tiles(), &tc);
        seq.wait().unwrap();
        assert_untouched_outside(&a0, &a, m, n, lda, None);
        let scale = fnorm(&a0, m, n, lda) * m as f64 * eps();
        let mut err: f64 = 0.0;
        for j in 0..n {
            for i in 0..m {
                let want = if i <= j { a[i + j * lda] } else { 0.0 };
                err = err.max((c[i + j * lda] - want).abs());
            }
        }
        assert!(err < 10.0 * scale, "m {m} n {n} nb {nb} ib {ib}: |QᵀA - R| = {err}");
        let seq = Seq::new(&cfg(threads));
        apply(&seq, Trans::No, &ta, &tw.tiles(), &tc);
        seq.wait().unwrap();
        let mut err: f64 = 0.0;
        for j in 0..n {
            for i in 0..m {
                err = err.max((c[i + j * lda] - a0[i + j * lda]).abs());
            }
        }
        assert!(err < 10.0 * scale, "m {m} n {n} nb {nb} ib {ib}: |Q(QᵀA) - A| = {err}");
        assert_untouched_outside(&a0, &c, m, n, lda, None);
    }

    #[test]
    fn qt_a_is_r_and_q_undoes_it_on_odd_sizes_tiny_tiles() {
        for &(m, n, nb, ib) in &[
            (1, 1, 3, 3),
            (7, 7, 3, 2),
            (23, 11, 5, 5),
            (40, 17, 8, 3),
            (37, 37, 5, 5),
            (64, 16, 16, 4),
            (50, 3, 3, 1),
        ] {
            check(m, n, nb, ib, 3);
        }
    }
}
