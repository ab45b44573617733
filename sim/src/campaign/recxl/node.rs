//! The logging units the system simulation drives: the cycle-accurate model alone, or the
//! Verilated RTL with its own model in lockstep (every output compared every cycle).

use crate::cosim::recxl::{compare, drive};
use crate::link::Tally;
use crate::{Dut, SimError};
use rtl_gen::blocks::recxl_logging_unit::model::{LoggingUnitModel, LuInputs, LuOutputs};
use rtl_gen::blocks::recxl_logging_unit::RecxlLoggingUnitBlock;

/// One compute node's logging unit.
pub trait LuNode {
    /// Outputs for this cycle's inputs (registered outputs; the RTL twin drives and compares).
    fn outputs(&mut self, i: &LuInputs, cycle: u64) -> Result<LuOutputs, SimError>;
    /// The clock edge.
    fn tick(&mut self, i: &LuInputs);
    /// The model (inspection: counters, head and tail).
    fn model(&self) -> &LoggingUnitModel;
    /// RTL/model mismatches so far (0 for the model alone).
    fn mismatches(&self) -> u64 {
        0
    }
}

impl LuNode for LoggingUnitModel {
    fn outputs(&mut self, i: &LuInputs, _: u64) -> Result<LuOutputs, SimError> {
        Ok(LoggingUnitModel::outputs(self, i))
    }
    fn tick(&mut self, i: &LuInputs) {
        LoggingUnitModel::tick(self, i)
    }
    fn model(&self) -> &LoggingUnitModel {
        self
    }
}

/// Verilated RTL with the model beside it.
pub struct RtlTwin {
    pub dut: Dut,
    pub model: LoggingUnitModel,
    pub block: RecxlLoggingUnitBlock,
    pub tally: Tally,
}

impl RtlTwin {
    pub fn new(mut dut: Dut, block: &RecxlLoggingUnitBlock) -> Result<RtlTwin, SimError> {
        dut.reset(2)?;
        Ok(RtlTwin { dut, model: block.model(), block: block.clone(), tally: Tally::default() })
    }
}

impl LuNode for RtlTwin {
    fn outputs(&mut self, i: &LuInputs, cycle: u64) -> Result<LuOutputs, SimError> {
        let o = self.model.outputs(i);
        drive(&mut self.dut, &self.block, i)?;
        self.dut.eval();
        compare(&self.dut, &self.block, &o, cycle, &mut self.tally)?;
        self.tally.vectors += 1;
        Ok(o)
    }
    fn tick(&mut self, i: &LuInputs) {
        self.model.tick(i);
        self.dut.tick();
        self.tally.cycles += 1;
    }
    fn model(&self) -> &LoggingUnitModel {
        &self.model
    }
    fn mismatches(&self) -> u64 {
        self.tally.mismatches
    }
}
