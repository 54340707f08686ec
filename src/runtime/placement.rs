//! Owner-compute placement (seeds 001 §3.1, 000 §5): a task with a device kernel runs on the
//! owner of its output tile; tile columns are owned by the host or by one device.
//!
//! The host keeps a share `h` of the tile columns (from the measured kernel rates, 001 appendix
//! A.1: B_h = B·R_cpu/(R_cpu + R_gpu·G); see [`crate::device::host_share`]); the other columns go
//! 1-D cyclically over the G devices. With uniform tiles the share is realised by cumulative
//! rounding: column j belongs to a device iff ⌊(j+1)·(1−h)⌋ > ⌊j·(1−h)⌋, so every prefix of
//! columns is split as closely to the ratio as whole columns allow and device columns are spread
//! evenly (with h = (s−1)/s this is the papers' pattern: s−1 host columns, then one device
//! column). The q-th device column (q = ⌊(j+1)·(1−h)⌋ − 1) goes to device q mod G.
//!
//! There is no stealing between the host and the devices, as in the papers: a ready task waits
//! for its owner.
//!
//! # Hybrid tiles (seeds 001 §3.1, 000)
//!
//! When a call uses devices, `api::run_tiles_on_devices` cuts the matrix by [`hybrid_part`]: big
//! tiles of B (the device tile size), each split into s thin tile columns of width b, which the
//! host's cores share, and one wide tile column of width B − s·b for a device, so that the host's
//! width s·b ≈ B_h. We follow 000's convention, s thin tiles *plus* one wide tile per big tile
//! (001 §3.1 counts s columns of which s−1 are thin): s = 0 then means "every column on the
//! devices" and the wide width is B − s·b as written (see `tile::Part`). The ownership map is
//! this module's with the column share h = s/(s+1) ([`column_share`]): cumulative rounding then
//! gives exactly s host columns followed by one device column per period, and the q-th wide
//! column (q = J div (s+1), J counting tile columns) goes to device q mod G, the papers' 1-D
//! cyclic distribution with one node (P_c = 1).

use crate::tile::Part;

/// The hybrid partition for a host taking the fraction `host_share` of the columns (B_h = B·h),
/// big tiles of `big` and host tiles of about `nb_host`: s = round(B_h / nb_host) thin tiles
/// (at least one once B_h reaches a quarter of `nb_host`; none below, all on the devices) of
/// width b = round(B_h / s). `None` when the host would keep the whole big tile: devices get
/// nothing, and the call should not use them.
pub fn hybrid_part(big: usize, nb_host: usize, host_share: f64) -> Option<Part> {
    let big = big.max(1);
    let bh = host_share.clamp(0.0, 1.0) * big as f64;
    if bh < (nb_host as f64 / 4.0).max(1.0) {
        return Some(Part::hybrid(big, 0, 1));
    }
    let s = ((bh / nb_host.max(1) as f64).round() as usize).max(1);
    let b = ((bh / s as f64).round() as usize).max(1);
    (s * b < big).then(|| Part::hybrid(big, s, b))
}

/// The fraction of tile columns the host owns under `part` (s of every s+1), for [`Placement`].
pub fn column_share(part: &Part) -> f64 {
    let s = part.thin_count() as f64;
    s / (s + 1.0)
}

/// Tile column of a dependency key (see `TiledMatrix::key`).
pub fn key_column(key: u64) -> usize {
    ((key >> 20) & 0xF_FFFF) as usize
}

/// The ownership map of one sequence.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    host_share: f64,
    devices: usize,
    window: Option<usize>,
}

impl Placement {
    pub fn new(host_share: f64, devices: usize) -> Self {
        Placement { host_share: host_share.clamp(0.0, 1.0), devices, window: None }
    }

    /// CALU's split (seed 004, Donfack, Tomov and Dongarra): at step k the host owns tile
    /// columns k..k+d (the panel and the next d − 1 columns) and the devices the columns from
    /// k + d on, 1-D cyclically; columns left of the panel stay the host's. So each step one
    /// updated column (k + d) comes back from a device, and the host always works on d columns.
    pub fn sliding(devices: usize, d: usize) -> Self {
        Placement { host_share: 1.0, devices, window: Some(d.max(1)) }
    }

    /// The columns the host keeps in [`Placement::sliding`] for a matrix of `cols` tile columns
    /// and a host share `h` of the combined rate: d/N = h (the seed's d/N = P·g₁/(P·g₁ + g₂)),
    /// at least one column (the panel's).
    pub fn sliding_width(cols: usize, h: f64) -> usize {
        ((h.clamp(0.0, 1.0) * cols as f64).round() as usize).max(1)
    }

    /// Owner of tile column `j` for a task of algorithm step `step` (tasks without a step count
    /// as step 0): [`Placement::owner`], or the sliding split.
    pub fn owner_at(&self, j: usize, step: Option<usize>) -> Option<usize> {
        match self.window {
            Some(d) if self.devices > 0 => (j >= step.unwrap_or(0) + d).then(|| j % self.devices),
            _ => self.owner(j),
        }
    }

