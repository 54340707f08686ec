//! ScaLAPACK 2.2 entry logic: descriptor and argument checks in ScaLAPACK's order and with its
//! INFO encoding, quick returns, the forward-or-run decision and the verbose line.
//!
//! ScaLAPACK reports a bad scalar argument `i` as INFO = -i and a bad entry `j` of the descriptor
//! that is argument `i` as INFO = -(i·100 + j). The checks come in two stages, as in the
//! reference tools: a local stage (CHK1MAT: the descriptor makes sense from this process's point
//! of view) followed by the routine's own alignment rules, then a global stage (PCHK1MAT /
//! PCHK2MAT: every scalar and descriptor entry must be equal on all processes of the grid; the
//! smallest error code found anywhere wins, so every process reports the same INFO). A process
//! outside the grid gets -(argpos·100 + CTXT_) without any communication, as in the reference.

pub mod bt;
pub mod geqrf;
pub mod getrf;
pub mod inverse;
pub mod orgqr;
pub mod potrf;

use crate::backend::blacs;
use crate::config::{Config, DistLayout, LuPanel, Pivoting};
use crate::dist::redistribute::Shape;
use crate::error::Error;

/// Descriptor entries (1-based positions, as ScaLAPACK numbers them in its INFO codes).
pub const DTYPE_: i32 = 1;
pub const CTXT_: i32 = 2;
pub const M_: i32 = 3;
pub const N_: i32 = 4;
pub const MB_: i32 = 5;
pub const NB_: i32 = 6;
pub const RSRC_: i32 = 7;
pub const CSRC_: i32 = 8;
pub const LLD_: i32 = 9;

/// Error codes are combined by taking a minimum over codes scaled by this factor, so that a
/// descriptor entry (i·100 + j) and a scalar (i·100) compare in argument order.
const DESCMULT: i32 = 100;
const BIGNUM: i32 = DESCMULT * DESCMULT;

/// A block-cyclic array descriptor (`DESC(9)`, type 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc(pub [i32; 9]);

impl Desc {
    pub fn dtype(&self) -> i32 {
        self.0[0]
    }
    pub fn ctxt(&self) -> i32 {
        self.0[1]
    }
    pub fn m(&self) -> i32 {
        self.0[2]
    }
    pub fn n(&self) -> i32 {
        self.0[3]
    }
    pub fn mb(&self) -> i32 {
        self.0[4]
    }
    pub fn nb(&self) -> i32 {
        self.0[5]
    }
    pub fn rsrc(&self) -> i32 {
        self.0[6]
    }
    pub fn csrc(&self) -> i32 {
        self.0[7]
    }
    pub fn lld(&self) -> i32 {
        self.0[8]
    }
}

/// The process grid as the BLACS report it for a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridInfo {
    pub nprow: i32,
    pub npcol: i32,
    pub myrow: i32,
    pub mycol: i32,
}

impl GridInfo {
    pub fn of(ctxt: i32) -> Self {
        let (nprow, npcol, myrow, mycol) = blacs::gridinfo(ctxt);
        GridInfo { nprow, npcol, myrow, mycol }
    }
}

/// NUMROC: how many of the `n` rows (or columns), dealt in blocks of `nb` starting at process
/// `isrc`, process `iproc` of `nprocs` holds.
pub fn numroc(n: i32, nb: i32, iproc: i32, isrc: i32, nprocs: i32) -> i32 {
    let mydist = (nprocs + iproc - isrc) % nprocs;
    let nblocks = n / nb;
    let mut num = (nblocks / nprocs) * nb;
    let extra = nblocks % nprocs;
    if mydist < extra {
        num += nb;
    } else if mydist == extra {
        num += n % nb;
    }
    num
}

/// INDXG2P: the process row (or column) holding global index `ig` (1-based).
pub fn indxg2p(ig: i32, nb: i32, isrc: i32, nprocs: i32) -> i32 {
    (isrc + (ig - 1) / nb) % nprocs
}

/// ILCM: the least common multiple of `m` and `n` (both > 0).
pub fn ilcm(m: i32, n: i32) -> i32 {
    let (mut a, mut b) = (m.max(n), m.min(n));
    while b > 0 {
        (a, b) = (b, a % b);
    }
    m / a * n
}

/// Turns an INFO value into the min-combinable code CHK1MAT works with.
fn to_code(info: i32) -> i32 {
    if info >= 0 {
        BIGNUM
    } else if info < -DESCMULT {
        -info
    } else {
        -info * DESCMULT
    }
}

/// Turns a combined code back into an INFO value.
fn from_code(code: i32) -> i32 {
    if code == BIGNUM {
        0
    } else if code % DESCMULT == 0 {
        -code / DESCMULT
    } else {
        -code
    }
}

