//! GETRF on one panel: P·A = L·U of an m×n block by LU with partial pivoting, run
//! single-threaded inside one task ([`TileGetrf`]: in f64 by recursive halves over our TRSM for a
//! block at least as tall as wide, `getrf_recursive`, with the backend's DGETRF for the leaves
//! and wide blocks; in the other types by the backend's `?getrf_` whole, whose pivots are
//! LAPACK's: the first largest |re| + |im| of a complex column, as ICAMAX and IZAMAX choose).
//! `ipiv` receives the block-local row interchanges (1-based, LAPACK's convention) for the first
//! min(m, n) columns; the return value is LAPACK's INFO for the block: the 1-based index of the
//! first exactly-zero pivot, or 0.
//!
//! A zero pivot does not stop the factorization (as in LAPACK): the remaining columns are still
//! factored, so the tile algorithm carries on and reports INFO at the end.

use super::{fi, TileTrsm};
use crate::backend::lapack as bk;
use crate::scalar::{c32, c64, Scalar};
use crate::tile::{View, ViewMut};

pub fn getrf<T: TileGetrf>(a: ViewMut<T>, mut ipiv: ViewMut<i32>) -> i32 {
    let k = a.m.min(a.n);
    // The pivot vector must hold one entry per factored column, stored contiguously.
    assert!(ipiv.m >= k && ipiv.n == 1, "pivot block too small for the panel");
    getrf_slice(a, &mut ipiv.column_mut(0)[..k])
}

/// [`getrf`] with the pivots in a slice (the distributed LU keeps them in its panel buffer).
pub fn getrf_slice<T: TileGetrf>(a: ViewMut<T>, ipiv: &mut [i32]) -> i32 {
    let k = a.m.min(a.n);
    assert!(ipiv.len() >= k, "pivot slice too small for the panel");
    if k == 0 {
        return 0;
    }
    T::getrf_block(a, &mut ipiv[..k])
}

/// GEPP of one block in an element type ([`getrf_slice`], k = min(m, n) ≥ 1 pivots): f64 by
/// recursive halves over its own TRSM (`getrf_recursive`, measured faster than DGETRF on one
/// thread), the other types by the backend's `?getrf_` on the whole block (`getrf_recursive` is
/// written for every type and tested in each, but only f64's was measured; the other types'
/// choice is the line of their impl).
pub trait TileGetrf: TileTrsm {
    fn getrf_block(a: ViewMut<Self>, ipiv: &mut [i32]) -> i32;
}

impl TileGetrf for f64 {
    #[inline]
    fn getrf_block(a: ViewMut<f64>, ipiv: &mut [i32]) -> i32 {
        getrf_recursive(a, ipiv)
    }
}

macro_rules! backend_getrf {
    ($($t:ty),*) => {$(
        impl TileGetrf for $t {
            fn getrf_block(a: ViewMut<$t>, ipiv: &mut [i32]) -> i32 {
                getrf_backend(a, ipiv)
            }
        }
    )*};
}
backend_getrf!(f32, c32, c64);

/// The backend's `?getrf_` on the block (k = min(m, n) pivots in `ipiv`).
fn getrf_backend<T: Scalar>(mut a: ViewMut<T>, ipiv: &mut [i32]) -> i32 {
    let mut info = 0;
    // SAFETY: `a` is a valid m×n block with leading dimension a.ld >= m, and `ipiv` holds
    // min(m, n) integers ([`getrf_slice`]'s assertion).
    unsafe { bk::getrf::<T>(&fi(a.m), &fi(a.n), a.as_mut_ptr(), &fi(a.ld), ipiv.as_mut_ptr(), &mut info) };
    info
}

/// Columns up to which [`getrf_recursive`] hands a block to the backend's xGETRF.
const GETRF_LEAF: usize = 16;

