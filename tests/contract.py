"""The interface contract of the outputs (issue 2): columns and keys that users' scripts
rely on. Tests import these lists so the contract is written once."""

# Required leading columns of flows.parquet / Result.flows, in order.
CONTRACT_FLOW_COLUMNS = [
    "flow_id",
    "src",
    "dst",
    "size_bytes",
    "start_ns",
    "finish_ns",
    "fct_ns",
    "ideal_fct_ns",
    "slowdown",
    "tag",
]

# Required keys of summary.json.
CONTRACT_SUMMARY_KEYS = [
    "events",
    "sim_time_ns",
    "wall_seconds",
    "flows_total",
    "flows_finished",
    "drops",
    "pfc_pause_frames",
]
