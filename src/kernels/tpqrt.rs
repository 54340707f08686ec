//! TSQRT (triangle on top of a square) on a tile pair: the QR factorization of [R; B], with R the
//! n×n upper triangle of a factored diagonal tile and B a full m×n tile below it (seeds 000
//! §3.1's DTSQRT, PLASMA's core_dtsqrt; LAPACK's DTPQRT with L = 0). On exit R is updated, B
//! holds the reflectors' lower parts V (their upper parts are the identity, implicit), and `t`
//! the ib×n block factors. Returns LAPACK's INFO (0 unless an argument is wrong).

use super::fi;
use crate::backend::lapack as bk;
use crate::scalar::Scalar;
use crate::tile::ViewMut;

pub fn tpqrt<T: Scalar>(ib: usize, mut r: ViewMut<T>, mut b: ViewMut<T>, mut t: ViewMut<T>) -> i32 {
    let n = r.n;
    debug_assert!(r.m == n && b.n == n, "R must be n×n and B m×n");
    if n == 0 || b.m == 0 {
        return 0;
    }
    let ib = ib.clamp(1, n);
    debug_assert!(t.m >= ib && t.n >= n);
    let mut work = vec![T::zero(); ib * n];
    let mut info = 0;
    // SAFETY: `r` is a valid n×n block, `b` a valid m×n block, `t` holds ib×n with t.ld >= ib,
    // and `work` has the ib·n elements DTPQRT documents.
    unsafe {
        bk::tpqrt::<T>(
            &fi(b.m),
            &fi(n),
            &0,
            &fi(ib),
            r.as_mut_ptr(),
            &fi(r.ld),
            b.as_mut_ptr(),
            &fi(b.ld),
            t.as_mut_ptr(),
            &fi(t.ld),
            work.as_mut_ptr(),
            &mut info,
        )
    };
    info
}
