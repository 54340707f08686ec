//! xGELS (least squares and minimum-norm solutions through QR or LQ) in the four types (S, D, C,
//! Z), with LAPACK 3.11's checks: TRANS is 'N' or 'T' for the real types, 'N' or 'C' for the
//! complex ones (whose transposed problem is the adjoint's, and whose QR is ZGEQRF's).
//!
//! The tile path follows LAPACK 3.11's DGELS step by step: workspace query (WORK(1) is LAPACK's
//! WSIZE from the backend's ILAENV), quick return with B zeroed over max(M,N)×NRHS, scaling of A
//! and B into [SMLNUM, BIGNUM] with DLANGE/DLASCL, zero solution for a zero A, then
//! [`algo::gels`] on the caller's arrays in place, and the scaling undone on the solution rows.
//! INFO = i > 0 when the i-th diagonal element of R (or L) is exactly zero, as LAPACK's DTRTRS
//! reports it.
//!
//! A on exit: for m ≥ n exactly what LAPACK's DGELS leaves (DGEQRF's R and reflectors: the
//! Householder QR of [`algo::geqrf`]). For m < n, L is in A's lower triangle as LAPACK's DGELQF
//! leaves it, but the reflectors above it are those of the tile QR of seeds 000 §3.1 (see
//! [`algo::tileqr`]) of Aᵀ, stored transposed, not DGELQF's; their T factors live in workspace
//! that is freed on return.
//!
//! Calls below `HETLA_MIN_N` (measured on min(M, N)), disabled ones and nested ones are forwarded
//! to the backend whole.

use super::{check_args, flag, forward_reason, learns, run_tiles, tune, Path, Report};
use crate::algo;
use crate::backend::{array, forward};
use crate::config::Config;
use crate::error::Error;
use crate::graph::op::OpElem;
use crate::kernels::Trans;
use crate::scalar::{self, Scalar};
use crate::tile::{span, Raw};

/// DGELS: [`gels`] in f64.
#[allow(clippy::too_many_arguments)]
pub fn dgels(
    cfg: &Config,
    trans: u8,
    m: i32,
    n: i32,
    nrhs: i32,
    a: Raw<f64>,
    lda: i32,
    b: Raw<f64>,
    ldb: i32,
    work: Raw<f64>,
    lwork: i32,
) -> Result<(), Error> {
    gels(cfg, trans, m, n, nrhs, a, lda, b, ldb, work, lwork)
}

