//! Tile LU with partial pivoting, right-looking, with LAPACK's GEPP semantics (the blocked
//! DGETRF of LAPACK, run as tile tasks in the manner of seeds 000 §3 and PLASMA's pzgetrf; not
//! the incremental or tournament pivoting of the tile-QR papers, whose pivots differ from
//! LAPACK's).
//!
//! Tiles may be uniform or hybrid (`tile::Part`, thin host and wide device tile columns); rows are
//! cut like columns, so with o = `col_offset(k)` tile (k, k) starts at (o, o). For panel k
//! (columns o .. o + kb, kb = min(`tile_cols(k)`, K − o), K = min(M, N)):
//!
//! 1. GETRF on the tall panel `A[o.., o..o+kb]`: one task owning tile column k from tile
//!    row k down. It chooses the pivots over the whole remaining column, as GEPP does, and stores
//!    them as whole-matrix 1-based row indices in `ipiv[o..o+kb]`. When tile column k is
//!    wider than kb (only for M < N, where the panel is the last tile row) the same call factors
//!    the whole kb×w block, which applies the swaps and the unit-lower solve to the rest of it.
//! 2. LASWP of those kb interchanges on rows o..M of every other tile column j: for j > k
//!    before the trailing update, and for j < k too, because LAPACK's `ipiv` describes
//!    P·A = L·U with the *final* L, whose rows carry every later interchange.
//! 3. For j > k: `A[k][j] ← L[k][k]⁻¹·A[k][j]` (TRSM, unit lower), then
//!    `A[i][j] −= A[i][k]·A[k][j]` for i > k (GEMM).
//!
//! Lookahead comes from priorities (`algo::prio`): column k+1's swaps and updates outrank the
//! rest of step k, so panel k+1 can start while the trailing update of step k is still running;
//! the swaps on columns left of the panel matter to nobody until the end and run last.
//!
//! INFO: a panel reporting a zero pivot at local column i gives the whole-matrix index o + i;
//! the smallest over all panels is kept (it is the first, since panels run in order). Like
//! LAPACK, the factorization still completes; the caller turns a positive INFO into
//! `Error::Numerical` once the sequence has drained.

use super::prio;
use crate::device::{DeviceOp, Tiles};
use crate::kernels::{self, Diag, Dir, Side, Trans, Uplo};
use crate::runtime::{Seq, Task};
use crate::tile::TiledMatrix;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

/// LAPACK's INFO for an LU factorization in progress: the whole-matrix index of the first exactly
/// zero pivot, 0 while there is none. Shared between the panel tasks and the caller.
#[derive(Clone, Debug, Default)]
pub struct ZeroPivot(Arc<AtomicI32>);

