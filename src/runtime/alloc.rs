//! Static allocation of a matrix product's C tiles to the memory nodes (seed 002, Eyraud-Dubois
//! and Lambert): node 0 is the host (its cores share one memory), node d + 1 is device d.
//!
//! A node that computes the C tiles of a set of tile rows R and tile columns C must receive the
//! row panels of op(A) in R and the column panels of op(B) in C, so what it receives is
//! proportional to |R| + |C|, the half-perimeter of its zone's bounding box when the zone is a
//! rectangle. The allocation gives each node an area (number of C tiles) proportional to its
//! speed and shapes the zones to make the sum of the half-perimeters small:
//!
//! * [`quotas`] (PRECISE rounding): each node's exact share T·s_k/S of the T tiles, rounded by
//!   largest remainder, so every quota is within one tile of the exact share and they sum to T.
//! * [`nrrp`]: a recursive partition of the tile grid after NRRP (Beaumont, Eyraud-Dubois and
//!   Lambert's non-rectangular recursive partitioning): the nodes, by decreasing quota, are split
//!   into two groups and the rectangle into two rectangles along one side (every split point and
//!   both directions tried), or, when one node dominates, the others get a near-square rectangle
//!   in a corner and the dominant node the rest (an L, whose cost is its bounding box: every row
//!   and column). The best choice is found by a memoised search over (width, height, group).
//!   Rectangles are cut at whole tiles, so areas come out near the quotas; a final pass moves
//!   single tiles across zone boundaries (along a shortest path of neighbouring zones, each move
//!   the one that grows the half-perimeters least) until every area equals its quota.
//! * [`columns`]: the fallback, nodes taking consecutive runs of tiles in column-major order
//!   (exact areas, nearly whole tile columns). [`nrrp`] returns it when it is not worse.
//! * [`cyclic`]: today's placement of the factorizations (the host's share of tile columns by
//!   cumulative rounding, the other columns 1-D cyclic over the devices, whatever their speeds).
//! * [`greedy`]: a dynamic earliest-finish policy like StarPU's DMDA, decided as tasks are
//!   submitted (a product's tasks are all ready at once): each C tile goes to the node that
//!   would finish it first, counting the panels it still has to receive.

use std::collections::{HashMap, VecDeque};

/// How a tiled product's C tiles are given to the nodes (`HETLA_GEMM_ALLOC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Policy {
    /// [`nrrp`] with PRECISE quotas, then EffectiveSteal at run time.
    #[default]
    Nrrp,
    /// [`cyclic`]: the factorizations' column placement (no stealing).
    Cyclic,
    /// [`greedy`]: earliest finish time, like DMDA (no stealing).
    Dynamic,
}

impl Policy {
    pub fn parse(s: &str) -> Option<Policy> {
        match s.trim().to_ascii_lowercase().as_str() {
            "nrrp" => Some(Policy::Nrrp),
            "cyclic" => Some(Policy::Cyclic),
            "dynamic" => Some(Policy::Dynamic),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Policy::Nrrp => "nrrp",
            Policy::Cyclic => "cyclic",
            Policy::Dynamic => "dynamic",
        }
    }
}

/// The owner of every C tile of an `mt`×`nt` grid: `owner[i + j·mt]`, 0 for the host, d + 1 for
/// device d; plus what the runtime needs to steal (`steal`, the nodes' speeds).
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    /// The dependency-key id of C ([`crate::tile::TiledMatrix::id`]): tasks writing its tiles
    /// are placed by this allocation.
    pub matrix: u32,
    pub mt: usize,
    pub nt: usize,
    pub owner: Vec<u8>,
    /// Whether idle workers take tasks of other nodes (EffectiveSteal).
    pub steal: bool,
    /// Relative speed of each node (host first), for the steal rule.
    pub speeds: Vec<f64>,
}

impl Allocation {
    /// Owner of C tile (i, j).
    pub fn owner(&self, i: usize, j: usize) -> usize {
        self.owner[i + j * self.mt] as usize
    }
    /// Tiles of each of `nodes` nodes.
    pub fn areas(&self, nodes: usize) -> Vec<usize> {
        areas(&self.owner, nodes)
    }
    /// Σ over nodes of (tile rows + tile columns their tiles touch).
    pub fn half_perimeters(&self, nodes: usize) -> usize {
        half_perimeters(&self.owner, self.mt, self.nt, nodes)
    }
    /// The same over the devices only: the panels of A and B they must receive.
    pub fn device_half_perimeters(&self, nodes: usize) -> usize {
        device_half_perimeters(&self.owner, self.mt, self.nt, nodes)
    }
    /// One line per tile row, a character per tile: `H` for the host, `0`-`9`, `a`-`z` for
    /// devices (the picture in docs/gpus.md).
    pub fn picture(&self) -> String {
        let mut s = String::new();
        for i in 0..self.mt {
            for j in 0..self.nt {
                s.push(match self.owner(i, j) {
                    0 => 'H',
                    d if d <= 10 => (b'0' + (d - 1) as u8) as char,
                    d => (b'a' + (d - 11) as u8) as char,
                });
            }
            s.push('\n');
        }
        s
    }
}

