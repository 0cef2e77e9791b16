//! No per-hop flow control: every packet is lossy, left to admission and deflection
//! (`[switch.flow_control] kind = "none"`, or `switch.pfc.enabled = false`).

use super::hooks::{FcBuild, FlowControlPolicy, Outbox};
use crate::fabric::frames::NoFrame;
use crate::scenario::tagged::NoFields;

/// No flow control.
#[derive(Clone, Debug, Default)]
pub struct NoFlowControl {
    outbox: Outbox<NoFrame>,
}

impl FlowControlPolicy for NoFlowControl {
    const NAME: &'static str = "none";
    type Spec = NoFields;
    type Frame = NoFrame;
    const INLINE: bool = true;
    const PARTITIONS: bool = true;

    fn build(_spec: &NoFields, _b: &mut FcBuild) -> Self {
        NoFlowControl::default()
    }

    fn outbox(&mut self) -> &mut Outbox<NoFrame> {
        &mut self.outbox
    }
}
