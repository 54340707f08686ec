//! GEMQRT from the left on one tile: C ← Qᵀ·C or Q·C, where Q = I − V·T·Vᵀ (block by block) is
//! the product of the k = min(rows, cols) reflectors a [`super::geqrt`] left in `v` and `t`
//! (PLASMA's core_dormqr, the "apply to the tiles right of the diagonal" step of seeds 000 §3.1).
//! Returns LAPACK's INFO (0 unless an argument is wrong).

use super::{adjoint, fi, Trans};
use crate::backend::lapack::{self as bk, ch};
use crate::scalar::Scalar;
use crate::tile::{View, ViewMut};

pub fn gemqrt<T: Scalar>(trans: Trans, ib: usize, v: View<T>, t: View<T>, mut c: ViewMut<T>) -> i32 {
    let k = v.m.min(v.n);
    debug_assert_eq!(v.m, c.m, "reflectors and C must have the same rows");
    if k == 0 || c.n == 0 {
        return 0;
    }
    let ib = ib.clamp(1, k);
    debug_assert!(t.m >= ib && t.n >= k);
    let mut work = vec![T::zero(); ib * c.n];
    let mut info = 0;
    // SAFETY: `v` holds m×k reflectors, `t` ib×k block factors, `c` is a valid m×n block, and
    // `work` has the n·ib elements DGEMQRT documents for SIDE = 'L'.
    unsafe {
        bk::gemqrt::<T>(
            ch(b'L'),
            ch(adjoint::<T>(trans)),
            &fi(c.m),
            &fi(c.n),
            &fi(k),
            &fi(ib),
            v.as_ptr(),
            &fi(v.ld),
            t.as_ptr(),
            &fi(t.ld),
            c.as_mut_ptr(),
            &fi(c.ld),
            work.as_mut_ptr(),
            &mut info,
        )
    };
    info
}