/// SGELS, DGELS, CGELS, ZGELS: solves min‖op(A)·X − B‖ or the minimum-norm op(A)·X = B for
/// full-rank A, op(A) = A or (TRANS = 'T' real, 'C' complex) Aᴴ. One generator for the four
/// types, on the host's tiles and the process's devices.
#[allow(clippy::too_many_arguments)]
pub fn gels<T: OpElem>(
    cfg: &Config,
    trans: u8,
    m: i32,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    lda: i32,
    b: Raw<T>,
    ldb: i32,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let name = scalar::name::<T>("gels");
    let query = lwork == -1;
    let mn = m.min(n);
    check_args(&[
        (!(flag(trans, b'N') || flag(trans, T::ADJOINT)), 1),
        (m < 0, 2),
        (n < 0, 3),
        (nrhs < 0, 4),
        (lda < m.max(1), 6),
        (ldb < m.max(n).max(1), 8),
    ])?;
    let tpsd = flag(trans, T::ADJOINT);
    if !query && lwork < (mn + mn.max(nrhs)).max(1) {
        // LAPACK reports the workspace it wanted even when it refuses a short one.
        array::store_first(work, work_size::<T>(tpsd, m, n, nrhs) as f64);
        return Err(Error::Arg(10));
    }
    if !query && learns(cfg, name, mn as usize) {
        let (mu, nu) = (m as usize, n as usize);
        let mut ac = a.snapshot(span(mu, nu, lda as usize));
        let mut bc = b.snapshot(span(mu.max(nu), nrhs as usize, ldb as usize));
        let mut wc = work.snapshot(lwork as usize);
        tune::trials(cfg, name, mn as usize, &mut || {
            gels(cfg, trans, m, n, nrhs, ac.fresh(), lda, bc.fresh(), ldb, wc.fresh(), lwork).is_ok()
        });
    }
    let rep = Report::start(cfg);
    let (mf, nf) = (m as f64, n as f64);
    let k = mf.min(nf);
    // The QR (or LQ) factorization dominates: 2·m·n·k − 2k³/3 with k = min(m, n).
    let flops = (2.0 * mf * nf * k - 2.0 * k * k * k / 3.0) * T::FLOPS;
    let tc = trans.to_ascii_uppercase() as char;
    if let Some(why) = forward_reason(cfg, name, mn as usize) {
        // A short (legacy) LWORK would send the backend to its unblocked QR: it gets the
        // workspace its query asks for instead (the arguments are valid here).
        let call = |w: Raw<T>, l: i32| forward::gels(trans, m, n, nrhs, a, lda, b, ldb, w, l);
        let query_fn = || super::workspace::query_with(call);
        let (info, used) = super::workspace::with_workspace(cfg, name, !query, work, lwork, query_fn, call);
        if !query {
            let desc = format_args!("trans={tc} m={m} n={n} nrhs={nrhs}");
            rep.finish(name, desc, Path::Forward, Some(&super::workspace::grown(why, lwork, used)), flops);
        }
        return if info > 0 { Err(Error::Numerical(info)) } else { Ok(()) };
    }
    array::store_first(work, work_size::<T>(tpsd, m, n, nrhs) as f64);
    if query {
        return Ok(());
    }
    let rows = m.max(n);
    if mn.min(nrhs) == 0 {
        array::zero(rows, nrhs, b, ldb);
        return Ok(());
    }
    // Bring the largest elements of A and B into [SMLNUM, BIGNUM], as LAPACK does, so the
    // factorization neither underflows nor overflows; the same ratios are undone on X below.
    let smlnum = array::small_over_eps::<T>();
    let bignum = 1.0 / smlnum;
    let into_range = |nrm: f64| {
        if nrm > 0.0 && nrm < smlnum {
            Some(smlnum)
        } else if nrm > bignum {
            Some(bignum)
        } else {
            None
        }
    };
    let anrm = array::max_abs(m, n, a, lda);
    if anrm == 0.0 {
        // A is zero: the solution (least squares or minimum norm) is zero.
        array::zero(rows, nrhs, b, ldb);
        return Ok(());
    }
    let ascl = into_range(anrm);
    if let Some(to) = ascl {
        array::scale(anrm, to, m, n, a, lda);
    }
    let brow = if tpsd { n } else { m };
    let bnrm = array::max_abs(brow, nrhs, b, ldb);
    let bscl = into_range(bnrm);
    if let Some(to) = bscl {
        array::scale(bnrm, to, brow, nrhs, b, ldb);
    }

    let nb = cfg.nb_for(name, m.min(n) as usize);
    let ib = nb.min(32);
    let (mu, nu, ru) = (m as usize, n as usize, nrhs as usize);
    let at = a.matrix(mu, nu, lda as usize).tiled(nb, nb);
    let bt = b.matrix(rows as usize, ru, ldb as usize).tiled(nb, nb);
    let op = if tpsd { Trans::Yes } else { Trans::No };
    let ws = algo::gels::GelsWork::new(mu, nu, nb, ib);
    let r = run_tiles(cfg, |seq| algo::gels::gels(seq, op, &at, &bt, &ws));
    rep.finish(name, format_args!("trans={tc} m={m} n={n} nrhs={nrhs} nb={nb}"), Path::Tiles, None, flops);
    r?;

    // X's rows: n for a least-squares solution, max(m, n) for a minimum-norm one.
    let least_squares = (m >= n) != tpsd;
    let scllen = if least_squares { mn } else { rows };
    if let Some(to) = ascl {
        array::scale(anrm, to, scllen, nrhs, b, ldb);
    }
    if let Some(to) = bscl {
        array::scale(to, bnrm, scllen, nrhs, b, ldb);
    }
    Ok(())
}

