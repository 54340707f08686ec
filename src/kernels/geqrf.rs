//! Householder QR of one panel, in LAPACK's format.
//!
//! The first `kb` columns of the m×n block A (m ≥ kb) become R above the diagonal and the
//! Householder vectors v_i below it (unit leading entry implied), with the scalars in `tau`, so
//! that H_i = I − tau_i·v_i·v_iᵀ and A = H_1·…·H_kb·R, exactly what DGEQRF stores. The kb×kb
//! upper triangular T with H_1·…·H_kb = I − V·T·Vᵀ (DLARFT, forward, columnwise; Schreiber and
//! Van Loan's compact WY form) goes to `t` for the trailing updates. When the block is wider than
//! the panel (the last panel of an m < n matrix shares its tile column with columns that get no
//! reflector of their own), Hᵀ is applied to those columns here.

use super::{fi, larfb};
use crate::backend::lapack::{self as bk, ch};
use crate::tile::ViewMut;

pub fn geqrf_panel(mut a: ViewMut<f64>, kb: usize, mut tau: ViewMut<f64>, mut t: ViewMut<f64>) {
    let m = a.m;
    assert!(kb >= 1 && kb <= a.n && kb <= m, "panel of {kb} columns in a {m}×{} block", a.n);
    // tau is a column: its first kb entries are contiguous.
    assert!(tau.m >= kb && tau.n >= 1, "tau holds fewer than {kb} scalars");
    assert!(t.m >= kb && t.n >= kb, "T tile smaller than {kb}×{kb}");
    let (fm, fkb, lda) = (fi(m), fi(kb), fi(a.ld));
    let mut info = 0;
    // Workspace query first: the backend's DGEQRF picks its own inner block size (for panels
    // no wider than its crossover it runs the unblocked DGEQR2, as LAPACK does).
    let mut opt = 0.0;
    // SAFETY: with LWORK = -1 DGEQRF only writes WORK(1); the other pointers are valid views.
    unsafe { bk::dgeqrf(&fm, &fkb, a.as_mut_ptr(), &lda, tau.as_mut_ptr(), &mut opt, &-1, &mut info) };
    let mut work = vec![0.0; (opt as usize).max(kb)];
    // SAFETY: `a` is an m×kb block (and more) with leading dimension lda, `tau` holds kb
    // contiguous entries (a column view of at least kb rows), `work` has the queried length.
    unsafe {
        bk::dgeqrf(
            &fm,
            &fkb,
            a.as_mut_ptr(),
            &lda,
            tau.as_mut_ptr(),
            work.as_mut_ptr(),
            &fi(work.len()),
            &mut info,
        )
    };
    debug_assert_eq!(info, 0, "DGEQRF rejected a panel");
    // SAFETY: V is the m×kb block of `a`, tau its kb scalars, T a block of at least kb×kb.
    unsafe {
        bk::dlarft(
            ch(b'F'),
            ch(b'C'),
            &fm,
            &fkb,
            a.as_ptr(),
            &lda,
            tau.as_ptr(),
            t.as_mut_ptr(),
            &fi(t.ld),
            1,
            1,
        )
    };
    if a.n > kb {
        // The reflectors (columns 0..kb) are read, the remaining columns written.
        let (v, c) = a.split_cols(kb);
        larfb(v, kb, t.as_view(), c);
    }
}
