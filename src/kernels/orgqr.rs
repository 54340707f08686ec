//! T of a block of DGEQRF's reflectors (DLARFT), for forming and applying Q.

use super::fi;
use crate::backend::lapack::{self as bk, ch};
use crate::scalar::Scalar;
use crate::tile::{View, ViewMut};

/// T (k×k upper triangular, the leading part of `t`) with H_1·…·H_k = I − V·T·Vᵀ, V the first
/// k columns of `v` (unit lower trapezoidal, as DGEQRF stores them) and `tau` their scalars.
pub fn larft<T: Scalar>(v: View<T>, tau: &[T], mut t: ViewMut<T>) {
    let k = tau.len();
    assert!(v.n >= k && v.m >= k && t.m >= k && t.n >= k, "V {}×{}, T {}×{}, k = {k}", v.m, v.n, t.m, t.n);
    if k == 0 {
        return;
    }
    // SAFETY: V is v.m×k (leading dimension v.ld), tau k scalars, T at least k×k (t.ld).
    unsafe {
        bk::larft::<T>(
            ch(b'F'),
            ch(b'C'),
            &fi(v.m),
            &fi(k),
            v.as_ptr(),
            &fi(v.ld),
            tau.as_ptr(),
            t.as_mut_ptr(),
            &fi(t.ld),
        )
    }
}
