//! The math of every task, stated once: [`Op::compute`] runs an op on host views. The host
//! runtimes (shared memory, every rank of the distributed one) and the emulated accelerator call
//! it; the CUDA device runs the same op as cuBLAS/cuSOLVER calls ([`crate::device::lower`]), and
//! the simulator costs it by [`Op::flops`].

use super::{Op, Tiles};
use crate::device::{ColSrc, LuSrc};
use crate::kernels::{self, Diag, Dir, Perm, Side, Trans, Uplo};
use crate::scalar::{c32, c64, Scalar};
use crate::tile::{View, ViewMut};

/// How a runtime hands an op its inputs. An operand ([`Tiles`]: declared positions) comes as one
/// or more blocks stacked vertically: one when its tiles are adjacent in memory, else one per
/// adjacent group (tiles received from other ranks one by one, for instance).
pub trait Operands<'a, T: Scalar = f64> {
    /// Operand `t`, read-only, as vertically stacked pieces (together `t`'s rows).
    fn input(&mut self, t: Tiles) -> Vec<View<'a, T>>;
    /// Operand `t`, writable, as one block: a second output of an op that writes two
    /// ([`Op::QrPanel`]'s `tt`), declared written by the task and distinct from its output.
    fn output(&mut self, t: Tiles) -> ViewMut<'a, T>;
}

/// The element types ops run on. Every op of the Cholesky family (`Gemm`, `Syrk`, `Trsm`,
/// `Potrf`), of the LU (partial pivoting: `LuPanel`, `LuLeaf`, `LuSplitUpdate`, `LuUpdate`,
/// `Laswp`, `LaswpSteps`; tile columns on several places: `LuExtract`, `LuNewTop`, `LuFill`,
/// split panels' `LuColumn`; CALU's tournament: `CaluLeaf`, `CaluMerge`, `CaluRoot`, `CaluTop`),
/// of the inverses (`Trmm`, `Trtri`, `Lauum`, `LowerOut`, `ColExtract`, `ColFill`) and of the QR
/// family (`QrPanel`, `Larfb`, `QrVtc`, `QrTw`, `QrVw`, `Gather`, `Scatter`, `QrT`, `QrApply`,
/// `QrOrg`) is stated once for every [`Scalar`] in [`Op::compute`]; the block tridiagonal
/// solver's (`BtLu`, `BtSolve`) are f64 only ([`OpElem::compute_rest`]). Ops of every type go
/// to devices (the emulated device runs [`Op::compute`], a CUDA device the type's cuBLAS and
/// cuSOLVER routines).
pub trait OpElem: kernels::TileGetrf {
    /// The ops [`Op::compute`] does not state generically.
    fn compute_rest<'a>(op: &Op, ins: &mut impl Operands<'a, Self>, out: ViewMut<Self>) -> i32;
}

impl OpElem for f64 {
    fn compute_rest<'a>(op: &Op, ins: &mut impl Operands<'a, f64>, out: ViewMut<f64>) -> i32 {
        op.compute_f64(ins, out)
    }
}

macro_rules! f64_only_ops {
    ($($t:ty),*) => {$(
        impl OpElem for $t {
            fn compute_rest<'a>(op: &Op, _: &mut impl Operands<'a, $t>, _: ViewMut<$t>) -> i32 {
                panic!("op {} runs on f64 only so far, not on {}", op.name(), stringify!($t))
            }
        }
    )*};
}
f64_only_ops!(f32, c32, c64);

/// A block's reflector scalars tau as `Op::QrT` carries them: each one's parts in f64 (exact in
/// every type), one per scalar for the real types and two (real, imaginary) for the complex ones.
pub fn tau_parts<T: Scalar>(tau: &[T]) -> Vec<f64> {
    if T::COMPLEX {
        tau.iter().flat_map(|t| [t.re().into(), t.im().into()]).collect()
    } else {
        tau.iter().map(|t| t.re().into()).collect()
    }
}

/// The scalars [`tau_parts`] wrote.
fn taus_from_parts<T: Scalar>(parts: &[f64]) -> Vec<T> {
    if T::COMPLEX {
        parts.chunks_exact(2).map(|p| T::from_parts(p[0], p[1])).collect()
    } else {
        parts.iter().map(|&p| T::from_f64(p)).collect()
    }
}

/// Vertically stacked pieces as one block: the piece itself when there is one, else a copy in
/// `buf`.
fn whole<'b, T: Scalar>(pieces: &[View<'b, T>], buf: &'b mut Vec<T>) -> View<'b, T> {
    if let [one] = pieces {
        return *one;
    }
    let m: usize = pieces.iter().map(|p| p.m).sum();
    let n = pieces[0].n;
    buf.clear();
    buf.resize(m * n, T::zero());
    let mut r0 = 0;
    for p in pieces {
        assert_eq!(p.n, n, "stacked pieces of different widths");
        for j in 0..p.n {
            for i in 0..p.m {
                buf[r0 + i + j * m] = p.get(i, j);
            }
        }
        r0 += p.m;
    }
    View::from_slice(buf, m, n, m.max(1))
}