/// CHK1MAT: local consistency of sub(A) = A(IA:IA+MA-1, JA:JA+NA-1) with descriptor `d`, which
/// is argument `descpos` (IA and JA are arguments `descpos-2` and `descpos-1`). An error already
/// in `info` is kept when it comes earlier in the argument list.
#[allow(clippy::too_many_arguments)]
pub fn chk1mat(
    ma: i32,
    mapos: i32,
    na: i32,
    napos: i32,
    ia: i32,
    ja: i32,
    d: &Desc,
    descpos: i32,
    g: &GridInfo,
    info: &mut i32,
) {
    let mut code = to_code(*info);
    let (mapos, napos) = (mapos * DESCMULT, napos * DESCMULT);
    let (iapos, japos, dpos) = ((descpos - 2) * DESCMULT, (descpos - 1) * DESCMULT, descpos * DESCMULT);
    let bad = if d.dtype() != 1 {
        Some(dpos + DTYPE_)
    } else if ma < 0 {
        Some(mapos)
    } else if na < 0 {
        Some(napos)
    } else if ia < 1 {
        Some(iapos)
    } else if ja < 1 {
        Some(japos)
    } else if d.mb() < 1 {
        Some(dpos + MB_)
    } else if d.nb() < 1 {
        Some(dpos + NB_)
    } else if d.rsrc() < 0 || d.rsrc() >= g.nprow {
        Some(dpos + RSRC_)
    } else if d.csrc() < 0 || d.csrc() >= g.npcol {
        Some(dpos + CSRC_)
    } else if d.lld() < 1
        || (d.lld() < numroc(d.m(), d.mb(), g.myrow, d.rsrc(), g.nprow)
            && numroc(d.n(), d.nb(), g.mycol, d.csrc(), g.npcol) > 0)
    {
        // LLD below the local row count only matters when this process holds some columns.
        Some(dpos + LLD_)
    } else {
        None
    };
    if let Some(c) = bad {
        code = code.min(c);
    }
    if ma == 0 || na == 0 {
        // An empty sub-matrix only needs sane global sizes.
        if d.m() < 0 {
            code = code.min(dpos + M_);
        }
        if d.n() < 0 {
            code = code.min(dpos + N_);
        }
    } else if d.m() < 1 {
        code = code.min(dpos + M_);
    } else if d.n() < 1 {
        code = code.min(dpos + N_);
    } else if ia > d.m() {
        code = code.min(iapos);
    } else if ja > d.n() {
        code = code.min(japos);
    } else {
        if ia + ma - 1 > d.m() {
            code = code.min(mapos);
        }
        if ja + na - 1 > d.n() {
            code = code.min(napos);
        }
    }
    *info = from_code(code);
}

/// One matrix operand for the global check: its sizes, offsets and descriptor, and where each
/// appears in the routine's argument list.
pub struct Operand<'a> {
    pub m: i32,
    pub mpos: i32,
    pub n: i32,
    pub npos: i32,
    pub i: i32,
    pub j: i32,
    pub desc: &'a Desc,
    pub descpos: i32,
}

/// PCHK1MAT / PCHK2MAT: the values of every operand (and the `extra` (value, position) pairs)
/// must be the same on all processes of the grid of context `ctxt`; combines that with the local
/// `info` into the smallest error found anywhere, left on every process. Collective over the grid.
/// The same broadcast carries process (0, 0)'s [`Plan`] for the call, which replaces `plan` on
/// every other process: all take the same decisions.
pub fn pchkmat(
    ctxt: i32,
    g: &GridInfo,
    ops: &[Operand],
    extra: &[(i32, i32)],
    info: &mut i32,
    plan: Option<&mut Plan>,
) {
    let mut code = to_code(*info);
    let mut vals: Vec<(i32, i32)> = Vec::new();
    for o in ops {
        let dpos = o.descpos * DESCMULT;
        vals.push((o.m, o.mpos * DESCMULT));
        vals.push((o.n, o.npos * DESCMULT));
        vals.push((o.i, (o.descpos - 2) * DESCMULT));
        vals.push((o.j, (o.descpos - 1) * DESCMULT));
        for (k, entry) in [DTYPE_, M_, N_, MB_, NB_, RSRC_, CSRC_].into_iter().enumerate() {
            let v = if k == 0 { o.desc.dtype() } else { o.desc.0[entry as usize - 1] };
            vals.push((v, dpos + entry));
        }
    }
    vals.extend_from_slice(extra);
    let mut x: Vec<i32> = vals.iter().map(|v| v.0).collect();
    let nv = x.len();
    if let Some(p) = &plan {
        x.extend_from_slice(&p.encode());
    }
    let root = g.myrow == 0 && g.mycol == 0;
    let mut plan = plan;
    if root {
        blacs::igebs2d_all(ctxt, &mut x);
    } else {
        let mut theirs = vec![0; x.len()];
        blacs::igebr2d_all(ctxt, &mut theirs, 0, 0);
        for (k, (v, pos)) in vals.iter().enumerate() {
            if *v != theirs[k] {
                code = code.min(*pos);
            }
        }
        if let Some(p) = plan.as_mut() {
            **p = Plan::decode(&theirs[nv..]);
        }
    }
    code = blacs::igamn2d_all(ctxt, code);
    *info = from_code(code);
    // Process (0, 0) times the call if it is a trial (its report arms the plan).
    if let (true, 0, Some(p)) = (root, *info, plan) {
        crate::api::tune::plan(p.probe);
    }
}

