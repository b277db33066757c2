//! Debug aid: `cargo run -p syncopt-async-waits --example gencase -- SEED TARGET`: the
//! generated kernel after shared-barriers (printed to stdout), then this pass's waits with the
//! (copy, consumer) pairs behind each, and which waits still verify with N + 1 (stderr).
use syncopt_analysis::InsertOptions;
use syncopt_ir::{StmtKind, SyncOp};
fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let tname = std::env::args().nth(2).unwrap_or_else(|| "gfx950".into());
    let target = syncopt_targets::Target::from_name(&tname).expect("target");
    let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
        ops: 40,
        seed,
        target,
        executable: false,
    });
    for (i, l) in src.lines().enumerate() {
        println!("{:4} {l}", i + 1);
    }
    let file = syncopt_ir::parse(&src).expect("parse");
    for m in file.chunks {
        for mut k in m.kernels {
            syncopt_barriers::run(&mut k, target, &InsertOptions::default());
            let r = syncopt_async_waits::run(&mut k, target, &InsertOptions::default());
            let printed = syncopt_ir::print_kernel(&k);
            for e in &r.explain {
                let line = |l: Option<syncopt_ir::Loc>| l.map_or(0, |l| l.line);
                eprintln!(
                    "wait {:?}: {:?}",
                    k.stmts[e.stmt].kind,
                    e.covers
                        .iter()
                        .map(|c| (line(c.from), line(c.to)))
                        .collect::<Vec<_>>()
                );
                let mut k2 = k.clone();
                let ok = match &mut k2.stmts[e.stmt].kind {
                    StmtKind::Sync(SyncOp::CounterWait { n, .. } | SyncOp::CpAsyncWait { n }) => {
                        *n += 1;
                        true
                    }
                    _ => false,
                };
                if ok && syncopt_verify::verify(&k2, target).is_ok() {
                    eprintln!("  ^ NOT MAXIMAL");
                }
            }
            eprintln!("{printed}");
        }
    }
}
