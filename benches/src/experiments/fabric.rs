//! `reproduce fabric`: the size of every generated fabric at the papers' sizes.

use fabric_model::{Fabric, HopTable, generators};

use crate::{Cell, Context, Experiment, Table};

/// One row per topology generator at the sizes of the papers:
/// switches, terminals, switch–switch links, largest radix and switch diameter. The same
/// sizes at both scales: each takes about a second.
#[derive(Debug, Clone, Copy, Default)]
pub struct FabricSizes;

/// The CSV header of `reproduce fabric`.
pub const HEADER: &str = "topology,switches,terminals,links,max_radix,switch_diameter";

type Build = fn() -> Result<Fabric, fabric_model::Error>;

/// The paper's switches, terminals and switch diameter (−1 where it gives none).
type PaperFigures = Option<(i64, i64, i64)>;

/// `(name, builder, the paper's figures where it gives them)`.
const TOPOLOGIES: [(&str, Build, PaperFigures); 5] = [
    (
        "fat_tree-k40",
        || generators::fat_tree(40),
        Some((2_000, 16_000, 4)),
    ),
    (
        "tapered_fat_tree-32x128-up8",
        || generators::tapered_fat_tree(32, 128, 8),
        None,
    ),
    (
        "torus-30x20x20-t2",
        || generators::torus(&[30, 20, 20], 2),
        Some((12_000, 24_000, 35)),
    ),
    (
        "dragonfly-a18-p9-h9",
        || generators::dragonfly(18, 9, 9),
        Some((2_934, 26_406, 3)),
    ),
    (
        "random_regular-2048-r40-t20-seed1",
        || generators::random_regular(2048, 40, 20, 1),
        Some((2_048, 40_960, -1)),
    ),
];

impl Experiment for FabricSizes {
    fn name(&self) -> &'static str {
        "fabric"
    }

    fn description(&self) -> &'static str {
        "sizes and switch diameters of the generated fabrics (fat tree, tapered, torus, dragonfly, random regular)"
    }

    fn run(&self, ctx: &Context) -> Result<Vec<Table>, String> {
        let mut t = Table::new("fabric", "Generated fabrics", HEADER).with_paper_columns(&[
            "switches",
            "terminals",
            "switch_diameter",
        ]);
        for (name, build, paper) in TOPOLOGIES {
            ctx.progress(&format!("fabric: {name}"));
            let f = build().map_err(|e| format!("{name}: {e}"))?;
            let hops = HopTable::new(&f).map_err(|e| format!("{name}: {e}"))?;
            let diameter = hops.diameter().map_or(Cell::Empty, Cell::count);
            let row = vec![
                Cell::text(name),
                Cell::count(f.switch_count()),
                Cell::count(f.terminal_count()),
                Cell::count(f.switch_link_count()),
                Cell::count(f.max_radix()),
                diameter,
            ];
            match paper {
                Some((s, term, d)) => t.push_with_paper(
                    row,
                    vec![
                        Cell::Int(s),
                        Cell::Int(term),
                        if d < 0 { Cell::Empty } else { Cell::Int(d) },
                    ],
                ),
                None => t.push(row),
            }
        }
        t.note("links counts switch-to-switch links only; every terminal adds one more link");
        t.note("dragonfly: canonical g = a*h + 1 groups, absolute (consecutive) global-link arrangement");
        t.note("tapered_fat_tree-32x128-up8: 128 leaves of 32 terminals with 8 up-paths each (4:1 taper)");
        Ok(vec![t])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_the_contract() {
        assert_eq!(
            Table::new("fabric", "x", HEADER).to_csv(),
            "topology,switches,terminals,links,max_radix,switch_diameter\n"
        );
    }
}
