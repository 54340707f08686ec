//! Householder QR on tiles, leaving exactly LAPACK's DGEQRF output (ARCHITECTURE.md, decision 4).
//!
//! A = Q·R with Q = H_1·H_2·…·H_K, K = min(M, N), H_i = I − tau_i·v_i·v_iᵀ. This is the blocked
//! right-looking algorithm of LAPACK's DGEQRF (Householder panels, block reflectors in the
//! compact WY form I − V·T·Vᵀ of Schreiber and Van Loan), with the blocks cut along tile columns
//! so that each trailing update splits into independent tile-column tasks for the runtime of
//! seeds 000 §4–5. The seeds' own tile QR (000 §3 and §7: GEQRT, TSQRT and the DSSRFB update) is
//! not used here because it stores Q in a different form, which DORMQR and DORGQR could not read.
//!
//! With o = `col_offset(k)`, for panel k (columns o .. o + kb, kb = min(`tile_cols(k)`, K − o)):
//!
//! ```text
//!   PANEL k    tile column k, tile rows k..mt:  A[o.., panel] = V·R     (DGEQRF on the panel)
//!              tau[o .. o+kb]  and  T_k with H = I − V·T_k·Vᵀ          (DLARFT)
//!              (when tile column k is wider than kb, i.e. M < N and k is the last panel,
//!              the task also applies Hᵀ to the rest of that tile column)
//!   UPDATE k,j for every tile column j > k, tile rows k..mt:
//!              A[.., j] ← (I − V·T_kᵀ·Vᵀ)·A[.., j]                      (DLARFB 'L','T','F','C')
//! ```
//!
//! Rows and columns must be cut by the same partition (uniform, or hybrid thin/wide tiles:
//! `tile::Part`), so tile (k, k) starts on the diagonal. V lives below the diagonal of the panel
//! itself, R above it, `tau` in the caller's array (tiled K×1 with A's column tiles as its rows,
//! so that it has dependency keys of its own), and T_k in tile (0, k) of a [`Workspace`]
//! from [`workspace`]. Priorities give lookahead: the update of column k+1 and panel k+1
//! outrank the updates of later columns.
//!
//! Householder QR never fails (DGEQRF has no INFO > 0); NaN or Inf input flows through the
//! arithmetic like in LAPACK.

use super::prio;
use crate::device::{DeviceOp, Tiles};
use crate::kernels;
use crate::runtime::{Seq, Task};
use crate::tile::{Part, TiledMatrix, Workspace};

/// The T factors [`geqrf`] needs for `a`: tile (0, k) holds panel k's kb×kb T (one tile row as
/// tall as the widest tile, columns cut like A's).
pub fn workspace(a: &TiledMatrix<f64>) -> Workspace<f64> {
    let k = a.m.min(a.n);
    let big = a.cols.max_size();
    Workspace::with_parts(big, k, Part::uniform(big), a.cols)
}

/// Factors the M×N matrix `a` in place; `tau` is K×1 with A's column tiles as rows, `t` comes from
/// [`workspace`] for the same `a` and must outlive the sequence.
pub fn geqrf(seq: &Seq, a: &TiledMatrix<f64>, tau: &TiledMatrix<f64>, t: &TiledMatrix<f64>) {
    let (a, tau, t) = (*a, *tau, *t);
    let k_total = a.m.min(a.n);
    assert!(a.square_tiles(), "Householder panels need rows and columns cut alike");
    assert!(tau.m == k_total && tau.n == 1 && tau.rows == a.cols, "tau must be K×1 with A's tiles");
    assert!(
        t.m == a.cols.max_size() && t.n == k_total && t.cols == a.cols && t.mt() == 1,
        "T workspace shape"
    );
    if k_total == 0 {
        return;
    }
    let (mt, nt) = (a.mt(), a.nt());
    let panels = a.cols.count(k_total);
    for k in 0..panels {
        if seq.failed() {
            return;
        }
        let off = a.col_offset(k);
        let kb = a.tile_cols(k).min(k_total - off);
        let rows = a.m - off;
        let panel = Task::new("geqrf")
            .prio(prio(nt, k, 3))
            .dims(rows, kb, 0)
            .rw_range(&a, k..mt, k..k + 1)
            .write(&tau, k, 0)
            .write(&t, 0, k);
        seq.submit(panel, move |c| {
            kernels::geqrf_panel(
                c.region_mut(&a, k..mt, k..k + 1),
                kb,
                c.tile_mut(&tau, k, 0),
                c.tile_mut(&t, 0, k),
            );
            Ok(())
        });
        for j in k + 1..nt {
            // DLARFB reads only V's strictly lower part (plus the implied unit diagonal), but
            // the whole panel column is declared: its tiles are the unit of dependency.
            let upd = Task::new("larfb")
                .prio(prio(nt, j, 1))
                .dims(rows, a.tile_cols(j), kb)
                .read_range(&a, k..mt, k..k + 1)
                .read(&t, 0, k)
                .rw_range(&a, k..mt, j..j + 1)
                .device_op(DeviceOp::Larfb {
                    v: Tiles::stack(0, mt - k),
                    k: kb,
                    t: Tiles::one(mt - k),
                    c: Tiles::stack(mt - k + 1, mt - k),
                });
            seq.submit(upd, move |c| {
                kernels::larfb(
                    c.region(&a, k..mt, k..k + 1),
                    kb,
                    c.tile(&t, 0, k),
                    c.region_mut(&a, k..mt, j..j + 1),
                );
                Ok(())
            });
        }
    }
}