/// The learner's trials of a distributed call's class, on every process of the grid `g` of
/// context `ctxt` (collective): `run` runs the call once on copies of this process's local
/// arrays and says whether it finished (INFO = 0). Process (0, 0) leads
/// (`api::tune::dist_trials_root`): before each trial it tells the others to run one,
/// and when they are over, that they are; each trial call's plan is its, as for any call.
pub fn dist_trials(
    cfg: &Config,
    routine: &'static str,
    size: usize,
    g: &GridInfo,
    ctxt: i32,
    caller_nb: i32,
    run: &mut dyn FnMut() -> bool,
) {
    const OVER: i32 = 0;
    const NEXT: i32 = 1;
    if g.myrow == 0 && g.mycol == 0 {
        crate::api::tune::dist_trials_root(cfg, routine, size, (g.nprow, g.npcol), caller_nb, &mut || {
            blacs::igebs2d_all(ctxt, &mut [NEXT]);
            run()
        });
        blacs::igebs2d_all(ctxt, &mut [OVER]);
    } else {
        loop {
            let mut x = [OVER];
            blacs::igebr2d_all(ctxt, &mut x, 0, 0);
            if x[0] == OVER {
                break;
            }
            crate::api::tune::as_trial(&mut *run);
        }
    }
}

/// The elements of this process's local array of a matrix with descriptor `d` that a routine
/// on columns up to global column `last` (1-based) may touch: LLD·LOCc(last).
pub fn local_span(d: &Desc, g: &GridInfo, last: i32) -> usize {
    d.lld().max(1) as usize * local_cols(d, g, last)
}

/// LOCc(last): this process's columns of global columns 1..=last of a matrix with descriptor `d`.
pub fn local_cols(d: &Desc, g: &GridInfo, last: i32) -> usize {
    numroc(last.max(0), d.nb(), g.mycol, d.csrc(), g.npcol).max(0) as usize
}

/// The common first step of every routine: the grid of descriptor A's context. A process outside
/// the grid gets the reference's error, -(descpos·100 + CTXT_).
pub fn grid_or_error(desca: &Desc, descpos: i32) -> Result<GridInfo, Error> {
    let g = GridInfo::of(desca.ctxt());
    if g.nprow == -1 {
        return Err(Error::Arg(descpos * 100 + CTXT_));
    }
    Ok(g)
}

/// INFO (negative) to the `Error` the ABI layer turns into PXERBLA.
pub fn check(info: i32) -> Result<(), Error> {
    if info < 0 {
        Err(Error::Arg(-info))
    } else {
        Ok(())
    }
}

/// What a distributed call does, decided once by process (0, 0) of the grid and taken by every
/// process ([`pchkmat`] carries it): forward to the next ScaLAPACK or run on tiles, and the tile
/// width. Each process's environment (`HETLA_NB`, `HETLA_MIN_N`, `HETLA_DISABLE`, thread count)
/// may differ; the grid must still agree, or one rank would wait forever for another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub forward: Option<&'static str>,
    pub nb: usize,
    /// The tile layout (the LU's and QR's choice, [`lu_qr_shape`]; the caller's grid for the others).
    pub shape: Shape,
    /// The LU's pivoting (`HETLA_LU`).
    pub pivot: Pivoting,
    /// The LU's GEPP panels on several process rows factored where their rows are ([`lu_split`]).
    pub split: bool,
    /// The break-even trial this call is, on process (0, 0) only ([`Plan::learned`]; not sent).
    pub probe: Option<crate::api::tune::Probe>,
    /// The call's class is undecided: before the call, the grid runs the learner's trials on
    /// copies of its local arrays ([`dist_trials`]).
    pub trials: bool,
}

/// Every reason a distributed call can be forwarded for, by code.
const REASONS: [&str; 10] = [
    "nested",
    "disabled",
    "small",
    "no-mpi",
    "mpi-not-open-mpi",
    "mpi-incomplete",
    "slower",
    "probe",
    "learned",
    "devices",
];

impl Plan {
    /// This process's own decision for `routine` on a problem of `size` with tile width `nb`.
    pub fn local(cfg: &Config, routine: &'static str, size: usize, nb: usize) -> Plan {
        let forward = crate::api::forward_reason(cfg, routine, size).or_else(crate::dist::unsupported_reason);
        Plan { forward, nb, shape: Shape::Grid, pivot: cfg.lu, split: false, probe: None, trials: false }
    }

