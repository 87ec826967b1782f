//! Colorings of small graphs of known chromatic number, and properties on random graphs.

use proptest::prelude::*;

use super::*;

fn cycle(n: u32) -> Graph {
    Graph::from_edges(n as usize, (0..n).map(|v| (v, (v + 1) % n))).unwrap()
}

fn complete(n: u32) -> Graph {
    Graph::from_edges(
        n as usize,
        (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))),
    )
    .unwrap()
}

/// The Petersen graph: 3-regular, triangle-free, chromatic number 3.
fn petersen() -> Graph {
    let outer = (0..5).map(|v| (v, (v + 1) % 5));
    let spokes = (0..5).map(|v| (v, v + 5));
    let inner = (0..5).map(|v| (v + 5, (v + 2) % 5 + 5));
    Graph::from_edges(10, outer.chain(spokes).chain(inner)).unwrap()
}

/// The Grötzsch graph (Mycielski of the 5-cycle): triangle-free, chromatic number 4.
fn grotzsch() -> Graph {
    let mut e: Vec<(u32, u32)> = (0..5).map(|v| (v, (v + 1) % 5)).collect();
    for v in 0..5 {
        // u_v = 5 + v is joined to the cycle neighbours of v; all u_v to the apex 10.
        e.push((5 + v, (v + 1) % 5));
        e.push((5 + v, (v + 4) % 5));
        e.push((5 + v, 10));
    }
    Graph::from_edges(11, e).unwrap()
}

/// The crown graph on 2n vertices: a_i joined to b_j for i ≠ j. Bipartite; first fit in the
/// order a_0, b_0, a_1, b_1, … needs n colors.
fn crown(n: u32) -> (Graph, Vec<usize>) {
    let g = Graph::from_edges(
        2 * n as usize,
        (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, n + j))),
    )
    .unwrap();
    let order = (0..n as usize).flat_map(|i| [i, n as usize + i]).collect();
    (g, order)
}

#[test]
fn graphs_are_symmetric_simple_and_sorted() {
    let g = Graph::from_edges(2, [(3, 1), (1, 3), (2, 2), (0, 3)]).unwrap();
    assert_eq!(g.len(), 4);
    assert_eq!(g.edge_count(), 2);
    assert_eq!(g.neighbours(3), &[0, 1]);
    assert_eq!(g.neighbours(2), &[] as &[u32]);
    assert_eq!(g.neighbours(9), &[] as &[u32]);
    let h = Graph::from_adjacency(&[vec![3], vec![3], vec![], vec![]]).unwrap();
    assert_eq!(g, h);
    let mut built = Graph::default();
    for v in 0..4 {
        built.push_row(g.neighbours(v));
    }
    assert_eq!(built, g);
}

#[test]
fn colorings_count_and_check_conflicts() {
    let g = cycle(4);
    let c = Coloring::from_colors(vec![0, 1, 0, 1]);
    assert!(c.is_proper(&g) && c.count() == 2);
    let bad = Coloring::from_colors(vec![0, 0, 0, 1]);
    assert_eq!(bad.conflicts(&g), 2);
    assert!(!bad.is_proper(&g));
    assert!(!Coloring::from_colors(vec![0, 1, 0]).is_proper(&g));
    assert_eq!(Coloring::default().count(), 0);
}

#[test]
fn dsatur_on_graphs_of_known_chromatic_number() {
    for (g, chi) in [
        (cycle(5), 3),
        (cycle(6), 2),
        (complete(4), 4),
        (petersen(), 3),
        (crown(6).0, 2),
    ] {
        let d = dsatur(&g, None);
        assert!(d.coloring.is_proper(&g));
        assert_eq!(d.coloring.count(), chi);
        let mut order = d.order.clone();
        order.sort_unstable();
        assert_eq!(order, (0..g.len() as u32).collect::<Vec<_>>());
    }
    // DSatur is a heuristic: on the Grötzsch graph it may need more than 4, never fewer.
    let g = grotzsch();
    let d = dsatur(&g, None);
    assert!(d.coloring.is_proper(&g) && d.coloring.count() >= 4);
}

