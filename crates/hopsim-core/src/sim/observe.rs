//! The simulator side of `observe`: the periodic queue sampler and result accessors.

use crate::engine::Event;
use crate::metrics::SwitchRecord;
use crate::observe::{
    BufferSample, DelayBucket, DelayStats, HopTier, PacketRecord, QueueSample, ThroughputBin,
};
use crate::time::Delta;

use super::Simulator;

impl Simulator {
    /// Snapshot every switch's non-empty egress queues and shared buffer; keep sampling
    /// while flows remain or packets are in the network.
    pub(super) fn on_queue_sample(&mut self) {
        let now = self.fab.now;
        let Some(sampler) = &mut self.fab.obs.queues else { return };
        for s in &self.switches.nodes {
            if s.mmu.used_bytes > 0 {
                sampler.buffers.push(BufferSample { time: now, node: s.node, bytes: s.mmu.used_bytes });
            }
            for id in self.fab.topo.ports_of(s.node) {
                let p = &self.fab.ports[id as usize];
                if p.backlog_bytes() == 0 {
                    continue;
                }
                let port = crate::ids::PortId(id);
                if sampler.per_queue {
                    for (q, bytes) in p.queues.bytes_per_queue().enumerate() {
                        if bytes > 0 {
                            sampler.queues.push(QueueSample {
                                time: now,
                                port,
                                queue: Some(q as u16),
                                bytes,
                            });
                        }
                    }
                } else {
                    sampler.queues.push(QueueSample {
                        time: now,
                        port,
                        queue: None,
                        bytes: p.backlog_bytes(),
                    });
                }
            }
        }
        let interval: Delta = sampler.interval;
        if self.fab.counters.flows_finished < self.hosts.core.flows.len() as u64 || self.fab.store.live() > 0
        {
            self.fab.events.schedule(now + interval, Event::QueueSample);
        }
    }

    /// `[output.queues]` samples of egress queues (non-empty only), in time order.
    pub fn queue_samples(&self) -> &[QueueSample] {
        self.fab.obs.queues.as_ref().map_or(&[], |q| &q.queues)
    }

    /// `[output.queues]` samples of switch shared buffers (non-empty only).
    pub fn buffer_samples(&self) -> &[BufferSample] {
        self.fab.obs.queues.as_ref().map_or(&[], |q| &q.buffers)
    }

    /// The sampling interval of `[output.queues]`, if on.
    pub fn queue_sample_interval(&self) -> Option<Delta> {
        self.fab.obs.queues.as_ref().map(|q| q.interval)
    }

    /// `[output.throughput]` bins with data, by time then flow.
    pub fn throughput_bins(&self) -> Vec<ThroughputBin> {
        self.fab.obs.throughput.as_ref().map_or(Vec::new(), |t| t.bins())
    }

    /// The bin width of `[output.throughput]`, if on.
    pub fn throughput_interval(&self) -> Option<Delta> {
        self.fab.obs.throughput.as_ref().map(|t| t.interval)
    }

    /// `[output.packet_trace]` records, in event order.
    pub fn packet_records(&self) -> &[PacketRecord] {
        self.fab.obs.packet_trace.as_ref().map_or(&[], |t| &t.records)
    }

    /// Queuing-delay histogram buckets per hop tier (non-empty only).
    pub fn queue_delay_buckets(&self) -> Vec<DelayBucket> {
        self.fab.obs.queue_delay.buckets()
    }

    /// Exact queuing-delay count, mean and max per hop tier.
    pub fn queue_delay_stats(&self) -> Vec<DelayStats> {
        self.fab.obs.queue_delay.stats()
    }

    /// The node a port (global id) belongs to.
    pub fn port_node(&self, port: crate::ids::PortId) -> crate::ids::NodeId {
        self.fab.ports[port.idx()].node
    }

    /// Hop tier of a port (global id).
    pub fn hop_tier(&self, port: crate::ids::PortId) -> HopTier {
        self.fab.obs.hop_tier[port.idx()]
    }

    /// One record per switch, in node order.
    pub fn switch_records(&self) -> Vec<SwitchRecord> {
        self.switches
            .nodes
            .iter()
            .map(|s| SwitchRecord {
                node: s.node.0,
                tier: self.fab.topo.tiers[s.node.idx()].name(),
                max_buffer_bytes: s.mmu.peak_bytes,
            })
            .collect()
    }
}