    /// Owner of tile column `j`: `None` for the host, `Some(d)` for device d.
    pub fn owner(&self, j: usize) -> Option<usize> {
        if self.devices == 0 {
            return None;
        }
        let g = 1.0 - self.host_share;
        // A tiny epsilon keeps exact ratios (h = 0.75 → every 4th column) from being lost to
        // rounding in the products.
        let before = (j as f64 * g + 1e-9).floor();
        let upto = ((j + 1) as f64 * g + 1e-9).floor();
        (upto > before).then(|| (upto as usize - 1) % self.devices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_and_cycles() {
        let p = Placement::new(0.75, 1);
        let own: Vec<_> = (0..8).map(|j| p.owner(j)).collect();
        assert_eq!(own, vec![None, None, None, Some(0), None, None, None, Some(0)]);
        let p = Placement::new(0.0, 3);
        let own: Vec<_> = (0..6).map(|j| p.owner(j)).collect();
        assert_eq!(own, vec![Some(0), Some(1), Some(2), Some(0), Some(1), Some(2)]);
        let p = Placement::new(1.0, 2);
        assert!((0..50).all(|j| p.owner(j).is_none()));
        let p = Placement::new(0.5, 2);
        let own: Vec<_> = (0..8).map(|j| p.owner(j)).collect();
        assert_eq!(own, vec![None, Some(0), None, Some(1), None, Some(0), None, Some(1)]);
        // Any prefix is split within one column of the ratio.
        let p = Placement::new(0.37, 2);
        for n in 1..200 {
            let dev = (0..n).filter(|&j| p.owner(j).is_some()).count() as f64;
            assert!((dev - n as f64 * 0.63).abs() <= 1.0, "n {n}: {dev} device columns");
        }
        assert_eq!(key_column((5u64 << 40) | (77 << 20) | 3), 77);
    }

    #[test]
    fn the_sliding_split_keeps_d_columns_from_the_panel_on_the_host() {
        let p = Placement::sliding(2, 3);
        // Step 0: columns 0..3 host, then devices cyclically.
        let own: Vec<_> = (0..7).map(|j| p.owner_at(j, Some(0))).collect();
        assert_eq!(own, vec![None, None, None, Some(1), Some(0), Some(1), Some(0)]);
        // Step 2: columns 0..5 host (left of the panel and the window), 5.. devices.
        let own: Vec<_> = (0..7).map(|j| p.owner_at(j, Some(2))).collect();
        assert_eq!(own, vec![None, None, None, None, None, Some(1), Some(0)]);
        // From step k to k + 1 exactly one column (k + d) changes owner, to the host.
        for k in 0..20 {
            let moved: Vec<usize> =
                (0..40).filter(|&j| p.owner_at(j, Some(k)) != p.owner_at(j, Some(k + 1))).collect();
            assert_eq!(moved, vec![k + 3]);
            assert_eq!(p.owner_at(k + 3, Some(k + 1)), None);
        }
        assert_eq!(Placement::sliding_width(20, 0.24), 5);
        assert_eq!(Placement::sliding_width(20, 0.0), 1);
    }

    #[test]
    fn hybrid_partitions_put_wide_columns_on_devices_cyclically_and_thin_ones_on_the_host() {
        for (big, s, b) in [(16, 0, 1), (16, 1, 6), (20, 3, 5), (12, 2, 5), (96, 7, 13), (9, 4, 2)] {
            let part = Part::hybrid(big, s, b);
            for devs in 1..=3 {
                let p = Placement::new(column_share(&part), devs);
                for j in 0..5000 {
                    let want = part.is_wide(j).then_some((j / (s + 1)) % devs);
                    assert_eq!(p.owner(j), want, "B {big} s {s} b {b}, {devs} devices, column {j}");
                }
            }
        }
        // The 1-D cycle on a concrete case: B = 20, 3 thin tiles of 5 (host), wide 5.
        let part = Part::hybrid(20, 3, 5);
        let p = Placement::new(column_share(&part), 2);
        let own: Vec<_> = (0..12).map(|j| p.owner(j)).collect();
        let (h, d0, d1) = (None, Some(0), Some(1));
        assert_eq!(own, vec![h, h, h, d0, h, h, h, d1, h, h, h, d0]);
    }

    #[test]
    fn hybrid_part_follows_the_host_share() {
        // Thin width s·b close to B_h = B·h; wide part whatever is left.
        for (big, nb, h) in [(512, 128, 0.3), (768, 256, 0.1), (768, 192, 0.55), (64, 16, 0.5), (16, 8, 0.7)]
        {
            let p = hybrid_part(big, nb, h).expect("devices get a share");
            let host = (p.thin_count() * p.thin()) as f64;
            assert!(
                (host - h * big as f64).abs() <= p.thin_count() as f64 / 2.0 + 0.5,
                "{big} {nb} {h}: {p:?}"
            );
            assert!(p.wide() >= 1 && p.big() == big);
        }
        // A host share too small for a thin tile: everything on the devices.
        assert_eq!(hybrid_part(512, 256, 0.05), Some(Part::uniform(512)));
        assert_eq!(hybrid_part(512, 256, 0.0), Some(Part::uniform(512)));
        // The host takes it all: no devices.
        assert_eq!(hybrid_part(512, 128, 1.0), None);
        assert_eq!(hybrid_part(16, 8, 0.99), None);
    }
}