    /// [`Plan::local`] with the break-even size learned on this machine, as for a LAPACK call
    /// (`api::tune`), per grid shape (P, Q) and caller block size `caller_nb`: without
    /// `HETLA_MIN_N` the first calls of a size class are trials on tiles, then forwarded, and the
    /// class keeps the faster. Process (0, 0)'s decision is the grid's ([`pchkmat`]), so only it
    /// learns (the others' plans are replaced by its) and times the trial.
    pub fn learned<T: crate::graph::op::OpElem>(
        cfg: &Config,
        routine: &'static str,
        size: usize,
        nb: usize,
        g: &GridInfo,
        caller_nb: i32,
    ) -> Plan {
        crate::api::tune::plan(None);
        let unsupported = crate::dist::unsupported_reason();
        let mut plan = Plan::local(cfg, routine, size, nb);
        let root = g.myrow == 0 && g.mycol == 0;
        // `local` keeps "small" ahead of an unsupported MPI: learn only where tiles could run.
        if root
            && unsupported.is_none()
            && cfg.min_n.is_none()
            && matches!(plan.forward, None | Some("small"))
        {
            let (why, probe) =
                crate::api::tune::decide_dist(cfg, routine, size, (g.nprow, g.npcol), caller_nb);
            plan.forward = why;
            plan.probe = probe;
            plan.trials =
                crate::api::tune::wants_dist_trials(cfg, routine, size, (g.nprow, g.npcol), caller_nb);
        }
        plan
    }
    fn encode(&self) -> [i32; 6] {
        let code = match self.forward {
            None => 0,
            Some(r) => {
                REASONS.iter().position(|&x| x == r).map_or(REASONS.len() as i32 + 1, |i| i as i32 + 1)
            }
        };
        let shape = match self.shape {
            Shape::Grid => 0,
            Shape::OneRow => 1,
            Shape::OneCol => 2,
        };
        [
            code,
            self.nb as i32,
            shape,
            (self.pivot == Pivoting::Calu) as i32,
            self.split as i32,
            self.trials as i32,
        ]
    }
    fn decode(v: &[i32]) -> Plan {
        let forward = match v[0] {
            0 => None,
            c => Some(REASONS.get(c as usize - 1).copied().unwrap_or("root-decided")),
        };
        let shape = match v[2] {
            1 => Shape::OneRow,
            2 => Shape::OneCol,
            _ => Shape::Grid,
        };
        let pivot = if v[3] == 1 { Pivoting::Calu } else { Pivoting::Gepp };
        Plan {
            forward,
            nb: v[1].max(1) as usize,
            shape,
            pivot,
            split: v[4] == 1,
            probe: None,
            trials: v[5] == 1,
        }
    }
}

/// The tile layout of the distributed LU and QR on a P×Q grid: `HETLA_DIST_LAYOUT` when set;
/// otherwise whole tile columns over all P·Q ranks when there are at most
/// `ROW_LAYOUT_MAX_RANKS` (then each panel is factored on one rank, by LAPACK's GEPP or
/// DGEQRT3, and crosses the network once, as a broadcast to the ranks right of it; the LU's row
/// interchanges never leave a rank and the QR's update needs no partial sums), the
/// caller's 2-D grid beyond (where one rank per panel would serialise too much). Measured with
/// `bench/scalapack.sh` on 2 ranks, 2×1 grid, N = 4000 (speed against the reference, medians):
/// caller NB = 32, 2-D 0.60x, one row 1.40x; NB = 64, 2-D 0.75x, one row 1.19-1.43x.
pub fn lu_qr_shape(cfg: &Config, p: i32, q: i32) -> Shape {
    match cfg.dist_layout {
        Some(DistLayout::Grid) => Shape::Grid,
        Some(DistLayout::Row) => Shape::OneRow,
        None if p > 1 && (p * q) as usize <= ROW_LAYOUT_MAX_RANKS => Shape::OneRow,
        None => Shape::Grid,
    }
}

/// Whether the distributed LU factors its GEPP panels on several process rows where their rows
/// are ([`crate::config::LuPanel::Split`]) rather than gathered on the rank of their top tile:
/// only when `HETLA_LU_PANEL=split`. Gathered is the default because it measured faster on every
/// grid we could run (2026-11-26, 2 cores, N = 4000, caller NB = 32, tiles of 256,
/// `HETLA_DIST_LAYOUT=grid`, hetla's seconds, three alternations): 2×1 gathered 0.84–0.93
/// against split 0.96–1.08; 2×2 (4 ranks) 0.90–0.94 against 1.09–1.11; 4×1 1.14–1.16 against
/// 1.87–1.94. A split panel costs a round trip per column, which ranks sharing cores pay dearly;
/// it spares the gather and scatter of the whole panel and its factorization on one core, which
/// grow with the panel's height.
pub fn lu_split(cfg: &Config) -> bool {
    cfg.lu_panel == Some(LuPanel::Split)
}

/// Whether tiles dealt in `shape` over a P×Q grid (`p` process rows) can be the caller's own
/// blocks: the caller's grid, or whole tile columns over the ranks of one process row, which is
/// the same dealing.
pub fn caller_layout(shape: Shape, p: i32) -> bool {
    shape == Shape::Grid || p == 1
}

/// The tile layout of the distributed Cholesky on a P×Q grid with tiles of `nb` from the
/// caller's blocks of `caller_nb`: whole tile columns over all P·Q ranks (then each tile column
/// is one rank's, and a lower factor's trailing update is one task per column, as on a 1×Q grid:
/// `algo::potrf::Granularity::Columns`) when the tiles are converted anyway, P > 1 and there are
/// at most `ROW_LAYOUT_MAX_RANKS` ranks; otherwise the caller's grid (in place when `nb` is the
/// caller's block size). `HETLA_DIST_LAYOUT` as for [`lu_qr_shape`]. Measured with
/// `HETLA_DIST_LAYOUT=grid|row ROUTINES=pdpotrf bench/scalapack.sh` (2026-11-26 02:36 UTC, quiet,
/// N = 4000, caller NB = 32, tiles of 256, alternating, hetla's seconds): 2×1 grid 0.328, 0.338,
/// 0.384 against row 0.304, 0.304, 0.316 (61%, 60%, 53% of the DGEMM rate against 65%, 66%,
/// 64%); 2×2 (4 ranks on 2 cores) grid 0.422, 0.527 against row 0.385, 0.395.
pub fn potrf_shape(cfg: &Config, p: i32, q: i32, nb: usize, caller_nb: i32) -> Shape {
    let converted = nb != caller_nb.max(1) as usize;
    if converted && potrf_rows(cfg, p, q) {
        Shape::OneRow
    } else {
        Shape::Grid
    }
}

