//! The run's output tables, filled column by column as `crate::tables` declares them.

use super::Simulator;
use crate::ids::PortId;
use crate::tables::{self, FieldType, RecordBuilder, Table, TableBuilder};
use crate::time::SimTime;

fn ns(t: SimTime) -> f64 {
    t.as_ns_f64()
}

impl Simulator {
    /// The output table `name` (see [`tables::CATALOG`]); `None` for a name not declared.
    pub fn table(&self, name: &str) -> Option<Table> {
        let decl = tables::decl(name)?;
        let b = TableBuilder::new(decl);
        Some(
            match name {
                "flows" => self.flows_table(b),
                "ports" => self.ports_table(b),
                "pfc_events" => self.pfc_table(b),
                "rates" => self.rates_table(b),
                "switches" => self.switches_table(b),
                "queue_delay" => self.queue_delay_table(b),
                "queues" => self.queues_table(b),
                "buffers" => self.buffers_table(b),
                "throughput" => self.throughput_table(b),
                "packets" => self.packets_table(b),
                "control_frames" => self.control_frames_table(b),
                "iq_usage" => self.iq_usage_table(b),
                "congestion_trees" => self.congestion_trees_table(b),
                "deadlocks" => self.deadlocks_table(b),
                _ => unreachable!("table {name} is declared but not filled"),
            }
            .finish(),
        )
    }

    /// The run summary, field by field as [`tables::SUMMARY`] declares it.
    pub fn summary_record(&self) -> serde_json::Map<String, serde_json::Value> {
        let s = self.summary();
        let (lb, fc, deflection) = self.policy_names();
        let d = &s.drops;
        let delay: serde_json::Map<String, serde_json::Value> = self
            .queue_delay_stats()
            .iter()
            .map(|st| {
                let v =
                    serde_json::json!({"packets": st.packets, "mean_ns": st.mean_ns, "max_ns": st.max_ns});
                (st.tier.name().to_string(), v)
            })
            .collect();
        RecordBuilder::new(tables::SUMMARY)
            .int("seed", s.seed)
            .int("events", s.events)
            .float("sim_time_ns", ns(s.sim_time))
            .int("flows_total", s.flows_total)
            .int("flows_finished", s.flows_finished)
            .int("packet_hops", s.packet_hops)
            .int("data_packets_sent", s.data_packets_sent)
            .int("data_packets_delivered", s.data_packets_delivered)
            .int("drops", d.total())
            .int("drops_buffer_full", d.buffer_full)
            .int("drops_headroom_overflow", d.headroom_overflow)
            .int("drops_egress_admission", d.egress_admission)
            .int("drops_hop_limit", d.hop_limit)
            .int("drops_rank_admission", d.rank_admission)
            .int("drops_link_down", d.link_down)
            .int("drops_no_route", d.no_route)
            .int("control_drops", s.control_drops)
            .int("deflections", s.deflections)
            .int("pfc_pause_frames", s.pfc_pause_frames)
            .int("pfc_resume_frames", s.pfc_resume_frames)
            .counts("control_frames_sent", s.control_frames.iter().map(|c| (c.kind, c.sent)))
            .counts("flow_control_counters", self.flow_control_counters())
            .text("load_balancer", lb)
            .text("flow_control", fc)
            .text("deflection", deflection)
            .set(
                "policies",
                FieldType::Texts,
                serde_json::Value::Object(
                    self.policies
                        .iter()
                        .map(|(k, v)| (k.to_string(), serde_json::Value::from(v.as_str())))
                        .collect(),
                ),
            )
            .int("packets_in_flight", s.packets_in_flight)
            .int("peak_packets_in_flight", s.peak_packets_in_flight)
            .int("buffer_bytes_in_use", s.buffer_bytes_in_use)
            .int("max_switch_buffer_bytes", s.max_buffer_bytes)
            .int("retransmitted_bytes", s.retransmitted_bytes)
            .int("timeouts", s.timeouts)
            .int("cnps", s.cnps)
            .int("ecn_marks", s.ecn_marks)
            .float("reordering_ratio", s.reordering_ratio)
            .int("hol_blocked_flows", s.hol_blocked_flows)
            .float(
                "hol_blocked_ratio",
                if s.flows_total == 0 { 0.0 } else { s.hol_blocked_flows as f64 / s.flows_total as f64 },
            )
            .int("reorder_held", s.reorder_held)
            .int("reorder_released", s.reorder_released)
            .int("bolt_srcs", s.bolt_srcs)
            .int_list("deflection_extra_hops", &s.deflection_extra_hops)
            .set("policy_lines", FieldType::Lines, serde_json::json!(self.policy_lines()))
            .set("notes", FieldType::Lines, serde_json::json!(self.notes))
            .int("packet_trace_dropped", s.packet_trace_dropped)
            .counts("counters", s.counters.iter().copied())
            .optional_float("queue_sample_interval_ns", self.queue_sample_interval().map(|i| i.as_ns_f64()))
            .optional_float("throughput_interval_ns", self.throughput_interval().map(|i| i.as_ns_f64()))
            .set("queue_delay_ns", FieldType::TierStats, serde_json::Value::Object(delay))
            .int("deadlocks", self.deadlocks().len() as u64)
            .optional_float("deadlock_time_ns", self.deadlocks().first().map(|d| ns(d.time)))
            .int("deadlock_flows", self.deadlocks().first().map_or(0, |d| d.flows.len() as u64))
            .text("deadlock_message", &self.deadlock_message().unwrap_or_default())
            .finish()
    }

