//! Whole-process tests of the exported symbols (`hetla::abi::*_`), called as C or Fortran would
//! call them, on the edge cases: N = 0 and 1, LDA > M with the rows past M checked untouched,
//! INFO on matrices that are not positive definite or singular equal to the backend's
//! (`hetla::backend::lapack`, the next LAPACK in the process), LAPACK's argument errors as
//! INFO = -position, workspace queries and minimal workspaces, and four threads calling at once.
//!
//! The configuration is read from the environment once per process, so every test first calls
//! [`setup`], which forces the tile path with tiny tiles (HETLA_MIN_N=0, HETLA_NB=5) before any
//! call can read it. Results are judged by residuals (a few n·eps) or against the backend's
//! answer where LAPACK's output is unique (the Cholesky factor; DGEQRF's reflectors and TAU).

use hetla::abi;
use hetla::backend::lapack as bk;
use std::ffi::c_char;
use std::sync::Once;

/// Forces the tile path with 5×5 tiles and three workers for every call in this process.
fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Before any hetla call in this process (all tests call setup first, and Once blocks
        // them until this is done), so nothing reads the environment concurrently.
        std::env::set_var("HETLA_MIN_N", "0");
        std::env::set_var("HETLA_NB", "5");
        std::env::set_var("HETLA_NUM_THREADS", "3");
    });
}

const GUARD: f64 = -4242.5;

/// Seeded generator (splitmix64), uniform in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 * (1.0 / (1u64 << 52) as f64) - 1.0
    }

    /// An ld×n column-major array: random m×n part, GUARD in rows m..ld.
    fn matrix(&mut self, m: usize, n: usize, ld: usize) -> Vec<f64> {
        let mut a = vec![GUARD; ld * n.max(1)];
        for j in 0..n {
            for i in 0..m {
                a[i + j * ld] = self.next();
            }
        }
        a
    }

    /// G·Gᵀ + n·I, symmetric positive definite, in an ld×n array.
    fn spd(&mut self, n: usize, ld: usize) -> Vec<f64> {
        let g = self.matrix(n, n, n);
        let mut a = vec![GUARD; ld * n.max(1)];
        for j in 0..n {
            for i in 0..n {
                let s: f64 = (0..n).map(|k| g[i + k * n] * g[j + k * n]).sum();
                a[i + j * ld] = s + if i == j { n as f64 } else { 0.0 };
            }
        }
        a
    }
}

fn eps() -> f64 {
    f64::EPSILON
}

fn rows_past_m_untouched(a: &[f64], m: usize, n: usize, ld: usize) -> bool {
    (0..n).all(|j| (m..ld).all(|i| a[i + j * ld] == GUARD))
}

fn norm1(a: &[f64], m: usize, n: usize, ld: usize) -> f64 {
    (0..n).map(|j| (0..m).map(|i| a[i + j * ld].abs()).sum::<f64>()).fold(0.0, f64::max)
}

fn c(x: u8) -> *const c_char {
    bk::ch(x)
}

// ---- thin callers of the exported symbols and of the backend ----

fn potrf(uplo: u8, n: i32, a: &mut [f64], lda: i32) -> i32 {
    let mut info = -99;
    // SAFETY: `a` holds lda×n elements (or is a valid pointer when n = 0); scalars are locals.
    unsafe { abi::dpotrf_(c(uplo), &n, a.as_mut_ptr(), &lda, &mut info, 1) };
    info
}

fn ref_potrf(uplo: u8, n: i32, a: &mut [f64], lda: i32) -> i32 {
    let mut info = -99;
    // SAFETY: as in `potrf`, on the backend's routine.
    unsafe { bk::dpotrf(c(uplo), &n, a.as_mut_ptr(), &lda, &mut info, 1) };
    info
}

fn getrf(m: i32, n: i32, a: &mut [f64], lda: i32, ipiv: &mut [i32]) -> i32 {
    let mut info = -99;
    // SAFETY: `a` holds lda×n elements, `ipiv` min(m,n).
    unsafe { abi::dgetrf_(&m, &n, a.as_mut_ptr(), &lda, ipiv.as_mut_ptr(), &mut info) };
    info
}

fn ref_getrf(m: i32, n: i32, a: &mut [f64], lda: i32, ipiv: &mut [i32]) -> i32 {
    let mut info = -99;
    // SAFETY: as in `getrf`.
    unsafe { bk::dgetrf(&m, &n, a.as_mut_ptr(), &lda, ipiv.as_mut_ptr(), &mut info) };
    info
}

fn geqrf(m: i32, n: i32, a: &mut [f64], lda: i32, tau: &mut [f64], work: &mut [f64], lwork: i32) -> i32 {
    let mut info = -99;
    // SAFETY: `a` lda×n, `tau` min(m,n), `work` max(1,lwork) elements.
    unsafe {
        abi::dgeqrf_(&m, &n, a.as_mut_ptr(), &lda, tau.as_mut_ptr(), work.as_mut_ptr(), &lwork, &mut info)
    };
    info
}

#[allow(clippy::too_many_arguments)]
fn gels(
    trans: u8,
    m: i32,
    n: i32,
    nrhs: i32,
    a: &mut [f64],
    lda: i32,
    b: &mut [f64],
    ldb: i32,
    work: &mut [f64],
    lwork: i32,
) -> i32 {
    let mut info = -99;
    // SAFETY: `a` lda×n, `b` ldb×nrhs, `work` max(1,lwork) elements.
    unsafe {
        abi::dgels_(
            c(trans),
            &m,
            &n,
            &nrhs,
            a.as_mut_ptr(),
            &lda,
            b.as_mut_ptr(),
            &ldb,
            work.as_mut_ptr(),
            &lwork,
            &mut info,
            1,
        )
    };
    info
}

fn gesv(n: i32, nrhs: i32, a: &mut [f64], lda: i32, ipiv: &mut [i32], b: &mut [f64], ldb: i32) -> i32 {
    let mut info = -99;
    // SAFETY: `a` lda×n, `ipiv` n, `b` ldb×nrhs elements.
    unsafe {
        abi::dgesv_(&n, &nrhs, a.as_mut_ptr(), &lda, ipiv.as_mut_ptr(), b.as_mut_ptr(), &ldb, &mut info)
    };
    info
}

fn posv(uplo: u8, n: i32, nrhs: i32, a: &mut [f64], lda: i32, b: &mut [f64], ldb: i32) -> i32 {
    let mut info = -99;
    // SAFETY: `a` lda×n, `b` ldb×nrhs elements.
    unsafe { abi::dposv_(c(uplo), &n, &nrhs, a.as_mut_ptr(), &lda, b.as_mut_ptr(), &ldb, &mut info, 1) };
    info
}

#[allow(clippy::too_many_arguments)]
fn getrs(trans: u8, n: i32, nrhs: i32, a: &[f64], lda: i32, ipiv: &[i32], b: &mut [f64], ldb: i32) -> i32 {
    let mut info = -99;
    // SAFETY: `a` lda×n, `ipiv` n, `b` ldb×nrhs elements.
    unsafe {
        abi::dgetrs_(c(trans), &n, &nrhs, a.as_ptr(), &lda, ipiv.as_ptr(), b.as_mut_ptr(), &ldb, &mut info, 1)
    };
    info
}

fn potrs(uplo: u8, n: i32, nrhs: i32, a: &[f64], lda: i32, b: &mut [f64], ldb: i32) -> i32 {
    let mut info = -99;
    // SAFETY: `a` lda×n, `b` ldb×nrhs elements.
    unsafe { abi::dpotrs_(c(uplo), &n, &nrhs, a.as_ptr(), &lda, b.as_mut_ptr(), &ldb, &mut info, 1) };
    info
}

// ---- residuals ----