/// Whether the distributed Cholesky deals converted tiles as whole tile columns over all ranks
/// ([`potrf_shape`]).
fn potrf_rows(cfg: &Config, p: i32, q: i32) -> bool {
    match cfg.dist_layout {
        Some(DistLayout::Grid) => false,
        Some(DistLayout::Row) => true,
        None => p > 1 && (p * q) as usize <= ROW_LAYOUT_MAX_RANKS,
    }
}

/// Caller block sizes PDPOTRF works on in place on a P×Q grid: [`PDPOTRF_IN_PLACE`] on one
/// process row or where converted tiles would keep the caller's grid; none where they would be
/// dealt as whole tile columns over all ranks (P > 1 on up to 8 ranks), which runs faster than
/// the caller's grid even counting the conversion: 2×1, caller NB = 128, two alternations
/// (2026-11-27, hetla's seconds), N = 2000 in place 0.038 and 0.049 against converted to tiles
/// of 256 0.033 and 0.041; N = 4000 0.263 and 0.386 against 0.227 and 0.197. In place on 2×1
/// the factored tiles cross between the ranks as MPI messages; converted, the ranks read them
/// in each other's shared storage.
pub fn pdpotrf_in_place(cfg: &Config, p: i32, q: i32) -> std::ops::RangeInclusive<i32> {
    if p > 1 && potrf_rows(cfg, p, q) {
        #[allow(clippy::reversed_empty_ranges)]
        return 1..=0;
    }
    PDPOTRF_IN_PLACE
}

/// The layout's name in the verbose lines.
pub fn layout_name(s: Shape) -> &'static str {
    match s {
        Shape::Grid => "grid",
        Shape::OneRow => "row",
        Shape::OneCol => "col",
    }
}

/// The most ranks over which the distributed LU and QR deal whole tile columns by default
/// ([`lu_qr_shape`]).
pub(crate) const ROW_LAYOUT_MAX_RANKS: usize = 8;

/// Tile width of the distributed LU (`routine` = `"p?getrf"`, any type) and QR (any other), from the
/// problem (`n`, the caller's `caller_nb`, `p` process rows of the tiles' layout; `in_place`:
/// whether that layout is the caller's, [`caller_layout`]): `HETLA_NB` when set; the caller's
/// block size when it is 128..=256 and `in_place`, because then every tile already is where the
/// caller's block is and the routine works in place; otherwise the data is converted to hetla's
/// tiles (on a P×1 grid dealt as one row, NB = 128 moved to tiles of 128 ran pdgetrf at 0.44–0.47
/// s, where NB = 64 moved to tiles of 320 ran at 0.42, 2026-11-27): 256 wide
/// when the panel spans process rows (each step's panel and row exchanges cost messages, so fewer,
/// wider steps pay); on one process row 320 for the LU and 128 for the QR; narrower for small
/// problems, so that each process keeps a few tile columns. Measured with `bench/scalapack.sh` at
/// N = 4000 on 2 ranks (hetla / reference): caller NB = 32, pdgetrf 2×1 0.26 in place against
/// 0.72–0.78 converted, 1×2 0.55 against 0.90–0.94; pdgeqrf 2×1 0.56 against 0.92–1.00, 1×2
/// 0.82 against 1.10–1.15; NB = 64 on 2×1, pdgetrf 0.49 in place, 0.61 at 128, 0.72 at 256.
/// On one process row, with the column-block updates and the recursive panel (2026-11-27, two
/// alternations of caller NB 16, 32, 64 on 1×2, seconds): pdgetrf 0.399–0.492 at 128,
/// 0.395–0.415 at 256, 0.385–0.400 at 320 (each update's GEMM has the tile width as inner
/// dimension, and OpenBLAS runs 128 slower than 320); pdgeqrf (NB 32) 0.761–0.776 at 128 and
/// 0.756–0.801 at 320, so the QR keeps 128.
pub fn lu_qr_nb(
    cfg: &Config,
    routine: &str,
    n: i32,
    caller_nb: i32,
    (p, q): (i32, i32),
    in_place: bool,
) -> usize {
    if let Some(nb) = cfg.nb {
        return nb;
    }
    if in_place && (128..=256).contains(&caller_nb) {
        return caller_nb as usize;
    }
    let want = match (p > 1, routine) {
        (true, _) => 256,
        (false, r) if r.ends_with("getrf") => 320,
        (false, _) => 128,
    };
    // At least about four tile columns per process column.
    let cap = (n.max(1) as usize / (4 * q.max(1) as usize)).div_ceil(32) * 32;
    want.min(cap.max(32))
}

