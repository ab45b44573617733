//! Elaboration: a validated [`Design`] becomes the one object the emitter, the simulator and the
//! CLI all read. Per module it holds the typed [`Role`], the block that owns it, the kind and
//! **own** parameters of the generator that built it (the FEC decoder inside an endpoint lists
//! the `rs_fec` parameters, not the endpoint's), ports, latency and the modules it instantiates
//! (derived from its instances).
//!
//! Shared modules: a module some other module instantiates is *internal*; one nobody
//! instantiates is a *top* and always keeps its name (`<prefix><block>[_suffix]`). Internal
//! modules with the same kind, role, own parameters and body (the same text once their own name
//! is set aside) are emitted once, as in FIRRTL's deduplication:
//! - if a top module has that body too, every instance uses the top module;
//! - otherwise the first such module in design order keeps its name and the others instantiate it.
//!
//! A top that is only a part of a larger block ([`Role::is_node_part`]: the RIFL frame encoder,
//! which the node's transmitter does not instantiate) merges like an internal module: two RIFL
//! nodes with the same lane parameters emit one encoder file, which both blocks list.
//!
//! The frequencies of a module's clocks (its `<clock>_mhz` parameters: an asynchronous FIFO's
//! `wr_clk_mhz`) are not part of what it is: they only time it. Internal modules that differ in
//! nothing else are one module too, timed alone at the fastest of each clock its users give it
//! ([`clock_frequency`]); each user's own constraint files name the clocks of its instance. A
//! top keeps the frequencies its block sets: only internal modules at exactly those merge into it.
//!
//! Merging repeats until nothing changes, so a parent whose children merged can merge in turn.
//! The surviving module records every block that uses it ([`ElabModule::shared_by`]).

use crate::blocks::Block;
use crate::config::Design;
use crate::hw::module::{GeneratedModule, Role};
use crate::hw::verilog::{Item, Module, Port};
use std::collections::{BTreeMap, HashMap};

/// One module of an elaborated design.
#[derive(Debug, Clone)]
pub struct ElabModule {
    pub module: Module,
    pub role: Role,
    /// Index into [`Design::blocks`] of the block that owns the module (the first, if shared).
    pub block: usize,
    /// Kind of the generator that built it (`rs_fec` for the decoder inside an endpoint).
    pub kind: &'static str,
    /// That generator's own parameters, defaults resolved, typed (see [`ElabModule::params`]).
    pub params: crate::fields::ParamList,
    /// Cycles from an input sample to the matching output (0 = combinational).
    pub latency: u32,
    pub summary: String,
    pub notes: Vec<String>,
    /// Modules it instantiates, from its instances.
    pub depends: Vec<String>,
    /// Other blocks whose identical module was merged into this one, in design order.
    pub shared_by: Vec<usize>,
    /// Whether no module of the design instantiates it.
    pub top: bool,
}

impl ElabModule {
    pub fn name(&self) -> &str {
        &self.module.name
    }
    pub fn ports(&self) -> &[Port] {
        &self.module.ports
    }
    pub fn port(&self, name: &str) -> Option<&Port> {
        self.module.ports.iter().find(|p| p.name == name)
    }
    /// The module's parameters as its kind's struct (`m.params::<CrcParams>()`): the exact
    /// values its generator was built from, for the reference model.
    pub fn params<P: crate::fields::KindParams>(&self) -> Result<P, String> {
        if self.kind != P::KIND {
            return Err(format!("module {} is of kind {}, not {}", self.name(), self.kind, P::KIND));
        }
        P::from_list(&self.params)
    }
    /// Whether the module has a clock (every clocked module has a `clk` port).
    pub fn clocked(&self) -> bool {
        self.module.reset.is_some() || self.module.ports.iter().any(|p| p.name == "clk")
    }
}

/// A design after elaboration: the design itself and every module it emits, deduplicated, in
/// emission order (block order, each block's modules in the order its generator returns them).
#[derive(Debug)]
pub struct Elaborated {
    pub design: Design,
    pub modules: Vec<ElabModule>,
}

