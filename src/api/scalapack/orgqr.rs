//! P?ORGQR / P?UNGQR and P?ORMQR / P?UNMQR with ScaLAPACK 2.2's checks and workspace query
//! (SRC/pdorgqr.f, pdormqr.f and their s, c, z twins: the same sizes; a complex WORK(1) holds the
//! size as its real part, and PCUNMQR, PZUNMQR take TRANS = 'C' where PDORMQR takes 'T'), one
//! generic body each (`pdorgqr` and `pdormqr` are the f64 instances of [`orgqr`] and [`ormqr`]), then Q on the distributed tile runtime ([`crate::dist::orgqr`]) unless the call is
//! forwarded (small, disabled, no MPI, slower). The tile path needs no caller workspace; WORK(1)
//! returns the reference's minimal LWORK either way.

use super::{
    check, chk1mat, grid_or_error, ilcm, indxg2p, info_result, numroc, pchkmat, Desc, Operand, Plan, CTXT_,
    MB_, NB_,
};
use crate::api::{flag, Path, Report};
use crate::backend::scalapack as fwd;
use crate::config::Config;
use crate::dist::orgqr::Ormqr;
use crate::dist::DistElem;
use crate::error::Error;
use crate::kernels::{Side, Trans};
use crate::scalar::pname;
use crate::tile::Raw;

/// Tile width of the distributed Q: `HETLA_NB` when set, else `want` (the LAPACK routine's
/// tile), narrower for small problems so that each of the `ranks` keeps about four tile
/// columns.
fn q_nb(cfg: &Config, n: i32, ranks: i32, want: usize) -> usize {
    if let Some(nb) = cfg.nb {
        return nb;
    }
    let cap = (n.max(1) as usize / (4 * ranks.max(1) as usize)).div_ceil(32) * 32;
    want.min(cap.max(32))
}

/// P?ORGQR / P?UNGQR: the first N columns of Q (M×M) from the K reflectors P?GEQRF left in
/// sub(A).
#[allow(clippy::too_many_arguments)]
pub fn orgqr<T: DistElem>(
    cfg: &Config,
    m: i32,
    n: i32,
    k: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    tau: Raw<T>,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let routine = pname::<T>("orgqr");
    let g = grid_or_error(desca, 7)?;
    let mut info = 0;
    chk1mat(m, 1, n, 2, ia, ja, desca, 7, &g, &mut info);
    let lquery = lwork == -1;
    let mut lwmin = 0;
    if info == 0 {
        let iarow = indxg2p(ia, desca.mb(), desca.rsrc(), g.nprow);
        let iacol = indxg2p(ja, desca.nb(), desca.csrc(), g.npcol);
        let mpa0 = numroc(m + (ia - 1) % desca.mb(), desca.mb(), g.myrow, iarow, g.nprow);
        let nqa0 = numroc(n + (ja - 1) % desca.nb(), desca.nb(), g.mycol, iacol, g.npcol);
        lwmin = desca.nb() * (mpa0 + nqa0 + desca.nb());
        work.set(0, T::from_f64(lwmin as f64));
        if n > m {
            info = -2;
        } else if k < 0 || k > n {
            info = -3;
        } else if lwork < lwmin && !lquery {
            info = -10;
        }
    }
    let op = Operand { m, mpos: 1, n, npos: 2, i: ia, j: ja, desc: desca, descpos: 7 };
    let nb = q_nb(cfg, n, g.nprow * g.npcol, 192);
    let mut plan = Plan::local(cfg, routine, n.max(0) as usize, nb);
    plan.forward = plan.forward.or_else(|| super::q_slower(cfg, routine, desca.nb(), n, n));
    let extra = [(k, 3), (if lquery { -1 } else { 1 }, 10)];
    pchkmat(desca.ctxt(), &g, &[op], &extra, &mut info, Some(&mut plan));
    check(info)?;
    if lquery || n <= 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let flops = T::FLOPS * (4.0 * mf * nf * kf - 2.0 * (mf + nf) * kf * kf + 4.0 * kf * kf * kf / 3.0);
    let desc = format_args!("m={m} n={n} k={k} ia={ia} ja={ja}");
    if let Some(why) = plan.forward {
        let info = fwd::orgqr::<T>(m, n, k, a, ia, ja, &desca.0, tau, work, lwork);
        let grid = format_args!("mb={} grid={}x{}", desca.mb(), g.nprow, g.npcol);
        rep.finish(routine, format_args!("{desc} {grid}"), Path::Forward, Some(why), flops);
        return info_result(info);
    }
    let (r, st) = crate::dist::orgqr::orgqr(cfg, (m, n, k), a, ia, ja, desca, tau, &g, plan.nb);
    work.set(0, T::from_f64(lwmin as f64));
    super::report_tiles(&rep, routine, format_args!("{desc} layout=row"), desca, &g, plan.nb, &st, flops);
    r
}

