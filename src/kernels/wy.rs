//! The three products of a compact-WY block reflector applied one tile at a time (Schreiber and
//! Van Loan): with C split into tile rows C_i and V into the matching row blocks V_i,
//! Hᵀ·C = C − V·(Tᵀ·Σ_i V_iᵀ·C_i), so a distributed update forms the partial sums
//! S = Σ V_iᵀ·C_i where the tiles are ([`vt_c`]), W = Tᵀ·S once ([`tt_w`]) and C_i −= V_i·W
//! where the tiles are ([`c_minus_vw`]). DLARFB does the same on a whole column block.
//!
//! V_i is m×k. The row block holding the panel's diagonal is `unit`: its first k rows are unit
//! lower triangular (the diagonal implied, the part above it not read, as DGEQRF stores the
//! vectors under R).

use super::fi;
use crate::backend::lapack::{self as bk, ch};
use crate::scalar::Scalar;
use crate::tile::{View, ViewMut};

/// op(V₁)·X for V₁ the unit lower triangular k×k top of V and X the first k rows of `x`, as a
/// new k×n column-major array (DTRMM works in place, so on a copy). `trans` is b'N' or b'T'.
fn unit_top_times<T: Scalar>(v: View<T>, k: usize, trans: u8, x: View<T>) -> Vec<T> {
    let n = x.n;
    let mut tmp = vec![T::zero(); k * n];
    for j in 0..n {
        for i in 0..k {
            tmp[i + j * k] = x.get(i, j);
        }
    }
    // SAFETY: V's first k rows are a k×k block with leading dimension v.ld; tmp is k×n with
    // leading dimension k.
    unsafe {
        bk::trmm::<T>(
            ch(b'L'),
            ch(b'L'),
            ch(if trans == b'N' { b'N' } else { T::ADJOINT }),
            ch(b'U'),
            &fi(k),
            &fi(n),
            &T::one(),
            v.as_ptr(),
            &fi(v.ld),
            tmp.as_mut_ptr(),
            &fi(k),
        )
    }
    tmp
}

/// S ← β·S + V₁ᴴ·C₁ (β 0 or 1) restricted to the first k rows of V and C.
fn unit_top_vt_c<T: Scalar>(v: View<T>, k: usize, c: View<T>, beta: T, s: &mut ViewMut<T>) {
    let tmp = unit_top_times(v, k, b'T', c);
    for j in 0..c.n {
        for i in 0..k {
            // β is 0 (S is overwritten, NaN in it does not survive) or 1.
            let x = tmp[i + j * k];
            s.set(i, j, if beta == T::zero() { T::zero() } else { s.get(i, j) }.add(x));
        }
    }
}

/// S ← β·S + Vᴴ·C (β 0 or 1) for V m×k (`unit`: the diagonal row block), C m×n, S k×n.
pub fn vt_c<T: Scalar>(v: View<T>, k: usize, unit: bool, c: View<T>, beta: T, mut s: ViewMut<T>) {
    assert!(
        v.m == c.m && v.n >= k && s.m == k && s.n == c.n,
        "V {}×{}, C {}×{}, S {}×{}",
        v.m,
        v.n,
        c.m,
        c.n,
        s.m,
        s.n
    );
    if k == 0 || c.n == 0 {
        return;
    }
    let mut beta = beta;
    let mut top = 0;
    if unit {
        assert!(v.m >= k, "the diagonal block of V has fewer than {k} rows");
        unit_top_vt_c(v, k, c, beta, &mut s);
        beta = T::one();
        top = k;
    }
    let rest = v.m - top;
    if rest == 0 {
        return;
    }
    let (vr, cr) = (v.sub(top, 0, rest, k), c.sub(top, 0, rest, c.n));
    // SAFETY: Vr is rest×k, Cr rest×n, S k×n, each with its leading dimension.
    unsafe {
        bk::gemm::<T>(
            ch(T::ADJOINT),
            ch(b'N'),
            &fi(k),
            &fi(c.n),
            &fi(rest),
            &T::one(),
            vr.as_ptr(),
            &fi(vr.ld),
            cr.as_ptr(),
            &fi(cr.ld),
            &beta,
            s.as_mut_ptr(),
            &fi(s.ld),
        )
    }
}

/// W ← Tᴴ·W for T k×k upper triangular (DLARFT's forward, columnwise factor), W k×n.
pub fn tt_w<T: Scalar>(t: View<T>, mut w: ViewMut<T>) {
    let k = w.m;
    assert!(t.m >= k && t.n >= k, "T smaller than {k}×{k}");
    if k == 0 || w.n == 0 {
        return;
    }
    // SAFETY: T's leading k×k block and W (k×n) with their leading dimensions.
    unsafe {
        bk::trmm::<T>(
            ch(b'L'),
            ch(b'U'),
            ch(T::ADJOINT),
            ch(b'N'),
            &fi(k),
            &fi(w.n),
            &T::one(),
            t.as_ptr(),
            &fi(t.ld),
            w.as_mut_ptr(),
            &fi(w.ld),
        )
    }
}

