//! Benchmarks of the pipe verifier (ignored by default; they print, and only check that the
//! inputs verify). Run:
//!
//! ```text
//! cargo test --release -p syncopt-verify --test pipes_bench -- --ignored --nocapture
//! ```
//!
//! Numbers go in docs/PERFORMANCE.md and docs/VERIFY-PIPES.md.

use std::fmt::Write;
use std::time::Instant;

use syncopt_ir::parse;
use syncopt_targets::Target;
use syncopt_verify::pipes;

const HEADER: &str = "target ascend910b

kernel @bench(%n, %c) {
  %gin = buffer gm 1048576
  %gout = buffer gm 1048576
  %ua = buffer ub 8192
  %ub = buffer ub 8192
  %uc = buffer ub 8192
  %ud = buffer ub 8192
  %la = buffer l1 8192
  %lb = buffer l1 8192
  %a0 = buffer l0a 8192
  %b0 = buffer l0b 8192
  %c0 = buffer l0c 8192
";

const OPS: [&str; 10] = [
    "op \"load\" write %ua, read %gin",
    "op \"load\" write %ub[0:4096], read %gin",
    "op \"add\" write %uc, read %ua, read %ub",
    "op \"mul\" write %ud, read %uc, read %uc",
    "op \"store\" write %gout, read %ud",
    "op \"load\" write %la, read %gin",
    "op \"move\" write %a0, read %la",
    "op \"load\" write %lb, read %gin",
    "op \"move\" write %b0, read %lb",
    "op \"matmul\" write %c0, read %a0, read %b0",
];

/// `ops` ops, each followed by `pipe_barrier ALL`; every 50 ops a loop of 10 and every 100
/// an if/else of 5 + 5, so the structure matters too.
fn full_barrier_kernel(ops: usize) -> String {
    let mut s = String::from(HEADER);
    let mut i = 0;
    let line = |s: &mut String, indent: &str, i: &mut usize| {
        let _ = writeln!(
            s,
            "{indent}{}\n{indent}pipe_barrier ALL",
            OPS[*i % OPS.len()]
        );
        *i += 1;
    };
    while i < ops {
        if i % 100 == 0 && ops - i >= 10 {
            s.push_str("  if uniform %c {\n");
            for _ in 0..5 {
                line(&mut s, "    ", &mut i);
            }
            s.push_str("  } else {\n");
            for _ in 0..5 {
                line(&mut s, "    ", &mut i);
            }
            s.push_str("  }\n");
        } else if i % 50 == 0 && ops - i >= 10 {
            s.push_str("  for %i = 0 to %n {\n");
            for _ in 0..10 {
                line(&mut s, "    ", &mut i);
            }
            s.push_str("  }\n");
        } else {
            line(&mut s, "  ", &mut i);
        }
    }
    s.push_str("}\n");
    s
}

/// PT1 blocks chained by flags (5 ops and 8 flag ops each), every tenth block in a loop.
fn flag_kernel(ops: usize) -> String {
    let block = |ind: &str| {
        [
            "op \"load\" write %ua, read %gin",
            "op \"load\" write %ub, read %gin",
            "set_flag MTE2 -> V, 0",
            "wait_flag MTE2 -> V, 0",
            "op \"add\" write %uc, read %ua, read %ub",
            "set_flag V -> MTE3, 0",
            "wait_flag V -> MTE3, 0",
            "op \"store\" write %gout, read %uc",
            "set_flag MTE3 -> MTE2, 0",
            "wait_flag MTE3 -> MTE2, 0",
            "op \"load\" write %ud, read %gin",
            "set_flag MTE2 -> MTE3, 1",
            "wait_flag MTE2 -> MTE3, 1",
        ]
        .iter()
        .map(|l| format!("{ind}{l}\n"))
        .collect::<String>()
    };
    let mut s = String::from(HEADER);
    let mut n = 0;
    let mut b = 0;
    while n + 5 <= ops {
        if b % 10 == 0 {
            s.push_str("  for %i = 0 to %n {\n");
            s.push_str(&block("    "));
            s.push_str("  }\n");
        } else {
            s.push_str(&block("  "));
        }
        n += 5;
        b += 1;
    }
    s.push_str("}\n");
    s
}

fn measure(name: &str, src: &str) {
    let t0 = Instant::now();
    let f = parse(src).expect("bench input parses");
    let parse_s = t0.elapsed().as_secs_f64();
    let k = &f.chunks[0].kernels[0];
    let ops = {
        let mut n = 0;
        k.walk(&mut |_, d| n += matches!(d.kind, syncopt_ir::StmtKind::Op(_)) as usize);
        n
    };
    let t1 = Instant::now();
    let r = pipes::verify(k, Target::Ascend910b);
    let verify_s = t1.elapsed().as_secs_f64();
    let errors = r.diagnostics.iter().filter(|d| d.is_error()).count();
    assert!(
        errors == 0 || name.starts_with("racy"),
        "{name}: {:?}",
        r.diagnostics.first()
    );
    println!(
        "{name}: {ops} ops, {} statements: parse {parse_s:.3} s, verify {verify_s:.3} s, {} states, {errors} errors",
        k.stmt_count(),
        r.states
    );
}

#[test]
#[ignore]
fn bench_pipes_100k() {
    measure(
        "pipe_barrier ALL after every op",
        &full_barrier_kernel(100_000),
    );
    measure("PT1 blocks chained by flags", &flag_kernel(100_000));
    // A generated kernel, e.g.
    // syncopt gen --ops 100000 --seed 1 --target ascend910b \
    //   | sed -E 's/^(\s*)(op .*)$/\1\2\n\1pipe_barrier ALL/' > /tmp/gen.sk
    if let Ok(path) = std::env::var("SYNCOPT_BENCH_FILE") {
        let src = std::fs::read_to_string(&path).expect("SYNCOPT_BENCH_FILE is readable");
        measure(&path, &src);
    }
    // A kernel without sync ops: every hazard is reported.
    if let Ok(path) = std::env::var("SYNCOPT_BENCH_RACY_FILE") {
        let src = std::fs::read_to_string(&path).expect("SYNCOPT_BENCH_RACY_FILE is readable");
        measure(&format!("racy {path}"), &src);
    }
}

/// The inputs of the benchmark verify at a small size too (runs by default).
#[test]
fn bench_inputs_verify_small() {
    for src in [full_barrier_kernel(500), flag_kernel(500)] {
        let f = parse(&src).unwrap();
        let r = pipes::verify(&f.chunks[0].kernels[0], Target::Ascend910b);
        assert!(r.is_ok(), "{:?}", r.diagnostics.first());
    }
}
