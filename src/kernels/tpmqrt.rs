//! TSMQR (the SSRFB update of seeds 000 §3.1, PLASMA's core_dtsmqr; LAPACK's DTPMQRT with
//! L = 0) from the left on a tile pair: [A; B] ← Qᵀ·[A; B] or Q·[A; B], where Q is the product of
//! the k reflectors a [`super::tpqrt`] produced, with identity upper parts and lower parts `v`
//! (m×k), and block factors `t`. A is k×n (the rows of the diagonal tile's row that R occupies),
//! B is m×n. Returns LAPACK's INFO (0 unless an argument is wrong).

use super::{adjoint, fi, Trans};
use crate::backend::lapack::{self as bk, ch};
use crate::scalar::Scalar;
use crate::tile::{View, ViewMut};

pub fn tpmqrt<T: Scalar>(
    trans: Trans,
    ib: usize,
    v: View<T>,
    t: View<T>,
    mut a: ViewMut<T>,
    mut b: ViewMut<T>,
) -> i32 {
    let k = v.n;
    debug_assert!(v.m == b.m && a.m == k && a.n == b.n, "tile pair shapes disagree");
    if k == 0 || b.m == 0 || b.n == 0 {
        return 0;
    }
    let ib = ib.clamp(1, k);
    debug_assert!(t.m >= ib && t.n >= k);
    let mut work = vec![T::zero(); ib * b.n];
    let mut info = 0;
    // SAFETY: `v` holds m×k reflectors, `t` ib×k block factors, `a` a valid k×n block, `b` a
    // valid m×n block, and `work` has the ib·n elements DTPMQRT documents for SIDE = 'L'.
    unsafe {
        bk::tpmqrt::<T>(
            ch(b'L'),
            ch(adjoint::<T>(trans)),
            &fi(b.m),
            &fi(b.n),
            &fi(k),
            &0,
            &fi(ib),
            v.as_ptr(),
            &fi(v.ld),
            t.as_ptr(),
            &fi(t.ld),
            a.as_mut_ptr(),
            &fi(a.ld),
            b.as_mut_ptr(),
            &fi(b.ld),
            work.as_mut_ptr(),
            &mut info,
        )
    };
    info
}
