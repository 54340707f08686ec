//! The leaves of the recursive [`super::trsm`]: triangles of order k ≤ [`LEAF`], solved by
//! substitution here instead of by the backend's DTRSM.
//!
//! Why: OpenBLAS 0.3.21's DTRSM spends most of a small call outside its GEMM kernel. On one
//! thread, 256 rows against a triangle of 32 run at 9 GFLOP/s (16: 4 GFLOP/s) where a GEMM of
//! the same shape runs at 50, so in a recursive solve of order 256 the leaves, an eighth of the
//! flops, took half the time.
//!
//! Every case is one loop. With op(A) = T, the k unknowns of one independent system are x_0 …
//! x_{k−1} and
//!
//! ```text
//!   x_i = (α·b_i − Σ_p S(i, p)·x_p) / S(i, i)        S(i, p) = T(p, i)  (B·T⁻¹: a row of B)
//!                                                     S(i, p) = T(i, p)  (T⁻¹·B: a column of B)
//! ```
//!
//! where p runs over the unknowns already solved: all p < i when S is lower triangular (i
//! ascending), all p > i when it is upper (i descending). A side-Right solve has one system per
//! row of B, a side-Left solve one per column. [`lanes`] solves R systems side by side, so the
//! inner loop is R independent multiply-adds on a row of solved unknowns (vector registers);
//! the triangle is copied once per call into S, row-major, with the reciprocals of its diagonal
//! (OpenBLAS's kernels also multiply by the reciprocal).

use super::{Diag, Side, Trans, Uplo};
use crate::tile::{View, ViewMut};

/// The largest triangle order the leaf takes.
pub(super) const LEAF: usize = 32;

/// The remainder's width: a lane count the compiler vectorizes (at 8 it did not), the lanes
/// past the last system padded with zeros.
const NARROW: usize = 16;

