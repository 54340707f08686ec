//! LACGV on one block: every element replaced by its complex conjugate (nothing changes in the
//! real types). xGETRS with TRANS = 'T' in a complex type solves Aᵀ·X = B as Aᴴ·X̄ = B̄: the
//! tile solves take the adjoint, so B is conjugated before and after (conjugation is exact, and
//! conj(a)·conj(b) = conj(a·b) in floating point, so the solution is the adjoint solve's).

use crate::scalar::Scalar;
use crate::tile::ViewMut;

pub fn conj<T: Scalar>(mut a: ViewMut<T>) {
    if !T::COMPLEX {
        return;
    }
    for j in 0..a.n {
        for x in a.column_mut(j).iter_mut() {
            *x = x.conj();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::c64;

    #[test]
    fn conjugates_the_block_only() {
        let (m, n, ld) = (3, 2, 5);
        let a0: Vec<c64> = (0..ld * n).map(|x| c64 { re: x as f64, im: 1.0 + x as f64 }).collect();
        let mut a = a0.clone();
        conj(ViewMut::from_slice(&mut a, m, n, ld));
        for (p, (x, y)) in a.iter().zip(&a0).enumerate() {
            if p % ld < m {
                assert_eq!(*x, y.conj());
            } else {
                assert_eq!(x, y, "row {} past the block written", p % ld);
            }
        }
        let mut r = vec![-2.5f64; 4];
        conj(ViewMut::from_slice(&mut r, 2, 2, 2));
        assert_eq!(r, [-2.5; 4]);
    }
}