/// P?ORMQR / P?UNMQR: sub(C) ← op(Q)·sub(C) or sub(C)·op(Q), Q from the K reflectors in sub(A);
/// op(Q) is Q or Qᴴ (TRANS = 'C' for complex types, 'T' for real ones).
#[allow(clippy::too_many_arguments)]
pub fn ormqr<T: DistElem>(
    cfg: &Config,
    side: u8,
    trans: u8,
    m: i32,
    n: i32,
    k: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    tau: Raw<T>,
    c: Raw<T>,
    ic: i32,
    jc: i32,
    descc: &Desc,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let routine = pname::<T>("ormqr");
    let g = grid_or_error(desca, 9)?;
    let mut info = 0;
    let left = flag(side, b'L');
    let notran = flag(trans, b'N');
    let nq = if left { m } else { n };
    if left {
        chk1mat(m, 3, k, 5, ia, ja, desca, 9, &g, &mut info);
    } else {
        chk1mat(n, 4, k, 5, ia, ja, desca, 9, &g, &mut info);
    }
    chk1mat(m, 3, n, 4, ic, jc, descc, 14, &g, &mut info);
    let lquery = lwork == -1;
    let mut lwmin = 0;
    if info == 0 {
        let iroffa = (ia - 1) % desca.mb();
        let iroffc = (ic - 1) % descc.mb();
        let icoffc = (jc - 1) % descc.nb();
        let iarow = indxg2p(ia, desca.mb(), desca.rsrc(), g.nprow);
        let icrow = indxg2p(ic, descc.mb(), descc.rsrc(), g.nprow);
        let iccol = indxg2p(jc, descc.nb(), descc.csrc(), g.npcol);
        let mpc0 = numroc(m + iroffc, descc.mb(), g.myrow, icrow, g.nprow);
        let nqc0 = numroc(n + icoffc, descc.nb(), g.mycol, iccol, g.npcol);
        let nba = desca.nb();
        lwmin = if left {
            ((nba * (nba - 1)) / 2).max((mpc0 + nqc0) * nba) + nba * nba
        } else {
            let npa0 = numroc(n + iroffa, desca.mb(), g.myrow, iarow, g.nprow);
            let lcmq = ilcm(g.nprow, g.npcol) / g.npcol;
            let inner = numroc(numroc(n + icoffc, nba, 0, 0, g.npcol), nba, 0, 0, lcmq);
            ((nba * (nba - 1)) / 2).max((nqc0 + (npa0 + inner).max(mpc0)) * nba) + nba * nba
        };
        work.set(0, T::from_f64(lwmin as f64));
        if !left && !flag(side, b'R') {
            info = -1;
        } else if !notran && !flag(trans, T::ADJOINT) {
            info = -2;
        } else if k < 0 || k > nq {
            info = -5;
        } else if !left && desca.mb() != descc.nb() {
            info = -(900 + NB_);
        } else if left && (iroffa != iroffc || iarow != icrow) {
            info = -12;
        } else if !left && iroffa != icoffc {
            info = -13;
        } else if left && desca.mb() != descc.mb() {
            info = -(1400 + MB_);
        } else if desca.ctxt() != descc.ctxt() {
            info = -(1400 + CTXT_);
        } else if lwork < lwmin && !lquery {
            info = -16;
        }
    }
    let opa = if left {
        Operand { m, mpos: 3, n: k, npos: 5, i: ia, j: ja, desc: desca, descpos: 9 }
    } else {
        Operand { m: n, mpos: 4, n: k, npos: 5, i: ia, j: ja, desc: desca, descpos: 9 }
    };
    let opc = Operand { m, mpos: 3, n, npos: 4, i: ic, j: jc, desc: descc, descpos: 14 };
    let nb = q_nb(cfg, nq, g.nprow * g.npcol, 256);
    let mut plan = Plan::local(cfg, routine, nq.max(0) as usize, nb);
    plan.forward =
        plan.forward.or_else(|| super::q_slower(cfg, routine, desca.nb(), nq, if left { n } else { m }));
    let extra = [
        (if left { b'L' } else { b'R' } as i32, 1),
        (if notran { b'N' } else { T::ADJOINT } as i32, 2),
        (k, 5),
        (if lquery { -1 } else { 1 }, 16),
    ];
    pchkmat(desca.ctxt(), &g, &[opa, opc], &extra, &mut info, Some(&mut plan));
    check(info)?;
    if lquery || m == 0 || n == 0 || k == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let flops = T::FLOPS
        * if left {
            4.0 * nf * kf * mf - 2.0 * nf * kf * kf
        } else {
            4.0 * mf * kf * nf - 2.0 * mf * kf * kf
        };
    let (sc, tc) = (side.to_ascii_uppercase() as char, trans.to_ascii_uppercase() as char);
    let desc = format_args!("side={sc} trans={tc} m={m} n={n} k={k} ia={ia} ja={ja} ic={ic} jc={jc}");
    if let Some(why) = plan.forward {
        let info =
            fwd::ormqr::<T>(side, trans, m, n, k, a, ia, ja, &desca.0, tau, c, ic, jc, &descc.0, work, lwork);
        let grid = format_args!("mb={} grid={}x{}", desca.mb(), g.nprow, g.npcol);
        rep.finish(routine, format_args!("{desc} {grid}"), Path::Forward, Some(why), flops);
        return info_result(info);
    }
    let o = Ormqr {
        side: if left { Side::Left } else { Side::Right },
        trans: if notran { Trans::No } else { Trans::Yes },
        m,
        n,
        k,
        a,
        ia,
        ja,
        desca,
        tau,
        c,
        ic,
        jc,
        descc,
    };
    let (r, st) = crate::dist::orgqr::ormqr(cfg, &o, &g, plan.nb);
    work.set(0, T::from_f64(lwmin as f64));
    let layout = if left { "row" } else { "col" };
    super::report_tiles(
        &rep,
        routine,
        format_args!("{desc} layout={layout}"),
        desca,
        &g,
        plan.nb,
        &st,
        flops,
    );
    r
}
