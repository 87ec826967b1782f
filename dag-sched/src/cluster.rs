//! The network the jobs run on: machines, and the links ("resources") a transfer between two
//! of them crosses, each with a capacity.
//!
//! Two constructions:
//!
//! - [`Cluster::uniform`] and [`Cluster::new`]: the paper's model (§4.1), machines joined by a
//!   non-blocking core (the "big switch"). A transfer `src → dst` crosses two resources: the
//!   egress of `src` (its up-link) and the ingress of `dst` (its down-link).
//! - [`Cluster::from_fabric`]: any [`Fabric`]: the machines are its terminals (in
//!   [`Fabric::terminals`] order), every direction of every link is a resource with the link's
//!   bandwidth, and a transfer crosses the directed links of its min-hop path
//!   ([`fabric_model::paths::min_hop_path`]). The big switch is
//!   `fabric_model::generators::single_switch` (feature `generators` of fabric-model):
//!   `Cluster::from_fabric(&single_switch(n, r)?, …)`
//!   and `Cluster::uniform(n, r.bandwidth())` give the simulator and the LP the same
//!   resources, numbered alike, so they give identical results.
//!
//! The rate allocations (max-min fairness, strict priority, MADD) and the LP's capacity
//! constraints run over the resources a flow crosses.

use fabric_model::{BitsPerSec, Fabric, HopTable, paths};

use crate::Error;

fabric_model::dense_id! {
    /// A machine of the cluster (dense index, `0 .. cluster.len()`).
    pub struct MachineId(u32);
    display = "m{}";
}

/// The capacity of one machine's up-link (egress, sending) and down-link (ingress, receiving).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Machine {
    egress: f64,
    ingress: f64,
}

impl Machine {
    /// A machine whose up-link carries `egress` and whose down-link carries `ingress`.
    #[must_use]
    pub fn new(egress: BitsPerSec, ingress: BitsPerSec) -> Self {
        Self {
            egress: egress.as_f64(),
            ingress: ingress.as_f64(),
        }
    }

    /// Capacity in bits/s as the models compute with it (a JSON instance may give a fractional
    /// one).
    pub(crate) fn from_f64(egress: f64, ingress: f64) -> Self {
        Self { egress, ingress }
    }

    /// The up-link (sending) capacity, to the nearest bit/s.
    #[must_use]
    pub fn egress(&self) -> BitsPerSec {
        BitsPerSec::from_f64(self.egress).unwrap_or(BitsPerSec::ZERO)
    }

    /// The down-link (receiving) capacity, to the nearest bit/s.
    #[must_use]
    pub fn ingress(&self) -> BitsPerSec {
        BitsPerSec::from_f64(self.ingress).unwrap_or(BitsPerSec::ZERO)
    }

    /// Down-link capacity, bits/s.
    pub(crate) fn ingress_f64(&self) -> f64 {
        self.ingress
    }
}

/// The routes of a fabric cluster: per ordered machine pair, the resources crossed.
#[derive(Debug, Clone, PartialEq)]
struct Routes {
    /// `offsets[src * n + dst] .. offsets[src * n + dst + 1]` in `hops`.
    offsets: Vec<u32>,
    hops: Vec<u32>,
}

/// Machines and the resources between them (see the [module docs](self)).
///
/// Resources are numbered densely: machine `m`'s up-link is `m`, its down-link `len() + m`,
/// and a fabric's other directed links follow from `2 × len()` on.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    machines: Vec<Machine>,
    /// Capacity of every resource, bits/s.
    capacity: Vec<f64>,
    /// `None`: the big switch (every route is `[src, len() + dst]`).
    routes: Option<Routes>,
}

impl Cluster {
    /// Machines joined by a non-blocking core.
    ///
    /// # Errors
    /// [`Error::ZeroCapacity`] when a capacity is zero.
    pub fn new(machines: Vec<Machine>) -> Result<Self, Error> {
        for (i, m) in machines.iter().enumerate() {
            let machine = MachineId(u32::try_from(i).unwrap_or(u32::MAX));
            for (direction, capacity) in [("egress", m.egress), ("ingress", m.ingress)] {
                if !(capacity.is_finite() && capacity > 0.0) {
                    return Err(Error::ZeroCapacity {
                        machine,
                        direction,
                        capacity,
                    });
                }
            }
        }
        let capacity = machines
            .iter()
            .map(|m| m.egress)
            .chain(machines.iter().map(|m| m.ingress))
            .collect();
        Ok(Self {
            machines,
            capacity,
            routes: None,
        })
    }

