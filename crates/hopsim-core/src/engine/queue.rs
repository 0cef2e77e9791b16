//! Binary-heap event queue keyed by `(time, insertion sequence)`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::ids::{FlowId, NodeId, PortId};
use crate::time::SimTime;

/// Host-side timers. Each flow keeps a generation number per timer kind; a fired timer
/// whose generation is stale is ignored, which is how timers are cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// DCQCN rate-decrease check (at most one decrease per interval).
    DcqcnDecrease,
    /// DCQCN rate-increase timer.
    DcqcnIncrease,
    /// Retransmission timeout.
    Rto,
}

/// A scheduled happening. Small and `Copy`: it names its target by id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The oldest packet in flight on the link leaving `port` finishes arriving (last bit
    /// received) at the peer port. Links deliver in FIFO order, so each link has at most
    /// one pending `Deliver` (htsim's one-event-per-busy-component rule): the event queue
    /// grows with busy links, not with packets in flight.
    Deliver { port: PortId },
    /// `port` finished serializing its current packet and may start the next one.
    TxDone { port: PortId },
    /// A host NIC should try to transmit (a rate limiter or window may have opened).
    NicWake { node: NodeId },
    /// The next flow of the workload starts (flows start in time order).
    FlowStart { flow: FlowId },
    /// A per-flow transport / congestion-control timer.
    FlowTimer {
        flow: FlowId,
        kind: TimerKind,
        generation: u32,
    },
}

#[derive(Clone, Copy)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// The pending-event set.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `event` at `time`. Equal times fire in scheduling order.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Remove and return the earliest event if it is due at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, Event)> {
        match self.heap.peek() {
            Some(e) if e.time <= limit => self.heap.pop().map(|e| (e.time, e.event)),
            _ => None,
        }
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// The earliest pending event.
    pub fn peek(&self) -> Option<(SimTime, Event)> {
        self.heap.peek().map(|e| (e.time, e.event))
    }

    /// Remove the earliest pending event.
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn wake(n: u32) -> Event {
        Event::NicWake { node: NodeId(n) }
    }

    #[test]
    fn equal_times_fire_in_insertion_order() {
        let mut q = EventQueue::new();
        for n in 0..100 {
            q.schedule(SimTime(5), wake(n));
        }
        q.schedule(SimTime(1), wake(1000));
        assert_eq!(q.pop_until(SimTime::NEVER).unwrap().1, wake(1000));
        for n in 0..100 {
            assert_eq!(q.pop_until(SimTime::NEVER).unwrap(), (SimTime(5), wake(n)));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn matches_a_sorted_shadow() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut q = EventQueue::new();
        let mut shadow = std::collections::BTreeMap::new();
        let mut seq = 0u64;
        for round in 0..2000 {
            if rng.gen_bool(0.6) {
                let t = rng.gen_range(0..50u64);
                q.schedule(SimTime(t), wake(round));
                shadow.insert((t, seq), wake(round));
                seq += 1;
            } else {
                let expect = shadow.pop_first().map(|((t, _), e)| (SimTime(t), e));
                assert_eq!(q.pop_until(SimTime::NEVER), expect);
            }
        }
    }
}
