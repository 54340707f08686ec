//! Householder QR of one panel, in LAPACK's format.
//!
//! The first `kb` columns of the m×n block A (m ≥ kb) become R above the diagonal and the
//! Householder vectors v_i below it (unit leading entry implied), with the scalars in `tau`, so
//! that H_i = I − tau_i·v_i·v_iᵀ and A = H_1·…·H_kb·R, exactly what DGEQRF stores. The kb×kb
//! upper triangular T with H_1·…·H_kb = I − V·T·Vᵀ (forward, columnwise; Schreiber and Van
//! Loan's compact WY form) goes to `t` for the trailing updates. When the block is wider than
//! the panel (the last panel of an m < n matrix shares its tile column with columns that get no
//! reflector of their own), Hᵀ is applied to those columns here.

use super::{fi, larfb};
use crate::backend::lapack as bk;
use crate::scalar::Scalar;
use crate::tile::ViewMut;

pub fn geqrf_panel<T: Scalar>(mut a: ViewMut<T>, kb: usize, mut tau: ViewMut<T>, mut t: ViewMut<T>) {
    let m = a.m;
    assert!(kb >= 1 && kb <= a.n && kb <= m, "panel of {kb} columns in a {m}×{} block", a.n);
    // tau is a column: its first kb entries are contiguous.
    assert!(tau.m >= kb && tau.n >= 1, "tau holds fewer than {kb} scalars");
    assert!(t.m >= kb && t.n >= kb, "T tile smaller than {kb}×{kb}");
    let (fm, fkb, lda) = (fi(m), fi(kb), fi(a.ld));
    let mut info = 0;
    // DGEQRT3 (Elmroth and Gustavson's recursive QR) builds the same reflectors as DGEQR2 (each
    // from DLARFG, so V, R and tau agree with DGEQRF's to rounding) but with BLAS-3 operations,
    // and it returns T of the compact WY form directly; tau_i is T's diagonal. The backend's
    // DGEQRF would run the BLAS-2 DGEQR2 on a panel no wider than its crossover (128), and the
    // panel is the critical path of the factorization.
    // SAFETY: `a` holds an m×kb block (m ≥ kb) with leading dimension lda; T is at least kb×kb.
    unsafe { bk::geqrt3::<T>(&fm, &fkb, a.as_mut_ptr(), &lda, t.as_mut_ptr(), &fi(t.ld), &mut info) };
    debug_assert_eq!(info, 0, "DGEQRT3 rejected a panel");
    for i in 0..kb {
        tau.set(i, 0, t.get(i, i));
    }
    if a.n > kb {
        // The reflectors (columns 0..kb) are read, the remaining columns written.
        let (v, c) = a.split_cols(kb);
        larfb(v, kb, t.as_view(), c);
    }
}
