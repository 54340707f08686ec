//! LACPY of one block: B ← A for two m×n blocks (the distributed LU moves panel tiles into and
//! out of its panel buffer with it).

use super::fi;
use crate::backend::lapack::{self as bk, ch};
use crate::tile::{View, ViewMut};

pub fn copy(a: View<f64>, mut b: ViewMut<f64>) {
    assert!(a.m == b.m && a.n == b.n, "copy between blocks of different shapes");
    if a.m == 0 || a.n == 0 {
        return;
    }
    // SAFETY: `a` and `b` are valid m×n blocks with leading dimensions >= m (views guarantee it);
    // `b` is writable and, being a task's output, does not overlap `a`.
    unsafe { bk::dlacpy(ch(b'A'), &fi(a.m), &fi(a.n), a.as_ptr(), &fi(a.ld), b.as_mut_ptr(), &fi(b.ld), 1) };
}