/// ‖P·A − L·U‖₁ / (max(m,n)·‖A‖₁·eps), with IPIV's interchanges applied to A in order; panics
/// when an IPIV entry is outside [i, m].
fn lu_ratio(m: usize, n: usize, a: &[f64], f: &[f64], ld: usize, ipiv: &[i32]) -> f64 {
    let k = m.min(n);
    let mut pa: Vec<f64> =
        (0..n).flat_map(|j| (0..m).map(move |i| (i, j))).map(|(i, j)| a[i + j * ld]).collect();
    for (i, &p) in ipiv.iter().enumerate().take(k) {
        let p = p as usize - 1;
        assert!(p >= i && p < m, "IPIV({}) = {} outside [{}, {m}]", i + 1, p + 1, i + 1);
        for j in 0..n {
            pa.swap(i + j * m, p + j * m);
        }
    }
    for j in 0..n {
        for i in 0..m {
            let s: f64 = (0..=i.min(j).min(k - 1))
                .map(|t| if t == i { f[t + j * ld] } else { f[i + t * ld] * f[t + j * ld] })
                .sum();
            pa[i + j * m] -= s;
        }
    }
    norm1(&pa, m, n, m) / (m.max(n) as f64 * norm1(a, m, n, ld) * eps())
}

/// ‖B − A·X‖₁ / (n·‖A‖₁·‖X‖₁·eps) for n×n A.
fn solve_ratio(n: usize, nrhs: usize, a: &[f64], lda: usize, x: &[f64], b: &[f64], ldb: usize) -> f64 {
    let mut r = vec![0.0; n * nrhs];
    for j in 0..nrhs {
        for i in 0..n {
            r[i + j * n] = b[i + j * ldb] - (0..n).map(|k| a[i + k * lda] * x[k + j * ldb]).sum::<f64>();
        }
    }
    norm1(&r, n, nrhs, n) / (n as f64 * norm1(a, n, n, lda) * norm1(x, n, nrhs, ldb) * eps())
}

// ---- the tests ----

#[test]
fn empty_and_one_by_one() {
    setup();
    let mut a = [9.0f64];
    let mut b = [3.0f64];
    let mut ipiv = [0i32];
    let mut tau = [7.0f64];
    let mut work = [0.0f64; 8];
    // N = 0 (or M = 0): INFO = 0, nothing written.
    assert_eq!(potrf(b'L', 0, &mut a, 1), 0);
    assert_eq!(getrf(0, 1, &mut a, 1, &mut ipiv), 0);
    assert_eq!(getrf(1, 0, &mut a, 1, &mut ipiv), 0);
    assert_eq!(geqrf(0, 0, &mut a, 1, &mut tau, &mut work, 1), 0);
    assert_eq!(gesv(0, 1, &mut a, 1, &mut ipiv, &mut b, 1), 0);
    assert_eq!(posv(b'U', 0, 1, &mut a, 1, &mut b, 1), 0);
    assert_eq!(gels(b'N', 0, 0, 1, &mut a, 1, &mut b, 1, &mut work, 8), 0);
    assert_eq!((a[0], b[0], tau[0]), (9.0, 3.0, 7.0), "a size-0 call wrote memory");

    // 1×1: the factors are the obvious ones.
    assert_eq!(potrf(b'U', 1, &mut a, 1), 0);
    assert_eq!(a[0], 3.0);
    let mut a = [4.0];
    assert_eq!(getrf(1, 1, &mut a, 1, &mut ipiv), 0);
    assert_eq!((a[0], ipiv[0]), (4.0, 1));
    let mut a = [-2.0];
    assert_eq!(geqrf(1, 1, &mut a, 1, &mut tau, &mut work, 8), 0);
    assert_eq!((a[0], tau[0]), (-2.0, 0.0), "DLARFG leaves a 1×1 column alone with TAU = 0");
    let (mut a, mut b) = ([4.0], [2.0]);
    assert_eq!(gesv(1, 1, &mut a, 1, &mut ipiv, &mut b, 1), 0);
    assert_eq!(b[0], 0.5);
    let (mut a, mut b) = ([4.0], [2.0]);
    assert_eq!(posv(b'L', 1, 1, &mut a, 1, &mut b, 1), 0);
    assert_eq!(b[0], 0.5);
    let (mut a, mut b) = ([4.0], [2.0]);
    assert_eq!(gels(b'N', 1, 1, 1, &mut a, 1, &mut b, 1, &mut work, 8), 0);
    assert!((b[0] - 0.5).abs() <= 4.0 * eps());
    // 1×1 zero pivot.
    let mut a = [0.0];
    assert_eq!(getrf(1, 1, &mut a, 1, &mut ipiv), 1);
    assert_eq!(potrf(b'L', 1, &mut [0.0], 1), 1);
}

#[test]
fn potrf_matches_backend_with_wide_lda() {
    setup();
    let mut rng = Rng(11);
    for &uplo in b"LU" {
        for n in [2usize, 6, 13, 23] {
            let ld = n + 4;
            let a = rng.spd(n, ld);
            let (mut f, mut r) = (a.clone(), a.clone());
            assert_eq!(potrf(uplo, n as i32, &mut f, ld as i32), 0);
            assert_eq!(ref_potrf(uplo, n as i32, &mut r, ld as i32), 0);
            assert!(rows_past_m_untouched(&f, n, n, ld), "dpotrf n={n}: rows past N written");
            // The Cholesky factor is unique: ours equals the backend's to working accuracy, and
            // the triangle that is not referenced is left as it was.
            let scale = norm1(&a, n, n, ld).sqrt();
            for j in 0..n {
                for i in 0..n {
                    let in_tri = if uplo == b'L' { i >= j } else { i <= j };
                    let (x, y) = (f[i + j * ld], if in_tri { r[i + j * ld] } else { a[i + j * ld] });
                    assert!(
                        (x - y).abs() <= 100.0 * n as f64 * eps() * scale,
                        "dpotrf {} n={n} ({i},{j}): {x} vs {y}",
                        uplo as char
                    );
                }
            }
        }
    }
}

#[test]
fn potrf_info_matches_backend_on_indefinite_matrices() {
    setup();
    let mut rng = Rng(12);
    for &uplo in b"LU" {
        let n = 23;
        let ld = 25;
        let a = rng.spd(n, ld);
        for k in [0usize, 4, 5, 11, 22] {
            let mut f = a.clone();
            f[k + k * ld] = -1.0;
            let mut r = f.clone();
            let info = potrf(uplo, n as i32, &mut f, ld as i32);
            let want = ref_potrf(uplo, n as i32, &mut r, ld as i32);
            assert_eq!(info, want, "dpotrf {} not SPD at {}", uplo as char, k + 1);
            assert_eq!(info, k as i32 + 1);
            assert!(rows_past_m_untouched(&f, n, n, ld));
        }
    }
}

#[test]
fn getrf_residual_and_singular_info() {
    setup();
    let mut rng = Rng(13);
    for (m, n) in [(17usize, 17usize), (23, 9), (9, 23), (1, 7), (7, 1)] {
        let ld = m + 3;
        let a = rng.matrix(m, n, ld);
        let mut f = a.clone();
        let mut ipiv = vec![0; m.min(n)];
        assert_eq!(getrf(m as i32, n as i32, &mut f, ld as i32, &mut ipiv), 0);
        assert!(rows_past_m_untouched(&f, m, n, ld), "dgetrf {m}x{n}: rows past M written");
        let ratio = lu_ratio(m, n, &a, &f, ld, &ipiv);
        assert!(ratio < 30.0, "dgetrf {m}x{n}: residual ratio {ratio}");

        // An exactly zero column c: INFO as the backend's (c+1 when c < min(m,n)).
        let c = n / 2;
        let mut z = a.clone();
        (0..m).for_each(|i| z[i + c * ld] = 0.0);
        let mut zr = z.clone();
        let mut ipr = ipiv.clone();
        let info = getrf(m as i32, n as i32, &mut z, ld as i32, &mut ipiv);
        let want = ref_getrf(m as i32, n as i32, &mut zr, ld as i32, &mut ipr);
        assert_eq!(info, want, "dgetrf {m}x{n} with column {} zero", c + 1);
    }
}

