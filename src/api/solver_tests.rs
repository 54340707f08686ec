//! The whole-call solver way (`solve_whole`, `HETLA_SOLVER`) through the LAPACK entry points: on
//! one emulated device in a plain test run, on the CUDA devices under `HETLA_TEST_GPUS` (the
//! fake CUDA's solvers, or a GPU's). Results are compared with the backend on the same input:
//! factors within a few n·eps, the same pivots and INFO, and nothing written outside what LAPACK
//! writes (the other triangle of a Cholesky, the rows beyond M).

use super::*;
use crate::algo::testutil::*;
use crate::backend::forward;
use crate::config::{GpuSelect, Solver};
use crate::tile::Raw;
use geqrf::dgeqrf;
use getrf::dgetrf;
use potrf::dpotrf;

/// Two threads, every call hetla's (no size forwarding), the solver as `solver` says, on one
/// emulated device unless the test run gives CUDA devices.
fn solver_cfg(solver: Solver) -> Config {
    let mut c = Config::with_threads(2);
    if c.gpus == GpuSelect::None {
        c.emulate_gpus = 1;
        c.emulate_gpu_mem = 16 << 20;
    }
    c.device_force = false;
    c.min_n = Some(0);
    c.solver = solver;
    c
}

/// Largest |x − y| over the m×n parts of two ld×n arrays, and whether every other entry (rows
/// m..ld, and where `keep(i, j)` says so) is bitwise equal.
fn compare(
    x: &[f64],
    y: &[f64],
    m: usize,
    n: usize,
    ld: usize,
    keep: impl Fn(usize, usize) -> bool,
) -> (f64, bool) {
    let (mut d, mut same) = (0.0f64, true);
    for j in 0..n {
        for i in 0..ld {
            let (a, b) = (x[i + j * ld], y[i + j * ld]);
            if i < m && !keep(i, j) {
                d = d.max((a - b).abs());
            } else {
                same &= a.to_bits() == b.to_bits();
            }
        }
    }
    (d, same)
}

fn raw<T: crate::tile::Elem>(v: &mut [T]) -> Raw<T> {
    // SAFETY: the tests pass arrays of the sizes each call reads and writes.
    unsafe { Raw::new(v.as_mut_ptr()) }
}

#[test]
fn cholesky_runs_whole_and_leaves_the_other_triangle() {
    for (uplo, n, lda) in [(b'L', 37, 40), (b'U', 33, 33), (b'l', 5, 9)] {
        let a0 = Rng::new(n as u64).spd(n, lda);
        let mut want = a0.clone();
        let info = forward::dpotrf(uplo, n as i32, raw(&mut want), lda as i32);
        assert_eq!(info, 0);
        let mut a = a0.clone();
        dpotrf(&solver_cfg(Solver::Force), uplo, n as i32, raw(&mut a), lda as i32).unwrap();
        assert_eq!(last_path(), "solver", "uplo {}", uplo as char);
        let lower = uplo.eq_ignore_ascii_case(&b'L');
        let other = |i: usize, j: usize| if lower { i < j } else { i > j };
        let (d, same) = compare(&a, &want, n, n, lda, other);
        assert!(d <= 10.0 * n as f64 * eps() * fnorm(&a0, n, n, lda), "uplo {}: {d}", uplo as char);
        assert!(same, "uplo {}: the other triangle or the padding changed", uplo as char);
    }
}

#[test]
fn lu_runs_whole_with_the_backend_pivots() {
    for (m, n, lda) in [(37, 29, 41), (23, 31, 23), (30, 30, 30)] {
        let a0 = Rng::new((m * n) as u64).matrix(m, n, lda);
        let k = m.min(n);
        let (mut want, mut wpiv) = (a0.clone(), vec![0i32; k + 2]);
        let winfo = forward::dgetrf(m as i32, n as i32, raw(&mut want), lda as i32, raw(&mut wpiv));
        let (mut a, mut piv) = (a0.clone(), vec![0i32; k + 2]);
        let r =
            dgetrf(&solver_cfg(Solver::Force), m as i32, n as i32, raw(&mut a), lda as i32, raw(&mut piv));
        assert_eq!((winfo, r.is_ok()), (0, true));
        assert_eq!(last_path(), "solver", "{m}x{n}");
        assert_eq!(piv, wpiv, "{m}x{n}: pivots (and the entries after min(m, n)) as the backend's");
        let (d, same) = compare(&a, &want, m, n, lda, |_, _| false);
        assert!(d <= 10.0 * m.max(n) as f64 * eps() * fnorm(&a0, m, n, lda), "{m}x{n}: {d}");
        assert!(same, "{m}x{n}: rows beyond m changed");
    }
}

