//! P?GETRF, P?GETRS and P?GESV with ScaLAPACK 2.2's checks (SRC/pdgetrf.f, pdgetrs.f,
//! pdgesv.f and their s, c, z twins, which check the same), one generic body per routine
//! (`pdgetrf` is the f64 instance of [`getrf`]; P?GETRS of a complex type takes TRANS = 'C'
//! as the adjoint and 'T' as the transpose). PDGETRF runs on the distributed 2-D tile LU ([`crate::dist::getrf`]), PDGETRS on
//! the distributed 2-D tile solves ([`crate::dist::solve`]), and PDGESV is PDGETRF then PDGETRS
//! as in the reference; each goes to the next ScaLAPACK in the process when the problem is small,
//! the routine is disabled, MPI is not up, or (PDGETRS) IPIV is not a permutation of sub(A)'s rows.

use super::{
    check, chk1mat, grid_or_error, indxg2p, info_result, pchkmat, Desc, GridInfo, Operand, Plan, CTXT_, NB_,
};
use crate::api::{flag, Path, Report};
use crate::backend::scalapack as fwd;
use crate::config::Config;
use crate::dist::redistribute::Shape;
use crate::dist::solve::Operands;
use crate::dist::DistElem;
use crate::error::Error;
use crate::scalar::pname;
use crate::tile::Raw;

