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
    src: String,
    /// The same pipeline converted by hand with a fence at every boundary (single
    /// pipelines only).
    all_fenced: Option<String>,
    /// Two pipelines back to back: check the unmerged form with a barrier between them
    /// (the workgroup pass's job there).
    pair: bool,
}

struct Stages {
    /// (marker, body, sync at the end of the stage).
    stages: Vec<(String, String, &'static str)>,
    g: usize,
}

fn gen_stages(r: &mut Rng, flat: bool, iv: &str, view: &mut u32) -> Stages {
    let n = 2 + r.below(if flat { 4 } else { 7 }) as usize;
    let g = if !flat && n >= 3 && r.chance(30) {
        2
    } else {
        1
    };
    let prio = r.chance(30);
    let mut stages = Vec::new();
    for s in 0..n {
        let mut body = String::new();
        for _ in 0..r.below(3) {
            let mem = match r.below(6) {
                0 => "%A".to_string(),
                1 => "%A[0:4096]".to_string(),
                2 => "%A[4096:8192]".to_string(),
                3 => "%B".to_string(),
                _ if flat => "%B[0:64]".to_string(),
                _ => {
                    *view += 1;
                    let c = r.below(2);
                    body.push_str(&format!("    %v{view} = view %A slot ({iv} + {c}) mod 2\n"));
                    format!("%v{view}")
                }
            };
            let kind = match r.below(12) {
                0..=4 => "read",
                5..=8 => "write",
                9 => "atomic",
                _ => "gather",
            };
            if kind == "gather" {
                body.push_str(&format!(
                    "    op \"gather_to_lds\" async write {mem}, read %G\n"
                ));
            } else {
                body.push_str(&format!("    op \"ds_{kind}\" {kind} {mem}\n"));
            }
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
        let last = s + 1 == n;
        let bound = match r.below(10) {
            _ if flat && last => "",
            0 => "    barrier exec\n",
            1 => "    barrier\n",
            _ => "",
        };
        stages.push((marker, body, bound));
    }
    Stages { stages, g }
}

/// `fenced`: the LDS and async counters, to build the version with every boundary fenced.
fn pipeline_text(st: &Stages, flat: bool, iv: &str, fenced: Option<(&str, &str)>) -> String {
    let mut out = String::new();
    if let Some((f, _)) = fenced {
        out.push_str(&format!("  wait {f}(0)\n"));
        for _ in 0..st.g {
            out.push_str("  cond_barrier high\n");
        }
    }
    if !flat {
        out.push_str(&format!("  for {iv} = 0 to %n{} {{\n", &iv[1..]));
    }
    let n = st.stages.len();
    for (i, (m, b, bound)) in st.stages.iter().enumerate() {
        out.push_str(&format!("{m}\n{b}"));
        if let Some((_, a)) = fenced {
            if !flat || i + 1 < n {
                out.push_str(&format!("    wait {a}(0)\n    barrier\n"));
            }
        } else {
            out.push_str(bound);
        }
    }
    out.push_str(if flat { "    stage.end\n" } else { "  }\n" });
    if fenced.is_some() {
        for _ in 0..st.g {
            out.push_str("  cond_barrier low\n");
        }
    }
    out
}

fn gen(seed: u64) -> Case {
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let target = if r.chance(50) {
        Target::Gfx950
    } else {
        Target::Gfx1250
    };
    let fence = (
        target.info().lds_counter.expect("AMD").as_str(),
        target.info().async_counter.expect("AMD").as_str(),
    );
    let head = format!(
        "target {}\nkernel @r(%nk, %nj) waves 8 {{\n  %A = buffer workgroup 8192\n  %B = buffer workgroup 8192\n  %G = buffer global 65536\n",
        target.name()
    );
    let mode = r.below(10);
    let mut view = 0;
    let flat = (6..=7).contains(&mode) || mode == 9;
    let pair = mode >= 8;
    let a = gen_stages(&mut r, flat, "%k", &mut view);
    let mut src = head.clone();
    src.push_str(&pipeline_text(&a, flat, "%k", None));
    if pair {
        let b = gen_stages(&mut r, flat, "%j", &mut view);
        src.push_str(&pipeline_text(&b, flat, "%j", None));
    }
    src.push_str("}\n");
    let all_fenced =
        (!pair).then(|| format!("{head}{}}}\n", pipeline_text(&a, flat, "%k", Some(fence))));
    Case {
        target,
        src: src.replace("    stage", if flat { "  stage" } else { "    stage" }),
        all_fenced,
        pair,
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
            if let Some(all) = &case.all_fenced {
                assert!(
                    oracle::check(&kernel(all), t).is_err(),
                    "seed {seed}: rejected, yet a fence at every boundary is race-free:\n{all}"
                );
            }
            continue;
        }
        good += 1;
        let text = syncopt_ir::print_kernel(&k);
        // Between two unmerged pipelines the code is the workgroup pass's: stand in for it
        // with a fencing barrier between the reconverge and the shift.
        let rebuilt = case.pair && text.contains("  cond_barrier low\n  wait ");
        let k = if rebuilt {
            let stand_in = format!(
                "  cond_barrier low\n  wait {}(0)\n  barrier\n  wait ",
                t.info().async_counter.expect("AMD")
            );
            let with = text.replacen("  cond_barrier low\n  wait ", &stand_in, 1);
            kernel(&format!("target {}\n{with}", t.name()))
        } else {
            k
        };
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
        if rebuilt {
            continue;
        }
        // Every counter wait the pass adds for async copies is needed.
        let lds = t.info().lds_counter;
        for s in k.inserted_syncs() {
            if let StmtKind::Sync(SyncOp::CounterWait { counter, .. }) = k.stmts[s].kind {
                if Some(counter) == lds {
                    continue;
                }
                let mut weak = k.clone();
                weak.remove_stmt(s);
                assert!(
                    oracle::check(&weak, t).is_err(),
                    "seed {seed}: wait {s:?} is not needed\n{text}"
                );
            }
        }
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
            assert!(
                !syncopt_verify::verify(&weak, t).is_ok(),
                "seed {seed}: the verifier accepts fence {s:?} downgraded\n{text}"
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

/// Random statement soup (markers anywhere, loops and ifs in stages, stray syncs): the pass
/// must never panic, and whatever it accepts must still be race-free and idempotent.
fn soup(r: &mut Rng, depth: u32, out: &mut String, ind: usize) {
    let pad = " ".repeat(ind);
    for _ in 0..r.below(7) {
        let line = match r.below(16) {
            0..=2 => "stage".to_string(),
            3 => format!("stage prio {}", r.below(4)),
            4 => format!("stage gap {}", r.below(4)),
            5 => "stage.end".to_string(),
            6 | 7 => "op \"ds_write\" write %A".to_string(),
            8 | 9 => "op \"ds_read\" read %A[0:64]".to_string(),
            10 => "op \"mfma\"".to_string(),
            11 => [
                "barrier",
                "barrier exec",
                "wait lgkmcnt(0)",
                "sched_barrier 0",
            ][r.below(4) as usize]
                .to_string(),
            12 => ["cond_barrier high", "cond_barrier low", "setprio 1"][r.below(3) as usize]
                .to_string(),
            13 | 14 if depth < 2 => {
                let v = format!("%i{}", r.next() % 1000);
                out.push_str(&format!("{pad}for {v} = 0 to %n {{\n"));
                soup(r, depth + 1, out, ind + 2);
                out.push_str(&format!("{pad}}}\n"));
                continue;
            }
            15 if depth < 2 => {
                let u = if r.chance(70) { "uniform" } else { "divergent" };
                out.push_str(&format!("{pad}if {u} %c {{\n"));
                soup(r, depth + 1, out, ind + 2);
                out.push_str(&format!("{pad}}}\n"));
                continue;
            }
            _ => "op \"mfma\"".to_string(),
        };
        out.push_str(&format!("{pad}{line}\n"));
    }
}

#[test]
fn random_statement_soup_never_panics() {
    let mut converted = 0;
    for seed in 0..1500u64 {
        let mut r = Rng(seed.wrapping_mul(0xd1b5_4a32_d192_ed03) | 1);
        let t = [Target::Gfx950, Target::Gfx1250, Target::Gfx942][r.below(3) as usize];
        let mut src = format!(
            "target {}\nkernel @s(%n, %c) waves 8 {{\n  %A = buffer workgroup 4096\n",
            t.name()
        );
        soup(&mut r, 0, &mut src, 2);
        src.push_str("}\n");
        let Ok(file) = syncopt_ir::parse(&src) else {
            continue;
        };
        let mut k = file.chunks[0].kernels[0].clone();
        if syncopt_targets::check::check_kernel(&k, t)
            .iter()
            .any(|d| d.is_error())
        {
            continue;
        }
        let rep = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            syncopt_warp_pipeline::run(&mut k, t, &InsertOptions::default())
        }))
        .unwrap_or_else(|_| panic!("seed {seed}: the pass panicked on\n{src}"));
        if rep.has_errors() {
            for d in &rep.diagnostics {
                assert!(
                    d.loc.is_some(),
                    "seed {seed}: error without a location: {}",
                    d.message
                );
            }
            continue;
        }
        let text = syncopt_ir::print_kernel(&k);
        let mut k2 = kernel(&format!("target {}\n{text}", t.name()));
        let rep2 = syncopt_warp_pipeline::run(&mut k2, t, &InsertOptions::default());
        assert!(!rep2.has_errors(), "seed {seed}");
        assert_eq!(
            syncopt_ir::print_kernel(&k2),
            text,
            "seed {seed}: not idempotent"
        );
        if text.contains("stage") {
            converted += 1;
        }
    }
    assert!(converted >= 5, "only {converted} soups converted");
}

/// The fences chosen are as few as possible: no subset of the boundaries with fewer fences
/// passes the operational check (exhaustive over all subsets, small loops).
#[test]
fn fence_count_is_minimal() {
    assert!(minimal_fences(0..2000) >= 10);
}

#[test]
#[ignore]
fn fence_count_is_minimal_long() {
    eprintln!("compared {}", minimal_fences(2000..60_000));
}

fn minimal_fences(seeds: std::ops::Range<u64>) -> usize {
    let mut compared = 0;
    for seed in seeds {
        let case = gen(seed);
        if case.pair || case.src.contains("barrier") || case.src.contains("gather") {
            continue;
        }
        if !case.src.contains("  for ") {
            continue;
        }
        let t = case.target;
        let mut k = kernel(&case.src);
        let rep = syncopt_warp_pipeline::run(&mut k, t, &InsertOptions::default());
        if rep.has_errors() {
            continue;
        }
        let bars: Vec<_> = {
            let mut v = Vec::new();
            k.walk(&mut |s, d| {
                if matches!(d.kind, StmtKind::Sync(SyncOp::Barrier { .. })) {
                    v.push(s);
                }
            });
            v
        };
        let ours = fences(&k).len();
        if bars.len() > 8 || ours == 0 {
            continue;
        }
        compared += 1;
        for mask in 0u32..(1 << bars.len()) {
            if (mask.count_ones() as usize) >= ours {
                continue;
            }
            let mut alt = k.clone();
            for (i, &s) in bars.iter().enumerate() {
                if let StmtKind::Sync(SyncOp::Barrier { fence, .. }) = &mut alt.stmts[s].kind {
                    *fence = mask & (1 << i) != 0;
                }
            }
            assert!(
                oracle::check(&alt, t).is_err(),
                "seed {seed}: {} fences suffice, the pass used {ours}:\n{}",
                mask.count_ones(),
                syncopt_ir::print_kernel(&alt)
            );
        }
    }
    compared
}