/// LU with partial pivoting by halves of the columns: P₁·[A₁₁; A₂₁] = [L₁₁; L₂₁]·U₁₁
/// (recursively), the interchanges applied to [A₁₂; A₂₂], U₁₂ = L₁₁⁻¹·A₁₂, A₂₂ ← A₂₂ − L₂₁·U₁₂,
/// P₂·A₂₂ = L₂₂·U₂₂ (recursively), P₂ applied to L₂₁. Blocks of at most [`GETRF_LEAF`] columns,
/// and blocks wider than tall, go to the backend's xGETRF. Written for every type, run by f64
/// alone ([`TileGetrf`]; the timings below are f64's, the other types are not measured).
///
/// The pivots are partial pivoting's, column by column, like DGETRF's own recursive order; the
/// work outside the leaves is our TRSM and the backend's GEMM. One thread, square blocks, best
/// of 30 (OpenBLAS 0.3.21): order 128 0.08 against 0.12 ms, 256 0.38 against 0.54–0.63 ms, 384
/// 1.06 against 1.31 ms, 512 2.4–2.8 against 3.8 ms; tall panels (1000×256, 2000×192, 6000×192)
/// the same time as DGETRF (within 4%).
fn getrf_recursive<T: TileTrsm>(a: ViewMut<T>, ipiv: &mut [i32]) -> i32 {
    use super::{Diag, Dir, Side, Trans, Uplo};
    let (m, n) = (a.m, a.n);
    if n <= GETRF_LEAF || m < n {
        return getrf_backend(a, ipiv);
    }
    let n1 = n / 2;
    let (mut left, mut right) = a.split_cols_mut(n1);
    let (piv1, piv2) = ipiv.split_at_mut(n1);
    let info1 = getrf_recursive(left.reborrow(), piv1);
    super::laswp(right.reborrow(), piv1, Dir::Forward);
    let (l11, l21) = (left.as_view().sub(0, 0, n1, n1), left.as_view().sub(n1, 0, m - n1, n1));
    let (mut u12, mut a22) = right.split_rows(n1);
    super::trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, T::one(), l11, u12.reborrow());
    super::gemm(Trans::No, Trans::No, T::from_f64(-1.0), l21, u12.as_view(), T::one(), a22.reborrow());
    let info2 = getrf_recursive(a22, piv2);
    // P₂ on L₂₁ (rows n1.. of the left half), then the pivots counted from the block's top.
    super::laswp(left.sub_mut(n1, 0, m - n1, n1), piv2, Dir::Forward);
    for p in piv2.iter_mut() {
        *p += n1 as i32;
    }
    if info1 != 0 {
        info1
    } else if info2 != 0 {
        info2 + n1 as i32
    } else {
        0
    }
}

/// One block of columns beside an LU panel, as DGETRF's blocked loop updates it: the panel's
/// interchanges `piv` (block-local, 1-based) on `c` (its rows from the panel's top), then its top
/// r rows ← L₁₁⁻¹·(them) (unit lower) and the rows below −= L₂₁·(top rows), with L the panel's
/// rows (r = `piv.len()` columns used).
pub fn lu_update<T: TileTrsm>(l: View<T>, piv: &[i32], mut c: ViewMut<T>) {
    use super::{Diag, Side, Trans, Uplo};
    let r = piv.len();
    let (m, n) = (c.m, c.n);
    super::laswp(c.sub_mut(0, 0, m, n), piv, super::Dir::Forward);
    let (mut u, below) = c.split_rows(r);
    super::trsm(
        Side::Left,
        Uplo::Lower,
        Trans::No,
        Diag::Unit,
        T::one(),
        l.sub(0, 0, r, r),
        u.sub_mut(0, 0, r, n),
    );
    if below.m > 0 {
        super::gemm(
            Trans::No,
            Trans::No,
            T::from_f64(-1.0),
            l.sub(r, 0, below.m, r),
            u.as_view(),
            T::one(),
            below,
        );
    }
}

/// LAPACK-style interchanges (1-based, applied in order) that bring panel rows `src[0]`,
/// `src[1]`, ... to the top positions 0, 1, ... (CALU's winners): interchange t swaps position t
/// with wherever row `src[t]` is by then.
pub fn interchanges_to_top(src: &[usize]) -> Vec<i32> {
    // Only the positions the interchanges touch: row -> position and position -> row.
    let mut pos_of: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut row_at: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut ipiv = Vec::with_capacity(src.len());
    for (t, &want) in src.iter().enumerate() {
        let p = *pos_of.get(&want).unwrap_or(&want);
        ipiv.push(p as i32 + 1);
        if p != t {
            let at_t = *row_at.get(&t).unwrap_or(&t);
            row_at.insert(t, want);
            row_at.insert(p, at_t);
            pos_of.insert(want, t);
            pos_of.insert(at_t, p);
        }
    }
    ipiv
}