/// P?GETRF: LU factorization with partial pivoting of the M×N sub(A).
#[allow(clippy::too_many_arguments)]
pub fn getrf<T: DistElem>(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    ipiv: Raw<i32>,
) -> Result<(), Error> {
    let routine = pname::<T>("getrf");
    let g = grid_or_error(desca, 6)?;
    let mut info = 0;
    chk1mat(m, 1, n, 2, ia, ja, desca, 6, &g, &mut info);
    if info == 0 {
        if (ia - 1) % desca.mb() != 0 {
            info = -4;
        } else if (ja - 1) % desca.nb() != 0 {
            info = -5;
        } else if desca.mb() != desca.nb() {
            info = -(600 + NB_);
        }
    }
    let op = Operand { m, mpos: 1, n, npos: 2, i: ia, j: ja, desc: desca, descpos: 6 };
    let shape = super::lu_qr_shape(cfg, g.nprow, g.npcol);
    // With whole tile columns over all ranks the tiles are sized as for one process row.
    let (p, q) = if shape == Shape::OneRow { (1, g.nprow * g.npcol) } else { (g.nprow, g.npcol) };
    let nb = super::lu_qr_nb(cfg, routine, n, desca.nb(), (p, q), super::caller_layout(shape, g.nprow));
    let mut plan = Plan {
        shape,
        split: super::lu_split(cfg),
        ..Plan::learned::<T>(cfg, routine, m.min(n).max(0) as usize, nb, &g, desca.nb())
    };
    pchkmat(desca.ctxt(), &g, &[op], &[], &mut info, Some(&mut plan));
    check(info)?;
    // The reference's quick returns, in its order (a one-row global matrix sets IPIV(1) = 1).
    if desca.m() == 1 {
        ipiv.set(0, 1);
        return Ok(());
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    if plan.trials {
        let mut ac = a.snapshot(super::local_span(desca, &g, ja + n - 1));
        let rows = super::numroc(desca.m(), desca.mb(), g.myrow, desca.rsrc(), g.nprow);
        let mut pc = ipiv.snapshot((rows + desca.mb()).max(0) as usize);
        let size = m.min(n) as usize;
        super::dist_trials(cfg, routine, size, &g, desca.ctxt(), desca.nb(), &mut || {
            getrf(cfg, m, n, ac.fresh(), ia, ja, desca, pc.fresh()).is_ok()
        });
        return crate::api::tune::without_trials(|| getrf(cfg, m, n, a, ia, ja, desca, ipiv));
    }
    let rep = Report::start(cfg);
    let (mf, nf) = (m as f64, n as f64);
    let k = mf.min(nf);
    let flops = T::FLOPS * 2.0 * (mf * nf * k - (mf + nf) * k * k / 2.0 + k * k * k / 3.0);
    if let Some(why) = plan.forward {
        let info = fwd::getrf::<T>(m, n, a, ia, ja, &desca.0, ipiv);
        rep.finish(
            routine,
            format_args!(
                "m={m} n={n} ia={ia} ja={ja} mb={} grid={}x{} pivot=gepp",
                desca.mb(),
                g.nprow,
                g.npcol
            ),
            Path::Forward,
            Some(why),
            flops,
        );
        return info_result(info);
    }
    let nb = plan.nb;
    let (r, st) = crate::dist::getrf::getrf(
        cfg,
        m,
        n,
        a,
        ia,
        ja,
        desca,
        ipiv,
        &g,
        nb,
        plan.shape,
        (plan.pivot, plan.split),
    );
    super::report_tiles(
        &rep,
        routine,
        format_args!(
            "m={m} n={n} ia={ia} ja={ja} layout={} pivot={} panel={}",
            super::layout_name(plan.shape),
            plan.pivot.name(),
            if crate::dist::tiles2d::one_row(plan.shape, &g) {
                "in-place"
            } else if plan.split && plan.shape == Shape::Grid {
                "split"
            } else {
                "gathered"
            }
        ),
        desca,
        &g,
        nb,
        &st,
        flops,
    );
    r
}

fn trans_ok(t: u8) -> bool {
    flag(t, b'N') || flag(t, b'T') || flag(t, b'C')
}

fn trans_code(t: u8) -> i32 {
    if flag(t, b'N') {
        b'N' as i32
    } else if flag(t, b'T') {
        b'T' as i32
    } else {
        b'C' as i32
    }
}

/// P?GETRS: solves op(sub(A))·X = sub(B) with the factors and pivots from P?GETRF.
#[allow(clippy::too_many_arguments)]
pub fn getrs<T: DistElem>(
    cfg: &Config,
    trans: u8,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    ipiv: Raw<i32>,
    b: Raw<T>,
    ib: i32,
    jb: i32,
    descb: &Desc,
) -> Result<(), Error> {
    let routine = pname::<T>("getrs");
    let g = grid_or_error(desca, 7)?;
    let mut info = 0;
    chk1mat(n, 2, n, 2, ia, ja, desca, 7, &g, &mut info);
    chk1mat(n, 2, nrhs, 3, ib, jb, descb, 12, &g, &mut info);
    if info == 0 {
        let iarow = indxg2p(ia, desca.mb(), desca.rsrc(), g.nprow);
        let ibrow = indxg2p(ib, descb.mb(), descb.rsrc(), g.nprow);
        if !trans_ok(trans) {
            info = -1;
        } else if (ia - 1) % desca.mb() != 0 {
            info = -5;
        } else if (ja - 1) % desca.nb() != 0 {
            info = -6;
        } else if desca.mb() != desca.nb() {
            info = -(700 + NB_);
        } else if (ib - 1) % descb.mb() != 0 || ibrow != iarow {
            info = -10;
        } else if descb.mb() != desca.nb() {
            info = -(1200 + NB_);
        } else if desca.ctxt() != descb.ctxt() {
            info = -(1200 + CTXT_);
        }
    }
    let opa = Operand { m: n, mpos: 2, n, npos: 2, i: ia, j: ja, desc: desca, descpos: 7 };
    let opb = Operand { m: n, mpos: 2, n: nrhs, npos: 3, i: ib, j: jb, desc: descb, descpos: 12 };
    let nb = super::caller_aligned_nb(cfg, routine, n, desca.nb(), super::SOLVE_IN_PLACE);
    let mut plan = Plan::local(cfg, routine, n.max(0) as usize, nb);
    plan.forward = plan.forward.or_else(|| super::solve_slower(cfg, n, nrhs, g.nprow > 1));
    pchkmat(desca.ctxt(), &g, &[opa, opb], &[(trans_code(trans), 1)], &mut info, Some(&mut plan));
    check(info)?;
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let tc = trans.to_ascii_uppercase() as char;
    let flops = T::FLOPS * 2.0 * (n as f64).powi(2) * nrhs as f64;
    let mut why = plan.forward;
    if why.is_none() {
        let nb = plan.nb;
        let ops = Operands { n, nrhs, a, ia, ja, desca, b, ib, jb, descb };
        match crate::dist::solve::getrs(cfg, trans, &ops, ipiv, &g, nb) {
            Ok((r, st)) => {
                super::report_tiles(
                    &rep,
                    routine,
                    format_args!("trans={tc} n={n} nrhs={nrhs} ia={ia} ja={ja} ib={ib} jb={jb}"),
                    desca,
                    &g,
                    nb,
                    &st,
                    flops,
                );
                return r;
            }
            // The pivots have no exact meaning as a permutation of sub(B) (the same on every rank).
            Err(reason) => why = Some(reason),
        }
    }
    let info = fwd::getrs::<T>(trans, n, nrhs, a, ia, ja, &desca.0, ipiv, b, ib, jb, &descb.0);
    rep.finish(
        routine,
        format_args!("trans={tc} n={n} nrhs={nrhs} mb={} grid={}x{}", desca.mb(), g.nprow, g.npcol),
        Path::Forward,
        why,
        flops,
    );
    info_result(info)
}

/// The checks of PDGESV.
#[allow(clippy::too_many_arguments)]
fn check_pdgesv(
    n: i32,
    nrhs: i32,
    ia: i32,
    ja: i32,
    desca: &Desc,
    ib: i32,
    jb: i32,
    descb: &Desc,
) -> Result<GridInfo, Error> {
    let g = grid_or_error(desca, 6)?;
    let mut info = 0;
    chk1mat(n, 1, n, 1, ia, ja, desca, 6, &g, &mut info);
    chk1mat(n, 1, nrhs, 2, ib, jb, descb, 11, &g, &mut info);
    if info == 0 {
        let iarow = indxg2p(ia, desca.mb(), desca.rsrc(), g.nprow);
        let ibrow = indxg2p(ib, descb.mb(), descb.rsrc(), g.nprow);
        let icoffa = (ja - 1) % desca.nb();
        let iroffb = (ib - 1) % descb.mb();
        if (ia - 1) % desca.mb() != 0 {
            info = -4;
        } else if icoffa != 0 {
            info = -5;
        } else if desca.mb() != desca.nb() {
            info = -(600 + NB_);
        } else if ibrow != iarow || icoffa != iroffb {
            info = -9;
        } else if descb.mb() != desca.nb() {
            info = -(1100 + NB_);
        } else if desca.ctxt() != descb.ctxt() {
            info = -(1100 + CTXT_);
        }
    }
    let opa = Operand { m: n, mpos: 1, n, npos: 1, i: ia, j: ja, desc: desca, descpos: 6 };
    let opb = Operand { m: n, mpos: 1, n: nrhs, npos: 2, i: ib, j: jb, desc: descb, descpos: 11 };
    pchkmat(desca.ctxt(), &g, &[opa, opb], &[], &mut info, None);
    check(info)?;
    Ok(g)
}

/// P?GESV: P?GETRF then P?GETRS.
#[allow(clippy::too_many_arguments)]
pub fn gesv<T: DistElem>(
    cfg: &Config,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    ipiv: Raw<i32>,
    b: Raw<T>,
    ib: i32,
    jb: i32,
    descb: &Desc,
) -> Result<(), Error> {
    check_pdgesv(n, nrhs, ia, ja, desca, ib, jb, descb)?;
    // Like the reference: the factorization, then the solve only when it succeeded (each with its
    // own verbose line).
    getrf(cfg, n, n, a, ia, ja, desca, ipiv)?;
    getrs(cfg, b'N', n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb)
}
