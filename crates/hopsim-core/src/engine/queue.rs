//! 4-ary-heap event queue keyed by `(time, insertion sequence)`.

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
    FlowTimer { flow: FlowId, kind: TimerKind, generation: u32 },
}

/// A pending event with its ordering key: `time` in the high 64 bits, insertion sequence
/// in the low 64 bits, so one `u128` comparison orders by (time, seq).
#[derive(Clone, Copy)]
struct Entry {
    key: u128,
    event: Event,
}

impl Entry {
    #[inline]
    fn time(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

/// The pending-event set: an implicit 4-ary min-heap on `(time, seq)`.
///
/// A 4-ary heap halves the depth of a binary heap and keeps a node's children in two
/// cache lines; the profile of the fat-tree benchmark showed `BinaryHeap::pop` as the top
/// cost, and the 4-ary layout cut it (see BENCHMARKS.md).
#[derive(Default)]
pub struct EventQueue {
    heap: Vec<Entry>,
    next_seq: u64,
}

const ARITY: usize = 4;

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `event` at `time`. Equal times fire in scheduling order.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let key = ((time.0 as u128) << 64) | self.next_seq as u128;
        self.next_seq += 1;
        // Sift up.
        let mut i = self.heap.len();
        self.heap.push(Entry { key, event });
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key <= key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = Entry { key, event };
    }

    /// Remove and return the earliest event if it is due at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<(SimTime, Event)> {
        match self.heap.first() {
            Some(e) if e.time() <= limit => self.pop(),
            _ => None,
        }
    }

    /// Remove the earliest pending event.
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().expect("non-empty");
        let n = self.heap.len();
        if n > 0 {
            // Sift the former last entry down from the root.
            let mut i = 0;
            loop {
                let first = i * ARITY + 1;
                if first >= n {
                    break;
                }
                let end = (first + ARITY).min(n);
                let mut best = first;
                let mut best_key = self.heap[first].key;
                for c in first + 1..end {
                    let k = self.heap[c].key;
                    if k < best_key {
                        best = c;
                        best_key = k;
                    }
                }
                if last.key <= best_key {
                    break;
                }
                self.heap[i] = self.heap[best];
                i = best;
            }
            self.heap[i] = last;
        }
        Some((top.time(), top.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(|e| e.time())
    }

    /// The earliest pending event.
    pub fn peek(&self) -> Option<(SimTime, Event)> {
        self.heap.first().map(|e| (e.time(), e.event))
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