/// Tiles owned by each node.
pub fn areas(owner: &[u8], nodes: usize) -> Vec<usize> {
    let mut a = vec![0; nodes];
    for &o in owner {
        a[o as usize] += 1;
    }
    a
}

/// Σ over nodes of the number of tile rows plus tile columns holding at least one of its tiles.
pub fn half_perimeters(owner: &[u8], mt: usize, nt: usize, nodes: usize) -> usize {
    let mut rows = vec![vec![false; mt]; nodes];
    let mut cols = vec![vec![false; nt]; nodes];
    for j in 0..nt {
        for i in 0..mt {
            let o = owner[i + j * mt] as usize;
            rows[o][i] = true;
            cols[o][j] = true;
        }
    }
    let count = |v: &Vec<Vec<bool>>| v.iter().map(|x| x.iter().filter(|&&b| b).count()).sum::<usize>();
    count(&rows) + count(&cols)
}

/// [`half_perimeters`] of the devices only (nodes 1..): what they must receive, in panels.
pub fn device_half_perimeters(owner: &[u8], mt: usize, nt: usize, nodes: usize) -> usize {
    let all = half_perimeters(owner, mt, nt, nodes);
    let mut rows = vec![false; mt];
    let mut cols = vec![false; nt];
    for j in 0..nt {
        for i in 0..mt {
            if owner[i + j * mt] == 0 {
                rows[i] = true;
                cols[j] = true;
            }
        }
    }
    all - rows.iter().filter(|&&b| b).count() - cols.iter().filter(|&&b| b).count()
}

/// PRECISE rounding: `total` tiles shared in proportion to `speeds`, each share rounded down and
/// the remaining tiles given by largest remainder (ties to the faster, then the first), so each
/// quota is within one tile of its exact share and they sum to `total`.
pub fn quotas(total: usize, speeds: &[f64]) -> Vec<usize> {
    let s: f64 = speeds.iter().map(|x| x.max(0.0)).sum();
    if s <= 0.0 || speeds.is_empty() {
        let mut q = vec![0; speeds.len()];
        if let Some(f) = q.first_mut() {
            *f = total;
        }
        return q;
    }
    let exact: Vec<f64> = speeds.iter().map(|x| x.max(0.0) * total as f64 / s).collect();
    let mut q: Vec<usize> = exact.iter().map(|e| (e + 1e-9).floor() as usize).collect();
    let mut left = total - q.iter().sum::<usize>().min(total);
    let mut order: Vec<usize> = (0..speeds.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (exact[a] - q[a] as f64, exact[b] - q[b] as f64);
        rb.partial_cmp(&ra).unwrap().then(speeds[b].partial_cmp(&speeds[a]).unwrap()).then(a.cmp(&b))
    });
    for &k in order.iter().cycle() {
        if left == 0 {
            break;
        }
        q[k] += 1;
        left -= 1;
    }
    q
}

/// The column partition: node k takes the next `quotas[k]` tiles in column-major order (nodes
/// in the order given).
pub fn columns(mt: usize, nt: usize, quotas: &[usize]) -> Vec<u8> {
    let mut owner = Vec::with_capacity(mt * nt);
    for (k, &q) in quotas.iter().enumerate() {
        owner.extend(std::iter::repeat_n(k as u8, q));
    }
    owner.resize(mt * nt, quotas.len().saturating_sub(1) as u8);
    owner.truncate(mt * nt);
    owner
}

/// The factorizations' placement: tile column j belongs to the host or to one device by
/// [`super::placement::Placement`] with host share `host_share` over `devices` devices.
pub fn cyclic(mt: usize, nt: usize, host_share: f64, devices: usize) -> Vec<u8> {
    let p = super::placement::Placement::new(host_share, devices);
    (0..nt).flat_map(|j| std::iter::repeat_n(p.owner(j).map_or(0, |d| d as u8 + 1), mt)).collect()
}

