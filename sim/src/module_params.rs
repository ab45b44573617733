//! A module's own parameters as its kind's struct, for the co-simulation drivers and the link
//! nodes that build a block's model from the module they drive; errors name the module.

use crate::SimError;
use rtl_gen::elab::ElabModule;

/// The module's parameters as its kind's struct ([`ElabModule::params`]).
pub fn kind_params<P: rtl_gen::fields::KindParams>(m: &ElabModule) -> Result<P, SimError> {
    m.params::<P>().map_err(|message| SimError::Design { message: format!("module {}: {message}", m.name()) })
}

/// A parameter struct that does not validate: the module names it.
pub fn design_error(m: &ElabModule, e: rtl_gen::error::ConfigError) -> SimError {
    SimError::Design { message: format!("module {}: {e}", m.name()) }
}
