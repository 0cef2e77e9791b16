//! Timers of switch ports and policies, cancelled by generation: scheduling returns
//! nothing to keep; bumping the generation of a (kind, target) makes every timer of it
//! already in the event queue stale, and stale timers are skipped when popped.

use crate::engine::{Event, PolicyTimerKind};
use crate::time::SimTime;

/// Generation per (timer kind, target), and per port the time of the pending shaper wake-up.
#[derive(Clone, Debug)]
pub struct PolicyTimers {
    pub(crate) generation: [Vec<u32>; PolicyTimerKind::COUNT],
    /// Per port: when its pending shaper timer fires (`NEVER`: none pending).
    pub(crate) shaper_due: Vec<SimTime>,
}

impl PolicyTimers {
    /// Timers for `ports` ports (targets of port timers).
    pub fn new(ports: usize) -> PolicyTimers {
        PolicyTimers {
            generation: [vec![0; ports], Vec::new(), Vec::new()],
            shaper_due: vec![SimTime::NEVER; ports],
        }
    }

    #[inline]
    pub fn is_current(&self, kind: PolicyTimerKind, target: u32, generation: u32) -> bool {
        self.generation[kind as usize].get(target as usize).copied().unwrap_or(0) == generation
    }

    /// Make every pending timer of (`kind`, `target`) stale.
    pub fn cancel(&mut self, kind: PolicyTimerKind, target: u32) {
        *self.slot(kind, target) += 1;
    }

    /// The generation of (`kind`, `target`), its table grown to hold it.
    fn slot(&mut self, kind: PolicyTimerKind, target: u32) -> &mut u32 {
        let g = &mut self.generation[kind as usize];
        if g.len() <= target as usize {
            g.resize(target as usize + 1, 0);
        }
        &mut g[target as usize]
    }
}

/// A policy family's timers, as its hooks see them: set one for a target id of the
/// policy's own choosing, or cancel every pending one of a target.
pub struct Timers<'a> {
    events: &'a mut crate::engine::EventQueue,
    table: &'a mut PolicyTimers,
    kind: PolicyTimerKind,
}

impl<'a> Timers<'a> {
    pub fn new(
        events: &'a mut crate::engine::EventQueue,
        table: &'a mut PolicyTimers,
        kind: PolicyTimerKind,
    ) -> Self {
        Timers { events, table, kind }
    }

    /// Fire `target` at `at` (a timer of it already pending stays pending).
    pub fn set(&mut self, target: u32, at: SimTime) {
        let generation = *self.table.slot(self.kind, target);
        self.events.schedule(at, Event::PolicyTimer { kind: self.kind, target, generation });
    }

    /// Cancel every pending timer of `target`.
    pub fn cancel(&mut self, target: u32) {
        self.table.cancel(self.kind, target);
    }

    /// The tie key of the event being handled ([`EventQueue::fired_key`]): with the time,
    /// where it stands in the run's firing order, which orders what the partitions of a
    /// parallel run logged.
    ///
    /// [`EventQueue::fired_key`]: crate::engine::EventQueue::fired_key
    pub fn fired_key(&self) -> u64 {
        self.events.fired_key()
    }
}

impl super::Fabric {
    /// Wake `port` at `at`, when a rate-shaped queue of it may send again (one pending
    /// wake-up per port, at the earliest time asked).
    pub fn schedule_shaper(&mut self, port: crate::ids::PortId, at: SimTime) {
        // One pending wake-up per port, at the earliest time a shaped queue is due.
        let (kind, target) = (PolicyTimerKind::Shaper, port.0);
        let due = &mut self.timers.shaper_due[target as usize];
        if *due <= at {
            return;
        }
        *due = at;
        self.timers.cancel(kind, target);
        let generation = self.timers.generation[kind as usize][target as usize];
        self.events.schedule(at, Event::PolicyTimer { kind, target, generation });
    }
}