/// Earliest finish time, task by task in column-major order of C tiles: node k's clock starts at
/// 0; a tile costs `flops / speeds[k]` plus, on a device (k > 0), `a_bytes` per row panel and
/// `b_bytes` per column panel it does not have yet over `bandwidth`.
pub fn greedy(
    mt: usize,
    nt: usize,
    speeds: &[f64],
    flops: f64,
    a_bytes: f64,
    b_bytes: f64,
    bandwidth: f64,
) -> Vec<u8> {
    let p = speeds.len();
    let mut clock = vec![0.0f64; p];
    let mut has_row = vec![vec![false; mt]; p];
    let mut has_col = vec![vec![false; nt]; p];
    let mut owner = vec![0u8; mt * nt];
    for j in 0..nt {
        for i in 0..mt {
            let finish = |k: usize| {
                let mut t = clock[k] + flops / speeds[k].max(1e-30);
                if k > 0 {
                    let missing =
                        (!has_row[k][i]) as u8 as f64 * a_bytes + (!has_col[k][j]) as u8 as f64 * b_bytes;
                    t += missing / bandwidth;
                }
                t
            };
            let best = (0..p).min_by(|&x, &y| finish(x).partial_cmp(&finish(y)).unwrap()).unwrap_or(0);
            clock[best] = finish(best);
            has_row[best][i] = true;
            has_col[best][j] = true;
            owner[i + j * mt] = best as u8;
        }
    }
    owner
}

/// How a factorization's trailing updates are placed on the host and the devices
/// (`HETLA_UPDATE_ALLOC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UpdatePolicy {
    /// The hybrid partition's columns: thin tile columns on the host, each wide one on the next
    /// device in turn ([`super::placement`]).
    #[default]
    Cyclic,
    /// Uniform device tiles owned by a [`Pattern`] of [`nrrp`] zones repeated over the matrix.
    Nrrp,
}

impl UpdatePolicy {
    pub fn parse(s: &str) -> Option<UpdatePolicy> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cyclic" => Some(UpdatePolicy::Cyclic),
            "nrrp" => Some(UpdatePolicy::Nrrp),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            UpdatePolicy::Cyclic => "cyclic",
            UpdatePolicy::Nrrp => "nrrp",
        }
    }
}

/// What a factorization's update task writes, which decides the shape of its [`Pattern`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateShape {
    /// One tile per task (the Cholesky): owners may differ along a tile column.
    Tiles,
    /// A stack of tile rows of one tile column per task (the LU's row interchanges and GEMM, the
    /// QR's block reflectors): a tile column has one owner, or its stack would move whole from
    /// node to node as the steps go down the column.
    Columns,
}

/// A small grid of owners (node 0 the host, d + 1 device d) repeated over a matrix's tiles:
/// tile (i, j) belongs to `owner(i mod rows, j mod cols)`, the heterogeneous counterpart of a
/// 2-D block-cyclic distribution. Inside one period the zones are [`nrrp`]'s, so each node's
/// share of every trailing matrix at least one period wide is its speed's (within one tile per
/// period), and what it receives each step (the panel's tiles in its zone's rows and columns)
/// is its zone's half-perimeter over the period instead of the whole panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    pub rows: usize,
    pub cols: usize,
    pub owner: Vec<u8>,
}

impl Pattern {
    /// The pattern for a matrix of `nt` tile columns and nodes of `speeds` (host first): one
    /// period holds at least S/s_min tiles (S the speeds' sum, s_min the slowest positive one),
    /// so PRECISE rounding can give the slowest node about one tile; square (P×P) for
    /// [`UpdateShape::Tiles`], one row for [`UpdateShape::Columns`]; never wider than half the
    /// matrix (rounded up), so every node's zone comes round at least twice.
    pub fn for_updates(speeds: &[f64], nt: usize, shape: UpdateShape) -> Pattern {
        let total: f64 = speeds.iter().map(|s| s.max(0.0)).sum();
        let slowest = speeds.iter().copied().filter(|&s| s > 0.0).fold(f64::INFINITY, f64::min);
        let need = if total > 0.0 && slowest.is_finite() {
            ((total / slowest - 1e-9).ceil().min(4096.0) as usize).max(1)
        } else {
            1
        };
        let cap = nt.div_ceil(2).max(1);
        let (rows, cols) = match shape {
            UpdateShape::Tiles => {
                let p = ((need as f64).sqrt().ceil() as usize).clamp(1, cap);
                (p, p)
            }
            UpdateShape::Columns => (1, need.clamp(1, cap)),
        };
        Pattern { rows, cols, owner: nrrp(rows, cols, speeds) }
    }

    /// Owner of tile (i, j) of the matrix the pattern is repeated over.
    pub fn owner(&self, i: usize, j: usize) -> usize {
        self.owner[i % self.rows + (j % self.cols) * self.rows] as usize
    }

    /// Whether any tile belongs to a device.
    pub fn uses_devices(&self) -> bool {
        self.owner.iter().any(|&o| o > 0)
    }

    /// One period's owners row by row, rows separated by `/` (`H` the host, digits the devices),
    /// as the verbose line shows it.
    pub fn picture(&self) -> String {
        let a = Allocation {
            matrix: 0,
            mt: self.rows,
            nt: self.cols,
            owner: self.owner.clone(),
            steal: false,
            speeds: Vec::new(),
        };
        a.picture().trim_end().replace('\n', "/")
    }
}