impl Op {
    /// Runs the op with `out` (the whole output operand, one block) and the other operands from
    /// `ins`; returns the kernel's INFO (0 unless a POTRF meets a non-positive pivot: then the
    /// local column, which `info_base` turns into the whole matrix's).
    ///
    /// An op's α and β are real numbers (f64), exact in every type (the generators' −1, 0, 1),
    /// taken into `T` by [`Scalar::from_f64`] (the identity for f64); a transposed operand is
    /// the adjoint; `Syrk` is the Hermitian rank-k update for complex types.
    pub fn compute<'a, T: OpElem>(&self, ins: &mut impl Operands<'a, T>, out: ViewMut<T>) -> i32 {
        let (mut b1, mut b2) = (Vec::new(), Vec::new());
        match *self {
            Op::Gemm { ta, tb, alpha, a, b, beta, k, .. } => {
                let (cm, cn) = (out.m, out.n);
                let (bm, bn) = if tb == Trans::No { (k, cn) } else { (cn, k) };
                let bv = whole(&ins.input(b), &mut b1).sub(0, 0, bm, bn);
                let ap = ins.input(a);
                if ta == Trans::No && ap.len() > 1 {
                    // A in row pieces: each updates its rows of C (no copy of A).
                    let mut out = out;
                    let mut r0 = 0;
                    for p in &ap {
                        let rows = p.m.min(cm - r0.min(cm));
                        if rows > 0 {
                            kernels::gemm(
                                ta,
                                tb,
                                alpha.to::<T>(),
                                p.sub(0, 0, rows, k),
                                bv,
                                beta.to::<T>(),
                                out.sub_mut(r0, 0, rows, cn),
                            );
                        }
                        r0 += p.m;
                    }
                } else {
                    let (am, an) = if ta == Trans::No { (cm, k) } else { (k, cm) };
                    let av = whole(&ap, &mut b2).sub(0, 0, am, an);
                    kernels::gemm(ta, tb, alpha.to::<T>(), av, bv, beta.to::<T>(), out);
                }
            }
            Op::Syrk { uplo, trans, alpha, a, beta, .. } => {
                let (alpha, beta) = (T::Real::from_f64(alpha), T::Real::from_f64(beta));
                kernels::herk(uplo, trans, alpha, whole(&ins.input(a), &mut b1), beta, out);
            }
            Op::Trsm { side, uplo, trans, diag, alpha, a, .. } => {
                let s = if side == Side::Left { out.m } else { out.n };
                let av = whole(&ins.input(a), &mut b1).sub(0, 0, s, s);
                kernels::trsm(side, uplo, trans, diag, T::from_f64(alpha), av, out);
            }
            Op::Potrf { uplo, .. } => return kernels::potrf(uplo, out),
            Op::Laswp { ipiv, ipiv_base, count, dir, .. } => {
                let pv = whole(&ins.input(ipiv), &mut b1);
                let piv: Vec<i32> = (0..count).map(|t| pv.get(t, 0).index() - ipiv_base).collect();
                kernels::laswp(out, &piv, dir);
            }
            Op::LaswpSteps { piv, ref steps, .. } => {
                // Every step's pivots, stacked as the buffers are.
                let pv = whole(&ins.input(piv), &mut b1);
                let mut base = 0;
                let pivs: Vec<Vec<i32>> = steps
                    .iter()
                    .map(|&(_, r)| {
                        let p = (0..r).map(|t| pv.get(base + t, 0).index()).collect();
                        base += r;
                        p
                    })
                    .collect();
                kernels::laswp_steps(out, steps, &pivs);
            }
            // The shared-memory LU's ops. A zero pivot is no failure here (LAPACK's xGETRF goes
            // on): the panel's INFO travels in its pivot buffer.
            Op::LuPanel { piv, .. } => {
                let r = out.m.min(out.n);
                let mut p = vec![0i32; r];
                let info = kernels::getrf_slice(out, &mut p);
                write_pivots(ins.output(piv), &p, info);
            }
            Op::LuLeaf { piv, c0, n, .. } => {
                let mut out = out;
                let (mk, w) = (out.m, out.n);
                let mut p = vec![0i32; n];
                let info = kernels::getrf_slice(out.sub_mut(c0, c0, mk - c0, n), &mut p);
                for cols in [0..c0, c0 + n..w] {
                    kernels::laswp(out.sub_mut(c0, cols.start, mk - c0, cols.len()), &p, Dir::Forward);
                }
                let mut pv = ins.output(piv);
                for (t, &x) in p.iter().enumerate() {
                    pv.set(c0 + t, 0, T::from_index(c0 as i32 + x));
                }
                if info > 0 && pv.get(0, 3).index() == 0 {
                    pv.set(0, 3, T::from_index(c0 as i32 + info));
                }
                if c0 + n == w.min(mk) {
                    complete_pivots(pv, w.min(mk));
                }
            }
            Op::LuSplitUpdate { u, c0, c1, c2, .. } => {
                let (rows, n1, n2) = (out.m, c1 - c0, c2 - c1);
                let (left, mut right) = out.split_cols(c1);
                let l = left.sub(0, c0, rows, n1);
                let (one, minus) = (T::one(), T::from_f64(-1.0));
                match u {
                    None => {
                        let (mut top, below) = right.sub_mut(0, 0, rows, n2).split_rows(c1);
                        let mut u12 = top.sub_mut(c0, 0, n1, n2);
                        kernels::trsm(
                            Side::Left,
                            Uplo::Lower,
                            Trans::No,
                            Diag::Unit,
                            one,
                            l.sub(c0, 0, n1, n1),
                            u12.sub_mut(0, 0, n1, n2),
                        );
                        if below.m > 0 {
                            kernels::gemm(
                                Trans::No,
                                Trans::No,
                                minus,
                                l.sub(c1, 0, below.m, n1),
                                u12.as_view(),
                                one,
                                below,
                            );
                        }
                    }
                    Some(u) => {
                        let uv = one_of(ins, u.first);
                        let c = right.sub_mut(0, 0, rows, n2);
                        kernels::gemm(Trans::No, Trans::No, minus, l, uv.sub(c0, c1, n1, n2), one, c);
                    }
                }
            }
            Op::LuUpdate { l, piv, r, .. } => {
                let (pivots, _) = read_pivots(whole(&ins.input(piv), &mut b1), r);
                kernels::lu_update(whole(&ins.input(l), &mut b2), &pivots, out);
            }
            // The inverses' ops (`algo::trtri`, `algo::getri`).
            Op::Trmm { side, uplo, trans, diag, alpha, a, .. } => {
                let s = if side == Side::Left { out.m } else { out.n };
                let av = whole(&ins.input(a), &mut b1).sub(0, 0, s, s);
                kernels::trmm(side, uplo, trans, diag, T::from_f64(alpha), av, out);
            }
            Op::Trtri { uplo, diag, .. } => {
                let info = kernels::trtri(uplo, diag, out);
                assert_eq!(info, 0, "TRTRI of a tile with a zero diagonal element (checked before)");
            }
            Op::Lauum { uplo, .. } => kernels::lauum(uplo, out),
            Op::LowerOut { w, diagonal, .. } => {
                let mut wv = ins.output(w);
                let mut out = out;
                for j in 0..out.n {
                    for i in if diagonal { j + 1 } else { 0 }..out.m {
                        wv.set(i, j, out.get(i, j));
                        out.set(i, j, T::zero());
                    }
                }
            }
            Op::ColExtract { a, ref cols, .. } => {
                let tiles: Vec<View<T>> = a.positions().map(|p| one_of(ins, p)).collect();
                let mut out = out;
                for (t, &(p, c)) in cols.iter().enumerate() {
                    copy_col(tiles[p], c, &mut out, t);
                }
            }
            Op::ColFill { from, ref src, .. } => {
                let (m, n) = (out.m, out.n);
                // The block as it was, for the columns that stay in this place.
                b1.clear();
                b1.extend((0..n).flat_map(|j| (0..m).map(move |i| (i, j))).map(|(i, j)| out.get(i, j)));
                let old = View::from_slice(&b1, m, n, m.max(1));
                let bufs: Vec<View<T>> =
                    from.map_or(Vec::new(), |f| f.positions().map(|p| one_of(ins, p)).collect());
                let mut out = out;
                for (c, s) in src.iter().enumerate() {
                    match *s {
                        ColSrc::Own(o) => copy_col(old, o, &mut out, c),
                        ColSrc::Buf(p, o) => copy_col(bufs[p], o, &mut out, c),
                    }
                }
            }
            Op::Larfb { .. }
            | Op::QrPanel { .. }
            | Op::Gather { .. }
            | Op::Scatter { .. }
            | Op::QrVtc { .. }
            | Op::QrTw { .. }
            | Op::QrVw { .. }
            | Op::QrT { .. }
            | Op::QrApply { .. }
            | Op::QrOrg { .. } => self.compute_qr(ins, out),
            Op::LuExtract { .. } | Op::LuNewTop { .. } | Op::LuFill { .. } => self.compute_lu(ins, out),
            Op::LuColumn { .. } => self.compute_lu_column(ins, out),
            Op::CaluLeaf { .. } | Op::CaluMerge { .. } | Op::CaluRoot { .. } | Op::CaluTop { .. } => {
                return self.compute_calu(ins, out)
            }
            _ => return T::compute_rest(self, ins, out),
        }
        0
    }

    /// [`Op::compute`] of the ops that are f64 only so far.
    fn compute_f64<'a>(&self, ins: &mut impl Operands<'a>, out: ViewMut<f64>) -> i32 {
        let (mut b1, mut b2) = (Vec::new(), Vec::new());
        match *self {
            Op::Gemm { .. }
            | Op::Syrk { .. }
            | Op::Trsm { .. }
            | Op::Potrf { .. }
            | Op::Laswp { .. }
            | Op::LaswpSteps { .. }
            | Op::LuPanel { .. }
            | Op::LuLeaf { .. }
            | Op::LuSplitUpdate { .. }
            | Op::LuUpdate { .. }
            | Op::Trmm { .. }
            | Op::Trtri { .. }
            | Op::Lauum { .. }
            | Op::LowerOut { .. }
            | Op::ColExtract { .. }
            | Op::ColFill { .. }
            | Op::Larfb { .. }
            | Op::QrPanel { .. }
            | Op::Gather { .. }
            | Op::Scatter { .. }
            | Op::QrVtc { .. }
            | Op::QrTw { .. }
            | Op::QrVw { .. }
            | Op::QrT { .. }
            | Op::QrApply { .. }
            | Op::QrOrg { .. }
            | Op::LuExtract { .. }
            | Op::LuNewTop { .. }
            | Op::LuFill { .. }
            | Op::LuColumn { .. }
            | Op::CaluLeaf { .. }
            | Op::CaluMerge { .. }
            | Op::CaluRoot { .. }
            | Op::CaluTop { .. } => unreachable!("Op::compute states these ops for every type"),
            Op::BtLu { piv, .. } => {
                let mut p = vec![0i32; out.m.min(out.n)];
                let info = kernels::getrf_slice(out, &mut p);
                let mut pv = ins.output(piv);
                for (t, &x) in p.iter().enumerate() {
                    pv.set(t, 0, x as f64);
                }
                return info;
            }
            Op::BtSolve { lu, piv, trans, .. } => {
                let lv = whole(&ins.input(lu), &mut b1);
                let pv = whole(&ins.input(piv), &mut b2);
                let p: Vec<i32> = (0..lv.m).map(|t| pv.get(t, 0) as i32).collect();
                kernels::getrs(trans, lv, &p, out);
            }
        }
        0
    }

    /// The LU's ops for tile columns on several places (ranks: the rows that cross them) and the
    /// fill of CALU's panel, in every type. A zero pivot is no failure
    /// here (LAPACK's DGETRF goes on): the panel's INFO travels in its pivot buffer.
    fn compute_lu<'a, T: OpElem>(&self, ins: &mut impl Operands<'a, T>, mut out: ViewMut<T>) {
        let (mut b1, mut b2) = (Vec::new(), Vec::new());
        match *self {
            Op::LuExtract { piv, c, ref offs, .. } => {
                let pv = whole(&ins.input(piv), &mut b1);
                let (_, perm) = read_pivots(pv, pv.m);
                let tiles: Vec<View<T>> = c.positions().map(|p| one_of(ins, p)).collect();
                for (t, &s) in perm.src.iter().enumerate() {
                    for (tile, &o) in tiles.iter().zip(offs) {
                        if (o..o + tile.m).contains(&s) {
                            copy_row(tile, s - o, &mut out, t);
                        }
                    }
                }
            }
            Op::LuNewTop { old, piv, others, ref from, ref offs, l, .. } => {
                let pv = whole(&ins.input(piv), &mut b1);
                let r = pv.m;
                let (_, perm) = read_pivots(pv, r);
                let old = whole(&ins.input(old), &mut b2);
                let (h, n) = (old.m, old.n);
                let oth: Vec<View<T>> = others.positions().map(|p| one_of(ins, p)).collect();
                kernels::copy(old, out.sub_mut(0, 0, h, n));
                for (t, &s) in perm.src.iter().enumerate() {
                    // The tile row holding panel row s.
                    let i = offs.partition_point(|&o| o <= s) - 1;
                    match from[i] {
                        LuSrc::Old => copy_row(&old, s, &mut out, t),
                        LuSrc::Tile(p) => copy_row(&oth[p], s - offs[i], &mut out, t),
                        LuSrc::Extracted(p) => copy_row(&oth[p], t, &mut out, t),
                    }
                    if let Some(f) = perm.fill[t] {
                        if s < h {
                            copy_row(&old, f, &mut out, s);
                        }
                    }
                }
                for t in 0..r {
                    copy_row(&old, t, &mut out, h + t);
                }
                if let Some(l) = l {
                    let lv = one_of(ins, l.first);
                    kernels::trsm(
                        Side::Left,
                        Uplo::Lower,
                        Trans::No,
                        Diag::Unit,
                        T::one(),
                        lv.sub(0, 0, r, r),
                        out.sub_mut(0, 0, r, n),
                    );
                }
            }
            Op::LuFill { w, piv, l, ref rows, h, solve, .. } => {
                let pv = whole(&ins.input(piv), &mut b1);
                let r = pv.m;
                let (_, perm) = read_pivots(pv, r);
                let wv = whole(&ins.input(w), &mut b2);
                let n = out.n;
                let top = rows[0].0 == 0;
                if top {
                    kernels::copy(wv.sub(0, 0, h, n), out.sub_mut(0, 0, h, n));
                }
                // Where each tile starts in the block.
                let starts: Vec<usize> =
                    rows.iter().scan(0, |at, &(_, rr)| Some(std::mem::replace(at, *at + rr))).collect();
                for (&s, &f) in perm.src.iter().zip(&perm.fill) {
                    let Some(f) = f else { continue };
                    for (&(o, rr), &st) in rows.iter().zip(&starts) {
                        if s >= h && (o..o + rr).contains(&s) {
                            copy_row(&wv, h + f, &mut out, st + s - o);
                        }
                    }
                }
                if solve {
                    // CALU's panel column: the rows below the top r (tile k's too) ← ·U₁₁⁻¹.
                    let b0 = if top { r } else { 0 };
                    let below = out.m - b0;
                    if below > 0 {
                        kernels::trsm_right_upper_zero_safe(wv.sub(0, 0, r, r), out.sub_mut(b0, 0, below, r));
                    }
                }
                if let Some(l) = l {
                    let b0 = if top { h } else { 0 };
                    let mut b3 = Vec::new();
                    let lv = whole(&ins.input(l), &mut b3);
                    let below = out.m - b0;
                    let c = out.sub_mut(b0, 0, below, n);
                    kernels::gemm(
                        Trans::No,
                        Trans::No,
                        T::from_f64(-1.0),
                        lv.sub(0, 0, below, r),
                        wv.sub(0, 0, r, n),
                        T::one(),
                        c,
                    );
                }
            }
            _ => unreachable!("compute_lu is called with the LU ops only"),
        }
    }

    /// The column task of a split LU panel (ranks), in every type.
    fn compute_lu_column<'a, T: OpElem>(&self, ins: &mut impl Operands<'a, T>, mut out: ViewMut<T>) {
        match *self {
            Op::LuColumn { cand, urows, piv, others, ref rows, j, r, block, .. } => {
                let ids: Vec<usize> = rows.iter().flat_map(|&(o, h)| o..o + h).collect();
                assert_eq!(ids.len(), out.m, "the rows of a place's panel tiles");
                assert_eq!(r, out.n, "a split panel has as many pivots as columns");
                let cb = ins.output(cand);
                let mut ub = ins.output(urows);
                let mut pv = piv.map(|p| ins.output(p));
                if j > 0 {
                    let c = j - 1;
                    let c0 = c / block * block;
                    let c1 = (c0 + block).min(r);
                    let all: Vec<View<T>> = others.positions().map(|p| one_of(ins, p)).collect();
                    let (s, pivot) =
                        kernels::gepp_finish_column(out.reborrow(), &ids, (c, c1), &all, ub.reborrow());
                    if let Some(pv) = pv.as_mut() {
                        pv.set(c, 0, T::from_index(kernels::row_index(s + 1)));
                        if pivot == T::zero() && pv.get(0, 3).index() == 0 {
                            pv.set(0, 3, T::from_index(kernels::row_index(c + 1)));
                        }
                    }
                    if j == c1 {
                        kernels::gepp_block_update(out.reborrow(), &ids, (c0, c1), ub.as_view());
                    }
                }
                if j < r {
                    kernels::gepp_candidate(out.as_view(), &ids, j, cb);
                } else if let Some(pv) = pv {
                    complete_pivots(pv, r);
                }
            }
            _ => unreachable!("compute_lu_column is called with LuColumn only"),
        }
    }

    /// The Householder QR's ops (`algo::geqrf`) and those of forming and applying its Q
    /// (`algo::ormqr`), in every type: a transposed H is the adjoint Hᴴ for complex types, and
    /// `QrT`'s tau travels as [`tau_parts`].
    fn compute_qr<'a, T: Scalar>(&self, ins: &mut impl Operands<'a, T>, mut out: ViewMut<T>) {
        let (mut b1, mut b2) = (Vec::new(), Vec::new());
        match *self {
            Op::Larfb { v, k, t, .. } => {
                let vv = whole(&ins.input(v), &mut b1);
                let tv = whole(&ins.input(t), &mut b2);
                kernels::larfb(vv, k, tv, out);
            }
            Op::QrT { v, ref tau, .. } => {
                kernels::larft(whole(&ins.input(v), &mut b1), &taus_from_parts::<T>(tau), out)
            }
            Op::QrApply { side, trans, v, k, t, .. } => {
                let vv = whole(&ins.input(v), &mut b1);
                let tv = whole(&ins.input(t), &mut b2);
                let s = if side == Side::Left { b'L' } else { b'R' };
                kernels::larfb_side(s, trans.ch(), vv, k, tv, out);
            }
            Op::QrOrg { row, k, vt, .. } => {
                let (m, n) = (out.m, out.n);
                kernels::zero(out.sub_mut(0, 0, m, n));
                for j in 0..n.min(m - row) {
                    out.set(row + j, j, T::one());
                }
                if let Some((v, t)) = vt {
                    let vv = whole(&ins.input(v), &mut b1);
                    let tv = whole(&ins.input(t), &mut b2);
                    kernels::larfb_side(b'L', b'N', vv, k, tv, out.sub_mut(row, 0, m - row, n));
                }
            }
            Op::QrPanel { kb, tt, .. } => {
                let (mut t, mut tau) = ins.output(tt).split_rows(kb);
                let (t, tau) = (t.sub_mut(0, 0, kb, kb), tau.sub_mut(0, 0, kb, 1));
                // The block's columns beyond kb (a last panel wider than its reflectors) get Hᵀ.
                kernels::geqrf_panel(out, kb, tau, t);
            }
            Op::Gather { col, .. } => {
                let mut r0 = 0;
                for p in ins.input(col) {
                    kernels::copy(p, out.sub_mut(r0, 0, p.m, p.n));
                    r0 += p.m;
                }
                assert_eq!(r0, out.m, "a gathered panel fills its buffer");
            }
            Op::Scatter { src, row, .. } => {
                let (m, n) = (out.m, out.n);
                kernels::copy(whole(&ins.input(src), &mut b1).sub(row, 0, m, n), out);
            }
            Op::QrVtc { v, k, c, ref offs, .. } => {
                let vv = whole(&ins.input(v), &mut b1);
                let mut beta = T::zero();
                for (p, &off) in c.positions().zip(offs) {
                    let cv = whole(&ins.input(Tiles::one(p)), &mut b2);
                    let n = cv.n;
                    kernels::vt_c(vv.sub(off, 0, cv.m, k), k, off == 0, cv, beta, out.sub_mut(0, 0, k, n));
                    beta = T::one();
                }
            }
            Op::QrTw { t, k, others, .. } => {
                let n = out.n;
                let mut own = out.sub_mut(0, 0, k, n);
                for p in others.positions() {
                    let o = whole(&ins.input(Tiles::one(p)), &mut b1);
                    for c in 0..n {
                        for i in 0..k {
                            own.set(i, c, own.get(i, c).add(o.get(i, c)));
                        }
                    }
                }
                let tv = whole(&ins.input(t), &mut b2).sub(0, 0, k, k);
                kernels::tt_w(tv, own);
            }
            Op::QrVw { v, k, w, off, .. } => {
                let (m, n) = (out.m, out.n);
                let vv = whole(&ins.input(v), &mut b1).sub(off, 0, m, k);
                let wv = whole(&ins.input(w), &mut b2).sub(0, 0, k, n);
                kernels::c_minus_vw(vv, k, off == 0, wv, out);
            }
            _ => unreachable!("compute_qr is called with the QR ops only"),
        }
    }

    /// Whether the op reads its output's old value (a GEMM with β = 0 does not: its C is only
    /// written, so no runtime needs to bring C's current value to where it runs, and NaN in C
    /// does not propagate, as in the reference BLAS).
    ///
    /// β = ±0 is tested on its bits, not as `beta == 0.0`: the master asks this of every task it
    /// generates, and the compiler evaluated that comparison before the variant test, on the
    /// bytes of whatever op it was (for most, a pointer, which as a double is subnormal), so the
    /// caller's thread got x86's denormal-operand flag (DE) from every tiled call.
    pub fn reads_output(&self) -> bool {
        !matches!(*self, Op::Gemm { beta, .. } if beta.is_zero())
    }

    /// Floating-point operations of the op for a task of dims (m, n, k) as in [`super::Spec`]
    /// (the output's m×n, the inner size k), for cost models: the usual LAPACK counts.
    pub fn flops(&self, dims: [usize; 3]) -> f64 {
        let [m, n, k] = dims.map(|x| x as f64);
        match *self {
            Op::Gemm { .. } => 2.0 * m * n * k,
            Op::Syrk { .. } => n * n * k,
            Op::Trsm { side: Side::Left, .. } => m * m * n,
            Op::Trsm { .. } => m * n * n,
            Op::Potrf { .. } => n * n * n / 3.0,
            Op::Laswp { .. } | Op::LaswpSteps { .. } => 0.0,
            Op::Larfb { .. } => 4.0 * m * n * k,
            // DGEQRF's count for an m×n panel whose n columns are all reflectors.
            Op::QrPanel { .. } => 2.0 * m * n * n - 2.0 * n * n * n / 3.0,
            Op::Gather { .. } | Op::Scatter { .. } => 0.0,
            Op::QrVtc { .. } | Op::QrVw { .. } => 2.0 * m * n * k,
            Op::QrTw { .. } => m * n * k,
            // DGETRF's count for an m×n panel (a leaf's dims: its rows c0.., its n columns).
            Op::LuPanel { .. } | Op::LuLeaf { .. } => {
                let r = m.min(n);
                m * n * r - (m + n) * r * r / 2.0 + r * r * r / 3.0
            }
            // dims [rows, columns, r]: the TRSM of the top r rows and the GEMM below them (a
            // recursive panel's top tile: rows from c0, c2 − c1 columns, r = c1 − c0).
            Op::LuUpdate { .. } | Op::LuSplitUpdate { u: None, .. } => {
                k * k * n + 2.0 * (m - k).max(0.0) * n * k
            }
            Op::LuSplitUpdate { .. } => 2.0 * m * n * k,
            Op::LuExtract { .. } => 0.0,
            // dims [rows, columns updated, k]: the rank-1 update of a place's rows on the rest
            // of the column block (k = 1), or at a block's end its GEMM (n = the columns right
            // of the block, k its width).
            Op::LuColumn { .. } => 2.0 * m * n * k.max(1.0),
            Op::LuNewTop { l, .. } => l.map_or(0.0, |_| k * k * n),
            Op::LuFill { l, solve, .. } => {
                l.map_or(0.0, |_| 2.0 * m * n * k) + if solve { m * k * k } else { 0.0 }
            }
            // dims [rows, w, 0]: GEPP on the rows×w block; a merge's rows are the candidates.
            Op::CaluLeaf { .. } | Op::CaluMerge { .. } | Op::CaluRoot { .. } => {
                let r = m.min(n);
                m * n * r - (m + n) * r * r / 2.0 + r * r * r / 3.0
            }
            Op::CaluTop { .. } => 0.0,
            // dims [M, M, 0]: DGETRF of a square block; [M, nrhs, 0]: two triangular solves.
            Op::BtLu { .. } => 2.0 * m * m * m / 3.0,
            Op::BtSolve { .. } => 2.0 * m * m * n,
            Op::Trmm { side: Side::Left, .. } => m * m * n,
            Op::Trmm { .. } => m * n * n,
            Op::Trtri { .. } | Op::Lauum { .. } => n * n * n / 3.0,
            Op::LowerOut { .. } | Op::ColExtract { .. } | Op::ColFill { .. } => 0.0,
            // dims [rows of V, kb, 0]: DLARFT's count.
            Op::QrT { .. } => m * n * n,
            // dims [rows, columns of C, k]: DLARFB's leading term.
            Op::QrApply { .. } => 4.0 * m * n * k,
            // dims [rows, columns, k]: DLARFB's leading term.
            Op::QrOrg { .. } => 4.0 * m * n * k,
        }
    }

    /// [`Op::flops`] in element type `T`'s real flops: four times the real count for the
    /// complex types (LAPACK Working Note 41), what the simulator and a call's report use.
    pub fn flops_of<T: Scalar>(&self, dims: [usize; 3]) -> f64 {
        self.flops(dims) * T::FLOPS
    }

    /// The tournament-pivoting ops (CALU's panel). Returns 0: INFO travels in the pivot buffer.
    fn compute_calu<'a, T: OpElem>(&self, ins: &mut impl Operands<'a, T>, mut out: ViewMut<T>) -> i32 {
        let mut b1 = Vec::new();
        match *self {
            Op::CaluLeaf { a, ref rows, .. } => {
                let blk = whole(&ins.input(a), &mut b1);
                let w = out.n - 1;
                assert_eq!(blk.n, w, "a candidate buffer is one column wider than the panel");
                // Panel row of each block row.
                let ids: Vec<i32> =
                    rows.iter().flat_map(|&(o, h)| (o..o + h).map(kernels::row_index)).collect();
                assert_eq!(ids.len(), blk.m, "the rows of a leaf's tiles");
                nominate(&[(blk, ids)], w, out);
            }
            Op::CaluMerge { others, .. } => {
                let w = out.n - 1;
                // The candidates are the leading rows of each buffer (panel row ≥ 0).
                let count = |v: &View<T>| (0..v.m).take_while(|&i| v.get(i, w).index() >= 0).count();
                let mut own = vec![T::zero(); out.m * (w + 1)];
                kernels::copy(out.as_view(), ViewMut::from_slice(&mut own, out.m, w + 1, out.m.max(1)));
                let mine = View::from_slice(&own, out.m, w + 1, out.m.max(1));
                let oth: Vec<View<T>> = others.positions().map(|p| one_of(ins, p)).collect();
                let blocks: Vec<(View<T>, Vec<i32>)> = std::iter::once(&mine)
                    .chain(&oth)
                    .map(|v| {
                        let c = count(v);
                        (v.sub(0, 0, c, w), (0..c).map(|i| v.get(i, w).index()).collect())
                    })
                    .collect();
                nominate(&blocks, w, out);
            }
            Op::CaluRoot { piv, cand, .. } => {
                let cv = one_of(ins, cand.first);
                let w = cv.n - 1;
                let r = out.m;
                assert!((0..r).all(|t| cv.get(t, w).index() >= 0), "the root holds r winners");
                // GEPP on the winners: the order of the top rows, L₁₁ and U₁₁.
                kernels::copy(cv.sub(0, 0, r, w), out.sub_mut(0, 0, r, w));
                let mut p = vec![0i32; r];
                let info = kernels::getrf_slice(out, &mut p);
                let mut order: Vec<usize> = (0..r).collect();
                for (t, &pt) in p.iter().enumerate() {
                    order.swap(t, pt as usize - 1);
                }
                let src: Vec<usize> = order.iter().map(|&x| cv.get(x, w).index() as usize).collect();
                let ipiv = kernels::interchanges_to_top(&src);
                write_pivots(ins.output(piv), &ipiv, info);
            }
            Op::CaluTop { old, piv, f, .. } => {
                let pv = whole(&ins.input(piv), &mut b1);
                let r = pv.m;
                let (_, perm) = read_pivots(pv, r);
                let old = one_of(ins, old.first);
                let fv = one_of(ins, f.first);
                let (h, n) = (old.m, old.n);
                kernels::copy(old, out.sub_mut(0, 0, h, n));
                kernels::copy(fv.sub(0, 0, r, n), out.sub_mut(0, 0, r, n));
                for (&s, &fl) in perm.src.iter().zip(&perm.fill) {
                    if let Some(fl) = fl {
                        if s < h {
                            copy_row(&old, fl, &mut out, s);
                        }
                    }
                }
                for t in 0..r {
                    copy_row(&old, t, &mut out, h + t);
                }
            }
            _ => unreachable!("compute_calu is called with the CALU ops only"),
        }
        0
    }
}

