//! LASWP on one block: the row interchanges of an LU factorization applied to an m×n block.
//!
//! `ipiv[i]` (1-based, relative to the block's first row) is the row swapped with row i + 1.
//! [`Dir::Forward`] applies them for i = 0, 1, … (P·B, as DGETRF and DGETRS with TRANS = 'N'
//! need); [`Dir::Backward`] applies them in reverse order (Pᵀ·B, for DGETRS with TRANS = 'T').
//! [`laswp_steps`] applies the interchanges of several LU steps, forward, a column at a time.

use super::fi;
use crate::backend::lapack as bk;
use crate::scalar::Scalar;
use crate::tile::ViewMut;

/// Order in which the interchanges are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Forward,
    Backward,
}

/// The interchanges `ipiv` on `a` by the backend's `?laswp_` (f64: `dlaswp_`).
pub fn laswp<T: Scalar>(mut a: ViewMut<T>, ipiv: &[i32], dir: Dir) {
    // An out-of-range pivot (only possible from a caller's corrupt IPIV in DGETRS) would make the
    // backend write outside the block; refuse it instead, which fails the call cleanly.
    assert!(ipiv.len() <= a.m, "more interchanges than rows");
    for (i, &p) in ipiv.iter().enumerate() {
        assert!(p >= 1 && p as usize <= a.m, "row interchange {} -> {p} outside 1..={}", i + 1, a.m);
    }
    if a.n == 0 || ipiv.is_empty() {
        return;
    }
    let incx = match dir {
        Dir::Forward => 1,
        Dir::Backward => -1,
    };
    // SAFETY: `a` is a valid m×n block; `ipiv` holds k2 = ipiv.len() entries, every one a row
    // index within 1..=m (checked above), so every swap stays inside the block.
    unsafe { bk::laswp::<T>(&fi(a.n), a.as_mut_ptr(), &fi(a.ld), &1, &fi(ipiv.len()), ipiv.as_ptr(), &incx) };
}

/// The interchanges of several LU steps on `a`, in order: step s swaps, for each of its pivots
/// `pivs[s]` (1-based, relative to row `steps[s].0`, as [`laswp`] takes them), rows from
/// `steps[s].0` on; `steps[s].1` is the number of pivots. Same result as one [`laswp`] per step
/// over all the columns, but column by column: a column (a few tens of KB) stays in the core's
/// cache across every step's swaps, so its rows come from memory once instead of once per step
/// (random pivot rows touch most of a tall column's cache lines at every step).
pub fn laswp_steps<T: Scalar>(mut a: ViewMut<T>, steps: &[(usize, usize)], pivs: &[Vec<i32>]) {
    assert_eq!(steps.len(), pivs.len(), "one pivot list per step");
    for (&(off, r), p) in steps.iter().zip(pivs) {
        assert!(off <= a.m && p.len() == r, "step at row {off} with {} of {r} pivots", p.len());
        for (t, &q) in p.iter().enumerate() {
            assert!(
                q >= 1 && off + q as usize <= a.m,
                "row interchange {} -> {q} outside the block",
                off + t + 1
            );
        }
    }
    for j in 0..a.n {
        let col = a.column_mut(j);
        for (&(off, _), p) in steps.iter().zip(pivs) {
            for (t, &q) in p.iter().enumerate() {
                col.swap(off + t, off + q as usize - 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{c32, c64};

    /// Several steps at once equal one LASWP per step over all the columns, in order, whatever
    /// the block width (tall blocks make the width one column); in every element type.
    #[test]
    fn steps_together_equal_one_laswp_per_step() {
        steps_in::<f64>();
        steps_in::<f32>();
        steps_in::<c32>();
        steps_in::<c64>();
    }

    fn steps_in<T: Scalar>() {
        for &(m, n) in &[(40usize, 7usize), (9000, 5), (3, 2)] {
            let ld = m + 3;
            let a0: Vec<T> = (0..ld * n).map(|x| T::from_parts(x as f64 * 0.5 + 1.0, -(x as f64))).collect();
            // Steps at rows 0, 2 and 3 (step s's pivots relative to its first row).
            let steps = [(0usize, 2usize), (2.min(m - 1), 1), (3.min(m - 1), m - 3.min(m - 1))];
            let pivs: Vec<Vec<i32>> = steps
                .iter()
                .map(|&(off, r)| (0..r).map(|t| (t + 1 + (t * 7 + off + 1) % (m - off - t)) as i32).collect())
                .collect();
            let mut want = a0.clone();
            for (&(off, _), p) in steps.iter().zip(&pivs) {
                let v = crate::tile::ViewMut::from_slice(&mut want[off..], m - off, n, ld);
                laswp(v, p, Dir::Forward);
            }
            let mut got = a0.clone();
            laswp_steps(crate::tile::ViewMut::from_slice(&mut got, m, n, ld), &steps, &pivs);
            assert_eq!(got, want, "m {m} n {n}");
            assert_ne!(got, a0, "m {m} n {n}: the interchanges moved rows");
        }
    }
}