/// Applies the Q of [`geqrf`]'s factors (`a`, `t`) to `b` (rows cut like A's, as many rows as
/// A): B ← Qᵀ·B (`trans` = Yes: panels in order, each B(o.., j) ← H_kᵀ·B(o.., j)) or B ← Q·B
/// (No: panels in reverse order with H_k), one task per panel and tile column of B, after the
/// tasks of the same panel in the sequence (DORMQR's 'L' cases, on tiles).
pub fn apply_q(
    seq: &Seq,
    trans: crate::kernels::Trans,
    a: &TiledMatrix<f64>,
    t: &TiledMatrix<f64>,
    b: &TiledMatrix<f64>,
) {
    let (a, t, b) = (*a, *t, *b);
    let k_total = a.m.min(a.n);
    assert!(b.rows == a.rows && b.m == a.m, "B must have A's rows, cut alike");
    let (mt, nt) = (a.mt(), b.nt());
    let panels = a.cols.count(k_total);
    let order: Vec<usize> =
        if trans == crate::kernels::Trans::Yes { (0..panels).collect() } else { (0..panels).rev().collect() };
    let code = if trans == crate::kernels::Trans::Yes { b'T' } else { b'N' };
    for k in order {
        let off = a.col_offset(k);
        let kb = a.tile_cols(k).min(k_total - off);
        for j in 0..nt {
            let upd = Task::new("larfb")
                .prio(prio(a.nt(), k, 1))
                .dims(a.m - off, b.tile_cols(j), kb)
                .read_range(&a, k..mt, k..k + 1)
                .read(&t, 0, k)
                .rw_range(&b, k..mt, j..j + 1);
            seq.submit(upd, move |c| {
                kernels::larfb_op(
                    code,
                    c.region(&a, k..mt, k..k + 1),
                    kb,
                    c.tile(&t, 0, k),
                    c.region_mut(&b, k..mt, j..j + 1),
                );
                Ok(())
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::*;
    use crate::tile::Part;

    /// Runs the tile QR on `a` (m×n, leading dimension ld) with nb×nb tiles; `tau` must hold at
    /// least min(m, n) entries (more are guard values).
    fn tile_qr(m: usize, n: usize, ld: usize, nb: usize, threads: usize, a: &mut [f64], tau: &mut [f64]) {
        tile_qr_part(m, n, ld, Part::uniform(nb), threads, a, tau)
    }

    fn tile_qr_part(
        m: usize,
        n: usize,
        ld: usize,
        part: Part,
        threads: usize,
        a: &mut [f64],
        tau: &mut [f64],
    ) {
        let k = m.min(n);
        let ta = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), m, n, ld, part, part) };
        let tt =
            unsafe { TiledMatrix::from_raw_parts(tau.as_mut_ptr(), k, 1, k.max(1), part, Part::uniform(1)) };
        let ws = workspace(&ta);
        let seq = Seq::new(&cfg(threads));
        geqrf(&seq, &ta, &tt, &ws.tiles());
        seq.wait().unwrap();
    }

    /// Largest |x − y| over the m×n parts of two ld arrays.
    fn max_diff(x: &[f64], y: &[f64], m: usize, n: usize, ld: usize) -> f64 {
        let mut d: f64 = 0.0;
        for j in 0..n {
            for i in 0..m {
                d = d.max((x[i + j * ld] - y[i + j * ld]).abs());
            }
        }
        d
    }

    fn check(m: usize, n: usize, nb: usize, threads: usize) {
        check_part(m, n, Part::uniform(nb), threads)
    }

    fn check_part(m: usize, n: usize, part: Part, threads: usize) {
        let nb = part.big();
        let ld = m + 3;
        let k = m.min(n);
        let mut rng = Rng::new((m * 1000 + n) as u64 ^ nb as u64);
        let a0 = rng.matrix(m, n, ld);
        let mut a = a0.clone();
        let mut tau = vec![GUARD; k + 3];
        tile_qr_part(m, n, ld, part, threads, &mut a, &mut tau);
        assert_untouched_outside(&a0, &a, m, n, ld, None);
        assert!(tau[k..].iter().all(|&x| x == GUARD), "tau written beyond its K entries");

        // A = Q·R and QᵀQ = I, with Q formed by the backend's DORGQR from our V and tau.
        let (res, orth) = qr_residuals(m, n, &a0, &a, ld, &tau[..k]);
        assert!(res < 10.0, "m {m} n {n} nb {nb}: ‖A − QR‖ scaled {res}");
        assert!(orth < 10.0, "m {m} n {n} nb {nb}: ‖I − QᵀQ‖ scaled {orth}");

        // Householder QR is unique given LAPACK's sign convention: V, R and tau agree with the
        // backend's DGEQRF to rounding (elements are O(1) for these inputs; errors grow like
        // cond(A)·eps, and random matrices of these sizes are well conditioned).
        let mut r = a0.clone();
        let mut rtau = vec![0.0; k.max(1)];
        reference_geqrf(m, n, &mut r, ld, &mut rtau);
        let tol = 10.0 * (m.max(n) as f64) * eps();
        let d = max_diff(&a, &r, m, n, ld);
        assert!(d < tol, "m {m} n {n} nb {nb}: V/R differ from the backend's by {d} (tol {tol})");
        let dt = max_diff(&tau, &rtau, k, 1, k.max(1));
        assert!(dt < tol, "m {m} n {n} nb {nb}: tau differs from the backend's by {dt}");

        // DORMQR, the consumer of this format, gives the same Qᵀ·C with either factorization.
        let p = 4;
        let cm = rng.matrix(m, p, m.max(1));
        let mut c1 = cm.clone();
        let mut c2 = cm.clone();
        reference_ormqr(b'L', b'T', m, p, k, &a, ld, &tau, &mut c1, m.max(1));
        reference_ormqr(b'L', b'T', m, p, k, &r, ld, &rtau, &mut c2, m.max(1));
        let dc = max_diff(&c1, &c2, m, p, m.max(1)) / fnorm(&cm, m, p, m.max(1)).max(1.0);
        assert!(dc < tol, "m {m} n {n} nb {nb}: DORMQR results differ by {dc}");
    }

    #[test]
    fn square_odd_sizes_tiny_tiles() {
        for &(n, nb) in &[(1, 1), (1, 3), (7, 3), (37, 5), (50, 8), (129, 16)] {
            check(n, n, nb, 3);
        }
    }

    #[test]
    fn tall_matrices() {
        for &(m, n, nb) in &[(9, 1, 3), (37, 23, 5), (64, 17, 8), (100, 33, 16), (41, 40, 3)] {
            check(m, n, nb, 3);
        }
    }

    #[test]
    fn wide_matrices_including_a_partial_last_panel() {
        // (13, 40, 5) and (1, 9, 3): the last panel is narrower than its tile column, so the
        // panel task also updates the rest of that column. (10, 23, 5): it is not.
        for &(m, n, nb) in &[(1, 9, 3), (13, 40, 5), (10, 23, 5), (23, 37, 8), (17, 64, 8)] {
            check(m, n, nb, 3);
        }
    }

    #[test]
    fn one_thread_gives_the_same_factorization_as_three() {
        let (m, n, nb, ld) = (45, 38, 7, 47);
        let a0 = Rng::new(3).matrix(m, n, ld);
        let (mut a1, mut a3) = (a0.clone(), a0.clone());
        let (mut t1, mut t3) = (vec![0.0; n], vec![0.0; n]);
        tile_qr(m, n, ld, nb, 1, &mut a1, &mut t1);
        tile_qr(m, n, ld, nb, 3, &mut a3, &mut t3);
        // Every tile is computed by the same kernel calls in the same order whatever the
        // schedule, so the results are bitwise identical.
        assert_eq!(a1, a3);
        assert_eq!(t1, t3);
    }

    #[test]
    fn zero_matrix_and_zero_columns_give_zero_tau_like_the_backend() {
        let (m, n, nb) = (23, 17, 5);
        let ld = m + 1;
        // All zero: R = 0, V = 0, tau = 0 exactly.
        let z0 = vec![0.0; ld * n];
        let mut z = z0.clone();
        let mut tau = vec![GUARD; n];
        tile_qr(m, n, ld, nb, 3, &mut z, &mut tau);
        let mut rz = z0.clone();
        let mut rtau = vec![GUARD; n];
        reference_geqrf(m, n, &mut rz, ld, &mut rtau);
        assert_eq!(z, rz);
        assert_eq!(tau, rtau);
        assert!(tau.iter().all(|&t| t == 0.0));

        // Zero columns at the start, inside a panel and first in a panel: a reflector applied to
        // a zero column leaves it exactly zero, so its own reflector is H = I (tau = 0).
        let mut rng = Rng::new(11);
        let mut a0 = rng.matrix(m, n, ld);
        for &j in &[0usize, 7, 10] {
            for i in 0..m {
                a0[i + j * ld] = 0.0;
            }
        }
        let mut a = a0.clone();
        let mut tau = vec![GUARD; n];
        tile_qr(m, n, ld, nb, 3, &mut a, &mut tau);
        let mut r = a0.clone();
        let mut rtau = vec![GUARD; n];
        reference_geqrf(m, n, &mut r, ld, &mut rtau);
        for &j in &[0usize, 7, 10] {
            assert_eq!(tau[j], 0.0, "tau[{j}]");
            assert_eq!(rtau[j], 0.0, "backend tau[{j}]");
        }
        let tol = 10.0 * m as f64 * eps();
        assert!(max_diff(&a, &r, m, n, ld) < tol);
        assert!(max_diff(&tau, &rtau, n, 1, n) < tol);
        let (res, orth) = qr_residuals(m, n, &a0, &a, ld, &tau);
        assert!(res < 10.0 && orth < 10.0, "residuals {res} {orth}");
    }

    #[test]
    fn nan_input_returns() {
        let (m, n, nb) = (30, 20, 4);
        let mut a = Rng::new(5).matrix(m, n, m);
        a[3 + 2 * m] = f64::NAN;
        let mut tau = vec![0.0; n];
        tile_qr(m, n, m, nb, 3, &mut a, &mut tau);
        // Column 2's reflector is NaN and spreads to every later column, as in LAPACK.
        assert!(tau[2].is_nan() && a[(n - 1) * m + n - 1].is_nan());
    }

    #[test]
    fn on_one_two_three_emulated_devices() {
        for_device_setups(|| {
            square_odd_sizes_tiny_tiles();
            tall_matrices();
            wide_matrices_including_a_partial_last_panel();
            one_thread_gives_the_same_factorization_as_three();
            zero_matrix_and_zero_columns_give_zero_tau_like_the_backend();
            nan_input_returns();
        });
    }

    #[test]
    fn hybrid_partitions_on_one_two_three_emulated_devices() {
        for_hybrid_setups(|part| {
            for &(m, n) in &[(1, 1), (1, 9), (9, 1), (37, 37), (64, 17), (13, 40), (41, 40), (23, 37)] {
                check_part(m, n, part, 3);
            }
        });
    }

    #[test]
    fn trailing_updates_run_on_the_devices_and_evict_when_short_of_memory() {
        let (m, n, nb) = (75, 50, 8);
        let k = m.min(n);
        for mem in [1usize << 20, 24 << 10] {
            let mut rng = Rng::new(17);
            let a0 = rng.matrix(m, n, m);
            let mut a = a0.clone();
            let mut tau = vec![0.0; k];
            let ta = unsafe { TiledMatrix::from_raw(a.as_mut_ptr(), m, n, m, nb, nb) };
            let tt = unsafe { TiledMatrix::from_raw(tau.as_mut_ptr(), k, 1, k, nb, 1) };
            let ws = workspace(&ta);
            let mut c = cfg(3).with_emulated(2, mem);
            c.host_share = Some(0.0);
            let seq = Seq::new(&c);
            geqrf(&seq, &ta, &tt, &ws.tiles());
            let (r, stats) = seq.wait_stats();
            r.unwrap();
            let (res, orth) = qr_residuals(m, n, &a0, &a, m, &tau);
            assert!(res < 10.0 && orth < 10.0, "mem {mem}: {res} {orth}");
            for s in &stats {
                assert!(s.tasks > 0, "{s:?}");
                // 24 KB holds 22 KB of 512-byte tiles: a 10-tile column update needs 21.
                assert_eq!(s.evictions > 0, mem < (1 << 20), "mem {mem}: {s:?}");
            }
        }
    }
}