impl Design {
    /// Build every module of every block, derive dependencies and merge identical internal
    /// modules (see the module docs).
    pub fn elaborate(self) -> Elaborated {
        let mut modules: Vec<ElabModule> = Vec::new();
        for (bi, block) in self.blocks.iter().enumerate() {
            // Each block with its own reset style; its sub-modules (an endpoint's FEC, a node's
            // lanes) are built with the same settings. Module names carry the block name, so
            // two blocks of different styles never give two bodies one name; identical bodies
            // of one style merge below (the reset port is part of the body).
            for mut m in block.elaborate(&self.block_info(bi)) {
                // Memory arrays become instances of one RAM wrapper per shape, emitted before
                // their first user; identical shapes merge below like any shared module.
                for ram in crate::hw::ram::wrap(&mut m.module, &self.info.prefix) {
                    modules.push(from_generated(bi, block.as_ref(), ram));
                }
                modules.push(from_generated(bi, block.as_ref(), m));
            }
        }
        deduplicate(&mut modules);
        Elaborated { design: self, modules }
    }
}

fn from_generated(bi: usize, block: &dyn Block, mut m: GeneratedModule) -> ElabModule {
    crate::hw::tidy::tidy(&mut m.module);
    let depends = m.depends();
    let origin = m.origin.unwrap_or_else(|| crate::hw::module::Origin { kind: block.kind(), params: block.typed_params() });
    ElabModule {
        module: m.module,
        role: m.role,
        block: bi,
        kind: origin.kind,
        params: origin.params,
        latency: m.latency,
        summary: m.summary,
        notes: m.notes,
        depends,
        shared_by: Vec::new(),
        top: true,
    }
}

/// The module text with its own name replaced, so identical bodies compare equal.
fn body_key(m: &ElabModule) -> String {
    let mut probe = m.module.clone();
    probe.name = String::from("\u{1}");
    probe.render()
}

fn mark_tops(modules: &mut [ElabModule]) {
    let used: std::collections::HashSet<String> = modules.iter().flat_map(|m| m.depends.iter().cloned()).collect();
    for m in modules.iter_mut() {
        m.top = !used.contains(m.name());
    }
}

/// Merge internal modules (and node parts) with identical kind, role, parameters and body.
/// What two modules must share to be candidates for one shared module: kind, role, parameters.
type Signature = (&'static str, Role, Vec<(&'static str, String)>);

fn signature(m: &ElabModule) -> Signature {
    (m.kind, m.role, m.params.iter().filter(|(k, _)| !clock_frequency(k)).map(|(k, v)| (*k, v.to_string())).collect())
}

/// The start of the note a module shared at different clock frequencies carries.
const SHARED_CLOCKS_NOTE: &str = "Shared by users on different clocks:";

/// Whether parameter `key` is the frequency of one of the module's clocks (`wr_clk_mhz`): it
/// goes into the constraint files, not the module.
pub fn clock_frequency(key: &str) -> bool {
    key.ends_with("clk_mhz")
}

/// `into`'s clock frequencies raised to `from`'s where `from`'s are higher: a module timed at
/// the faster of two users' clocks meets both.
fn fastest_clocks(into: &mut crate::fields::ParamList, from: &crate::fields::ParamList) {
    for (k, v) in into.iter_mut().filter(|(k, _)| clock_frequency(k)) {
        if let Some((_, w)) = from.iter().find(|(f, _)| f == k) {
            if w.as_f64().zip(v.as_f64()).is_some_and(|(theirs, mine)| theirs > mine) {
                *v = w.clone();
            }
        }
    }
}

