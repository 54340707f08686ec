//! Forming and applying Q from DGEQRF's reflectors: T of a block of reflectors (DLARFT) and
//! Q's columns of one tile column (DORG2R).

use super::fi;
use crate::backend::lapack::{self as bk, ch};
use crate::tile::{View, ViewMut};

/// T (k×k upper triangular, the leading part of `t`) with H_1·…·H_k = I − V·T·Vᵀ, V the first
/// k columns of `v` (unit lower trapezoidal, as DGEQRF stores them) and `tau` their scalars.
pub fn larft(v: View<f64>, tau: &[f64], mut t: ViewMut<f64>) {
    let k = tau.len();
    assert!(v.n >= k && v.m >= k && t.m >= k && t.n >= k, "V {}×{}, T {}×{}, k = {k}", v.m, v.n, t.m, t.n);
    if k == 0 {
        return;
    }
    // SAFETY: V is v.m×k (leading dimension v.ld), tau k scalars, T at least k×k (t.ld).
    unsafe {
        bk::dlarft(
            ch(b'F'),
            ch(b'C'),
            &fi(v.m),
            &fi(k),
            v.as_ptr(),
            &fi(v.ld),
            tau.as_ptr(),
            t.as_mut_ptr(),
            &fi(t.ld),
            1,
            1,
        )
    }
}

/// The block `a` (m×n, m ≥ n ≥ tau.len()) ← the first n columns of H_1·…·H_k, the reflectors
/// read from its own first k columns (DORG2R; with k = 0, the first n columns of the identity).
pub fn org2r(mut a: ViewMut<f64>, tau: &[f64]) {
    let (m, n, k) = (a.m, a.n, tau.len());
    assert!(m >= n && n >= k, "DORG2R of a {m}×{n} block with {k} reflectors");
    if n == 0 {
        return;
    }
    let mut work = vec![0.0; n];
    let mut info = 0;
    // SAFETY: `a` is m×n with leading dimension a.ld ≥ m, tau k scalars, WORK n.
    unsafe {
        bk::dorg2r(
            &fi(m),
            &fi(n),
            &fi(k),
            a.as_mut_ptr(),
            &fi(a.ld),
            tau.as_ptr(),
            work.as_mut_ptr(),
            &mut info,
        )
    };
    debug_assert_eq!(info, 0);
}
