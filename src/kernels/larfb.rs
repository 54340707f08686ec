//! Block reflector from the left, transposed: C ← Hᵀ·C = (I − V·Tᵀ·Vᵀ)·C (DLARFB with 'L', 'T',
//! 'F', 'C'), the trailing update of Householder QR in compact WY form (Schreiber and Van Loan);
//! [`larfb_op`] also applies H itself (Q·B in DGELS's minimum-norm solutions).
//!
//! V is m×k unit lower trapezoidal (only its strictly lower part is read, the unit diagonal is
//! implied, so R stored above the diagonal of the same block is left alone); T is k×k upper
//! triangular as DLARFT forms it.

use super::fi;
use crate::backend::lapack::{self as bk, ch};
use crate::scalar::Scalar;
use crate::tile::{View, ViewMut};

pub fn larfb<T: Scalar>(v: View<T>, k: usize, t: View<T>, c: ViewMut<T>) {
    larfb_op(b'T', v, k, t, c)
}

/// C ← H·C = (I − V·T·Vᵀ)·C (`trans` = b'N') or Hᵀ·C (b'T'): DLARFB 'L', `trans`, 'F', 'C'.
pub fn larfb_op<T: Scalar>(trans: u8, v: View<T>, k: usize, t: View<T>, c: ViewMut<T>) {
    larfb_side(b'L', trans, v, k, t, c)
}

/// DLARFB `side`, `trans`, 'F', 'C': C ← op(H)·C (b'L') or C·op(H) (b'R'), H = I − V·T·Vᵀ,
/// V with as many rows as C has rows (left) or columns (right).
pub fn larfb_side<T: Scalar>(side: u8, trans: u8, v: View<T>, k: usize, t: View<T>, mut c: ViewMut<T>) {
    let (nv, ldwork) = if side == b'L' { (c.m, c.n) } else { (c.n, c.m) };
    assert!(v.n >= k && v.m == nv && v.m >= k, "V is {}×{}, C is {}×{}, k = {k}", v.m, v.n, c.m, c.n);
    assert!(t.m >= k && t.n >= k, "T smaller than {k}×{k}");
    if c.m == 0 || c.n == 0 || k == 0 {
        return;
    }
    let mut work = vec![T::zero(); ldwork * k];
    // SAFETY: V is nv×k with leading dimension v.ld, T k×k with t.ld, C m×n with c.ld, and WORK
    // ldwork×k with leading dimension ldwork (n for SIDE = 'L', m for 'R'), as DLARFB requires.
    unsafe {
        bk::larfb::<T>(
            ch(side),
            ch(if trans == b'N' { b'N' } else { T::ADJOINT }),
            ch(b'F'),
            ch(b'C'),
            &fi(c.m),
            &fi(c.n),
            &fi(k),
            v.as_ptr(),
            &fi(v.ld),
            t.as_ptr(),
            &fi(t.ld),
            c.as_mut_ptr(),
            &fi(c.ld),
            work.as_mut_ptr(),
            &fi(ldwork),
        )
    }
}