/// C ← C·U⁻¹ with U the upper triangle of the square `u` (non-unit): one TRSM, unless a diagonal
/// entry is exactly zero; then column by column as LAPACK's DGETF2 scales its L, a zero pivot
/// dividing nothing (CALU's L₂₁ of an exactly singular panel).
pub fn trsm_right_upper_zero_safe<T: TileTrsm>(u: View<T>, mut c: ViewMut<T>) {
    let r = u.m;
    let zero = T::zero();
    assert!(u.n >= r && c.n == r, "U is r×r and C has r columns");
    if (0..r).all(|t| u.get(t, t) != zero) {
        super::trsm(
            super::Side::Right,
            super::Uplo::Upper,
            super::Trans::No,
            super::Diag::NonUnit,
            T::one(),
            u.sub(0, 0, r, r),
            c,
        );
        return;
    }
    for t in 0..r {
        let d = u.get(t, t);
        if d != zero {
            for i in 0..c.m {
                c.set(i, t, c.get(i, t).div(d));
            }
        }
        for j in t + 1..r {
            let ut = u.get(t, j);
            if ut != zero {
                for i in 0..c.m {
                    c.set(i, j, c.get(i, j).sub(c.get(i, t).mul(ut)));
                }
            }
        }
    }
}

/// The composite row permutation of one panel's interchanges (1-based pivots `piv`, one per top
/// position, applied in order, as DLASWP does): for each top position t < r, the panel row that
/// ends at t (`src`) and, when that row comes from r or below, the top row that ends in its place
/// (`fill`). Every row from r on ends up unchanged or holding an original top row: a row moved
/// down is never moved again, since each later interchange swaps a row of the top block with a
/// row at or below its own position. Rows are relative to the panel's first.
pub struct Perm {
    pub src: Vec<usize>,
    pub fill: Vec<Option<usize>>,
}

impl Perm {
    pub fn of(piv: &[i32]) -> Perm {
        let r = piv.len();
        // Only the rows the interchanges touch: position -> the original row now there.
        let mut at: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        for (s, &pv) in piv.iter().enumerate() {
            let t = pv as usize - 1;
            if t != s {
                let a = *at.get(&s).unwrap_or(&s);
                let b = *at.get(&t).unwrap_or(&t);
                at.insert(s, b);
                at.insert(t, a);
            }
        }
        let src: Vec<usize> = (0..r).map(|t| *at.get(&t).unwrap_or(&t)).collect();
        let fill = src.iter().map(|&s| (s >= r).then(|| at[&s])).collect();
        Perm { src, fill }
    }
}

/// DGETRS on one block: B ← op(A)⁻¹·B with `lu` holding DGETRF's factors of the square A and
/// `piv` its interchanges (1-based, block-local).
pub fn getrs(trans: super::Trans, lu: crate::tile::View<f64>, piv: &[i32], b: ViewMut<f64>) {
    let n = lu.m;
    assert!(lu.n == n && b.m == n && piv.len() >= n, "getrs: a square factor, B of its rows");
    if n == 0 || b.n == 0 {
        return;
    }
    if b.n >= 8 && 6 * b.n >= n {
        getrs_by_rows(trans, lu, &piv[..n], b)
    } else {
        getrs_backend(trans, lu, piv, b)
    }
}

/// [`getrs`] by the backend's DGETRS (shapes checked by the caller).
fn getrs_backend(trans: super::Trans, lu: crate::tile::View<f64>, piv: &[i32], mut b: ViewMut<f64>) {
    let n = lu.m;
    let mut info = 0;
    // SAFETY: `lu` is a valid n×n block (ld ≥ n), `piv` holds n integers and `b` is a valid
    // n×nrhs block with ld ≥ n, as asserted above.
    unsafe {
        bk::dgetrs(
            crate::backend::lapack::ch(trans.ch()),
            &fi(n),
            &fi(b.n),
            lu.as_ptr(),
            &fi(lu.ld),
            piv.as_ptr(),
            b.as_mut_ptr(),
            &fi(b.ld),
            &mut info,
            1,
        )
    };
    debug_assert_eq!(info, 0);
}

