//! # hopsim-core
//!
//! A fast, deterministic, packet-level simulator of datacenter networks for studying
//! in-network congestion management: per-hop flow control, load balancing and packet
//! deflection, together with host congestion control.
//!
//! The layers, bottom up:
//!
//! - **engine** — simulated time ([`time`]: integer picoseconds, rates in bits/s), the
//!   event queue ordered by `(time, insertion sequence)`, and named random streams derived
//!   from the scenario seed. Same scenario + seed ⇒ identical results.
//! - **fabric** — the [`topology`] (hosts, switches, full-duplex links; leaf-spine,
//!   fat-tree, dumbbell builders and the HPCC simulator's file format) with shortest-path
//!   ECMP routing; [`port`]s that serialize packets onto links with propagation delay.
//! - **switches** — [`switch`]: an output-queued shared-buffer switch with ingress (PFC)
//!   and egress admission, multiple data queues per port with per-queue pause, strict
//!   priority for control frames, ECN (RED) marking and INT.
//! - **endpoints** — [`host`]: a NIC scheduling among flows, a RoCEv2-like transport
//!   (ACK, NACK, go-back-N, timeout, optional window) and congestion control (DCQCN).
//! - **policies** — flow control, load balancing, admission and congestion control are
//!   chosen per scenario; each is a small enum with one variant per mechanism.
//! - **workloads** — [`workload`]: flow lists, HPCC flow files, Poisson arrivals from
//!   published size CDFs, incast.
//! - **metrics** — [`metrics`]: per-flow records with ideal FCT and slowdown, per-port
//!   counters, PFC events, conservation counters.
//!
//! [`scenario::Scenario`] describes a run; [`Simulator`] runs it.

// One audited exception: `prefetch` issues cache prefetch hints.
#![deny(unsafe_code)]

pub mod engine;
pub mod frames;
pub mod host;
pub mod ids;
pub mod metrics;
pub mod observe;
pub mod packet;
pub mod port;
mod prefetch;
pub mod queues;
pub mod scenario;
pub mod sim;
pub mod store;
pub mod switch;
pub mod time;
pub mod topology;
pub mod workload;

pub use scenario::{Scenario, ScenarioError};
pub use sim::Simulator;
