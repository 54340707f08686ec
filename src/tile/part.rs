//! Partition patterns: how one dimension of a matrix is cut into tiles.
//!
//! A [`Part`] repeats one *period* of `big` elements (the big tile B of seeds 001 §3.1 / 000)
//! cut into `s` thin parts of `thin` elements (b, the CPU cores' tiles) followed by one wide part
//! of `big − s·thin` elements (the device's tile). The uniform partition into `nb` is the period
//! `nb` with `s = 0`. Everything is O(1) arithmetic on three numbers, so a `Part` is `Copy` and a
//! [`super::TiledMatrix`] stays a plain description.
//!
//! Of the papers' two conventions (001 §3.1 counts s tile columns per big tile, s−1 of them thin;
//! 000 cuts each big tile into s thin tiles plus one wide one) this follows the second: s thin
//! tiles and one wide tile per big tile, period s+1. With it `s = 0` is simply "all on the
//! device" (the uniform B partition), the wide width is B − s·b as written, and the host's share
//! is s·b/B without an off-by-one.

/// A repeating partition pattern of one dimension (see the module doc).
#[derive(Clone, Copy, Debug)]
pub struct Part {
    big: usize,
    thin: usize,
    s: usize,
}

impl Part {
    /// Tiles of `nb` (the last one possibly short).
    pub fn uniform(nb: usize) -> Self {
        assert!(nb > 0, "tile sizes must be positive");
        Part { big: nb, thin: nb, s: 0 }
    }

    /// Periods of `big`, each cut into `s` thin tiles of `thin` and one wide tile of
    /// `big − s·thin` (which must be at least 1; it may be narrower than `thin`).
    pub fn hybrid(big: usize, s: usize, thin: usize) -> Self {
        assert!(big > 0, "tile sizes must be positive");
        assert!(s == 0 || thin > 0, "thin tiles must be positive");
        assert!(s * thin < big, "the wide tile of a period must be non-empty");
        Part { big, thin: if s == 0 { big } else { thin }, s }
    }

    /// The big tile B (the period).
    pub fn big(&self) -> usize {
        self.big
    }
    /// Thin tiles per period.
    pub fn thin_count(&self) -> usize {
        self.s
    }
    /// Width of a thin tile (b); B when there are none.
    pub fn thin(&self) -> usize {
        self.thin
    }
    /// Width of the wide tile, B − s·b.
    pub fn wide(&self) -> usize {
        self.big - self.s * self.thin
    }
    fn per(&self) -> usize {
        self.s + 1
    }

    /// Whether tile `j` is the wide tile of its period.
    pub fn is_wide(&self, j: usize) -> bool {
        j % self.per() == self.s
    }

    /// The tile size when every tile has the same nominal size.
    pub fn uniform_size(&self) -> Option<usize> {
        (self.s == 0 || self.wide() == self.thin).then_some(if self.s == 0 { self.big } else { self.thin })
    }

    /// The largest nominal tile size.
    pub fn max_size(&self) -> usize {
        if self.s == 0 {
            self.big
        } else {
            self.thin.max(self.wide())
        }
    }

    /// Number of tiles covering `n` elements.
    pub fn count(&self, n: usize) -> usize {
        let (q, r) = (n / self.big, n % self.big);
        let tail = if r == 0 {
            0
        } else if r <= self.s * self.thin {
            r.div_ceil(self.thin)
        } else {
            self.s + 1
        };
        q * self.per() + tail
    }

    /// First element of tile `j`.
    pub fn offset(&self, j: usize) -> usize {
        let (q, r) = (j / self.per(), j % self.per());
        q * self.big + r.min(self.s) * self.thin
    }

    /// Nominal size of tile `j` (the tile is cut short where the extent ends).
    pub fn size(&self, j: usize) -> usize {
        if self.is_wide(j) {
            self.wide()
        } else {
            self.thin
        }
    }

    /// The tile holding element `x`.
    pub fn index_of(&self, x: usize) -> usize {
        let (q, r) = (x / self.big, x % self.big);
        let within = if r < self.s * self.thin { r / self.thin } else { self.s };
        q * self.per() + within
    }

    /// `B512/b128x3` (hybrid) or `nb256` (uniform), for the verbose line.
    pub fn describe(&self) -> String {
        if self.s == 0 {
            format!("nb{}", self.big)
        } else {
            format!("B{}/b{}x{}", self.big, self.thin, self.s)
        }
    }

    /// The same pattern in its simplest form: a hybrid period whose wide tile equals its thin
    /// ones is the uniform partition into thin tiles.
    fn normal(&self) -> Part {
        match self.uniform_size() {
            Some(nb) => Part { big: nb, thin: nb, s: 0 },
            None => *self,
        }
    }
}

/// Two patterns are equal when they cut every extent at the same places.
impl PartialEq for Part {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.normal(), other.normal());
        a.big == b.big && a.s == b.s && a.thin == b.thin
    }
}
impl Eq for Part {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tiles of `p` over `n` elements by walking, the reference for the O(1) formulas.
    fn walk(p: &Part, n: usize) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        let mut x = 0;
        let mut j = 0;
        while x < n {
            let w = p.size(j).min(n - x);
            v.push((x, w));
            x += w;
            j += 1;
        }
        v
    }

    #[test]
    fn formulas_agree_with_walking_the_pattern() {
        let parts = [
            Part::uniform(1),
            Part::uniform(7),
            Part::hybrid(12, 0, 5),
            Part::hybrid(12, 2, 5), // wide 2, narrower than b
            Part::hybrid(16, 3, 4), // wide 4 = b: uniform 4
            Part::hybrid(20, 1, 6), // wide 14
            Part::hybrid(9, 4, 2),  // wide 1
        ];
        for p in &parts {
            for n in 0..80 {
                let w = walk(p, n);
                assert_eq!(p.count(n), w.len(), "{p:?} n {n}");
                for (j, &(off, len)) in w.iter().enumerate() {
                    assert_eq!(p.offset(j), off, "{p:?} n {n} j {j}");
                    assert_eq!(p.size(j).min(n - off), len);
                    for x in off..off + len {
                        assert_eq!(p.index_of(x), j, "{p:?} element {x}");
                    }
                }
                // The offset past the last tile is at least the extent.
                assert!(p.offset(w.len()) >= n);
            }
        }
        assert_eq!(Part::hybrid(16, 3, 4), Part::uniform(4));
        assert_ne!(Part::hybrid(12, 2, 5), Part::uniform(5));
        assert_eq!(Part::hybrid(12, 0, 5), Part::uniform(12));
        assert_eq!(Part::hybrid(512, 3, 128 / 2).describe(), "B512/b64x3");
        assert_eq!(Part::uniform(256).describe(), "nb256");
        let p = Part::hybrid(12, 2, 5);
        assert_eq!(
            (0..6).map(|j| p.is_wide(j)).collect::<Vec<_>>(),
            [false, false, true, false, false, true]
        );
        assert_eq!((p.max_size(), p.wide(), p.uniform_size()), (5, 2, None));
    }

    #[test]
    #[should_panic(expected = "non-empty")]
    fn an_empty_wide_tile_is_refused() {
        let _ = Part::hybrid(12, 3, 4);
    }
}
