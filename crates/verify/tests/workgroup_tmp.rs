#[path = "workgroup_gen.rs"] mod g; use g::*; use syncopt_gen::{generate, GenOptions}; use syncopt_targets::Target;
#[test]
fn timing() {
    for &t in Target::GPUS {
        for seed in 0..40 {
            let text = generate(&GenOptions { ops: 60, seed, target: t, executable: false });
            let mut k = parse_one(&text);
            brute_force(&mut k, t);
            let t0 = std::time::Instant::now();
            let r = syncopt_verify::verify(&k, t);
            let el = t0.elapsed().as_secs_f64();
            if el > 0.2 { eprintln!("{t} {seed} {el:.2}s states {} diags {}", r.states, r.diagnostics.len()); }
        }
    }
    panic!();
}
