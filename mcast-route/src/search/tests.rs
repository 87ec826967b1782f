//! Properties across search kinds.

use fabric_model::{HopTable, generators};

use crate::search::*;

/// Pruning by the distance to the targets changes what is searched, never the answer:
/// bounded BFS and Dijkstra from every switch to pseudo-random target sets over a
/// pseudo-random `G_color` agree with and without it.
#[test]
fn pruned_searches_answer_as_unpruned_ones() {
    let f = generators::torus(&[6, 5, 4], 1).unwrap();
    let h = HopTable::new(&f).unwrap();
    let g = SwitchGraph::new(&f);
    let n = g.len() as u32;
    let efi: Vec<u32> = (0..f.link_count() as u32).map(|l| l * 7 % 5).collect();
    let mut s = Scratch::new(n as usize);
    let mut checked = 0;
    for seed in 0..40u32 {
        let avail = |x: u32| !(x * 31 + seed * 17).is_multiple_of(7);
        let targets: Vec<u32> = (0..4).map(|k| (seed * 13 + k * 29) % n).collect();
        let targets: Vec<u32> = targets.into_iter().filter(|&t| avail(t)).collect();
        s.fill_near(&h, &targets);
        for start in (0..n).filter(|&x| avail(x)) {
            for depth in [2, 4, 6] {
                let plain = s.bfs(&g, start, depth, avail, &targets, Pruning::Off);
                let far_plain: Vec<u32> = targets.iter().map(|&t| s.hops[t as usize]).collect();
                let pruned = s.bfs(&g, start, depth, avail, &targets, Pruning::Near);
                assert_eq!(plain, pruned, "bfs seed {seed} start {start} depth {depth}");
                if plain {
                    let far: Vec<u32> = targets.iter().map(|&t| s.hops[t as usize]).collect();
                    assert_eq!(far, far_plain);
                    checked += 1;
                }
                let dj = |s: &mut Scratch, prune| {
                    let ok = s.dijkstra(
                        &g,
                        &efi,
                        start,
                        avail,
                        &targets,
                        depth,
                        Extent::Targets,
                        None,
                        prune,
                    );
                    let key: Vec<(u32, u64)> = targets
                        .iter()
                        .map(|&t| (s.hops[t as usize], s.cost[t as usize]))
                        .collect();
                    (ok, if ok { key } else { Vec::new() })
                };
                assert_eq!(
                    dj(&mut s, Pruning::Off),
                    dj(&mut s, Pruning::Near),
                    "dijkstra seed {seed}"
                );
            }
        }
    }
    assert!(checked > 100, "{checked}");
}