    /// `n` machines of capacity `capacity` in each direction, joined by a non-blocking core.
    ///
    /// # Errors
    /// [`Error::ZeroCapacity`] when `capacity` is zero (and `n > 0`).
    pub fn uniform(n: usize, capacity: BitsPerSec) -> Result<Self, Error> {
        Self::new(vec![Machine::new(capacity, capacity); n])
    }

    /// `n` machines of `capacity` bits/s (a JSON instance's capacity may be fractional).
    #[cfg(any(test, feature = "json"))]
    pub(crate) fn uniform_f64(n: usize, capacity: f64) -> Result<Self, Error> {
        Self::new(vec![Machine::from_f64(capacity, capacity); n])
    }

    /// The terminals of `fabric` as machines, every direction of every link a resource of the
    /// link's bandwidth ([`fabric_model::LinkRate::bandwidth`]), and every transfer routed on
    /// its min-hop path ([`paths::min_hop_path`]). Machine `i` is `fabric.terminals()[i]`; its
    /// egress and ingress are the link to its switch.
    ///
    /// # Errors
    /// [`Error::Fabric`] when `hops` is not `fabric`'s hop table or two terminals cannot
    /// reach each other, [`Error::NoSwitch`] for a terminal wired to no switch;
    /// [`Error::ZeroCapacity`] for a
    /// terminal link of zero bandwidth; [`Error::InvalidParameter`] for a fabric with more
    /// routed hops than `u32` counts.
    ///
    /// # Complexity
    /// O(T² · h · radix) time and O(T² · h) space for T terminals and paths of h hops: every
    /// route is computed once, here.
    ///
    /// ```
    /// use dag_sched::Cluster;
    /// use fabric_model::{HopTable, generators};
    ///
    /// let fabric = generators::fat_tree(4)?;
    /// let cluster = Cluster::from_fabric(&fabric, &HopTable::new(&fabric)?)?;
    /// assert_eq!(cluster.len(), 16);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_fabric(fabric: &Fabric, hops: &HopTable) -> Result<Self, Error> {
        let terminals = fabric.terminals();
        let n = terminals.len();
        // The directed link each terminal sends on (its anchor to its switch, as the paths use).
        let mut resource = vec![u32::MAX; 2 * fabric.link_count()];
        let mut machines = Vec::with_capacity(n);
        let mut capacity = vec![0.0; 2 * n];
        let too_many = || Error::InvalidParameter {
            name: "fabric",
            value: fabric.link_count() as f64,
            reason: "has more links or routed hops than u32 counts",
        };
        for (i, &t) in terminals.iter().enumerate() {
            let nb = fabric
                .neighbors(t)
                .find(|nb| fabric.is_switch(nb.peer))
                .ok_or(Error::NoSwitch { terminal: t.get() })?;
            let first = fabric.link(nb.link).ends[0].0 == t;
            let up = paths::DirectedLink::new(nb.link, first);
            let down = paths::DirectedLink::new(nb.link, !first);
            let bw = fabric.link(nb.link).rate.bandwidth().as_f64();
            let m = u32::try_from(i).map_err(|_| too_many())?;
            let nm = u32::try_from(n + i).map_err(|_| too_many())?;
            resource[up.index()] = m;
            resource[down.index()] = nm;
            capacity[i] = bw;
            capacity[n + i] = bw;
            machines.push(Machine::from_f64(bw, bw));
        }
        for (d, r) in resource.iter_mut().enumerate() {
            if *r == u32::MAX {
                *r = u32::try_from(capacity.len()).map_err(|_| too_many())?;
                let link = fabric_model::LinkId::new(u32::try_from(d / 2).map_err(|_| too_many())?);
                capacity.push(fabric.link(link).rate.bandwidth().as_f64());
            }
        }
        let mut offsets = Vec::with_capacity(n * n + 1);
        let mut route_hops = Vec::new();
        let mut path = Vec::new();
        offsets.push(0);
        for &a in terminals {
            for &b in terminals {
                path.clear();
                paths::min_hop_path(fabric, hops, a, b, &mut path)?;
                route_hops.extend(path.iter().map(|d| resource[d.index()]));
                offsets.push(u32::try_from(route_hops.len()).map_err(|_| too_many())?);
            }
        }
        let mut cluster = Self::new(machines)?;
        cluster.capacity = capacity;
        cluster.routes = Some(Routes {
            offsets,
            hops: route_hops,
        });
        Ok(cluster)
    }

    /// Number of machines.
    #[must_use]
    pub fn len(&self) -> usize {
        self.machines.len()
    }

    /// Whether the cluster has no machine.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.machines.is_empty()
    }

    /// The machine `id`, if it exists.
    #[must_use]
    pub fn machine(&self, id: MachineId) -> Option<&Machine> {
        self.machines.get(id.index())
    }

    /// All machines, by id.
    #[must_use]
    pub fn machines(&self) -> &[Machine] {
        &self.machines
    }

    /// Whether a transfer crosses only its sender's up-link and its receiver's down-link
    /// (built by [`Cluster::new`] or [`Cluster::uniform`]).
    #[must_use]
    pub fn is_big_switch(&self) -> bool {
        self.routes.is_none()
    }

    /// The rate at which a transfer `src → dst` can run alone: the smallest capacity on its
    /// route (on the big switch `min(egress(src), ingress(dst))`), bits/s. 0 for unknown
    /// machines.
    #[must_use]
    pub fn path_capacity(&self, src: MachineId, dst: MachineId) -> f64 {
        if self.machine(src).is_none() || self.machine(dst).is_none() {
            return 0.0;
        }
        let mut path = Vec::new();
        self.route(src.index(), dst.index(), &mut path);
        path.iter()
            .map(|&r| self.capacity[r as usize])
            .fold(f64::INFINITY, f64::min)
    }

    /// Number of resources (directed links).
    #[cfg(test)]
    pub(crate) fn resource_count(&self) -> usize {
        self.capacity.len()
    }

    /// Capacity of every resource, bits/s, by resource number.
    pub(crate) fn capacities(&self) -> &[f64] {
        &self.capacity
    }

    /// Appends the resources of the route `src → dst` (machine indices) to `out`.
    pub(crate) fn route<E: Extend<u32>>(&self, src: usize, dst: usize, out: &mut E) {
        let n = self.machines.len();
        match &self.routes {
            None => out.extend([src as u32, (n + dst) as u32]),
            Some(r) => {
                let k = src * n + dst;
                let (a, b) = (r.offsets[k] as usize, r.offsets[k + 1] as usize);
                out.extend(r.hops[a..b].iter().copied());
            }
        }
    }

    /// The order key of resource `r` in the LP: machine ports in (machine, egress before
    /// ingress) order, then the other links.
    pub(crate) fn lp_key(&self, r: u32) -> u64 {
        let n = self.machines.len() as u64;
        let r = u64::from(r);
        if r < n {
            2 * r
        } else if r < 2 * n {
            2 * (r - n) + 1
        } else {
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabric_model::{LinkRate, generators};

    #[test]
    fn single_switch_has_the_big_switch_resources() {
        let f = generators::single_switch(5, LinkRate::EDR_4X).unwrap();
        let c = Cluster::from_fabric(&f, &HopTable::new(&f).unwrap()).unwrap();
        let u = Cluster::uniform(5, LinkRate::EDR_4X.bandwidth()).unwrap();
        assert_eq!(c.capacities(), u.capacities());
        assert_eq!(c.machines(), u.machines());
        for a in 0..5 {
            for b in 0..5 {
                if a != b {
                    let (mut x, mut y) = (Vec::new(), Vec::new());
                    c.route(a, b, &mut x);
                    u.route(a, b, &mut y);
                    assert_eq!(x, y);
                }
            }
        }
        assert!(!c.is_big_switch() && u.is_big_switch());
    }

    #[test]
    fn fat_tree_routes_cross_the_core() {
        let f = generators::fat_tree(4).unwrap();
        let hops = HopTable::new(&f).unwrap();
        let c = Cluster::from_fabric(&f, &hops).unwrap();
        assert_eq!(c.resource_count(), 2 * f.link_count());
        let mut p = Vec::new();
        c.route(0, 15, &mut p);
        // Up to the core and down: six links, the first the sender's up-link, the last the
        // receiver's down-link.
        assert_eq!(p.len(), 6);
        assert_eq!((p[0], p[5]), (0, 16 + 15));
        assert!(p[1..5].iter().all(|&r| r >= 32));
    }

    #[test]
    fn zero_capacity() {
        let err = Cluster::new(vec![
            Machine::new(BitsPerSec::new(1), BitsPerSec::new(1)),
            Machine::new(BitsPerSec::new(1), BitsPerSec::ZERO),
        ])
        .unwrap_err();
        assert_eq!(
            err,
            Error::ZeroCapacity {
                machine: MachineId(1),
                direction: "ingress",
                capacity: 0.0
            }
        );
        assert!(matches!(
            Cluster::uniform_f64(2, f64::NAN),
            Err(Error::ZeroCapacity {
                machine: MachineId(0),
                direction: "egress",
                ..
            })
        ));
    }
}
