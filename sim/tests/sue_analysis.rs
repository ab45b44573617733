//! The SUE transport's go-back-N goodput (`rtl_gen::analysis::sue`) against a short fabric
//! campaign on the endpoint models (the models the fabric figures hold equal to the RTL): four
//! XPUs, saturating uniform traffic, `psn_scope = "dest_vc"`, PDUs dropped at 2e-2 per link. The
//! goodput against the same fabric at 1e-6 must match 1 / (1 + p' · window) within the
//! measurement's 95 % confidence interval.

use rtl_gen::analysis::sue::{self, go_back_n_share};
use rtl_gen_sim::campaign::sue::figures::{goodput_vs_drop, FigureOptions, Runner};
use rtl_gen_sim::Bench;

#[test]
fn go_back_n_goodput_inside_the_model_fabrics_interval() {
    let bench = Bench::default_design().unwrap();
    let mut r = Runner::new(&bench, FigureOptions { cycles: 30_000, seed: 5, rtl: false, ..FigureOptions::default() }).unwrap();
    let window = u64::from(r.base().transport_block.resolved.window);
    let drop = 2e-2;
    let fig = goodput_vs_drop(&mut r, &[1e-6, drop], &[]).unwrap();
    let (base, hit) = (&fig.points[0], &fig.points[1]);
    assert_eq!(base.violations + hit.violations, 0, "{:?}", hit.first_violation);
    let measured = hit.goodput / base.goodput;
    let loss = sue::pdu_loss(&sue::Inputs { drop, ber: 0.0, ..sue::Inputs::seed() });
    let predicted = go_back_n_share(loss, window);
    // The deficit 1/share − 1 = p'·N is proportional to the PDUs lost, a Poisson count; the
    // base run's own noise (no loss) adds about 1 % of goodput.
    let events = hit.drops as f64;
    assert!(events >= 100.0, "too few PDUs lost ({events}) for an interval");
    let deficit = 1.0 / measured - 1.0;
    let half = deficit * 1.96 / events.sqrt() + 0.01;
    eprintln!("drop {drop:e}: share predicted {predicted:.4}, measured {measured:.4} (deficit {deficit:.4} ± {half:.4}, {events} PDUs lost, window {window})");
    assert!((1.0 / predicted - 1.0 - deficit).abs() <= half, "predicted deficit {:.4} outside {deficit:.4} ± {half:.4}", 1.0 / predicted - 1.0);
}