/// Caller block sizes from which P?ORGQR (the real types) is forwarded (unless `HETLA_MIN_N` is
/// set): the reference's own blocking is faster there. Since the QR family applies its
/// reflectors 32 at a time, measured with `HETLA_MIN_N=0 SWEEP="1x2:16,32" REPS=5
/// bench/scalapack.sh` (2026-11-29 03:35–03:40 UTC, quiet, N = 4000 real and 2500 complex),
/// hetla on tiles / reference: NB 16 `pdorgqr` 1.11×, `psorgqr` 1.19×, `pcungqr` 0.98×,
/// `pzungqr` 0.85×; NB 32 0.82×, 0.94×, 0.86×, 0.90×. (Before the inner blocking, 2026-11-25 on
/// a loaded machine: `pdorgqr` NB 32 1.28×, NB 64 0.78×.)
pub const PDORGQR_MIN_NB_SLOWER: i32 = 32;

/// The same for P?UNGQR (the complex types), measured with it.
pub const PUNGQR_MIN_NB_SLOWER: i32 = 16;

/// `Some("slower")` when the distributed Q routine `routine` (`pdorgqr`, `pdormqr`) with this
/// caller block size measured slower on tiles than the reference ([`PDORGQR_MIN_NB_SLOWER`],
/// [`PUNGQR_MIN_NB_SLOWER`]; PDORMQR measured faster at NB 32 and 64), or when PDORMQR applies Q (of order `order`) to
/// fewer than `order` · [`SOLVE_TILES_MIN_NRHS_PER_N`] columns of C (`c_width`; rows for
/// SIDE = 'R'): like a solve, that is O(order²) work per column, too little for the tile
/// runtime to pay for converting the reflectors. Measured with `ROUTINES=pdormqr COLS=C
/// bench/scalapack.sh` (N = 4000, NB = 32, 2026-11-25, load 0.6–1.3), hetla on tiles /
/// reference: C = 1 0.38× (1×2) and 0.12× (2×1), 500 0.78× and 0.67×, 2000 1.14× and 1.19×.
/// Unless `HETLA_MIN_N` is set. Depends only on global arguments, so every rank agrees.
pub fn q_slower(
    cfg: &Config,
    routine: &str,
    caller_nb: i32,
    order: i32,
    c_width: i32,
) -> Option<&'static str> {
    // Any type's name: p?orgqr / p?ungqr, p?ormqr / p?unmqr.
    let slower = (routine.ends_with("orgqr") && caller_nb >= PDORGQR_MIN_NB_SLOWER)
        || (routine.ends_with("ungqr") && caller_nb >= PUNGQR_MIN_NB_SLOWER)
        || (routine.ends_with("mqr") && (c_width as f64) < SOLVE_TILES_MIN_NRHS_PER_N * order as f64);
    (cfg.min_n.is_none() && slower).then_some("slower")
}

/// PDGETRS and PDPOTRS run on tiles only for at least this many right-hand sides per order
/// (NRHS ≥ N / 2), unless `HETLA_MIN_N` is set; fewer are forwarded (`reason=slower`). The
/// factors are in the caller's layout either way (hetla's factorizations return ScaLAPACK's
/// format), so the reference solves them in place, and its O(N²·NRHS) work is too little for the
/// tile runtime's tasks to pay: measured with `ROUTINES="pdgetrs pdpotrs" NRHS=K
/// bench/scalapack.sh` at N = 4000 on 2 ranks (2026-11-25, hetla on tiles / reference; the first
/// three on a machine shared with builds): NRHS = 1 0.05–0.26×, 64 0.20–0.53×, 512 0.41–0.91×;
/// quiet, tiles of 256: NRHS = 2000 1.31–1.53× on 1×2 (NB 32 and 64), 0.96× (pdgetrs) and
/// 1.22× (pdpotrs) on 2×1; NRHS = 4000 1.57–1.58×.
pub const SOLVE_TILES_MIN_NRHS_PER_N: f64 = 0.5;

/// Caller block sizes the solves work on in place (below, A is converted to hetla's tiles: with
/// NRHS ≥ N/2 the O(N²) conversion is small beside the O(N²·NRHS) solve, and narrow tiles cost
/// more than it). Quiet, N = 4000, NRHS = 2000 on 1×2: in place at NB = 32 0.52–0.56× the
/// reference, at 64 0.96–1.10×; converted to tiles of 256 1.31–1.53×.
pub const SOLVE_IN_PLACE: std::ops::RangeInclusive<i32> = 128..=256;

/// `Some("slower")` when a distributed solve of `nrhs` right-hand sides of order `n` is forwarded
/// by [`SOLVE_TILES_MIN_NRHS_PER_N`], or at any NRHS when `always` (PDGETRS on several process
/// rows: 0.93–0.96× the reference at N = 4000, NRHS = 2000 on 2×1, quiet). Depends only on
/// global arguments and the grid, so every rank agrees.
pub fn solve_slower(cfg: &Config, n: i32, nrhs: i32, always: bool) -> Option<&'static str> {
    let few = (nrhs as f64) < SOLVE_TILES_MIN_NRHS_PER_N * n as f64;
    (cfg.min_n.is_none() && (few || always)).then_some("slower")
}