    /// Node id and port number within the node of a global port id.
    fn local(&self, port: PortId) -> (u32, u32) {
        let node = self.port_node(port);
        (node.0, port.0 - self.topology().node_ports[node.idx()])
    }

    fn flows_table(&self, b: TableBuilder) -> TableBuilder {
        let r = self.flow_records();
        let ports = self.flow_ports();
        b.int("flow_id", r.iter().map(|r| r.flow_id))
            .int("src", r.iter().map(|r| r.src))
            .int("dst", r.iter().map(|r| r.dst))
            .int("size_bytes", r.iter().map(|r| r.size_bytes))
            .float("start_ns", r.iter().map(|r| ns(r.start)))
            .optional_float("finish_ns", r.iter().map(|r| r.finish.map(ns)))
            .optional_float("fct_ns", r.iter().map(|r| r.fct().map(|f| f.as_ns_f64())))
            .float("ideal_fct_ns", r.iter().map(|r| r.ideal_fct.as_ns_f64()))
            .optional_float("slowdown", r.iter().map(|r| r.slowdown()))
            .text("tag", r.iter().map(|r| r.tag.as_str()))
            .optional_int("query_id", r.iter().map(|r| r.query_id))
            .text("class", self.flow_classes().iter().map(|c| c.name()))
            .text("cc", r.iter().map(|r| r.cc))
            .text("loss_recovery", r.iter().map(|r| r.loss_recovery))
            .int("priority", r.iter().map(|r| r.priority))
            .int("retransmitted_bytes", r.iter().map(|r| r.retransmitted_bytes))
            .int("timeouts", r.iter().map(|r| r.timeouts))
            .int("cnps_received", r.iter().map(|r| r.cnps_received))
            .int("path_hops", r.iter().map(|r| r.path_hops))
            .int("reordered_packets", r.iter().map(|r| r.reordered_packets))
            .int("deflections", r.iter().map(|r| r.deflections))
            .bool("hol_blocked", r.iter().map(|r| r.hol_blocked))
            .int("sport", ports.iter().map(|p| p.0))
            .int("dport", ports.iter().map(|p| p.1))
    }