/// GEPP on a copy of the candidate rows (`blocks`: values, the first `w` columns, stacked, and
/// each row's panel row): the first min(count, w) pivot rows, in pivot order, into the candidate
/// buffer `out` (values and panel row; −1 in the rows left over).
fn nominate<T: OpElem>(blocks: &[(View<T>, Vec<i32>)], w: usize, mut out: ViewMut<T>) {
    let m: usize = blocks.iter().map(|b| b.0.m).sum();
    let ld = m.max(1);
    let mut orig = vec![T::zero(); ld * w];
    let mut at = 0;
    for (v, _) in blocks {
        kernels::copy(v.sub(0, 0, v.m, w), ViewMut::from_slice(&mut orig[at..], v.m, w, ld));
        at += v.m;
    }
    let ids: Vec<i32> = blocks.iter().flat_map(|b| b.1.iter().copied()).collect();
    let mut s = orig.clone();
    let c = m.min(w);
    let mut p = vec![0i32; c];
    kernels::getrf_slice(ViewMut::from_slice(&mut s, m, w, ld), &mut p);
    let mut order: Vec<usize> = (0..m).collect();
    for (t, &pt) in p.iter().enumerate() {
        order.swap(t, pt as usize - 1);
    }
    for col in 0..w {
        let src = &orig[col * ld..];
        for (t, &i) in order[..c].iter().enumerate() {
            out.set(t, col, src[i]);
        }
    }
    for t in 0..out.m {
        out.set(t, w, T::from_index(if t < c { ids[order[t]] } else { -1 }));
    }
}