/// Caller block sizes PDPOTRF works on in place (no conversion). Below 128 the tile kernels lose
/// more than a conversion to hetla's tiles costs (`bench/scalapack.sh`, 1×2 grid, caller NB = 64,
/// interleaved rounds on 2026-11-24: N = 4000 in place 0.85–0.93× the reference, converted to
/// tiles of 256 1.00–1.03×; N = 8000 in place 0.84–0.90×, converted 0.89–0.90×). An earlier
/// session had measured the opposite at N = 8000 (in place 2.44 s, converted 2.80 s).
pub const PDPOTRF_IN_PLACE: std::ops::RangeInclusive<i32> = 128..=512;

/// Tile width of the distributed Cholesky and the solves: `HETLA_NB` when set; otherwise the
/// caller's block size when it is a workable tile width for the routine (`workable`), because
/// then every tile already is where the caller's block is, on any grid, and the routine works in
/// place in the caller's local arrays (no conversion); otherwise the routine's default, and the
/// conversion moves the data. The solves take blocks from 128 ([`SOLVE_IN_PLACE`]); Cholesky
/// from 128 too ([`PDPOTRF_IN_PLACE`]).
pub fn caller_aligned_nb(
    cfg: &Config,
    routine: &str,
    n: i32,
    caller_nb: i32,
    workable: std::ops::RangeInclusive<i32>,
) -> usize {
    if cfg.nb.is_none() && workable.contains(&caller_nb) {
        caller_nb as usize
    } else {
        cfg.nb_for(routine, n.max(1) as usize)
    }
}

/// The verbose line of a distributed call that ran on tiles: the caller's sizes (`desc`), its
/// block size and grid, hetla's tile size and what the distributed layer measured (the devices'
/// counters included).
#[allow(clippy::too_many_arguments)]
pub(crate) fn report_tiles(
    rep: &crate::api::Report,
    routine: &str,
    desc: std::fmt::Arguments,
    desca: &Desc,
    g: &GridInfo,
    nb: usize,
    st: &crate::dist::Stats,
    flops: f64,
) {
    crate::api::record_device_stats(&st.devices);
    let grid = format_args!("mb={} grid={}x{} nb={nb} {st}", desca.mb(), g.nprow, g.npcol);
    rep.finish(routine, format_args!("{desc} {grid}"), crate::api::Path::Tiles, None, flops);
}