/// How a rectangle of the search is shared by a group of nodes.
#[derive(Clone, Copy, Debug)]
enum Choice {
    /// One node takes it all.
    Single,
    /// Cut after `at` columns (`vertical`) or rows; nodes lo..k left/top, k..hi the rest.
    Cut { vertical: bool, k: usize, at: usize },
    /// Nodes lo+1..hi in an `a`-column × `b`-row rectangle in the bottom-right corner; node lo
    /// the rest.
    Corner { a: usize, b: usize },
}

/// The memoised search of [`nrrp`] over rectangles of w columns × h rows shared by the nodes
/// lo..hi (by decreasing quota).
struct Search<'q> {
    q: &'q [usize],
    /// Whether the node at each group position pays for its zone (the host does not: the data
    /// is in its memory).
    pays: &'q [bool],
    /// What one tile of a cut's rounding error is assumed to cost (the fix-up moves it).
    err_weight: f64,
    memo: HashMap<(usize, usize, usize, usize), (f64, Choice)>,
}

impl Search<'_> {
    /// The half-perimeter node `pos` pays for a zone whose bounding box is w×h.
    fn zone(&self, pos: usize, w: usize, h: usize) -> f64 {
        if self.pays[pos] {
            (w + h) as f64
        } else {
            0.0
        }
    }

    fn best(&mut self, w: usize, h: usize, lo: usize, hi: usize) -> (f64, Choice) {
        if hi - lo == 1 {
            return (self.zone(lo, w, h), Choice::Single);
        }
        if let Some(&r) = self.memo.get(&(w, h, lo, hi)) {
            return r;
        }
        let total: usize = self.q[lo..hi].iter().sum();
        let area = (w * h) as f64;
        // Area of the group lo..k in this rectangle, in proportion to its quotas.
        let share = |k: usize| area * self.q[lo..k].iter().sum::<usize>() as f64 / total.max(1) as f64;
        let mut best = (f64::INFINITY, Choice::Single);
        for k in lo + 1..hi {
            let a1 = share(k);
            for vertical in [true, false] {
                let (len, side) = if vertical { (w, h) } else { (h, w) };
                // Each part must have room for one tile per node.
                let (min1, min2) = ((k - lo).div_ceil(side), (hi - k).div_ceil(side));
                if len < min1 + min2 {
                    continue;
                }
                let at = ((a1 / side as f64).round() as usize).clamp(min1, len - min2);
                let (r1, r2) = if vertical {
                    (self.best(at, h, lo, k), self.best(w - at, h, k, hi))
                } else {
                    (self.best(w, at, lo, k), self.best(w, h - at, k, hi))
                };
                // Each tile the cut's rounding puts on the wrong side will be moved by the
                // fix-up, which usually costs a row or column somewhere: one unit per tile.
                let err = ((at * side) as f64 - a1).abs();
                let c = r1.0 + r2.0 + self.err_weight * err;
                if c < best.0 {
                    best = (c, Choice::Cut { vertical, k, at });
                }
            }
        }
        // Corner: the others in a near-square in a corner, node lo keeps an L.
        if w >= 2 && h >= 2 {
            let a2 = area - share(lo + 1);
            let mut corner = None;
            for a in 1..w {
                let b = ((a2 / a as f64).round() as usize).clamp(1, h - 1);
                if a * b < hi - lo - 1 {
                    continue;
                }
                let err = ((a * b) as f64 - a2).abs();
                let score = a as f64 + b as f64 + err;
                if corner.is_none_or(|(s, _, _)| score < s) {
                    corner = Some((score, a, b));
                }
            }
            if let Some((_, a, b)) = corner {
                let inner = self.best(a, b, lo + 1, hi);
                let err = ((a * b) as f64 - a2).abs();
                let c = self.zone(lo, w, h) + inner.0 + self.err_weight * err;
                if c < best.0 {
                    best = (c, Choice::Corner { a, b });
                }
            }
        }
        self.memo.insert((w, h, lo, hi), best);
        best
    }

    /// Writes the best partition of the rectangle at (r0, c0) into `owner`; `ids` maps group
    /// positions to node numbers.
    #[allow(clippy::too_many_arguments)]
    fn paint(
        &mut self,
        owner: &mut [u8],
        mt: usize,
        r0: usize,
        c0: usize,
        w: usize,
        h: usize,
        lo: usize,
        hi: usize,
        ids: &[u8],
    ) {
        match self.best(w, h, lo, hi).1 {
            Choice::Single => {
                for j in c0..c0 + w {
                    for i in r0..r0 + h {
                        owner[i + j * mt] = ids[lo];
                    }
                }
            }
            Choice::Cut { vertical: true, k, at } => {
                self.paint(owner, mt, r0, c0, at, h, lo, k, ids);
                self.paint(owner, mt, r0, c0 + at, w - at, h, k, hi, ids);
            }
            Choice::Cut { vertical: false, k, at } => {
                self.paint(owner, mt, r0, c0, w, at, lo, k, ids);
                self.paint(owner, mt, r0 + at, c0, w, h - at, k, hi, ids);
            }
            Choice::Corner { a, b } => {
                for j in c0..c0 + w {
                    for i in r0..r0 + h {
                        owner[i + j * mt] = ids[lo];
                    }
                }
                self.paint(owner, mt, r0 + h - b, c0 + w - a, a, b, lo + 1, hi, ids);
            }
        }
    }
}