/// Operand position `p` as one block, in any element type.
fn one_of<'a, T: Scalar>(ins: &mut impl Operands<'a, T>, p: usize) -> View<'a, T> {
    let pieces = ins.input(Tiles::one(p));
    assert_eq!(pieces.len(), 1, "a single tile comes as one block");
    pieces[0]
}

/// Column `sj` of `a` into column `dj` of `b` (`b.m` rows), in any element type.
fn copy_col<T: Scalar>(a: View<T>, sj: usize, b: &mut ViewMut<T>, dj: usize) {
    for i in 0..b.m {
        b.set(i, dj, a.get(i, sj));
    }
}

/// Row `si` of `a` into row `di` of `b` (the first `b.n` columns), in any element type.
fn copy_row<T: Scalar>(a: &View<T>, si: usize, b: &mut ViewMut<T>, di: usize) {
    for c in 0..b.n {
        b.set(di, c, a.get(si, c));
    }
}

/// A panel's pivot buffer (see `DeviceOp::LuPanel`): the interchanges `ipiv` (block-local,
/// 1-based), their composite permutation and the panel's INFO, each an integer held in an
/// element of the matrix's type ([`Scalar::from_index`]; −1: no fill).
fn write_pivots<T: Scalar>(mut pv: ViewMut<T>, ipiv: &[i32], info: i32) {
    assert!(pv.m >= ipiv.len() && pv.n >= 4, "a pivot buffer of r×4 at least");
    let perm = Perm::of(ipiv);
    for (t, &p) in ipiv.iter().enumerate() {
        pv.set(t, 0, T::from_index(p));
        pv.set(t, 1, T::from_index(perm.src[t] as i32));
        pv.set(t, 2, T::from_index(perm.fill[t].map_or(-1, |f| f as i32)));
    }
    pv.set(0, 3, T::from_index(info));
}