impl ZeroPivot {
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps the smaller of the recorded index and `i` (> 0).
    fn record(&self, i: i32) {
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

/// Factors the M×N matrix `a` (rows and columns cut by the same partition) in place as
/// P·A = L·U, writing LAPACK's row interchanges into `ipiv` (min(M, N)×1, its rows cut like A's)
/// and the first zero pivot into `info`.
pub fn getrf(seq: &Seq, a: &TiledMatrix<f64>, ipiv: &TiledMatrix<i32>, info: &ZeroPivot) {
    let (a, ipiv) = (*a, *ipiv);
    assert!(a.square_tiles(), "LU needs rows and columns cut alike");
    let kmin = a.m.min(a.n);
    assert!(
        ipiv.m == kmin && ipiv.n == 1 && ipiv.rows == a.rows,
        "ipiv must be min(M,N)×1 with A's row tiles"
    );
    let (mt, nt) = (a.mt(), a.nt());
    let kt = a.cols.count(kmin);
    for k in 0..kt {
        if seq.failed() {
            return;
        }
        let off = a.col_offset(k);
        let kb = a.tile_cols(k).min(kmin - off);
        let rows = a.m - off;

        let info_k = info.clone();
        let t = Task::new("getrf")
            .prio(prio(nt, k, 3))
            .dims(rows, a.tile_cols(k), 0)
            .rw_range(&a, k..mt, k..k + 1)
            .write(&ipiv, k, 0);
        seq.submit(t, move |c| {
            let mut piv = c.tile_mut(&ipiv, k, 0);
            let local = kernels::getrf(c.region_mut(&a, k..mt, k..k + 1), piv.sub_mut(0, 0, kb, 1));
            if local > 0 {
                info_k.record((off as i32) + local);
            }
            // Block-local pivots become whole-matrix row indices, as LAPACK stores them.
            for r in 0..kb {
                let p = piv.get(r, 0);
                piv.set(r, 0, p + off as i32);
            }
            Ok(())
        });

        // Without devices, each column right of the panel is updated by one task: its row
        // interchanges, the TRSM of its U rows and the GEMM below them, on data that stays in
        // cache from one to the next (LAPACK's order on one column block).
        let fused = !seq.has_devices();
        if fused {
            for j in k + 1..nt {
                let nn = a.tile_cols(j);
                let t = Task::new("update")
                    .prio(prio(nt, j, 2))
                    .dims(rows, nn, kb)
                    .read(&ipiv, k, 0)
                    .read_range(&a, k..mt, k..k + 1)
                    .rw_range(&a, k..mt, j..j + 1);
                seq.submit(t, move |c| {
                    let piv = c.tile(&ipiv, k, 0);
                    let local: Vec<i32> = (0..kb).map(|r| piv.get(r, 0) - off as i32).collect();
                    let col = c.region_mut(&a, k..mt, j..j + 1);
                    let l = c.region(&a, k..mt, k..k + 1);
                    update_column(col, l, kb, &local);
                    Ok(())
                });
            }
        }
        for j in (0..nt).filter(|&j| j != k && !(fused && j > k)) {
            // Right of the panel the swaps gate the update (lookahead order); left of it they
            // only fix up L and can wait until everything else is done.
            let p = if j > k { prio(nt, j, 2) } else { 0 };
            let op = DeviceOp::Laswp {
                a: Tiles::stack(1, mt - k),
                ipiv: Tiles::one(0),
                ipiv_base: off as i32,
                count: kb,
                dir: Dir::Forward,
            };
            let t = Task::new("laswp")
                .prio(p)
                .dims(rows, a.tile_cols(j), kb)
                .read(&ipiv, k, 0)
                .rw_range(&a, k..mt, j..j + 1)
                .device_op(op);
            seq.submit(t, move |c| {
                let piv = c.tile(&ipiv, k, 0);
                let local: Vec<i32> = (0..kb).map(|r| piv.get(r, 0) - off as i32).collect();
                kernels::laswp(c.region_mut(&a, k..mt, j..j + 1), &local, Dir::Forward);
                Ok(())
            });
        }

        for j in (k + 1..nt).filter(|_| !fused) {
            let nn = a.tile_cols(j);
            let op = DeviceOp::Trsm {
                side: Side::Left,
                uplo: Uplo::Lower,
                trans: Trans::No,
                diag: Diag::Unit,
                alpha: 1.0,
                a: Tiles::one(0),
                b: Tiles::one(1),
            };
            let t = Task::new("trsm")
                .prio(prio(nt, j, 2))
                .dims(kb, nn, 0)
                .read(&a, k, k)
                .rw(&a, k, j)
                .device_op(op);
            seq.submit(t, move |c| {
                let l = c.tile(&a, k, k).sub(0, 0, kb, kb);
                let mut u = c.tile_mut(&a, k, j);
                let (um, un) = (u.m, u.n);
                // Tile row k has exactly kb rows whenever a column right of the panel exists.
                debug_assert_eq!(um, kb);
                kernels::trsm(
                    Side::Left,
                    Uplo::Lower,
                    Trans::No,
                    Diag::Unit,
                    1.0,
                    l,
                    u.sub_mut(0, 0, kb, un),
                );
                Ok(())
            });
            // The update of the tiles below U(k, j), as one GEMM over the column: the backend
            // packs U(k, j) once and runs one large kernel instead of one per tile.
            if k + 1 < mt {
                let below = mt - k - 1;
                let t = Task::new("gemm")
                    .prio(prio(nt, j, 0))
                    .dims(a.m - a.row_offset(k + 1), nn, kb)
                    .read_range(&a, k + 1..mt, k..k + 1)
                    .read(&a, k, j)
                    .rw_range(&a, k + 1..mt, j..j + 1)
                    .device_op(DeviceOp::Gemm {
                        ta: Trans::No,
                        tb: Trans::No,
                        alpha: -1.0,
                        a: Tiles::stack(0, below),
                        b: Tiles::one(below),
                        beta: 1.0,
                        c: Tiles::stack(below + 1, below),
                        k: kb,
                    });
                seq.submit(t, move |c| {
                    let l = c.region(&a, k + 1..mt, k..k + 1);
                    let u = c.tile(&a, k, j);
                    kernels::gemm(
                        Trans::No,
                        Trans::No,
                        -1.0,
                        l.sub(0, 0, l.m, kb),
                        u.sub(0, 0, kb, u.n),
                        1.0,
                        c.region_mut(&a, k + 1..mt, j..j + 1),
                    );
                    Ok(())
                });
            }
        }
    }
}

/// One column block's part of an LU step: the panel's interchanges `piv` (block-local, 1-based)
/// on `col` (rows o.. of a column right of the panel), U ← L₁₁⁻¹·U (unit lower, the panel's top
/// kb×kb of `l`), then the rows below U −= L₂₁·U.
fn update_column(mut col: crate::tile::ViewMut<f64>, l: crate::tile::View<f64>, kb: usize, piv: &[i32]) {
    kernels::laswp(col.sub_mut(0, 0, col.m, col.n), piv, Dir::Forward);
    let (mut u, below) = col.split_rows(kb);
    kernels::trsm(
        Side::Left,
        Uplo::Lower,
        Trans::No,
        Diag::Unit,
        1.0,
        l.sub(0, 0, kb, kb),
        u.sub_mut(0, 0, kb, u.n),
    );
    if below.m > 0 {
        kernels::gemm(Trans::No, Trans::No, -1.0, l.sub(kb, 0, l.m - kb, kb), u.as_view(), 1.0, below);
    }
}

/// Solves op(A)·X = B with the factors P·A = L·U from [`getrf`] (DGETRS): A n×n (rows and columns
/// cut alike), `ipiv` n×1 and B n×nrhs with A's row tiles. `Trans::No`: B ← U⁻¹·L⁻¹·P·B;
/// `Trans::Yes`: B ← Pᵀ·L⁻ᵀ·U⁻ᵀ·B.
pub fn getrs(seq: &Seq, trans: Trans, a: &TiledMatrix<f64>, ipiv: &TiledMatrix<i32>, b: &TiledMatrix<f64>) {
    let (a, ipiv, b) = (*a, *ipiv, *b);
    assert_eq!(a.m, a.n);
    assert_eq!(b.m, a.n);
    assert!(ipiv.m == a.n && ipiv.n == 1 && ipiv.rows == a.rows, "ipiv must be n×1 with A's row tiles");
    match trans {
        Trans::No => {
            // Above every TRSM step of `trsm_left` ((nt − step)·4 + 2): the swaps gate them all.
            swap_rows(seq, &ipiv, &b, Dir::Forward, prio(a.nt(), 0, 3));
            super::trsm::trsm_left(seq, Uplo::Lower, Trans::No, Diag::Unit, &a, &b);
            super::trsm::trsm_left(seq, Uplo::Upper, Trans::No, Diag::NonUnit, &a, &b);
        }
        Trans::Yes => {
            super::trsm::trsm_left(seq, Uplo::Upper, Trans::Yes, Diag::NonUnit, &a, &b);
            super::trsm::trsm_left(seq, Uplo::Lower, Trans::Yes, Diag::Unit, &a, &b);
            // Last in the sequence; nothing waits on them.
            swap_rows(seq, &ipiv, &b, Dir::Backward, 0);
        }
    }
}

/// Applies all of `ipiv`'s interchanges to B, one task per tile column of B.
fn swap_rows(seq: &Seq, ipiv: &TiledMatrix<i32>, b: &TiledMatrix<f64>, dir: Dir, p: i64) {
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
            kernels::laswp(c.region_mut(&b, 0..mt, j..j + 1), &rows, dir);
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
    use crate::tile::Part;

    /// The backend's DGETRF on a copy: (factors, ipiv, info).
    fn reference_getrf(m: usize, n: usize, a: &[f64], ld: usize) -> (Vec<f64>, Vec<i32>, i32) {
        let mut f = a.to_vec();
        let mut ipiv = vec![0i32; m.min(n).max(1)];
        let mut info = 0;
        // SAFETY: `f` holds an m×n matrix with leading dimension ld >= max(1, m), `ipiv` min(m,n)
        // entries.
        unsafe {
            bk::dgetrf(&(m as i32), &(n as i32), f.as_mut_ptr(), &(ld as i32), ipiv.as_mut_ptr(), &mut info)
        };
        ipiv.truncate(m.min(n));
        (f, ipiv, info)
    }

    /// Runs the tile LU on `a` in place; returns (ipiv, sequence result, INFO).
    fn tile_getrf(
        m: usize,
        n: usize,
        a: &mut [f64],
        ld: usize,
        nb: usize,
        threads: usize,
    ) -> (Vec<i32>, Result<(), Error>, i32) {
        tile_getrf_part(m, n, a, ld, Part::uniform(nb), threads)
    }

    fn tile_getrf_part(
        m: usize,
        n: usize,
        a: &mut [f64],
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
        getrf(&seq, &ta, &tp, &info);
        let r = seq.wait();
        ipiv.truncate(k);
        (ipiv, r, info.get())
    }

    /// ‖P·A − L·U‖_F / (max(m,n)·‖A‖_F·eps), with P from `ipiv` and L, U read from `f`.
    fn lu_residual(m: usize, n: usize, a: &[f64], f: &[f64], ld: usize, ipiv: &[i32]) -> f64 {
        let k = m.min(n);
        let mut pa: Vec<f64> =
            (0..n).flat_map(|j| (0..m).map(move |i| (i, j))).map(|(i, j)| a[i + j * ld]).collect();
        for (r, &p) in ipiv.iter().enumerate() {
            let p = p as usize - 1;
            for j in 0..n {
                pa.swap(r + j * m, p + j * m);
            }
        }
        let l = |i: usize, t: usize| -> f64 {
            match i.cmp(&t) {
                std::cmp::Ordering::Greater => f[i + t * ld],
                std::cmp::Ordering::Equal => 1.0,
                std::cmp::Ordering::Less => 0.0,
            }
        };
        let u = |t: usize, j: usize| -> f64 {
            if t <= j {
                f[t + j * ld]
            } else {
                0.0
            }
        };
        for j in 0..n {
            for i in 0..m {
                let s: f64 = (0..k.min(i + 1).min(j + 1)).map(|t| l(i, t) * u(t, j)).sum();
                pa[i + j * m] -= s;
            }
        }
        fnorm(&pa, m, n, m) / (m.max(n) as f64 * fnorm(a, m, n, ld).max(f64::MIN_POSITIVE) * eps())
    }

    fn check_random(m: usize, n: usize, ld: usize, nb: usize, threads: usize) {
        check_random_part(m, n, ld, Part::uniform(nb), threads)
    }

    fn check_random_part(m: usize, n: usize, ld: usize, part: Part, threads: usize) {
        let nb = part.big();
        let mut rng = Rng::new((m * 1000 + n * 10 + nb) as u64);
        let a0 = rng.matrix(m, n, ld);
        let (_, piv_ref, info_ref) = reference_getrf(m, n, &a0, ld);
        let mut a = a0.clone();
        let (piv, r, info) = tile_getrf_part(m, n, &mut a, ld, part, threads);
        r.unwrap();
        assert_eq!(info, info_ref, "m {m} n {n} nb {nb}: INFO");
        assert_eq!(piv, piv_ref, "m {m} n {n} nb {nb}: ipiv differs from the backend's");
        let res = lu_residual(m, n, &a0, &a, ld, &piv);
        assert!(res < 10.0, "m {m} n {n} nb {nb}: scaled residual {res}");
        assert_untouched_outside(&a0, &a, m, n, ld, None);
    }

    #[test]
    fn square_and_rectangular_match_backend_pivots() {
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
            check_random(m, n, m + 3, nb, 3);
        }
    }

    #[test]
    fn one_tile_and_one_thread() {
        check_random(30, 30, 30, 64, 1);
        check_random(33, 21, 35, 5, 1);
    }

    /// An exactly singular M×N matrix whose factorization has no rounding at all: P·A = L0·U0 with
    /// a chosen pivot sequence, unit-lower L0 with off-diagonal entries in {0, ±1/4, ±1/2} (so
    /// each pivot is the unique largest entry of its column), U0 with small integer entries,
    /// power-of-two diagonal, and the rows listed in `zero` entirely zero. Every elimination step
    /// is then exact in any order of operations, so any GEPP must return exactly this ipiv, L0
    /// and U0, and INFO = first zero row + 1. Returns (A, ipiv, expected factors).
    fn exact_singular(
        m: usize,
        n: usize,
        ld: usize,
        zero: &[usize],
        seed: u64,
    ) -> (Vec<f64>, Vec<i32>, Vec<f64>) {
        let k = m.min(n);
        let mut rng = Rng::new(seed);
        let mut pick = |choices: &[f64]| {
            let r = ((rng.next() + 1.0) / 2.0 * choices.len() as f64) as usize;
            choices[r.min(choices.len() - 1)]
        };
        let mut l0 = vec![0.0; m * k];
        let mut u0 = vec![0.0; k * n];
        for t in 0..k {
            l0[t + t * m] = 1.0;
            if zero.contains(&t) {
                // A zero pivot leaves LAPACK's column of multipliers as the (zero) column itself.
                continue;
            }
            for i in t + 1..m {
                l0[i + t * m] = pick(&[0.0, 0.25, -0.25, 0.5, -0.5]);
            }
            u0[t + t * k] = pick(&[1.0, -1.0, 2.0, -2.0, 4.0, -4.0]);
            for j in t + 1..n {
                u0[t + j * k] = pick(&[0.0, 1.0, -1.0, 2.0, -3.0, 4.0]);
            }
        }
        // ipiv: a pivot row at or below each step; a zero step must keep its own row, since the
        // first largest entry of an all-zero column is the diagonal one.
        let mut ipiv = vec![0i32; k];
        for (t, p) in ipiv.iter_mut().enumerate() {
            let r = if zero.contains(&t) {
                t
            } else {
                t + ((pick(&[0.0, 0.3, 0.6, 0.99]) * (m - t) as f64) as usize)
            };
            *p = (r.min(m - 1) + 1) as i32;
        }
        // P·A = L0·U0, so A = Pᵀ·(L0·U0): undo the swaps in reverse order.
        let mut lu = vec![0.0; m * n];
        for j in 0..n {
            for i in 0..m {
                lu[i + j * m] = (0..k).map(|t| l0[i + t * m] * u0[t + j * k]).sum();
            }
        }
        for t in (0..k).rev() {
            let p = ipiv[t] as usize - 1;
            for j in 0..n {
                lu.swap(t + j * m, p + j * m);
            }
        }
        let mut a = vec![GUARD; ld * n];
        let mut f = vec![GUARD; ld * n];
        for j in 0..n {
            for i in 0..m {
                a[i + j * ld] = lu[i + j * m];
                f[i + j * ld] = if i > j { l0[i + j * m] } else { u0[i + j * k] };
            }
        }
        (a, ipiv, f)
    }

    #[test]
    fn exactly_singular_matrices_give_lapack_info_and_exact_factors() {
        exactly_singular_cases(None);
    }

    /// The exact singular cases with their own uniform tiles, or all with `part`.
    fn exactly_singular_cases(part: Option<Part>) {
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
            let (a0, piv0, f0) = exact_singular(m, n, ld, zero, (m * n + zero[0]) as u64);
            let (f_ref, piv_ref, info_ref) = reference_getrf(m, n, &a0, ld);
            let mut a = a0.clone();
            let (piv, r, info) = tile_getrf_part(m, n, &mut a, ld, part.unwrap_or(Part::uniform(nb)), 3);
            r.unwrap();
            let want = zero[0] as i32 + 1;
            assert_eq!(info_ref, want, "the backend disagrees with the construction");
            assert_eq!(info, want, "m {m} n {n} zero {zero:?}: INFO");
            assert_eq!(piv, piv0, "m {m} n {n} zero {zero:?}: ipiv");
            assert_eq!(piv_ref, piv0, "the backend disagrees with the construction");
            assert_eq!(a, f0, "m {m} n {n} zero {zero:?}: factors are not exact");
            assert_eq!(f_ref, f0, "the backend's factors are not exact either");
        }
    }

