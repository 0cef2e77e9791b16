//! The discrete-event engine: a time-ordered event queue and named random streams.
//!
//! Ordering guarantee: events fire in increasing time; events at the same time fire in
//! the order they were scheduled (FIFO by a global insertion sequence number). Together
//! with per-component random streams this makes every run bit-for-bit reproducible.

mod queue;
mod rng;

pub use queue::{Event, EventQueue, PolicyTimerKind, TimerKind};
pub use rng::{pick_below, rng_stream, stream_seed, RngStream};
