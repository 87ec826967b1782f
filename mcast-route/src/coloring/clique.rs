//! A greedy clique: a lower bound on the colors of any proper coloring.

use super::Graph;

/// A clique of `g` found greedily: from each vertex (the highest degrees first, skipping
/// those whose degree cannot beat the best clique so far), repeatedly add the candidate of
/// highest degree, then keep only its neighbours among the candidates. Every proper coloring
/// of `g` uses at least the clique's size; the largest clique is NP-hard to find, so this
/// one may be smaller. Sorted by vertex.
///
/// # Complexity
/// O(n · ω · Δ) for clique size ω and largest degree Δ (sorted-list intersections).
#[must_use]
pub fn greedy_clique(g: &Graph) -> Vec<u32> {
    let n = g.len();
    let mut by_degree: Vec<u32> = (0..n as u32).collect();
    by_degree.sort_by_key(|&v| (std::cmp::Reverse(g.degree(v as usize)), v));
    let mut best: Vec<u32> = by_degree.first().map_or_else(Vec::new, |&v| vec![v]);
    let mut cand: Vec<u32> = Vec::new();
    let mut next: Vec<u32> = Vec::new();
    let mut clique: Vec<u32> = Vec::new();
    for &v in &by_degree {
        if g.degree(v as usize) < best.len() {
            break;
        }
        clique.clear();
        clique.push(v);
        cand.clear();
        cand.extend_from_slice(g.neighbours(v as usize));
        while let Some(&u) = cand
            .iter()
            .max_by_key(|&&u| (g.degree(u as usize), std::cmp::Reverse(u)))
        {
            clique.push(u);
            next.clear();
            let nu = g.neighbours(u as usize);
            let (mut i, mut j) = (0, 0);
            while i < cand.len() && j < nu.len() {
                match cand[i].cmp(&nu[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        next.push(cand[i]);
                        i += 1;
                        j += 1;
                    }
                }
            }
            std::mem::swap(&mut cand, &mut next);
            if clique.len() + cand.len() <= best.len() {
                break;
            }
        }
        if clique.len() > best.len() {
            best.clone_from(&clique);
        }
    }
    best.sort_unstable();
    best
}
