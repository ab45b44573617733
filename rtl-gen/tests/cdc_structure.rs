//! The structural CDC check (`hw::cdc::raw_crossings`) on elaborated designs: no module of the
//! default design, and no asynchronous FIFO of any shape, lets a signal pass between clock
//! domains other than through a CDC-kit cell; the check finds a planted raw crossing (the full
//! flag computed from the read pointer itself rather than its synchronized copy) and a pointer
//! that crosses in binary rather than in Gray code.

use rtl_gen::config::Design;
use rtl_gen::hw::cdc::raw_crossings;
use rtl_gen::hw::verilog::{Expr, Item, Module, Stmt};

fn fifo(reset: &str, extra: &str) -> Module {
    // The base's width and depth unless `extra` sets them.
    let base: String = ["width = 8", "depth = 8"].iter().filter(|l| !extra.contains(&l[..5])).map(|l| format!("{l}\n")).collect();
    let text = format!("[design]\nname = \"c\"\nreset = \"{reset}\"\n\n[[blocks]]\nkind = \"async_fifo\"\nname = \"f\"\n{base}{extra}\n");
    let elab = Design::parse(&text, "c.toml").expect("design").elaborate();
    elab.modules[0].module.clone()
}

#[test]
fn no_module_of_the_default_design_crosses_raw() {
    let elab = Design::builtin_default().elaborate();
    let mut multi = 0;
    for m in &elab.modules {
        let raw = raw_crossings(&m.module);
        assert!(raw.is_empty(), "{}: {}", m.name(), raw.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "));
        multi += usize::from(m.module.items.iter().any(|i| matches!(i, Item::AlwaysFfOn { .. })));
    }
    assert!(multi >= 1, "the default design has a multi-clock module to check");
}

#[test]
fn every_fifo_shape_crosses_only_through_the_kit() {
    for reset in ["sync_high", "async_low"] {
        for extra in ["", "registered_output = true", "sync_stages = 4\ndepth = 2", "width = 1\ndepth = 1024\nsync_stages = 3"] {
            let raw = raw_crossings(&fifo(reset, extra));
            assert!(raw.is_empty(), "{reset} {extra}: {raw:?}");
        }
    }
}

/// Replaces the right-hand side of `assign <wire> = …`.
fn reassign(m: &mut Module, wire: &str, rhs: Expr) {
    let item = m.items.iter_mut().find(|i| matches!(i, Item::Assign(Expr::Ident(w), _) if w == wire)).expect("the assign");
    *item = Item::assign(Expr::id(wire), rhs);
}

#[test]
fn a_planted_raw_crossing_is_found() {
    let mut m = fifo("sync_high", "");
    // The full flag from the read pointer itself: a raw multi-bit crossing into wr_clk.
    reassign(&mut m, "wr_full_n", Expr::eq(Expr::id("wr_ptr_gray_n"), Expr::id("rd_ptr_gray_q")));
    let raw = raw_crossings(&m);
    let text: Vec<String> = raw.iter().map(ToString::to_string).collect();
    assert_eq!(text, ["rd_ptr_gray_q (rd_clk) reaches wr_full_q (wr_clk) without a synchronizer"]);

    // rd_en used by the write side.
    let mut m = fifo("async_low", "");
    reassign(&mut m, "wr_push", Expr::and(Expr::id("wr_en"), Expr::id("rd_en")));
    let raw = raw_crossings(&m);
    assert!(raw.iter().any(|r| r.from == "rd_en" && r.to_clock == "wr_clk"), "{raw:?}");
}

#[test]
fn a_pointer_crossing_in_binary_is_found() {
    let mut m = fifo("sync_high", "");
    // The write side's synchronizer samples the binary read pointer: several bits can change at
    // once, so the sampled value can be one the pointer never had.
    for item in &mut m.items {
        if let Item::AlwaysFfOn { body, .. } = item {
            for s in body.iter_mut() {
                if let Stmt::Assign(Expr::Ident(t), rhs) = s {
                    if t == "rd_ptr_sync_s1" {
                        *rhs = Expr::id("rd_ptr_bin_q");
                    }
                }
            }
        }
    }
    let raw = raw_crossings(&m);
    assert_eq!(raw.len(), 1, "{raw:?}");
    assert_eq!((raw[0].from.as_str(), raw[0].to.as_str()), ("rd_ptr_bin_q", "rd_ptr_sync_s1"));
}

fn rifl_recovered(reset: &str, extra: &str) -> Vec<rtl_gen::elab::ElabModule> {
    let text = format!("[design]\nname = \"c\"\nreset = \"{reset}\"\n\n[[blocks]]\nkind = \"rifl\"\nname = \"r\"\nframe_bits = 128\nuser_bits = 256\nlanes = 2\nclocking = \"recovered\"\n{extra}\n");
    Design::parse(&text, "c.toml").expect("design").elaborate().modules
}

#[test]
fn a_rifl_node_on_recovered_clocks_crosses_only_through_the_kit() {
    for reset in ["sync_high", "async_low"] {
        for extra in ["", "compensation = false"] {
            let modules = rifl_recovered(reset, extra);
            let multi: Vec<&str> = modules.iter().filter(|m| m.module.items.iter().any(|i| matches!(i, Item::AlwaysFfOn { .. }))).map(|m| m.name()).collect();
            let expected = if extra.is_empty() { 3 } else { 2 };
            assert_eq!(multi.len(), expected, "{reset} {extra}: the CDC FIFO, the lane's receiver crossing and the compensation are multi-clock: {multi:?}");
            for m in &modules {
                let raw = raw_crossings(&m.module);
                assert!(raw.is_empty(), "{reset} {extra} {}: {raw:?}", m.name());
            }
        }
    }
}

#[test]
fn a_planted_raw_crossing_in_the_compensation_is_found() {
    let modules = rifl_recovered("sync_high", "");
    let mut m = modules.iter().find(|m| m.role == rtl_gen::hw::module::Role::ClockComp).expect("the compensation module").module.clone();
    // The TX domain reads the free domain's owed count directly instead of its synchronized copy.
    reassign(&mut m, "owed_seen", Expr::id("owed_bin_q"));
    let raw = raw_crossings(&m);
    assert!(raw.iter().any(|r| r.from == "owed_bin_q" && r.to_clock == "clk"), "{raw:?}");
}

/// The transceiver-width form: the GT width converter's paths between clk and tx_fast_clk (one
/// source) are synchronous, everything else still crosses only through the kit; a path from
/// the recovered domain into the fast TX domain is still found.
#[test]
fn the_gt_width_form_crosses_only_through_the_kit_and_its_related_clocks() {
    for reset in ["sync_high", "async_low"] {
        let modules = rifl_recovered(reset, "gt_bits = 32");
        for m in &modules {
            let raw = raw_crossings(&m.module);
            assert!(raw.is_empty(), "{reset} {}: {raw:?}", m.name());
        }
        let gtx = modules.iter().find(|m| m.role == rtl_gen::hw::module::Role::GtTxWidth).expect("the GT width converter");
        assert!(gtx.module.items.iter().any(|i| matches!(i, Item::AlwaysFfOn { domain, .. } if domain.clock == "tx_fast_clk")));
    }
    let modules = rifl_recovered("sync_high", "gt_bits = 32");
    let mut m = modules.iter().find(|m| m.role == rtl_gen::hw::module::Role::ClockComp).expect("the compensation module").module.clone();
    // A fast TX clock is related to clk only: the recovered count read there raw is a crossing.
    for item in &mut m.items {
        if let Item::AlwaysFfOn { domain, .. } = item {
            if domain.clock == "clk" {
                domain.clock = "tx_fast_clk".into();
            }
        }
    }
    reassign(&mut m, "owed_seen", Expr::id("rx_cnt_gray_q"));
    let raw = raw_crossings(&m);
    assert!(raw.iter().any(|r| r.from == "rx_cnt_gray_q" && r.to_clock == "tx_fast_clk"), "{raw:?}");
}

/// The temporal bonding stages of a node (T = 2 and 4, both reset styles): clk and user_clk are
/// one source, so nothing crosses raw; the paths between the two go only into the documented
/// cells: the phase toggle into the phase learner (`seen_q`, `phase_q`, `locked_q`: one-cycle
/// paths) and into the `shared`-gated loads of the `bond_*` registers, and `bond_out_*` /
/// `bond_ready_q` into clk (the multicycle paths the constraint files declare). A planted path
/// from a user_clk register that changes at any user_clk edge into clk is found.
#[test]
fn temporal_bonding_passes_between_its_clocks_only_through_the_documented_registers() {
    use rtl_gen::hw::cdc::related_paths;
    use rtl_gen::hw::module::Role;
    let stages = |reset: &str, t: u32| {
        let text = format!("[design]\nname = \"c\"\nreset = \"{reset}\"\n\n[[blocks]]\nkind = \"rifl\"\nname = \"r\"\nframe_bits = 128\nuser_bits = 32\nlanes = 2\nuser_clk_ratio = {t}\n");
        let elab = Design::parse(&text, "c.toml").expect("design").elaborate();
        elab.modules.into_iter().filter(|m| matches!(m.role, Role::TemporalBondTx | Role::TemporalBondRx | Role::Node)).collect::<Vec<_>>()
    };
    let documented = |to: &str, from: &str| (from == "slow_toggle_q" && (["seen_q", "phase_q", "locked_q"].contains(&to) || to.starts_with("bond_"))) || from.starts_with("bond_out_") || from == "bond_ready_q";
    for reset in ["sync_high", "async_low"] {
        for t in [2, 4] {
            let modules = stages(reset, t);
            assert_eq!(modules.len(), 3, "node and two stages");
            for m in &modules {
                let raw = raw_crossings(&m.module);
                assert!(raw.is_empty(), "{reset} T={t} {}: {raw:?}", m.name());
                let related = related_paths(&m.module);
                let stray: Vec<_> = related.iter().filter(|p| !documented(&p.to, &p.from)).collect();
                assert!(stray.is_empty(), "{reset} T={t} {}: {stray:?}", m.name());
                if m.role != Role::Node {
                    assert!(related.iter().any(|p| p.from == "slow_toggle_q" && p.to == "seen_q"), "{}: the toggle path is seen", m.name());
                }
            }
        }
    }
    let mut m = stages("sync_high", 4).into_iter().find(|m| m.role == Role::TemporalBondTx).expect("the TX stage").module;
    // The clk toggle made to depend on the accumulator, which changes at any user_clk edge.
    for item in &mut m.items {
        if let Item::AlwaysFf { body, .. } = item {
            for s in body.iter_mut() {
                if let Stmt::Assign(Expr::Ident(to), rhs) = s {
                    if to == "slow_toggle_q" {
                        *rhs = Expr::xor(Expr::id("slow_toggle_q").not(), Expr::id("bond_acc_done_q"));
                    }
                }
            }
        }
    }
    let stray: Vec<_> = related_paths(&m).into_iter().filter(|p| !documented(&p.to, &p.from)).collect();
    assert!(stray.iter().any(|p| p.from == "bond_acc_done_q" && p.to == "slow_toggle_q"), "{stray:?}");
}
