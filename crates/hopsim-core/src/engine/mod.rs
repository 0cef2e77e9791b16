//! The discrete-event engine: a time-ordered event queue and named random streams.
//!
//! Ordering guarantee: events fire in increasing time; events at the same time fire by
//! their kind and the entity they act on ([`Event::order_key`]), never by when they were
//! scheduled. Together with per-component random streams this makes every run bit-for-bit
//! reproducible, and a run cut into partitions (the parallel engine) fire each
//! partition's events in the sequential run's order.

mod queue;
mod rng;

pub use queue::{Event, EventQueue, PolicyTimerKind, TieOrder, TimerKind};
pub use rng::{pick_below, rng_stream, stream_seed, RngStream};