#[test]
fn first_fit_depends_on_the_order() {
    let (g, bad) = crown(5);
    let ff = first_fit_in(&g, bad, None);
    assert!(ff.is_proper(&g));
    assert_eq!(ff.count(), 5);
    assert_eq!(first_fit(&g, None).count(), 2);
    // Out-of-range and repeated entries are skipped; left-out vertices come after.
    let c = first_fit_in(&g, [99, 0, 0], None);
    assert!(c.is_proper(&g));
}

#[test]
fn tabucol_finds_k_colorings_down_to_the_chromatic_number() {
    let t = Tabu::default().with_moves(2_000);
    for (g, chi) in [
        (cycle(5), 3),
        (complete(4), 4),
        (petersen(), 3),
        (grotzsch(), 4),
        (crown(6).0, 2),
    ] {
        let c = tabucol(&g, chi, &t).expect("a chi-coloring exists and is small");
        assert!(c.is_proper(&g) && c.count() <= chi);
        assert!(tabucol(&g, chi - 1, &t).is_none());
        // Down from a bad start to the chromatic number.
        let start = Coloring::from_colors((0..g.len() as u32).collect());
        let best = tabu_descend(&g, start, 1, &t);
        assert!(best.is_proper(&g));
        assert_eq!(best.count(), chi);
    }
    // The floor stops the descent; an empty graph needs no color.
    let g = crown(6).0;
    let start = first_fit_in(&g, crown(6).1, None);
    assert_eq!(start.count(), 6);
    assert_eq!(tabu_descend(&g, start.clone(), 6, &t), start);
    assert!(tabu_descend(&g, start, 4, &t).count() <= 4);
    assert_eq!(tabucol(&Graph::default(), 0, &t), Some(Coloring::default()));
    assert_eq!(tabucol(&cycle(3), 0, &t), None);
}

/// Regression: a color count or a start coloring from the caller sized the search's tables
/// (`usize::MAX` colors overflowed `n · k`; a start of color `u32::MAX` asked for 2³² counts),
/// and a start shorter than the graph was indexed past its end.
#[test]
fn tabu_searches_bound_what_the_caller_sizes() {
    let t = Tabu::default().with_moves(500);
    let g = cycle(5);
    let c = tabucol(&g, usize::MAX, &t).expect("n colors always suffice");
    assert!(c.is_proper(&g) && c.count() <= 5);
    assert_eq!(Some(c), tabucol(&g, 5, &t));
    // Not a proper coloring of g (too short, or a clash): back unchanged.
    let short = Coloring::from_colors(vec![0, 1]);
    assert_eq!(tabu_descend(&g, short.clone(), 1, &t), short);
    let clash = Coloring::from_colors(vec![0, 0, 1, 0, 1]);
    assert_eq!(tabu_descend(&g, clash.clone(), 1, &t), clash);
    // Proper but spanning 2³² colors: renumbered, then down to the chromatic number.
    let wide = Coloring::from_colors(vec![u32::MAX, 7, u32::MAX, 7, 3]);
    let best = tabu_descend(&g, wide, 1, &t);
    assert!(best.is_proper(&g));
    assert_eq!(best.count(), 3);
}

#[test]
fn capacity_opens_a_color_when_a_set_is_full() {
    // Three vertices without edges, all needing one set of capacity 2.
    let g = Graph::from_edges(3, []).unwrap();
    let cap = Capacity::new(vec![2], vec![vec![0]; 3]).expect("valid");
    assert_eq!(first_fit(&g, None).count(), 1);
    assert_eq!(first_fit(&g, Some(&cap)).count(), 2);
    assert_eq!(dsatur(&g, Some(&cap)).coloring.count(), 2);
    assert_eq!(cap.caps(), &[2]);
    assert_eq!(cap.needs(7), &[] as &[u32]);
    assert!(Capacity::new(vec![0], vec![vec![0]]).is_none());
    assert!(Capacity::new(vec![1], vec![vec![1]]).is_none());
}

