//! LASET on one tile block: every element set to zero (DGELS clears the rows below a
//! minimum-norm solution's leading part before applying Q).

use super::fi;
use crate::backend::lapack::{self as bk, ch};
use crate::tile::ViewMut;

pub fn zero(mut a: ViewMut<f64>) {
    if a.m == 0 || a.n == 0 {
        return;
    }
    // SAFETY: `a` is a valid m×n block.
    unsafe { bk::dlaset(ch(b'F'), &fi(a.m), &fi(a.n), &0.0, &0.0, a.as_mut_ptr(), &fi(a.ld), 1) };
}