#[test]
fn qr_runs_whole_with_the_backend_tau() {
    for (m, n, lda) in [(37, 29, 41), (23, 31, 23)] {
        let a0 = Rng::new((m + 7 * n) as u64).matrix(m, n, lda);
        let k = m.min(n);
        let (mut want, mut wtau) = (a0.clone(), vec![7.5; k + 1]);
        let mut work = vec![0.0; 64 * n];
        let lw = work.len() as i32;
        forward::dgeqrf(m as i32, n as i32, raw(&mut want), lda as i32, raw(&mut wtau), raw(&mut work), lw);
        let (mut a, mut tau) = (a0.clone(), vec![7.5; k + 1]);
        let cfg = solver_cfg(Solver::Force);
        dgeqrf(&cfg, m as i32, n as i32, raw(&mut a), lda as i32, raw(&mut tau), raw(&mut work), lw).unwrap();
        assert_eq!(last_path(), "solver", "{m}x{n}");
        let (d, same) = compare(&a, &want, m, n, lda, |_, _| false);
        assert!(d <= 10.0 * m.max(n) as f64 * eps() * fnorm(&a0, m, n, lda), "{m}x{n}: {d}");
        assert!(same, "{m}x{n}: rows beyond m changed");
        let dt = tau.iter().zip(&wtau).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(
            dt <= 1e-12 && tau[k] == 7.5,
            "{m}x{n}: tau differs by {dt}, or the entry after it was written"
        );
    }
}

/// INFO > 0 and NaN are LAPACK's to answer: the device's result is not kept, the call runs on
/// tiles from the untouched input and answers as the backend does.
#[test]
fn singular_and_nan_inputs_are_declined_and_answered_as_lapack() {
    let cfg = solver_cfg(Solver::Force);
    // LU with an exactly zero column.
    let (m, n) = (24, 24);
    let mut a0 = Rng::new(5).matrix(m, n, m);
    for i in 0..m {
        a0[i + 6 * m] = 0.0;
    }
    let (mut want, mut wpiv) = (a0.clone(), vec![0i32; n]);
    let winfo = forward::dgetrf(m as i32, n as i32, raw(&mut want), m as i32, raw(&mut wpiv));
    assert!(winfo > 0);
    let (mut a, mut piv) = (a0.clone(), vec![0i32; n]);
    let r = dgetrf(&cfg, m as i32, n as i32, raw(&mut a), m as i32, raw(&mut piv));
    assert!(matches!(r, Err(Error::Numerical(i)) if i == winfo), "{r:?} against INFO {winfo}");
    assert_eq!(last_path(), "tiles", "a declined solver call runs on tiles");
    assert_eq!(piv, wpiv);
    // Cholesky of an indefinite matrix, and of one with a NaN.
    for bad in [-1e6, f64::NAN] {
        let n = 20;
        let mut a0 = Rng::new(9).spd(n, n);
        a0[7 + 7 * n] = bad;
        let mut want = a0.clone();
        let winfo = forward::dpotrf(b'L', n as i32, raw(&mut want), n as i32);
        let mut a = a0.clone();
        let r = dpotrf(&cfg, b'L', n as i32, raw(&mut a), n as i32);
        let info = match r {
            Ok(()) => 0,
            Err(Error::Numerical(i)) => i,
            Err(e) => panic!("{e:?}"),
        };
        assert_eq!(info, winfo, "diagonal entry {bad}");
        assert_eq!(last_path(), "tiles");
    }
}

#[test]
fn solver_off_and_distributed_learning_keep_to_tiles() {
    let n = 30;
    let a0 = Rng::new(3).spd(n, n);
    let mut a = a0.clone();
    dpotrf(&solver_cfg(Solver::Off), b'L', n as i32, raw(&mut a), n as i32).unwrap();
    assert_eq!(last_path(), "tiles");
}
