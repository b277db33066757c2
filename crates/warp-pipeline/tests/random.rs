//! Random warp pipelines: every conversion must pass the operational two-group check, be
//! idempotent, and need each fence it adds; every rejection must be genuine (the same
//! pipeline with a fence at every boundary still races).
//! The default run tries a few hundred pipelines; `cargo test -- --ignored` runs a long
//! campaign.

mod oracle;

use syncopt_analysis::InsertOptions;
use syncopt_ir::{StmtKind, SyncOp};
use syncopt_targets::Target;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

struct Case {
    target: Target,
    /// The input, and the same pipeline converted by hand with a fence at every boundary.
    src: String,
    all_fenced: String,
}

fn gen(seed: u64) -> Case {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let target = if r.chance(50) {
        Target::Gfx950
    } else {
        Target::Gfx1250
    };
    let n = 2 + r.below(7) as usize;
    let g = if n >= 3 && r.chance(30) { 2 } else { 1 };
    let prio = r.chance(30);
    let mut stages = Vec::new();
    let mut bounds = Vec::new();
    let mut view = 0;
    for s in 0..n {
        let mut body = String::new();
        for _ in 0..r.below(3) {
            let mem = match r.below(6) {
                0 => "%A".to_string(),
                1 => "%A[0:4096]".to_string(),
                2 => "%A[4096:8192]".to_string(),
                3 => "%B".to_string(),
                _ => {
                    view += 1;
                    let c = r.below(2);
                    body.push_str(&format!("    %v{view} = view %A slot (%k + {c}) mod 2\n"));
                    format!("%v{view}")
                }
            };
            let kind = match r.below(10) {
                0..=4 => "read",
                5..=8 => "write",
                _ => "atomic",
            };
            body.push_str(&format!("    op \"ds_{kind}\" {kind} {mem}\n"));
        }
        if r.chance(20) {
            body.push_str("    op \"mfma\"\n");
        }
        let mut marker = "    stage".to_string();
        if prio && r.chance(60) {
            marker.push_str(&format!(" prio {}", r.below(4)));
        }
        if s == 0 && g == 2 {
            marker.push_str(" gap 2");
        }
        stages.push((marker, body));
        bounds.push(match r.below(10) {
            0 => "    barrier exec\n",
            1 => "    barrier\n",
            _ => "",
        });
    }
    let head = format!(
        "target {}\nkernel @r(%n) waves 8 {{\n  %A = buffer workgroup 8192\n  %B = buffer workgroup 8192\n",
        target.name()
    );
    let mut src = head.clone();
    src.push_str("  for %k = 0 to %n {\n");
    for (i, (m, b)) in stages.iter().enumerate() {
        src.push_str(&format!("{m}\n{b}{}", bounds[i]));
    }
    src.push_str("  }\n}\n");
    let fence = target.info().lds_counter.expect("AMD").as_str();
    let mut all = head;
    all.push_str(&format!("  wait {fence}(0)\n"));
    for _ in 0..g {
        all.push_str("  cond_barrier high\n");
    }
    all.push_str("  for %k = 0 to %n {\n");
    for (m, b) in &stages {
        all.push_str(&format!("{m}\n{b}    barrier\n"));
    }
    all.push_str("  }\n");
    for _ in 0..g {
        all.push_str("  cond_barrier low\n");
    }
    all.push_str("}\n");
    Case {
        target,
        src,
        all_fenced: all,
    }
}

fn kernel(src: &str) -> syncopt_ir::Kernel {
    let f = syncopt_ir::parse(src).unwrap_or_else(|d| panic!("{}\n{src}", d.message));
    f.chunks[0].kernels[0].clone()
}

fn fences(k: &syncopt_ir::Kernel) -> Vec<syncopt_ir::StmtId> {
    let mut out = Vec::new();
    k.walk(&mut |s, d| {
        if matches!(d.kind, StmtKind::Sync(SyncOp::Barrier { fence: true, .. })) {
            out.push(s);
        }
    });
    out
}

/// Returns (converted, rejected) counts.
fn campaign(seeds: std::ops::Range<u64>) -> (usize, usize) {
    let (mut good, mut bad) = (0, 0);
    for seed in seeds {
        let case = gen(seed);
        let t = case.target;
        let input = kernel(&case.src);
        let mut k = input.clone();
        let rep = syncopt_warp_pipeline::run(&mut k, t, &InsertOptions::default());
        if rep.has_errors() {
            bad += 1;
            for d in &rep.diagnostics {
                assert!(
                    d.message.contains("cross-group hazard")
                        || d.message.contains("conflict with each other"),
                    "seed {seed}: unexpected error {}\n{}",
                    d.message,
                    case.src
                );
            }
            assert!(
                oracle::check(&kernel(&case.all_fenced), t).is_err(),
                "seed {seed}: rejected, yet a fence at every boundary is race-free:\n{}",
                case.all_fenced
            );
            continue;
        }
        good += 1;
        let text = syncopt_ir::print_kernel(&k);
        if let Err(e) = oracle::check(&k, t) {
            panic!("seed {seed}: {e}\n{}\n{text}", case.src);
        }
        assert!(
            syncopt_verify::verify(&k, t).is_ok(),
            "seed {seed}: verifier rejects\n{text}"
        );
        let mut k2 = kernel(&format!("target {}\n{text}", t.name()));
        let rep2 = syncopt_warp_pipeline::run(&mut k2, t, &InsertOptions::default());
        assert!(!rep2.has_errors());
        assert_eq!(
            syncopt_ir::print_kernel(&k2),
            text,
            "seed {seed}: not idempotent"
        );
        let given = fences(&input);
        for s in fences(&k).into_iter().filter(|s| !given.contains(s)) {
            let mut weak = k.clone();
            if let StmtKind::Sync(SyncOp::Barrier { fence, .. }) = &mut weak.stmts[s].kind {
                *fence = false;
            }
            assert!(
                oracle::check(&weak, t).is_err(),
                "seed {seed}: fence {s:?} is not needed\n{text}"
            );
        }
    }
    (good, bad)
}

#[test]
fn random_pipelines() {
    let (good, bad) = campaign(0..300);
    // The generator must exercise both outcomes.
    assert!(good > 50 && bad > 50, "converted {good}, rejected {bad}");
}

#[test]
#[ignore]
fn random_pipelines_long() {
    let (good, bad) = campaign(300..20_300);
    eprintln!("converted {good}, rejected {bad}");
}
