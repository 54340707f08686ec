//! LASET on one tile block: every element set to zero (DGELS clears the rows below a
//! minimum-norm solution's leading part before applying Q), in every element type.

use crate::scalar::Scalar;
use crate::tile::ViewMut;

pub fn zero<T: Scalar>(mut a: ViewMut<T>) {
    for j in 0..a.n {
        a.column_mut(j).fill(T::zero());
    }
}
