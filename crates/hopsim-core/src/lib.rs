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
//!   from the scenario seed, one per (component, switch). Same scenario + seed ⇒ identical
//!   results.
//! - **packets** — the [`store`] of 64-byte packet slots, every link and queue a list
//!   through them; control-frame payloads ([`frames`]), extension header fields ([`ext`])
//!   and INT stacks beside the slots.
//! - **fabric** — the [`topology`] (hosts, switches, full-duplex links; leaf-spine,
//!   fat-tree, dumbbell builders and the HPCC simulator's file format) with shortest-path
//!   routing; [`port`]s that serialize packets onto links with propagation delay, each with
//!   its data [`queues`] and their scheduler.
//! - **switches** — [`switch`]: an output-queued shared-buffer switch as a pipeline of
//!   policies, each an enum with one variant per mechanism and its own state:
//!
//!   ```text
//!   arrive -> load_balance -> (control class -> control queue)
//!          -> classify -> admit / deflect -> enqueue -> (frames upstream)
//!   dequeue -> flow control (frames upstream) -> ECN, INT -> transmit
//!   ```
//!
//!   [`switch::LoadBalancer`] (ECMP, DRILL), [`switch::FlowControl`] (PFC, per-flow, none),
//!   [`switch::Admission`] (dynamic threshold, static per port; DIBS deflection).
//! - **endpoints** — [`host`]: the NIC scheduler, the RoCEv2-like sender (ACK, NACK,
//!   go-back-N or IRN, timeouts, optional window) and receiver, and congestion control
//!   behind the [`host::CongestionControl`] trait (DCQCN, HPCC, TIMELY, DCTCP).
//! - **workloads** — [`workload`]: flow lists, HPCC flow files, Poisson arrivals from
//!   published size CDFs, incast, queries, permutations, MoE all-to-all.
//! - **metrics** — [`metrics`] and [`observe`]: per-flow records with ideal FCT and
//!   slowdown, per-port counters, control-frame events, drops by cause, queuing delay,
//!   samplers and traces.
//!
//! A new mechanism is one file behind its family's enum plus a test (`docs/extending.md`).
//!
//! [`scenario::Scenario`] describes a run; [`Simulator`] runs it.

// One audited exception: `prefetch` issues cache prefetch hints.
#![deny(unsafe_code)]

pub mod engine;
pub mod fabric;
pub mod host;
pub mod ids;
pub mod metrics;
pub mod observe;
pub mod scenario;
pub mod sim;
pub mod switch;
pub mod tables;
pub mod time;
pub mod topology;
pub mod workload;

pub use scenario::{Scenario, ScenarioError};
pub use sim::Simulator;
