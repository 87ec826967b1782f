//! The pLogP measurement plan (paper §4): one sample inside each logical cluster and one per
//! pair of clusters, C(C+1) directed measures, C(C+1)/2 with symmetric links.

use crate::{Error, PLogP, Partition};

/// Whether a link measured one way stands for both directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Links {
    /// a → b = b → a: one measure per pair (C(C+1)/2 in all).
    Symmetric,
    /// Both directions measured (C(C+1) in all).
    Directed,
}

/// One pLogP measurement to run: `sender` (a node of the latency matrix) measures towards
/// `receiver`. `from == to` for the intra-cluster sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Measurement {
    /// Sender's cluster.
    pub from: usize,
    /// Receiver's cluster.
    pub to: usize,
    /// Sender node.
    pub sender: usize,
    /// Receiver node.
    pub receiver: usize,
}

/// The list of measurements for a partition into logical clusters. Each cluster's coordinator
/// is its lowest node; the intra-cluster sample runs from the coordinator to the cluster's
/// second node (a singleton cluster has nothing to measure inside and gets no intra item).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasurementPlan {
    items: Vec<Measurement>,
    coordinators: Vec<usize>,
    links: Links,
}

impl MeasurementPlan {
    /// The plan for `clusters`, intra items first (cluster order), then inter items in
    /// lexicographic (from, to) order.
    ///
    /// # Complexity
    /// O(C²) for C clusters.
    ///
    /// # Example
    /// ```
    /// use topo_cluster::plan::Links;
    /// use topo_cluster::{fixtures, logical_clusters, ClusterParams, MeasurementPlan};
    /// let f = fixtures::idpot(None);
    /// let c = logical_clusters(&f.matrix, &ClusterParams::default())?;
    /// assert_eq!(MeasurementPlan::new(&c, Links::Symmetric).len(), 21);
    /// assert_eq!(MeasurementPlan::new(&c, Links::Directed).len(), 42);
    /// # Ok::<(), topo_cluster::Error>(())
    /// ```
    #[must_use]
    pub fn new(clusters: &Partition, links: Links) -> Self {
        let coordinators: Vec<usize> = clusters.groups().iter().map(|g| g[0]).collect();
        let mut items = Vec::new();
        for (c, g) in clusters.groups().iter().enumerate() {
            if let [a, b, ..] = g[..] {
                items.push(Measurement {
                    from: c,
                    to: c,
                    sender: a,
                    receiver: b,
                });
                if links == Links::Directed {
                    items.push(Measurement {
                        from: c,
                        to: c,
                        sender: b,
                        receiver: a,
                    });
                }
            }
        }
        let n = coordinators.len();
        for i in 0..n {
            for j in 0..n {
                if i == j || (links == Links::Symmetric && j < i) {
                    continue;
                }
                items.push(Measurement {
                    from: i,
                    to: j,
                    sender: coordinators[i],
                    receiver: coordinators[j],
                });
            }
        }
        Self {
            items,
            coordinators,
            links,
        }
    }

    /// The measurements, in order.
    #[must_use]
    pub fn items(&self) -> &[Measurement] {
        &self.items
    }

    /// Number of measurements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there is nothing to measure.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The coordinator (lowest node) of every cluster.
    #[must_use]
    pub fn coordinators(&self) -> &[usize] {
        &self.coordinators
    }

    /// The link assumption of the plan.
    #[must_use]
    pub fn links(&self) -> Links {
        self.links
    }

    /// An empty collector for the measured parameters.
    #[must_use]
    pub fn collect(&self) -> PlanResults<'_> {
        PlanResults {
            plan: self,
            got: vec![None; self.items.len()],
        }
    }
}

/// Measured parameters handed back item by item; [`PlanResults::finish`] builds the per-pair
/// models once every item has one.
#[derive(Debug, Clone)]
pub struct PlanResults<'a> {
    plan: &'a MeasurementPlan,
    got: Vec<Option<PLogP>>,
}