/// LAPACK's optimal LWORK for xGELS (its WSIZE), from the backend's ILAENV block sizes with
/// the names and options the reference asks (ZUNMQR and 'LC' for ZGELS). The tile path needs no
/// caller workspace, but callers size WORK by this answer.
fn work_size<T: Scalar>(tpsd: bool, m: i32, n: i32, nrhs: i32) -> i32 {
    let mn = m.min(n);
    let l = (T::LETTER as char).to_ascii_uppercase();
    let un = if T::COMPLEX { "UN" } else { "OR" };
    let adj = if T::COMPLEX { "LC" } else { "LT" };
    let nb = if m >= n {
        let opts = if tpsd { "LN" } else { adj };
        array::ilaenv(1, &format!("{l}GEQRF"), " ", [m, n, -1, -1]).max(array::ilaenv(
            1,
            &format!("{l}{un}MQR"),
            opts,
            [m, nrhs, n, -1],
        ))
    } else {
        let opts = if tpsd { adj } else { "LN" };
        array::ilaenv(1, &format!("{l}GELQF"), " ", [m, n, -1, -1]).max(array::ilaenv(
            1,
            &format!("{l}{un}MLQ"),
            opts,
            [n, nrhs, m, -1],
        ))
    };
    (mn + mn.max(nrhs) * nb).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::testutil::{assert_untouched_outside, eps, Rng};
    use crate::error::info_of;

    fn tile_cfg(nb: usize) -> Config {
        let mut c = Config::with_threads(3);
        c.min_n = Some(0);
        c.nb = Some(nb);
        c
    }

    struct Out {
        info: i32,
        work1: f64,
    }

    /// Our DGELS on the given arrays.
    #[allow(clippy::too_many_arguments)]
    fn ours(
        cfg: &Config,
        trans: u8,
        (m, n, nrhs): (usize, usize, usize),
        a: &mut [f64],
        lda: usize,
        b: &mut [f64],
        ldb: usize,
        lwork: i32,
    ) -> Out {
        let mut work = vec![0.0; lwork.max(1) as usize];
        // SAFETY: the arrays hold lda×n and ldb×nrhs elements (at least one) and `work` lwork.
        let (ra, rb, rw) =
            unsafe { (Raw::new(a.as_mut_ptr()), Raw::new(b.as_mut_ptr()), Raw::new(work.as_mut_ptr())) };
        let r = dgels(cfg, trans, m as i32, n as i32, nrhs as i32, ra, lda as i32, rb, ldb as i32, rw, lwork);
        Out { info: info_of(&r), work1: work[0] }
    }

    /// The backend's DGELS on the given arrays.
    #[allow(clippy::too_many_arguments)]
    fn reference(
        trans: u8,
        (m, n, nrhs): (usize, usize, usize),
        a: &mut [f64],
        lda: usize,
        b: &mut [f64],
        ldb: usize,
        lwork: i32,
    ) -> Out {
        let mut work = vec![0.0; lwork.max(1) as usize];
        let mut info = 0;
        // SAFETY: as in `ours`.
        unsafe {
            crate::backend::lapack::dgels(
                crate::backend::lapack::ch(trans),
                &(m as i32),
                &(n as i32),
                &(nrhs as i32),
                a.as_mut_ptr(),
                &(lda as i32),
                b.as_mut_ptr(),
                &(ldb as i32),
                work.as_mut_ptr(),
                &lwork,
                &mut info,
                1,
            )
        };
        Out { info, work1: work[0] }
    }

    /// A random m×n A with a boosted diagonal, so cond(A) is a small constant.
    fn well_conditioned(rng: &mut Rng, m: usize, n: usize, lda: usize) -> Vec<f64> {
        let mut a = rng.matrix(m, n, lda);
        let d = (m.max(n) as f64).sqrt() + 2.0;
        for i in 0..m.min(n) {
            a[i + i * lda] += if i % 2 == 0 { d } else { -d };
        }
        a
    }

    fn lwork_for(m: usize, n: usize, nrhs: usize) -> i32 {
        let mn = m.min(n);
        (mn + mn.max(nrhs) * 64).max(1) as i32
    }

    /// Solves one problem with ours and the backend's and compares everything DGELS defines.
    fn compare(trans: u8, m: usize, n: usize, nrhs: usize, nb: usize) {
        let (lda, rows) = (m + 3, m.max(n));
        let ldb = rows + 2;
        let mut rng = Rng::new((m * 7919 + n * 31 + nrhs * 7 + nb) as u64 + trans as u64);
        let a0 = well_conditioned(&mut rng, m, n, lda);
        let b0 = rng.matrix(rows, nrhs, ldb);
        let (mut a, mut b) = (a0.clone(), b0.clone());
        let (mut ar, mut br) = (a0.clone(), b0.clone());
        let lw = lwork_for(m, n, nrhs);
        let got = ours(&tile_cfg(nb), trans, (m, n, nrhs), &mut a, lda, &mut b, ldb, lw);
        let want = reference(trans, (m, n, nrhs), &mut ar, lda, &mut br, ldb, lw);
        let tag = format!("trans {} m {m} n {n} nrhs {nrhs} nb {nb}", trans as char);
        // Lower-case flags were passed to both; the checks below read the upper-case one.
        let trans = trans.to_ascii_uppercase();
        assert_eq!((got.info, want.info), (0, 0), "{tag}");
        assert_eq!(got.work1, want.work1, "{tag}: WORK(1)");
        assert_untouched_outside(&a0, &a, m, n, lda, None);
        assert_untouched_outside(&b0, &b, rows, nrhs, ldb, None);

        // m ≥ n: A holds DGEQRF's output, as LAPACK's DGELS leaves it (R and the reflectors; the
        // backend's blocked DGEQRF and ours give the same numbers up to rounding).
        if m >= n {
            let amax = (0..n)
                .flat_map(|j| (0..m).map(move |i| (i, j)))
                .map(|(i, j)| ar[i + j * lda].abs())
                .fold(0.0, f64::max);
            for j in 0..n {
                for i in 0..m {
                    let d = (a[i + j * lda] - ar[i + j * lda]).abs();
                    assert!(
                        d <= 30.0 * rows as f64 * eps() * amax.max(1.0),
                        "{tag}: A({i},{j}) = {} vs {}",
                        a[i + j * lda],
                        ar[i + j * lda]
                    );
                }
            }
        }

        // The solution: n rows for TRANS = 'N', m rows for 'T'.
        let xrows = if trans == b'N' { n } else { m };
        let tol = 30.0 * rows as f64 * eps();
        for j in 0..nrhs {
            let xmax = (0..xrows).map(|i| br[i + j * ldb].abs()).fold(0.0, f64::max);
            for i in 0..xrows {
                let d = (b[i + j * ldb] - br[i + j * ldb]).abs();
                assert!(d <= tol * xmax, "{tag}: X({i},{j}) = {} vs {}", b[i + j * ldb], br[i + j * ldb]);
            }
        }

        // Least squares: the rows below X hold a vector whose sum of squares is the residual's.
        let (op_m, op_n) = if trans == b'N' { (m, n) } else { (n, m) };
        if op_m > op_n {
            let op = |i: usize, k: usize| if trans == b'N' { a0[i + k * lda] } else { a0[k + i * lda] };
            for j in 0..nrhs {
                let mut rss = 0.0;
                for i in 0..op_m {
                    let ax: f64 = (0..op_n).map(|k| op(i, k) * b[k + j * ldb]).sum();
                    rss += (ax - b0[i + j * ldb]).powi(2);
                }
                let tail: f64 = (op_n..op_m).map(|i| b[i + j * ldb].powi(2)).sum();
                let tail_ref: f64 = (op_n..op_m).map(|i| br[i + j * ldb].powi(2)).sum();
                let bb: f64 = (0..op_m).map(|i| b0[i + j * ldb].powi(2)).sum();
                assert!((tail - rss).abs() <= tol * bb, "{tag}: tail {tail} vs residual {rss}");
                assert!((tail - tail_ref).abs() <= tol * bb, "{tag}: tail {tail} vs backend {tail_ref}");
            }
        }

        // A holds R (m >= n) or L (m < n) where LAPACK puts it, equal up to the signs of its
        // rows (columns of L), which any two Householder QRs may choose differently.
        let anorm =
            (0..n).flat_map(|j| (0..m).map(move |i| (i, j))).map(|(i, j)| a0[i + j * lda].abs()).sum::<f64>();
        for j in 0..n {
            for i in 0..m {
                let in_tri = if m >= n { i <= j } else { i >= j };
                if in_tri {
                    let (x, y) = (a[i + j * lda].abs(), ar[i + j * lda].abs());
                    assert!((x - y).abs() <= tol * anorm, "{tag}: factor ({i},{j}) {x} vs {y}");
                }
            }
        }
    }

    #[test]
    fn all_four_cases_match_the_backend_on_odd_sizes_tiny_tiles() {
        for &(m, n, nrhs, nb) in &[
            (37, 23, 5, 5),
            (23, 37, 4, 5),
            (40, 40, 3, 8),
            (50, 13, 7, 3),
            (13, 50, 2, 3),
            (1, 1, 1, 3),
            (9, 1, 2, 3),
            (1, 9, 2, 3),
            (32, 16, 9, 8),
            (16, 32, 9, 8),
            (61, 45, 1, 16),
            // Tiles wider than the inner block (ib = 32): T holds several ib×ib blocks per tile.
            (300, 170, 4, 128),
            (90, 130, 3, 40),
        ] {
            for trans in [b'N', b'T', b'n', b't'] {
                compare(trans, m, n, nrhs, nb);
            }
        }
    }

    #[test]
    fn exactly_zero_diagonal_gives_the_backend_info() {
        // A zero column (m >= n) or zero row (m < n) makes R(j,j) or L(j,j) exactly zero.
        for &(m, n, nb) in &[(30, 20, 5), (20, 30, 5), (17, 17, 3)] {
            for zero_at in [0usize, 4, 5, 12, m.min(n) - 1] {
                for trans in [b'N', b'T'] {
                    let (lda, rows) = (m + 1, m.max(n));
                    let ldb = rows + 1;
                    let mut rng = Rng::new(zero_at as u64 + 100 * m as u64);
                    let mut a0 = well_conditioned(&mut rng, m, n, lda);
                    if m >= n {
                        (0..m).for_each(|i| a0[i + zero_at * lda] = 0.0);
                    } else {
                        (0..n).for_each(|j| a0[zero_at + j * lda] = 0.0);
                    }
                    let b0 = rng.matrix(rows, 3, ldb);
                    let (mut a, mut b) = (a0.clone(), b0.clone());
                    let lw = lwork_for(m, n, 3);
                    let got = ours(&tile_cfg(nb), trans, (m, n, 3), &mut a, lda, &mut b, ldb, lw);
                    let want = reference(trans, (m, n, 3), &mut a0.clone(), lda, &mut b0.clone(), ldb, lw);
                    assert!(want.info > 0, "the backend must see the zero");
                    assert_eq!(got.info, want.info, "m {m} n {n} zero at {zero_at} trans {}", trans as char);
                    assert_untouched_outside(&a0, &a, m, n, lda, None);
                    assert_untouched_outside(&b0, &b, rows, 3, ldb, None);
                }
            }
        }
    }

    #[test]
    fn workspace_query_matches_the_backend() {
        for &(m, n, nrhs) in
            &[(100, 60, 5), (60, 100, 5), (10, 10, 300), (0, 7, 2), (7, 0, 0), (1000, 500, 1)]
        {
            for trans in [b'N', b'T'] {
                let (lda, ldb) = (m.max(1), m.max(n).max(1));
                let mut a = vec![0.0; lda * n.max(1)];
                let mut b = vec![0.0; ldb * nrhs.max(1)];
                let got = ours(&tile_cfg(8), trans, (m, n, nrhs), &mut a, lda, &mut b, ldb, -1);
                let want = reference(trans, (m, n, nrhs), &mut a, lda, &mut b, ldb, -1);
                assert_eq!((got.info, got.work1), (0, want.work1), "m {m} n {n} nrhs {nrhs}");
                assert!(a.iter().chain(b.iter()).all(|&x| x == 0.0), "a query touches nothing");
            }
        }
        // A short LWORK is refused as argument 10, and WORK(1) still says what was wanted.
        let (mut a, mut b) = (vec![1.0; 25], vec![1.0; 25]);
        let q = ours(&tile_cfg(8), b'N', (5, 5, 5), &mut a, 5, &mut b, 5, -1);
        let short = ours(&tile_cfg(8), b'N', (5, 5, 5), &mut a, 5, &mut b, 5, 9);
        assert_eq!((short.info, short.work1), (-10, q.work1));
    }

    #[test]
    fn quick_returns_and_zero_matrix_match_the_backend() {
        // (m, n, nrhs, zero A): NRHS = 0, M = 0, N = 0 quick returns, then an all-zero A.
        for &(m, n, nrhs, zero_a) in
            &[(7, 5, 0, false), (0, 5, 3, false), (6, 0, 2, false), (9, 6, 2, true), (6, 9, 2, true)]
        {
            for trans in [b'N', b'T'] {
                let (lda, rows) = (m + 2, m.max(n));
                let ldb = rows + 2;
                let mut rng = Rng::new(3);
                let mut a0 = rng.matrix(m, n, lda);
                if zero_a {
                    for j in 0..n {
                        (0..m).for_each(|i| a0[i + j * lda] = 0.0);
                    }
                }
                let b0 = rng.matrix(rows, nrhs, ldb);
                let (mut a, mut b) = (a0.clone(), b0.clone());
                let (mut ar, mut br) = (a0.clone(), b0.clone());
                let lw = lwork_for(m, n, nrhs);
                let got = ours(&tile_cfg(4), trans, (m, n, nrhs), &mut a, lda, &mut b, ldb, lw);
                let want = reference(trans, (m, n, nrhs), &mut ar, lda, &mut br, ldb, lw);
                let tag = format!("m {m} n {n} nrhs {nrhs} trans {}", trans as char);
                assert_eq!((got.info, got.work1), (want.info, want.work1), "{tag}");
                assert_eq!(a, ar, "{tag}: A");
                assert_eq!(b, br, "{tag}: B");
                assert_eq!(a, a0, "{tag}: A must not change");
            }
        }
    }

    #[test]
    fn tiny_and_huge_inputs_are_scaled_like_the_backend() {
        let (m, n, nrhs, nb) = (19, 11, 3, 4);
        for &(sa, sb) in
            &[(1e-300, 1.0), (1e300, 1.0), (1.0, 1e-300), (1e-300, 1e-300), (1e300, 1e300), (1.0, 1e300)]
        {
            for (mm, nn) in [(m, n), (n, m)] {
                for trans in [b'N', b'T'] {
                    let (lda, rows) = (mm, mm.max(nn));
                    let mut rng = Rng::new(11);
                    let mut a0 = well_conditioned(&mut rng, mm, nn, lda);
                    a0.iter_mut().for_each(|x| *x *= sa);
                    let mut b0 = rng.matrix(rows, nrhs, rows);
                    b0.iter_mut().for_each(|x| *x *= sb);
                    let (mut a, mut b) = (a0.clone(), b0.clone());
                    let (mut ar, mut br) = (a0.clone(), b0.clone());
                    let lw = lwork_for(mm, nn, nrhs);
                    let got = ours(&tile_cfg(nb), trans, (mm, nn, nrhs), &mut a, lda, &mut b, rows, lw);
                    let want = reference(trans, (mm, nn, nrhs), &mut ar, lda, &mut br, rows, lw);
                    assert_eq!((got.info, want.info), (0, 0));
                    let xrows = if trans == b'N' { nn } else { mm };
                    for j in 0..nrhs {
                        let xmax = (0..xrows).map(|i| br[i + j * rows].abs()).fold(0.0, f64::max);
                        assert!(xmax.is_finite() && xmax > 0.0);
                        for i in 0..xrows {
                            let d = (b[i + j * rows] - br[i + j * rows]).abs();
                            assert!(d <= 30.0 * rows as f64 * eps() * xmax, "sa {sa} sb {sb} X({i},{j})");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn small_calls_are_forwarded_whole() {
        // Default HETLA_MIN_N: these sizes go to the backend, so the results are its own, bit for bit.
        let cfg = Config::with_threads(2);
        for (m, n) in [(12, 7), (7, 12)] {
            for trans in [b'N', b'T'] {
                let rows = m.max(n);
                let mut rng = Rng::new(5);
                let a0 = well_conditioned(&mut rng, m, n, m);
                let b0 = rng.matrix(rows, 2, rows);
                let (mut a, mut b) = (a0.clone(), b0.clone());
                let (mut ar, mut br) = (a0.clone(), b0.clone());
                let got = ours(&cfg, trans, (m, n, 2), &mut a, m, &mut b, rows, 100);
                let want = reference(trans, (m, n, 2), &mut ar, m, &mut br, rows, 100);
                assert_eq!((got.info, got.work1.to_bits()), (want.info, want.work1.to_bits()));
                assert_eq!((a, b), (ar, br));
            }
        }
    }
}

/// xGELS in the four types through the generic entry, against the backend's routine.
#[cfg(test)]
mod typed_tests {
    use super::*;
    use crate::algo::testutil::{rand, raw, rel, same_outside, Rng};
    use crate::error::info_of;
    use crate::scalar::{c32, c64};

    fn host(nb: usize) -> Config {
        let mut c = Config::with_threads(3);
        c.min_n = Some(0);
        c.nb = Some(nb);
        c
    }

    /// Tall and wide A, TRANS 'N' and the type's adjoint (lower case too), tiles not dividing
    /// the matrix: X within a few n·ε·(a modest condition) of the backend's, for m ≥ n the
    /// factor in A too; WORK(1) as LAPACK's; nothing written outside A and B's max(m, n)×NRHS;
    /// the same bits twice; the other TRANS refused as argument 1; a zero diagonal's INFO;
    /// queries as the backend's.
    fn gels_entries<T: OpElem>() {
        let _blas = crate::backend::BlasThreadsGuard::new();
        let name = std::any::type_name::<T>();
        let pad = T::from_parts(-321.25, 4.5);
        for (m, n, nrhs, nb) in
            [(37usize, 23usize, 5usize, 5usize), (23, 37, 4, 5), (20, 20, 3, 3), (9, 4, 2, 2), (4, 9, 1, 2)]
        {
            for tr in [b'N', T::ADJOINT, T::ADJOINT.to_ascii_lowercase()] {
                let what = format!("{name} trans {} m {m} n {n} nrhs {nrhs} nb {nb}", tr as char);
                let (lda, rows) = (m + 2, m.max(n));
                let ldb = rows + 1;
                let (mi, ni, ri, lai, lbi) = (m as i32, n as i32, nrhs as i32, lda as i32, ldb as i32);
                let mut rng = Rng::new((m * 7 + n * 3 + tr as usize) as u64);
                let mut a0 = rand::<T>(&mut rng, m, n, lda, pad);
                // Well conditioned: a strong diagonal.
                for i in 0..m.min(n) {
                    a0[i + i * lda] = a0[i + i * lda].add(T::from_f64(4.0));
                }
                let b0 = rand::<T>(&mut rng, rows, nrhs, ldb, pad);
                let lwork = (m.min(n) + m.min(n).max(nrhs)) as i32;
                let (mut fa, mut fb, mut fw) = (a0.clone(), b0.clone(), vec![T::zero(); 64 * rows]);
                let lw = fw.len() as i32;
                assert_eq!(
                    forward::gels(tr, mi, ni, ri, raw(&mut fa), lai, raw(&mut fb), lbi, raw(&mut fw), lw),
                    0
                );
                let mut runs = Vec::new();
                for _ in 0..2 {
                    let (mut a, mut b, mut w) = (a0.clone(), b0.clone(), vec![pad; lwork as usize + 1]);
                    let r = gels(
                        &host(nb),
                        tr,
                        mi,
                        ni,
                        ri,
                        raw(&mut a),
                        lai,
                        raw(&mut b),
                        lbi,
                        raw(&mut w),
                        lwork,
                    );
                    assert_eq!(r, Ok(()), "{what}");
                    assert_eq!(crate::api::last_path(), "tiles");
                    assert_eq!(w[0], fw[0], "{what}: WORK(1)");
                    assert!(w[1..].iter().all(|&x| x == pad), "{what}: WORK past WORK(1) written");
                    runs.push((a, b));
                }
                assert!(runs[0] == runs[1], "{what}: the bits differ between two calls");
                let (a, b) = &runs[0];
                let tol = 200.0 * rows as f64 * T::eps();
                // A least-squares solution is X's first n rows (the rows after it hold Qᴴ·B's
                // tail, which depends on how Q is represented: only its column norms, the
                // residuals, are LAPACK's); a minimum-norm one is all max(m, n) rows.
                let least_squares = (m >= n) == (tr == b'N');
                let xrows = if least_squares { m.min(n) } else { rows };
                let (mut x, mut fx) = (Vec::new(), Vec::new());
                for j in 0..nrhs {
                    x.extend_from_slice(&b[j * ldb..j * ldb + xrows]);
                    fx.extend_from_slice(&fb[j * ldb..j * ldb + xrows]);
                    if least_squares {
                        let tail = |v: &[T]| {
                            crate::algo::testutil::fnorm(
                                &v[j * ldb + xrows..j * ldb + rows],
                                rows - xrows,
                                1,
                                1,
                            )
                        };
                        let (r, fr) = (tail(b), tail(&fb));
                        assert!(
                            (r - fr).abs() <= tol * fr.max(1.0),
                            "{what}: residual {r} against the backend's {fr}"
                        );
                    }
                }
                assert!(rel(&x, &fx) <= tol, "{what}: X differs from the backend's by {}", rel(&x, &fx));
                if m >= n {
                    assert!(rel(a, &fa) <= tol, "{what}: A differs from the backend's by {}", rel(a, &fa));
                }
                assert!(same_outside(&a0, a, m, n, lda, None), "{what}: written outside A");
                assert!(same_outside(&b0, b, rows, nrhs, ldb, None), "{what}: written outside B");
            }
        }
        // The other TRANS, a short LWORK, queries: the backend's INFO and WORK(1).
        let wrong = if T::COMPLEX { b'T' } else { b'C' };
        let a0 = rand::<T>(&mut Rng::new(2), 10, 6, 10, pad);
        let b0 = rand::<T>(&mut Rng::new(3), 10, 2, 10, pad);
        for (tr, m, n, lwork) in
            [(wrong, 10, 6, 100), (b'N', 10, 6, 3), (b'N', 10, 6, -1), (T::ADJOINT, 6, 10, -1)]
        {
            let what = format!("{name} trans {} m {m} n {n} lwork {lwork}", tr as char);
            let (mut a1, mut b1, mut w1) = (a0.clone(), b0.clone(), vec![pad; 100]);
            let (mut a2, mut b2, mut w2) = (a0.clone(), b0.clone(), vec![pad; 100]);
            let want = forward::gels(tr, m, n, 2, raw(&mut a1), 10, raw(&mut b1), 10, raw(&mut w1), lwork);
            let got = info_of(&gels(
                &host(4),
                tr,
                m,
                n,
                2,
                raw(&mut a2),
                10,
                raw(&mut b2),
                10,
                raw(&mut w2),
                lwork,
            ));
            assert_eq!(got, want, "{what}: INFO");
            assert!(a2 == a0 && b2 == b0, "{what}: A or B written");
            if want != -1 {
                assert_eq!(w1[0], w2[0], "{what}: WORK(1)");
            }
        }
        // An exactly zero column: the backend's INFO.
        let mut z = rand::<T>(&mut Rng::new(4), 12, 7, 12, pad);
        (0..12).for_each(|i| z[i + 3 * 12] = T::zero());
        let (mut a1, mut b1, mut w1) = (z.clone(), b0.clone(), vec![pad; 100]);
        let (mut a2, mut b2, mut w2) = (z.clone(), b0.clone(), vec![pad; 100]);
        let want = forward::gels(b'N', 12, 7, 1, raw(&mut a1), 12, raw(&mut b1), 12, raw(&mut w1), 100);
        let got =
            info_of(&gels(&host(3), b'N', 12, 7, 1, raw(&mut a2), 12, raw(&mut b2), 12, raw(&mut w2), 100));
        assert!(want > 0 && got == want, "{name}: zero column INFO {got} against {want}");
    }

    #[test]
    fn gels_in_every_type_matches_the_backend() {
        gels_entries::<f32>();
        gels_entries::<f64>();
        gels_entries::<c32>();
        gels_entries::<c64>();
    }
}