    #[test]
    fn zero_columns_rows_and_matrix_give_backend_info() {
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
            let mut a0 = rng.matrix(m, n, ld);
            for &c in cols {
                (0..m).for_each(|i| a0[i + c * ld] = 0.0);
            }
            for &r in rows {
                (0..n).for_each(|j| a0[r + j * ld] = 0.0);
            }
            let (_, piv_ref, info_ref) = reference_getrf(m, n, &a0, ld);
            let mut a = a0.clone();
            let (piv, r, info) = tile_getrf(m, n, &mut a, ld, 5, 3);
            r.unwrap();
            assert_eq!(info, info_ref, "m {m} n {n} cols {cols:?} rows {rows:?}");
            assert!(info > 0 || !cols.iter().any(|&c| c < m.min(n)), "a zero column must be reported");
            assert_eq!(piv, piv_ref, "m {m} n {n} cols {cols:?} rows {rows:?}: ipiv");
            let res = lu_residual(m, n, &a0, &a, ld, &piv);
            assert!(res < 10.0, "m {m} n {n}: scaled residual {res}");
            assert_untouched_outside(&a0, &a, m, n, ld, None);
        }
        for &(m, n) in &[(1, 1), (12, 12), (12, 7), (7, 12)] {
            let mut a = vec![0.0; m * n];
            let (piv_ref, info_ref) = {
                let (_, p, i) = reference_getrf(m, n, &a, m);
                (p, i)
            };
            let (piv, r, info) = tile_getrf(m, n, &mut a, m, 3, 3);
            r.unwrap();
            assert_eq!((info, &piv), (info_ref, &piv_ref), "zero {m}×{n}");
            assert_eq!(info, 1);
            assert!(a.iter().all(|&x| x == 0.0));
        }
    }

    #[test]
    fn nan_input_returns() {
        for &(m, n, at) in &[(20, 20, (3, 3)), (20, 20, (19, 0)), (20, 13, (0, 12)), (13, 20, (7, 19))] {
            let mut rng = Rng::new(3);
            let mut a = rng.matrix(m, n, m);
            a[at.0 + at.1 * m] = f64::NAN;
            let (piv, r, _) = tile_getrf(m, n, &mut a, m, 4, 3);
            r.unwrap();
            assert!(piv.iter().all(|&p| p >= 1 && p as usize <= m), "pivots out of range: {piv:?}");
            assert!(a.iter().any(|x| x.is_nan()));
        }
    }

    #[test]
    fn getrs_matches_backend_solve_on_the_same_factors() {
        getrs_cases(Part::uniform(6));
    }

    fn getrs_cases(part: Part) {
        let (n, nrhs, lda, ldb) = (47, 9, 50, 49);
        let mut rng = Rng::new(11);
        let a0 = rng.matrix(n, n, lda);
        let (f, piv, info) = reference_getrf(n, n, &a0, lda);
        assert_eq!(info, 0);
        for trans in [Trans::No, Trans::Yes] {
            let b0 = rng.matrix(n, nrhs, ldb);
            let mut want = b0.clone();
            let mut info = 0;
            // SAFETY: sizes as declared.
            unsafe {
                bk::dgetrs(
                    bk::ch(trans.ch()),
                    &(n as i32),
                    &(nrhs as i32),
                    f.as_ptr(),
                    &(lda as i32),
                    piv.as_ptr(),
                    want.as_mut_ptr(),
                    &(ldb as i32),
                    &mut info,
                    1,
                )
            };
            assert_eq!(info, 0);
            let (mut fa, mut fp, mut b) = (f.clone(), piv.clone(), b0.clone());
            let ta = unsafe { TiledMatrix::from_raw_parts(fa.as_mut_ptr(), n, n, lda, part, part) };
            let tp = unsafe { TiledMatrix::from_raw_parts(fp.as_mut_ptr(), n, 1, n, part, Part::uniform(1)) };
            let tb =
                unsafe { TiledMatrix::from_raw_parts(b.as_mut_ptr(), n, nrhs, ldb, part, Part::uniform(4)) };
            let seq = Seq::new(&cfg(3));
            getrs(&seq, trans, &ta, &tp, &tb);
            seq.wait().unwrap();
            let scale = fnorm(&want, n, nrhs, ldb);
            let mut d = want.clone();
            d.iter_mut().zip(&b).for_each(|(x, y)| *x -= y);
            let err = fnorm(&d, n, nrhs, ldb) / (scale * n as f64 * eps());
            assert!(err < 100.0, "{trans:?}: difference from the backend's solve {err}");
            assert_eq!(fa, f, "A must not change");
            assert_eq!(fp, piv, "ipiv must not change");
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
        getrs(&seq, Trans::No, &ta, &tp, &tb);
        assert!(matches!(seq.wait(), Err(Error::Runtime(_))));
    }

    #[test]
    fn on_one_two_three_emulated_devices() {
        for_device_setups(|| {
            square_and_rectangular_match_backend_pivots();
            one_tile_and_one_thread();
            exactly_singular_matrices_give_lapack_info_and_exact_factors();
            zero_columns_rows_and_matrix_give_backend_info();
            nan_input_returns();
            getrs_matches_backend_solve_on_the_same_factors();
            corrupt_ipiv_fails_cleanly();
        });
    }

    #[test]
    fn hybrid_partitions_on_one_two_three_emulated_devices() {
        for_hybrid_setups(|part| {
            for &(m, n) in &[(1, 1), (2, 9), (9, 2), (37, 37), (50, 23), (23, 50), (41, 40), (64, 61)] {
                check_random_part(m, n, m + 3, part, 3);
            }
            exactly_singular_cases(Some(part));
            getrs_cases(part);
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
        getrf(&seq, &ta, &tp, &ZeroPivot::new());
        let (r, stats) = seq.wait_stats();
        r.unwrap();
        assert_eq!(ipiv, piv_ref);
        assert!(lu_residual(m, n, &a0, &a, m, &ipiv) < 10.0);
        for s in &stats {
            assert!(s.tasks > 0 && s.host_fallbacks == 0, "{s:?}");
        }
    }
}
