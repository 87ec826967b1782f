//! The key columns of each experiment's tables: what `reproduce --format table` shows in a
//! 100-column terminal. `--format wide`, CSV and JSON show every column.
//!
//! A table that chooses its own view ([`crate::Table::with_text_view`], as the dag tables do)
//! keeps it. Other tables are found here by their CSV header, so a header that changes leaves
//! its table with every column shown (folded into blocks that fit) until its entry here is
//! updated; the tests check that every key names a column of its header.

use super::{dag, dag_trace, fabric, mcast, mcast_churn, mpi_tuning, rdma};
use crate::Table;

/// Each wide table's CSV header and its key columns, in the order shown. Our columns are named
/// as in the header, the paper's as `paper:NAME` (printed as `paper:NAME` less a `paper_`
/// prefix of NAME); `NAME as LABEL` prints the column under LABEL.
pub const KEY_COLUMNS: &[(&str, &[&str])] = &[
    (
        fabric::HEADER,
        &[
            "topology",
            "switches",
            "paper:switches as paper",
            "terminals",
            "paper:terminals as paper",
            "links",
            "switch_diameter",
            "paper:switch_diameter as paper",
        ],
    ),
    (
        mcast::HEADER,
        &[
            "topology",
            "pattern",
            "algorithm",
            "n_colors",
            "colors_used as colors",
            "paper:paper_colors_used",
            "max_efi",
            "paper:paper_max_efi",
            "merged_groups as merged",
        ],
    ),
    (
        mcast::COLORS_HEADER,
        &[
            "pattern",
            "color_lower_bound",
            "forced_tabu",
            "mr4lms_colors",
            "mr4lms_recolored",
            "mr4lms_rerouted",
        ],
    ),
    (
        mcast::RECOLOR_HEADER,
        &[
            "topology",
            "pattern",
            "n_colors",
            "checkpoints",
            "merged_groups",
            "merged_groups_recolored",
            "colors_freed",
            "blocks_changed",
        ],
    ),
    (
        mcast_churn::HEADER,
        &[
            "topology",
            "event",
            "events",
            "groups_rerouted_mean",
            "blocks_changed_mean",
            "us_per_event",
            "rebuild_us_per_event",
        ],
    ),
    (
        mpi_tuning::HEADER,
        &[
            "library",
            "collective",
            "ranks",
            "bytes",
            "ours",
            "ratio_median",
            "ratio_min",
            "ratio_max",
        ],
    ),
    (
        rdma::WINDOW_HEADER,
        &[
            "window",
            "loss",
            "stall_per_episode_ns",
            "episodes",
            "model_completion_vs_ideal",
            "measured_no_speculation",
        ],
    ),
    (
        rdma::LOSS_HIT_HEADER,
        &[
            "loss",
            "transfers_with_loss",
            "paper",
            "improved",
            "whole_transfer",
            "paper_sent_vs_needed",
        ],
    ),
    (
        dag::LOAD_HEADER,
        &[
            "scheduler",
            "load",
            "compute_tflops",
            "mean_speedup_vs_tf",
            "speedup_bound",
            "mean_wait_ms",
            "min_remaining_bw",
        ],
    ),
    (
        dag::INSTANCE_HEADER,
        &[
            "instance",
            "jobs",
            "transfers",
            "solver",
            "max_link_load",
            "solve_ms",
        ],
    ),
    (
        dag_trace::HEADER,
        &[
            "trace",
            "scheduler",
            "mean_cct_s",
            "p99_cct_s",
            "mean_vs_fair",
            "paper:mean_vs_fair",
            "mean_vs_varys",
            "paper:mean_vs_varys",
        ],
    ),
];

/// The key columns of `table`, when it is one of the wide tables of [`KEY_COLUMNS`].
#[must_use]
pub fn key_columns(table: &Table) -> Option<&'static [&'static str]> {
    KEY_COLUMNS
        .iter()
        .find(|(header, _)| {
            header
                .split(',')
                .eq(table.columns.iter().map(String::as_str))
        })
        .map(|(_, keys)| *keys)
}

/// Sets `table`'s text view from [`KEY_COLUMNS`] when it has none of its own
/// ([`Table::text_view`]).
pub fn choose_key_columns(table: &mut Table) {
    if table.text_view.is_empty()
        && let Some(keys) = key_columns(table)
    {
        table.set_key_columns(keys);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_names_a_column_once() {
        for (header, keys) in KEY_COLUMNS {
            let columns: Vec<&str> = header.split(',').collect();
            for (i, k) in keys.iter().enumerate() {
                let k = &k.split_once(" as ").map_or(*k, |(name, _)| name);
                assert!(
                    columns.contains(k) || k.starts_with("paper:"),
                    "{k} is not a column of {header}"
                );
                assert!(!keys[..i].contains(k), "{k} named twice for {header}");
            }
            let ours = keys.iter().filter(|k| !k.starts_with("paper:")).count();
            assert!(ours < columns.len(), "{header}: no column of ours left out");
        }
    }

    #[test]
    fn tables_are_found_by_their_whole_header() {
        let mut t = Table::new("mcast-colors", "x", mcast::COLORS_HEADER);
        choose_key_columns(&mut t);
        assert_eq!(t.text_view[0].0, "pattern");
        let mut other = Table::new("mcast-colors", "x", "topology,pattern");
        choose_key_columns(&mut other);
        assert!(other.text_view.is_empty());
    }
}
