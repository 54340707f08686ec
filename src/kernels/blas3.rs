//! BLAS-3 tile kernels: GEMM (C = αop(A)op(B) + βC), SYRK (C = αop(A)op(A)ᵀ + βC on one
//! triangle) and TRSM (B = α op(A)⁻¹ B or B op(A)⁻¹).

use super::{fi, Diag, Side, Trans, Uplo};
use crate::backend::lapack::{self as bk, ch};
use crate::tile::{View, ViewMut};

pub fn gemm(ta: Trans, tb: Trans, alpha: f64, a: View<f64>, b: View<f64>, beta: f64, mut c: ViewMut<f64>) {
    let k = if ta == Trans::No { a.n } else { a.m };
    debug_assert_eq!(c.m, if ta == Trans::No { a.m } else { a.n });
    debug_assert_eq!(c.n, if tb == Trans::No { b.n } else { b.m });
    debug_assert_eq!(k, if tb == Trans::No { b.m } else { b.n });
    if c.m == 0 || c.n == 0 {
        return;
    }
    // SAFETY: the views describe valid blocks of the stated shapes (runtime::Ctx), and the
    // shapes agree as asserted above.
    unsafe {
        bk::dgemm(
            ch(ta.ch()),
            ch(tb.ch()),
            &fi(c.m),
            &fi(c.n),
            &fi(k),
            &alpha,
            a.as_ptr(),
            &fi(a.ld),
            b.as_ptr(),
            &fi(b.ld),
            &beta,
            c.as_mut_ptr(),
            &fi(c.ld),
            1,
            1,
        )
    }
}

pub fn syrk(uplo: Uplo, trans: Trans, alpha: f64, a: View<f64>, beta: f64, mut c: ViewMut<f64>) {
    let k = if trans == Trans::No { a.n } else { a.m };
    debug_assert_eq!(c.m, c.n);
    if c.n == 0 {
        return;
    }
    // SAFETY: valid views of the stated shapes.
    unsafe {
        bk::dsyrk(
            ch(uplo.ch()),
            ch(trans.ch()),
            &fi(c.n),
            &fi(k),
            &alpha,
            a.as_ptr(),
            &fi(a.ld),
            &beta,
            c.as_mut_ptr(),
            &fi(c.ld),
            1,
            1,
        )
    }
}

#[allow(clippy::too_many_arguments)]
pub fn trsm(side: Side, uplo: Uplo, ta: Trans, diag: Diag, alpha: f64, a: View<f64>, mut b: ViewMut<f64>) {
    debug_assert_eq!(a.m, a.n);
    debug_assert_eq!(a.n, if side == Side::Left { b.m } else { b.n });
    if b.m == 0 || b.n == 0 {
        return;
    }
    // SAFETY: valid views of the stated shapes.
    unsafe {
        bk::dtrsm(
            ch(side.ch()),
            ch(uplo.ch()),
            ch(ta.ch()),
            ch(diag.ch()),
            &fi(b.m),
            &fi(b.n),
            &alpha,
            a.as_ptr(),
            &fi(a.ld),
            b.as_mut_ptr(),
            &fi(b.ld),
            1,
            1,
            1,
            1,
        )
    }
}