/// A pivot buffer whose `r` pivots (column 0) and INFO (entry (0, 3)) were written one panel
/// column or leaf at a time, completed with their permutation as [`write_pivots`] leaves it.
fn complete_pivots<T: Scalar>(pv: ViewMut<T>, r: usize) {
    let all: Vec<i32> = (0..r).map(|t| pv.get(t, 0).index()).collect();
    let first = pv.get(0, 3).index();
    write_pivots(pv, &all, first);
}

/// The first `r` pivots of a pivot buffer (column 0) and the permutation it records (columns 1
/// and 2), as [`Op::LuPanel`] wrote them.
fn read_pivots<T: Scalar>(v: View<T>, r: usize) -> (Vec<i32>, Perm) {
    let piv = (0..r).map(|t| v.get(t, 0).index()).collect();
    let src = (0..r).map(|t| v.get(t, 1).index() as usize).collect();
    let fill = (0..r).map(|t| v.get(t, 2).index()).map(|f| (f >= 0).then_some(f as usize)).collect();
    (piv, Perm { src, fill })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{Diag, Uplo};
    use crate::tile::Workspace;

    /// Operands from a list of blocks, each split into the given row pieces.
    struct Pieces<'a> {
        blocks: Vec<Vec<View<'a, f64>>>,
    }
    impl<'a> Operands<'a> for Pieces<'a> {
        fn input(&mut self, t: Tiles) -> Vec<View<'a, f64>> {
            self.blocks[t.first].clone()
        }
        fn output(&mut self, _: Tiles) -> ViewMut<'a, f64> {
            unreachable!()
        }
    }

    fn rand(m: usize, n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..m * n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
            })
            .collect()
    }

    #[test]
    fn gemm_with_a_in_pieces_equals_gemm_on_the_whole() {
        let (m, n, k) = (11, 5, 4);
        let a = rand(m, k, 1);
        let b = rand(n, k, 2);
        let c0 = rand(m, n, 3);
        let op = Op::Gemm {
            ta: Trans::No,
            tb: Trans::Yes,
            alpha: (-1.0).into(),
            a: Tiles::stack(1, 3),
            b: Tiles::one(4),
            beta: 1.0.into(),
            c: Tiles::one(0),
            k,
        };
        let whole_a = View::from_slice(&a, m, k, m);
        let bv = View::from_slice(&b, n, k, n);
        let mut want = c0.clone();
        let mut w = Workspace::<f64>::new(m, n, m, n);
        w.as_mut_slice().copy_from_slice(&c0);
        kernels::gemm(Trans::No, Trans::Yes, -1.0, whole_a, bv, 1.0, view_mut(&mut want, m, n));
        // A as pieces of 4, 4 and 3 rows; slots: 0 = C (unused by input), 1 = A, 4 = B.
        let pieces = vec![whole_a.sub(0, 0, 4, k), whole_a.sub(4, 0, 4, k), whole_a.sub(8, 0, 3, k)];
        let mut ops = Pieces { blocks: vec![vec![], pieces, vec![], vec![], vec![bv]] };
        let mut got = c0.clone();
        assert_eq!(op.compute(&mut ops, view_mut(&mut got, m, n)), 0);
        for (x, y) in got.iter().zip(&want) {
            assert!((x - y).abs() < 1e-14, "{x} vs {y}");
        }
    }

    #[test]
    fn trsm_with_a_gathered_from_pieces() {
        let n = 6;
        let mut l = rand(n, n, 4);
        for i in 0..n {
            l[i + i * n] += 4.0;
        }
        let b0 = rand(3, n, 5);
        let lv = View::from_slice(&l, n, n, n);
        let op = Op::Trsm {
            side: Side::Right,
            uplo: Uplo::Lower,
            trans: Trans::Yes,
            diag: Diag::NonUnit,
            alpha: 1.0,
            a: Tiles::one(1),
            b: Tiles::one(0),
        };
        let mut want = b0.clone();
        kernels::trsm(
            Side::Right,
            Uplo::Lower,
            Trans::Yes,
            Diag::NonUnit,
            1.0,
            lv,
            view_mut(&mut want, 3, n),
        );
        let mut ops = Pieces { blocks: vec![vec![], vec![lv.sub(0, 0, 2, n), lv.sub(2, 0, 4, n)]] };
        let mut got = b0.clone();
        op.compute(&mut ops, view_mut(&mut got, 3, n));
        assert_eq!(got, want);
    }

    fn view_mut(v: &mut [f64], m: usize, n: usize) -> ViewMut<'_, f64> {
        ViewMut::from_slice(v, m, n, m)
    }
}
