//! Solve with a Cholesky factor: A·X = B with A = L·Lᵀ (two tile triangular solves, L then Lᵀ)
//! or A = Uᵀ·U (Uᵀ then U), as LAPACK's DPOTRS does.

use super::trsm::{solve, Pass};
use crate::kernels::{Diag, Trans, Uplo};
use crate::runtime::Seq;
use crate::tile::TiledMatrix;

/// The two passes of a Cholesky solve (the same for `pdpotrs`).
pub fn passes(uplo: Uplo) -> [Pass; 2] {
    let (first, second) = match uplo {
        Uplo::Lower => (Trans::No, Trans::Yes),
        Uplo::Upper => (Trans::Yes, Trans::No),
    };
    [first, second].map(|trans| Pass { uplo, trans, diag: Diag::NonUnit })
}

pub fn potrs(seq: &Seq, uplo: Uplo, a: &TiledMatrix<f64>, b: &TiledMatrix<f64>) {
    solve(seq, &passes(uplo), a, b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::potrf::potrf;
    use crate::algo::testutil::*;
    use crate::tile::Part;

    #[test]
    fn factor_then_solve_has_small_residual() {
        for &(n, nrhs, nb) in &[(1, 1, 1), (23, 3, 4), (61, 17, 8)] {
            factor_then_solve(n, nrhs, Part::uniform(nb));
        }
    }

    #[test]
    fn hybrid_partitions_on_one_two_three_emulated_devices() {
        for_hybrid_setups(|part| {
            factor_then_solve(23, 3, part);
            factor_then_solve(61, 17, part);
        });
    }

    fn factor_then_solve(n: usize, nrhs: usize, part: Part) {
        for uplo in [Uplo::Lower, Uplo::Upper] {
            {
                let (lda, ldb) = (n + 2, n + 5);
                let mut rng = Rng::new(n as u64);
                let a0 = rng.spd(n, lda);
                let b0 = rng.matrix(n, nrhs, ldb);
                let (mut a, mut b) = (a0.clone(), b0.clone());
                let ta = unsafe { TiledMatrix::from_raw_parts(a.as_mut_ptr(), n, n, lda, part, part) };
                let tb = unsafe { TiledMatrix::from_raw_parts(b.as_mut_ptr(), n, nrhs, ldb, part, part) };
                let seq = Seq::new(&cfg(3));
                potrf(&seq, uplo, &ta);
                potrs(&seq, uplo, &ta, &tb);
                seq.wait().unwrap();
                // ‖A·X − B‖ / (‖A‖·‖X‖·n·eps), A symmetric from the full a0.
                let mut r: f64 = 0.0;
                for j in 0..nrhs {
                    for i in 0..n {
                        let ax: f64 = (0..n).map(|k| a0[i + k * lda] * b[k + j * ldb]).sum();
                        r = r.max((ax - b0[i + j * ldb]).abs());
                    }
                }
                let xn = fnorm(&b, n, nrhs, ldb);
                let scaled = r / (fnorm(&a0, n, n, lda) * xn * n as f64 * eps());
                assert!(scaled < 10.0, "{uplo:?} n {n}: residual {scaled}");
                assert_untouched_outside(&b0, &b, n, nrhs, ldb, None);
            }
        }
    }

    #[test]
    fn on_one_two_three_emulated_devices() {
        for_device_setups(factor_then_solve_has_small_residual);
    }
}
