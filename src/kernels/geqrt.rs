//! GEQRT on one tile: A = Q·R by Householder reflectors in blocks of `ib` columns (the compact
//! WY form of Song & Dongarra, seeds 000 §3.1, and PLASMA's core_dgeqrt). On exit R is in the
//! upper triangle, the reflectors V below it, and the ib×k triangular block factors T of the
//! k = min(m, n) reflectors side by side in `t`. Returns LAPACK's INFO (0 unless an argument is
//! wrong, which is a bug).

use super::fi;
use crate::backend::lapack as bk;
use crate::scalar::Scalar;
use crate::tile::ViewMut;

pub fn geqrt<T: Scalar>(ib: usize, mut a: ViewMut<T>, mut t: ViewMut<T>) -> i32 {
    let k = a.m.min(a.n);
    if k == 0 {
        return 0;
    }
    // LAPACK requires 1 <= ib <= k; every consumer of `t` clamps the same way.
    let ib = ib.clamp(1, k);
    debug_assert!(t.m >= ib && t.n >= k);
    let mut work = vec![T::zero(); ib * a.n];
    let mut info = 0;
    // SAFETY: `a` is a valid m×n block, `t` holds ib×k with leading dimension t.ld >= ib, and
    // `work` has the ib·n elements DGEQRT documents.
    unsafe {
        bk::geqrt::<T>(
            &fi(a.m),
            &fi(a.n),
            &fi(ib),
            a.as_mut_ptr(),
            &fi(a.ld),
            t.as_mut_ptr(),
            &fi(t.ld),
            work.as_mut_ptr(),
            &mut info,
        )
    };
    info
}