#[test]
fn geqrf_reflectors_match_backend_and_minimal_workspace() {
    setup();
    let mut rng = Rng(14);
    for (m, n) in [(19usize, 11usize), (12, 12), (8, 21), (31, 4)] {
        let (ld, k) = (m + 2, m.min(n));
        let a = rng.matrix(m, n, ld);
        // Workspace query, then the minimal LWORK = N.
        let mut q = [0.0];
        let mut tau = vec![0.0; k];
        let mut f = a.clone();
        assert_eq!(geqrf(m as i32, n as i32, &mut f, ld as i32, &mut tau, &mut q, -1), 0);
        assert!(q[0] >= n as f64, "dgeqrf {m}x{n}: LWORK query {} < N", q[0]);
        assert_eq!(f, a, "a workspace query must not touch A");
        let mut work = vec![0.0; n];
        assert_eq!(geqrf(m as i32, n as i32, &mut f, ld as i32, &mut tau, &mut work, n as i32), 0);
        assert!(rows_past_m_untouched(&f, m, n, ld));
        // LAPACK's Householder QR output (R, the reflectors below the diagonal, TAU) is unique
        // for these full-rank matrices: it must equal the backend's.
        let mut r = a.clone();
        let mut rtau = vec![0.0; k];
        let mut rwork = vec![0.0; 64 * n];
        let mut info = -99;
        // SAFETY: arrays sized as LAPACK documents.
        unsafe {
            bk::dgeqrf(
                &(m as i32),
                &(n as i32),
                r.as_mut_ptr(),
                &(ld as i32),
                rtau.as_mut_ptr(),
                rwork.as_mut_ptr(),
                &(64 * n as i32),
                &mut info,
            )
        };
        assert_eq!(info, 0);
        let tol = 1e3 * m.max(n) as f64 * eps();
        for j in 0..n {
            for i in 0..m {
                let (x, y) = (f[i + j * ld], r[i + j * ld]);
                assert!((x - y).abs() <= tol * (1.0 + y.abs()), "dgeqrf {m}x{n} ({i},{j}): {x} vs {y}");
            }
        }
        for (t, (x, y)) in tau.iter().zip(&rtau).enumerate() {
            assert!((x - y).abs() <= tol, "dgeqrf {m}x{n} TAU({}): {x} vs {y}", t + 1);
        }
    }
}

#[test]
fn solvers_with_wide_leading_dimensions() {
    setup();
    let mut rng = Rng(15);
    for n in [3usize, 11, 24] {
        let (lda, ldb, nrhs) = (n + 3, n + 2, 4usize);
        let (ni, nr) = (n as i32, nrhs as i32);
        let a = rng.matrix(n, n, lda);
        let b = rng.matrix(n, nrhs, ldb);
        let mut ipiv = vec![0; n];

        let (mut f, mut x) = (a.clone(), b.clone());
        assert_eq!(gesv(ni, nr, &mut f, lda as i32, &mut ipiv, &mut x, ldb as i32), 0);
        assert!(solve_ratio(n, nrhs, &a, lda, &x, &b, ldb) < 30.0, "dgesv n={n}");
        assert!(rows_past_m_untouched(&x, n, nrhs, ldb) && rows_past_m_untouched(&f, n, n, lda));
        let mut y = b.clone();
        assert_eq!(getrs(b'N', ni, nr, &f, lda as i32, &ipiv, &mut y, ldb as i32), 0);
        assert!(solve_ratio(n, nrhs, &a, lda, &y, &b, ldb) < 30.0, "dgetrs n={n}");

        let s = rng.spd(n, lda);
        let (mut g, mut z) = (s.clone(), b.clone());
        assert_eq!(posv(b'U', ni, nr, &mut g, lda as i32, &mut z, ldb as i32), 0);
        assert!(solve_ratio(n, nrhs, &s, lda, &z, &b, ldb) < 30.0, "dposv n={n}");
        let mut w = b.clone();
        assert_eq!(potrs(b'U', ni, nr, &g, lda as i32, &mut w, ldb as i32), 0);
        assert!(solve_ratio(n, nrhs, &s, lda, &w, &b, ldb) < 30.0, "dpotrs n={n}");

        // Least squares with the minimal workspace, and the normal equations' residual.
        let m = 2 * n + 1;
        let (lda2, ldb2) = (m + 1, m + 2);
        let a2 = rng.matrix(m, n, lda2);
        let b2 = rng.matrix(m, nrhs, ldb2);
        let (mut f2, mut x2) = (a2.clone(), b2.clone());
        let lwork = n + n.max(nrhs);
        let mut work = vec![0.0; lwork];
        assert_eq!(
            gels(b'N', m as i32, ni, nr, &mut f2, lda2 as i32, &mut x2, ldb2 as i32, &mut work, lwork as i32),
            0
        );
        let mut worst: f64 = 0.0;
        for j in 0..nrhs {
            let r: Vec<f64> = (0..m)
                .map(|i| b2[i + j * ldb2] - (0..n).map(|k| a2[i + k * lda2] * x2[k + j * ldb2]).sum::<f64>())
                .collect();
            for k in 0..n {
                worst = worst.max((0..m).map(|i| a2[i + k * lda2] * r[i]).sum::<f64>().abs());
            }
        }
        let ratio = worst / (m as f64 * norm1(&a2, m, n, lda2) * norm1(&b2, m, nrhs, ldb2) * eps());
        assert!(ratio < 30.0, "dgels {m}x{n}: Aᵀ·r ratio {ratio}");
    }
}

#[test]
fn argument_errors_return_minus_position() {
    setup();
    let mut a = vec![0.0; 64];
    let mut b = vec![0.0; 64];
    let mut ipiv = vec![0; 8];
    let mut tau = vec![0.0; 8];
    let mut work = vec![0.0; 64];
    assert_eq!(potrf(b'X', 3, &mut a, 3), -1);
    assert_eq!(potrf(b'L', -1, &mut a, 1), -2);
    assert_eq!(potrf(b'U', 5, &mut a, 4), -4);
    assert_eq!(getrf(-1, 2, &mut a, 1, &mut ipiv), -1);
    assert_eq!(getrf(2, -3, &mut a, 2, &mut ipiv), -2);
    assert_eq!(getrf(6, 2, &mut a, 5, &mut ipiv), -4);
    assert_eq!(geqrf(-2, 2, &mut a, 1, &mut tau, &mut work, 64), -1);
    assert_eq!(geqrf(2, -2, &mut a, 2, &mut tau, &mut work, 64), -2);
    assert_eq!(geqrf(4, 4, &mut a, 3, &mut tau, &mut work, 64), -4);
    assert_eq!(geqrf(4, 4, &mut a, 4, &mut tau, &mut work, 3), -7);
    assert_eq!(gesv(-1, 1, &mut a, 1, &mut ipiv, &mut b, 1), -1);
    assert_eq!(gesv(2, -1, &mut a, 2, &mut ipiv, &mut b, 2), -2);
    assert_eq!(gesv(4, 1, &mut a, 3, &mut ipiv, &mut b, 4), -4);
    assert_eq!(gesv(4, 1, &mut a, 4, &mut ipiv, &mut b, 3), -7);
    assert_eq!(posv(b'?', 2, 1, &mut a, 2, &mut b, 2), -1);
    assert_eq!(posv(b'L', 2, -1, &mut a, 2, &mut b, 2), -3);
    assert_eq!(posv(b'L', 4, 1, &mut a, 4, &mut b, 3), -7);
    assert_eq!(getrs(b'Z', 2, 1, &a, 2, &ipiv, &mut b, 2), -1);
    assert_eq!(getrs(b'T', 4, 1, &a, 3, &ipiv, &mut b, 4), -5);
    assert_eq!(potrs(b'L', 4, 1, &a, 4, &mut b, 2), -7);
    assert_eq!(gels(b'Q', 2, 2, 1, &mut a, 2, &mut b, 2, &mut work, 64), -1);
    assert_eq!(gels(b'N', -1, 2, 1, &mut a, 1, &mut b, 2, &mut work, 64), -2);
    assert_eq!(gels(b'N', 5, 2, 1, &mut a, 5, &mut b, 4, &mut work, 64), -8);
    assert_eq!(gels(b'N', 5, 2, 1, &mut a, 5, &mut b, 5, &mut work, 1), -10);
    assert!(a.iter().chain(&b).all(|&x| x == 0.0), "a rejected call wrote memory");
}

