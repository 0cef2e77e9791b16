//! # hopsim-core
//!
//! A fast, deterministic, packet-level simulator of datacenter networks for studying
//! in-network congestion management: per-hop flow control, load balancing and packet
//! deflection, together with host congestion control.
//!
//! The floor plan: a **fabric** that every component shares, **components** that receive
//! it as a context, and one **simulator** that owns them and runs the event loop.
//!
//! - [`engine`] and [`time`] — simulated time (integer picoseconds, rates in bits/s), the
//!   event queue ordered by `(time, insertion sequence)`, and named random streams derived
//!   from the scenario seed, one per (component, switch). Same scenario + seed ⇒ identical
//!   results.
//! - [`fabric`] — the clock, the events, the packet store (64-byte slots; every link and
//!   queue a list through them), ports with their data queues and scheduler, the
//!   [`topology`] and its routing, extension header fields ([`fabric::headers`]: registered
//!   by the mechanisms that carry them), control-frame plumbing ([`fabric::frames`]), INT
//!   stacks, policy timers, counters and observers.
//! - [`switch`] — the switches: an output-queued shared-buffer switch as a pipeline of
//!   policy families, each a trait and one registration list: load balancing (ECMP, DRILL,
//!   LetFlow), flow control (PFC, per-flow, BFC, Pyrrha, none), admission and deflection
//!   (drop-tail, DIBS, naive DIBS, Simple and Preemptive Deflection, Vertigo, AIFO) and
//!   switch signals (INT, Bolt's SRC / PRU / SM).
//! - [`host`] — the hosts: the NIC scheduler, transports behind one trait (RoCE with
//!   go-back-N or IRN, TCP with NewReno, SACK and Vertigo's ordering layer) and congestion
//!   control behind another (DCQCN, HPCC, TIMELY, DCTCP, Reno, Swift, Bolt).
//! - [`workload`] — flow lists, HPCC flow files, Poisson arrivals from published size
//!   CDFs, incast, queries, permutations, MoE all-to-all, trace replay.
//! - [`metrics`], [`observe`] and [`tables`] — per-flow records with ideal FCT and
//!   slowdown, per-port counters, control-frame events, drops by cause, queuing delay,
//!   samplers and traces; every output table declared once, with its columns' types, units
//!   and meanings.
//! - [`scenario`] — what a run is: a serde description with field-path errors, resolved
//!   by each family's registry (`hopsim schema` prints its JSON Schema).
//! - [`sim`] — the [`Simulator`]: builds the fabric and components from a scenario and
//!   dispatches events to them. Nothing outside `sim/` imports it (`tests/test_structure.py`).
//!
//! A new mechanism is its own file plus one registration line in its family
//! (`docs/extending.md`, with LetFlow as the worked example).
//!
//! [`scenario::Scenario`] describes a run; [`Simulator`] runs it.

// Four audited exceptions: `fabric::prefetch` issues cache prefetch hints,
// `fabric::huge_pages` asks the kernel for huge pages, `fabric::store` reaches a packet's
// slot without a bounds check (its `check` says why every slot number is in range) and
// `engine::queue` a ring slot, bitmap word and block likewise (`block_at` and the
// accessors beside `grow_pool` say why).
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
