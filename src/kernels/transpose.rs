//! Transposed tile copy: B ← Aᵀ (A m×n, B n×m). Used to factor Aᵀ instead of A when a driver
//! wants an LQ factorization (A = L·Q is the transpose of Aᵀ = Q'·R).

use crate::tile::{View, ViewMut};

pub fn transpose(a: View<f64>, mut b: ViewMut<f64>) {
    assert!(b.m == a.n && b.n == a.m, "transposed copy needs an n×m destination");
    for j in 0..a.n {
        for i in 0..a.m {
            b.set(j, i, a.get(i, j));
        }
    }
}