#[test]
fn four_threads_at_once() {
    setup();
    let handles: Vec<_> = (0..4u64)
        .map(|t| {
            std::thread::spawn(move || {
                let mut rng = Rng(100 + t);
                for round in 0..4 {
                    let n = 17 + 3 * t as usize + round;
                    let ld = n + 1;
                    // Cholesky: compare with the backend's unique factor.
                    let a = rng.spd(n, ld);
                    let (mut f, mut r) = (a.clone(), a.clone());
                    assert_eq!(potrf(b'L', n as i32, &mut f, ld as i32), 0);
                    assert_eq!(ref_potrf(b'L', n as i32, &mut r, ld as i32), 0);
                    for j in 0..n {
                        for i in j..n {
                            assert!((f[i + j * ld] - r[i + j * ld]).abs() <= 1e-10 * (n as f64).sqrt());
                        }
                    }
                    // LU: the residual.
                    let (m, nn) = (n + 4, n - 2);
                    let g = rng.matrix(m, nn, m + 2);
                    let mut gf = g.clone();
                    let mut ipiv = vec![0; nn];
                    assert_eq!(getrf(m as i32, nn as i32, &mut gf, (m + 2) as i32, &mut ipiv), 0);
                    assert!(lu_ratio(m, nn, &g, &gf, m + 2, &ipiv) < 30.0, "thread {t} dgetrf");
                    // QR: R'R = A'A is enough to catch a mixed-up result from another thread.
                    let mut q = g.clone();
                    let mut tau = vec![0.0; nn];
                    let mut work = vec![0.0; 64 * nn];
                    assert_eq!(
                        geqrf(
                            m as i32,
                            nn as i32,
                            &mut q,
                            (m + 2) as i32,
                            &mut tau,
                            &mut work,
                            (64 * nn) as i32
                        ),
                        0
                    );
                    let ld2 = m + 2;
                    for j in 0..nn {
                        for i in 0..=j {
                            let ata: f64 = (0..m).map(|k| g[k + i * ld2] * g[k + j * ld2]).sum();
                            let rtr: f64 = (0..=i).map(|k| q[k + i * ld2] * q[k + j * ld2]).sum();
                            assert!(
                                (ata - rtr).abs() <= 1e-11 * m as f64,
                                "thread {t} dgeqrf ({i},{j}): {ata} vs {rtr}"
                            );
                        }
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a calling thread panicked");
    }
}

/// `?potrs_` as exported (A read-only).
type PotrsFn<T> = unsafe extern "C" fn(
    *const c_char,
    *const i32,
    *const i32,
    *const T,
    *const i32,
    *mut T,
    *const i32,
    *mut i32,
    usize,
);
/// `?posv_` as exported.
type PosvFn<T> = unsafe extern "C" fn(
    *const c_char,
    *const i32,
    *const i32,
    *mut T,
    *const i32,
    *mut T,
    *const i32,
    *mut i32,
    usize,
);

/// SPOTRS/SPOSV, CPOTRS/CPOSV, ZPOTRS/ZPOSV through the exports on 5×5 tiles: the solution as
/// the backend's within a few n·eps (complex A Hermitian), rows past N untouched, A untouched by
/// ?POTRS, INFO of a matrix that is not positive definite (a negative real pivot) and of each
/// bad argument, in LAPACK's order, as LAPACK gives them.
fn other_type_solves<T: hetla::scalar::Scalar>(potrs: PotrsFn<T>, posv: PosvFn<T>) {
    let name = std::any::type_name::<T>();
    let pad = T::from_parts(GUARD, -GUARD);
    let rel = |x: &[T], y: &[T]| {
        let (mut d, mut s) = (0.0f64, 0.0f64);
        for (x, y) in x.iter().zip(y) {
            let (xr, xi, yr, yi): (f64, f64, f64, f64) =
                (x.re().into(), x.im().into(), y.re().into(), y.im().into());
            d += (xr - yr).powi(2) + (xi - yi).powi(2);
            s += yr * yr + yi * yi;
        }
        (d / s).sqrt()
    };
    let mut rng = Rng(7);
    for (n, nrhs) in [(17usize, 2usize), (11, 6)] {
        let (lda, ldb) = (n + 2, n + 3);
        let (ni, ri, lai, lbi) = (n as i32, nrhs as i32, lda as i32, ldb as i32);
        let mut a = vec![pad; lda * n];
        for j in 0..n {
            a[j + j * lda] = T::from_f64(n as f64 + rng.next());
            for i in j + 1..n {
                let re = rng.next();
                let x = T::from_parts(re, rng.next());
                a[i + j * lda] = x;
                a[j + i * lda] = x.conj();
            }
        }
        let mut b = vec![pad; ldb * nrhs];
        for j in 0..nrhs {
            for i in 0..n {
                let re = rng.next();
                b[i + j * ldb] = T::from_parts(re, rng.next());
            }
        }
        for uplo in [b'L', b'U'] {
            let (mut fa, mut xb, mut info) = (a.clone(), b.clone(), -99);
            // SAFETY (every call here): `fa`/`f` lda×n, `xb`/`x` ldb×nrhs elements.
            unsafe {
                bk::posv::<T>(c(uplo), &ni, &ri, fa.as_mut_ptr(), &lai, xb.as_mut_ptr(), &lbi, &mut info)
            };
            assert_eq!(info, 0);
            let (mut f, mut x) = (a.clone(), b.clone());
            unsafe { posv(c(uplo), &ni, &ri, f.as_mut_ptr(), &lai, x.as_mut_ptr(), &lbi, &mut info, 1) };
            assert_eq!(info, 0, "{name} posv");
            assert_eq!(hetla::api::last_path(), "tiles", "{name} posv");
            let tol = 4.0 * n as f64 * T::eps();
            assert!(
                rel(&f, &fa) <= tol && rel(&x, &xb) <= tol,
                "{name} posv {}: {} {}",
                uplo as char,
                rel(&f, &fa),
                rel(&x, &xb)
            );
            let past_n = |v: &[T], ld: usize| v.iter().enumerate().all(|(p, &y)| p % ld < n || y == pad);
            assert!(past_n(&f, lda) && past_n(&x, ldb), "{name} posv: rows past N written");
            let mut want = b.clone();
            unsafe {
                bk::potrs::<T>(c(uplo), &ni, &ri, fa.as_ptr(), &lai, want.as_mut_ptr(), &lbi, &mut info)
            };
            let mut x = b.clone();
            let f0 = fa.clone();
            unsafe { potrs(c(uplo), &ni, &ri, fa.as_ptr(), &lai, x.as_mut_ptr(), &lbi, &mut info, 1) };
            assert_eq!(info, 0, "{name} potrs");
            assert_eq!(hetla::api::last_path(), "tiles", "{name} potrs");
            assert!(fa == f0, "{name} potrs wrote A");
            assert!(
                rel(&x, &want) <= tol && past_n(&x, ldb),
                "{name} potrs {}: {}",
                uplo as char,
                rel(&x, &want)
            );
            // Not positive definite at 5.
            let mut bad = a.clone();
            bad[4 + 4 * lda] = T::from_parts(-1.0, 3.0);
            let (mut f, mut x) = (bad.clone(), b.clone());
            unsafe { posv(c(uplo), &ni, &ri, f.as_mut_ptr(), &lai, x.as_mut_ptr(), &lbi, &mut info, 1) };
            assert_eq!(info, 5, "{name} posv on a matrix not positive definite");
            assert!(x == b, "{name} posv wrote B after a failed factorization");
        }
    }
    let (mut a, mut b) = (vec![pad; 64], vec![pad; 64]);
    for (uplo, n, nrhs, lda, ldb, want) in [
        (b'?', -1, -1, 0, 0, -1),
        (b'L', -1, -1, 0, 0, -2),
        (b'U', 2, -1, 1, 1, -3),
        (b'L', 4, 1, 3, 3, -5),
        (b'L', 4, 1, 4, 3, -7),
    ] {
        let mut info = -99;
        unsafe { potrs(c(uplo), &n, &nrhs, a.as_ptr(), &lda, b.as_mut_ptr(), &ldb, &mut info, 1) };
        assert_eq!(info, want, "{name} potrs {}", uplo as char);
        unsafe { posv(c(uplo), &n, &nrhs, a.as_mut_ptr(), &lda, b.as_mut_ptr(), &ldb, &mut info, 1) };
        assert_eq!(info, want, "{name} posv {}", uplo as char);
    }
    assert!(a.iter().chain(&b).all(|&x| x == pad), "{name}: a rejected call wrote memory");
}

#[test]
fn single_and_complex_cholesky_solves() {
    setup();
    other_type_solves::<f32>(abi::spotrs_, abi::sposv_);
    other_type_solves::<hetla::scalar::c32>(abi::cpotrs_, abi::cposv_);
    other_type_solves::<hetla::scalar::c64>(abi::zpotrs_, abi::zposv_);
}

/// `?getrf_` as exported.
type GetrfFn<T> = unsafe extern "C" fn(*const i32, *const i32, *mut T, *const i32, *mut i32, *mut i32);
/// `?getrs_` as exported (A and IPIV read-only).
type GetrsFn<T> = unsafe extern "C" fn(
    *const c_char,
    *const i32,
    *const i32,
    *const T,
    *const i32,
    *const i32,
    *mut T,
    *const i32,
    *mut i32,
    usize,
);
/// `?gesv_` as exported.
type GesvFn<T> =
    unsafe extern "C" fn(*const i32, *const i32, *mut T, *const i32, *mut i32, *mut T, *const i32, *mut i32);

/// SGETRF/SGETRS/SGESV, CGETRF/CGETRS/CGESV, ZGETRF/ZGETRS/ZGESV through the exports on 5×5
/// tiles: the backend's IPIV, factors and solutions within a few n·eps (TRANS = N, T and C),
/// rows past M or N untouched, A and IPIV untouched by ?GETRS, INFO of an exactly singular
/// matrix (B then untouched) and of each bad argument, in LAPACK's order, as LAPACK gives them.
fn other_type_lu<T: hetla::scalar::Scalar>(getrf: GetrfFn<T>, getrs: GetrsFn<T>, gesv: GesvFn<T>) {
    // One backend thread for the backend's own calls here: OpenBLAS 0.3.21's threaded xGETRF
    // overflows a test thread's 2 MiB stack.
    let _blas = hetla::backend::BlasThreadsGuard::new();
    let name = std::any::type_name::<T>();
    let pad = T::from_parts(GUARD, -GUARD);
    let rel = |x: &[T], y: &[T]| {
        let (mut d, mut s) = (0.0f64, 0.0f64);
        for (x, y) in x.iter().zip(y) {
            let (xr, xi, yr, yi): (f64, f64, f64, f64) =
                (x.re().into(), x.im().into(), y.re().into(), y.im().into());
            d += (xr - yr).powi(2) + (xi - yi).powi(2);
            s += yr * yr + yi * yi;
        }
        (d / s).sqrt()
    };
    let mut rng = Rng(11);
    let mut random = |m: usize, n: usize, ld: usize| {
        let mut a = vec![pad; ld * n];
        for j in 0..n {
            for i in 0..m {
                let re = rng.next();
                a[i + j * ld] = T::from_parts(re, rng.next());
            }
        }
        a
    };
    let past =
        |v: &[T], rows: usize, ld: usize| v.iter().enumerate().all(|(p, &y)| p % ld < rows || y == pad);
    for (n, nrhs) in [(17usize, 2usize), (11, 6)] {
        let (lda, ldb) = (n + 2, n + 3);
        let (ni, ri, lai, lbi) = (n as i32, nrhs as i32, lda as i32, ldb as i32);
        let tol = 50.0 * n as f64 * T::eps();
        let a = random(n, n, lda);
        let b = random(n, nrhs, ldb);
        let (mut fa, mut fp, mut xb, mut info) = (a.clone(), vec![0i32; n], b.clone(), -99);
        // SAFETY (every call here): A lda×n, B ldb×nrhs, IPIV n elements.
        unsafe {
            bk::gesv::<T>(&ni, &ri, fa.as_mut_ptr(), &lai, fp.as_mut_ptr(), xb.as_mut_ptr(), &lbi, &mut info)
        };
        assert_eq!(info, 0);
        let (mut f, mut p, mut x) = (a.clone(), vec![0i32; n], b.clone());
        unsafe { gesv(&ni, &ri, f.as_mut_ptr(), &lai, p.as_mut_ptr(), x.as_mut_ptr(), &lbi, &mut info) };
        assert_eq!(info, 0, "{name} gesv");
        assert_eq!(hetla::api::last_path(), "tiles", "{name} gesv");
        assert_eq!(p, fp, "{name} gesv: ipiv");
        assert!(rel(&f, &fa) <= tol && rel(&x, &xb) <= tol, "{name} gesv: {} {}", rel(&f, &fa), rel(&x, &xb));
        assert!(past(&f, n, lda) && past(&x, n, ldb), "{name} gesv: rows past N written");
        for t in [b'N', b'T', b'C'] {
            let mut want = b.clone();
            unsafe {
                bk::getrs::<T>(
                    c(t),
                    &ni,
                    &ri,
                    fa.as_ptr(),
                    &lai,
                    fp.as_ptr(),
                    want.as_mut_ptr(),
                    &lbi,
                    &mut info,
                )
            };
            let (f0, p0, mut x) = (fa.clone(), fp.clone(), b.clone());
            unsafe {
                getrs(c(t), &ni, &ri, fa.as_ptr(), &lai, fp.as_ptr(), x.as_mut_ptr(), &lbi, &mut info, 1)
            };
            assert_eq!(info, 0, "{name} getrs {}", t as char);
            assert_eq!(hetla::api::last_path(), "tiles", "{name} getrs");
            assert!(fa == f0 && fp == p0, "{name} getrs wrote A or IPIV");
            assert!(
                rel(&x, &want) <= tol && past(&x, n, ldb),
                "{name} getrs {}: {}",
                t as char,
                rel(&x, &want)
            );
        }
        // Exactly singular at column 5.
        let mut bad = a.clone();
        (0..n).for_each(|i| bad[i + 4 * lda] = T::zero());
        let (mut f, mut x) = (bad.clone(), b.clone());
        unsafe { gesv(&ni, &ri, f.as_mut_ptr(), &lai, p.as_mut_ptr(), x.as_mut_ptr(), &lbi, &mut info) };
        assert_eq!(info, 5, "{name} gesv on a singular matrix");
        assert!(x == b, "{name} gesv wrote B after a singular factorization");
    }
    for (m, n) in [(17usize, 9usize), (9, 17), (1, 6)] {
        let lda = m + 3;
        let (mi, ni, lai) = (m as i32, n as i32, lda as i32);
        let a = random(m, n, lda);
        let k = m.min(n);
        let (mut fa, mut fp, mut f, mut p, mut info) =
            (a.clone(), vec![0i32; k], a.clone(), vec![0i32; k], -99);
        unsafe { bk::getrf::<T>(&mi, &ni, fa.as_mut_ptr(), &lai, fp.as_mut_ptr(), &mut info) };
        unsafe { getrf(&mi, &ni, f.as_mut_ptr(), &lai, p.as_mut_ptr(), &mut info) };
        assert_eq!(info, 0, "{name} getrf {m}x{n}");
        assert_eq!(hetla::api::last_path(), "tiles", "{name} getrf");
        assert_eq!(p, fp, "{name} getrf {m}x{n}: ipiv");
        let tol = 50.0 * m.max(n) as f64 * T::eps();
        assert!(rel(&f, &fa) <= tol && past(&f, m, lda), "{name} getrf {m}x{n}: {}", rel(&f, &fa));
    }
    let (mut a, mut b, mut ipiv) = (vec![pad; 64], vec![pad; 64], vec![-5i32; 8]);
    let mut info = -99;
    for (m, n, lda, want) in [(-1, -1, 0, -1), (2, -3, 2, -2), (6, 2, 5, -4)] {
        unsafe { getrf(&m, &n, a.as_mut_ptr(), &lda, ipiv.as_mut_ptr(), &mut info) };
        assert_eq!(info, want, "{name} getrf {m} {n} {lda}");
    }
    for (t, n, nrhs, lda, ldb, want) in [
        (b'Z', -1, -1, 0, 0, -1),
        (b'N', -1, -1, 0, 0, -2),
        (b'C', 2, -1, 1, 1, -3),
        (b'T', 4, 1, 3, 3, -5),
        (b'c', 4, 1, 4, 3, -8),
    ] {
        unsafe {
            getrs(c(t), &n, &nrhs, a.as_ptr(), &lda, ipiv.as_ptr(), b.as_mut_ptr(), &ldb, &mut info, 1)
        };
        assert_eq!(info, want, "{name} getrs {}", t as char);
    }
    for (n, nrhs, lda, ldb, want) in
        [(-1, -1, 0, 0, -1), (2, -1, 1, 1, -2), (4, 1, 3, 3, -4), (4, 1, 4, 3, -7)]
    {
        unsafe { gesv(&n, &nrhs, a.as_mut_ptr(), &lda, ipiv.as_mut_ptr(), b.as_mut_ptr(), &ldb, &mut info) };
        assert_eq!(info, want, "{name} gesv {n} {nrhs}");
    }
    assert!(a.iter().chain(&b).all(|&x| x == pad), "{name}: a rejected call wrote memory");
    assert!(ipiv.iter().all(|&x| x == -5), "{name}: a rejected call wrote IPIV");
}

#[test]
fn single_and_complex_lu() {
    setup();
    other_type_lu::<f32>(abi::sgetrf_, abi::sgetrs_, abi::sgesv_);
    other_type_lu::<hetla::scalar::c32>(abi::cgetrf_, abi::cgetrs_, abi::cgesv_);
    other_type_lu::<hetla::scalar::c64>(abi::zgetrf_, abi::zgetrs_, abi::zgesv_);
}

type GeqrfFn<T> =
    unsafe extern "C" fn(*const i32, *const i32, *mut T, *const i32, *mut T, *mut T, *const i32, *mut i32);
type GelsFn<T> = unsafe extern "C" fn(
    *const c_char,
    *const i32,
    *const i32,
    *const i32,
    *mut T,
    *const i32,
    *mut T,
    *const i32,
    *mut T,
    *const i32,
    *mut i32,
    usize,
);
type OrgqrFn<T> = unsafe extern "C" fn(
    *const i32,
    *const i32,
    *const i32,
    *mut T,
    *const i32,
    *const T,
    *mut T,
    *const i32,
    *mut i32,
);
type OrmqrFn<T> = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const i32,
    *const i32,
    *const i32,
    *mut T,
    *const i32,
    *const T,
    *mut T,
    *const i32,
    *mut T,
    *const i32,
    *mut i32,
    usize,
    usize,
);

/// SGEQRF/SGELS/SORGQR/SORMQR, CGEQRF/CGELS/CUNGQR/CUNMQR, ZGEQRF/ZGELS/ZUNGQR/ZUNMQR through
/// the exports on 5×5 tiles: the backend's reflectors, tau, Q, op(Q)·C and least-squares or
/// minimum-norm solutions within a few n·eps (TRANS N and the type's adjoint), WORK(1) as the
/// backend's, rows past M untouched; the other TRANS and bad dimensions as INFO = -position.
fn other_type_qr<T: hetla::scalar::Scalar>(
    geqrf: GeqrfFn<T>,
    gels: GelsFn<T>,
    orgqr: OrgqrFn<T>,
    ormqr: OrmqrFn<T>,
) {
    let _blas = hetla::backend::BlasThreadsGuard::new();
    let name = std::any::type_name::<T>();
    let pad = T::from_parts(GUARD, -GUARD);
    let rel = |x: &[T], y: &[T]| {
        let (mut d, mut s) = (0.0f64, 0.0f64);
        for (x, y) in x.iter().zip(y) {
            let (xr, xi, yr, yi): (f64, f64, f64, f64) =
                (x.re().into(), x.im().into(), y.re().into(), y.im().into());
            d += (xr - yr).powi(2) + (xi - yi).powi(2);
            s += yr * yr + yi * yi;
        }
        (d / s).sqrt()
    };
    let mut rng = Rng(23);
    let mut random = |m: usize, n: usize, ld: usize| {
        let mut a = vec![pad; ld * n];
        for j in 0..n {
            for i in 0..m {
                let re = rng.next();
                a[i + j * ld] = T::from_parts(re, rng.next());
            }
        }
        a
    };
    let past =
        |v: &[T], rows: usize, ld: usize| v.iter().enumerate().all(|(p, &y)| p % ld < rows || y == pad);
    let mut info = -99;
    for (m, n) in [(17usize, 9usize), (9, 17), (12, 12)] {
        let lda = m + 2;
        let (mi, ni, lai) = (m as i32, n as i32, lda as i32);
        let k = m.min(n);
        let ki = k as i32;
        let tol = 50.0 * m.max(n) as f64 * T::eps();
        let a = random(m, n, lda);
        let (mut fa, mut ft, mut fw) = (a.clone(), vec![pad; k], vec![T::zero(); 64 * n]);
        let lw = fw.len() as i32;
        // SAFETY (every call here): arrays as large as the arguments say.
        unsafe {
            bk::geqrf::<T>(&mi, &ni, fa.as_mut_ptr(), &lai, ft.as_mut_ptr(), fw.as_mut_ptr(), &lw, &mut info)
        };
        let (mut f, mut t, mut w) = (a.clone(), vec![pad; k], vec![pad; n]);
        unsafe { geqrf(&mi, &ni, f.as_mut_ptr(), &lai, t.as_mut_ptr(), w.as_mut_ptr(), &ni, &mut info) };
        assert_eq!(info, 0, "{name} geqrf {m}x{n}");
        assert_eq!(hetla::api::last_path(), "tiles", "{name} geqrf");
        assert!(
            rel(&f, &fa) <= tol && rel(&t, &ft) <= tol,
            "{name} geqrf {m}x{n}: {} {}",
            rel(&f, &fa),
            rel(&t, &ft)
        );
        assert!(past(&f, m, lda) && w[0] == fw[0], "{name} geqrf {m}x{n}: rows past M or WORK(1)");
        if m >= n {
            // Q's first n columns from the backend's reflectors.
            let (mut q, mut qw) = (fa.clone(), vec![T::zero(); 64 * n]);
            unsafe {
                bk::orgqr::<T>(
                    &mi,
                    &ni,
                    &ki,
                    q.as_mut_ptr(),
                    &lai,
                    ft.as_ptr(),
                    qw.as_mut_ptr(),
                    &lw,
                    &mut info,
                )
            };
            let (mut g, mut gw) = (fa.clone(), vec![pad; n]);
            unsafe {
                orgqr(&mi, &ni, &ki, g.as_mut_ptr(), &lai, ft.as_ptr(), gw.as_mut_ptr(), &ni, &mut info)
            };
            assert_eq!(info, 0, "{name} orgqr {m}x{n}");
            assert_eq!(hetla::api::last_path(), "tiles", "{name} orgqr");
            assert!(
                rel(&g, &q) <= tol && past(&g, m, lda) && gw[0] == qw[0],
                "{name} orgqr {m}x{n}: {}",
                rel(&g, &q)
            );
        }
        // op(Q)·C from the left, C m×3.
        let ldc = m + 1;
        let lci = ldc as i32;
        let c0 = random(m, 3, ldc);
        for tr in [b'N', T::ADJOINT] {
            let (mut want, mut ww) = (c0.clone(), vec![T::zero(); 64 * 3]);
            let lw3 = ww.len() as i32;
            unsafe {
                bk::ormqr::<T>(
                    c(b'L'),
                    c(tr),
                    &mi,
                    &3,
                    &ki,
                    fa.as_ptr(),
                    &lai,
                    ft.as_ptr(),
                    want.as_mut_ptr(),
                    &lci,
                    ww.as_mut_ptr(),
                    &lw3,
                    &mut info,
                )
            };
            let (mut got, mut gw) = (c0.clone(), vec![pad; 3]);
            let fa0 = fa.clone();
            unsafe {
                ormqr(
                    c(b'L'),
                    c(tr),
                    &mi,
                    &3,
                    &ki,
                    fa.as_mut_ptr(),
                    &lai,
                    ft.as_ptr(),
                    got.as_mut_ptr(),
                    &lci,
                    gw.as_mut_ptr(),
                    &3,
                    &mut info,
                    1,
                    1,
                )
            };
            assert_eq!(info, 0, "{name} ormqr {}", tr as char);
            assert_eq!(hetla::api::last_path(), "tiles", "{name} ormqr");
            assert!(fa == fa0, "{name} ormqr wrote A");
            assert!(
                rel(&got, &want) <= tol && past(&got, m, ldc) && gw[0] == ww[0],
                "{name} ormqr {}: {}",
                tr as char,
                rel(&got, &want)
            );
        }
        // GELS, both TRANS, with a strong diagonal.
        for tr in [b'N', T::ADJOINT] {
            let rows = m.max(n);
            let ldb = rows + 1;
            let lbi = ldb as i32;
            let mut a2 = a.clone();
            (0..k).for_each(|i| a2[i + i * lda] = T::from_parts(4.0, 0.5));
            let b = random(rows, 2, ldb);
            let (mut ra, mut rb, mut rw) = (a2.clone(), b.clone(), vec![T::zero(); 64 * rows]);
            let lwr = rw.len() as i32;
            unsafe {
                bk::gels::<T>(
                    c(tr),
                    &mi,
                    &ni,
                    &2,
                    ra.as_mut_ptr(),
                    &lai,
                    rb.as_mut_ptr(),
                    &lbi,
                    rw.as_mut_ptr(),
                    &lwr,
                    &mut info,
                )
            };
            assert_eq!(info, 0);
            let (mut ga, mut gb, mut gw) = (a2.clone(), b.clone(), vec![pad; 64 * rows]);
            unsafe {
                gels(
                    c(tr),
                    &mi,
                    &ni,
                    &2,
                    ga.as_mut_ptr(),
                    &lai,
                    gb.as_mut_ptr(),
                    &lbi,
                    gw.as_mut_ptr(),
                    &lwr,
                    &mut info,
                    1,
                )
            };
            assert_eq!(info, 0, "{name} gels {}", tr as char);
            assert_eq!(hetla::api::last_path(), "tiles", "{name} gels");
            // A least-squares solution is X's first min(m, n) rows (the rows after it hold
            // Qᴴ·B's tail, which depends on how Q is represented); a minimum-norm one is all rows.
            let xrows = if (m >= n) == (tr == b'N') { k } else { rows };
            let sol =
                |v: &[T]| -> Vec<T> { (0..2).flat_map(|j| v[j * ldb..j * ldb + xrows].to_vec()).collect() };
            assert!(
                rel(&sol(&gb), &sol(&rb)) <= 10.0 * tol && past(&gb, rows, ldb) && past(&ga, m, lda),
                "{name} gels {} {m}x{n}: {}",
                tr as char,
                rel(&sol(&gb), &sol(&rb))
            );
            assert_eq!(gw[0], rw[0], "{name} gels WORK(1)");
        }
    }
    // Argument errors in LAPACK's order; the other TRANS refused.
    let wrong = if T::COMPLEX { b'T' } else { b'C' };
    let (mut a, mut b, mut w, tau) = (vec![pad; 64], vec![pad; 64], vec![pad; 64], vec![pad; 8]);
    for (m, n, lda, lwork, want) in [(-1, 1, 1, 1, -1), (2, -1, 2, 1, -2), (4, 2, 3, 2, -4), (4, 3, 4, 2, -7)]
    {
        let mut t = tau.clone();
        unsafe { geqrf(&m, &n, a.as_mut_ptr(), &lda, t.as_mut_ptr(), w.as_mut_ptr(), &lwork, &mut info) };
        assert_eq!(info, want, "{name} geqrf {m} {n} {lda} {lwork}");
    }
    for (t, m, n, nrhs, lda, ldb, lwork, want) in [
        (wrong, 2, 2, 1, 2, 2, 8, -1),
        (b'N', -1, 2, 1, 2, 2, 8, -2),
        (b'N', 2, -2, 1, 2, 2, 8, -3),
        (b'N', 2, 2, -1, 2, 2, 8, -4),
        (b'N', 4, 2, 1, 3, 4, 8, -6),
        (b'N', 2, 4, 1, 2, 3, 8, -8),
        (b'N', 4, 2, 1, 4, 4, 2, -10),
    ] {
        unsafe {
            gels(
                c(t),
                &m,
                &n,
                &nrhs,
                a.as_mut_ptr(),
                &lda,
                b.as_mut_ptr(),
                &ldb,
                w.as_mut_ptr(),
                &lwork,
                &mut info,
                1,
            )
        };
        assert_eq!(info, want, "{name} gels {}", t as char);
    }
    unsafe {
        ormqr(
            c(b'L'),
            c(wrong),
            &4,
            &2,
            &2,
            a.as_mut_ptr(),
            &4,
            tau.as_ptr(),
            b.as_mut_ptr(),
            &4,
            w.as_mut_ptr(),
            &8,
            &mut info,
            1,
            1,
        )
    };
    assert_eq!(info, -2, "{name} ormqr's other TRANS");
    unsafe { orgqr(&4, &5, &2, a.as_mut_ptr(), &4, tau.as_ptr(), w.as_mut_ptr(), &8, &mut info) };
    assert_eq!(info, -2, "{name} orgqr with n > m");
    assert!(a.iter().chain(&b).all(|&x| x == pad), "{name}: a rejected call wrote A or B");
}

#[test]
fn single_and_complex_qr() {
    setup();
    other_type_qr::<f32>(abi::sgeqrf_, abi::sgels_, abi::sorgqr_, abi::sormqr_);
    other_type_qr::<hetla::scalar::c32>(abi::cgeqrf_, abi::cgels_, abi::cungqr_, abi::cunmqr_);
    other_type_qr::<hetla::scalar::c64>(abi::zgeqrf_, abi::zgels_, abi::zungqr_, abi::zunmqr_);
}

/// `?trtri_` as exported.
type TrtriFn<T> = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const i32,
    *mut T,
    *const i32,
    *mut i32,
    usize,
    usize,
);
/// `?potri_` as exported.
type PotriFn<T> = unsafe extern "C" fn(*const c_char, *const i32, *mut T, *const i32, *mut i32, usize);
/// `?getri_` as exported (IPIV read-only).
type GetriFn<T> =
    unsafe extern "C" fn(*const i32, *mut T, *const i32, *const i32, *mut T, *const i32, *mut i32);

/// STRTRI/SPOTRI/SGETRI, CTRTRI/CPOTRI/CGETRI, ZTRTRI/ZPOTRI/ZGETRI through the exports on 5×5
/// tiles: the backend's inverses within a few n·eps (UPLO L and U, DIAG N and U; complex POTRI
/// Hermitian, its diagonal real), the other triangle and rows past N untouched, WORK(1) and the
/// workspace query as the backend's, INFO of a zero diagonal (A untouched) and of each bad
/// argument, in LAPACK's order, as LAPACK gives them.
fn other_type_inverses<T: hetla::scalar::Scalar>(trtri: TrtriFn<T>, potri: PotriFn<T>, getri: GetriFn<T>) {
    let _blas = hetla::backend::BlasThreadsGuard::new();
    let name = std::any::type_name::<T>();
    let pad = T::from_parts(GUARD, -GUARD);
    let rel = |x: &[T], y: &[T]| {
        let (mut d, mut s) = (0.0f64, 0.0f64);
        for (x, y) in x.iter().zip(y) {
            let (xr, xi, yr, yi): (f64, f64, f64, f64) =
                (x.re().into(), x.im().into(), y.re().into(), y.im().into());
            d += (xr - yr).powi(2) + (xi - yi).powi(2);
            s += yr * yr + yi * yi;
        }
        (d / s).sqrt()
    };
    let mut rng = Rng(13);
    for n in [17usize, 11, 1] {
        let lda = n + 2;
        let (ni, lai) = (n as i32, lda as i32);
        let tol = 50.0 * n as f64 * T::eps();
        let mut a = vec![pad; lda * n];
        for j in 0..n {
            for i in 0..n {
                let re = rng.next();
                a[i + j * lda] = T::from_parts(re, rng.next());
            }
            let d = a[j + j * lda];
            a[j + j * lda] = T::from_parts(4.0 + d.re().into(), d.im().into());
        }
        let mut info = -99;
        for uplo in [b'L', b'U'] {
            let other = |v: &[T], w: &[T]| {
                (0..n).all(|j| {
                    (0..n).all(|i| {
                        (if uplo == b'L' { i >= j } else { i <= j }) || v[i + j * lda] == w[i + j * lda]
                    })
                })
            };
            for diag in [b'N', b'U'] {
                let mut want = a.clone();
                // SAFETY (every call here): A lda×n, IPIV n, WORK as long as LWORK says.
                unsafe { bk::trtri::<T>(c(uplo), c(diag), &ni, want.as_mut_ptr(), &lai, &mut info) };
                assert_eq!(info, 0);
                let mut x = a.clone();
                unsafe { trtri(c(uplo), c(diag), &ni, x.as_mut_ptr(), &lai, &mut info, 1, 1) };
                assert_eq!(info, 0, "{name} trtri");
                assert_eq!(hetla::api::last_path(), "tiles", "{name} trtri");
                assert!(
                    rel(&x, &want) <= tol,
                    "{name} trtri {} {}: {}",
                    uplo as char,
                    diag as char,
                    rel(&x, &want)
                );
                assert!(other(&x, &a) && rows_past(&x, n, lda, pad), "{name} trtri wrote outside");
            }
            // POTRI of the Cholesky factor of a Hermitian positive definite matrix.
            let mut h = vec![pad; lda * n];
            for j in 0..n {
                for i in 0..n {
                    let mut s = T::zero();
                    for k in 0..n {
                        s = add(s, mul(a[i + k * lda], a[j + k * lda].conj()));
                    }
                    h[i + j * lda] = if i == j { T::from_f64(s.re().into()) } else { s };
                }
            }
            unsafe { bk::potrf::<T>(c(uplo), &ni, h.as_mut_ptr(), &lai, &mut info) };
            assert_eq!(info, 0);
            let mut want = h.clone();
            unsafe { bk::potri::<T>(c(uplo), &ni, want.as_mut_ptr(), &lai, &mut info) };
            assert_eq!(info, 0);
            let mut x = h.clone();
            unsafe { potri(c(uplo), &ni, x.as_mut_ptr(), &lai, &mut info, 1) };
            assert_eq!(info, 0, "{name} potri");
            assert_eq!(hetla::api::last_path(), "tiles", "{name} potri");
            let cond_tol = tol * 1e3;
            assert!(rel(&x, &want) <= cond_tol, "{name} potri {}: {}", uplo as char, rel(&x, &want));
            assert!(other(&x, &h) && rows_past(&x, n, lda, pad), "{name} potri wrote outside");
            assert!((0..n).all(|i| x[i + i * lda].im().into() == 0.0), "{name} potri: diagonal not real");
            // A zero on the diagonal at 2 (the first): INFO 2, A untouched.
            if n > 2 {
                let mut bad = a.clone();
                bad[1 + lda] = T::zero();
                bad[n - 1 + (n - 1) * lda] = T::zero();
                let mut x = bad.clone();
                unsafe { trtri(c(uplo), c(b'N'), &ni, x.as_mut_ptr(), &lai, &mut info, 1, 1) };
                assert_eq!(info, 2, "{name} trtri singular");
                unsafe { potri(c(uplo), &ni, x.as_mut_ptr(), &lai, &mut info, 1) };
                assert_eq!(info, 2, "{name} potri singular");
                assert!(x == bad, "{name}: a singular call wrote A");
            }
        }
        // GETRI of the backend's LU factors, with the minimum LWORK and with a query.
        let (mut f, mut ipiv) = (a.clone(), vec![0i32; n]);
        unsafe { bk::getrf::<T>(&ni, &ni, f.as_mut_ptr(), &lai, ipiv.as_mut_ptr(), &mut info) };
        assert_eq!(info, 0);
        let (mut want, mut w0, lw0) = (f.clone(), vec![T::zero(); 64 * n], 64 * ni);
        unsafe {
            bk::getri::<T>(&ni, want.as_mut_ptr(), &lai, ipiv.as_ptr(), w0.as_mut_ptr(), &lw0, &mut info)
        };
        assert_eq!(info, 0);
        let (mut q, mut q0, m1) = ([pad], [pad], -1);
        let mut x = f.clone();
        unsafe { bk::getri::<T>(&ni, x.as_mut_ptr(), &lai, ipiv.as_ptr(), q0.as_mut_ptr(), &m1, &mut info) };
        unsafe { getri(&ni, x.as_mut_ptr(), &lai, ipiv.as_ptr(), q.as_mut_ptr(), &m1, &mut info) };
        assert_eq!((info, q), (0, q0), "{name} getri query");
        assert!(x == f, "{name} getri query wrote A");
        let mut w = vec![pad; n];
        unsafe { getri(&ni, x.as_mut_ptr(), &lai, ipiv.as_ptr(), w.as_mut_ptr(), &ni, &mut info) };
        assert_eq!(info, 0, "{name} getri");
        assert_eq!(hetla::api::last_path(), "tiles", "{name} getri");
        assert_eq!(w[0], w0[0], "{name} getri WORK(1)");
        assert!(
            rel(&x, &want) <= tol * 1e2 && rows_past(&x, n, lda, pad),
            "{name} getri: {}",
            rel(&x, &want)
        );
        // U singular at 1.
        let mut bad = f.clone();
        bad[0] = T::zero();
        let mut x = bad.clone();
        unsafe { getri(&ni, x.as_mut_ptr(), &lai, ipiv.as_ptr(), w.as_mut_ptr(), &ni, &mut info) };
        assert_eq!(info, 1, "{name} getri singular");
        assert!(x == bad, "{name} getri singular wrote A");
    }
    let (mut a, mut w, ipiv) = (vec![pad; 64], vec![pad; 64], vec![1i32; 8]);
    let mut info = -99;
    for (uplo, diag, n, lda, want) in
        [(b'?', b'?', -1, 0, -1), (b'u', b'?', -1, 0, -2), (b'L', b'n', -1, 0, -3), (b'U', b'U', 4, 3, -5)]
    {
        unsafe { trtri(c(uplo), c(diag), &n, a.as_mut_ptr(), &lda, &mut info, 1, 1) };
        assert_eq!(info, want, "{name} trtri {}", uplo as char);
    }
    for (uplo, n, lda, want) in [(b'?', -1, 0, -1), (b'l', -1, 0, -2), (b'U', 4, 3, -4)] {
        unsafe { potri(c(uplo), &n, a.as_mut_ptr(), &lda, &mut info, 1) };
        assert_eq!(info, want, "{name} potri {}", uplo as char);
    }
    for (n, lda, lwork, want) in [(-1, 1, 8, -1), (4, 3, 8, -3), (4, 4, 3, -6)] {
        unsafe { getri(&n, a.as_mut_ptr(), &lda, ipiv.as_ptr(), w.as_mut_ptr(), &lwork, &mut info) };
        assert_eq!(info, want, "{name} getri {n} {lda} {lwork}");
    }
    // WORK(1) aside: LAPACK's xGETRI writes its optimal LWORK there before checking arguments.
    assert!(a.iter().chain(&w[1..]).all(|&x| x == pad), "{name}: a rejected call wrote memory");
}

/// Entries of rows past N of an ld×n array all `pad`.
fn rows_past<T: PartialEq + Copy>(v: &[T], n: usize, ld: usize, pad: T) -> bool {
    v.iter().enumerate().all(|(p, &y)| p % ld < n || y == pad)
}

fn add<T: hetla::scalar::Scalar>(x: T, y: T) -> T {
    let (a, b, c, d): (f64, f64, f64, f64) = (x.re().into(), x.im().into(), y.re().into(), y.im().into());
    T::from_parts(a + c, b + d)
}

fn mul<T: hetla::scalar::Scalar>(x: T, y: T) -> T {
    let (a, b, c, d): (f64, f64, f64, f64) = (x.re().into(), x.im().into(), y.re().into(), y.im().into());
    T::from_parts(a * c - b * d, a * d + b * c)
}

#[test]
fn single_and_complex_inverses() {
    setup();
    other_type_inverses::<f32>(abi::strtri_, abi::spotri_, abi::sgetri_);
    other_type_inverses::<hetla::scalar::c32>(abi::ctrtri_, abi::cpotri_, abi::cgetri_);
    other_type_inverses::<hetla::scalar::c64>(abi::ztrtri_, abi::zpotri_, abi::zgetri_);
}
