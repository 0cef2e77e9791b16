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
        PolicyTimers { generation: [vec![0; ports], vec![0; 1]], shaper_due: vec![SimTime::NEVER; ports] }
    }

    #[inline]
    pub fn is_current(&self, kind: PolicyTimerKind, target: u32, generation: u32) -> bool {
        self.generation[kind as usize][target as usize] == generation
    }

    /// Make every pending timer of (`kind`, `target`) stale.
    pub fn cancel(&mut self, kind: PolicyTimerKind, target: u32) {
        self.generation[kind as usize][target as usize] += 1;
    }
}

impl super::Fabric {
    /// Fire a (`kind`, `target`) timer at `at`.
    pub fn schedule_policy_timer(&mut self, kind: PolicyTimerKind, target: u32, at: SimTime) {
        if kind == PolicyTimerKind::Shaper {
            // One pending wake-up per port, at the earliest time a shaped queue is due.
            let due = &mut self.timers.shaper_due[target as usize];
            if *due <= at {
                return;
            }
            *due = at;
            self.timers.cancel(kind, target);
        }
        let generation = self.timers.generation[kind as usize][target as usize];
        self.events.schedule(at, Event::PolicyTimer { kind, target, generation });
    }
}
