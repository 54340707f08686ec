//! LACPY of one block: B ← A for two m×n blocks (the distributed LU moves panel tiles into and
//! out of its panel buffer with it, the QR gathers and scatters its panels), in every element
//! type: a column-by-column copy, as the reference DLACPY is.

use crate::tile::{Elem, View, ViewMut};

pub fn copy<T: Elem>(a: View<T>, mut b: ViewMut<T>) {
    assert!(a.m == b.m && a.n == b.n, "copy between blocks of different shapes");
    if a.m == 0 || a.n == 0 {
        return;
    }
    for j in 0..a.n {
        b.column_mut(j).copy_from_slice(a.column(j));
    }
}
