//! Hop-table rows folded into per-switch least or largest distances.

/// Folds the hop-table rows of `targets` into `out` (one byte a switch) with `op`: eight
/// rows at a time, a block of 64 switches at a time, so that each block is
/// loaded and stored once for eight rows (and held in registers between) instead of once
/// a row.
///
/// Complexity: O(S·|targets|) byte operations.
pub(crate) fn fold_rows(
    hops: &fabric_model::HopTable,
    targets: &[u32],
    out: &mut [u8],
    op: impl Fn(u8, u8) -> u8,
) {
    // Rows a pass, and switches a block.
    const ROWS: usize = 8;
    const BLOCK: usize = 64;
    let n = out.len();
    let blocks = n / BLOCK * BLOCK;
    let mut rows: [&[u8]; ROWS] = [&[]; ROWS];
    for chunk in targets.chunks(ROWS) {
        for (r, &t) in rows.iter_mut().zip(chunk) {
            *r = &hops.row(t as usize)[..n];
        }
        let rows = &rows[..chunk.len()];
        for start in (0..blocks).step_by(BLOCK) {
            let end = start + BLOCK;
            let mut acc = [0u8; BLOCK];
            acc.copy_from_slice(&out[start..end]);
            for row in rows {
                for (a, &v) in acc.iter_mut().zip(&row[start..end]) {
                    *a = op(*a, v);
                }
            }
            out[start..end].copy_from_slice(&acc);
        }
        // The switches past the blocks.
        for row in rows {
            for (a, &v) in out[blocks..].iter_mut().zip(&row[blocks..]) {
                *a = op(*a, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {

    use fabric_model::{HopTable, generators};

    use crate::search::*;

    /// The blocked passes fill the least and the largest distance to the targets as one
    /// pass a row does, for target sets of none, one, a few and many (past a pass of eight
    /// rows), and switch counts of whole blocks and with a tail.
    #[test]
    fn far_and_near_are_the_row_by_row_largest_and_least() {
        for dims in [[4, 4, 4], [7, 5, 3]] {
            let f = generators::torus(&dims, 1).unwrap();
            let h = HopTable::new(&f).unwrap();
            let n = f.switch_count();
            let mut s = Scratch::new(n);
            let many: Vec<u32> = (0..n as u32).step_by(3).collect();
            for targets in [vec![], vec![3], vec![5, 1, 9], many] {
                let mut far = vec![0u8; n];
                let mut near = vec![u8::MAX; n];
                for &t in &targets {
                    for (x, &v) in h.row(t as usize).iter().enumerate() {
                        far[x] = far[x].max(v);
                        near[x] = near[x].min(v);
                    }
                }
                s.maxd.fill(7);
                s.near.fill(9);
                s.fill_far(&h, &targets);
                assert_eq!(s.maxd, far, "{dims:?} {targets:?}");
                assert!(s.near.iter().all(|&d| d == 9));
                s.fill_near(&h, &targets);
                assert_eq!(s.near, near, "{dims:?} {targets:?}");
                // Raising by the rows already in changes nothing; by a row of a switch
                // outside them, something (its own row holds its farthest switches).
                assert!(!s.raise_far(&h, &targets));
                assert_eq!(s.maxd, far);
                if let Some(&t) = targets.first() {
                    s.fill_far(&h, &[t]);
                    let other = (t + n as u32 / 2) % n as u32;
                    assert!(s.raise_far(&h, &[other]));
                    assert_eq!(s.maxd, {
                        let mut m = h.row(t as usize).to_vec();
                        for (a, &v) in m.iter_mut().zip(h.row(other as usize)) {
                            *a = (*a).max(v);
                        }
                        m
                    });
                }
            }
        }
    }
}