thread_local! {
    /// [`getrs_by_rows`]'s scratch block, kept by each thread from one call to the next (a task
    /// on a 256×256 factor would otherwise allocate and fault in 512 KB every time).
    static SCRATCH: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// At most this many values stay in a thread's [`SCRATCH`] (1 MiB); larger blocks are allocated
/// for the call.
const SCRATCH_KEEP: usize = 1 << 17;

/// Runs `f` on a scratch slice of `len` values (contents unspecified).
fn with_scratch(len: usize, f: impl FnOnce(&mut [f64])) {
    if len > SCRATCH_KEEP {
        return f(&mut vec![0.0; len]);
    }
    SCRATCH.with(|cell| {
        let mut w = cell.borrow_mut();
        if w.len() < len {
            w.resize(len, 0.0);
        }
        f(&mut w[..len])
    })
}

/// [`getrs`] for a wide B, solving Bᵀ's rows instead: the backend's triangular solves with the
/// triangle on the right run at about twice the rate of those with it on the left on small
/// blocks (OpenBLAS, one thread, a 64×64 factor and 64 columns: 19 µs against 45 µs each), so
/// B is transposed into a scratch block W = Bᵀ and
///
/// ```text
///   op = N:  X = U⁻¹·L⁻¹·P·B   ⇔  Xᵀ = (P·B)ᵀ·L⁻ᵀ·U⁻ᵀ   (interchanges first, then two solves on W)
///   op = T:  X = Pᵀ·L⁻ᵀ·U⁻ᵀ·B  ⇔  (L⁻ᵀ·U⁻ᵀ·B)ᵀ = Bᵀ·U⁻¹·L⁻¹ (two solves on W, interchanges last)
/// ```
///
/// where P·B applies the interchanges in order (DGETRS's DLASWP). The two transposes cost
/// O(n·nrhs), the solves O(n²·nrhs). Measured against DGETRS on one thread: with a 64×64 factor
/// 36 against 58 µs for 64 columns, 10.8 against 14.5 µs for 8; with 256×256, 402 against 443 µs
/// for 64 columns but slower below about 40 columns (hence the `6·nrhs ≥ n` rule in [`getrs`]).
fn getrs_by_rows(trans: super::Trans, lu: crate::tile::View<f64>, piv: &[i32], mut b: ViewMut<f64>) {
    use super::{trsm, Diag, Dir, Side, Trans, Uplo};
    let (n, nrhs) = (b.m, b.n);
    if trans == Trans::No {
        super::laswp(b.reborrow(), piv, Dir::Forward);
    }
    with_scratch(nrhs * n, |w| {
        let mut wv = ViewMut::from_slice(w, nrhs, n, nrhs);
        super::transpose(b.as_view(), wv.reborrow());
        let (first, second) = if trans == Trans::No {
            ((Uplo::Lower, Trans::Yes, Diag::Unit), (Uplo::Upper, Trans::Yes, Diag::NonUnit))
        } else {
            ((Uplo::Upper, Trans::No, Diag::NonUnit), (Uplo::Lower, Trans::No, Diag::Unit))
        };
        for (uplo, t, diag) in [first, second] {
            trsm(Side::Right, uplo, t, diag, 1.0, lu, wv.reborrow());
        }
        super::transpose(wv.as_view(), b.reborrow());
    });
    if trans == Trans::Yes {
        super::laswp(b, piv, Dir::Backward);
    }
}

/// The candidate buffer of a GEPP panel whose rows are in several places
/// (`DeviceOp::LuColumn`): at least (w + 2)×2 for a w-wide panel. Column 0 holds in rows 0..w
/// the place's candidate row for pivot column j (its values across the panel, as they are once
/// columns 0..j are finished), in row w its panel row (−1: the place has no row from j on) and
/// in row w + 1 a 1 when column 1's rows 0..w hold panel row j (the place that has it), else 0.
/// The panel row and the flag are integers held as [`Scalar::from_index`] stores them.
pub struct Candidate;

impl Candidate {
    /// Rows of a candidate buffer for a panel of width `w`.
    pub const fn rows(w: usize) -> usize {
        w + 2
    }
}

/// A panel row as the LAPACK integer a pivot buffer holds ([`Scalar::from_index`]).
pub fn row_index(r: usize) -> i32 {
    i32::try_from(r).expect("a panel row fits LAPACK's 32-bit integers")
}

/// Writes into `cand` the candidate for pivot column `j` of the block `a` (its rows are panel
/// rows `ids`, ascending): its first largest magnitude in column j among rows j.. (IDAMAX's
/// choice within the block), and row j itself when the block has it.
pub fn gepp_candidate<T: Scalar>(a: View<T>, ids: &[usize], j: usize, mut cand: ViewMut<T>) {
    let w = a.n;
    assert!(cand.m >= Candidate::rows(w) && cand.n >= 2, "a candidate buffer of (w + 2)×2 at least");
    let from = ids.partition_point(|&s| s < j);
    let col = a.column(j);
    let mut best: Option<usize> = None;
    for b in from..a.m {
        if best.is_none_or(|x| col[b].abs1() > col[x].abs1()) {
            best = Some(b);
        }
    }
    match best {
        Some(b) => {
            for c in 0..w {
                cand.set(c, 0, a.get(b, c));
            }
            cand.set(w, 0, T::from_index(row_index(ids[b])));
        }
        None => cand.set(w, 0, T::from_index(-1)),
    }
    let top = ids.get(from).filter(|&&s| s == j).map(|_| from);
    cand.set(w + 1, 0, T::from_index(top.is_some() as i32));
    if let Some(b) = top {
        for c in 0..w {
            cand.set(c, 1, a.get(b, c));
        }
    }
}

/// Finishes pivot column `c` on the block `a` (its rows are panel rows `ids`, ascending) from
/// every place's candidate for it (`cands`, [`gepp_candidate`]'s buffers): the pivot row is the
/// largest magnitude, the lowest panel row among equals; it and row c trade places where they
/// are in this block (over the whole width); then, as DGETF2 does, column c below row c is
/// divided by the pivot (unless it is zero) and the rows below c get the rank-1 update with the
/// pivot row on columns c + 1..`c1` (the rest of c's column block; the columns right of it wait
/// for [`gepp_block_update`]). The pivot row, as it was chosen, goes to row c of `urows`.
/// Returns the pivot's panel row and value.
pub fn gepp_finish_column<T: Scalar>(
    mut a: ViewMut<T>,
    ids: &[usize],
    (c, c1): (usize, usize),
    cands: &[View<T>],
    mut urows: ViewMut<T>,
) -> (usize, T) {
    let w = a.n;
    let mut best: Option<(f64, usize, usize)> = None;
    for (q, v) in cands.iter().enumerate() {
        let id = v.get(w, 0).index();
        if id < 0 {
            continue;
        }
        let (x, s) = (v.get(c, 0).abs1(), id as usize);
        if best.is_none_or(|(bx, bs, _)| x > bx || (x == bx && s < bs)) {
            best = Some((x, s, q));
        }
    }
    let (_, s, q) = best.expect("the place of row c always has a candidate");
    let top = cands.iter().find(|v| v.get(w + 1, 0).index() == 1).expect("one place holds row c");
    let prow: Vec<T> = (0..w).map(|x| cands[q].get(x, 0)).collect();
    for (x, &v) in prow.iter().enumerate() {
        urows.set(c, x, v);
    }
    if s != c {
        if let Ok(b) = ids.binary_search(&s) {
            for x in 0..w {
                a.set(b, x, top.get(x, 1));
            }
        }
        if let Ok(b) = ids.binary_search(&c) {
            for (x, &v) in prow.iter().enumerate() {
                a.set(b, x, v);
            }
        }
    }
    let pivot = prow[c];
    let below = ids.partition_point(|&i| i <= c);
    let (left, mut right) = a.split_cols_mut(c + 1);
    let (_, mut lc) = left.split_cols_mut(c);
    let l = &mut lc.column_mut(0)[below..];
    if pivot != T::zero() {
        // As ?GETF2: by the reciprocal unless it would overflow (|pivot| below the safe minimum).
        if pivot.abs().into() >= T::safe_min() {
            let inv = T::one().div(pivot);
            l.iter_mut().for_each(|x| *x = x.mul(inv));
        } else {
            l.iter_mut().for_each(|x| *x = x.div(pivot));
        }
    }
    for (x, &u) in prow.iter().enumerate().take(c1).skip(c + 1) {
        if u != T::zero() {
            let col = &mut right.column_mut(x - c - 1)[below..];
            for (y, &li) in col.iter_mut().zip(l.iter()) {
                *y = y.sub(li.mul(u));
            }
        }
    }
    (s, pivot)
}

/// After column block c0..c1 of a split GEPP panel is finished (every place has its pivot rows,
/// as chosen, in rows c0..c1 of `urows`): U₁₂ = L₁₁⁻¹·(those rows' columns c1..), L₁₁ their unit
/// lower triangle on columns c0..c1, computed on every place alike; the place holding panel
/// rows c0..c1 writes U₁₂ there, and every row from c1 on gets −= (its columns c0..c1)·U₁₂ (one
/// GEMM). `a`'s rows are panel rows `ids`, ascending.
pub fn gepp_block_update<T: TileTrsm>(
    a: ViewMut<T>,
    ids: &[usize],
    (c0, c1): (usize, usize),
    urows: View<T>,
) {
    use super::{Diag, Side, Trans, Uplo};
    let (w, b) = (a.n, c1 - c0);
    if c1 >= w {
        return;
    }
    let mut u12: Vec<T> = Vec::with_capacity(b * (w - c1));
    for x in c1..w {
        u12.extend((c0..c1).map(|t| urows.get(t, x)));
    }
    let mut u = ViewMut::from_slice(&mut u12, b, w - c1, b.max(1));
    super::trsm(
        Side::Left,
        Uplo::Lower,
        Trans::No,
        Diag::Unit,
        T::one(),
        urows.sub(c0, c0, b, b),
        u.reborrow(),
    );
    let (left, mut right) = a.split_cols_mut(c1);
    if let Ok(top) = ids.binary_search(&c0) {
        assert!(ids.get(top + b - 1) == Some(&(c1 - 1)), "rows c0..c1 lie together");
        super::copy(u.as_view(), right.sub_mut(top, 0, b, w - c1));
    }
    let from = ids.partition_point(|&i| i < c1);
    let rows = ids.len() - from;
    if rows > 0 {
        super::gemm(
            Trans::No,
            Trans::No,
            T::from_f64(-1.0),
            left.as_view().sub(from, c0, rows, b),
            u.as_view(),
            T::one(),
            right.sub_mut(from, 0, rows, w - c1),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{interchanges_to_top, Perm};
    use crate::algo::testutil::Rng;

    /// The sequential interchanges applied to rows 0..len: the original row at each position.
    fn applied(piv: &[i32], len: usize) -> Vec<usize> {
        let mut rows: Vec<usize> = (0..len).collect();
        for (s, &pv) in piv.iter().enumerate() {
            rows.swap(s, pv as usize - 1);
        }
        rows
    }

    /// The recursive kernel in every type against the backend's xGETRF on the same block: the
    /// same pivots and INFO (ties included: entries ±1, ±2, and in the complex types ±i, 1 + i,
    /// equal in |re| + |im|), factors to rounding, nothing outside the block written.
    #[test]
    fn recursive_kernel_gives_the_backends_pivots_in_every_type() {
        fn each<T: super::TileTrsm>() {
            use crate::algo::testutil::{parts, rel};
            use crate::tile::ViewMut;
            let _blas = crate::backend::BlasThreadsGuard::new();
            let name = std::any::type_name::<T>();
            for &(m, n, ties, zero) in &[
                (100, 100, false, None),
                (200, 64, false, None),
                (150, 96, true, None),
                (90, 40, false, Some(21)),
            ] {
                let ld = m + 3;
                let mut rng = Rng::new((m + n) as u64);
                let pad = T::from_parts(-9.5, 2.0);
                let mut a0 = vec![pad; ld * n];
                let vals: &[(f64, f64)] = if T::COMPLEX {
                    &[(1.0, 0.0), (-2.0, 0.0), (0.0, 1.0), (1.0, 1.0), (-1.0, 0.0), (0.0, -2.0)]
                } else {
                    &[(1.0, 0.0), (-2.0, 0.0), (-1.0, 0.0), (2.0, 0.0)]
                };
                for j in 0..n {
                    for i in 0..m {
                        let (re, im) = (rng.next(), rng.next());
                        a0[i + j * ld] = if ties {
                            let (r, c) = vals[((re.abs() * 1e6) as usize) % vals.len()];
                            T::from_parts(r, c)
                        } else {
                            T::from_parts(re, im)
                        };
                    }
                }
                if let Some(c) = zero {
                    (0..m).for_each(|i| a0[i + c * ld] = T::zero());
                }
                let (mut want, mut got) = (a0.clone(), a0.clone());
                let (mut pw, mut pg) = (vec![0i32; n], vec![0i32; n]);
                let iw = super::getrf_backend(ViewMut::from_slice(&mut want, m, n, ld), &mut pw);
                let ig = super::getrf_recursive(ViewMut::from_slice(&mut got, m, n, ld), &mut pg);
                let what = format!("{name} {m}×{n} ties {ties} zero {zero:?}");
                assert_eq!((ig, &pg), (iw, &pw), "{what}: INFO and pivots");
                assert!(rel(&got, &want) <= 100.0 * n as f64 * T::eps(), "{what}: {}", rel(&got, &want));
                for (p, (&x, &y)) in got.iter().zip(&a0).enumerate() {
                    if p % ld >= m {
                        assert_eq!(parts(x), parts(y), "{what}: row {} past the block written", p % ld);
                    }
                }
            }
        }
        each::<f64>();
        each::<f32>();
        each::<crate::scalar::c32>();
        each::<crate::scalar::c64>();
    }

    #[test]
    fn getrs_by_rows_equals_dgetrs() {
        use crate::kernels::Trans;
        use crate::tile::{View, ViewMut};
        // One BLAS thread: OpenBLAS's threaded DGETRF overflows a test thread's 2 MiB stack.
        let _blas = crate::backend::BlasThreadsGuard::new();
        let mut rng = Rng::new(5);
        for &(n, nrhs) in &[(1, 8), (7, 8), (64, 64), (100, 17), (33, 200)] {
            let (lda, ldb) = (n + 3, n + 2);
            let mut a: Vec<f64> = (0..lda * n).map(|_| rng.next()).collect();
            let mut piv = vec![0i32; n];
            assert_eq!(super::getrf_slice(ViewMut::from_slice(&mut a, n, n, lda), &mut piv), 0);
            let b0: Vec<f64> = (0..ldb * nrhs).map(|_| rng.next()).collect();
            for trans in [Trans::No, Trans::Yes] {
                let (mut x, mut y) = (b0.clone(), b0.clone());
                let lu = View::from_slice(&a, n, n, lda);
                super::getrs_backend(trans, lu, &piv, ViewMut::from_slice(&mut x, n, nrhs, ldb));
                super::getrs_by_rows(trans, lu, &piv, ViewMut::from_slice(&mut y, n, nrhs, ldb));
                let scale = x.iter().fold(1.0f64, |s, v| s.max(v.abs()));
                for (k, (p, q)) in x.iter().zip(&y).enumerate() {
                    if k % ldb >= n {
                        assert_eq!(p, q, "padding row {k} written");
                    } else {
                        assert!((p - q).abs() <= 1e-12 * scale, "n={n} nrhs={nrhs} {trans:?}: {p} vs {q}");
                    }
                }
            }
        }
    }

    #[test]
    fn interchanges_bring_the_winners_to_the_top() {
        let mut rng = Rng::new(11);
        for case in 0..500 {
            let len = 2 + case % 31;
            let r = 1 + case % len.min(8);
            // r distinct rows in a random order.
            let mut rows: Vec<usize> = (0..len).collect();
            for i in (1..len).rev() {
                let j = (((rng.next() + 1.0) / 2.0) * (i + 1) as f64) as usize;
                rows.swap(i, j.min(i));
            }
            let src = &rows[..r];
            let ipiv = interchanges_to_top(src);
            let got = applied(&ipiv, len);
            assert_eq!(&got[..r], src, "case {case}");
            assert!(
                ipiv.iter().enumerate().all(|(t, &p)| p as usize > t),
                "case {case}: LAPACK ipiv(t) >= t"
            );
        }
    }

    #[test]
    fn perm_matches_the_sequential_interchanges() {
        let mut rng = Rng::new(7);
        for case in 0..2000 {
            let len = 1 + case % 23;
            let r = 1 + (case / 23) % len.min(9);
            // Pivots as GEPP makes them: piv(s) - 1 >= s; often inside the top block.
            let piv: Vec<i32> = (0..r)
                .map(|s| {
                    let u = (rng.next() + 1.0) / 2.0;
                    let hi = if case % 3 == 0 { r } else { len };
                    (s + (u * (hi - s) as f64) as usize + 1) as i32
                })
                .collect();
            let want = applied(&piv, len);
            let perm = Perm::of(&piv);
            // Rebuild the final rows from the top sources and the fills only.
            let mut got: Vec<usize> = (0..len).collect();
            for t in 0..r {
                got[t] = perm.src[t];
                match perm.fill[t] {
                    Some(f) => {
                        assert!(perm.src[t] >= r && f < r, "case {case}: {piv:?}");
                        got[perm.src[t]] = f;
                    }
                    None => assert!(perm.src[t] < r, "case {case}: {piv:?}"),
                }
            }
            assert_eq!(got, want, "case {case}: pivots {piv:?}");
        }
    }
}