/// B ← α·op(A)⁻¹·B or α·B·op(A)⁻¹ for a triangle of order k ≤ [`LEAF`] (the [`super::trsm`]
/// contract). Uses AVX-512 or AVX2 with FMA when the CPU has them (detected at run time).
pub(super) fn trsm_leaf(
    side: Side,
    uplo: Uplo,
    ta: Trans,
    diag: Diag,
    alpha: f64,
    a: View<f64>,
    b: ViewMut<f64>,
) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, the only feature this instance was compiled for.
            return unsafe { leaf_avx512(side, uplo, ta, diag, alpha, a, b) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has AVX2 and FMA, the features this instance was compiled for.
            return unsafe { leaf_avx2(side, uplo, ta, diag, alpha, a, b) };
        }
    }
    leaf::<false, 16>(side, uplo, ta, diag, alpha, a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn leaf_avx512(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: f64, a: View<f64>, b: ViewMut<f64>) {
    leaf::<true, 64>(side, uplo, ta, diag, alpha, a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn leaf_avx2(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: f64, a: View<f64>, b: ViewMut<f64>) {
    leaf::<true, 32>(side, uplo, ta, diag, alpha, a, b)
}

/// The triangle as S (row-major, `LEAF` wide) with its diagonal's reciprocals, and whether S
/// is lower triangular (the systems solved in ascending order).
struct Tri {
    s: [f64; LEAF * LEAF],
    rdiag: [f64; LEAF],
    k: usize,
    ascending: bool,
}

impl Tri {
    fn new(side: Side, uplo: Uplo, ta: Trans, diag: Diag, a: View<f64>) -> Tri {
        let k = a.m;
        assert!(k <= LEAF && a.n == k, "trsm leaf: a square triangle of order ≤ {LEAF}");
        // S(i, p) = A(i, p) when the systems read op(A) as it is (Left, no transpose, or Right,
        // transposed); A(p, i) otherwise. S is lower exactly when the triangle it reads is.
        let as_is = (side == Side::Left) == (ta == Trans::No);
        let ascending = (uplo == Uplo::Lower) == as_is;
        let mut t = Tri { s: [0.0; LEAF * LEAF], rdiag: [1.0; LEAF], k, ascending };
        for j in 0..k {
            let col = a.column(j);
            // Only A's referenced triangle is read: rows j.. of column j (lower) or 0..=j (upper).
            let rows = if uplo == Uplo::Lower { j..k } else { 0..j + 1 };
            for r in rows {
                let (i, p) = if as_is { (r, j) } else { (j, r) };
                t.s[i * LEAF + p] = col[r];
            }
        }
        if diag == Diag::NonUnit {
            for i in 0..k {
                t.rdiag[i] = 1.0 / t.s[i * LEAF + i];
            }
        }
        t
    }
}

/// `WIDE` systems side by side in the main loop (8 vector registers of partial sums: enough
/// independent multiply-adds to cover the FMA latency); the remainder goes by [`NARROW`].
#[inline(always)]
fn leaf<const FMA: bool, const WIDE: usize>(
    side: Side,
    uplo: Uplo,
    ta: Trans,
    diag: Diag,
    alpha: f64,
    a: View<f64>,
    mut b: ViewMut<f64>,
) {
    let t = Tri::new(side, uplo, ta, diag, a);
    // Systems: rows of B (Right) or columns (Left); unknowns: the other dimension (= k).
    let systems = if side == Side::Right { b.m } else { b.n };
    debug_assert_eq!(t.k, if side == Side::Right { b.n } else { b.m });
    if alpha == 0.0 {
        // DTRSM's rule: B = 0 without reading it or A.
        for j in 0..b.n {
            b.column_mut(j).fill(0.0);
        }
        return;
    }
    let mut first = 0;
    while systems - first >= WIDE {
        lanes::<WIDE, FMA>(&t, side, alpha, &mut b, first, WIDE);
        first += WIDE;
    }
    while first < systems {
        let count = NARROW.min(systems - first);
        lanes::<NARROW, FMA>(&t, side, alpha, &mut b, first, count);
        first += count;
    }
}

/// Solves systems `first .. first + count` (count ≤ R) side by side: copied into `x`
/// (unknown-major, α applied, lanes past `count` zero), substituted, copied back.
#[inline(always)]
fn lanes<const R: usize, const FMA: bool>(
    t: &Tri,
    side: Side,
    alpha: f64,
    b: &mut ViewMut<f64>,
    first: usize,
    count: usize,
) {
    let k = t.k;
    let mut x = [[0.0f64; R]; LEAF];
    if side == Side::Right {
        for (i, xi) in x.iter_mut().enumerate().take(k) {
            let col = &b.column_mut(i)[first..first + count];
            for l in 0..count {
                xi[l] = alpha * col[l];
            }
        }
    } else {
        for l in 0..count {
            let col = b.column_mut(first + l);
            for (i, xi) in x.iter_mut().enumerate().take(k) {
                xi[l] = alpha * col[i];
            }
        }
    }
    for step in 0..k {
        let i = if t.ascending { step } else { k - 1 - step };
        let solved = if t.ascending { 0..i } else { i + 1..k };
        let row = &t.s[i * LEAF..(i + 1) * LEAF];
        let mut acc = x[i];
        for p in solved {
            let (c, xp) = (row[p], &x[p]);
            for l in 0..R {
                acc[l] = if FMA { (-c).mul_add(xp[l], acc[l]) } else { acc[l] - c * xp[l] };
            }
        }
        for v in acc.iter_mut() {
            *v *= t.rdiag[i];
        }
        x[i] = acc;
    }
    if side == Side::Right {
        for (i, xi) in x.iter().enumerate().take(k) {
            b.column_mut(i)[first..first + count].copy_from_slice(&xi[..count]);
        }
    } else {
        for l in 0..count {
            let col = b.column_mut(first + l);
            for (i, xi) in x.iter().enumerate().take(k) {
                col[i] = xi[l];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::blas3::tests::compare_with_dtrsm;

    /// Every instance this CPU can run, each against the backend's DTRSM on every case, with
    /// system counts that leave remainders of every kind (none, under and over [`NARROW`]).
    #[test]
    fn every_leaf_instance_equals_dtrsm() {
        let cases = [(1, 1), (2, 5), (13, 64), (31, 83), (32, 16), (32, 200)];
        compare_with_dtrsm("portable", &leaf::<false, 16>, &cases, 11);
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                // SAFETY: the CPU has the features the instance was compiled for.
                let f = |s, u, t, d, al, a: View<f64>, b: ViewMut<f64>| unsafe {
                    leaf_avx2(s, u, t, d, al, a, b)
                };
                compare_with_dtrsm("avx2", &f, &cases, 12);
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: as above.
                let f = |s, u, t, d, al, a: View<f64>, b: ViewMut<f64>| unsafe {
                    leaf_avx512(s, u, t, d, al, a, b)
                };
                compare_with_dtrsm("avx512", &f, &cases, 13);
            }
        }
    }

    /// α = 0 sets B to zero without reading it (NaN in B does not survive), as DTRSM does.
    #[test]
    fn zero_alpha_zeroes_b() {
        let a = [2.0, 0.0, 1.0, 3.0];
        let mut b = [f64::NAN, 1.0, 2.0, 7.0, f64::INFINITY, 9.0];
        trsm_leaf(
            Side::Left,
            Uplo::Upper,
            Trans::No,
            Diag::NonUnit,
            0.0,
            View::from_slice(&a, 2, 2, 2),
            ViewMut::from_slice(&mut b, 2, 2, 3),
        );
        assert_eq!(b, [0.0, 0.0, 2.0, 0.0, 0.0, 9.0]);
    }
}