fn graph() -> impl Strategy<Value = Graph> {
    (
        1usize..24,
        prop::collection::vec((0u32..24, 0u32..24), 0..80),
    )
        .prop_map(|(n, e)| Graph::from_edges(n, e).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every coloring is proper; tabu search never does worse than its start, and a seed
    /// gives one answer.
    #[test]
    fn colorings_of_random_graphs_are_proper(g in graph(), seed in 1u64..1000) {
        let ff = first_fit(&g, None);
        let d = dsatur(&g, None);
        prop_assert!(ff.is_proper(&g) && d.coloring.is_proper(&g));
        let descent = if seed % 2 == 0 { Descent::Restart } else { Descent::Continue };
        let t = Tabu::default().with_moves(500).with_seed(seed).with_descent(descent);
        let clique = greedy_clique(&g).len();
        let best = tabu_descend(&g, d.coloring.clone(), 1, &t);
        prop_assert!(best.count() >= clique);
        prop_assert!(best.is_proper(&g));
        prop_assert!(best.count() <= d.coloring.count());
        prop_assert_eq!(best.clone(), tabu_descend(&g, d.coloring.clone(), 1, &t));
        if let Some(c) = tabucol(&g, best.count(), &t) {
            prop_assert!(c.is_proper(&g) && c.count() <= best.count());
        }
    }
}

#[test]
fn greedy_cliques_are_cliques_and_bound_the_colors() {
    for (g, omega) in [
        (complete(5), 5),
        (cycle(5), 2),
        (petersen(), 2),
        (crown(4).0, 2),
        (Graph::from_edges(3, []).unwrap(), 1),
    ] {
        let c = greedy_clique(&g);
        assert_eq!(c.len(), omega);
        for (i, &a) in c.iter().enumerate() {
            for &b in &c[i + 1..] {
                assert!(g.neighbours(a as usize).contains(&b));
            }
        }
    }
    assert!(greedy_clique(&Graph::default()).is_empty());
    // K4 plus a pendant path: the clique is the K4.
    let g = Graph::from_edges(
        6,
        [
            (0, 1),
            (0, 2),
            (0, 3),
            (1, 2),
            (1, 3),
            (2, 3),
            (3, 4),
            (4, 5),
        ],
    )
    .unwrap();
    assert_eq!(greedy_clique(&g), vec![0, 1, 2, 3]);
}

#[test]
fn continuing_descents_reach_the_chromatic_number_too() {
    let t = Tabu::default()
        .with_moves(2_000)
        .with_descent(Descent::Continue);
    assert_eq!(t.descent(), Descent::Continue);
    for (g, chi) in [
        (cycle(7), 3),
        (petersen(), 3),
        (grotzsch(), 4),
        (crown(6).0, 2),
    ] {
        let start = Coloring::from_colors((0..g.len() as u32).collect());
        let best = tabu_descend(&g, start, 1, &t);
        assert!(best.is_proper(&g));
        assert_eq!(best.count(), chi);
    }
}

/// A graph past the documented bounds is a typed error, checked before the large allocation
/// (a vertex count or an endpoint past `MAX_VERTICES`).
#[test]
fn graphs_past_the_bounds_are_refused() {
    use crate::Error;
    use crate::coloring::{MAX_EDGES, MAX_VERTICES};
    let past = |r: Result<Graph, Error>| matches!(r, Err(Error::GraphTooLarge { .. }));
    assert!(past(Graph::from_edges(usize::MAX, [])));
    assert!(past(Graph::from_edges(MAX_VERTICES + 1, [])));
    assert!(past(Graph::from_edges(3, [(0, u32::MAX)])));
    assert!(past(Graph::from_edges(0, [(0, MAX_VERTICES as u32)])));
    let at = Graph::from_edges(0, [(0, MAX_VERTICES as u32 - 1)]).unwrap();
    assert_eq!(at.len(), MAX_VERTICES);
    // An iterator that says how long it is is refused before any edge is read.
    assert!(past(Graph::from_edges(2, (0..=MAX_EDGES).map(|_| (0, 1)))));
    assert!(past(Graph::from_edges(
        2,
        std::iter::repeat_n((0, 1), MAX_EDGES + 1)
    )));
    let e = Graph::from_edges(usize::MAX, []).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "a conflict graph of {} vertices and 0 listed edges is past the bounds \
             ({MAX_VERTICES} vertices, {MAX_EDGES} edges)",
            usize::MAX
        )
    );
}