fn deduplicate(modules: &mut Vec<ElabModule>) {
    loop {
        mark_tops(modules);
        // Candidates share kind, role and parameters with at least one internal module; only
        // those are rendered (the KP4 decoder alone is megabytes of text).
        let mut by_sig: HashMap<Signature, Vec<usize>> = HashMap::new();
        for (i, m) in modules.iter().enumerate() {
            by_sig.entry(signature(m)).or_default().push(i);
        }
        let mut round: Vec<(usize, usize)> = Vec::new(); // (duplicate, survivor)
        let mut groups: Vec<Vec<usize>> = by_sig.into_values().filter(|g| g.len() > 1 && g.iter().any(|&i| !modules[i].top || modules[i].role.is_node_part())).collect();
        groups.sort();
        for group in groups {
            let mut by_body: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for &i in &group {
                by_body.entry(body_key(&modules[i])).or_default().push(i);
            }
            for same in by_body.into_values().filter(|s| s.len() > 1) {
                // An interface top keeps its name; internal copies of it use it. Else the first
                // one wins, and node parts merge into it even when they are tops.
                // A top keeps its own clocks: only modules at exactly those merge into it.
                let keeps_name = |i: usize| modules[i].top && !modules[i].role.is_node_part();
                let tops: Vec<usize> = same.iter().copied().filter(|&i| keeps_name(i)).collect();
                let mut free: Vec<usize> = Vec::new();
                for &i in same.iter().filter(|&&i| !keeps_name(i)) {
                    match tops.iter().find(|&&t| modules[t].params == modules[i].params) {
                        Some(&t) => round.push((i, t)),
                        None => free.push(i),
                    }
                }
                if let Some((&survivor, rest)) = free.split_first() {
                    for &i in rest {
                        round.push((i, survivor));
                    }
                }
            }
        }
        if round.is_empty() {
            return;
        }
        let map: HashMap<String, String> = round.iter().map(|&(d, s)| (modules[d].name().to_string(), modules[s].name().to_string())).collect();
        for &(d, s) in &round {
            let blk = modules[d].block;
            let theirs = modules[d].params.clone();
            let sv = &mut modules[s];
            if sv.params != theirs && !sv.notes.iter().any(|n| n.starts_with(SHARED_CLOCKS_NOTE)) {
                sv.notes.push(format!("{SHARED_CLOCKS_NOTE} each of its clock frequencies is the fastest its users give that clock; each user's constraint files name the clocks of its own instance."));
            }
            fastest_clocks(&mut sv.params, &theirs);
            if blk != sv.block && !sv.shared_by.contains(&blk) {
                sv.shared_by.push(blk);
            }
        }
        let mut drop: Vec<usize> = round.iter().map(|&(d, _)| d).collect();
        drop.sort_unstable();
        for d in drop.into_iter().rev() {
            modules.remove(d);
        }
        for m in modules.iter_mut() {
            let mut changed = false;
            for item in &mut m.module.items {
                if let Item::Instance { module, .. } = item {
                    if let Some(new) = map.get(module) {
                        *module = new.clone();
                        changed = true;
                    }
                }
            }
            if changed {
                let mut deps: Vec<String> = Vec::new();
                for d in m.depends.iter().map(|d| map.get(d).unwrap_or(d).clone()) {
                    if !deps.contains(&d) {
                        deps.push(d);
                    }
                }
                m.depends = deps;
            }
            m.shared_by.sort_unstable();
        }
    }
}

impl Elaborated {
    pub fn block(&self, name: &str) -> Option<&dyn Block> {
        self.design.block(name)
    }

    /// The index of block `name`.
    pub fn block_index(&self, name: &str) -> Option<usize> {
        self.design.blocks.iter().position(|b| b.name() == name)
    }

    /// The module of block `block` with role `role` (a merged module is found from every block
    /// that uses it).
    pub fn module(&self, block: &str, role: Role) -> Option<&ElabModule> {
        let bi = self.block_index(block)?;
        self.modules.iter().find(|m| m.role == role && (m.block == bi || m.shared_by.contains(&bi)))
    }

    /// Every module block `block` uses, including shared ones.
    pub fn modules_of(&self, block: &str) -> Vec<&ElabModule> {
        let Some(bi) = self.block_index(block) else { return Vec::new() };
        self.modules.iter().filter(|m| m.block == bi || m.shared_by.contains(&bi)).collect()
    }

    /// `m` and every module under it (what it instantiates, and so on), each once, `m` first.
    pub fn hierarchy<'a>(&'a self, m: &'a ElabModule) -> Vec<&'a ElabModule> {
        let mut out = vec![m];
        let mut i = 0;
        while i < out.len() {
            for d in &out[i].depends {
                if let Some(sub) = self.modules.iter().find(|x| x.name() == d) {
                    if !out.iter().any(|x| x.name() == sub.name()) {
                        out.push(sub);
                    }
                }
            }
            i += 1;
        }
        out
    }

    /// Indices of `modules` in dependency order: a module after everything it instantiates.
    pub fn dependency_order(&self) -> Vec<usize> {
        let index: HashMap<&str, usize> = self.modules.iter().enumerate().map(|(i, m)| (m.name(), i)).collect();
        let mut order = Vec::new();
        let mut placed = vec![false; self.modules.len()];
        fn visit(i: usize, e: &Elaborated, index: &HashMap<&str, usize>, placed: &mut Vec<bool>, order: &mut Vec<usize>) {
            if placed[i] {
                return;
            }
            placed[i] = true;
            for d in &e.modules[i].depends {
                if let Some(&j) = index.get(d.as_str()) {
                    visit(j, e, index, placed, order);
                }
            }
            order.push(i);
        }
        for i in 0..self.modules.len() {
            visit(i, self, &index, &mut placed, &mut order);
        }
        order
    }
}