/// The NRRP allocation of an `mt`×`nt` grid of C tiles to nodes of the given speeds, node 0
/// being the host (see the module doc): areas exactly [`quotas`]; what is minimised is the sum
/// of the *devices'* half-perimeters (the host's zone costs nothing: A and B are in its memory,
/// so it may take the shape that is left); the column partition instead when it is not worse.
pub fn nrrp(mt: usize, nt: usize, speeds: &[f64]) -> Vec<u8> {
    nrrp_with(mt, nt, speeds, true)
}

/// [`nrrp`], with the host's zone counted like the others' unless `host_free` (the geometric
/// problem: every node pays for its zone).
pub fn nrrp_with(mt: usize, nt: usize, speeds: &[f64], host_free: bool) -> Vec<u8> {
    let q = quotas(mt * nt, speeds);
    let fallback = columns(mt, nt, &q);
    let mut order: Vec<usize> = (0..q.len()).filter(|&k| q[k] > 0).collect();
    order.sort_by(|&a, &b| q[b].cmp(&q[a]).then(a.cmp(&b)));
    if order.len() <= 1 || mt * nt == 0 {
        return fallback;
    }
    let qs: Vec<usize> = order.iter().map(|&k| q[k]).collect();
    let ids: Vec<u8> = order.iter().map(|&k| k as u8).collect();
    let pays: Vec<bool> = order.iter().map(|&k| k != 0 || !host_free).collect();
    let nodes = q.len();
    let cost = |o: &[u8]| {
        if host_free {
            device_half_perimeters(o, mt, nt, nodes)
        } else {
            half_perimeters(o, mt, nt, nodes)
        }
    };
    // The search's estimate of the fix-up's cost is rough: a few weights are tried and the
    // partition that is best after the fix-up is kept.
    let mut best = fallback;
    for err_weight in [1.0, 0.5, 2.0, 0.25] {
        let mut s = Search { q: &qs, pays: &pays, err_weight, memo: HashMap::new() };
        let mut owner = vec![0u8; mt * nt];
        s.paint(&mut owner, mt, 0, 0, nt, mt, 0, qs.len(), &ids);
        fix_areas(&mut owner, mt, nt, &q, host_free);
        if cost(&owner) < cost(&best) {
            best = owner;
        }
    }
    best
}