/// A forwarded call's INFO as a result.
pub fn info_result(info: i32) -> Result<(), Error> {
    match info {
        0 => Ok(()),
        i if i > 0 => Err(Error::Numerical(i)),
        // Our checks are the reference's, so this cannot happen unless they diverge: say so.
        i => Err(Error::Runtime(format!("the forwarded reference call returned INFO = {i}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_survives_its_broadcast_encoding() {
        // The reason survives the plan's broadcast encoding.
        let plan = Plan {
            forward: Some("slower"),
            nb: 64,
            shape: Shape::Grid,
            pivot: Pivoting::Calu,
            split: true,
            probe: None,
            trials: true,
        };
        assert_eq!(Plan::decode(&plan.encode()), plan);
    }

    #[test]
    fn q_routines_forward_large_caller_blocks_and_narrow_c_unless_forced() {
        let mut cfg = Config::with_threads(1);
        assert_eq!(q_slower(&cfg, "pdorgqr", 64, 4000, 4000), Some("slower"));
        assert_eq!(q_slower(&cfg, "pdorgqr", 32, 4000, 4000), Some("slower"));
        assert_eq!(q_slower(&cfg, "psorgqr", 16, 4000, 4000), None);
        assert_eq!(q_slower(&cfg, "pzungqr", 16, 2500, 2500), Some("slower"));
        assert_eq!(q_slower(&cfg, "pcungqr", 8, 2500, 2500), None);
        assert_eq!(q_slower(&cfg, "pdormqr", 64, 4000, 4000), None);
        assert_eq!(q_slower(&cfg, "pdormqr", 32, 4000, 2000), None);
        assert_eq!(q_slower(&cfg, "pdormqr", 32, 4000, 1999), Some("slower"));
        assert_eq!(q_slower(&cfg, "pdormqr", 32, 4000, 1), Some("slower"));
        cfg.min_n = Some(0);
        assert_eq!(q_slower(&cfg, "pdorgqr", 64, 4000, 4000), None);
        assert_eq!(q_slower(&cfg, "pdormqr", 32, 4000, 1), None);
    }

    /// The tile width and layout rules of the distributed factorizations: the caller's blocks
    /// are kept only where the tiles keep the caller's dealing, and one process row's LU takes
    /// wider tiles than its QR.
    #[test]
    fn caller_blocks_are_kept_only_where_the_layout_is_the_callers() {
        let mut cfg = Config::with_threads(1);
        cfg.nb = None;
        cfg.dist_layout = None;
        // 1x2: one process row, whole tile columns are the caller's dealing.
        assert!(caller_layout(Shape::OneRow, 1) && caller_layout(Shape::Grid, 2));
        assert!(!caller_layout(Shape::OneRow, 2));
        assert_eq!(lu_qr_nb(&cfg, "pdgetrf", 4000, 128, (1, 2), true), 128);
        assert_eq!(lu_qr_nb(&cfg, "pdgetrf", 4000, 64, (1, 2), true), 320);
        assert_eq!(lu_qr_nb(&cfg, "pdgeqrf", 4000, 64, (1, 2), true), 128);
        // 2x1 dealt as one row: converted anyway, so the one-row width, whatever the caller's NB.
        assert_eq!(lu_qr_nb(&cfg, "pdgetrf", 4000, 128, (1, 2), false), 320);
        assert_eq!(lu_qr_nb(&cfg, "pdgeqrf", 4000, 256, (1, 2), false), 128);
        // Panels across process rows, and small problems (at least about four tile columns a rank).
        assert_eq!(lu_qr_nb(&cfg, "pdgetrf", 4000, 64, (2, 2), true), 256);
        assert_eq!(lu_qr_nb(&cfg, "pdgetrf", 1000, 64, (1, 2), true), 128);
        // Cholesky: in place on one process row and on large grids, never where converted tiles
        // are dealt as one row.
        assert_eq!(pdpotrf_in_place(&cfg, 1, 2), PDPOTRF_IN_PLACE);
        assert_eq!(pdpotrf_in_place(&cfg, 4, 4), PDPOTRF_IN_PLACE);
        assert!(pdpotrf_in_place(&cfg, 2, 1).is_empty());
        assert_eq!(
            caller_aligned_nb(&cfg, "pdpotrf", 4000, 128, pdpotrf_in_place(&cfg, 2, 1)),
            cfg.nb_for("pdpotrf", 4000)
        );
        assert_eq!(potrf_shape(&cfg, 2, 1, cfg.nb_for("pdpotrf", 4000), 128), Shape::OneRow);
        assert_eq!(caller_aligned_nb(&cfg, "pdpotrf", 4000, 128, pdpotrf_in_place(&cfg, 1, 2)), 128);
        assert_eq!(potrf_shape(&cfg, 1, 2, 128, 128), Shape::Grid);
        // HETLA_DIST_LAYOUT=grid keeps the caller's 2-D grid, and with it the caller's blocks.
        cfg.dist_layout = Some(DistLayout::Grid);
        assert_eq!(pdpotrf_in_place(&cfg, 2, 1), PDPOTRF_IN_PLACE);
        // HETLA_NB wins everywhere.
        cfg.nb = Some(96);
        assert_eq!(lu_qr_nb(&cfg, "pdgetrf", 4000, 128, (1, 2), true), 96);
    }

    #[test]
    fn solves_with_few_right_hand_sides_forward_unless_forced() {
        let mut cfg = Config::with_threads(1);
        assert_eq!(solve_slower(&cfg, 4000, 1, false), Some("slower"));
        assert_eq!(solve_slower(&cfg, 4000, 1999, false), Some("slower"));
        assert_eq!(solve_slower(&cfg, 4000, 2000, false), None);
        assert_eq!(solve_slower(&cfg, 4000, 4000, true), Some("slower"));
        assert_eq!(solve_slower(&cfg, 10, 100, false), None);
        cfg.min_n = Some(0);
        assert_eq!(solve_slower(&cfg, 4000, 1, false), None);
        assert_eq!(solve_slower(&cfg, 4000, 1, true), None);
    }

    #[test]
    fn numroc_matches_the_definition() {
        // 10 rows in blocks of 3 over 2 processes starting at 1: blocks 0,2 (rows 0-2, 6-8) on
        // process 1 and blocks 1,3 (rows 3-5, 9) on process 0.
        assert_eq!(numroc(10, 3, 1, 1, 2), 6);
        assert_eq!(numroc(10, 3, 0, 1, 2), 4);
        assert_eq!(numroc(0, 3, 0, 0, 2), 0);
        assert_eq!(indxg2p(4, 3, 1, 2), 0);
    }

    #[test]
    fn codes_round_trip() {
        for info in [0, -1, -4, -9, -602, -1106, -703] {
            assert_eq!(from_code(to_code(info)), info);
        }
    }

    #[test]
    fn chk1mat_order_and_encoding() {
        let g = GridInfo { nprow: 2, npcol: 2, myrow: 0, mycol: 0 };
        let good = Desc([1, 0, 10, 10, 2, 2, 0, 0, 6]);
        let mut info = 0;
        chk1mat(10, 2, 10, 2, 1, 1, &good, 6, &g, &mut info);
        assert_eq!(info, 0);
        // A bad MB in descriptor 6 is -(6*100+5).
        let mut bad = good;
        bad.0[4] = 0;
        chk1mat(10, 2, 10, 2, 1, 1, &bad, 6, &g, &mut info);
        assert_eq!(info, -605);
        // LLD smaller than the local rows (6 rows here with MB=2 on row 0 of 2: rows 0,1,4,5,8,9).
        let mut bad = good;
        bad.0[8] = 5;
        info = 0;
        chk1mat(10, 2, 10, 2, 1, 1, &bad, 6, &g, &mut info);
        assert_eq!(info, -609);
        // IA+N-1 > M: the size argument (2) is blamed.
        info = 0;
        chk1mat(10, 2, 10, 2, 2, 1, &good, 6, &g, &mut info);
        assert_eq!(info, -2);
        // An earlier error is kept.
        info = -1;
        chk1mat(10, 2, 10, 2, 2, 1, &good, 6, &g, &mut info);
        assert_eq!(info, -1);
    }
}
