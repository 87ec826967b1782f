//! The experiments `reproduce` knows, one module each.
//!
//! To add one: write a module here with a unit struct implementing [`Experiment`], and add it
//! to [`all`] (the order there is the order of a full run).

use crate::Experiment;

pub mod dag;
pub mod dag_calibrate;
pub mod dag_claims;
pub mod dag_main;
pub mod dag_plots;
pub mod dag_runs;
pub mod dag_sensitivity;
pub mod dag_stats;
pub mod dag_trace;
pub mod fabric;
pub mod mcast;
pub mod mcast_churn;
pub mod mpi_tuning;
pub mod pmix;
pub mod pmix_shm;
pub mod rdma;
pub mod topo;
pub mod views;

/// Every experiment, in the order a full run takes them.
#[must_use]
pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(fabric::FabricSizes),
        Box::new(mcast::Mcast),
        Box::new(mcast::McastColors),
        Box::new(mcast::McastRecolor),
        Box::new(mcast_churn::McastChurn),
        Box::new(topo::TopoClusters),
        Box::new(topo::TopoBcast),
        Box::new(mpi_tuning::MpiTuning),
        Box::new(rdma::Rdma),
        Box::new(dag::DagSchedulers),
        Box::new(dag::DagLoad),
        Box::new(dag::DagLp),
        Box::new(dag_calibrate::DagCalibrate),
        Box::new(dag_sensitivity::DagSensitivity),
        Box::new(dag_trace::DagTrace),
        Box::new(pmix::PmixCodec),
        Box::new(pmix::PmixLock),
        Box::new(pmix::PmixFence),
        Box::new(pmix_shm::PmixShm),
    ]
}

/// The experiment called `name`, if there is one.
#[must_use]
pub fn find(name: &str) -> Option<Box<dyn Experiment>> {
    all().into_iter().find(|e| e.name() == name)
}