    fn ports_table(&self, b: TableBuilder) -> TableBuilder {
        let r = self.port_records();
        let topo = self.topology();
        let peer_port = |i: usize| self.local(topo.ports[i].peer).1;
        b.int("node", r.iter().map(|r| r.node))
            .int("port", r.iter().map(|r| r.port))
            .int("peer_node", r.iter().map(|r| r.peer_node))
            .int("peer_port", (0..r.len()).map(peer_port))
            .text("tier", r.iter().map(|r| r.tier))
            .text("hop_tier", r.iter().map(|r| r.hop_tier))
            .int("rate_bps", r.iter().map(|r| r.rate_bps))
            .int("tx_bytes", r.iter().map(|r| r.stats.tx_bytes))
            .int("tx_packets", r.iter().map(|r| r.stats.tx_packets))
            .int("pause_sent", r.iter().map(|r| r.stats.pause_sent))
            .int("resume_sent", r.iter().map(|r| r.stats.resume_sent))
            .int("pause_received", r.iter().map(|r| r.stats.pause_received))
            .int("deflections", r.iter().map(|r| r.stats.deflections))
            .float("paused_time_ns", r.iter().map(|r| r.stats.paused_time.as_ns_f64()))
            .int("max_queue_bytes", r.iter().map(|r| r.stats.max_queue_bytes))
            .float("busy_time_ns", r.iter().map(|r| r.stats.busy_time.as_ns_f64()))
    }

    fn pfc_table(&self, b: TableBuilder) -> TableBuilder {
        let e = self.pfc_events();
        b.float("time_ns", e.iter().map(|e| ns(e.time)))
            .int("node", e.iter().map(|e| e.node.0))
            .int("port", e.iter().map(|e| self.local(e.port).1))
            .int("priority", e.iter().map(|e| e.priority))
            .bool("pause", e.iter().map(|e| e.pause))
    }

    fn rates_table(&self, b: TableBuilder) -> TableBuilder {
        let t = self.rate_trace();
        b.float("time_ns", t.iter().map(|r| ns(r.time)))
            .int("flow_id", t.iter().map(|r| r.flow))
            .int("rate_bps", t.iter().map(|r| r.rate_bps))
            .int("window_bytes", t.iter().map(|r| r.window_bytes))
            .int("in_flight_bytes", t.iter().map(|r| r.in_flight_bytes))
    }

    fn switches_table(&self, b: TableBuilder) -> TableBuilder {
        let s = self.switch_records();
        b.int("node", s.iter().map(|r| r.node))
            .text("tier", s.iter().map(|r| r.tier))
            .int("max_buffer_bytes", s.iter().map(|r| r.max_buffer_bytes))
    }

    fn queue_delay_table(&self, b: TableBuilder) -> TableBuilder {
        let d = self.queue_delay_buckets();
        b.text("hop_tier", d.iter().map(|r| r.tier.name()))
            .int("lower_ns", d.iter().map(|r| r.lower_ns))
            .int("upper_ns", d.iter().map(|r| r.upper_ns))
            .int("packets", d.iter().map(|r| r.packets))
    }

    fn queues_table(&self, b: TableBuilder) -> TableBuilder {
        let q = self.queue_samples();
        b.float("time_ns", q.iter().map(|r| ns(r.time)))
            .int("node", q.iter().map(|r| self.local(r.port).0))
            .int("port", q.iter().map(|r| self.local(r.port).1))
            .int("queue", q.iter().map(|r| r.queue.map_or(-1, i32::from)))
            .text("hop_tier", q.iter().map(|r| self.hop_tier(r.port).name()))
            .int("bytes", q.iter().map(|r| r.bytes))
    }

    fn buffers_table(&self, b: TableBuilder) -> TableBuilder {
        let s = self.buffer_samples();
        let tiers = &self.topology().tiers;
        b.float("time_ns", s.iter().map(|r| ns(r.time)))
            .int("node", s.iter().map(|r| r.node.0))
            .text("tier", s.iter().map(|r| tiers[r.node.idx()].name()))
            .int("bytes", s.iter().map(|r| r.bytes))
    }

    fn throughput_table(&self, b: TableBuilder) -> TableBuilder {
        let t = self.throughput_bins();
        b.float("time_ns", t.iter().map(|r| ns(r.time)))
            .int("flow_id", t.iter().map(|r| r.flow))
            .int("bytes", t.iter().map(|r| r.bytes))
    }