impl PlanResults<'_> {
    /// Records the parameters of plan item `item`.
    ///
    /// # Errors
    /// [`Error::NoSuchItem`], [`Error::DuplicateMeasurement`].
    pub fn record(&mut self, item: usize, params: PLogP) -> Result<(), Error> {
        let len = self.got.len();
        let m = *self
            .plan
            .items
            .get(item)
            .ok_or(Error::NoSuchItem { item, len })?;
        let slot = &mut self.got[item];
        if slot.is_some() {
            return Err(Error::DuplicateMeasurement {
                item,
                from: m.from,
                to: m.to,
            });
        }
        *slot = Some(params);
        Ok(())
    }

    /// Records the parameters measured from node `sender` to node `receiver`.
    ///
    /// # Errors
    /// [`Error::NotInPlan`] (a node that appears in no item is reported with cluster
    /// `usize::MAX`), [`Error::DuplicateMeasurement`].
    pub fn record_pair(
        &mut self,
        sender: usize,
        receiver: usize,
        params: PLogP,
    ) -> Result<(), Error> {
        let plan = self.plan;
        match plan
            .items
            .iter()
            .position(|m| m.sender == sender && m.receiver == receiver)
        {
            Some(item) => self.record(item, params),
            None => {
                let cluster = |node| {
                    plan.items
                        .iter()
                        .find_map(|m| {
                            (m.sender == node)
                                .then_some(m.from)
                                .or((m.receiver == node).then_some(m.to))
                        })
                        .unwrap_or(usize::MAX)
                };
                Err(Error::NotInPlan {
                    from: cluster(sender),
                    to: cluster(receiver),
                    sender,
                    receiver,
                })
            }
        }
    }

    /// The per-cluster-pair models, once every item is recorded.
    ///
    /// # Errors
    /// [`Error::MissingMeasurement`] naming the first item without parameters.
    pub fn finish(self) -> Result<LinkModels, Error> {
        let c = self.plan.coordinators.len();
        let mut models = vec![None; c * c];
        for (item, (m, p)) in self.plan.items.iter().zip(self.got).enumerate() {
            let p = p.ok_or(Error::MissingMeasurement {
                item,
                from: m.from,
                to: m.to,
            })?;
            if self.plan.links == Links::Symmetric {
                models[m.to * c + m.from] = Some(p.clone());
            }
            // directed intra: the second direction overwrites nothing, keep the first
            let slot = &mut models[m.from * c + m.to];
            if slot.is_none() || m.from != m.to {
                *slot = Some(p);
            }
        }
        Ok(LinkModels {
            clusters: c,
            models,
        })
    }
}

/// pLogP parameters per ordered pair of clusters; `(c, c)` is the intra-cluster model (absent
/// for a singleton cluster).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkModels {
    clusters: usize,
    models: Vec<Option<PLogP>>,
}

impl LinkModels {
    /// An empty set of models for `clusters` clusters, to fill with [`LinkModels::set`] when the
    /// parameters come from elsewhere than a [`MeasurementPlan`] (a saved campaign, a model).
    #[must_use]
    pub fn new(clusters: usize) -> Self {
        Self {
            clusters,
            models: vec![None; clusters * clusters],
        }
    }

    /// Sets the model of messages from cluster `from` to cluster `to`.
    ///
    /// # Errors
    /// [`Error::MissingModel`] naming the pair when a cluster index is out of range.
    pub fn set(&mut self, from: usize, to: usize, params: PLogP) -> Result<(), Error> {
        if from >= self.clusters || to >= self.clusters {
            return Err(Error::MissingModel { from, to });
        }
        self.models[from * self.clusters + to] = Some(params);
        Ok(())
    }

    /// Number of clusters.
    #[must_use]
    pub fn clusters(&self) -> usize {
        self.clusters
    }

