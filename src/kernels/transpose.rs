//! Transposed tile copy: B ← Aᵀ (A m×n, B n×m). Used to factor Aᵀ instead of A when a driver
//! wants an LQ factorization (A = L·Q is the transpose of Aᵀ = Q'·R), and by the transposed
//! block solve of `getrs`.

use crate::tile::{Elem, View, ViewMut};

/// Square blocks of this order are copied at a time: a block's source columns and destination
/// columns stay in cache while it is copied (an element-by-element loop over whole columns
/// strides through the destination: 256×256 took about 190 µs against 25 µs blocked).
const BLOCK: usize = 16;

pub fn transpose<T: Elem>(a: View<T>, mut b: ViewMut<T>) {
    assert!(b.m == a.n && b.n == a.m, "transposed copy needs an n×m destination");
    for i0 in (0..a.m).step_by(BLOCK) {
        let i1 = (i0 + BLOCK).min(a.m);
        for j0 in (0..a.n).step_by(BLOCK) {
            let j1 = (j0 + BLOCK).min(a.n);
            let mut src: [&[T]; BLOCK] = [&[]; BLOCK];
            for (s, j) in src.iter_mut().zip(j0..j1) {
                *s = &a.column(j)[i0..i1];
            }
            for i in i0..i1 {
                // Row i of A, columns j0..j1, into column i of B, rows j0..j1.
                let dst = &mut b.column_mut(i)[j0..j1];
                for (d, s) in dst.iter_mut().zip(&src) {
                    *d = s[i - i0];
                }
            }
        }
    }
}