    fn packets_table(&self, b: TableBuilder) -> TableBuilder {
        let r = self.packet_records();
        b.float("time_ns", r.iter().map(|x| ns(x.time)))
            .text("event", r.iter().map(|x| x.event.name()))
            .int("node", r.iter().map(|x| self.local(x.port).0))
            .int("port", r.iter().map(|x| self.local(x.port).1))
            .text("kind", r.iter().map(|x| x.kind.name()))
            .optional_int("flow_id", r.iter().map(|x| (x.flow != u32::MAX).then_some(x.flow)))
            .int("seq", r.iter().map(|x| x.seq))
            .int("wire_bytes", r.iter().map(|x| x.wire_bytes))
            .int("queue", r.iter().map(|x| x.queue))
            .int("port_backlog_bytes", r.iter().map(|x| x.port_backlog))
            .bool("ecn_ce", r.iter().map(|x| x.ecn_ce))
    }

    fn control_frames_table(&self, b: TableBuilder) -> TableBuilder {
        let e = self.control_events();
        b.float("time_ns", e.iter().map(|e| ns(e.time)))
            .int("node", e.iter().map(|e| e.node.0))
            .int("port", e.iter().map(|e| self.local(e.port).1))
            .text("kind", e.iter().map(|e| e.payload.kind_name()))
            .int("subject", e.iter().map(|e| e.payload.subject()))
            .bool("pause", e.iter().map(|e| e.payload.pauses() == Some(true)))
            .optional_int("resumes", e.iter().map(|e| e.payload.resumes()))
    }

    fn iq_usage_table(&self, b: TableBuilder) -> TableBuilder {
        let u = self.iq_usage();
        b.float("time_ns", u.iter().map(|r| ns(r.time)))
            .int("node", u.iter().map(|r| self.local(r.port).0))
            .int("port", u.iter().map(|r| self.local(r.port).1))
            .text("hop_tier", u.iter().map(|r| self.hop_tier(r.port).name()))
            .int("iqs", u.iter().map(|r| r.iqs))
    }

    fn deadlocks_table(&self, b: TableBuilder) -> TableBuilder {
        let rows: Vec<(usize, usize, &crate::sim::DeadlockMember, SimTime)> = self
            .deadlocks()
            .iter()
            .enumerate()
            .flat_map(|(i, d)| d.members.iter().enumerate().map(move |(j, m)| (i, j, m, d.time)))
            .collect();
        let place: Vec<(u32, u32)> = rows.iter().map(|r| self.local(r.2.port)).collect();
        let peer = |p: PortId| self.port_node(self.fab.ports[p.idx()].peer).0;
        b.float("time_ns", rows.iter().map(|r| ns(r.3)))
            .int("deadlock", rows.iter().map(|r| r.0 as u64))
            .int("member", rows.iter().map(|r| r.1 as u64))
            .int("node", place.iter().map(|p| p.0))
            .int("port", place.iter().map(|p| p.1))
            .int("queue", rows.iter().map(|r| r.2.queue))
            .int("peer_node", rows.iter().map(|r| peer(r.2.port)))
            .int("bytes", rows.iter().map(|r| r.2.bytes))
            .float("stuck_since_ns", rows.iter().map(|r| ns(r.2.stuck_since)))
            .text(
                "flows",
                rows.iter().map(|r| r.2.flows.iter().map(|f| f.0.to_string()).collect::<Vec<_>>().join(",")),
            )
    }

    fn congestion_trees_table(&self, b: TableBuilder) -> TableBuilder {
        let t = self.congestion_trees();
        b.float("time_ns", t.iter().map(|r| ns(r.time)))
            .int("root_node", t.iter().map(|r| self.local(r.root).0))
            .int("root_port", t.iter().map(|r| self.local(r.root).1))
            .int("node", t.iter().map(|r| self.local(r.port).0))
            .int("port", t.iter().map(|r| self.local(r.port).1))
            .text("role", t.iter().map(|r| r.role.name()))
            .text("state", t.iter().map(|r| r.state))
            .int("hop", t.iter().map(|r| r.hop))
            .int("bytes", t.iter().map(|r| r.bytes))
            .int("paused_children", t.iter().map(|r| r.paused_children))
    }
}