    /// The model of messages from cluster `from` to cluster `to`.
    #[must_use]
    pub fn get(&self, from: usize, to: usize) -> Option<&PLogP> {
        if from < self.clusters && to < self.clusters {
            self.models[from * self.clusters + to].as_ref()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClusterParams, fixtures, logical_clusters};

    fn lin(l: f64) -> PLogP {
        PLogP::linear(l, 1.0, 0.5).unwrap()
    }

    #[test]
    fn counts_follow_the_formulas() {
        for c in 1..=10_usize {
            let raw: Vec<usize> = (0..2 * c).map(|i| i / 2).collect();
            let p = Partition::from_raw_labels(&raw);
            assert_eq!(
                MeasurementPlan::new(&p, Links::Symmetric).len(),
                c * (c + 1) / 2
            );
            assert_eq!(MeasurementPlan::new(&p, Links::Directed).len(), c * (c + 1));
        }
        // singletons have no intra item
        let p = Partition::from_raw_labels(&[0, 1, 1]);
        let plan = MeasurementPlan::new(&p, Links::Symmetric);
        assert_eq!(plan.len(), 2);
        assert_eq!(plan.coordinators(), &[0, 1]);
        assert!(MeasurementPlan::new(&Partition::default(), Links::Directed).is_empty());
    }

    #[test]
    fn fixture_needs_21_measures_instead_of_190() {
        let f = fixtures::idpot(Some(11));
        let c = logical_clusters(&f.matrix, &ClusterParams::default()).unwrap();
        let plan = MeasurementPlan::new(&c, Links::Symmetric);
        assert_eq!(plan.len(), 21);
        assert_eq!(plan.coordinators(), &[0, 5, 9, 12, 15, 18]);
        assert_eq!(
            plan.items()[0],
            Measurement {
                from: 0,
                to: 0,
                sender: 0,
                receiver: 1
            }
        );
        assert_eq!(MeasurementPlan::new(&c, Links::Directed).len(), 42);
        assert_eq!(f.matrix.len() * (f.matrix.len() - 1) / 2, 190);
    }

    #[test]
    fn results_round_trip_and_errors() {
        let p = Partition::from_raw_labels(&[0, 0, 1]);
        let plan = MeasurementPlan::new(&p, Links::Symmetric);
        // items: intra 0 (0->1), inter (0->1) between coordinators 0 and 2
        let mut r = plan.collect();
        assert_eq!(
            r.record(5, lin(1.0)),
            Err(Error::NoSuchItem { item: 5, len: 2 })
        );
        r.record_pair(0, 1, lin(1.0)).unwrap();
        assert_eq!(
            r.record(0, lin(1.0)),
            Err(Error::DuplicateMeasurement {
                item: 0,
                from: 0,
                to: 0
            })
        );
        assert_eq!(
            r.record_pair(2, 1, lin(1.0)),
            Err(Error::NotInPlan {
                from: 1,
                to: 0,
                sender: 2,
                receiver: 1
            })
        );
        assert_eq!(
            r.clone().finish(),
            Err(Error::MissingMeasurement {
                item: 1,
                from: 0,
                to: 1
            })
        );
        r.record_pair(0, 2, lin(7.0)).unwrap();
        let m = r.finish().unwrap();
        assert_eq!(m.clusters(), 2);
        assert_eq!(m.get(0, 0), Some(&lin(1.0)));
        assert_eq!(m.get(1, 0), Some(&lin(7.0)));
        assert_eq!(m.get(0, 1), Some(&lin(7.0)));
        assert_eq!(m.get(1, 1), None);
        assert_eq!(m.get(2, 0), None);
    }

    #[test]
    fn directed_results_keep_directions() {
        let p = Partition::from_raw_labels(&[0, 1]);
        let plan = MeasurementPlan::new(&p, Links::Directed);
        assert_eq!(plan.len(), 2);
        let mut r = plan.collect();
        r.record_pair(0, 1, lin(1.0)).unwrap();
        r.record_pair(1, 0, lin(2.0)).unwrap();
        let m = r.finish().unwrap();
        assert_eq!(m.get(0, 1), Some(&lin(1.0)));
        assert_eq!(m.get(1, 0), Some(&lin(2.0)));
    }
}