/// Moves single tiles across zone boundaries until node k owns exactly `quota[k]` tiles: from a
/// node with too many, along a shortest chain of neighbouring zones to one with too few; each
/// move takes the boundary tile whose move grows the two zones' half-perimeters least.
fn fix_areas(owner: &mut [u8], mt: usize, nt: usize, quota: &[usize], host_free: bool) {
    let pays = |k: usize| isize::from(k != 0 || !host_free);
    let p = quota.len();
    let mut rows = vec![vec![0usize; mt]; p];
    let mut cols = vec![vec![0usize; nt]; p];
    let mut area = vec![0usize; p];
    for j in 0..nt {
        for i in 0..mt {
            let o = owner[i + j * mt] as usize;
            rows[o][i] += 1;
            cols[o][j] += 1;
            area[o] += 1;
        }
    }
    let neighbours = |i: usize, j: usize| {
        let mut v = Vec::with_capacity(4);
        if i > 0 {
            v.push((i - 1, j));
        }
        if i + 1 < mt {
            v.push((i + 1, j));
        }
        if j > 0 {
            v.push((i, j - 1));
        }
        if j + 1 < nt {
            v.push((i, j + 1));
        }
        v
    };
    // Bounded: every round moves one surplus tile to a node short of tiles.
    for _ in 0..mt * nt * p + 1 {
        let Some(u) = (0..p).find(|&k| area[k] > quota[k]) else { return };
        // Zone adjacency, then a shortest chain from u to a node short of tiles.
        let mut adj = vec![vec![false; p]; p];
        for j in 0..nt {
            for i in 0..mt {
                let a = owner[i + j * mt] as usize;
                for (x, y) in neighbours(i, j) {
                    let b = owner[x + y * mt] as usize;
                    adj[a][b] = true;
                }
            }
        }
        let mut prev = vec![usize::MAX; p];
        prev[u] = u;
        let mut queue = VecDeque::from([u]);
        let mut target = None;
        while let Some(x) = queue.pop_front() {
            if area[x] < quota[x] {
                target = Some(x);
                break;
            }
            for y in 0..p {
                if adj[x][y] && prev[y] == usize::MAX {
                    prev[y] = x;
                    queue.push_back(y);
                }
            }
        }
        let mut chain = Vec::new();
        match target {
            Some(mut v) => {
                while v != u {
                    chain.push((prev[v], v));
                    v = prev[v];
                }
            }
            // A node short of tiles that owns none has no neighbours: it gets a tile of u.
            None => match (0..p).find(|&k| area[k] < quota[k]) {
                Some(v) => chain.push((u, v)),
                None => return,
            },
        }
        // Moves from the end of the chain first, so each intermediate zone gives a tile after it
        // has received one (its area is unchanged in the end).
        for &(from, to) in &chain {
            let mut best: Option<(isize, usize, usize)> = None;
            for j in 0..nt {
                for i in 0..mt {
                    if owner[i + j * mt] as usize != from {
                        continue;
                    }
                    let touches = area[to] == 0
                        || neighbours(i, j).iter().any(|&(x, y)| owner[x + y * mt] as usize == to);
                    if !touches {
                        continue;
                    }
                    let d = pays(to) * ((rows[to][i] == 0) as isize + (cols[to][j] == 0) as isize)
                        - pays(from) * ((rows[from][i] == 1) as isize + (cols[from][j] == 1) as isize);
                    if best.is_none_or(|(b, _, _)| d < b) {
                        best = Some((d, i, j));
                    }
                }
            }
            let Some((_, i, j)) = best else { return };
            owner[i + j * mt] = to as u8;
            rows[from][i] -= 1;
            cols[from][j] -= 1;
            area[from] -= 1;
            rows[to][i] += 1;
            cols[to][j] += 1;
            area[to] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precise_quotas_are_within_one_tile_and_sum_to_the_total() {
        // 64 tiles, speeds 2 (host), 1, 1, 2, 2, 4, 4: exact shares 8, 4, 4, 8, 8, 16, 16.
        assert_eq!(quotas(64, &[2.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0]), vec![8, 4, 4, 8, 8, 16, 16]);
        // 64 tiles, speeds 2, 1, 2, 4 (sum 9): 14.22, 7.11, 14.22, 28.44 → floors 14, 7, 14, 28
        // (63), the last tile to the largest remainder (28.44).
        assert_eq!(quotas(64, &[2.0, 1.0, 2.0, 4.0]), vec![14, 7, 14, 29]);
        // 10 tiles over 3 equal nodes: 3.33 each, the extra tile to the first.
        assert_eq!(quotas(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
        for (t, s) in [(37usize, vec![0.3, 5.0, 1.7]), (1, vec![1.0, 1.0]), (1000, vec![1.0, 2.0, 3.0, 7.5])]
        {
            let q = quotas(t, &s);
            let sum: f64 = s.iter().sum();
            assert_eq!(q.iter().sum::<usize>(), t);
            for (k, &x) in q.iter().enumerate() {
                assert!((x as f64 - t as f64 * s[k] / sum).abs() < 1.0, "{t} {s:?}: {q:?}");
            }
        }
    }

    #[test]
    fn column_partition_and_cyclic_by_hand() {
        assert_eq!(columns(2, 3, &[3, 1, 2]), vec![0, 0, 0, 1, 2, 2]);
        // Host share 0.5 over 2 devices: host, d0, host, d1 columns.
        assert_eq!(cyclic(2, 4, 0.5, 2), vec![0, 0, 1, 1, 0, 0, 2, 2]);
        // Two nodes of equal speed on a 4×4 grid: columns 0-1 and 2-3, half-perimeter 6 each.
        let own = columns(4, 4, &[8, 8]);
        assert_eq!(half_perimeters(&own, 4, 4, 2), 12);
    }

    /// NRRP on the hand-checked cases: areas exactly the quotas, and a half-perimeter sum below
    /// the column partition's.
    #[test]
    fn nrrp_areas_equal_the_quotas_and_beat_the_column_partition() {
        // Two equal nodes on 4×4: two 4×2 halves, 6 + 6 (what the column partition also gives):
        // not worse.
        let own = nrrp_with(4, 4, &[1.0, 1.0], false);
        assert_eq!(areas(&own, 2), vec![8, 8]);
        assert_eq!(half_perimeters(&own, 4, 4, 2), 12);
        // Four equal nodes on 8×8: four 4×4 squares, 8 each = 32; columns: 8 + 2 each = 40.
        let own = nrrp_with(8, 8, &[1.0; 4], false);
        assert_eq!(areas(&own, 4), vec![16; 4]);
        assert_eq!(half_perimeters(&own, 8, 8, 4), 32);
        assert_eq!(half_perimeters(&columns(8, 8, &[16; 4]), 8, 8, 4), 40);
        // Speeds 3 and 1 on 8×8 (48 and 16 tiles): the small node in a 4×4 corner, the large
        // one an L touching every row and column: 8 + 16 = 24 (columns: 6 + 8 + 2 + 8 = 24).
        // Not worse than columns, and the corner shape is found.
        let own = nrrp_with(8, 8, &[3.0, 1.0], false);
        assert_eq!(areas(&own, 2), vec![48, 16]);
        assert!(half_perimeters(&own, 8, 8, 2) <= 24);
        // The machine: host 2, devices 1, 1, 2, 2, 4, 4 on 8×8 tiles (m = n = 4096,
        // tiles of 512).
        for speeds in [vec![2.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0], vec![2.0, 1.0, 2.0, 4.0], vec![1.0, 5.0, 0.5]]
        {
            for (mt, nt) in [(8, 8), (13, 7), (20, 20), (5, 31)] {
                let q = quotas(mt * nt, &speeds);
                let own = nrrp_with(mt, nt, &speeds, false);
                assert_eq!(areas(&own, speeds.len()), q, "{mt}x{nt} {speeds:?}");
                let hp = half_perimeters(&own, mt, nt, speeds.len());
                let col = half_perimeters(&columns(mt, nt, &q), mt, nt, speeds.len());
                assert!(hp <= col, "{mt}x{nt} {speeds:?}: nrrp {hp} columns {col}");
                if (mt, nt) == (8, 8) || (mt, nt) == (20, 20) {
                    assert!(hp < col, "{mt}x{nt} {speeds:?}: nrrp {hp} not below columns {col}");
                }
            }
        }
        // Hand-checked: 8×8 with speeds 2, 1, 1, 2, 2, 4, 4 (quotas 8, 4, 4, 8, 8, 16, 16). A zone
        // of a tiles spans at least ⌈2√a⌉ rows plus columns, so 6+4+4+6+6+8+8 = 42 is the
        // minimum, which the search reaches (4×4 squares, 2×4 and 2×2 blocks); the column
        // partition gives 57.
        let s = [2.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0];
        let hp = half_perimeters(&nrrp_with(8, 8, &s, false), 8, 8, 7);
        assert_eq!(hp, 42);
        assert_eq!(half_perimeters(&columns(8, 8, &quotas(64, &s)), 8, 8, 7), 57);
        // Three devices of speeds 1, 2, 4 and the host (2): quotas 14, 7, 14, 29; minimum
        // ⌈2√q⌉ summed: 8+6+8+11 = 33; the column partition 10+9+11+12 = 42.
        let s3 = [2.0, 1.0, 2.0, 4.0];
        let hp = half_perimeters(&nrrp_with(8, 8, &s3, false), 8, 8, 4);
        assert!(hp <= 35, "{hp}");
        assert_eq!(half_perimeters(&columns(8, 8, &quotas(64, &s3)), 8, 8, 4), 42);
    }

    /// What the devices receive (the host holds A and B): the two machines on 8×8 tiles
    /// (m = n = 4096 in tiles of 512), against today's cyclic columns.
    #[test]
    fn nrrp_minimises_what_the_devices_receive() {
        // Host 2, devices 1, 1, 2, 2, 4, 4: device quotas 4, 4, 8, 8, 16, 16; a zone of a tiles
        // spans at least ⌈2√a⌉ rows plus columns: 4+4+6+6+8+8 = 36 panels, which the search
        // reaches. Cyclic: the host keeps 1 of 8 columns, the other 7 go round the 6 devices:
        // 5 devices of one column (8 + 1) and one of two (8 + 2) = 55; 36/55 = 0.65.
        let s = [2.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0];
        let own = nrrp(8, 8, &s);
        assert_eq!(areas(&own, 7), quotas(64, &s));
        assert_eq!(device_half_perimeters(&own, 8, 8, 7), 36);
        let cyc = cyclic(8, 8, 2.0 / 16.0, 6);
        assert_eq!(device_half_perimeters(&cyc, 8, 8, 7), 55);
        // Host 2, devices 1, 2, 4: quotas 14, 7, 14, 29; bound ⌈2√7⌉+⌈2√14⌉+⌈2√29⌉ = 6+8+11 = 25,
        // reachable only with zones one or two tiles short of rectangles (5×6 − 1, 3×5 − 1,
        // 3×3 − 2); the rectangle search with its fix-up finds 27 (8×4 − 3, 4×4, 2×4 − 1).
        // Cyclic: the host keeps 2 of 8 columns (2/9 of 8 rounded by the cumulative rule), 6
        // columns go round the 3 devices, 2 each: 3·(8 + 2) = 30.
        let s3 = [2.0, 1.0, 2.0, 4.0];
        let own = nrrp(8, 8, &s3);
        assert_eq!(areas(&own, 4), quotas(64, &s3));
        let hp = device_half_perimeters(&own, 8, 8, 4);
        assert_eq!(hp, 27);
        assert_eq!(device_half_perimeters(&cyclic(8, 8, 2.0 / 9.0, 3), 8, 8, 4), 30);
        // Many shapes: never worse than the column partition for the devices.
        for speeds in [s.to_vec(), s3.to_vec(), vec![1.0, 5.0, 0.5], vec![0.5, 1.0, 1.0]] {
            for (mt, nt) in [(8, 8), (13, 7), (20, 20), (5, 31), (1, 9)] {
                let q = quotas(mt * nt, &speeds);
                let own = nrrp(mt, nt, &speeds);
                assert_eq!(areas(&own, speeds.len()), q, "{mt}x{nt} {speeds:?}");
                let hp = device_half_perimeters(&own, mt, nt, speeds.len());
                let col = device_half_perimeters(&columns(mt, nt, &q), mt, nt, speeds.len());
                assert!(hp <= col, "{mt}x{nt} {speeds:?}: nrrp {hp} columns {col}");
            }
        }
    }

    /// The factorizations' update patterns: periods of at least S/s_min tiles (capped at half
    /// the matrix), areas the PRECISE quotas of one period, repeated over the matrix.
    #[test]
    fn update_patterns_follow_the_speeds_and_repeat() {
        // Host 2, devices 1, 2, 4 (S/s_min = 9): a 3×3 period with areas 2, 1, 2, 4 for the
        // Cholesky; one row of 4 (half of 8 columns) for the LU and QR, quotas of 4 tiles.
        let s3 = [2.0, 1.0, 2.0, 4.0];
        let p = Pattern::for_updates(&s3, 8, UpdateShape::Tiles);
        assert_eq!((p.rows, p.cols), (3, 3));
        assert_eq!(areas(&p.owner, 4), vec![2, 1, 2, 4]);
        let p = Pattern::for_updates(&s3, 8, UpdateShape::Columns);
        assert_eq!((p.rows, p.cols), (1, 4));
        assert_eq!(areas(&p.owner, 4), quotas(4, &s3));
        // Wide enough, the row holds all 9.
        let p = Pattern::for_updates(&s3, 40, UpdateShape::Columns);
        assert_eq!((p.rows, p.cols), (1, 9));
        assert_eq!(areas(&p.owner, 4), vec![2, 1, 2, 4]);
        // Host 2, devices 1, 1, 2, 2, 4, 4 (16): 4×4, the machine, each node exactly its
        // speed in tiles, and the devices' half-perimeters below the column partition's.
        let s6 = [2.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0];
        let p = Pattern::for_updates(&s6, 8, UpdateShape::Tiles);
        assert_eq!((p.rows, p.cols), (4, 4));
        assert_eq!(areas(&p.owner, 7), vec![2, 1, 1, 2, 2, 4, 4]);
        let col = columns(4, 4, &quotas(16, &s6));
        assert!(device_half_perimeters(&p.owner, 4, 4, 7) < device_half_perimeters(&col, 4, 4, 7));
        // Repeated: tile (i, j) belongs to the owner of (i mod 4, j mod 4).
        for i in 0..12 {
            for j in 0..12 {
                assert_eq!(p.owner(i, j), p.owner[i % 4 + (j % 4) * 4] as usize);
                assert_eq!(p.owner(i + 4, j + 8), p.owner(i, j));
            }
        }
        assert_eq!(p.picture().split('/').count(), 4);
        // A host of speed 0 (HETLA_HOST_SHARE=0) owns nothing; a one-column matrix gets a 1×1
        // period (the fastest node); a host taking everything leaves the devices nothing.
        let p = Pattern::for_updates(&[0.0, 1.0, 1.0], 9, UpdateShape::Tiles);
        assert_eq!(areas(&p.owner, 3)[0], 0);
        assert!(p.uses_devices());
        let p = Pattern::for_updates(&[1.0, 3.0], 1, UpdateShape::Tiles);
        assert_eq!((p.rows, p.cols, p.owner.clone()), (1, 1, vec![1]));
        assert!(!Pattern::for_updates(&[1.0, 0.0], 9, UpdateShape::Tiles).uses_devices());
        assert_eq!(UpdatePolicy::parse(" NRRP "), Some(UpdatePolicy::Nrrp));
        assert_eq!(UpdatePolicy::parse("cyclic"), Some(UpdatePolicy::Cyclic));
        assert_eq!(UpdatePolicy::parse("dynamic"), None);
    }

    #[test]
    fn greedy_prefers_nodes_holding_the_panels_and_faster_nodes() {
        // Transfers free: tiles go by speed; node 1 is three times node 0.
        let own = greedy(4, 4, &[1.0, 3.0], 1.0, 0.0, 0.0, 1.0);
        let a = areas(&own, 2);
        assert_eq!(a, vec![4, 12]);
        // Transfers very expensive: the host (needs none) takes everything.
        let own = greedy(4, 4, &[1.0, 3.0], 1.0, 1e9, 1e9, 1.0);
        assert_eq!(areas(&own, 2), vec![16, 0]);
    }
}