/// C ← C − V·W for V m×k (`unit`: the diagonal row block), W k×n, C m×n.
pub fn c_minus_vw<T: Scalar>(v: View<T>, k: usize, unit: bool, w: View<T>, mut c: ViewMut<T>) {
    assert!(
        v.m == c.m && v.n >= k && w.m == k && w.n == c.n,
        "V {}×{}, W {}×{}, C {}×{}",
        v.m,
        v.n,
        w.m,
        w.n,
        c.m,
        c.n
    );
    let n = c.n;
    if k == 0 || n == 0 {
        return;
    }
    let mut top = 0;
    if unit {
        assert!(v.m >= k, "the diagonal block of V has fewer than {k} rows");
        let tmp = unit_top_times(v, k, b'N', w);
        for j in 0..n {
            for i in 0..k {
                c.set(i, j, c.get(i, j).sub(tmp[i + j * k]));
            }
        }
        top = k;
    }
    let rest = v.m - top;
    if rest == 0 {
        return;
    }
    let vr = v.sub(top, 0, rest, k);
    let mut cr = c.sub_mut(top, 0, rest, n);
    // SAFETY: Vr is rest×k, W k×n, Cr rest×n, each with its leading dimension.
    unsafe {
        bk::gemm::<T>(
            ch(b'N'),
            ch(b'N'),
            &fi(rest),
            &fi(n),
            &fi(k),
            &T::from_f64(-1.0),
            vr.as_ptr(),
            &fi(vr.ld),
            w.as_ptr(),
            &fi(w.ld),
            &T::one(),
            cr.as_mut_ptr(),
            &fi(cr.ld),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::TiledMatrix;

    /// The three pieces, row block by row block, give DLARFB's Hᵀ·C.
    #[test]
    fn pieces_match_larfb() {
        let (m, n, k, split) = (11usize, 5usize, 3usize, 6usize);
        let mut rng = crate::algo::testutil::Rng::new(7);
        let mut v: Vec<f64> = (0..m * k).map(|_| rng.next() - 0.5).collect();
        // Garbage above the diagonal of V (R's place) and below T's must not be read.
        let mut t: Vec<f64> = (0..k * k).map(|_| rng.next() - 0.5).collect();
        let c0: Vec<f64> = (0..m * n).map(|_| rng.next() - 0.5).collect();
        let mut want = c0.clone();
        let mut got = c0.clone();
        let mut s1 = vec![0.0; k * n];
        let mut s2 = vec![0.0; k * n];
        // SAFETY: each Vec outlives its single-tile matrix, and no two views alias.
        let (vm, tm, wm, gm, s1m, s2m) = unsafe {
            (
                TiledMatrix::from_raw(v.as_mut_ptr(), m, k, m, m, k),
                TiledMatrix::from_raw(t.as_mut_ptr(), k, k, k, k, k),
                TiledMatrix::from_raw(want.as_mut_ptr(), m, n, m, m, n),
                TiledMatrix::from_raw(got.as_mut_ptr(), m, n, m, m, n),
                TiledMatrix::from_raw(s1.as_mut_ptr(), k, n, k, k, n),
                TiledMatrix::from_raw(s2.as_mut_ptr(), k, n, k, k, n),
            )
        };
        let cfg = crate::config::Config::with_threads(1);
        let seq = crate::runtime::Seq::new(&cfg);
        let task = crate::runtime::Task::new("t").read(&vm, 0, 0).read(&tm, 0, 0).rw(&wm, 0, 0).rw(&gm, 0, 0);
        let task = task.rw(&s1m, 0, 0).rw(&s2m, 0, 0);
        seq.submit(task, move |c| {
            let (vv, tv) = (c.tile(&vm, 0, 0), c.tile(&tm, 0, 0));
            super::super::larfb(vv, k, tv, c.tile_mut(&wm, 0, 0));
            let mut g = c.tile_mut(&gm, 0, 0);
            let (mut a, mut b) = (c.tile_mut(&s1m, 0, 0), c.tile_mut(&s2m, 0, 0));
            vt_c(
                vv.sub(0, 0, split, k),
                k,
                true,
                g.as_view().sub(0, 0, split, n),
                0.0,
                a.sub_mut(0, 0, k, n),
            );
            vt_c(
                vv.sub(split, 0, m - split, k),
                k,
                false,
                g.as_view().sub(split, 0, m - split, n),
                0.0,
                b.sub_mut(0, 0, k, n),
            );
            for j in 0..n {
                for i in 0..k {
                    a.set(i, j, a.get(i, j) + b.get(i, j));
                }
            }
            tt_w(tv, a.sub_mut(0, 0, k, n));
            let wv = a.as_view();
            c_minus_vw(vv.sub(0, 0, split, k), k, true, wv, g.sub_mut(0, 0, split, n));
            c_minus_vw(vv.sub(split, 0, m - split, k), k, false, wv, g.sub_mut(split, 0, m - split, n));
            Ok(())
        });
        seq.wait().unwrap();
        for (x, y) in got.iter().zip(&want) {
            assert!((x - y).abs() <= 1e-13, "{x} vs {y}");
        }
        assert!(got.iter().zip(&c0).any(|(x, y)| x != y), "the update changed nothing");
    }
}
