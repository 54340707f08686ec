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

/// Tile column of a dependency key (see `TiledMatrix::key`).
pub fn key_column(key: u64) -> usize {
    ((key >> 20) & 0xF_FFFF) as usize
}

/// The ownership map of one sequence.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    host_share: f64,
    devices: usize,
}

impl Placement {
    pub fn new(host_share: f64, devices: usize) -> Self {
        Placement { host_share: host_share.clamp(0.0, 1.0), devices }
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
}
